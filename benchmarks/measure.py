"""Timing a whole command, side by side with another: what every build benchmark shares.

`run` times one command in a fresh process and reads two memory figures: the peak RSS of its
largest process (from the kernel, at exit: Linux gives a reaped process's peak as the largest of
its own and of the children it reaped, such as mdchunk's MkDocs worker) and, when asked, the
peak of the summed PSS of it and every process it started (sampled from /proc every 20 ms).
PSS splits each shared page among the processes that map it, so the Python binary and libraries
that the worker shares with the build are counted once, as they are spent; summed RSS would
count them in every process.

Sampling is not free: reading a process's `smaps_rollup` costs about 2 ms of CPU, so sampling
three processes every 20 ms takes a quarter of a core, which a build with a worker (both cores
busy) pays and a build without one does not. `compare` therefore times its runs unsampled, A B
A B ..., so that a machine whose speed drifts slows both alike, and samples the summed PSS in
runs of its own, after; it reports medians and ratios.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.metadata
import os
import platform
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

_PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


@dataclasses.dataclass(frozen=True)
class Run:
    """One finished run of a command."""

    seconds: float
    """Wall time."""
    main_kib: int
    """Peak RSS of the command's own process."""
    tree_kib: int
    """Peak of the summed PSS of the command's process and its descendants (sampled; RSS where
    the kernel gives no PSS; 0 for a run not sampled)."""


def run(argv: Sequence[str], *, cwd: Path | None = None, interval: float = 0.02,
        sample: bool = True) -> Run:
    """Run `argv` to completion (its output discarded); raise SystemExit when it fails.
    Without `sample`, the summed PSS is not sampled (`tree_kib` is 0) and the run is timed
    undisturbed.

    Its error output goes to a temporary file, not a pipe: a build that warns a great deal
    (Sphinx's own docs, nitpicky) would fill a pipe nobody reads until it ends, and wait."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(list(argv), cwd=cwd, stdout=subprocess.DEVNULL,
                                   stderr=stderr)
        tree_peak = 0
        while True:
            waited, status, usage = os.wait4(process.pid, os.WNOHANG if sample else 0)
            if waited:
                break
            tree_peak = max(tree_peak, _tree_pss_kib(process.pid))
            time.sleep(interval)
        elapsed = time.perf_counter() - started
        stderr.seek(0)
        errors = stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{errors[-2000:]}")
    return Run(elapsed, usage.ru_maxrss, tree_peak)


def _tree_pss_kib(pid: int) -> int:
    """Summed PSS (KiB) of `pid` and its descendants, now (0 for a process already gone)."""
    total = 0
    for current in [pid, *descendants(pid)]:
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += _pss_kib(current)
    return total


def descendants(pid: int) -> list[int]:
    """The processes under `pid`, now (a thread that ends while they are read hides none: the
    other threads' children are still read)."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        with contextlib.suppress(OSError):
            for task in list(Path(f"/proc/{parent}/task").iterdir()):
                with contextlib.suppress(OSError, ValueError):
                    children = [int(child) for child in (task / "children").read_text().split()]
                    found.extend(children)
                    pending.extend(children)
    return found


def proc_kib(pid: int, file: str, field: str) -> int | None:
    """The figure in KiB of `field` (`Pss:`, `VmHWM:`) in `/proc/pid/file`; None where the
    process or the field is gone."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _pss_kib(pid: int) -> int:
    """The PSS of `pid` (KiB), or its RSS where the kernel has no `smaps_rollup`."""
    pss = proc_kib(pid, "smaps_rollup", "Pss:")
    if pss is not None:
        return pss
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE_KIB


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Medians of the runs of a command without mdchunk (`base`) and with it (`with_`)."""

    base: list[Run]
    with_: list[Run]
    """The timed runs (unsampled)."""
    sampled: list[tuple[Run, Run]] = dataclasses.field(default_factory=list)
    """Pairs of runs (without, with) whose summed PSS was sampled."""

    def median(self, runs: list[Run], field: str) -> float:
        return statistics.median(getattr(run, field) for run in runs)

    def ratio(self, field: str) -> float:
        """Median of the pairwise ratios with/without (robust to drift between pairs)."""
        pairs = self.sampled if field == "tree_kib" else list(zip(self.base, self.with_,
                                                                   strict=True))
        return statistics.median(getattr(b, field) / getattr(a, field) for a, b in pairs)

    def rows(self, label: str) -> list[str]:
        """Table rows: medians of both, and the ratios."""
        cells = [label]
        cells += [f"{self.median(runs, 'seconds'):.2f} s" for runs in (self.base, self.with_)]
        cells.append(f"**{self.ratio('seconds'):.3f}**")
        sides = {"main_kib": (self.base, self.with_),
                 "tree_kib": ([a for a, _ in self.sampled], [b for _, b in self.sampled])}
        for field, (base, with_) in sides.items():
            if not base:
                cells.append("-")
                continue
            medians = (self.median(runs, field) / 1024 for runs in (base, with_))
            cells.append("{:.0f} / {:.0f} MiB: ".format(*medians) + f"{self.ratio(field):.3f}")
        return ["| " + " | ".join(cells) + " |"]


TABLE_HEADER = [
    "| build | without mdchunk | with mdchunk | time ratio | peak RSS, largest process "
    "(without / with: ratio) | peak PSS, all processes (without / with: ratio) |",
    "|---|---|---|---|---|---|",
]


def compare(base: Sequence[str], with_: Sequence[str], *, runs: int,
            cwd: Path | None = None, sampled: int = 2) -> Comparison:
    """Run `base` and `with_` in turn, `runs` times each after one warm-up run of each, timed
    unsampled; then `sampled` more pairs whose summed PSS is sampled."""
    run(base, cwd=cwd), run(with_, cwd=cwd)  # warm the file cache and bytecode
    pairs = [(run(base, cwd=cwd, sample=False), run(with_, cwd=cwd, sample=False))
             for _ in range(runs)]
    memory = [(run(base, cwd=cwd), run(with_, cwd=cwd)) for _ in range(sampled)]
    return Comparison([a for a, _ in pairs], [b for _, b in pairs], memory)


def machine() -> str:
    """One line: the machine, the Python and the versions that matter here."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = []
    for name in ("mdchunk", "mkdocs", "mkdocs-material", "sphinx", "myst-parser", "tiktoken",
                 "fastokens", "rs-bpe", "lxml"):
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return (f"{platform.platform()}, {model}, {cores} cores, Python "
            f"{platform.python_version()}; " + ", ".join(versions))
