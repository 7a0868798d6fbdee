"""The Markdown round trip: does mdchunk's Markdown show what the page's HTML shows?

Both sides become styled text, which is then compared character by character:

- the HTML an engine rendered, read the way mdchunk promises to read it (`html_text`);
- the Markdown mdchunk wrote, rendered back to HTML by markdown-it-py (`markdown_text`):
  CommonMark with GFM tables and strikethrough, and the plugins for the syntax mdchunk writes
  beyond CommonMark: `$math$` (dollarmath, read as pandoc reads `$`), `[^note]` footnotes and
  `: definitions`.

Styled text is the visible text without whitespace (whitespace differences are not
differences), each character with what it is shown as: emphasis, strong, strikethrough, code,
and the list items it sits in. A footnote reference is one symbol, an equation its TeX between
two symbols; footnote bodies are compared apart (`Styled.notes`), since a reader gathers them
at the end of the page, and only those something refers to.

What mdchunk changes on purpose is read into the HTML side, so the comparison allows it:
chrome is left out (permalinks, line numbers, copy buttons, hidden and excluded parts, a code
block's title, which goes into the fence's info string), link targets are not compared (mdchunk
makes them absolute), an admonition's or tab's title is strong (`> **Note**`), a Sphinx
signature is code, a checkbox is `[x]`, a docutils classifier follows a colon, a footnote's
label is its reference, an emoji image is its character. One difference of reader: a
definition with two terms or more (Python-Markdown's and PHP Markdown Extra's syntax) is a
paragraph to markdown-it, its `:` shown.

A chunk (`check_chunks`) must render on its own to the styled text of its part of the page,
list nesting included: a character sits in as many list items as it does on the page, less
those whose marker is before the chunk (which the chunk cannot show). A chunk may start with a
definition whose term ends the chunk before: its `: ` then reads as text, the one difference
allowed. A chunk that starts with a block nested four columns deep or more (a list nested
twice, a block in a nested item) is left out: it starts at its block, since with that
indentation its first line would read as code, and the lines after it keep theirs, which no
slice of the page can give back; the packer cuts there only in a container too large for
the budget.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from html import escape
from typing import Any
from unittest import mock

import lxml.html
from lxml.etree import _Element
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from mdchunk.chunking.html import parse_html, parse_tree
from mdchunk.chunking.html.elements import HEADINGS, is_dropped, is_math_script, script_tex
from mdchunk.chunking.html.layout import admonition_kind, heading_anchor, tab_parts
from mdchunk.chunking.html.text import has_words, strip_math

EM, STRONG, STRIKE, CODE = "em", "strong", "strike", "code"
_STYLE_TAGS = {"em": EM, "i": EM, "cite": EM, "dfn": EM, "var": EM, "strong": STRONG,
               "b": STRONG, "del": STRIKE, "s": STRIKE, "strike": STRIKE}
_CODE_TAGS = frozenset({"code", "kbd", "samp", "tt", "pre"})
#: A footnote reference, in the text.
REF = "\u2020"
#: The ends of an equation, in the text.
MATH_OPEN, MATH_CLOSE = "\u27e6", "\u27e7"
_NOTE_CONTAINERS = frozenset({"footnote", "footnotes", "footnote-list", "citation-list"})
#: Containers a section left out (`data-search-exclude`) is searched for its end in.
_TRANSPARENT = frozenset({"div", "section", "article", "main", "body", "span"})
#: Containers below the page's top level (where headings no longer end an excluded section).
_NOT_TOP = frozenset({"ul", "ol", "dl", "blockquote", "table", "li", "p"})


@dataclasses.dataclass(frozen=True)
class Style:
    """How a character is shown: its flags (emphasis, code...) and the list items it sits in
    (each by an id: on the Markdown side, the offset of its marker)."""

    flags: frozenset[str] = frozenset()
    items: tuple[int, ...] = ()

    def flagged(self, flag: str) -> Style:
        return Style(self.flags | {flag}, self.items)


_PLAIN = Style()
#: A character for comparing: itself, its flags (sorted), its list depth.
Cell = tuple[str, tuple[str, ...], int]


class Styled:
    """Styled text: characters (whitespace left out), a style each, and on the Markdown side
    the line each comes from (that of the block it is in); footnote bodies apart."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.styles: list[Style] = []
        self.lines: list[int] = []
        self.notes: list[Styled] = []
        self.line = 0

    def add(self, text: str, style: Style) -> None:
        for char in text:
            if not char.isspace():
                self.chars.append(char)
                self.styles.append(style)
                self.lines.append(self.line)

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def cells(self, view: Callable[[Style], int] | None = None, start: int = 0,
              stop: int | None = None) -> list[Cell]:
        """The characters `start:stop` for comparing; `view` gives a character's list depth
        (by default, how many list items it sits in)."""
        return [(char, tuple(sorted(style.flags)),
                 len(style.items) if view is None else view(style))
                for char, style in zip(self.chars[start:stop], self.styles[start:stop],
                                       strict=True)]


# -- the HTML side ------------------------------------------------------------------------------


def html_text(html: str) -> Styled:
    """The styled text of a page's body HTML, read as mdchunk promises to read it."""
    root = parse_tree(html)
    out = Styled()
    if root is not None:
        _HtmlReader(out).children(root, _PLAIN, top=True)
    return out


class _HtmlReader:
    """Walks engine HTML into styled text (see the module docstring for what it allows)."""

    def __init__(self, out: Styled) -> None:
        self.out = out
        self.excluded_level = 0  # inside a section marked data-search-exclude
        self.items = 0  # list items met so far: each one's id
        self.itself = ""  # the heading being read: its own `#anchor`

    def children(self, element: _Element, style: Style, *, top: bool = False) -> None:
        hidden = top and self.excluded_level
        if element.text and not hidden:
            self.out.add(element.text, style)
        for child in element:
            if isinstance(child.tag, str):
                self.element(child, style, top=top)
            if child.tail and not (top and self.excluded_level):
                self.out.add(child.tail, style)

    def element(self, element: _Element, style: Style, *, top: bool) -> None:
        level = HEADINGS.get(element.tag)
        if level and top and self._excluded(element, level):
            return
        if is_dropped(element) and not is_math_script(element):
            return
        if top and self.excluded_level:
            if element.tag in _TRANSPARENT:
                self.children(element, style, top=True)
            return
        self._kind(element, set((element.get("class") or "").split()), style, top=top)

    def _excluded(self, heading: _Element, level: int) -> bool:
        """Whether a top-level heading is left out, as mdchunk leaves it out."""
        if self.excluded_level and level > self.excluded_level:
            return True
        self.excluded_level = 0
        if heading.get("data-search-exclude") is not None:
            self.excluded_level = level
            return True
        return False

    def _kind(self, element: _Element, classes: set[str], style: Style, *, top: bool) -> None:
        """An element by what mdchunk makes of it: the kinds it writes its own way."""
        tag = element.tag
        if classes & {"code-block-caption", "filename"}:
            return  # a code block's title, which mdchunk writes into the fence's info string
        if is_math_script(element) or classes & {"arithmatex", "math"}:
            tex = script_tex(element) if tag == "script" else _plain(element)
            self.out.add(MATH_OPEN + re.sub(r"\s+", "", strip_math(tex)) + MATH_CLOSE, style)
        elif classes & {"footnote-ref", "footnote-reference"} or _is_note_ref(element):
            self.out.add(REF, style)
        elif classes & _NOTE_CONTAINERS or (tag == "aside" and "footnote" in classes):
            self._notes(element)
        elif tag in HEADINGS:
            self._heading(element, style)
        elif tag == "dt" and "sig-object" in classes:
            self.out.add(_plain(element), Style(frozenset({CODE}), style.items))
        elif tag == "details" or "admonition" in classes:
            self._admonition(element, style)
        elif "tabbed-set" in classes:
            self._tabs(element, style)
        else:
            self._element(element, classes, style, top=top)

    def _element(self, element: _Element, classes: set[str], style: Style, *,
                 top: bool) -> None:
        """An element that shows its content with a style, or as it is."""
        tag = element.tag
        if tag in _CODE_TAGS:
            self.out.add(_plain(element), style.flagged(CODE))
        elif tag in _STYLE_TAGS and not (tag == "em" and "sig-param" in classes):
            self.children(element, style.flagged(_STYLE_TAGS[tag]))
        elif tag == "li" and _in_list(element):
            self.items += 1
            self.children(element, Style(style.flags, (*style.items, self.items)))
        elif tag in {"img", "input"}:
            self._empty(element, classes, style)
        elif tag == "a" and self.itself and element.get("href") == self.itself and not (
                has_words("".join(element.itertext()))):
            return  # a permalink
        elif ("classifier" in classes) or (tag == "dd" and _follows_terms(element)):
            self.out.add(":", style)
            self.children(element, style)
        elif "admonition-title" in classes or tag == "summary":
            self.children(element, style.flagged(STRONG))
        else:
            self.children(element, style, top=top and tag not in _NOT_TOP)

    def _heading(self, element: _Element, style: Style) -> None:
        """A heading's text, its permalink left out; its anchor when it has no text."""
        anchor = heading_anchor(element)
        before = len(self.out.chars)
        self.itself = f"#{anchor}" if anchor else ""
        self.children(element, style)
        self.itself = ""
        if len(self.out.chars) == before and anchor:
            self.out.add(anchor, style)

    def _empty(self, element: _Element, classes: set[str], style: Style) -> None:
        """A checkbox (`[x]`), or an image (its alt: as text when it is an emoji or data)."""
        if element.tag == "input":
            self.out.add("[x]" if element.get("checked") is not None else "[ ]", style)
            return
        alt = element.get("alt") or ""
        src = element.get("src") or ""
        if src.startswith("data:") or any("emoji" in name for name in classes):
            self.out.add(alt, style)
        elif src.strip():
            self.out.add(f"<img {alt}>", Style(frozenset(), style.items))

    def _admonition(self, element: _Element, style: Style) -> None:
        """An admonition: its title strong, or, without one, its kind."""
        titled = any(child.tag == "summary" or "admonition-title" in (child.get("class") or "")
                     for child in element)
        if not titled:
            self.out.add(admonition_kind(element), style.flagged(STRONG))
        self.children(element, style)

    def _tabs(self, element: _Element, style: Style) -> None:
        """A tabbed set: each tab's label (strong), then its content."""
        labels, bodies = tab_parts(element)
        for index, body in enumerate(bodies):
            if index < len(labels):
                self.out.add(_plain(labels[index]), style.flagged(STRONG))
            self.children(body, style)

    def _notes(self, element: _Element) -> None:
        """Footnote and citation bodies, each gathered apart (`Styled.notes`)."""
        for note in _note_bodies(element):
            body = Styled()
            reader = _HtmlReader(body)
            if note.text:
                body.add(note.text, _PLAIN)
            for child in note:
                if isinstance(child.tag, str) and "label" not in (child.get("class") or ""):
                    reader.element(child, _PLAIN, top=False)
                if child.tail:
                    body.add(child.tail, _PLAIN)
            self.out.notes.append(body)


def _note_bodies(element: _Element) -> Iterator[_Element]:
    """The notes of a footnote container: Python-Markdown's items, docutils' footnotes and
    citations."""
    if element.tag == "aside" and "footnote" in (element.get("class") or "").split():
        yield element
        return
    for node in element.iter("li", "aside", "div"):
        classes = set((node.get("class") or "").split())
        if (node.tag == "li" and (node.get("id") or "").startswith("fn")) or (
                classes & {"footnote", "citation"} and node is not element):
            yield node


def _follows_terms(definition: _Element) -> bool:
    """Whether a definition follows two terms or more (see the module docstring)."""
    previous = definition.getprevious()
    before = previous.getprevious() if previous is not None else None
    return previous is not None and previous.tag == "dt" and (
        before is not None and before.tag == "dt")


def _is_note_ref(element: _Element) -> bool:
    """A Python-Markdown footnote reference: `<sup id="fnref:1">`."""
    return element.tag == "sup" and (element.get("id") or "").startswith("fnref")


def _in_list(item: _Element) -> bool:
    parent = item.getparent()
    return parent is not None and parent.tag in {"ul", "ol", "menu"}


def _plain(element: _Element) -> str:
    """The visible text inside `element`, chrome left out."""
    parts: list[str] = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and not is_dropped(child):
            parts.append(_plain(child))
        parts.append(child.tail or "")
    return "".join(parts)


# -- the Markdown side --------------------------------------------------------------------------


def markdown_reader() -> MarkdownIt:
    """CommonMark with GFM tables and strikethrough, and the plugins of mdchunk's syntax (a
    footnote reference without its note is one all the same: a chunk may hold either alone)."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=False)
    md.use(footnote_plugin, inline=False, always_match_refs=True)
    md.use(deflist_plugin)
    for rule in ("html_block", "math_block", "math_block_label"):
        md.add_render_rule(rule, _marked(md.renderer.rules[rule]))
    return md


def _marked(rule: Any) -> Any:
    """A render rule that puts an empty element with the token's line before what it writes
    (a raw HTML or math block gets no attributes of its own)."""

    def render(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        line = tokens[idx].attrGet("data-line")
        marker = f'<i data-line="{line}"></i>' if line is not None else ""
        return marker + str(rule(tokens, idx, options, env))

    return render


_READER = markdown_reader()
_MARKER = re.compile(r"[ >\t]*([-+*]|\d{1,9}[.)])(?:[ \t]+|$)", re.M)


def markdown_text(markdown: str) -> Styled:
    """The styled text of Markdown as markdown-it-py renders it. Each list item is known by
    its marker's offset (`<li data-at=...>`), each character by its block's first line."""
    env: dict[str, Any] = {}
    tokens = _READER.parse(markdown, env)
    html = _READER.renderer.render(_mark_lines(markdown, tokens), _READER.options, env)
    out = Styled()
    if html.strip():
        _MarkdownReader(out).children(
            lxml.html.fragment_fromstring(html, create_parent="body"), _PLAIN)
    return out


def _mark_lines(markdown: str, tokens: Sequence[Token]) -> list[Token]:
    """The tokens with each block's first line (`data-line`), each list item's marker offset
    (`data-at`); a paragraph a tight list hides gets an empty element with its line."""
    starts = [0, *(match.end() for match in re.finditer("\n", markdown))]
    opened_on: dict[int, int] = {}  # a line: how many items opened on it so far
    marked: list[Token] = []
    for token in tokens:
        marked.append(token)
        if not (token.block and token.map and token.nesting >= 0):
            continue
        if token.type == "html_block" and token.content.startswith("</"):
            continue  # (the end of an HTML element: a marker there may move on parsing)
        line = token.map[0]
        if token.hidden:
            marked.insert(-1, Token("html_inline", "", 0, content=f'<i data-line="{line}"></i>'))
            continue
        token.attrSet("data-line", str(line))
        if token.type == "list_item_open":
            markers = _markers(markdown, starts[line])
            nth = opened_on.get(line, 0)
            opened_on[line] = nth + 1
            token.attrSet("data-at", str(markers[min(nth, len(markers) - 1)]))
    return marked


def _markers(markdown: str, line_start: int) -> list[int]:
    """Where the list markers at the start of a line are (`- 1. x` holds two), after
    indentation and quote markers; the line's start when there is none."""
    found: list[int] = []
    at = line_start
    while (match := _MARKER.match(markdown, at)) and match.end() > at:
        found.append(match.start(1))
        at = match.end()
    return found or [line_start]


class _MarkdownReader(_HtmlReader):
    """Walks markdown-it's HTML: lists known by their markers' offsets, lines by `data-line`,
    equations and footnotes by the plugins' classes."""

    def element(self, element: _Element, style: Style, *, top: bool) -> None:
        line = element.get("data-line")
        if line is None and element.tag == "pre" and len(element):
            line = element[0].get("data-line")  # (a fence's attributes go on its `<code>`)
        if line is not None:
            self.out.line = int(line)
        super().element(element, style, top=top)

    def _element(self, element: _Element, classes: set[str], style: Style, *,
                 top: bool) -> None:
        if element.tag == "li" and element.get("data-at") is not None:
            item = int(element.get("data-at") or 0)
            self.children(element, Style(style.flags, (*style.items, item)))
        elif element.tag == "section" and "footnotes" in classes:
            for note in element.iter("li"):
                body = Styled()
                _MarkdownReader(body).children(note, _PLAIN)
                self.out.notes.append(body)
        else:
            super()._element(element, classes, style, top=top)

    def _kind(self, element: _Element, classes: set[str], style: Style, *, top: bool) -> None:
        if element.tag == "sup" and "footnote-ref" in classes:
            self.out.add(REF, style)
        elif element.tag in HEADINGS:
            self.children(element, style)
        else:
            super()._kind(element, classes, style, top=top)


# -- comparisons --------------------------------------------------------------------------------


def difference(expected: Sequence[Cell], found: Sequence[Cell]) -> str:
    """"" when both agree, else where they first part, with some context."""
    for index, (left, right) in enumerate(zip(expected, found, strict=False)):
        if left != right:
            return _show(expected, found, index)
    if len(expected) != len(found):
        return _show(expected, found, min(len(expected), len(found)))
    return ""


def _show(expected: Sequence[Cell], found: Sequence[Cell], index: int) -> str:
    def context(cells: Sequence[Cell]) -> str:
        return "".join(
            char + "".join(flag[0] for flag in flags).upper() + (str(depth) if depth else "")
            for char, flags, depth in cells[max(0, index - 30): index + 30])

    return (f"at {index}:\n  expected {context(expected)!r}\n  found    {context(found)!r}\n"
            "  (after a character: E em, S strong/strike, C code; a digit: list depth)")


def compare_page(html: str, markdown: str) -> str:
    """"" when the page Markdown shows what its HTML shows, else the first difference."""
    expected, found = html_text(html), markdown_text(markdown)
    problem = difference(expected.cells(), found.cells())
    return problem or _compare_notes(expected.notes, found.notes)


def _compare_notes(expected: list[Styled], found: list[Styled]) -> str:
    """Every footnote the Markdown shows is one of the page's."""
    left = [note.cells() for note in expected]
    for note in found:
        cells = note.cells()
        if cells not in left:
            return f"footnote {note.text!r} is none of {[''.join(c[0] for c in n) for n in left]}"
        left.remove(cells)
    return ""


def check_chunks(markdown: str, chunks: Sequence[tuple[int, int]],
                 prose: Sequence[tuple[int, int]] = ()) -> str:
    """"" when each chunk (`markdown[start:end]`) renders on its own to its part of the page,
    list nesting included (see the module docstring), else the first difference.

    A chunk cut inside a paragraph (`prose`: the spans of the page's paragraphs) is left out:
    a cut between sentences or words may cut emphasis or a link in two, which the packer does
    not avoid. A chunk's part of the page starts with the first block on its first line.
    """
    page = markdown_text(markdown)
    line_starts = [0, *(match.end() for match in re.finditer("\n", markdown))]
    for start, end in chunks:
        if any(low < cut < high for low, high in prose for cut in (start, end)):
            continue
        if _nested_start(markdown, start):
            continue
        chunk = markdown_text(markdown[start:end])
        if _DEFINITION_START.match(markdown, start) and chunk.chars[:1] == [":"]:
            del chunk.chars[0], chunk.styles[0]  # a definition whose term ends the chunk before
        first = bisect.bisect_left(page.lines, bisect.bisect_right(line_starts, start) - 1)
        expected = page.cells(lambda style, start=start: sum(item >= start
                                                             for item in style.items),
                              first, first + len(chunk.chars))
        problem = difference(expected, chunk.cells())
        if problem:
            return f"chunk [{start}:{end}] {markdown[start:end][:80]!r}: {problem}"
    return ""


#: A chunk that starts with a definition (inside quotes, perhaps).
_DEFINITION_START = re.compile(r"[ \n>]*: ")


def _nested_start(markdown: str, start: int) -> bool:
    """Whether the first block at `start` is indented four columns or more in its line, before
    or after its quote markers (each marker takes one space after it)."""
    at = start
    while at < len(markdown) and markdown[at] in " \n>":
        at += 1
    prefix = markdown[markdown.rfind("\n", 0, at) + 1:at]
    runs = prefix.split(">")
    return max([len(runs[0]), *(len(run) - run.startswith(" ") for run in runs[1:])]) >= 4


# -- pages as a build chunks them ---------------------------------------------------------------


@dataclasses.dataclass
class ChunkedPage:
    """A page as mdchunk chunked it: its HTML, its Markdown, its chunks' and paragraphs'
    spans."""

    url: str
    html: str
    markdown: str
    spans: list[tuple[int, int]]
    prose: list[tuple[int, int]]


def chunked_page(url: str, html: str, result: Any, site_url: str = "") -> ChunkedPage:
    """A page as chunked (`result`: its `PageChunks`), with the spans of its paragraphs. A
    page without an H1 has its title as one, as themes show it (`html` then starts with it)."""
    title = result.chunks[0].file_title if result.chunks else ""
    parsed = parse_html(html, page_url=url, site_url=site_url, title=title)
    assert parsed.markdown == result.markdown
    if parsed.title_added:
        html = f"<h1>{escape(title)}</h1>\n{html}"
    spans = [(chunk.char_start, chunk.char_end) for chunk in result.chunks]
    prose = [(block.start, block.end) for block in parsed.walk() if block.prose]
    return ChunkedPage(url, html, result.markdown, spans, prose)


class PageRecorder:
    """Records every page a build chunks (`with PageRecorder() as pages:`), by wrapping
    `Chunker.chunk_page`; the build must chunk inline (MkDocs `workers: 0`, Sphinx `-j 1`)."""

    def __init__(self) -> None:
        self.pages: list[ChunkedPage] = []
        self._patch: Any = None

    def __enter__(self) -> list[ChunkedPage]:
        from mdchunk.chunking.chunker import Chunker

        original = Chunker.chunk_page
        pages = self.pages

        def chunk_page(chunker: Chunker, page: Any) -> Any:
            result = original(chunker, page)
            pages.append(chunked_page(page.url, page.html, result, chunker.site_url))
            return result

        self._patch = mock.patch.object(Chunker, "chunk_page", chunk_page)
        self._patch.start()
        return pages

    def __exit__(self, *exc: object) -> None:
        self._patch.stop()


def problems(pages: Sequence[ChunkedPage], *, chunks: bool = True) -> list[str]:
    """What does not round-trip, page by page: the page Markdown against its HTML, and each
    chunk against its part of the page."""
    found: list[str] = []
    for page in pages:
        problem = compare_page(page.html, page.markdown)
        if not problem and chunks:
            problem = check_chunks(page.markdown, page.spans, page.prose)
        if problem:
            found.append(f"{page.url}: {problem}")
    return found
