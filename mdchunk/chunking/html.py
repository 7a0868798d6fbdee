"""Rendered page HTML -> the page's Markdown, as blocks with exact offsets.

One pass over the lxml tree writes the Markdown and records, for every block, where its text
starts and ends. What the parser understands: Python-Markdown core (toc ids and permalinks,
tables, footnotes, definition lists, attr_list), pymdownx and Material markup (highlight with
and without line numbers, superfences titles, admonition and details, tabbed sets, arithmatex,
task lists, md_in_html) and Sphinx's HTML (sections, headerlinks, highlight-LANG, math).

lxml is used because the stdlib `html.parser` is about ten times slower on large pages.

The walk is mdchunk's hot path (the Node.js API docs: 72,000 elements, 35,000 blocks). The
commonest shapes take shortcuts, each noted where it is and each writing exactly what the
general path writes: elements without attributes, `<code>` holding only text, list items that
are one paragraph, paragraphs of text alone, headings of text and code, blocks without
children, highlighted code read in one libxml2 call.
"""

from __future__ import annotations

import functools
import html.parser
import re
from collections.abc import Iterable, Iterator, Sequence
from html import unescape
from typing import Any, cast
from urllib.parse import urljoin, urlsplit

import lxml.etree
from lxml.etree import _Element

from mdchunk.model import Block, BlockKind, ParsedPage

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
#: Elements whose content never reaches chunk text.
_DROP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "button", "nav", "iframe", "hr", "head",
     "form", "select", "textarea", "object", "embed", "canvas", "audio", "video", "meta", "link",
     "title"}
)
#: Classes of page chrome (permalinks, copy buttons, line numbers, navigation lists) and of
#: duplicates (MathJax previews repeat the TeX of their script, equation numbers are not TeX).
_DROP_CLASSES = frozenset(
    {"headerlink", "md-clipboard", "linenos", "linenodiv", "lineno", "footnote-backref", "toc",
     "toctree-wrapper", "md-annotation__index", "md-source-file", "md-tags", "copybtn",
     "visually-hidden", "screen-reader-text", "MathJax_Preview", "eqno"}
)
#: Footnote markers, left out of titles (a heading `Install[^1]` is titled `Install`).
_REF_CLASSES = frozenset({"footnote-ref", "footnote-reference"})
_TRANSPARENT_TAGS = frozenset(
    {"div", "section", "article", "main", "aside", "header", "footer", "figure", "body", "html",
     "center", "fieldset", "address", "span", "picture"}
)
_BLOCK_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "pre", "table", "blockquote",
     "div", "section", "article", "main", "aside", "header", "footer", "figure", "figcaption",
     "details", "summary", "hr", "body", "center", "fieldset", "address", "menu", "caption",
     "math"}
)
#: Elements an `_Inline` renders by their content alone (their own markup is block markup).
_CONTENT_TAGS = _BLOCK_TAGS.union(_HEADINGS.keys(), {"td", "th", "dt", "li"})
#: Inline elements that become code spans.
_CODE_TAGS = frozenset({"code", "kbd", "samp", "tt"})
#: Dropped whatever their attributes (`_is_dropped` of an element without any).
_DROP_OR_INPUT = _DROP_TAGS | {"input"}
_NO_CLASSES: frozenset[str] = frozenset()
_TABLE_PARTS = frozenset({"tr", "thead", "tbody", "tfoot", "caption", "colgroup", "col"})
#: Children that make a list item or definition loose (Python-Markdown wraps text in `<p>`).
_LOOSE_TAGS = frozenset({"p", "pre", "div", "blockquote", "table"})
_CONTAINERS = frozenset(
    {"list", "item", "admonition", "quote", "definitions", "footnotes", "tabs", "tab"}
)
#: Nesting beyond this is written as plain text, so hostile input cannot exhaust the stack
#: (libxml2 itself stops at 2048 levels with `huge_tree`; real pages stay far below this).
_MAX_DEPTH = 48
_WS = re.compile(r"[ \t\n\r\f\v]+")
#: The characters `_WS` matches, for `str.strip`.
_ASCII_WS = " \t\n\r\f\v"
_MATH_DELIMITERS = re.compile(r"^\s*(?:\\\[|\\\(|\$\$|\$)?(.*?)(?:\\\]|\\\)|\$\$|\$)?\s*$", re.S)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight)-([\w+#.-]+)$")
#: Text at a line start that a Markdown reader would take for a code fence or display math
#: (a fence Python-Markdown did not recognise stays text): it gets a backslash.
_FENCE_LIKE = re.compile(r"^(?=`{3}|~{3}|\$\$[ \t]*$)", re.M)
_FOOTNOTE_ID = re.compile(r"^#?fn[:\-_]?")
#: C0 controls (tab, newlines and form feed aside) and DEL: invisible, and NUL would become
#: U+FFFD. UTF-8 never uses these bytes inside a multi-byte character.
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x20), 0x7F])
#: libxml2 drops everything after `</html>`; a stray one must not hide the rest of the page.
_CLOSE_HTML = re.compile(rb"</html\s*>", re.I)
#: `huge_tree` lifts libxml2's limits of 256 levels of nesting (deeper text was silently lost:
#: 2,000 nested Markdown blockquotes are a valid page) and of 10 MB text nodes. The HTML parser
#: expands no custom entities, so the limits' other purpose does not apply.
_PARSER = lxml.etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True
)


def parse_html(html: str, *, page_url: str = "", site_url: str = "") -> ParsedPage:
    """Turn a page's rendered body HTML into its Markdown and blocks.

    Never raises on bad input: unclosed tags, stray `</body>`, control characters and lone
    surrogates are repaired or dropped the way a browser would show the page.

    Arguments:
        html: The page body, as the engine rendered it (not the whole themed page).
        page_url: The page's url relative to the site root (`guide/install/`).
        site_url: The site's public url; links become absolute against it. Without it links
            become root-relative (`/guide/install/#linux`).
    """
    return convert_tree(parse_tree(html), page_url=page_url, site_url=site_url)


def parse_tree(html: str) -> _Element | None:
    """The first half of `parse_html`: the page body as an lxml tree (None for a blank page)."""
    if not html.strip():
        return None
    data = html.encode("utf-8", "ignore")
    # One memchr per control byte finds none in a clean page in a third of the instructions
    # that deleting them takes (Node.js docs: 54 M instructions -> 18 M).
    if any(byte in data for byte in _CONTROL_BYTES):
        data = data.translate(None, _CONTROL_BYTES)
    if _CLOSE_HTML.search(data):
        data = _CLOSE_HTML.sub(b"", data)
    root = lxml.etree.fromstring(b"<html><body>" + data, _PARSER)
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in _PARSER.error_log):
        # libxml2 gave up (nesting beyond 2048 levels) and dropped the rest of the page.
        root = _parse_capped(data.decode("utf-8"))
    return root


def convert_tree(root: _Element | None, *, page_url: str = "", site_url: str = ""
                 ) -> ParsedPage:
    """The second half of `parse_html`: a tree from `parse_tree` as Markdown and blocks."""
    if root is None:
        return ParsedPage(markdown="", blocks=())
    site = site_url.rstrip("/") + "/" if site_url else "/"
    base = urljoin(site, page_url.lstrip("/"))
    writer = _Writer()
    _Renderer(writer, base).render_page(root)
    return writer.finish()


#: Elements that never hold content (no end tag).
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                        "meta", "param", "source", "track", "wbr"})
#: Nesting kept by `_parse_capped`; deeper start and end tags are ignored (their text stays).
_CAPPED_DEPTH = 512


class _CappedBuilder(html.parser.HTMLParser):
    """A tree from the stdlib tokenizer, nesting capped at `_CAPPED_DEPTH` (no recursion)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = lxml.etree.TreeBuilder()
        self.open: list[str] = ["html", "body"]
        self.ignored = 0  # start tags left open beyond the cap
        self.builder.start("html", {})
        self.builder.start("body", {})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not _is_name(tag):
            pass
        elif tag in _VOID_TAGS:
            self.handle_startendtag(tag, attrs)
        elif len(self.open) >= _CAPPED_DEPTH and not (
                tag in _DROP_TAGS and self.open[-1] not in _DROP_TAGS):
            self.ignored += 1  # (an element left out still opens beyond the cap: its text
        else:                  # must stay out, and it holds no nesting: its tags are ignored)
            self.builder.start(tag, {k: v or "" for k, v in attrs if _is_name(k)})
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if len(self.open) < _CAPPED_DEPTH and _is_name(tag):
            self.builder.start(tag, {k: v or "" for k, v in attrs if _is_name(k)})
            self.builder.end(tag)

    def handle_endtag(self, tag: str) -> None:
        if len(self.open) > _CAPPED_DEPTH and self.open[-1] == tag:
            self.builder.end(self.open.pop())  # an element left out, opened beyond the cap
        elif self.ignored:
            self.ignored -= 1
        elif tag in self.open[2:]:
            while self.open[-1] != tag:
                self.builder.end(self.open.pop())
            self.builder.end(self.open.pop())

    def handle_data(self, data: str) -> None:
        self.builder.data(data)

    def finish(self) -> _Element:
        self.close()
        while self.open:
            self.builder.end(self.open.pop())
        return self.builder.close()


def _is_name(name: str) -> bool:
    return bool(_ATTRIBUTE_NAME.fullmatch(name))


_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_:][-\w.:]*")


def _parse_capped(text: str) -> _Element:
    """Parse HTML that libxml2 refuses (too deep): the stdlib tokenizer, nesting capped."""
    builder = _CappedBuilder()
    builder.feed(text)
    return builder.finish()


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


class _Writer:
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
        """A block without children: `begin`, `write(text)` and `end` in one step.

        Most blocks are leaves: without an `_Open` and the search for the end a paragraph takes
        0.9 us instead of 1.5 us.
        """
        parts = self.parts
        count, before, line_start, prefix = len(parts), self.pos, self.line_start, self.prefix
        start = before
        if self.filled[-1]:  # (`begin`, inlined)
            gap = "\n" + prefix.rstrip() + "\n" if blank else "\n"
            parts.append(gap)
            start += len(gap)
            self.line_start = True
        if self.line_start and prefix:
            parts.append(prefix)
            start += len(prefix)
            self.line_start = False
        if "\n" in text:
            self.pos = start
            self.write(text)
        elif text:  # (`write` of one line, inlined)
            if self.line_start:
                self.line_start = False
                text = prefix + text
            parts.append(text)
            self.pos = start + len(text)
        else:
            self.pos = start
        # One part or none was added: the block ends where that part's whitespace starts.
        end = start + len(parts[-1].rstrip()) if self.pos > start else start
        if end == start:
            del parts[count:]
            self.pos, self.line_start = before, line_start
            return
        self.siblings.append(
            Block(kind, start, end, (), level, title, anchor, language, prose))
        if math:
            self.math.append((start, math))
        self.filled[-1] = True

    def paragraph(self, text: str, blank: bool, math: list[str] | None) -> None:
        """`leaf("paragraph", text, blank=blank, prose=True, math=math)` of a text from
        `_paragraph_text` or `_text_paragraph` (stripped, not empty: nothing to take back).

        The commonest block, without `leaf`'s keywords and checks: 1.4 -> 0.8 us a paragraph.
        """
        parts = self.parts
        prefix = self.prefix
        start = self.pos
        line_start = self.line_start
        if self.filled[-1]:
            gap = ("\n" + prefix.rstrip() + "\n" if prefix else "\n\n") if blank else "\n"
            parts.append(gap)
            start += len(gap)
            line_start = True
        if line_start and prefix:
            parts.append(prefix)
            start += len(prefix)
        if "\n" in text:
            self.pos = start
            self.line_start = False
            self.write(text)
            end = start + len(parts[-1].rstrip())
        else:
            parts.append(text)
            self.pos = end = start + len(text)
            self.line_start = False
        self.siblings.append(
            Block("paragraph", start, end, (), 0, "", "", "", True))
        if math:
            self.math.append((start, math))
        self.filled[-1] = True

    def item(self, marker: str, indent: str, text: str, math: list[str] | None) -> bool:
        """A list item that is one paragraph: what `begin("item")`, `write(marker)`,
        `leaf("paragraph", text)` (with `indent` as the prefix) and `end` write, when the item
        is not set off by a blank line. `text` comes from `_paragraph_text` (stripped); False
        when it is empty (the item is dropped)."""
        if not text:
            return False
        parts = self.parts
        outer = self.prefix
        start = self.pos
        line_start = self.line_start
        if self.filled[-1]:
            parts.append("\n")
            start += 1
            line_start = True
        if line_start and outer:
            parts.append(outer)
            start += len(outer)
        parts.append(marker)
        inner = start + len(marker)
        self.line_start = False
        if "\n" in text:
            self.pos = inner
            self.prefix = indent
            self.write(text)  # (one part: the text is not empty)
            self.prefix = outer
            end = inner + len(parts[-1].rstrip())
        else:  # (`write` of one line, inlined)
            parts.append(text)
            self.pos = end = inner + len(text)
        paragraph = Block("paragraph", inner, end, (), 0, "", "", "", True)
        if math:
            self.math.append((inner, math))
        self.siblings.append(
            Block("item", start, end, (paragraph,), 0, "", "", "", False))
        self.filled[-1] = True
        return True

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


def _classes(element: _Element) -> set[str]:
    value = element.get("class")
    return set(value.split()) if value else set()


def _is_dropped(element: _Element) -> bool:
    return _kept_classes(element) is None


def _kept_classes(element: _Element) -> Sequence[str] | None:
    """The element's class names, or None when its content never reaches chunk text.

    Dropped: `_DROP_TAGS` (math scripts aside), inputs other than checkboxes, elements marked
    `data-search-exclude` or `hidden`, and `_DROP_CLASSES`. One look at the attribute names
    first: most elements have none (0.056 s -> 0.022 s over the 72,000 elements of the Node.js
    docs, with the class names the callers used to split again).
    """
    tag = element.tag
    keys = element.keys()
    if not keys:
        return None if tag in _DROP_OR_INPUT else ()
    if tag in _DROP_TAGS and not _is_math_script(element):
        return None
    if "data-search-exclude" in keys or "hidden" in keys:
        return None
    if tag == "input" and element.get("type") != "checkbox":
        return None
    return _class_names(element.get("class")) if "class" in keys else ()


@functools.lru_cache(maxsize=4096)
def _class_names(value: str) -> tuple[str, ...] | None:
    """The names in a class attribute, or None when one is in `_DROP_CLASSES`.

    Pages repeat a few class attributes (highlighting tokens, admonition kinds) thousands of
    times: cached.
    """
    names = tuple(value.split())
    return names if _DROP_CLASSES.isdisjoint(names) else None


def _is_math_script(element: _Element) -> bool:
    return element.tag == "script" and (element.get("type") or "").startswith("math/tex")


def _script_tex(script: _Element) -> str:
    """The TeX of a `math/tex` script: arithmatex writes it HTML-escaped (`&amp;`)."""
    return unescape(script.text or "")


def _is_display_math_script(element: _Element) -> bool:
    return _is_math_script(element) and "mode=display" in (element.get("type") or "")


def _code_language(*elements: _Element | None) -> str:
    for element in elements:
        if element is None:
            continue
        value = element.get("class")
        language = _class_language(value) if value else ""
        if language:
            return language
        language = element.get("data-lang") or element.get("data-language") or ""
        if language:
            return str(language)
    return ""


@functools.lru_cache(maxsize=1024)
def _class_language(value: str) -> str:
    """The language a class attribute names (`language-js`), or "".

    Cached: a page names a few languages on hundreds of code blocks.
    """
    for name in value.split():
        match = _LANGUAGE_CLASS.match(name)
        if match and match.group(1) not in {"default", "none", "text"}:
            return match.group(1)
    return ""


def _strip_math(text: str) -> str:
    match = _MATH_DELIMITERS.match(text)
    return (match.group(1) if match else text).strip()


class _Renderer:
    """Walks the lxml tree, writing Markdown through a `_Writer`."""

    __slots__ = ("base_url", "depth", "excluded_level", "section_level", "w")

    def __init__(self, writer: _Writer, base_url: str) -> None:
        self.w = writer
        self.base_url = base_url
        self.excluded_level = 0  # > 0 while skipping a section marked data-search-exclude
        self.section_level = 0  # level of the last top-level heading (API objects go below)
        self.depth = 0  # nesting of `_children` calls, bounded by _MAX_DEPTH

    # -- block level ---------------------------------------------------------------------

    def render_page(self, root: _Element) -> None:
        self._children(root, top=True, tight=False)

    def _children(self, element: _Element, *, top: bool, tight: bool,
                  skip: _Element | None = None) -> None:
        """Write the block content of `element`, loose inline text gathered into paragraphs.

        Inline content goes straight into an `_Inline` (a run), written out as a paragraph
        before the next block and at the end.
        """
        if self.depth >= _MAX_DEPTH:
            flat = _Inline(self.base_url, [], self.depth)
            flat.text(_plain_text(element))
            self._run(flat, top=top, tight=tight)
            return
        self.depth += 1
        # Whitespace before any inline content (the newlines between blocks) starts no run: an
        # `_Inline` drops it anyway, and most runs would then hold nothing at all.
        run: _Inline | None = None
        text = element.text
        if text and text.strip(_ASCII_WS):
            run = _Inline(self.base_url, [], self.depth)
            run.text(text)
        for child in element:
            tag = child.tag
            if tag in _BLOCK_TAGS or (tag == "script" and _is_display_math_script(child)):
                if child is not skip:
                    if run is not None:
                        self._run(run, top=top, tight=tight)
                        run = None
                    self._block(child, top=top, tight=tight)
            elif child is skip or not isinstance(tag, str):  # entities
                pass
            elif not (top and self.excluded_level):
                if run is None:
                    run = _Inline(self.base_url, [], self.depth)
                run.node(child)
            text = child.tail
            if text and (run is not None or text.strip(_ASCII_WS)):
                if run is None:
                    run = _Inline(self.base_url, [], self.depth)
                run.text(text)
        if run is not None:
            self._run(run, top=top, tight=tight)
        self.depth -= 1

    def _block(self, element: _Element, *, top: bool, tight: bool) -> None:
        tag = element.tag
        if tag == "p" and not element.keys():  # the commonest block, decided at once
            self._paragraph(element, top=top, tight=tight)
            return
        level = _HEADINGS.get(tag)
        if level:
            self._heading(element, level, top=top, tight=tight)
            return
        # (Most blocks have no attribute: no call needed to know they are kept.)
        names = _kept_classes(element) if tag in _DROP_OR_INPUT or element.keys() else ()
        if names is None:
            return
        if top and self.excluded_level:  # only look for the heading that ends the exclusion
            if tag in _TRANSPARENT_TAGS:
                self._children(element, top=top, tight=tight)
            return
        classes = set(names) if names else _NO_CLASSES
        if tag in {"p", "figcaption", "caption", "summary"}:
            self._paragraph(element, top=top, tight=tight)
        elif tag in {"ul", "ol", "menu"}:
            self._list(element, tight=tight)
        elif tag == "pre" or classes & {"highlight", "codehilite", "highlighttable"} or any(
            name.startswith("highlight-") for name in classes
        ):
            self._code(element, tight=tight)
        elif tag == "table":
            self._table(element, tight=tight)
        elif tag == "math" or classes & {"arithmatex", "math"} or _is_math_script(element):
            self._math(element, tight=tight)
        elif tag == "blockquote":
            self._container("quote", element, title="", tight=tight)
        elif tag == "details" or "admonition" in classes:
            self._admonition(element, tight=tight)
        elif "tabbed-set" in classes:
            self._tabs(element, tight=tight)
        elif classes & {"footnote-list", "citation-list"}:
            self._notes(element, tight=tight)
        elif classes & {"footnote", "footnotes"}:
            self._footnotes(element, tight=tight)
        elif tag == "dl" and any("sig-object" in _classes(child) for child in element
                                 if child.tag == "dt"):
            self._api_objects(element, top=top, tight=tight)
        elif tag == "dl":
            self._definitions(element, tight=tight)
        elif "code-block-caption" in classes:
            pass  # Sphinx: the title of the code block that follows
        else:
            self._children(element, top=top, tight=tight)

    def _heading(self, element: _Element, level: int, *, top: bool, tight: bool) -> None:
        if top:
            if self.excluded_level and level > self.excluded_level:
                return
            self.excluded_level = 0
            if element.get("data-search-exclude") is not None:
                self.excluded_level = level
                return
        if _kept_classes(element) is None:
            return
        anchor = _heading_anchor(element)
        itself = f"#{anchor}" if anchor else ""
        run = _Inline(self.base_url, None, self.depth, itself)
        title = run.flat_content(element) if self.depth < _MAX_DEPTH else None
        if title is not None:
            text = run.result() or anchor  # (no line breaks in text and code spans)
        else:
            text = self._inline(element, itself=itself).replace("\n", " ") or anchor
        if not text:
            return
        if top:
            self.section_level = level
        if title is None:
            title = _title_text(element, itself=itself)
        self.w.leaf("heading", "#" * level + " " + text, blank=not tight, level=level,
                    title=title or text, anchor=anchor)

    def _api_objects(self, element: _Element, *, top: bool, tight: bool) -> None:
        """Sphinx object descriptions (`dl.py`, `dl.c`, ... from autodoc or domain directives).

        Each signature with an id is a heading one level below its section, anchored at the
        `dt` id and titled with the object's name, so a chunk about a function links to it and
        its headerPath ends with the function's name. Nested objects (methods of a class) go
        one level deeper.
        """
        outer = self.section_level
        level = min(outer + 1, 6)
        for child in element:
            if child.tag == "dt":
                self._signature(child, level, tight=tight)
            elif child.tag == "dd":
                self.section_level = level
                self._children(child, top=top, tight=tight)
                self.section_level = outer

    def _signature(self, element: _Element, level: int, *, tight: bool) -> None:
        signature = _WS.sub(" ", _plain_text(element)).strip()
        if not signature:
            return
        ticks = "`" * (_longest_backticks(signature) + 1)
        pad = " " if signature.startswith("`") or signature.endswith("`") else ""
        code = f"{ticks}{pad}{signature}{pad}{ticks}"
        anchor = element.get("id") or ""
        if not anchor:  # :no-index: objects have no id: a paragraph, not a section
            self.w.leaf("paragraph", code, blank=not tight, prose=True)
            return
        names: Any = element.xpath(".//*[contains(concat(' ', @class, ' '), ' sig-prename ') "
                                   "or contains(concat(' ', @class, ' '), ' sig-name ')]")
        title = "".join(_plain_text(name) for name in names).strip() or signature
        self.w.leaf("heading", "#" * level + " " + code, blank=not tight, level=level,
                    title=_WS.sub(" ", title), anchor=anchor)

    def _paragraph(self, element: _Element, *, top: bool, tight: bool) -> None:
        """A paragraph of the content of `element` (`<p>`, `<dt>`, a caption...)."""
        if top and self.excluded_level:
            return
        if not len(element):  # only text (a quarter of all paragraphs): no `_Inline` needed
            text, math = _text_paragraph(element.text), None
        else:
            run = _Inline(self.base_url, [], self.depth)
            run.content(element)  # (what `node` does with these elements)
            text, math = _paragraph_text(run), run.math  # (`_run`, inlined)
        if text:
            self.w.paragraph(text, not tight, math)

    def _run(self, run: _Inline, *, top: bool, tight: bool) -> None:
        """Write the inline content collected in `run` as a paragraph."""
        if top and self.excluded_level:
            return
        text = _paragraph_text(run)
        if text:
            self.w.paragraph(text, not tight, run.math)

    def _list(self, element: _Element, *, tight: bool) -> None:
        ordered = element.tag == "ol"
        try:
            number = int(element.get("start") or 1)
        except ValueError:
            number = 1
        # Loose: an item holds a block like `<p>` (Sphinx marks compact lists `simple`, their
        # items still wrap text in <p>). Plain: an item holds no block at all.
        simple = "simple" in _classes(element)
        loose = False
        # Most items of a tight list are one paragraph, written in one step as `_children` would
        # write them (8,000 items: 0.282 s -> 0.259 s for all of the Node.js docs). Each item is
        # rendered while it is scanned for blocks, so its children are read once (2,700 lists in
        # the Node.js docs: 23 -> 20.5 us a list). Each item, with its paragraph (text and inline
        # math) when it holds no block:
        items: list[tuple[_Element, str | None, list[str] | None]] = []
        for item in element:
            if item.tag != "li" or (item.keys() and _kept_classes(item) is None):
                continue  # (an `li` without attributes is never dropped)
            text: str | None = None
            math: list[str] | None = None
            if loose or self.depth >= _MAX_DEPTH:
                first = _first_block(item)
            elif not len(item):  # only text: no `_Inline` needed
                first, text = None, _text_paragraph(item.text)
            else:
                run = _Inline(self.base_url, [], self.depth)
                first = run.content(item, until_block=True)
                if first is None:
                    text, math = _paragraph_text(run), run.math
            if first is not None:
                loose = loose or (not simple and _holds_loose(first))
            items.append((item, text, math))
        block = self.w.begin("list", blank=not tight)
        outer = self.w.prefix
        for item, text, math in items:
            marker = f"{number}. " if ordered else "- "
            if text is not None and not loose:
                if self.w.item(marker, outer + " " * len(marker), text, math):
                    number += 1
                continue
            entry = self.w.begin("item", blank=loose)
            self.w.write(marker)
            self.w.prefix = outer + " " * len(marker)
            self._children(item, top=False, tight=not loose)
            self.w.prefix = outer
            if self.w.end(entry) is not None:
                number += 1
        self.w.end(block)

    def _code(self, element: _Element, *, tight: bool) -> None:
        pre, caption = _find_pre(element)
        if pre is None:
            self._children(element, top=False, tight=tight)
            return
        text = _code_text(pre)
        if not text or text.isspace():
            return
        code = _first_code(pre)
        language = _code_language(code, pre, pre.getparent(), element)
        if caption is None:
            previous = element.getprevious()
            if previous is not None and "code-block-caption" in _classes(previous):
                caption = previous
        title = _title_text(caption) if caption is not None else ""
        # (`max(3, longest run + 1)` backticks: the runs are searched only when one is that long)
        fence = "`" * (_longest_backticks(text) + 1) if "```" in text else "```"
        info = language + (f' title="{title}"' if title else "")
        self.w.leaf("code", f"{fence}{info}\n{text}\n{fence}", blank=not tight,
                    language=language, title=title)

    def _math(self, element: _Element, *, tight: bool) -> None:
        tex = _strip_math(_script_tex(element) if element.tag == "script" else _plain_text(element))
        if not tex:
            return
        self.w.leaf("math", f"$$\n{tex}\n$$", blank=not tight)

    def _table(self, element: _Element, *, tight: bool) -> None:
        for child in element:  # stray blocks in a table: a browser shows them before it
            if isinstance(child.tag, str) and child.tag not in _TABLE_PARTS:
                self._block(child, top=False, tight=tight)
        rows: list[list[str]] = []
        aligns: list[str] = []
        has_header = False
        for row in _table_rows(element):
            cells = [cell for cell in row if cell.tag in {"td", "th"}]
            if not cells:
                continue
            if not rows:
                aligns = [_align(cell) for cell in cells]
                section = row.getparent()
                has_header = (section is not None and section.tag == "thead") or all(
                    cell.tag == "th" for cell in cells
                )
            rows.append([_cell_text(self._inline(cell)) for cell in cells])
        if not any(any(row) for row in rows):
            return
        width = max(len(row) for row in rows)
        aligns += ["---"] * (width - len(aligns))
        if not has_header:
            rows.insert(0, [""] * width)
        lines = []
        for index, texts in enumerate(rows):
            lines.append("| " + " | ".join(texts + [""] * (width - len(texts))) + " |")
            if index == 0:
                lines.append("| " + " | ".join(aligns[:width]) + " |")
        caption = element.find("caption")
        if caption is not None:  # visible text that says what the table holds
            self._paragraph(caption, top=False, tight=tight)
        self.w.leaf("table", "\n".join(lines), blank=not tight,
                    title=_title_text(caption) if caption is not None else "")

    def _admonition(self, element: _Element, *, tight: bool) -> None:
        title_element = next(
            (child for child in element
             if child.tag == "summary" or "admonition-title" in _classes(child)),
            None,
        )
        title, plain = "", ""
        if title_element is not None:
            title = self._inline(title_element).replace("\n", " ")
            plain = _title_text(title_element)
        if not title:  # `!!! note ""`: the kind, which the page shows as icon and colour
            kinds = [name for name in (element.get("class") or "").split() if name != "admonition"]
            title = plain = kinds[0].capitalize() if kinds else ""
        self._container("admonition", element, title=title, plain=plain or title, tight=tight,
                        skip=title_element)

    def _container(self, kind: BlockKind, element: _Element, *, title: str, tight: bool,
                   plain: str = "", skip: _Element | None = None) -> None:
        """A quoted container: blockquote, admonition, details (`> **Title**` then the body)."""
        block = self.w.begin(kind, blank=not tight)
        block.title = plain
        outer = self.w.prefix
        self.w.write("> ")
        self.w.prefix = outer + "> "
        if title:
            self.w.write(f"**{title}**")
            self.w.filled[-1] = True
        self._children(element, top=False, tight=False, skip=skip)
        self.w.prefix = outer
        self.w.end(block)

    def _tabs(self, element: _Element, *, tight: bool) -> None:
        labels: list[_Element] = []
        bodies: list[_Element] = []
        for child in element:  # both styles of pymdownx.tabbed, without searching the subtree
            classes = _classes(child)
            if child.tag == "label":
                labels.append(child)
            elif "tabbed-labels" in classes:
                labels.extend(label for label in child if label.tag == "label")
            elif "tabbed-content" in classes:
                blocks = [body for body in child if "tabbed-block" in _classes(body)]
                bodies.extend(blocks or [child])
        block = self.w.begin("tabs", blank=not tight)
        for index, body in enumerate(bodies):
            label = _title_text(labels[index]) if index < len(labels) else ""
            tab = self.w.begin("tab", blank=True)
            tab.title = label
            if label:
                self.w.write(f"**{label}**")
                self.w.filled[-1] = True
            self._children(body, top=False, tight=False)
            self.w.end(tab)
        self.w.end(block)

    def _footnotes(self, element: _Element, *, tight: bool) -> None:
        notes = [
            item for listing in element if listing.tag == "ol"
            for item in listing if item.tag == "li" and (item.get("id") or "").startswith("fn")
        ]
        if not notes:
            self._children(element, top=False, tight=tight)
            return
        block = self.w.begin("footnotes", blank=not tight)
        outer = self.w.prefix
        for index, note in enumerate(notes):
            label = _FOOTNOTE_ID.sub("", note.get("id") or "") or str(index + 1)
            item = self.w.begin("item", blank=True)
            self.w.write(f"[^{label}]: ")
            self.w.prefix = outer + "    "
            self._children(note, top=False, tight=False)
            self.w.prefix = outer
            self.w.end(item)
        self.w.end(block)

    def _notes(self, element: _Element, *, tight: bool) -> None:
        """docutils footnotes and citations (`aside.footnote`, `div.citation`): `[^label]: ...`."""
        notes = [child for child in element if _classes(child) & {"footnote", "citation"}]
        block = self.w.begin("footnotes", blank=not tight)
        outer = self.w.prefix
        for note in notes:
            label_element = next((c for c in note if "label" in _classes(c)), None)
            label = _note_label(_plain_text(label_element) if label_element is not None else "")
            item = self.w.begin("item", blank=True)
            self.w.write(f"[^{label or note.get('id') or '?'}]: ")
            self.w.prefix = outer + "    "
            self._children(note, top=False, tight=False, skip=label_element)
            self.w.prefix = outer
            self.w.end(item)
        self.w.end(block)

    def _definitions(self, element: _Element, *, tight: bool) -> None:
        entries: list[list[_Element]] = []
        for child in element:
            if child.tag == "dt" and (not entries or any(e.tag == "dd" for e in entries[-1])):
                entries.append([child])
            elif child.tag in {"dt", "dd"}:
                if not entries:
                    entries.append([])
                entries[-1].append(child)
        block = self.w.begin("definitions", blank=not tight)
        outer = self.w.prefix
        for entry in entries:
            item = self.w.begin("item", blank=True)
            for part in entry:
                if part.tag == "dt":
                    self._paragraph(part, top=False, tight=True)
                    continue
                filled = self.w.filled[-1]
                mark = self.w.mark()
                if filled:
                    self.w.separate(blank=False)
                self.w.write(": ")
                written = self.w.pos
                self.w.prefix = outer + "  "
                self.w.filled[-1] = False
                self._children(part, top=False, tight=not _is_loose(part))
                self.w.prefix = outer
                if self.w.pos == written:  # an empty definition: take back its marker
                    self.w.reset(mark)
                    self.w.filled[-1] = filled
                else:
                    self.w.filled[-1] = True
            self.w.end(item)
        self.w.end(block)

    # -- inline level --------------------------------------------------------------------

    def _inline(self, element: _Element, *, itself: str = "") -> str:
        """Inline Markdown of `element`, rendered with its content (not its tail).

        `itself` is a heading's own `#anchor`: links to it are permalinks or toc anchorlinks.
        """
        out = _Inline(self.base_url, None, self.depth, itself)
        out.node(element)
        return out.result()


class _Inline:
    """Collects the inline Markdown of one paragraph, heading or cell.

    `parts` never holds an empty string, so `parts[-1][-1]` is the last character so far.
    """

    __slots__ = ("base_url", "depth", "itself", "lead", "math", "parts")

    def __init__(self, base_url: str, math: list[str] | None, depth: int,
                 itself: str = "") -> None:
        self.parts: list[str] = []
        self.base_url = base_url
        self.math = math
        self.depth = depth
        self.itself = itself
        self.lead = False  # the text began with whitespace (dropped here, kept by a wrapper)

    def result(self) -> str:
        text = "".join(self.parts)
        if "\n" not in text:  # line breaks (`<br>`) are rare
            return text.strip()
        return _strip_lines(text)

    def text(self, text: str) -> None:
        spaced = text.replace("\n", " ")  # (`_collapse`, inlined: the commonest call)
        if not spaced.isprintable():
            text = _WS.sub(" ", text)
        elif "  " in spaced:
            text = _SPACES.sub(" ", spaced)
        else:
            text = spaced
        if text[:1] == " ":
            parts = self.parts
            if not parts:
                self.lead = True
                text = text[1:]
            elif parts[-1][-1] in " \n":
                text = text[1:]
        if text:
            self.parts.append(text)

    def literal(self, text: str) -> None:
        if text:
            self.parts.append(text)

    def content(self, element: _Element, *, until_block: bool = False) -> _Element | None:
        """The element's children and text, without its own markup and without its tail.

        `until_block`: as `_Renderer._children` takes the content of an element that holds no
        block, up to the first block (see `_first_block`), which is returned.
        """
        if self.depth >= _MAX_DEPTH:
            self.text(_plain_text(element))
            return None
        self.depth += 1
        parts = self.parts
        text = element.text
        if text:
            self.text(text)
        for child in element:
            tag = child.tag
            if tag in _CODE_TAGS and not len(child) and not child.keys():
                # `<code>name</code>`, half of all elements in API docs (31,000 in the Node.js
                # docs: 0.098 s -> 0.013 s): what `element` does with it, without the detour.
                text = child.text
                if text:
                    text = _bare_code_span(text)
                    if text:
                        parts.append(text)
            elif not until_block:
                if isinstance(tag, str):
                    self.element(child)
            elif tag in _BLOCK_TAGS or tag == "script":  # (as `_first_block`)
                self.depth -= 1
                return child
            elif tag in _CONTENT_TAGS:  # (as `node`)
                self.content(child)
            elif isinstance(tag, str):
                self.element(child)
            text = child.tail
            if text:
                self.text(text)
        self.depth -= 1
        return None

    def flat_content(self, element: _Element) -> str | None:
        """`content` of an element whose children are all code without attributes or dropped
        elements (most headings), and its text as `_title_text` gives it; None (and the
        content unfinished) for any other element.

        One reading of the children instead of two (markup, then title): 4,300 headings in the
        Node.js docs, about 2 us less each.
        """
        text = element.text
        plain = [text] if text else []
        if text:
            self.text(text)
        for child in element:
            tag = child.tag
            if tag in _CODE_TAGS and not len(child) and not child.keys():
                text = child.text
                if text:
                    plain.append(text)
                    self.literal(_bare_code_span(text))
            elif tag == "script" or not isinstance(tag, str):
                return None
            else:  # only dropped elements (a headerlink, dropped by its class alone) are flat
                value = child.get("class")
                if (not value or _class_names(value) is not None) and (
                        _kept_classes(child) is not None):
                    return None
            text = child.tail
            if text:
                plain.append(text)
                self.text(text)
        return _collapse("".join(plain)).strip()

    def node(self, element: _Element) -> None:
        """An element of a run: rendered with its content, its own markup if inline."""
        tag = element.tag
        if tag in _CONTENT_TAGS:
            self.content(element)
        elif tag in _CODE_TAGS and not element.keys() and not len(element):
            code = _bare_code(element)  # (see `content`)
            if code:
                self.parts.append(code)
        else:
            self.element(element)

    def element(self, element: _Element) -> None:
        tag = element.tag
        if tag == "script" and _is_math_script(element):
            self._math(_script_tex(element))
            return
        names = _kept_classes(element)
        if names is None:
            return
        if names and ("arithmatex" in names or "math" in names):
            self._math(_plain_text(element))
        elif tag in _CODE_TAGS:
            self._code(element)
        elif tag == "a":
            self._link(element, names)
        elif tag == "input":
            self.literal("[x] " if element.get("checked") is not None else "[ ] ")
        elif tag == "br":
            self.literal("\n")
        elif tag == "img":
            self._image(element, names)
        elif tag in {"strong", "b"}:
            self._wrap(element, "**")
        elif tag in {"em", "i", "cite", "dfn", "var"} and "sig-param" not in names:
            self._wrap(element, "*")  # (Sphinx sets signature parameters in <em>: not emphasis)
        elif tag in {"del", "s", "strike"}:
            self._wrap(element, "~~")
        elif "classifier" in names:  # docutils: `term : classifier`, the colon is CSS
            self.literal(" : ")
            self.content(element)
        elif tag in _BLOCK_TAGS or tag in {"li", "dt", "dd", "td", "th", "tr"}:
            self._gap()  # blocks inside a table cell or title: keep their words apart
            self.content(element)
            self._gap()
        else:
            self.content(element)

    def _gap(self) -> None:
        if self.parts and self.parts[-1][-1] not in " \n":
            self.parts.append(" ")

    def _inner(self, element: _Element) -> tuple[str, bool, bool]:
        """The inline Markdown of `element`'s content, and whether it began and ended with a
        space (which a wrapper keeps outside its markup)."""
        if not len(element):  # only text (most links and emphasis): no `_Inline` needed
            text = element.text
            if not text:
                return "", False, False
            text = _collapse(text)
            lead = text[0] == " "
            if lead:
                text = text[1:]
            return text.strip(), lead, text[-1:] == " "
        inner = _Inline(self.base_url, self.math, self.depth, self.itself)
        inner.content(element)
        parts = inner.parts
        return inner.result(), inner.lead, bool(parts) and parts[-1][-1] == " "

    def _around(self, lead: bool, trail: bool, markdown: str) -> None:
        """Append `markdown`, with the spaces an inner text had at its edges outside it."""
        parts = self.parts
        if lead:
            if not parts:
                self.lead = True
            elif parts[-1][-1] not in " \n":
                parts.append(" ")
        if markdown:
            parts.append(markdown)
        if trail:
            parts.append(" ")

    def _wrap(self, element: _Element, marker: str) -> None:
        text, lead, trail = self._inner(element)
        if text:
            self._around(lead, trail, f"{marker}{text}{marker}")

    def _code(self, element: _Element) -> None:
        self.literal(_code_span(_code_text(element)))

    def _math(self, tex: str) -> None:
        tex = _strip_math(tex)
        if tex:
            snippet = f"${tex}$"
            if self.math is not None:
                self.math.append(snippet)
            self.literal(snippet)

    def _image(self, element: _Element, names: Sequence[str]) -> None:
        alt = _WS.sub(" ", element.get("alt") or "").strip()
        src = (element.get("src") or "").strip()
        if src.startswith("data:") or any("emoji" in name for name in names):
            self.text(alt)  # inline image data means nothing as text; an emoji is its alt
        elif src:
            self.literal(f"![{alt}]({self._url(src)})")

    def _link(self, element: _Element, names: Sequence[str]) -> None:
        href = element.get("href")
        parent = element.getparent()
        if "footnote-ref" in names or (
                parent is not None and (parent.get("id") or "").startswith("fnref")):
            label = _FOOTNOTE_ID.sub("", href or "") or _WS.sub("", _itertext(element))
            self.literal(f"[^{label}]")
            return
        if "footnote-reference" in names:  # docutils: the visible label, [1]
            self.literal(f"[^{_note_label(_itertext(element))}]")
            return
        text, lead, trail = self._inner(element)
        text = text.replace("\n", " ")
        if not text:
            return
        if self.itself and href == self.itself:  # a heading's link to itself: no link
            if _has_words(text):  # toc's anchorlink, around the title (a permalink is a symbol)
                self._around(lead, trail, text)
        elif not href or href.strip().startswith("javascript:"):
            self._around(lead, trail, text)
        else:
            self._around(lead, trail, f"[{text}]({self._url(href)})")

    def _url(self, href: str) -> str:
        return _link_url(self.base_url, href)


@functools.lru_cache(maxsize=1024)
def _link_url(base_url: str, href: str) -> str:
    """A link target as the Markdown has it: absolute, or joined to the page's url.

    Cached: pages link to the same places again and again, and `urljoin` is slow.
    """
    href = href.strip()
    try:
        if urlsplit(href).scheme or href.startswith("//"):
            return href
        joined = urljoin(base_url, href)
    except ValueError:  # not a url (`http://[x`: a bracket that opens no IPv6 address)
        return href.replace(" ", "%20").replace(")", "%29")
    return joined.replace(" ", "%20").replace(")", "%29")


def _collapse(text: str) -> str:
    """`_WS.sub(" ", text)`: whitespace runs as one space.

    Running text mostly has single spaces and line breaks, which a replace does exactly (when
    no two spaces meet and nothing but spaces is left unprintable); the regex visits every
    space: 0.070 s -> 0.040 s over the 117,000 text nodes of the Node.js docs. Printable text
    holds no whitespace but spaces (tabs, form feeds, no-break spaces are not printable): its
    runs of spaces are found faster by a literal search (10,000 indented texts of the Node.js
    docs: 18 -> 8 ms).
    """
    spaced = text.replace("\n", " ")
    if not spaced.isprintable():
        return _WS.sub(" ", text)
    if "  " in spaced:
        return _SPACES.sub(" ", spaced)
    return spaced


_SPACES = re.compile("  +")


def _bare_code(element: _Element) -> str:
    """`_Inline._code` of a code element without attributes or children."""
    text = element.text
    return _bare_code_span(text) if text else ""


def _bare_code_span(text: str) -> str:
    """`_code_span` of the text of a code element (not empty), its last newline dropped."""
    if "`" not in text and "\n" not in text:
        return f"`{text}`"
    return _code_span(text[:-1] if text[-1] == "\n" else text)


def _code_span(text: str) -> str:
    """`text` as inline code, line breaks as spaces; "" for no text."""
    text = text.replace("\n", " ")
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    ticks = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _itertext(element: _Element) -> str:
    """All text inside `element`, its tail left out (`itertext`: str for a tree parsed from
    text, as every tree here is)."""
    return "".join(cast("Iterator[str]", element.itertext()))


def _plain_text(element: _Element) -> str:
    """Text of `element` without chrome (permalinks, line numbers, hidden parts).

    Iterative (an explicit stack), so any nesting depth is fine.
    """
    count = len(element)
    if not count:
        return element.text or ""
    if count == 1:  # (most code blocks: a `<pre>` holding one `<code>`)
        only = element[0]
        tag = only.tag
        if (isinstance(tag, str) and tag not in _DROP_OR_INPUT and not len(only)
                and _kept_classes(only) is not None):
            return (element.text or "") + (only.text or "") + (only.tail or "")
    if _all_text_kept(element):
        # All its text: one C-level call instead of a walk in Python (highlighted code, a span
        # per token: 0.073 s -> 0.032 s, check included, over the Material build of the Node.js
        # docs). Like the walk, libxml2 leaves out the text of comments but not their tails.
        return _all_text(element)
    parts: list[str] = [element.text] if element.text else []
    stack: list[tuple[Iterator[_Element], _Element | None]] = [(iter(element), None)]
    while stack:
        children, owner = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if owner is not None and owner.tail:
                parts.append(owner.tail)
            continue
        if not isinstance(child.tag, str) or _is_dropped(child):
            pass
        elif child.tag == "script":  # a math script (others are dropped)
            parts.append(_script_tex(child))
        else:
            if child.text:
                parts.append(child.text)
            stack.append((iter(child), child))  # its tail follows its children
            continue
        if child.tail:
            parts.append(child.tail)
    return "".join(parts)


def _all_text(element: _Element) -> str:
    """The text of `element` and all its descendants (not its tail).

    libxml2's node content, what XPath `string()` gives, at a quarter of the cost (0.58 ->
    0.15 us a call).
    """
    return str(lxml.etree.tostring(element, method="text", encoding=str, with_tail=False))


def _all_text_kept(element: _Element) -> bool:
    """True when `_plain_text` keeps all text inside `element` as it is.

    That is, nothing inside is dropped (see `_kept_classes`) and there is no math script
    (its TeX is unescaped).
    """
    for node in element.iterdescendants():
        if node.tag in _DROP_OR_INPUT:
            return False
        items = node.items()
        if not items:
            continue
        if len(items) == 1 and items[0][0] == "class":  # (highlighted code: every token)
            if _class_names(items[0][1]) is None:
                return False
        elif _kept_classes(node) is None:
            return False
    return True


def _title_text(element: _Element, *, itself: str = "") -> str:
    """A title as plain text on one line: no permalink, footnote marker or hidden part.

    `itself` is a heading's own `#anchor`; a link to it that holds no words is a permalink.
    Iterative (an explicit stack), so any nesting depth is fine.
    """
    # Each frame: the children left, the element (None for `element`), its parts, and whether
    # it is a link to itself (whose words count only if there are any).
    stack: list[tuple[Iterator[_Element], _Element | None, list[str], bool]] = [
        (iter(element), None, [element.text] if element.text else [], False)
    ]
    while True:
        children, owner, parts, self_link = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if owner is None:
                return _collapse("".join(parts)).strip()
            outer = stack[-1][2]
            words = "".join(parts)
            if not self_link or _has_words(words):
                outer.append(words)
            if owner.tail:
                outer.append(owner.tail)
            continue
        tag = child.tag
        names = _kept_classes(child) if isinstance(tag, str) else None
        if names is None or (names and not _REF_CLASSES.isdisjoint(names)):
            pass
        elif tag == "script":
            parts.append(_script_tex(child))
        else:
            is_self = bool(itself) and tag == "a" and child.get("href") == itself
            words = child.text or ""
            if len(child):
                stack.append((iter(child), child, [words] if words else [], is_self))
                continue
            if words and (not is_self or _has_words(words)):  # no children: no frame needed
                parts.append(words)
        if child.tail:
            parts.append(child.tail)


def _strip_lines(text: str) -> str:
    """`text` with each line stripped, and then the whole."""
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def _paragraph_text(run: _Inline) -> str:
    """The Markdown of a paragraph: its inline text, fence-like line starts escaped."""
    text = "".join(run.parts)  # (`run.result()`, inlined)
    if "\n" not in text:  # (most paragraphs)
        text = text.strip()
        return _escape_fence(text) if text[:1] in "`~$" else text
    text = _strip_lines(text)
    if "```" in text or "~~~" in text or "$$" in text:
        text = _FENCE_LIKE.sub("\\\\", text)
    return text


def _text_paragraph(text: str | None) -> str:
    """`_paragraph_text` of an element that holds only `text`."""
    if not text:
        return ""
    text = _collapse(text).strip()
    return _escape_fence(text) if text[:1] in "`~$" else text


def _escape_fence(line: str) -> str:
    """A stripped line of paragraph text, a backslash before it if it would read as a code
    fence or display math (what `_FENCE_LIKE` finds in one line, in one look)."""
    return "\\" + line if line[:3] in ("```", "~~~") or line == "$$" else line


def _is_loose(item: _Element) -> bool:
    """True when a list item or definition holds blocks (`<p>`...): blank lines between them."""
    return any(child.tag in _LOOSE_TAGS for child in item)


def _first_block(item: _Element) -> _Element | None:
    """The first child of a list item that is a block (a script may be display math)."""
    for child in item:
        tag = child.tag
        if tag in _BLOCK_TAGS or tag == "script":
            return child
    return None


def _holds_loose(first: _Element) -> bool:
    """True when `first`, a block in a list item, or a block after it makes the list loose."""
    return first.tag in _LOOSE_TAGS or any(
        sibling.tag in _LOOSE_TAGS for sibling in first.itersiblings())


def _note_label(text: str) -> str:
    """A docutils footnote or citation label without its brackets: `[1]` -> `1`."""
    return _WS.sub("", text).strip("[]")


def _has_words(text: str) -> bool:
    return any(char.isalnum() for char in text)


def _code_text(element: _Element) -> str:
    """The code exactly as shown: highlighting spans and line numbers removed.

    Like a browser, drops the newline that directly follows `<pre>` and the last newline.
    """
    text = _plain_text(element)
    if element.tag == "pre" and (element.text or "").startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def _first_code(pre: _Element) -> _Element | None:
    """The first `<code>` child of `pre` (`find` is slower)."""
    for child in pre:
        if child.tag == "code":
            return child
    return None


def _find_pre(element: _Element) -> tuple[_Element | None, _Element | None]:
    """The `<pre>` of a code block and its title (`.filename`), skipping line numbers."""
    if element.tag == "pre":
        return element, None
    caption = None
    stack: list[_Element] = list(reversed(element))
    while stack:
        node = stack.pop()
        if not isinstance(node.tag, str) or _is_dropped(node):
            continue
        if node.tag == "pre":
            return node, caption
        if caption is None and "filename" in _classes(node):
            caption = node
        else:
            stack.extend(reversed(node))
    return None, caption


def _heading_anchor(element: _Element) -> str:
    """The id a browser scrolls to for this heading (DESIGN.md, Anchors)."""
    own = element.get("id")
    if own:
        return str(own)
    parent = element.getparent()
    if parent is not None and parent.get("id") and next(
        (child for child in parent if isinstance(child.tag, str)), None
    ) is element:
        return str(parent.get("id"))
    for link in element.iter("a"):
        if "headerlink" in _classes(link):
            href = link.get("href") or ""
            if href.startswith("#") and len(href) > 1:
                return str(href[1:])
    return ""


def _table_rows(table: _Element) -> Iterable[_Element]:
    """The rows of `table` itself (not of tables nested in its cells), in order."""
    for child in table:
        if child.tag == "tr":
            yield child
        elif child.tag in {"thead", "tbody", "tfoot"}:
            yield from (row for row in child if row.tag == "tr")


def _longest_backticks(text: str) -> int:
    """The length of the longest run of backticks in `text`."""
    if "`" not in text:
        return 0
    if "``" not in text:
        return 1
    return max(map(len, _BACKTICKS.findall(text)))


_BACKTICKS = re.compile("`+")


def _align(cell: _Element) -> str:
    style = (cell.get("style") or "") + " " + (cell.get("align") or "")
    if "center" in style:
        return ":---:"
    if "right" in style:
        return "---:"
    if "left" in style:
        return ":---"
    return "---"


def _cell_text(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")
