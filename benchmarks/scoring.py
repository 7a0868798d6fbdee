"""Scores of one ranked retrieval against its gold section, and paired bootstrap intervals.

A retrieved chunk hits the gold section when it is on the gold page and their spans overlap by
at least half of the shorter of the two: a chunk that holds the whole section hits, and so does
a chunk that lies within it, but a chunk that only touches the section's first line does not.

Scores of one query (`score_query`):

- `Hit@1`, `Hit@5`: a hit among the first 1 or 5 chunks.
- `MRR@10`: 1 / rank of the first hit within the first 10 chunks (0 without one).
- `R@5`, `P@5`: section recall and precision of the first 5 chunks: the share of the gold
  section's characters they hold, and the share of their characters that are the gold section's.
- `Hit@1k`, `R@1k`, `P@1k`: the same within a budget of retrieved tokens (1,024 by default):
  chunks are taken in rank order until the budget is spent, the last one cut to what is left
  (at the same share of its characters as of its tokens). Bigger chunks hold more of a section,
  so the first five chunks favour them; a token budget gives every chunker the same room.

Nothing here imports numpy except the bootstrap; nothing imports a chunker or a model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

METRICS = ("Hit@1", "Hit@5", "MRR@10", "R@5", "P@5", "Hit@1k", "R@1k", "P@1k")
TOP_K = 5
MRR_K = 10
BUDGET = 1024


@dataclasses.dataclass(frozen=True)
class Retrieved:
    """A chunk as a retriever returns it: where it is and what it costs."""

    page: str
    start: int
    """Span of the chunk in its page's text; -1, -1 when the chunk could not be located."""
    end: int
    tokens: int
    chars: int
    """Characters the chunk hands over (its span's length, or its text's when unlocated)."""

    def cut(self, tokens: int) -> Retrieved:
        """The chunk's first `tokens` tokens, as the same share of its characters."""
        if tokens >= self.tokens:
            return self
        share = tokens / self.tokens if self.tokens else 0.0
        chars = int(self.chars * share)
        end = self.start + chars if self.start >= 0 else self.end
        return Retrieved(self.page, self.start, end, tokens, chars)


def overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Characters two spans share."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def is_hit(chunk: Retrieved, page: str, gold: tuple[int, int]) -> bool:
    """Whether `chunk` overlaps the gold section by at least half of the shorter of the two."""
    if chunk.page != page or chunk.start < 0:
        return False
    shared = overlap((chunk.start, chunk.end), gold)
    shorter = min(chunk.end - chunk.start, gold[1] - gold[0])
    return shared > 0 and 2 * shared >= shorter


def covered(chunks: Sequence[Retrieved], page: str, gold: tuple[int, int]) -> int:
    """Characters of the gold section that the chunks hold together (each counted once)."""
    spans = sorted((max(c.start, gold[0]), min(c.end, gold[1])) for c in chunks
                   if c.page == page and c.start >= 0 and overlap((c.start, c.end), gold))
    total, reach = 0, gold[0]
    for start, end in spans:
        begin = max(start, reach)
        if end > begin:
            total += end - begin
            reach = end
    return total


def within_budget(ranked: Sequence[Retrieved], budget: int) -> list[Retrieved]:
    """The ranked chunks that fit `budget` tokens, the last one cut to what is left."""
    taken: list[Retrieved] = []
    left = budget
    for chunk in ranked:
        if left <= 0:
            break
        taken.append(chunk.cut(left))
        left -= min(chunk.tokens, left)
    return taken


def recall_precision(chunks: Sequence[Retrieved], page: str,
                     gold: tuple[int, int]) -> tuple[float, float]:
    """Share of the gold section the chunks hold, and share of their characters in it."""
    held = covered(chunks, page, gold)
    handed = sum(chunk.chars for chunk in chunks)
    inside = sum(overlap((c.start, c.end), gold) for c in chunks
                 if c.page == page and c.start >= 0)
    recall = held / (gold[1] - gold[0]) if gold[1] > gold[0] else 0.0
    return recall, (inside / handed if handed else 0.0)


def score_query(ranked: Sequence[Retrieved], page: str, gold: tuple[int, int], *,
                budget: int = BUDGET) -> dict[str, float]:
    """Every metric of one query, from its ranked chunks (best first) and its gold section."""
    hits = [is_hit(chunk, page, gold) for chunk in ranked[:MRR_K]]
    first = hits.index(True) + 1 if True in hits else 0
    recall, precision = recall_precision(ranked[:TOP_K], page, gold)
    spent = within_budget(ranked, budget)
    budget_recall, budget_precision = recall_precision(spent, page, gold)
    return {
        "Hit@1": float(any(hits[:1])),
        "Hit@5": float(any(hits[:TOP_K])),
        "MRR@10": 1.0 / first if first else 0.0,
        "R@5": recall,
        "P@5": precision,
        "Hit@1k": float(any(is_hit(chunk, page, gold) for chunk in spent)),
        "R@1k": budget_recall,
        "P@1k": budget_precision,
    }


def mean(values: Sequence[float]) -> float:
    """The mean of `values` (0 for none)."""
    return sum(values) / len(values) if values else 0.0


def macro(per_corpus: Mapping[str, Sequence[float]]) -> float:
    """Mean over corpora of each corpus's mean: every corpus weighs the same."""
    return mean([mean(values) for values in per_corpus.values()])


class PairedBootstrap:
    """95% intervals of the macro-averaged difference between two chunkers' per-query scores.

    The queries of each corpus are resampled with replacement, the same resamples for every
    pair and metric (so the intervals of one table are comparable), and the difference of means
    is macro-averaged over corpora as the point estimate is."""

    def __init__(self, sizes: Mapping[str, int], *, resamples: int = 2000, seed: int = 0) -> None:
        import numpy as np

        generator = np.random.default_rng(seed)
        self.samples = {corpus: generator.integers(0, size, size=(resamples, size))
                        for corpus, size in sizes.items() if size}

    def interval(self, a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]],
                 ) -> tuple[float, float, float]:
        """Macro mean of a - b, and the 2.5th and 97.5th percentiles of its resamples."""
        import numpy as np

        corpora = [corpus for corpus in self.samples if corpus in a]
        point = macro({corpus: [x - y for x, y in zip(a[corpus], b[corpus], strict=True)]
                       for corpus in corpora})
        resampled = np.mean([
            (np.asarray(a[corpus]) - np.asarray(b[corpus]))[self.samples[corpus]].mean(axis=1)
            for corpus in corpora], axis=0)
        low, high = np.percentile(resampled, [2.5, 97.5])
        return point, float(low), float(high)
