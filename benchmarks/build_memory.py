"""Where the build process's memory goes, phase by phase: MkDocs without mdchunk against a
first build with it, both in one process each (Linux: it reads /proc/self/status).

    python benchmarks/build_memory.py [--runs 3] [--settings '{"workers": 0}']

Builds the Node.js API docs (tests/corpus.py) without mdchunk and with it (`--settings`: its
options; default `workers: 0`, chunking in the build's own process, where a build's memory is
largest), in turns, each in a fresh process that notes its resident memory (VmRSS) as MkDocs
reaches each phase of the build: the plugins loaded (`on_config`), the first page read
(`on_page_content`, where mdchunk loads its counter and chunking code), every page read
(`on_env`), every page written (before `on_post_build`), and after each plugin's `on_post_build`
(`search` writes its index there, mdchunk its outputs); the peak (VmHWM) closes each run.
Memory does not depend on the machine's
load: one or two runs agree to a MiB.

Then it notes, in fresh processes, what loading mdchunk's parts costs alone (the plugin, lxml,
the token counter, the chunking and output modules), in MiB of resident memory.

With `--pages`, it builds the site with mdchunk once more under tracemalloc and prints, for the
pages whose chunking peaked highest, how far above the memory held at its start each step of
chunking a page went (Python objects only: lxml's tree and the counter's tables are not
traced): the whole job, chunking, the records, the page cache's entry, the page's files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.corpus import nodejs_site

#: Runs in the measuring process: sys.argv = [config file]. Prints one JSON object.
MEASURE = r"""
import json, sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.plugins import PluginCollection

def status(key):
    with open("/proc/self/status") as lines:
        for line in lines:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024

phases = {}
def note(phase):
    phases.setdefault(phase, round(status("VmRSS"), 1))

def wrapped(event, before=None, after=None):
    original = getattr(PluginCollection, event)
    def hook(self, *args, **kwargs):
        if before: note(before)
        result = original(self, *args, **kwargs)
        if after: note(after)
        return result
    setattr(PluginCollection, event, hook)

def post_build(self, **kwargs):
    note("pages written")
    for method in self.events["post_build"]:
        method(**kwargs)
        note("after on_post_build of " + type(method.__self__).__module__.split(".")[0])

note("start")
wrapped("on_config", after="plugins loaded")
wrapped("on_page_content", after="first page read")
wrapped("on_env", before="every page read")
PluginCollection.on_post_build = post_build
build(load_config(sys.argv[1]))
phases["peak (VmHWM)"] = round(status("VmHWM"), 1)
print(json.dumps(phases))
"""

#: Runs in a fresh process: the resident memory each part of mdchunk adds as it loads.
PARTS = r"""
import json
def rss():
    with open("/proc/self/status") as lines:
        return next(int(l.split()[1]) / 1024 for l in lines if l.startswith("VmRSS:"))
parts, last = {}, rss()
def note(part):
    global last
    now = rss(); parts[part] = round(now - last, 1); last = now
import mkdocs.commands.build, mkdocs.config; note("MkDocs (not counted)")
import mkdocs_mdchunk.plugin; note("the plugin")
import lxml.etree, lxml.html; note("lxml")
from mdchunk.chunking.tokens import token_counter
token_counter("cl100k_base")("warm"); note("the token counter (cl100k_base)")
import mdchunk.chunking.chunker, mdchunk.chunking.html, mdchunk.outputs.page_output
note("the chunking and output modules")
print(json.dumps(parts))
"""


#: Runs in a fresh process under tracemalloc: sys.argv = [config file].
PAGES = r"""
import functools, json, sys, tracemalloc
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mdchunk.chunking.chunker import Chunker
from mdchunk.outputs import page_output, pages
from mdchunk.session import cache, page_job

frames, peaks, page = [], {}, [""]
def traced(owner, name, step):
    original = getattr(owner, name)
    @functools.wraps(original)
    def run(*args, **kwargs):
        if step == "job":
            page[0] = args[1].source_path
        current, peak = tracemalloc.get_traced_memory()
        for frame in frames:
            frame[1] = max(frame[1], peak)
        tracemalloc.reset_peak()
        frames.append([current, current])
        try:
            return original(*args, **kwargs)
        finally:
            start, top = frames.pop()
            top = max(top, tracemalloc.get_traced_memory()[1])
            for frame in frames:
                frame[1] = max(frame[1], top)
            peaks.setdefault(page[0], {})[step] = round((top - start) / 2**20, 2)
    setattr(owner, name, run)

traced(page_job.PageJob, "run", "job")
traced(Chunker, "chunk_page", "chunk")
traced(page_output, "page_records", "records")
traced(cache.PageCache, "put", "cache entry")
traced(pages, "write_page_files", "page files")
tracemalloc.start()
build(load_config(sys.argv[1]))
print(json.dumps(peaks))
"""


def page_peaks(config: Path, shown: int = 5) -> list[str]:
    """The pages whose chunking peaked highest (tracemalloc), as lines: each step's peak above
    the memory held at its start."""
    shutil.rmtree(config.parent / ".cache", ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", PAGES, str(config)], check=True,
                          capture_output=True, text=True)
    peaks: dict[str, dict[str, float]] = json.loads(done.stdout.splitlines()[-1])
    highest = sorted(peaks.items(), key=lambda item: -item[1].get("job", 0))[:shown]
    return [f"- {source}: " + ", ".join(f"{step} +{mib} MiB" for step, mib in steps.items())
            for source, steps in highest]


def measured(config: Path) -> dict[str, float]:
    """One build of `config` in a fresh process: its RSS at each phase and its peak (MiB)."""
    shutil.rmtree(config.parent / ".cache", ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", MEASURE, str(config)], check=True,
                          capture_output=True, text=True)
    phases: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return phases


def table(runs: dict[str, list[dict[str, float]]]) -> list[str]:
    """A Markdown table of the median RSS at each phase, of each build and their difference."""
    without, with_ = runs["without"], runs["with"]
    names = list(dict.fromkeys([*with_[0], *without[0]]))
    lines = ["| phase | without mdchunk (MiB) | with mdchunk (MiB) | difference |",
             "|---|---|---|---|"]
    for name in names:
        left = [run[name] for run in without if name in run]
        right = [run[name] for run in with_ if name in run]
        cells = [f"{statistics.median(side):.1f}" if side else "-" for side in (left, right)]
        difference = (f"{statistics.median(right) - statistics.median(left):+.1f}"
                      if left and right else "-")
        lines.append(f"| {name} | {cells[0]} | {cells[1]} | {difference} |")
    ratio = (statistics.median(run["peak (VmHWM)"] for run in with_)
             / statistics.median(run["peak (VmHWM)"] for run in without))
    lines.append(f"\npeak with / without: **{ratio:.2f}**")
    return lines


def parts() -> dict[str, Any]:
    """What loading each part of mdchunk adds to a fresh process (MiB of RSS)."""
    done = subprocess.run([sys.executable, "-c", PARTS], check=True, capture_output=True,
                          text=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="builds of each side")
    parser.add_argument("--settings", default='{"workers": 0}',
                        help="mdchunk's options in the build with it (JSON)")
    parser.add_argument("--pages", action="store_true",
                        help="also each step's peak for the pages that peaked highest")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mdchunk-memory-") as folder:
        configs = {
            "without": nodejs_site(Path(folder) / "without", plugins=["search"]),
            "with": nodejs_site(Path(folder) / "with", plugins=[
                "search", {"mdchunk": json.loads(arguments.settings)}]),
        }
        if configs["with"] is None or configs["without"] is None:
            sys.exit("The Node.js API docs are not installed (Debian's nodejs-doc).")
        runs: dict[str, list[dict[str, float]]] = {side: [] for side in configs}
        for _ in range(arguments.runs):
            for side, config in configs.items():
                assert config is not None
                runs[side].append(measured(config))
        highest = page_peaks(configs["with"]) if arguments.pages else []
    print(f"mdchunk settings: {arguments.settings}; {arguments.runs} runs a side\n")
    print("\n".join(table(runs)))
    print("\nWhat each part of mdchunk adds as it loads (MiB of RSS, a fresh process):")
    for part, mib in parts().items():
        print(f"- {part}: {mib}")
    if highest:
        print("\nThe pages whose chunking peaked highest (tracemalloc, above each step's start):")
        print("\n".join(highest))


if __name__ == "__main__":
    main()
