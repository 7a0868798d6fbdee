"""The sections of a page: every node of its heading tree as a span of the page Markdown, with
the chunks that start in it (the `sections` output's records, and small-to-big retrieval: match
a chunk, hand over its section)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mdchunk.chunk import PageSection
from mdchunk.chunking.embed import section_slug
from mdchunk.chunking.packing import Piece
from mdchunk.chunking.tree import Section


def page_sections(root: Section, pieces: Sequence[Piece],
                  tokens: Callable[[int, int], int]) -> tuple[PageSection, ...]:
    """The page (`root`, number 0) and each section under it in document order; `pieces` are
    the page's chunks in order, `tokens` the exact count of a span of the page Markdown."""
    starting: dict[int, list[int]] = {}
    for number, piece in enumerate(pieces):
        starting.setdefault(id(piece.section), []).append(number)
    numbers: dict[int, int] = {}
    sections: list[PageSection] = []
    for number, section in enumerate(root.walk()):
        numbers[id(section)] = number
        path = section.path
        parent = None if section.parent is None else numbers[id(section.parent)]
        start = section.start
        sections.append(PageSection(
            number=number, parent=parent, level=section.level,
            header_path=tuple(heading.title for heading in path),
            header_slugs=tuple(heading.anchor for heading in path),
            section_slug=section_slug(path), char_start=start, char_end=section.end,
            tokens=tokens(start, section.end),
            chunks=tuple(starting.get(id(section), ()))))
    return tuple(sections)

