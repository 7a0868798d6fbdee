"""The steps of a Ray run, each a function a Ray task calls on rows: a site's pages read
(`site_rows`), pages chunked (`chunk_rows`), a site finished (`site_record_rows`,
`site_output_rows`): its duplicate marks found, its records made and, where asked, its folder
of site-level outputs and its records file written."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import pickle
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
from mdchunk.ray.writing import write_records_file, write_site_folder
from mdchunk.session.builder import page_key
from mdchunk.session.cache import PageCache
from mdchunk.session.exclusion import page_exclusion
from mdchunk.session.page_job import chunked_page, new_chunker
from mdchunk.settings import BuildSettings, OutputSettings, build_site_url

if TYPE_CHECKING:
    from mdchunk.chunking.chunker import Chunker

log = logging.getLogger("mdchunk.ray")

SITE_ROW = -1
"""The `order` of a site's own row, which holds its outline (what `llms.txt` follows) and
goes through every step before its pages: every site then has rows in each step, even one
whose pages are all left out (Ray Data's grouping fails on an input of no rows and no
columns)."""


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


def site_rows(row: Mapping[str, Any], job: Job) -> Iterator[dict[str, Any]]:
    """The site's own row (its outline), then a row for each of its pages that `mdchunk
    site` chunks, with its place in the site's order and the page as the engine gave it
    (pickled); the pages left out or unreadable are logged.

    Raises:
        MdChunkError: a folder without documentation pages, or that holds the builds of other
            languages.
    """
    name = str(row["site"])
    with local_site(str(row["location"])) as site_dir:
        language = job.output.language or html_language(site_dir)
        others = [] if job.output.language_folder else language_builds(site_dir, language)
        if others:
            raise MdChunkError(f"{row['location']}: holds the builds of other languages ("
                               f"{', '.join(tag for tag, _ in others)}), which mdchunk.ray "
                               "does not chunk yet: give each language's folder as a site of "
                               "its own")
        warnings: list[str] = []
        nav = SiteNav()
        pages = documentation_pages(site_dir, content_selector=job.content_selector,
                                    site_url=job.settings.site_url or None, warnings=warnings,
                                    required=True, nav=nav)
        kept = []
        for order, page in enumerate(pages):
            exclusion = page_exclusion(page.input.meta, [page.relative], job.settings.exclude)
            if exclusion:
                log.debug("%s: %s: left out of the chunk index (%s)", name, page.relative,
                          exclusion.reason)
            else:
                kept.append((order, page))
        outline = site_outline(site_dir, {page.input.source_path: page.relative
                                          for _, page in kept}, nav)
    for warning in warnings:
        log.warning("%s: %s", name, warning)
    common = {"site": name, "prefix": row["prefix"], "language": language or ""}
    yield {**common, "order": SITE_ROW, "relative": "", "site_url": "",
           "data": pickle.dumps(outline)}
    for order, page in kept:
        yield {**common, "order": order, "relative": page.relative, "data": pickle.dumps(
            page.input), "site_url": build_site_url(page.site_url, job.settings.version,
                                                    job.output.language_folder)}


def chunk_rows(batch: Mapping[str, Sequence[Any]], job: Job) -> dict[str, list[Any]]:
    """Chunk a batch of pages, each with `chunked_page` as `mdchunk site` does, or take it
    from the page cache where it holds it: a row for each page, what it contributes to every
    output (its `PageOutput`, pickled), its key in the cache and whether it came from there;
    the sites' own rows go on as they are. A page that cannot be chunked is logged and left
    out, as `mdchunk site` leaves it out."""
    chunkers: dict[tuple[str, str], tuple[Chunker, OutputSettings]] = {}
    cache = None if job.cache is None else PageCache(Path(job.cache), job.cache_settings,
                                                      log=log)
    names = ("site", "order", "relative", "data", "key", "kept")
    rows: dict[str, list[Any]] = {name: [] for name in names}
    for at, site in enumerate(batch["site"]):
        order, data, key, kept = int(batch["order"][at]), batch["data"][at], "", False
        if order != SITE_ROW:
            prefix, language = str(batch["prefix"][at]), str(batch["language"][at])
            if (prefix, language) not in chunkers:
                output = dataclasses.replace(job.output, language=language or None)
                chunkers[prefix, language] = (new_chunker(
                    job.settings.options, output, processed_at=job.processed_at,
                    tokenizer=job.settings.tokenizer, version=job.settings.version,
                    site_prefix=prefix or None), output)
            page: PageInput = pickle.loads(data)
            site_url = str(batch["site_url"][at])
            key = hashlib.sha256(json.dumps([page_key(page, site_url), prefix, language]
                                            ).encode()).hexdigest()
            made = _kept_page(cache, key)
            kept = made is not None
            if made is None:
                made = _chunked(chunkers[prefix, language], page, site_url, str(site))
            if made is None:
                continue
            if cache is not None and not kept:
                cache.put(key, made)
            data = pickle.dumps(made)
        for name, value in zip(names, (str(site), order, str(batch["relative"][at]), data,
                                       key, kept), strict=True):
            rows[name].append(value)
    return rows


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


def _finished(group: Mapping[str, Sequence[Any]], job: Job) -> _Site:
    """The site of `group` (all its rows) with its duplicate marks, found among its own chunks
    as the finish of `mdchunk site` finds them."""
    places = sorted(range(len(group["order"])), key=lambda at: int(group["order"][at]))
    outline: SiteOutline = pickle.loads(group["data"][places[0]])
    pages: tuple[PageOutput, ...] = tuple(pickle.loads(group["data"][at]) for at in places[1:])
    searching = job.settings.duplicates != "off"
    marks = find_duplicates_in(chunk for page in pages for chunk in page.prints
                               ) if searching else {}
    return _Site(str(group["site"][places[0]]), outline, pages,
                 tuple(str(group["relative"][at]) for at in places[1:]), marks,
                 tuple(str(group["key"][at]) for at in places[1:]),
                 sum(bool(group["kept"][at]) for at in places[1:]))


def _record_rows(site: _Site, job: Job) -> dict[str, list[str]]:
    """The site's rows: each chunk's site, page (`source`, `url`), id and native record."""
    rows: dict[str, list[str]] = {name: [] for name in ("site", "source", "url", "id",
                                                         "record")}
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


def site_record_rows(group: Mapping[str, Sequence[Any]], job: Job) -> dict[str, list[str]]:
    """The records of one site (all its rows), in the site's order, with the duplicate marks
    that `mdchunk site` gives them."""
    return _record_rows(_finished(group, job), job)


def site_output_rows(group: Mapping[str, Sequence[Any]], job: Job) -> dict[str, list[Any]]:
    """Write one site's outputs (all its rows): its folder of site-level outputs
    (`write_site_folder`) and its records file, each replacing the last atomically; a row that
    says what was written."""
    site = _finished(group, job)
    folder = records = ""
    if job.folders is not None:
        folder = str(write_site_folder(Path(job.folders) / site.name, site.pages,
                                       site.relatives, outline=site.outline, marks=site.marks,
                                       settings=job.settings, output=job.output))
    if job.records is not None:
        records = str(write_records_file(Path(job.records), site.name,
                                         _record_rows(site, job), job.records_format))
    return {"site": [site.name], "pages": [len(site.pages)], "kept": [site.kept],
            "chunks": [sum(page.chunks for page in site.pages)],
            "duplicates": [len(site.marks)], "folder": [folder], "records": [records],
            "keys": [json.dumps(site.keys)]}


def hashed_site(row: Mapping[str, Any]) -> dict[str, Any]:
    """The sha256 of each HTML file of the site of `row` (`page_hashes`), as JSON text."""
    with local_site(str(row["location"])) as site_dir:
        return {"site": row["site"], "pages": json.dumps(page_hashes(site_dir),
                                                         sort_keys=True)}
