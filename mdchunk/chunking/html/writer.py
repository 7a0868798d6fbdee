"""The Markdown writer: appends the page's Markdown, with the line prefixes of the containers
it is in (list indents, quote markers), and records where each block starts and ends."""

from __future__ import annotations

from mdchunk.chunking.model import Block, BlockKind, ParsedPage

#: Kinds of block that hold blocks: without a child (or a title) they are dropped.
_CONTAINERS = frozenset(
    {"list", "item", "admonition", "quote", "definitions", "footnotes", "tabs", "tab"}
)

#: Kinds of block that may end with a paragraph a reader would continue with the next line
#: (a lazy continuation line): a block after one gets a blank line, even in a tight list.
_LAZY = frozenset({"list", "quote", "admonition", "definitions", "footnotes", "tabs"})

#: The writer's state, to go back to when a block turns out empty: the number of parts, the
#: position, the prefix and whether a line has just started.
Mark = tuple[int, int, str, bool]


class _Open:
    """A block being written: where it started and what it holds so far."""

    __slots__ = ("anchor", "children", "container", "kind", "language", "level", "mark", "math",
                 "prose", "start", "title")

    def __init__(self, kind: BlockKind, start: int, mark: Mark) -> None:
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
        #: The inline equations of a paragraph, as written (`$x$`), to be located in `finish`.
        self.math: list[str] = []


class MarkdownWriter:
    """Writes Markdown with line prefixes (list indents, quote markers) and records blocks.

    A block is opened with `begin`, written, and closed with `end`, which records it among
    the children of the block around it; `leaf` does all three for a block without children.
    Every block starts on a boundary of `parts`, which `end` relies on to find its end.
    """

    __slots__ = ("filled", "line_start", "math", "parts", "pos", "prefix", "siblings", "stack",
                 "top")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0  # the length of the Markdown so far
        self.prefix = ""  # what every new line starts with
        self.line_start = True
        self.stack: list[_Open] = []
        #: Per open container, and the page at the bottom: has a child been written?
        self.filled: list[bool] = [False]
        self.top: list[Block] = []
        #: Where a finished block goes: the children of the innermost open block, or `top`.
        self.siblings = self.top
        #: Where each paragraph with inline equations starts, and its equations.
        self.math: list[tuple[int, list[str]]] = []

    # -- text -------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Append text; every new line gets the current prefix (blank lines its stripped form).

        The text goes in as one part, prefixes included.
        """
        if "\n" in text:
            text = self._prefixed_lines(text)
            self.line_start = text.endswith("\n")
        elif not text:
            return
        elif self.line_start:
            self.line_start = False
            text = self.prefix + text
        self.parts.append(text)
        self.pos += len(text)

    def _prefixed_lines(self, text: str) -> str:
        """Text of several lines with the prefix before each: the first only if it starts a
        line, an empty last one not at all (the next write starts that line)."""
        prefix = self.prefix
        if not prefix:
            return text
        bare = prefix.rstrip()  # a blank line inside a quote keeps its `>`
        lines = text.split("\n")
        first, last = lines[0], lines[-1]
        lines = [prefix + line if line else bare for line in lines]
        lines[0] = (prefix + first if self.line_start else first) if first else ""
        lines[-1] = prefix + last if last else ""
        return "\n".join(lines)

    def separate(self, blank: bool) -> None:
        """End the current line; with `blank`, leave one blank line (inside the prefix)."""
        text = "\n" + self.prefix.rstrip() + "\n" if blank else "\n"
        self.parts.append(text)
        self.pos += len(text)
        self.line_start = True

    def mark(self) -> Mark:
        """The writer's state, to take back what a dropped block wrote."""
        return (len(self.parts), self.pos, self.prefix, self.line_start)

    def reset(self, mark: Mark) -> None:
        """Go back to a state from `mark` (the prefix is the caller's to restore)."""
        count, self.pos, _, self.line_start = mark
        del self.parts[count:]

    # -- blocks -----------------------------------------------------------------------------

    def begin(self, kind: BlockKind, *, blank: bool) -> _Open:
        """Start a block; `blank` says whether a blank line sets it off from a previous sibling
        (else a line break does; a block after a list or quote always gets one)."""
        mark = self.mark()
        self._open(blank)
        block = _Open(kind, self.pos, mark)
        self.stack.append(block)
        self.siblings = block.children
        self.filled.append(False)
        return block

    def _open(self, blank: bool) -> None:
        """Set a block off from a previous sibling, and start its line (its prefix)."""
        if self.filled[-1]:
            self.separate(blank=blank or (bool(self.siblings)
                                          and self.siblings[-1].kind in _LAZY))
        if self.line_start and self.prefix:
            self.parts.append(self.prefix)
            self.pos += len(self.prefix)
            self.line_start = False

    def end(self, block: _Open) -> Block | None:
        """Close `block`; a block with nothing in it is dropped and its text taken back."""
        assert self.stack and self.stack[-1] is block
        self.stack.pop()
        self.siblings = self.stack[-1].children if self.stack else self.top
        self.filled.pop()
        start = block.start
        end = self._text_end(start)
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

    def _text_end(self, start: int) -> int:
        """Where the text written since `start` ends, its trailing whitespace left out."""
        end = self.pos
        for part in reversed(self.parts):
            if end <= start:
                break
            kept = len(part.rstrip())
            end -= len(part) - kept
            if kept:
                break
        return end

    def leaf(self, kind: BlockKind, text: str, *, blank: bool, level: int = 0, title: str = "",
             anchor: str = "", language: str = "", prose: bool = False,
             math: list[str] | None = None) -> None:
        """A block without children, as `begin`, `write(text)` and `end` would write it (with
        nothing to hold open while it is written)."""
        parts, pos, line_start = len(self.parts), self.pos, self.line_start
        self._open(blank)
        start = self.pos
        self.write(text)
        # (`write` added one part or none: the leaf's text ends where that part's does, its
        # trailing whitespace left out)
        end = start + len(self.parts[-1].rstrip()) if self.pos > start else start
        if end == start or (kind in _CONTAINERS and not title):
            del self.parts[parts:]
            self.pos, self.line_start = pos, line_start
            return
        if math:
            self.math.append((start, math))
        self.siblings.append(Block(kind, start, end, (), level, title, anchor, language, prose))
        self.filled[-1] = True

    # -- the page ---------------------------------------------------------------------------

    def finish(self) -> ParsedPage:
        """The page: its Markdown and its top-level blocks, inline equations located."""
        markdown = "".join(self.parts)
        blocks = tuple(self.top)
        if self.math:
            located = _locate_math(markdown, dict(self.math))
            blocks = tuple(_with_math(block, located) for block in blocks)
        return ParsedPage(markdown=markdown, blocks=blocks)


def with_title(page: ParsedPage, title: tuple[str, str] | None) -> ParsedPage:
    """`page` with the page title as its first heading, when it has no H1 of its own (at its
    top level, where headings open sections) and is not empty: themes show such a page's title
    outside the content (Material and Zensical add an `<h1>`), so the page Markdown gets it as
    its H1, without an anchor (its link is the page itself), and every heading path starts
    with it. `title` is the heading's Markdown and plain text (None: no title to add)."""
    if title is None or not page.blocks or any(
            block.kind == "heading" and block.level == 1 for block in page.blocks):
        return page
    markdown, text = title
    heading = "# " + markdown
    shift = len(heading) + 2
    blocks = (Block("heading", 0, len(heading), level=1, title=text),
              *(_shifted(block, shift) for block in page.blocks))
    return ParsedPage(markdown=heading + "\n\n" + page.markdown, blocks=blocks,
                      title_added=True)


def _shifted(block: Block, shift: int) -> Block:
    """`block` and the blocks inside it, `shift` characters further into the page."""
    return Block(
        kind=block.kind, start=block.start + shift, end=block.end + shift,
        children=tuple(_shifted(child, shift) for child in block.children), level=block.level,
        title=block.title, anchor=block.anchor, language=block.language, prose=block.prose,
        inline_math=tuple(offset + shift for offset in block.inline_math),
    )


def _locate_math(markdown: str, math: dict[int, list[str]]) -> dict[int, tuple[int, ...]]:
    """The offsets of each paragraph's inline equations, found in order from its start."""
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
    """`block` with the offsets of its inline equations, and its children's."""
    children = tuple(_with_math(child, located) for child in block.children)
    math = located.get(block.start, ()) if block.prose else ()
    if children == block.children and not math:
        return block
    return Block(
        kind=block.kind, start=block.start, end=block.end, children=children, level=block.level,
        title=block.title, anchor=block.anchor, language=block.language, prose=block.prose,
        inline_math=math,
    )
