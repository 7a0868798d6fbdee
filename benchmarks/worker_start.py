"""What starting mdchunk's worker process costs, for two copies of mdchunk side by side.

    python benchmarks/worker_start.py BEFORE AFTER [--rounds 7] [--pages 18]

BEFORE and AFTER are source trees of mdchunk (a checkout, or `git archive` of a commit), each
holding `mdchunk/` and `mkdocs_mdchunk/`; each command runs with its tree first in
`PYTHONPATH`, compiled to bytecode first (as installing a wheel does). Two cases, each run in
turn (before, after, before, ...) for `--rounds` rounds after a warm-up of each:

- `start`: a fresh process makes a `WorkerPool` and waits for its worker to have loaded the
  token counter (`ready`), then closes it: the wall time from asking to loaded, the summed
  peak RSS of its processes at that moment (read by the script itself: exact), and the whole
  run's CPU and processes;
- `first build`: a first `mkdocs build` (page cache emptied) of the first `--pages` pages of
  the Node.js API docs and a home page (`build_overhead.py`'s `mkdocs-small`), and the same
  site without mdchunk as the baseline.

For each run: the CPU seconds of every process of the run (the command's own and all its
descendants, as `getrusage(RUSAGE_CHILDREN)` counts them once they are reaped: this process
makes itself their subreaper, so that a process that outlives its parent, such as
`multiprocessing`'s resource tracker, is counted too), the number of processes, and their
summed peak RSS (each process's `VmHWM` from /proc, read every 10 ms: a process that grows in
its last 10 ms is counted short). Medians are printed. CPU and memory hold on a loaded
machine; wall times do not.
"""

from __future__ import annotations

import argparse
import compileall
import ctypes
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import descendants, machine, proc_kib
from tests.corpus import NODEJS_API, nodejs_site

START = """\
import json, os, sys, tempfile, time
from pathlib import Path
from mdchunk.options import ChunkOptions
from mdchunk.settings import OutputSettings
from mdchunk.session.page_job import JobSettings
from mdchunk.session.workers import WorkerPool

with tempfile.TemporaryDirectory() as folder:
    pool = WorkerPool(JobSettings(ChunkOptions(), "2024-01-01T00:00:00Z", OutputSettings(),
                                  Path(folder), "settings"))
    asked = time.perf_counter()
    counter = pool.ready.result()
    loaded = time.perf_counter() - asked
    processes, kib = [os.getpid()], 0
    while processes:  # (each process's peak RSS, now that the worker has loaded)
        pid = processes.pop()
        for task in Path(f"/proc/{pid}/task").iterdir():
            processes.extend(int(child) for child in (task / "children").read_text().split())
        status = Path(f"/proc/{pid}/status").read_text()
        kib += int(status.split("VmHWM:")[1].split()[0])
    pool.close()
print(json.dumps({"loaded": loaded, "counter": counter, "rss_at_loaded_mib": kib / 1024}))
"""
"""The `start` case's script."""

PR_SET_CHILD_SUBREAPER = 36


def measured(argv: Sequence[str], env: dict[str, str]) -> dict[str, float]:
    """Run `argv` to its end and every process it started to theirs; its CPU seconds, the
    number of processes, their summed peak RSS (MiB) and what the command printed (JSON)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile() as out:
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1)]
        main = os.posix_spawn(argv[0], list(argv), env, file_actions=actions)
        peaks: dict[int, int] = {}
        status = None
        while True:
            for pid in descendants(os.getpid()):
                peaks[pid] = max(peaks.get(pid, 0), (proc_kib(pid, "status", "VmHWM:") or 0))
            reaped = _reap()
            status = reaped.get(main, status)
            if status is not None and not descendants(os.getpid()):
                break
            time.sleep(0.01)
        if status != 0:
            raise SystemExit(f"{argv} failed ({status})")
        out.seek(0)
        printed = out.read().decode()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    result = {"cpu": cpu, "processes": len(peaks), "rss_mib": sum(peaks.values()) / 1024}
    if printed.strip():
        result.update(json.loads(printed.strip().splitlines()[-1]))
    return result


def _reap() -> dict[int, int]:
    """Reap every child that has ended; their exit statuses by pid."""
    ended = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid == 0:
            return ended
        ended[pid] = os.waitstatus_to_exitcode(status)


def compiled(tree: Path) -> Path:
    """`tree`, its packages compiled to bytecode."""
    for package in ("mdchunk", "mkdocs_mdchunk"):
        compileall.compile_dir(tree / package, quiet=1)
    return tree


Side = tuple[str, list[str], Path | None, Path | None]
"""A side of a case: its name, its command, the tree first in its `PYTHONPATH` (None: none)
and the page cache folder emptied before each run (None: none)."""


def cases(trees: Sequence[Path], folder: Path, pages: int) -> dict[str, list[Side]]:
    """Each case's sides."""
    python = sys.executable
    start: list[Side] = [(name, [python, "-c", START], tree, None)
                         for name, tree in zip(("before", "after"), trees, strict=True)]
    build: list[Side] = []
    for name, tree in [*zip(("before", "after"), trees, strict=True), ("without mdchunk", None)]:
        plugins = ["search", {"mdchunk": {}}] if tree is not None else ["search"]
        config = nodejs_site(folder / name.replace(" ", "-"), plugins=plugins, pages=pages)
        assert config is not None
        build.append((name, [python, "-m", "mkdocs", "build", "-q", "-f", str(config)], tree,
                      config.parent / ".cache"))
    return {"start": start, "first build": build}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs=2, type=Path, help="BEFORE and AFTER")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--pages", type=int, default=18)
    args = parser.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    trees = [compiled(tree.resolve()) for tree in args.trees]
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as place:
        os.chdir(place)  # (`python -c` and `-m` put the working folder first in `sys.path`)
        for case, sides in cases(trees, Path(place), args.pages).items():
            results: list[list[dict[str, float]]] = [[] for _ in sides]
            for round_ in range(args.rounds + 1):
                for side, (_, argv, tree, cache) in enumerate(sides):
                    env = {**os.environ, "PYTHONPATH": str(tree) if tree else ""}
                    if cache is not None:
                        shutil.rmtree(cache, ignore_errors=True)
                    result = measured(argv, env)
                    if round_:  # (the first round warms up)
                        results[side].append(result)
            for (name, *_), runs in zip(sides, results, strict=True):
                print(f"{case}, {name}: " + _medians(runs), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


def _medians(runs: list[dict[str, float]]) -> str:
    keys = [key for key in ("loaded", "cpu", "processes", "rss_mib", "rss_at_loaded_mib")
            if key in runs[0]]
    units = {"loaded": "s", "cpu": "s", "processes": "", "rss_mib": "MiB",
             "rss_at_loaded_mib": "MiB"}
    return ", ".join(f"{key} {statistics.median(run[key] for run in runs):.3f}{units[key]}"
                     f" ({min(run[key] for run in runs):.3f}-{max(run[key] for run in runs):.3f})"
                     for key in keys)


if __name__ == "__main__":
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
    else:
        main()
