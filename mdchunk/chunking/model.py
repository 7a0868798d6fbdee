"""The page model: what an engine gives of a page, and the blocks of its rendered Markdown, each
with exact offsets into the page text."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from typing import Any, Literal

BlockKind = Literal[
    "heading",
    "paragraph",
    "list",
    "item",
    "code",
    "table",
    "math",
    "admonition",
    "quote",
    "definitions",
    "footnotes",
    "tabs",
    "tab",
]

#: Kinds that are never cut, however large, with the oversize reason they carry.
ATOMIC_REASONS: dict[str, str] = {
    "code": "code_block_integrity",
    "table": "table_integrity",
    "math": "equation_integrity",
}


@dataclasses.dataclass(slots=True)
class Block:
    """One block of the page's Markdown: `page.markdown[start:end]` is its text.

    Made once by the converter and never changed after (not frozen: a page makes tens of
    thousands of blocks, and a frozen dataclass sets each field through `object.__setattr__`).
    """

    kind: BlockKind
    """What the block is."""
    start: int
    """Offset of the block's first character in the page Markdown."""
    end: int
    """Offset just past the block's last character."""
    children: tuple[Block, ...] = ()
    """Blocks inside a container (list items, admonition body, ...): the places it may be cut."""
    level: int = 0
    """Heading level, 1 to 6 (0 for other kinds)."""
    title: str = ""
    """Plain text of a heading; title of an admonition, tab or code block."""
    anchor: str = ""
    """For a heading: the id the browser scrolls to (empty when the page has none)."""
    language: str = ""
    """For a code block: its language, as the renderer named it."""
    prose: bool = False
    """True for running text, which may be cut between sentences and words when too large."""
    inline_math: tuple[int, ...] = ()
    """Offsets of the inline equations the block holds."""

    @property
    def atomic(self) -> bool:
        """True when the block must never be cut (code, table, display math)."""
        return self.kind in ATOMIC_REASONS

    def walk(self) -> Iterator[Block]:
        """This block and every block inside it, in document order."""
        stack = [self]
        while stack:
            block = stack.pop()
            yield block
            stack.extend(reversed(block.children))


@dataclasses.dataclass(frozen=True, slots=True)
class ParsedPage:
    """A rendered page turned into Markdown: the text and its top-level blocks."""

    markdown: str
    """The page's Markdown; every offset in mdchunk indexes into this text."""
    blocks: tuple[Block, ...]
    """Top-level blocks in document order (headings among them)."""
    title_added: bool = False
    """True when the page title was added as the page's first heading (an H1 without an
    anchor): the content has no H1 of its own."""

    def walk(self) -> Iterator[Block]:
        """Every block of the page, nested ones included, in document order."""
        for block in self.blocks:
            yield from block.walk()


@dataclasses.dataclass(frozen=True, slots=True)
class PageInput:
    """What an engine knows of a rendered page."""

    html: str
    """The page body HTML as rendered (not the themed page)."""
    source_path: str
    """Source path relative to the docs folder, with `/` separators (`guide/install.md`)."""
    url: str
    """Url relative to the site root (`guide/install/`; "" for the home page)."""
    title: str
    """The page title."""
    meta: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Front matter / page metadata."""
    language: str | None = None
    """The page's natural language where the engine knows it apart from its front matter
    (mkdocs-static-i18n's locale of its file: the default language's, for a page that a
    language lacks and takes from the default); None: the build's."""

    @property
    def doc_name(self) -> str:
        """Source path without its extension (`guide/install`)."""
        stem, dot, extension = self.source_path.rpartition(".")
        return stem if dot and "/" not in extension else self.source_path


def build_time() -> str:
    """ISO 8601 time of this build: SOURCE_DATE_EPOCH when set, else now (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), timezone.utc) if epoch else datetime.now(
        timezone.utc
    ).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")
