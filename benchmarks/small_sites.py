"""When a worker process pays for itself: first builds of small sites, chunked inline or by a
worker from the first page, side by side with the same site built without mdchunk.

    python benchmarks/small_sites.py [--runs 7] [--kib 4 16 32 64 128 256 384]

Each site holds the smallest pages of the Node.js API docs (see tests/corpus.py) up to the
given KiB of page sources, and a home page, built by MkDocs (default theme, plain extensions)
three ways: without mdchunk, with `workers: 0` (every page chunked in the build's own process)
and with `workers: 1` (a worker from the first page to chunk, as mdchunk starts one by itself
from `mdchunk.session.workers.WORKER_FOR_BYTES` of page sources where a second core is free).
Each run is a first build (the page cache emptied); the three take turns, and each row gives
the median wall time without mdchunk and the median of each way's times over it. Wall time is
what a user waits for and what a free core changes; only the ratios mean something on a shared
machine.
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import machine, run
from tests.corpus import NODEJS_API, nodejs_site

WAYS: dict[str, dict[str, Any] | None] = {"without mdchunk": None, "inline": {"workers": 0},
                                          "worker": {"workers": 1}}


def write_site(root: Path, kib: int, plugin: dict[str, Any] | None) -> tuple[int, int]:
    """A site of the smallest Node.js pages up to `kib` KiB in `root`, built with the mdchunk
    options `plugin` (None: without mdchunk); returns its bytes of page sources and pages."""
    chosen: list[Path] = []
    total = 0
    for source in sorted(NODEJS_API.glob("*.md"), key=lambda path: path.stat().st_size):
        size = source.stat().st_size
        if source.name == "index.md":
            continue
        if total + size > kib * 1024:
            break
        chosen.append(source)
        total += size
    nodejs_site(root, sources=chosen,
                plugins=["search"] + ([{"mdchunk": plugin}] if plugin is not None else []))
    return total, len(chosen) + 1


def first_build(root: Path) -> float:
    """The wall time of a first build of the site in `root` (its page cache emptied)."""
    shutil.rmtree(root / ".cache", ignore_errors=True)
    return run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / "mkdocs.yml")],
               sample=False).seconds


def compare_site(folder: Path, kib: int, runs: int) -> str:
    """A Markdown table row: the site of `kib` KiB built each way, in turn."""
    roots = {way: folder / f"{kib}-{index}" for index, way in enumerate(WAYS)}
    for way, plugin in WAYS.items():
        size, pages = write_site(roots[way], kib, plugin)
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    for way in WAYS:  # (a warm-up each)
        first_build(roots[way])
    for _ in range(runs):
        for way in WAYS:
            times[way].append(first_build(roots[way]))
    without = statistics.median(times["without mdchunk"])
    ratios = [f"{statistics.median(times[way]) / without:.3f}" for way in list(WAYS)[1:]]
    return f"| {size / 1024:.0f} KiB, {pages} pages | {without:.3f} s | {' | '.join(ratios)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--kib", type=int, nargs="+", default=[4, 16, 32, 64, 128, 256, 384])
    args = parser.parse_args()
    if not NODEJS_API.is_dir():
        raise SystemExit(f"the Node.js API docs are not at {NODEJS_API}")
    import mdchunk
    import mkdocs_mdchunk

    for package in (mdchunk, mkdocs_mdchunk):  # (as installing a wheel does)
        for path in package.__path__:
            compileall.compile_dir(path, quiet=1)
    print(machine())
    print(f"first builds, {args.runs} runs each way in turn after a warm-up; medians\n")
    print("| site | without mdchunk | inline (`workers: 0`) | worker from the first page |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="mdchunk-small-") as folder:
        for kib in args.kib:
            print(compare_site(Path(folder), kib, args.runs), flush=True)


if __name__ == "__main__":
    main()
