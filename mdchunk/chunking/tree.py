"""Blocks -> the page's heading tree: every section knows its headings path and its span."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from mdchunk.chunking.model import Block, ParsedPage


@dataclasses.dataclass(eq=False, slots=True)
class Section:
    """A heading and everything under it, up to the next heading of its level or above.

    The root section (level 0, no heading) holds the preamble: what comes before any heading.
    """

    heading: Block | None
    """The heading block (None for the root)."""
    level: int
    """Heading level, 1-6; 0 for the root."""
    parent: Section | None = None
    """The enclosing section (None for the root)."""
    body: list[Block] = dataclasses.field(default_factory=list)
    """The heading block itself, then the blocks before the first child section."""
    children: list[Section] = dataclasses.field(default_factory=list)
    """Subsections in document order."""
    end: int = 0
    """Offset just past the last block of the section's subtree."""
    path: tuple[Block, ...] = ()
    """Heading blocks from the top of the page down to this section (made with the section:
    packing, the embed template and the records all ask for it)."""

    @property
    def start(self) -> int:
        """Offset of the section's first character (its heading)."""
        if self.body:
            return self.body[0].start
        return self.children[0].start if self.children else self.end

    @property
    def anchor(self) -> str:
        """The id the browser scrolls to for this section: its own, else the nearest ancestor's."""
        for heading in reversed(self.path):
            if heading.anchor:
                return heading.anchor
        return ""

    def walk(self) -> Iterator[Section]:
        """This section and all its subsections, in document order (with a stack of its own:
        a generator per level would pass each section up through every level above it)."""
        stack = [self]
        while stack:
            section = stack.pop()
            yield section
            stack.extend(reversed(section.children))


def build_tree(page: ParsedPage) -> Section:
    """Nest the page's top-level blocks under their headings."""
    root = Section(heading=None, level=0)
    current = root
    for block in page.blocks:
        if block.kind == "heading":
            while current.level >= block.level:
                assert current.parent is not None
                current = current.parent
            section = Section(heading=block, level=block.level, parent=current, body=[block],
                              path=(*current.path, block))
            current.children.append(section)
            current = section
        else:
            current.body.append(block)
    _close(root)
    return root


def _close(section: Section) -> int:
    """Set `end` on the section and its subsections; return it."""
    end = section.body[-1].end if section.body else 0
    for child in section.children:
        end = max(end, _close(child))
    section.end = end
    return end
