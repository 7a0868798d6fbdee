"""`mdchunk site -j N` against `-j 1` on one large built site, side by side in one run.

    python benchmarks/jobs.py [--copies 10] [--runs 3] [--jobs 2]

Builds the Node.js API docs copied `--copies` times as an MkDocs site (without mdchunk), then
chunks the built site with `mdchunk site` in turns, `-j 1` and `-j N`, and prints the median
wall time of each and the median of the pairwise ratios. It checks that both wrote the same
index, byte for byte.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import machine
from tests.corpus import NODEJS_API, nodejs_site

ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}


def chunk(site: Path, jobs: int) -> tuple[float, bytes]:
    """Seconds `mdchunk site -j jobs` took on a fresh copy of `site`, and the index it wrote."""
    copy = site.with_name(f"{site.name}-j{jobs}")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    began = time.perf_counter()
    subprocess.run([str(Path(sys.executable).with_name("mdchunk")), "site", str(copy), "-j",
                    str(jobs)], check=True, env=ENV, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - began
    return seconds, (copy / "chunks.jsonl").read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as folder:
        config = nodejs_site(Path(folder) / "project", copies=args.copies, plugins=["search"])
        assert config is not None
        subprocess.run([str(Path(sys.executable).with_name("mkdocs")), "build", "-q", "-f",
                        str(config)], check=True, env=ENV)
        site = config.parent / "site"
        pages = sum(1 for _ in site.rglob("index.html"))
        print(f"Node.js API docs x{args.copies}: {pages} built pages; {args.runs} runs each, in "
              "turn; medians\n")
        times: dict[int, list[float]] = {1: [], args.jobs: []}
        indexes: dict[int, bytes] = {}
        for _ in range(args.runs):
            for jobs, seconds in times.items():
                took, indexes[jobs] = chunk(site, jobs)
                seconds.append(took)
        ratios = [one / many for one, many in zip(times[1], times[args.jobs], strict=True)]
        print("| command | time | speed-up |\n|---|---|---|")
        print(f"| mdchunk site -j 1 | {statistics.median(times[1]):.2f} s | 1 |")
        print(f"| mdchunk site -j {args.jobs} | {statistics.median(times[args.jobs]):.2f} s | "
              f"**{statistics.median(ratios):.2f}** |")
        same = indexes[1] == indexes[args.jobs]
        print(f"\nthe indexes are {'byte-identical' if same else 'DIFFERENT'} "
              f"({len(indexes[1]):,} bytes)")


if __name__ == "__main__":
    main()
