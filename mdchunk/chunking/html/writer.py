"""The Markdown writer: line prefixes (list indents, quote markers) and the offsets of every
block."""

from __future__ import annotations

from mdchunk.model import Block, BlockKind, ParsedPage

_CONTAINERS = frozenset(
    {"list", "item", "admonition", "quote", "definitions", "footnotes", "tabs", "tab"}
)


class _Open:
    """A block being written: where it started and what it holds so far."""

    __slots__ = ("anchor", "children", "container", "kind", "language", "level", "mark", "math",
                 "prose", "start", "title")

    def __init__(self, kind: BlockKind, start: int, mark: tuple[int, int, str, bool]) -> None:
        self.kind: BlockKind = kind
        self.start = start
        self.mark = mark
        self.container = kind in _CONTAINERS
        self.children: list[Block] = []
        self.level = 0
        self.title = ""
        self.anchor = ""
        self.language = ""
        self.prose = False
        self.math: list[str] = []


class MarkdownWriter:
    """Writes Markdown with line prefixes (list indents, quote markers) and records blocks.

    Every block starts on a boundary of `parts`, which `end` relies on to find its end.
    """

    __slots__ = ("filled", "line_start", "math", "parts", "pos", "prefix", "siblings", "stack",
                 "top")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.prefix = ""
        self.line_start = True
        self.stack: list[_Open] = []
        #: Per open container, and the page at the bottom: has a child been written?
        self.filled: list[bool] = [False]
        self.top: list[Block] = []
        #: Where a finished block goes: the children of the innermost open block, or `top`.
        self.siblings = self.top
        self.math: list[tuple[int, list[str]]] = []

    def write(self, text: str) -> None:
        """Append text; every new line gets the current prefix (blank lines its stripped form).

        The text goes in as one part, prefixes included.
        """
        if "\n" not in text:  # most writes: one line
            if text:
                if self.line_start:
                    self.line_start = False
                    text = self.prefix + text
                self.parts.append(text)
                self.pos += len(text)
            return
        prefix = self.prefix
        if prefix:
            bare = prefix.rstrip()  # a blank line inside a quote keeps its `>`
            lines = [prefix + line if line else bare for line in text.split("\n")]
            first, last = text[:text.index("\n")], text[text.rindex("\n") + 1:]
            lines[0] = (prefix + first if self.line_start else first) if first else ""
            lines[-1] = prefix + last if last else ""
            text = "\n".join(lines)
        self.line_start = text.endswith("\n")
        self.parts.append(text)
        self.pos += len(text)

    def separate(self, blank: bool) -> None:
        """End the current line; with `blank`, leave one blank line (inside the prefix)."""
        text = "\n" + self.prefix.rstrip() + "\n" if blank else "\n"
        self.parts.append(text)
        self.pos += len(text)
        self.line_start = True

    def begin(self, kind: BlockKind, *, blank: bool | None) -> _Open:
        """Start a block; `blank` says how it is set off from a previous sibling (None: inline)."""
        mark = (len(self.parts), self.pos, self.prefix, self.line_start)
        if blank is not None and self.filled[-1]:
            self.separate(blank=blank)
        if self.line_start and self.prefix:
            self.parts.append(self.prefix)
            self.pos += len(self.prefix)
            self.line_start = False
        block = _Open(kind, self.pos, mark)
        self.stack.append(block)
        self.siblings = block.children
        self.filled.append(False)
        return block

    def end(self, block: _Open) -> Block | None:
        """Close `block`; a block with nothing in it is dropped and its text taken back."""
        assert self.stack and self.stack[-1] is block
        self.stack.pop()
        self.siblings = self.stack[-1].children if self.stack else self.top
        self.filled.pop()
        start = block.start
        end = self.pos
        for part in reversed(self.parts):  # trailing whitespace is not the block's
            if end <= start:
                break
            kept = len(part.rstrip())
            end -= len(part) - kept
            if kept:
                break
        if end == start or (block.container and not block.children and not block.title):
            self.reset(block.mark)
            return None
        done = Block(block.kind, start, end, tuple(block.children), block.level,
                         block.title, block.anchor, block.language, block.prose)
        if block.math:
            self.math.append((start, block.math))
        self.siblings.append(done)
        self.filled[-1] = True
        return done

    def leaf(self, kind: BlockKind, text: str, *, blank: bool, level: int = 0, title: str = "",
             anchor: str = "", language: str = "", prose: bool = False,
             math: list[str] | None = None) -> None:
        """A block without children: `begin`, `write(text)` and `end` in one step."""
        block = self.begin(kind, blank=blank)
        block.level, block.title, block.anchor = level, title, anchor
        block.language, block.prose = language, prose
        if math:
            block.math = math
        self.write(text)
        self.end(block)

    def mark(self) -> tuple[int, int, str, bool]:
        """The writer's state, to take back what a dropped block wrote."""
        return (len(self.parts), self.pos, self.prefix, self.line_start)

    def reset(self, mark: tuple[int, int, str, bool]) -> None:
        """Go back to a state from `mark`."""
        count, self.pos, _, self.line_start = mark
        del self.parts[count:]

    def finish(self) -> ParsedPage:
        """The page: its Markdown and its top-level blocks, inline equations located."""
        markdown = "".join(self.parts)
        blocks = tuple(self.top)
        if self.math:
            located = _locate_math(markdown, dict(self.math))
            blocks = tuple(_with_math(block, located) for block in blocks)
        return ParsedPage(markdown=markdown, blocks=blocks)


def _locate_math(markdown: str, math: dict[int, list[str]]) -> dict[int, tuple[int, ...]]:
    located: dict[int, tuple[int, ...]] = {}
    for start, snippets in math.items():
        offsets, cursor = [], start
        for snippet in snippets:
            found = markdown.find(snippet, cursor)
            if found < 0:
                continue
            offsets.append(found)
            cursor = found + len(snippet)
        located[start] = tuple(offsets)
    return located


def _with_math(block: Block, located: dict[int, tuple[int, ...]]) -> Block:
    children = tuple(_with_math(child, located) for child in block.children)
    math = located.get(block.start, ()) if block.prose else ()
    if children == block.children and not math:
        return block
    return Block(
        kind=block.kind, start=block.start, end=block.end, children=children, level=block.level,
        title=block.title, anchor=block.anchor, language=block.language, prose=block.prose,
        inline_math=math,
    )
