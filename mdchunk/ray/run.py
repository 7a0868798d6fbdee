"""What `mdchunk ray` does: many sites chunked on Ray into one folder of outputs, which a run
replaces whole, and the state that spares the sites that did not change since the last run.

The folder (`run_sites`' `out`) holds:

- `sites/NAME/`: each site's folder of site-level outputs (`mdchunk.ray.site_outputs`);
- `records/NAME.parquet` (or `.jsonl`): each site's records, a row a chunk;
- `pages/`: the page cache (`mdchunk.session.cache`), an entry per chunked page;
- `state.json`: for each site, where it was read, its prefix, a print of the settings, the
  sha256 of each of its HTML files and its pages' keys in the cache. A later run with the same
  `out` compares them: a site whose HTML files, settings and place are all the same is not
  read again, and its folder and records are taken over from the last run as they are; in a
  site that changed, each page the cache holds (the same HTML, site and settings) is taken from
  it, not chunked again.

The run writes into a temporary folder beside `out` and renames it into place at the end, so
`out` is always the whole output of one run: a failed or killed run leaves the last one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mdchunk.errors import MdChunkError
from mdchunk.outputs.pages import counted
from mdchunk.outputs.writers import dumps, staged_folder, write_text
from mdchunk.ray import RAY_MISSING, cache_settings, outputs_job, site_row
from mdchunk.ray.sites import RaySite, checked_sites, location
from mdchunk.ray.steps import Job, hashed_site, site_output_rows
from mdchunk.session.cache import PageCache
from mdchunk.settings import BuildSettings

STATE_FILE = "state.json"
SITES = "sites"
RECORDS = "records"
PAGES = "pages"
IN_FLIGHT = 2
"""The Ray tasks of a run submitted at once, per CPU of the cluster: enough that a worker
never waits for the next site, few enough that a list of many thousands of sites is not all
queued on the cluster at once."""
STATE_VERSION = 2
"""The layout of `STATE_FILE`; a state of another layout is not read (every site is chunked)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run did."""

    chunked: tuple[str, ...]
    """The sites chunked in this run, by name."""
    unchanged: tuple[str, ...]
    """The sites taken over from the last run as they were."""
    pages: int
    """The pages of the sites chunked in this run."""
    kept: int
    """How many of those pages were taken from the last run, not chunked again."""
    chunks: int
    """The chunks of the sites chunked in this run."""

    def describe(self) -> str:
        """`3 sites: 1 chunked (12 pages, 10 of them unchanged; 240 chunks), 2 unchanged since
        the last run`."""
        return (f"{counted(len(self.chunked) + len(self.unchanged), 'site')}: "
                f"{len(self.chunked)} chunked ({counted(self.pages, 'page')}, {self.kept} of "
                f"them unchanged; {counted(self.chunks, 'chunk')}), {len(self.unchanged)} "
                "unchanged since the last run")


def run_sites(sites: Iterable[RaySite | Path | str], settings: BuildSettings, out: Path, *,
              records_format: str = "parquet", content_selector: str | None = None,
              say: Callable[[str], object] = lambda line: None) -> RunSummary:
    """Chunk `sites` on the Ray instance this process is connected to (`ray.init`) and write
    their outputs into `out` (see the module's docs), replacing it whole at the end; `say`
    gets a line as each site is done.

    Raises:
        OptionError, MdChunkError: as `mdchunk.ray.site_outputs`; a folder or a state that
            cannot be written or read.
    """
    checked = checked_sites(sites)
    wanted = _states(checked, settings, records_format, content_selector)
    unchanged = _unchanged(checked, wanted, _last_state(out), out, records_format)
    changed = [site for site in checked if site not in unchanged]
    ending = f".{records_format}"
    say(f"{counted(len(checked), 'site')}: {len(unchanged)} unchanged since the last run, "
        f"{len(changed)} to chunk")
    try:
        with staged_folder(out, durable=False) as staging:
            for site in unchanged:
                _link_copy(out / SITES / site.name, staging / SITES / site.name)
                _link_copy(out / RECORDS / f"{site.name}{ending}",
                           staging / RECORDS / f"{site.name}{ending}")
            if (out / PAGES).is_dir():
                _link_copy(out / PAGES, staging / PAGES)
            summary = _chunk(changed, settings, staging, wanted, say, records_format=
                             records_format, content_selector=content_selector)
            PageCache(staging / PAGES, cache_settings(settings)).prune(
                key for state in wanted.values() for key in state.get("keys", []))
            write_text(staging / STATE_FILE, dumps({"version": STATE_VERSION,
                                                    "sites": wanted}) + "\n")
    except OSError as error:
        raise MdChunkError(f"cannot write the outputs into {out}: {error}") from error
    return dataclasses.replace(summary, unchanged=tuple(site.name for site in unchanged))


def _chunk(sites: list[RaySite], settings: BuildSettings, staging: Path,
           states: dict[str, dict[str, Any]], say: Callable[[str], object], *,
           records_format: str, content_selector: str | None) -> RunSummary:
    """Chunk `sites` into the folder `staging`, saying each as it is done; note each site's
    pages' keys in the page cache in its state."""
    pages = kept = chunks = 0
    if not sites:
        return RunSummary((), (), 0, 0, 0)
    (staging / RECORDS).mkdir(exist_ok=True)
    job = outputs_job(settings, staging / SITES, records=staging / RECORDS,
                      records_format=records_format, content_selector=content_selector,
                      cache=staging / PAGES)
    for number, row in enumerate(_task_rows(_site_output_row, [site_row(site) for site in sites],
                                            job), 1):
        pages += int(row["pages"])
        kept += int(row["kept"])
        chunks += int(row["chunks"])
        states[str(row["site"])].update(pages=json.loads(row["hashes"]),
                                        keys=json.loads(row["keys"]))
        say(f"[{number}/{len(sites)} sites, {counted(pages, 'page')}] {row['site']}: "
            f"{counted(int(row['pages']), 'page')} ({row['kept']} unchanged), "
            f"{counted(int(row['chunks']), 'chunk')}")
    return RunSummary(tuple(site.name for site in sites), (), pages, kept, chunks)


def _task_rows(step: Callable[..., dict[str, Any]], rows: list[dict[str, str]],
               *arguments: Any) -> Iterator[dict[str, Any]]:
    """`step(row, *arguments)` for each of `rows`, each in a Ray task of its own, as the tasks
    end: no more in flight than `IN_FLIGHT` times the cluster's CPUs. A task whose worker died
    is retried by Ray (its `max_retries`); a task that fails cancels those not yet done, which
    end before its error is raised."""
    try:
        import ray
    except ImportError as error:
        raise MdChunkError(RAY_MISSING) from error
    task = ray.remote(step)
    waiting = list(reversed(rows))
    running: list[Any] = []
    try:
        while waiting or running:
            cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
            room = IN_FLIGHT * max(1, int(cpus))
            while waiting and len(running) < room:
                running.append(task.remote(waiting.pop(), *arguments))
            done, running = ray.wait(running, num_returns=1)
            yield ray.get(done[0])
    except BaseException:
        for ref in running:
            ray.cancel(ref)
        ray.wait(running, num_returns=len(running))
        raise


def _site_output_row(site: dict[str, str], job: Job) -> dict[str, Any]:
    """`site_output_rows` of one site (`site_row`): its row, which says what its task wrote
    (its folder and its records file)."""
    rows = site_output_rows({name: [value] for name, value in site.items()}, job)
    return {name: values[0] for name, values in rows.items()}


def _states(sites: list[RaySite], settings: BuildSettings, records_format: str,
            content_selector: str | None) -> dict[str, dict[str, Any]]:
    """Each site's state as this run leaves it, but for its pages (the sha256 of each of its
    HTML files, which the task that reads it finds) and their keys: where it is read, its
    prefix and the print of the settings."""
    chosen = repr(dataclasses.replace(settings, workers=None))
    printed = hashlib.sha256(json.dumps([settings.fingerprint(), chosen, records_format,
                                         content_selector]).encode()).hexdigest()
    return {site.name: {"location": location(site), "prefix": site.prefix or "",
                        "settings": printed} for site in sites}


def _unchanged(sites: list[RaySite], wanted: dict[str, dict[str, Any]],
               last: Mapping[str, Any], out: Path, records_format: str) -> list[RaySite]:
    """The sites the last run into `out` left as this run would make them: the same place,
    prefix and settings, their outputs there, and the same HTML files (their sha256, read in
    Ray tasks, a task a site, for these sites only); their states in `wanted` completed with
    the last run's pages and keys."""
    ending = f".{records_format}"
    candidates = [site for site in sites if isinstance(last.get(site.name), dict)
                  and {name: last[site.name].get(name) for name in wanted[site.name]}
                  == wanted[site.name] and (out / SITES / site.name).is_dir()
                  and (out / RECORDS / f"{site.name}{ending}").is_file()]
    if not candidates:
        return []
    hashes = {str(row["site"]): json.loads(row["pages"]) for row in _task_rows(
        hashed_site, [site_row(site) for site in candidates])}
    unchanged = [site for site in candidates if hashes[site.name] == last[site.name]["pages"]]
    for site in unchanged:
        wanted[site.name].update(pages=last[site.name]["pages"],
                                 keys=last[site.name].get("keys", []))
    return unchanged


def _last_state(out: Path) -> Mapping[str, Any]:
    """The sites' states the last run into `out` left (none: no run, or one of another
    layout)."""
    try:
        state = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise MdChunkError(f"{out / STATE_FILE}: cannot be read ({error}); remove it to "
                           "chunk every site again") from error
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        return {}
    sites = state.get("sites")
    return sites if isinstance(sites, dict) else {}


def _link_copy(source: Path, target: Path) -> None:
    """`source` (a file or a folder) at `target`, its files hard-linked where they can be
    (the last run's outputs are only ever replaced, never written in place), else copied."""
    def link(origin: str, copy: str) -> None:
        try:
            os.link(origin, copy)
        except OSError:
            shutil.copy2(origin, copy)

    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, copy_function=link)
    else:
        link(str(source), str(target))
