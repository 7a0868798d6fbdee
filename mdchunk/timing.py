"""Where chunking spends its time, stage by stage, so that users can see it in a debug log.

Stages: `parse` (HTML to a tree), `convert` (tree to Markdown blocks), `pack` (the heading tree
and cutting), `count` (the token counter), `describe` (the chunk records' fields), `records`
(the output formats' records, encoded), `duplicates` (each chunk's print, and at a build's
finish the search for duplicate chunks), and `write` (files). Token counting happens inside
packing and describing; each stage's figure leaves it out, so the figures add up to the whole.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping

from mdchunk.chunking.tokens import TokenCounter

STAGES = ("parse", "convert", "pack", "count", "describe", "records", "duplicates",
          "write")


class StageTimer:
    """Seconds of wall time per stage, summed over every page timed with it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the body as stage `name`, less the token counting done inside it."""
        counted = self.seconds["count"]
        began = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - began
            self.seconds[name] += elapsed - (self.seconds["count"] - counted)

    def counting(self, counter: TokenCounter) -> TokenCounter:
        """`counter`, with its time added to the `count` stage."""
        seconds = self.seconds
        clock = time.perf_counter

        def count(text: str) -> int:
            began = clock()
            tokens = counter(text)
            seconds["count"] += clock() - began
            return tokens

        return count

    def snapshot(self) -> dict[str, float]:
        """The figures so far (to subtract from later ones with `since`)."""
        return dict(self.seconds)

    def since(self, snapshot: Mapping[str, float]) -> dict[str, float]:
        """Seconds per stage spent after `snapshot` was taken."""
        return {name: self.seconds[name] - snapshot.get(name, 0.0) for name in STAGES}


def add_timings(timings: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Per-stage sums of several pages' timings."""
    total = dict.fromkeys(STAGES, 0.0)
    for page in timings:
        for name, seconds in page.items():
            total[name] = total.get(name, 0.0) + seconds
    return total


def describe_timings(timings: Mapping[str, float]) -> str:
    """`parse 0.07 s, convert 0.45 s, ...`: the stages that took any time, and their sum."""
    spent = [(name, timings.get(name, 0.0)) for name in STAGES]
    parts = [f"{name} {seconds:.3f} s" for name, seconds in spent if seconds > 0]
    total = sum(seconds for _, seconds in spent)
    return f"{total:.3f} s: " + (", ".join(parts) if parts else "nothing to do")
