"""Many built sites chunked on Ray: the records and the site-level outputs of `mdchunk site`,
made in Ray tasks.

A platform that indexes the built documentation of many projects runs mdchunk on the Ray
cluster it has. Each site is one Ray task (a Dataset of the sites, a block each): the task
reads the site's files itself (from a local folder or any file system fsspec opens), chunks
its pages with the function that chunks a page for `mdchunk site`
(`mdchunk.session.page_job.chunked_page`) and finishes the site as the finish of `mdchunk site`
does: its duplicate marks, and where asked its site-level outputs (`llms.txt`, `llms-full`, the
pages' Markdown and twins, the index in each format), written by the same writers. No page
travels between tasks or through the driver.

- `site_records`: a Dataset of the native records, one row a chunk: the site it came from
  (`site`), its page (`source`, `url`), its `id` and its `record`, the JSON text of its line in
  the `chunks.jsonl` that `mdchunk site` writes for that site with the same settings, byte for
  byte, but for the site's prefix in the ids (`doc:PREFIX/guide::ch0`, and the uuids made from
  them) and the build's time (which `SOURCE_DATE_EPOCH` fixes). `Dataset.write_json` and
  `Dataset.write_parquet` write them where a platform reads them.
- `site_outputs` / `write_site_outputs`: each site's folder of site-level outputs (and its
  records file), a row per site saying what was written.
- `mdchunk.ray.run.run_sites`: what `mdchunk ray` does (a folder of outputs, replaced whole,
  and the state that spares an unchanged site), and `mdchunk.ray.embedding.embedded`: the vectors
  of the records by a model the user names.

Ray is an optional dependency (`pip install 'mdchunk[ray]'`), loaded when a Dataset is made;
this package is a front end, which nothing in mdchunk's core imports.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.chunking.model import build_time
from mdchunk.errors import MdChunkError
from mdchunk.ray.sites import RaySite, checked_sites, location
from mdchunk.ray.steps import Job, site_output_rows, site_record_rows
from mdchunk.ray.writing import RECORDS_FORMATS
from mdchunk.settings import BuildSettings, OutputSettings

if TYPE_CHECKING:
    from ray.data import Dataset

RAY_MISSING = "mdchunk.ray needs Ray Data: pip install 'mdchunk[ray]'"


def site_records(sites: Iterable[RaySite | Path | str], settings: BuildSettings | None = None,
                 *, content_selector: str | None = None) -> Dataset:
    """A Ray Dataset of the native records of every chunk of `sites`, one row a chunk:
    `site` (`RaySite.name`), `source`, `url`, `id` and `record` (see the package's docs).

    `settings` are those `mdchunk site` would be given (`mdchunk.session.config.build_settings`;
    their formats and agent outputs aside: the rows hold native records). Ray is started here
    when it is not yet (`ray.init`); the Dataset runs when it is read or written.

    Raises:
        OptionError: a prefix that is no folder name, or that two sites share.
        MdChunkError: a site that is no folder; when the Dataset runs, a site without
            documentation pages, or that holds the builds of other languages (not yet chunked
            here).
    """
    chosen = settings or BuildSettings()
    job = Job(chosen, _page_output(chosen, agents=False), build_time(), content_selector)
    return _site_tasks(sites, functools.partial(site_record_rows, job=job))


def site_outputs(sites: Iterable[RaySite | Path | str], settings: BuildSettings | None,
                 folders: Path, *, records: Path | None = None,
                 records_format: str = "parquet", content_selector: str | None = None,
                 cache: Path | None = None) -> Dataset:
    """A Ray Dataset that, when it runs, writes each site's folder of site-level outputs into
    `folders` (`folders/NAME`, see `mdchunk.ray.writing.write_site_folder`: what `mdchunk site`
    writes into the site, byte for byte, but for its HTML) and, with `records`, its records
    (`records/NAME.parquet` or `.jsonl`: `site_records`' rows of the site); each replaces the
    last atomically. With `cache`, the page cache's folder (`mdchunk.session.cache`): each
    chunked page is kept there, and a page it holds already (the same HTML, site and settings)
    is taken from it rather than chunked again. A row per site: `site`, `pages`, `kept` (the
    pages taken from the cache), `chunks`, `duplicates`, `folder`, `records`, `keys` (the
    pages' keys in the cache, a JSON list), `hashes` (the sha256 of each of the site's HTML
    files as its task read them, by path, a JSON object). The folders must be where the Ray
    workers write (a shared file system on a cluster).

    Raises:
        OptionError, MdChunkError: as `site_records`; and for settings the Ray run does not
            make (`embed_model`, the chunk inspector), or an unknown `records_format`.
    """
    job = outputs_job(settings, folders, records=records, records_format=records_format,
                      content_selector=content_selector, cache=cache)
    return _site_tasks(sites, functools.partial(site_output_rows, job=job))


def outputs_job(settings: BuildSettings | None, folders: Path, *, records: Path | None = None,
                records_format: str = "parquet", content_selector: str | None = None,
                cache: Path | None = None) -> Job:
    """What the tasks of `site_outputs` (same arguments) are given: the settings checked, the
    folders made absolute.

    Raises:
        MdChunkError: for settings the Ray run does not make (`embed_model`), or an unknown
            `records_format`.
    """
    chosen = settings or BuildSettings()
    if chosen.embed_model is not None:
        raise MdChunkError("embed_model: the SQLite vectors are not made by mdchunk.ray; embed "
                           "the records with mdchunk.ray.embedding.embedded instead")
    if records_format not in RECORDS_FORMATS:
        raise MdChunkError(f"records format {records_format!r}: must be one of "
                           f"{', '.join(RECORDS_FORMATS)}")
    return Job(chosen, _page_output(chosen, agents=True), build_time(), content_selector,
               str(folders.resolve()), None if records is None else str(records.resolve()),
               records_format, None if cache is None else str(cache.resolve()),
               cache_settings(chosen))


def write_site_outputs(sites: Iterable[RaySite | Path | str], settings: BuildSettings | None,
                       folders: Path, **options: Any) -> list[dict[str, Any]]:
    """Run `site_outputs` (same arguments): write each site's folder into `folders`; return
    its rows, a site each."""
    return site_outputs(sites, settings, folders, **options).take_all()


def cache_settings(settings: BuildSettings) -> str:
    """What the page cache of `site_outputs` names its entries with besides the page: the
    settings a page's outputs depend on."""
    return json.dumps([settings.fingerprint(), repr(_page_output(settings, agents=True))])


def _page_output(settings: BuildSettings, *, agents: bool) -> OutputSettings:
    """What each page is made into: with `agents`, all `mdchunk site` makes of it with
    `settings` (`page_settings`, and the native records the rows hold); else its native
    records and its chunks' prints only."""
    output = dataclasses.replace(settings.page_settings(), inspector=False)
    if not agents:
        return dataclasses.replace(output, formats=("native",), agents=False, directive=False)
    return dataclasses.replace(output, formats=tuple(dict.fromkeys(("native", *output.formats))))


def _site_tasks(sites: Iterable[RaySite | Path | str], step: Callable[..., Any]) -> Dataset:
    """The Dataset of `step` run on each site of `sites` (a batch of `site`, `location` and
    `prefix`), a Ray task each: a block a site, so that the sites spread over the workers and
    each task chunks a whole site."""
    try:
        import ray.data
    except ImportError as error:
        raise MdChunkError(RAY_MISSING) from error
    checked = checked_sites(sites)
    listed = ray.data.from_items([site_row(site) for site in checked],
                                 override_num_blocks=max(1, len(checked)))
    # The error a site fails with (MdChunkError, naming it), not Ray Data's wrapper of it.
    listed.context.raise_original_map_exception = True
    return listed.map_batches(step, batch_size=1, batch_format="numpy")


def site_row(site: RaySite) -> dict[str, str]:
    """A site as the steps (`mdchunk.ray.steps`) are given it: its name, where a Ray task
    finds it, and its prefix."""
    return {"site": site.name, "location": location(site), "prefix": site.prefix or ""}


__all__ = ["RaySite", "site_outputs", "site_records", "write_site_outputs"]
