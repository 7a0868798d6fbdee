"""Pages per second of mdchunk on 1 and 2 Ray workers, against `mdchunk site -j 1/-j 2`.

    python benchmarks/ray_scale.py [--copies 10] [--runs 3] [--pages N] [--ray-only]

Builds the Node.js API docs copied `--copies` times as one MkDocs site (without mdchunk). `mdchunk
site -j 1` and `-j 2` chunk that site; `mdchunk.ray.run.run_sites` (what `mdchunk ray` does)
chunks each copy's folder as a site of its own (the same pages but the home page) on a fresh
local Ray instance of 1 and 2 CPUs (Ray workers), in a process of its own. Each round runs
every setting once, in turn (`--ray-only`: the Ray runs alone); `--runs` rounds.

The table gives each setting's median pages per second and its speed-up over the one-worker
run of its kind; for Ray, the CPU seconds of the run's driver, of its Ray workers together and
of Ray's own processes (raylet, GCS, agents, monitors), and the peak memory of the busiest Ray
worker: its PSS sampled every 250 ms, and its peak RSS as the kernel counts it (`VmHWM`, which
counts the libraries it shares with the other workers whole). Below it, the speed-up of each
round's pair of runs, run back to back, and the speed-up the CPU seconds give (the one-worker
run's workers over the busiest worker of the two-worker run): on a machine that other jobs
load, the pairs say more than the medians, and the CPU seconds more than either. A Ray run is
timed from its start to its end, without starting Ray itself (a platform's cluster is up
already). `--pages` keeps the first N pages of the docs (a quick check that the script works).
Skips, saying why, where the Node.js docs or Ray are not installed.
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
#: The titles of Ray's own processes that are Ray workers (`ray::`) to the system, but no
#: worker of the tasks.
RAY_AGENTS = ("ray::DashboardAgent", "ray::RuntimeEnvAgent")
#: How often the PSS of the Ray workers is sampled, and their list read again (seconds).
SAMPLE_EVERY, LIST_EVERY = 0.25, 2.0


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


def ray_run(sites: list[Path], workers: int, out: Path) -> dict[str, float]:
    """The figures of a Ray run of `workers` CPUs on `sites` (`ray_process`), in a process of
    its own (`--ray-run`)."""
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run([sys.executable, __file__, "--ray-run", str(workers), str(out),
                           *map(str, sites)], check=True, env=ENV, capture_output=True,
                          text=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def ray_process(workers: int, out: Path, sites: list[Path]) -> None:
    """Start a local Ray instance of `workers` CPUs, run the sites and print the figures (one
    JSON line): seconds, pages, the CPU seconds of the driver, the Ray workers, Ray's own
    processes and the busiest worker, and the peak PSS and RSS (MiB) of the busiest worker."""
    import ray

    from mdchunk.ray.run import run_sites
    from mdchunk.session.config import SiteFacts, build_settings

    ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
    peaks: dict[int, int] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample_workers, args=(peaks, stop), daemon=True)
    before = cpu_seconds()
    sampler.start()
    began = time.perf_counter()
    summary = run_sites(sites, build_settings({}, SiteFacts()), out)
    seconds = time.perf_counter() - began
    stop.set()
    sampler.join()
    after = cpu_seconds()
    rss = max((peak_rss(pid) for pid in peaks), default=0)
    ray.shutdown()
    spent = {pid: (kind, used - before.get(pid, (kind, 0.0))[1])
             for pid, (kind, used) in after.items()}
    cpu = {kind: sum(used for named, used in spent.values() if named == kind)
           for kind in ("driver", "worker", "ray")}
    busiest = max((used for named, used in spent.values() if named == "worker"), default=0.0)
    print(json.dumps({"seconds": seconds, "pages": summary.pages, "cpu_busiest": busiest,
                      "peak_mib": max(peaks.values(), default=0) / 2**20,
                      "rss_mib": rss / 2**20, **{f"cpu_{kind}": used
                                                 for kind, used in cpu.items()}}))


def cpu_seconds() -> dict[int, tuple[str, float]]:
    """The CPU seconds each process of the local Ray instance has used, by pid, with its kind:
    `driver` (this process), `worker` (a Ray worker, `ray::` in its title, but Ray's own
    agents) or `ray` (Ray's other processes)."""
    import psutil

    found: dict[int, tuple[str, float]] = {}
    for process in psutil.process_iter(["cmdline", "cpu_times"]):
        kind = process_kind(process.pid, process.info["cmdline"])
        used = process.info["cpu_times"]
        if kind is not None and used is not None:
            found[process.pid] = (kind, used.user + used.system)
    return found


def process_kind(pid: int, cmdline: list[str] | None) -> str | None:
    """`driver`, `worker` or `ray` (`cpu_seconds`) for a process of the local Ray instance;
    None for any other."""
    title = " ".join(cmdline or [])
    if pid == os.getpid():
        return "driver"
    if title.startswith("ray::") and not title.startswith(RAY_AGENTS):
        return "worker"
    if title.startswith("ray::") or "site-packages/ray/" in title:
        return "ray"
    return None


def sample_workers(peaks: dict[int, int], stop: threading.Event) -> None:
    """The peak PSS (RSS where the kernel gives none) of each Ray worker process, by pid,
    every `SAMPLE_EVERY` seconds until `stop`; the processes listed again every `LIST_EVERY`
    seconds (a light sampler: it shares the cores it measures)."""
    import psutil

    workers: dict[int, psutil.Process] = {}
    listed = 0.0
    while not stop.wait(SAMPLE_EVERY):
        if time.monotonic() - listed > LIST_EVERY:
            listed = time.monotonic()
            for process in psutil.process_iter(["cmdline"]):
                if process_kind(process.pid, process.info["cmdline"]) == "worker":
                    workers.setdefault(process.pid, process)
        for pid, process in list(workers.items()):
            try:
                memory = process.memory_full_info()
            except (psutil.Error, OSError):
                del workers[pid]
                continue
            peaks[pid] = max(peaks.get(pid, 0), getattr(memory, "pss", memory.rss))


def peak_rss(pid: int) -> int:
    """The peak RSS of a process (bytes), as the kernel keeps it (`VmHWM`); 0 where it cannot
    be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return 0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--ray-only", action="store_true")
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
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as folder:
        config = nodejs_site(Path(folder) / "project", copies=args.copies, plugins=["search"],
                             pages=args.pages)
        assert config is not None
        subprocess.run([str(Path(sys.executable).with_name("mkdocs")), "build", "-q", "-f",
                        str(config)], check=True, env=ENV)
        site = config.parent / "site"
        sites = sorted(site.glob("copy*")) if args.copies > 1 else [site]
        print(f"Node.js API docs x{args.copies}: {len(sites)} sites for Ray; {args.runs} rounds "
              "of each setting in turn; medians\n")
        runs: dict[str, list[dict[str, float]]] = {}
        for _ in range(args.runs):
            for jobs in () if args.ray_only else (1, 2):
                seconds, pages = site_run(site, jobs)
                runs.setdefault(f"mdchunk site -j {jobs}", []).append(
                    {"seconds": seconds, "pages": pages})
            for workers in (1, 2):
                name = f"mdchunk ray, {workers} Ray worker{'s' if workers > 1 else ''}"
                runs.setdefault(name, []).append(ray_run(sites, workers, Path(folder) / "out"))
        print_table(runs)
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def print_table(runs: dict[str, list[dict[str, float]]]) -> None:
    """The median pages per second of each setting, its speed-up over the one-worker run of
    its kind, the CPU seconds of a Ray run and the peak memory of a Ray worker; then each
    round's speed-ups."""
    print("| run | pages/s | speed-up | CPU s: driver / Ray workers / Ray's own | peak memory "
          "of a Ray worker: PSS / RSS |\n|---|---|---|---|---|")
    names = list(runs)
    rates = {name: [run["pages"] / run["seconds"] for run in runs[name]] for name in names}
    for at, name in enumerate(names):
        base = statistics.median(rates[names[at - at % 2]])
        rate = statistics.median(rates[name])
        cpu = memory = "-"
        if "cpu_worker" in runs[name][0]:
            cpu = " / ".join(f"{statistics.median(run[f'cpu_{kind}'] for run in runs[name]):.1f}"
                             for kind in ("driver", "worker", "ray"))
            memory = " / ".join(f"{statistics.median(run[field] for run in runs[name]):.0f}"
                                for field in ("peak_mib", "rss_mib")) + " MiB"
        print(f"| {name} | {rate:.1f} | {rate / base:.2f} | {cpu} | {memory} |")
    for at in range(0, len(names), 2):
        pairs = zip(rates[names[at]], rates[names[at + 1]], strict=True)
        print(f"{names[at + 1]} over {names[at]}, each round: "
              f"{', '.join(f'{two / one:.2f}' for one, two in pairs)}")
    if "cpu_busiest" in runs[names[-1]][0]:
        pairs = zip(runs[names[-2]], runs[names[-1]], strict=True)
        print("by CPU seconds (the one-worker run's workers over the busiest worker of the "
              "two-worker run: the speed-up where nothing else takes the cores), each round: "
              + ", ".join(f"{one['cpu_worker'] / two['cpu_busiest']:.2f}" for one, two in pairs))


if __name__ == "__main__":
    main()
