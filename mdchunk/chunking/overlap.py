"""Overlap between neighbouring chunks, in its two modes (`overlap_tokens`, `overlap_mode`).

- `text` (seed 003's `has_overlap_previous`): a chunk starts earlier, with the tail of the
  previous chunk of the same section, so the text itself repeats; never inside a code block,
  table or equation, and never past the chunk's budget.
- `metadata` (seed 000): a chunk's text never repeats; `previousContent` and `nextContent`
  carry the neighbours' tail and head instead.

Both cut at word boundaries and take the most text within `overlap_tokens`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mdchunk.chunking.model import ParsedPage
from mdchunk.chunking.packing import Piece
from mdchunk.chunking.span_counts import first_true, last_true
from mdchunk.chunking.tokens import TokenCounter

#: Where a word starts: the places an overlap may begin.
WORD_START = re.compile(r"(?<=\s)\S")
_WORD_END = re.compile(r"\S(?=\s)")


def text_overlap_starts(parsed: ParsedPage, pieces: Sequence[Piece], count: TokenCounter,
                        overlap_tokens: int) -> list[int]:
    """The start offset of each chunk's text: its piece's start, or earlier where the tail of
    the previous piece of the same section fits `overlap_tokens` and the chunk its budget (less
    what the embed template takes, `Piece.reserve`)."""
    starts = [piece.start for piece in pieces]
    atomic = [(block.start, block.end) for block in parsed.walk() if block.atomic]
    text = parsed.markdown
    for index in range(1, len(pieces)):
        previous, piece = pieces[index - 1], pieces[index]
        if previous.section is not piece.section or piece.oversize_reason:
            continue
        candidates = [match.start()
                      for match in WORD_START.finditer(text, previous.start, previous.end)
                      if not any(start < match.start() < end for start, end in atomic)]

        def fits(start: int, tail_end: int = previous.end, piece: Piece = piece) -> bool:
            # Both counts only shrink as the start moves right: a binary search finds the first.
            return (count(text[start:tail_end]) <= overlap_tokens
                    and count(text[start:piece.end]) <= piece.size - piece.reserve)

        start = first_true(candidates, fits)
        if start is not None:
            starts[index] = start
    return starts


def tail(text: str, count: TokenCounter, budget: int) -> str:
    """The longest tail of `text`, starting at a word, within `budget` tokens."""
    starts = [match.start() for match in WORD_START.finditer(text)]
    start = first_true(starts, lambda at: count(text[at:]) <= budget)
    return "" if start is None else text[start:]


def head(text: str, count: TokenCounter, budget: int) -> str:
    """The longest head of `text`, ending at a word, within `budget` tokens."""
    ends = [match.end() for match in _WORD_END.finditer(text)] + [len(text)]
    end = last_true(ends, lambda at: count(text[:at]) <= budget)
    return "" if end is None else text[:end]
