"""The sections of a page: every node of its heading tree as a span of the page Markdown, with
the chunks that hold its text and the chunks whose own section it is (the `sections` output's
records, and small-to-big retrieval: match a chunk, hand over its section, climb to its
parent)."""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from mdchunk.chunking.chunk import PageSection
from mdchunk.chunking.embed import section_slug
from mdchunk.chunking.packing import Piece
from mdchunk.chunking.tree import Section

_TITLE = operator.attrgetter("title")
_ANCHOR = operator.attrgetter("anchor")


def page_sections(root: Section, pieces: Sequence[Piece],
                  tokens: Callable[[int, int], int]) -> tuple[PageSection, ...]:
    """The page (`root`, number 0) and each section under it in document order; `pieces` are
    the page's chunks in order, `tokens` the exact count of a span of the page Markdown."""
    owning: dict[int, list[int]] = {}
    for number, piece in enumerate(pieces):
        owning.setdefault(id(piece.section), []).append(number)
    holding = _chunks_holding(pieces)
    numbers: dict[int, int] = {}
    sections: list[PageSection] = []
    for number, section in enumerate(root.walk()):
        numbers[id(section)] = number
        path = section.path
        parent = None if section.parent is None else numbers[id(section.parent)]
        start = section.start
        sections.append(PageSection(
            number=number, parent=parent, level=section.level,
            header_path=tuple(map(_TITLE, path)), header_slugs=tuple(map(_ANCHOR, path)),
            section_slug=section_slug(path), char_start=start, char_end=section.end,
            tokens=tokens(start, section.end),
            chunks=holding(start, section.end),
            own_chunks=tuple(owning.get(id(section), ()))))
    return tuple(sections)


def _chunks_holding(pieces: Sequence[Piece]) -> Callable[[int, int], tuple[int, ...]]:
    """A function from a span of the page Markdown to the numbers of the chunks whose own
    text (a text overlap aside) shares a character with it: the pieces follow one another
    without overlapping, so they are the run between two bisections."""
    starts = [piece.start for piece in pieces]
    ends = [piece.end for piece in pieces]

    def holding(start: int, end: int) -> tuple[int, ...]:
        return tuple(range(bisect_right(ends, start), bisect_left(starts, end)))

    return holding
