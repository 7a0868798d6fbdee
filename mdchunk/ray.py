"""Many built sites chunked on Ray: the records of `mdchunk site`, made in Ray tasks.

A platform that indexes the built documentation of many projects runs mdchunk on the Ray
cluster it has: `site_records` reads the sites' pages into a Ray Dataset (a task per site),
chunks them in Ray tasks with the function that chunks a page for `mdchunk site`
(`mdchunk.session.page_job.chunked_page`), and marks the duplicate chunks of each site in a
grouped step, as the finish of `mdchunk site` does (`mdchunk.outputs.marks`).

Each row of the Dataset is one chunk: the site it came from (`site`), its page (`source`,
`url`), its `id` and its native `record`: the JSON text of its line in the `chunks.jsonl` that
`mdchunk site` writes for that site with the same settings, byte for byte, but for the site's
prefix in the ids (`doc:PREFIX/guide::ch0`, and the uuids made from them) and the build's time
(which `SOURCE_DATE_EPOCH` fixes). `Dataset.write_json` and `Dataset.write_parquet` write the
rows where a platform reads them.

Ray is an optional dependency (`pip install 'mdchunk[ray]'`); this module is a front end, which
nothing in mdchunk imports.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import pickle
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.chunking.model import PageInput, build_time
from mdchunk.engines.site import documentation_pages
from mdchunk.engines.site_languages import html_language, language_builds
from mdchunk.errors import MdChunkError, OptionError
from mdchunk.options import ChunkOptions
from mdchunk.outputs.duplicates import find_duplicates_in
from mdchunk.outputs.marks import marked_records
from mdchunk.session.exclusion import page_exclusion
from mdchunk.session.page_job import chunked_page, new_chunker
from mdchunk.settings import BuildSettings, OutputSettings, build_site_url, names_version_folder

if TYPE_CHECKING:
    from ray.data import Dataset

    from mdchunk.chunking.chunker import Chunker

log = logging.getLogger(__name__)

PAGES_PER_TASK = 16
"""Pages chunked by one Ray task (each task makes its chunkers once)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RaySite:
    """A built site to chunk, and the prefix of its ids."""

    path: Path
    """The built site's folder (what `mdchunk site` is given), where the Ray workers see it
    (relative: to the folder `site_records` is called in)."""
    prefix: str | None = None
    """What its ids start with (`doc:PREFIX/guide::ch0`) and its rows' `site`, unique among
    the sites; None: the folder's name; "": none (its ids are those of `mdchunk site`, and its
    rows' `site` is the folder's name)."""

    @property
    def name(self) -> str:
        """The site's name in its rows."""
        return self.prefix or self.path.name


@dataclasses.dataclass(frozen=True, slots=True)
class _Job:
    """What a Ray task needs of the settings to read and chunk pages as `mdchunk site`."""

    options: ChunkOptions
    output: OutputSettings
    processed_at: str
    site_url: str
    exclude: tuple[str, ...]
    tokenizer: str | None
    version: str | None
    duplicates: str
    content_selector: str | None


def site_records(sites: Iterable[RaySite | Path | str], settings: BuildSettings | None = None,
                 *, content_selector: str | None = None) -> Dataset:
    """A Ray Dataset of the native records of every chunk of `sites`, one row a chunk:
    `site` (`RaySite.name`), `source`, `url`, `id` and `record` (see the module's docs).

    `settings` are those `mdchunk site` would be given (`mdchunk.session.config.build_settings`;
    their formats and agent outputs aside: the rows hold native records). Ray is started here
    when it is not yet (`ray.init`); the Dataset runs when it is read or written.

    Raises:
        OptionError: a prefix that is no folder name, or that two sites share.
        MdChunkError: a site that is no folder; when the Dataset runs, a site without
            documentation pages, or that holds the builds of other languages (not yet chunked
            here).
    """
    import ray.data

    chosen = settings or BuildSettings()
    checked = _checked_sites(sites)
    output = dataclasses.replace(chosen.page_settings(), formats=("native",), inspector=False,
                                 agents=False, directive=False)
    job = _Job(chosen.options, output, build_time(), chosen.site_url, chosen.exclude,
               chosen.tokenizer, chosen.version, chosen.duplicates, content_selector)
    listed = ray.data.from_items([{"site": site.name, "path": str(site.path.resolve()),
                                   "prefix": site.prefix or ""} for site in checked])
    pages = listed.flat_map(functools.partial(_site_page_rows, job=job))
    chunks = pages.map_batches(functools.partial(_chunk_rows, job=job),
                               batch_size=PAGES_PER_TASK, batch_format="numpy")
    return chunks.groupby("site").map_groups(functools.partial(_marked_site, job=job),
                                             batch_format="numpy")


def _checked_sites(sites: Iterable[RaySite | Path | str]) -> list[RaySite]:
    """`sites` as `RaySite`s with their prefixes, checked."""
    checked: list[RaySite] = []
    seen: dict[str, Path] = {}
    for given in sites:
        site = given if isinstance(given, RaySite) else RaySite(Path(given))
        if site.prefix is None:
            site = dataclasses.replace(site, prefix=site.path.name)
        if not site.path.is_dir():
            raise MdChunkError(f"{site.path}: not a folder (build the site first)")
        if site.prefix and not names_version_folder(site.prefix):
            raise OptionError("prefix", f"{site.prefix!r} (of the site {site.path}) must name "
                              "a folder (no /, \\, . or ..)")
        if site.name in seen:
            raise OptionError("prefix", f"the sites {seen[site.name]} and {site.path} are both "
                              f"named {site.name!r}: give each a prefix of its own")
        seen[site.name] = site.path
        checked.append(site)
    return checked


def _site_page_rows(row: Mapping[str, Any], job: _Job) -> Iterator[dict[str, Any]]:
    """The pages of one site, a row each (in a Ray task): those `mdchunk site` chunks, with
    their place in the site's order, the page as the engine gave it (pickled) and the url of
    the site they are under; those left out or unreadable are logged. A row for the site
    itself (no page, `order` -1) comes first: every site then has rows in each step, even one
    whose pages are all left out (Ray Data's grouping fails on an input of no rows and no
    columns)."""
    site_dir, name = Path(row["path"]), str(row["site"])
    language = job.output.language or html_language(site_dir)
    others = [] if job.output.language_folder else language_builds(site_dir, language)
    if others:
        raise MdChunkError(f"{site_dir}: holds the builds of other languages ("
                           f"{', '.join(tag for tag, _ in others)}), which mdchunk.ray does "
                           "not chunk yet: give each language's folder as a site of its own")
    warnings: list[str] = []
    pages = documentation_pages(site_dir, content_selector=job.content_selector,
                                site_url=job.site_url or None, warnings=warnings,
                                required=True)
    for warning in warnings:
        log.warning("%s: %s", name, warning)
    yield {"site": name, "prefix": row["prefix"], "language": language or "", "order": -1,
           "page": b"", "site_url": ""}
    for order, page in enumerate(pages):
        exclusion = page_exclusion(page.input.meta, [page.relative], job.exclude)
        if exclusion:
            log.debug("%s: %s: left out of the chunk index (%s)", name, page.relative,
                      exclusion.reason)
            continue
        yield {"site": name, "prefix": row["prefix"], "language": language or "",
               "order": order, "page": pickle.dumps(page.input),
               "site_url": build_site_url(page.site_url, job.version,
                                          job.output.language_folder)}


def _chunk_rows(batch: Mapping[str, Sequence[Any]], job: _Job) -> dict[str, list[Any]]:
    """Chunk a batch of pages (in a Ray task), each with `chunked_page` as `mdchunk site`
    does: a row for each chunk, with its record, its print for the duplicate marks and its
    place in its site (`order`, then `number`)."""
    chunkers: dict[tuple[str, str], tuple[Chunker, OutputSettings]] = {}
    rows: dict[str, list[Any]] = {name: [] for name in (
        "site", "order", "number", "source", "url", "id", "record", "print")}
    for at, site in enumerate(batch["site"]):
        if not batch["page"][at]:  # the site's own row, which goes on as it is
            _append(rows, site=str(site), order=-1, number=-1, source="", url="", id="",
                    record="", print="")
            continue
        key = (str(batch["prefix"][at]), str(batch["language"][at]))
        if key not in chunkers:
            output = dataclasses.replace(job.output, language=key[1] or None)
            chunkers[key] = (new_chunker(job.options, output, processed_at=job.processed_at,
                                         tokenizer=job.tokenizer, version=job.version,
                                         site_prefix=key[0] or None), output)
        chunker, output = chunkers[key]
        page: PageInput = pickle.loads(batch["page"][at])
        made = chunked_page(chunker, page, output, site_url=str(batch["site_url"][at]))
        for warning in made.warnings:
            log.warning("%s: %s: %s", site, page.source_path, warning)
        prints = made.prints or tuple([_record_id(record)] for record in made.records["native"])
        for number, (record, chunk_print) in enumerate(zip(made.records["native"], prints,
                                                           strict=True)):
            _append(rows, site=str(site), order=int(batch["order"][at]), number=number,
                    source=made.source_path, url=made.url, id=chunk_print[0], record=record,
                    print=json.dumps(chunk_print) if made.prints else "")
    return rows


def _append(rows: dict[str, list[Any]], **values: Any) -> None:
    """Add a row to the columns `rows`."""
    for name, value in values.items():
        rows[name].append(value)


def _record_id(record: str) -> str:
    """The `id` of a native record's JSON text."""
    return str(json.loads(record)["id"])


def _marked_site(group: Mapping[str, Sequence[Any]], job: _Job) -> dict[str, list[Any]]:
    """The chunks of one site (in a Ray task) in the site's order, their records with the
    duplicate marks that `mdchunk site` gives them (found among this site's chunks only)."""
    places = sorted((at for at in range(len(group["id"])) if group["id"][at]),  # (a chunk's)
                    key=lambda at: (int(group["order"][at]), int(group["number"][at])))
    ids = [str(group["id"][at]) for at in places]
    searching = job.duplicates != "off"
    marks = find_duplicates_in(json.loads(str(group["print"][at])) for at in places
                               ) if searching else {}
    records = list(marked_records("native", [str(group["record"][at]) for at in places], ids,
                                  marks, drop=job.duplicates == "drop"))
    return {"site": [str(group["site"][at]) for at in places],
            "source": [str(group["source"][at]) for at in places],
            "url": [str(group["url"][at]) for at in places],
            "id": ids, "record": records}
