"""The steps of a Ray run, each a function a Ray task calls on a batch of the Dataset of sites
(a site a batch): the site read from its folder or url by the task itself, its pages chunked,
its duplicate marks found and its records made (`site_record_rows`), or, where asked, its
folder of site-level outputs and its records file written by the task (`site_output_rows`).
A site is one task, so that no page travels between tasks, and the driver gets back only the
records, or a row saying what was written."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.chunking.model import PageInput
from mdchunk.engines.site import documentation_pages, site_outline
from mdchunk.engines.site_languages import html_language, language_builds
from mdchunk.engines.site_nav import SiteNav
from mdchunk.errors import MdChunkError
from mdchunk.outputs.duplicates import Duplicate, find_duplicates_in
from mdchunk.outputs.marks import marked_records
from mdchunk.outputs.outline import SiteOutline
from mdchunk.outputs.pages import PageOutput
from mdchunk.ray.sites import local_site, page_hashes
from mdchunk.ray.writing import RECORD_COLUMNS, records_table, write_records_file, write_site_folder
from mdchunk.session.builder import page_key
from mdchunk.session.cache import PageCache
from mdchunk.session.exclusion import page_exclusion
from mdchunk.session.page_job import chunked_page, new_chunker
from mdchunk.settings import BuildSettings, OutputSettings, build_site_url

if TYPE_CHECKING:
    import pyarrow

    from mdchunk.chunking.chunker import Chunker

log = logging.getLogger("mdchunk.ray")


@dataclasses.dataclass(frozen=True, slots=True)
class Job:
    """What the Ray tasks of a run need: the settings of `mdchunk site`, and where the
    per-site outputs go."""

    settings: BuildSettings
    output: OutputSettings
    """What each page is made into (`BuildSettings.page_settings`, `native` always)."""
    processed_at: str
    content_selector: str | None = None
    folders: str | None = None
    """The folder that gets each site's folder of site-level outputs (None: none written)."""
    records: str | None = None
    """The folder that gets each site's records file (None: none written)."""
    records_format: str = "parquet"
    """`parquet` or `jsonl`: the records files' format."""
    cache: str | None = None
    """The folder of the page cache (`mdchunk.session.cache`) that keeps each chunked page
    across runs, so that a page seen before is not chunked again (None: none)."""
    cache_settings: str = ""
    """What the cache's entries are named with besides the page: a print of the settings."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Site:
    """One site's chunked pages, in the site's order, and its duplicate marks."""

    name: str
    outline: SiteOutline
    pages: tuple[PageOutput, ...]
    relatives: tuple[str, ...]
    """Each page's file in the site."""
    marks: Mapping[str, Duplicate]
    keys: tuple[str, ...] = ()
    """Each page's key in the page cache."""
    kept: int = 0
    """How many of the pages came from the page cache."""
    hashes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """The sha256 of each HTML file of the site, as the task read it (`page_hashes`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Read:
    """A site's folder as a Ray task reads it: the pages `mdchunk site` chunks, in the site's
    order, and what else the site's outputs need of the folder."""

    language: str
    pages: tuple[tuple[str, PageInput, str], ...]
    """Each page's file in the site, the page as the engine gave it, and its site url."""
    outline: SiteOutline
    hashes: Mapping[str, str]
    """The sha256 of each HTML file of the site (`page_hashes`)."""


def _read_site(name: str, where: str, job: Job) -> _Read:
    """The site `name` at `where` (`location`), read as `mdchunk site` reads it; the pages
    left out or unreadable are logged.

    Raises:
        MdChunkError: a folder without documentation pages, or that holds the builds of other
            languages.
    """
    with local_site(where) as site_dir:
        language = job.output.language or html_language(site_dir)
        others = [] if job.output.language_folder else language_builds(site_dir, language)
        if others:
            raise MdChunkError(f"{where}: holds the builds of other languages ("
                               f"{', '.join(tag for tag, _ in others)}), which mdchunk.ray "
                               "does not chunk yet: give each language's folder as a site of "
                               "its own")
        warnings: list[str] = []
        nav = SiteNav()
        pages = documentation_pages(site_dir, content_selector=job.content_selector,
                                    site_url=job.settings.site_url or None, warnings=warnings,
                                    required=True, nav=nav)
        kept = []
        for page in pages:
            exclusion = page_exclusion(page.input.meta, [page.relative], job.settings.exclude)
            if exclusion:
                log.debug("%s: %s: left out of the chunk index (%s)", name, page.relative,
                          exclusion.reason)
            else:
                kept.append(page)
        outline = site_outline(site_dir, {page.input.source_path: page.relative
                                          for page in kept}, nav)
        hashes = page_hashes(site_dir)
    for warning in warnings:
        log.warning("%s: %s", name, warning)
    return _Read(language or "", tuple(
        (page.relative, page.input, build_site_url(page.site_url, job.settings.version,
                                                   job.output.language_folder))
        for page in kept), outline, hashes)


def chunked_site(name: str, where: str, prefix: str, job: Job) -> _Site:
    """The site `name` at `where` read, each of its pages chunked with `chunked_page` as
    `mdchunk site` does (or taken from the page cache where it holds it), and its duplicate
    marks found among its own chunks, as the finish of `mdchunk site` finds them: all of a
    site in one Ray task, which reads its files itself. A page that cannot be chunked is
    logged and left out, as `mdchunk site` leaves it out."""
    read = _read_site(name, where, job)
    output = dataclasses.replace(job.output, language=read.language or None)
    chunker = new_chunker(job.settings.options, output, processed_at=job.processed_at,
                          tokenizer=job.settings.tokenizer, version=job.settings.version,
                          site_prefix=prefix or None)
    cache = None if job.cache is None else PageCache(Path(job.cache), job.cache_settings,
                                                      log=log)
    pages: list[PageOutput] = []
    relatives: list[str] = []
    keys: list[str] = []
    kept = 0
    for relative, page, site_url in read.pages:
        key = hashlib.sha256(json.dumps([page_key(page, site_url), prefix, read.language]
                                        ).encode()).hexdigest()
        made = _kept_page(cache, key)
        kept += made is not None
        if made is None:
            made = _chunked((chunker, output), page, site_url, name)
            if made is None:
                continue
            if cache is not None:
                cache.put(key, made)
        pages.append(made)
        relatives.append(relative)
        keys.append(key)
    marks = find_duplicates_in(chunk for page in pages for chunk in page.prints
                               ) if job.settings.duplicates != "off" else {}
    return _Site(name, read.outline, tuple(pages), tuple(relatives), marks, tuple(keys), kept,
                 read.hashes)


def _kept_page(cache: PageCache | None, key: str) -> PageOutput | None:
    """The page the cache keeps for `key`, with its content (None: it keeps none)."""
    if cache is None or not cache.holds(key):
        return None
    try:
        return cache.read(key)
    except (OSError, ValueError):
        return None


def _chunked(chunker: tuple[Chunker, OutputSettings], page: PageInput, site_url: str,
             site: str) -> PageOutput | None:
    """`page` chunked (None: it cannot be, which is logged, as `mdchunk site` reports it)."""
    try:
        made = chunked_page(chunker[0], page, chunker[1], site_url=site_url)
    except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
        log.warning("%s: %s: cannot be chunked, left out of the index: %s", site,
                    page.source_path, error)
        return None
    for warning in made.warnings:
        log.warning("%s: %s: %s", site, page.source_path, warning)
    return made


def _record_rows(site: _Site, job: Job) -> dict[str, list[str]]:
    """The site's rows: each chunk's site, page (`source`, `url`), id and native record."""
    rows: dict[str, list[str]] = {name: [] for name in RECORD_COLUMNS}
    drop = job.settings.duplicates == "drop"
    for page in site.pages:
        ids = [chunk[0] for chunk in page.prints] or [
            str(json.loads(record)["id"]) for record in page.records["native"]]
        records = marked_records("native", page.records["native"], ids, site.marks, drop=drop)
        for chunk_id, record in zip(ids, records, strict=True):
            for name, value in zip(rows, (site.name, page.source_path, page.url, chunk_id,
                                          record), strict=True):
                rows[name].append(value)
    return rows


def site_record_rows(batch: Mapping[str, Sequence[Any]], job: Job) -> pyarrow.Table:
    """The records of each site of `batch` (rows of `site`, `location`, `prefix`), a row a
    chunk, in the site's order, with the duplicate marks that `mdchunk site` gives them."""
    rows: dict[str, list[str]] = {name: [] for name in RECORD_COLUMNS}
    for name, where, prefix in _batch_sites(batch):
        for column, values in _record_rows(chunked_site(name, where, prefix, job),
                                           job).items():
            rows[column].extend(values)
    return records_table(rows)


def site_output_rows(batch: Mapping[str, Sequence[Any]], job: Job) -> dict[str, list[Any]]:
    """Chunk each site of `batch` (rows of `site`, `location`, `prefix`) and write its outputs:
    its folder of site-level outputs (`write_site_folder`) and its records file, each
    replacing the last atomically; a row for each site that says what was written."""
    names = ("site", "pages", "kept", "chunks", "duplicates", "folder", "records", "keys",
             "hashes")
    rows: dict[str, list[Any]] = {name: [] for name in names}
    for name, where, prefix in _batch_sites(batch):
        site = chunked_site(name, where, prefix, job)
        folder = records = ""
        if job.folders is not None:
            folder = str(write_site_folder(
                Path(job.folders) / site.name, site.pages, site.relatives, outline=site.outline,
                marks=site.marks, settings=job.settings, output=job.output))
        if job.records is not None:
            records = str(write_records_file(Path(job.records), site.name,
                                             _record_rows(site, job), job.records_format))
        for column, value in zip(names, (
                site.name, len(site.pages), site.kept, sum(page.chunks for page in site.pages),
                len(site.marks), folder, records, json.dumps(site.keys),
                json.dumps(dict(site.hashes), sort_keys=True)), strict=True):
            rows[column].append(value)
    return rows


def _batch_sites(batch: Mapping[str, Sequence[Any]]) -> Iterator[tuple[str, str, str]]:
    """The sites of a batch of the Dataset of sites: each one's name, location and prefix."""
    for at, name in enumerate(batch["site"]):
        yield str(name), str(batch["location"][at]), str(batch["prefix"][at])


def hashed_site(row: Mapping[str, Any]) -> dict[str, Any]:
    """The sha256 of each HTML file of the site of `row` (`page_hashes`), as JSON text."""
    with local_site(str(row["location"])) as site_dir:
        return {"site": row["site"], "pages": json.dumps(page_hashes(site_dir),
                                                         sort_keys=True)}
