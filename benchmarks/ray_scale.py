"""Pages per second of mdchunk on 1 and 2 Ray workers, against `mdchunk site -j 1/-j 2`.

    python benchmarks/ray_scale.py [--copies 10] [--runs 3] [--pages N]

Builds the Node.js API docs copied `--copies` times as one MkDocs site (without mdchunk). `mdchunk
site -j 1` and `-j 2` chunk that site; `mdchunk.ray.run.run_sites` (what `mdchunk ray` does)
chunks each copy's folder as a site of its own (the same pages but the home page) on a fresh
local Ray instance of 1 and 2 CPUs (Ray workers), in a process of its own. Each setting runs
`--runs` times, in turn; the table gives the median pages per second, the speed-up over the
setting's one-worker run, and for Ray the peak memory (PSS, sampled every 100 ms) of the
busiest Ray worker process. A Ray run is timed from its start to its end, without starting Ray
itself (a platform's cluster is up already). `--pages` keeps the first N pages of the docs (a
quick check that the script works). Skips, saying why, where the Node.js docs or Ray are not
installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import machine
from tests.corpus import NODEJS_API, nodejs_site

ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
#: The names of mdchunk's Ray steps in the titles of the worker processes that run them.
STEPS = ("site_output_rows", "site_record_rows", "hashed_site")


def site_run(site: Path, jobs: int) -> tuple[float, int]:
    """Seconds `mdchunk site -j jobs` took on a fresh copy of `site`, and the pages it chunked."""
    copy = site.with_name(f"{site.name}-j{jobs}")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    began = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("mdchunk")), "site", str(copy),
                           "-j", str(jobs)], check=True, env=ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    pages = re.search(r"(\d+) pages?,", done.stdout)
    return seconds, int(pages.group(1)) if pages else 0


def ray_run(sites: list[Path], workers: int, out: Path) -> tuple[float, int, float]:
    """Seconds a Ray run of `workers` CPUs took on `sites`, the pages it chunked and the peak
    memory (MiB) of its busiest worker process; in a process of its own (`--ray-run`)."""
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run([sys.executable, __file__, "--ray-run", str(workers), str(out),
                           *map(str, sites)], check=True, env=ENV, capture_output=True,
                          text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["seconds"], figures["pages"], figures["peak_mib"]


def ray_process(workers: int, out: Path, sites: list[Path]) -> None:
    """Start a local Ray instance of `workers` CPUs, run the sites and print the figures (one
    JSON line)."""
    import ray

    from mdchunk.ray.run import run_sites
    from mdchunk.session.config import SiteFacts, build_settings

    ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
    peaks: dict[int, int] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample_workers, args=(peaks, stop), daemon=True)
    sampler.start()
    began = time.perf_counter()
    summary = run_sites(sites, build_settings({}, SiteFacts()), out)
    seconds = time.perf_counter() - began
    stop.set()
    sampler.join()
    ray.shutdown()
    print(json.dumps({"seconds": seconds, "pages": summary.pages,
                      "peak_mib": max(peaks.values(), default=0) / 2**20}))


def sample_workers(peaks: dict[int, int], stop: threading.Event) -> None:
    """The peak PSS (RSS where the kernel gives none) of each Ray worker process that runs
    one of mdchunk's steps, by pid, every 100 ms until `stop`."""
    import psutil

    while not stop.wait(0.1):
        for process in psutil.process_iter(["cmdline"]):
            title = " ".join(process.info["cmdline"] or [])
            if not title.startswith("ray::") or not any(step in title for step in STEPS):
                continue
            try:
                memory = process.memory_full_info()
            except (psutil.Error, OSError):
                continue
            used = getattr(memory, "pss", memory.rss)
            peaks[process.pid] = max(peaks.get(process.pid, 0), used)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--ray-run", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ray_run:
        ray_process(int(args.ray_run[0]), Path(args.ray_run[1]), list(map(Path,
                                                                          args.ray_run[2:])))
        return
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    try:
        import ray.data  # noqa: F401 - only whether it is there
    except ImportError:
        print("skipped: Ray is not installed (pip install 'mdchunk[ray]')")
        return
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as folder:
        config = nodejs_site(Path(folder) / "project", copies=args.copies, plugins=["search"],
                             pages=args.pages)
        assert config is not None
        subprocess.run([str(Path(sys.executable).with_name("mkdocs")), "build", "-q", "-f",
                        str(config)], check=True, env=ENV)
        site = config.parent / "site"
        sites = sorted(site.glob("copy*")) if args.copies > 1 else [site]
        print(f"Node.js API docs x{args.copies}: {len(sites)} sites for Ray; {args.runs} runs "
              "each, in turn; medians\n")
        rates: dict[str, list[float]] = {}
        peaks: dict[str, list[float]] = {}
        for _ in range(args.runs):
            for jobs in (1, 2):
                seconds, pages = site_run(site, jobs)
                rates.setdefault(f"mdchunk site -j {jobs}", []).append(pages / seconds)
            for workers in (1, 2):
                seconds, pages, peak = ray_run(sites, workers, Path(folder) / "out")
                name = f"mdchunk ray, {workers} Ray worker{'s' if workers > 1 else ''}"
                rates.setdefault(name, []).append(pages / seconds)
                peaks.setdefault(name, []).append(peak)
        print_table(rates, peaks)


def print_table(rates: dict[str, list[float]], peaks: dict[str, list[float]]) -> None:
    """The median pages per second of each setting, its speed-up over the one-worker run of
    its kind, and the peak memory of a Ray worker."""
    print("| run | pages/s | speed-up | peak memory of a worker |\n|---|---|---|---|")
    names = list(rates)
    for at, name in enumerate(names):
        base = statistics.median(rates[names[at - at % 2]])
        rate = statistics.median(rates[name])
        memory = f"{statistics.median(peaks[name]):.0f} MiB" if name in peaks else "-"
        print(f"| {name} | {rate:.1f} | {rate / base:.2f} | {memory} |")


if __name__ == "__main__":
    main()
