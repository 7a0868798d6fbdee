"""Seed 000's adaptive sizing: how complex a span of the page is (see `AdaptiveSizing`)."""

from __future__ import annotations

from collections.abc import Iterable

from mdchunk.chunking.markdown_text import sentence_ends
from mdchunk.chunking.model import Block

_WEIGHTS = {"code": 1.0, "table": 0.8, "list": 0.5}
_SENTENCE_WEIGHT = 0.3
_WORDS_PER_SENTENCE_AT_ONE = 40


def complexity(markdown: str, blocks: Iterable[Block]) -> float:
    """Complexity in [0, 1] of the top-level `blocks` (a section's), rounded to 3 places."""
    total = 0
    shares = dict.fromkeys(_WEIGHTS, 0)
    words = sentences = 0
    for block in blocks:
        size = block.end - block.start
        total += size
        if block.kind in shares:
            shares[block.kind] += size
        elif block.prose:
            text = markdown[block.start : block.end]
            words += len(text.split())
            sentences += max(1, len(sentence_ends(text)))
    if not total:
        return 0.0
    score = sum(_WEIGHTS[kind] * size / total for kind, size in shares.items())
    if sentences:
        score += _SENTENCE_WEIGHT * min(1.0, words / sentences / _WORDS_PER_SENTENCE_AT_ONE)
    return round(min(1.0, score), 3)
