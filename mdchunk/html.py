"""Rendered page HTML -> the page's Markdown, as blocks with exact offsets.

One pass over the lxml tree writes the Markdown and records, for every block, where its text
starts and ends. What the parser understands: Python-Markdown core (toc ids and permalinks,
tables, footnotes, definition lists, attr_list), pymdownx and Material markup (highlight with
and without line numbers, superfences titles, admonition and details, tabbed sets, arithmatex,
task lists, md_in_html) and Sphinx's HTML (sections, headerlinks, highlight-LANG, math).

lxml is used because the stdlib `html.parser` is about ten times slower on large pages.
"""

from __future__ import annotations

import html.parser
import re
from collections.abc import Iterable, Iterator
from html import unescape
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
    if not html.strip():
        return ParsedPage(markdown="", blocks=())
    data = html.encode("utf-8", "ignore").translate(None, _CONTROL_BYTES)
    if _CLOSE_HTML.search(data):
        data = _CLOSE_HTML.sub(b"", data)
    root = lxml.etree.fromstring(b"<html><body>" + data, _PARSER)
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in _PARSER.error_log):
        # libxml2 gave up (nesting beyond 2048 levels) and dropped the rest of the page.
        root = _parse_capped(data.decode("utf-8"))
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
    """Writes Markdown with line prefixes (list indents, quote markers) and records blocks."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.prefix = ""
        self.line_start = True
        self.stack: list[_Open] = []
        self.filled: list[bool] = [False]  # per open container: has a child been written?
        self.root_filled = False
        self.top: list[Block] = []
        self.math: list[tuple[int, list[str]]] = []

    def write(self, text: str) -> None:
        """Append text; every new line gets the current prefix (blank lines its stripped form)."""
        lines = text.split("\n")
        last = len(lines) - 1
        for index, line in enumerate(lines):
            if index:
                self._emit("\n")
                self.line_start = True
            if line:
                if self.line_start:
                    self._emit(self.prefix)
                    self.line_start = False
                self._emit(line)
            elif 0 < index < last:  # a blank line inside a quote keeps its `>`
                self._emit(self.prefix.rstrip())

    def separate(self, blank: bool) -> None:
        """End the current line; with `blank`, leave one blank line (inside the prefix)."""
        self._emit("\n")
        if blank:
            bare = self.prefix.rstrip()
            self._emit(bare + "\n")
        self.line_start = True

    def begin(self, kind: BlockKind, *, blank: bool | None) -> _Open:
        """Start a block; `blank` says how it is set off from a previous sibling (None: inline)."""
        mark = self.mark()
        if self.filled and self.filled[-1] and blank is not None:
            self.separate(blank=blank)
        if self.line_start and self.prefix:
            self._emit(self.prefix)
            self.line_start = False
        block = _Open(kind, self.pos, mark)
        self.stack.append(block)
        self.filled.append(False)
        return block

    def end(self, block: _Open) -> Block | None:
        """Close `block`; a block with nothing in it is dropped and its text taken back."""
        assert self.stack and self.stack[-1] is block
        self.stack.pop()
        self.filled.pop()
        end = self.pos
        while end > block.start and self._char_before(end).isspace():
            end -= 1
        if end == block.start or (block.container and not block.children and not block.title):
            self.reset(block.mark)
            return None
        done = Block(
            kind=block.kind,
            start=block.start,
            end=end,
            children=tuple(block.children),
            level=block.level,
            title=block.title,
            anchor=block.anchor,
            language=block.language,
            prose=block.prose,
        )
        if block.math:
            self.math.append((block.start, block.math))
        (self.stack[-1].children if self.stack else self.top).append(done)
        if self.filled:
            self.filled[-1] = True
        else:
            self.root_filled = True
        return done

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

    def _emit(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.pos += len(text)

    def _char_before(self, offset: int) -> str:
        length = self.pos
        for part in reversed(self.parts):
            if length - len(part) < offset:
                return part[offset - (length - len(part)) - 1]
            length -= len(part)
        return ""


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
    if element.tag in _DROP_TAGS and not _is_math_script(element):
        return True
    if element.get("data-search-exclude") is not None or element.get("hidden") is not None:
        return True
    if element.tag == "input" and element.get("type") != "checkbox":
        return True
    return not _classes(element).isdisjoint(_DROP_CLASSES)


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
        for name in (element.get("class") or "").split():
            match = _LANGUAGE_CLASS.match(name)
            if match and match.group(1) not in {"default", "none", "text"}:
                return match.group(1)
        language = element.get("data-lang") or element.get("data-language")
        if language:
            return str(language)
    return ""


def _strip_math(text: str) -> str:
    match = _MATH_DELIMITERS.match(text)
    return (match.group(1) if match else text).strip()


class _Renderer:
    """Walks the lxml tree, writing Markdown through a `_Writer`."""

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
        """Write the block content of `element`, loose inline text gathered into paragraphs."""
        if self.depth >= _MAX_DEPTH:
            self._paragraph([_plain_text(element)], top=top, tight=tight)
            return
        self.depth += 1
        inline: list[_Element | str] = []
        if element.text:
            inline.append(element.text)
        for child in element:
            if child is skip or not isinstance(child.tag, str):  # entities
                pass
            elif child.tag in _BLOCK_TAGS or _is_display_math_script(child):
                self._paragraph(inline, top=top, tight=tight)
                inline = []
                self._block(child, top=top, tight=tight)
            elif not (top and self.excluded_level):
                inline.append(child)
            if child.tail:
                inline.append(child.tail)
        self._paragraph(inline, top=top, tight=tight)
        self.depth -= 1

    def _block(self, element: _Element, *, top: bool, tight: bool) -> None:
        tag = element.tag
        if tag in _HEADINGS:
            self._heading(element, _HEADINGS[tag], top=top, tight=tight)
            return
        if _is_dropped(element):
            return
        if top and self.excluded_level:  # only look for the heading that ends the exclusion
            if tag in _TRANSPARENT_TAGS:
                self._children(element, top=top, tight=tight)
            return
        classes = _classes(element)
        if tag in {"p", "figcaption", "caption", "summary"}:
            self._paragraph([element], top=top, tight=tight, own=True)
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
        if _is_dropped(element):
            return
        anchor = _heading_anchor(element)
        itself = f"#{anchor}" if anchor else ""
        text = self._inline([element], itself=itself).replace("\n", " ") or anchor
        if not text:
            return
        if top:
            self.section_level = level
        block = self.w.begin("heading", blank=not tight)
        block.level = level
        block.title = _title_text(element, itself=itself) or text
        block.anchor = anchor
        self.w.write("#" * level + " " + text)
        self.w.end(block)

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
        ticks = "`" * (_longest_run(signature, "`") + 1)
        pad = " " if signature.startswith("`") or signature.endswith("`") else ""
        code = f"{ticks}{pad}{signature}{pad}{ticks}"
        anchor = element.get("id") or ""
        if not anchor:  # :no-index: objects have no id: a paragraph, not a section
            block = self.w.begin("paragraph", blank=not tight)
            block.prose = True
            self.w.write(code)
            self.w.end(block)
            return
        names = element.xpath(".//*[contains(concat(' ', @class, ' '), ' sig-prename ') or "
                              "contains(concat(' ', @class, ' '), ' sig-name ')]")
        title = "".join(_plain_text(name) for name in names).strip() or signature
        block = self.w.begin("heading", blank=not tight)
        block.level = level
        block.title = _WS.sub(" ", title)
        block.anchor = anchor
        self.w.write("#" * level + " " + code)
        self.w.end(block)
    def _paragraph(self, nodes: list[_Element | str], *, top: bool, tight: bool,
                   own: bool = False) -> None:
        if not nodes or (top and self.excluded_level):
            return
        math: list[str] = []
        text = self._inline(nodes, math=math)
        if not text:
            return
        if "```" in text or "~~~" in text or "$$" in text:
            text = _FENCE_LIKE.sub("\\\\", text)
        block = self.w.begin("paragraph", blank=not tight)
        block.prose = True
        block.math = math
        self.w.write(text)
        self.w.end(block)

    def _list(self, element: _Element, *, tight: bool) -> None:
        items = [child for child in element if child.tag == "li" and not _is_dropped(child)]
        ordered = element.tag == "ol"
        try:
            number = int(element.get("start") or 1)
        except ValueError:
            number = 1
        # Sphinx marks compact lists `simple` (their items still wrap text in <p>).
        loose = "simple" not in _classes(element) and any(_is_loose(item) for item in items)
        block = self.w.begin("list", blank=not tight)
        outer = self.w.prefix
        for item in items:
            marker = f"{number}. " if ordered else "- "
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
        if not text.strip():
            return
        language = _code_language(pre.find("code"), pre, pre.getparent(), element)
        if caption is None:
            previous = element.getprevious()
            if previous is not None and "code-block-caption" in _classes(previous):
                caption = previous
        title = _title_text(caption) if caption is not None else ""
        fence = "`" * max(3, _longest_run(text, "`") + 1)
        info = language + (f' title="{title}"' if title else "")
        block = self.w.begin("code", blank=not tight)
        block.language = language
        block.title = title
        self.w.write(f"{fence}{info}\n{text}\n{fence}")
        self.w.end(block)

    def _math(self, element: _Element, *, tight: bool) -> None:
        tex = _strip_math(_script_tex(element) if element.tag == "script" else _plain_text(element))
        if not tex:
            return
        block = self.w.begin("math", blank=not tight)
        self.w.write(f"$$\n{tex}\n$$")
        self.w.end(block)

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
                has_header = row.getparent().tag == "thead" or all(
                    cell.tag == "th" for cell in cells
                )
            rows.append([_cell_text(self._inline([cell])) for cell in cells])
        if not any(any(row) for row in rows):
            return
        width = max(len(row) for row in rows)
        aligns += ["---"] * (width - len(aligns))
        if not has_header:
            rows.insert(0, [""] * width)
        lines = []
        for index, row in enumerate(rows):
            lines.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
            if index == 0:
                lines.append("| " + " | ".join(aligns[:width]) + " |")
        caption = element.find("caption")
        if caption is not None:  # visible text that says what the table holds
            self._paragraph([caption], top=False, tight=tight, own=True)
        block = self.w.begin("table", blank=not tight)
        if caption is not None:
            block.title = _title_text(caption)
        self.w.write("\n".join(lines))
        self.w.end(block)

    def _admonition(self, element: _Element, *, tight: bool) -> None:
        title_element = next(
            (child for child in element
             if child.tag == "summary" or "admonition-title" in _classes(child)),
            None,
        )
        title, plain = "", ""
        if title_element is not None:
            title = self._inline([title_element]).replace("\n", " ")
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
                    self._paragraph([part], top=False, tight=True, own=True)
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

    def _inline(self, nodes: Iterable[_Element | str], *, math: list[str] | None = None,
                itself: str = "") -> str:
        """Inline Markdown of `nodes` (elements are rendered with their content, not tails).

        `itself` is a heading's own `#anchor`: links to it are permalinks or toc anchorlinks.
        """
        out = _Inline(self.base_url, math, self.depth, itself)
        for node in nodes:
            if isinstance(node, str):
                out.text(node)
            elif node.tag in _BLOCK_TAGS or node.tag in _HEADINGS or node.tag in {"td", "th",
                                                                                   "dt", "li"}:
                out.content(node)
            else:
                out.element(node)
        return out.result()


class _Inline:
    """Collects the inline Markdown of one paragraph, heading or cell."""

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
        return "\n".join(line.strip() for line in text.split("\n")).strip()

    def text(self, text: str) -> None:
        text = _WS.sub(" ", text)
        if text.startswith(" ") and (not self.parts or self.parts[-1][-1:] in {" ", "\n"}):
            self.lead = self.lead or not self.parts
            text = text[1:]
        if text:
            self.parts.append(text)

    def literal(self, text: str) -> None:
        if text:
            self.parts.append(text)

    def content(self, element: _Element) -> None:
        """The element's children and text, without its own markup and without its tail."""
        if self.depth >= _MAX_DEPTH:
            self.text(_plain_text(element))
            return
        self.depth += 1
        if element.text:
            self.text(element.text)
        for child in element:
            if isinstance(child.tag, str):
                self.element(child)
            if child.tail:
                self.text(child.tail)
        self.depth -= 1

    def element(self, element: _Element) -> None:
        tag = element.tag
        if _is_math_script(element):
            self._math(_script_tex(element))
            return
        if _is_dropped(element):
            return
        classes = _classes(element)
        if "arithmatex" in classes or "math" in classes:
            self._math(_plain_text(element))
        elif tag == "input":
            self.literal("[x] " if element.get("checked") is not None else "[ ] ")
        elif tag == "br":
            self.literal("\n")
        elif tag == "code" or tag in {"kbd", "samp", "tt"}:
            self._code(element)
        elif tag == "img":
            self._image(element)
        elif tag == "a":
            self._link(element)
        elif tag in {"strong", "b"}:
            self._wrap(element, "**")
        elif tag in {"em", "i", "cite", "dfn", "var"} and "sig-param" not in classes:
            self._wrap(element, "*")  # (Sphinx sets signature parameters in <em>: not emphasis)
        elif tag in {"del", "s", "strike"}:
            self._wrap(element, "~~")
        elif "classifier" in classes:  # docutils: `term : classifier`, the colon is CSS
            self.literal(" : ")
            self.content(element)
        elif tag in _BLOCK_TAGS or tag in {"li", "dt", "dd", "td", "th", "tr"}:
            self._gap()  # blocks inside a table cell or title: keep their words apart
            self.content(element)
            self._gap()
        else:
            self.content(element)

    def _gap(self) -> None:
        if self.parts and self.parts[-1][-1:] not in {" ", "\n"}:
            self.parts.append(" ")

    def _inner(self, element: _Element) -> _Inline:
        inner = _Inline(self.base_url, self.math, self.depth, self.itself)
        inner.content(element)
        return inner

    def _around(self, inner: _Inline, markdown: str) -> None:
        """Append `markdown` made from `inner`, keeping the spaces at its edges outside."""
        if inner.lead:
            if not self.parts:
                self.lead = True
            elif self.parts[-1][-1:] not in {" ", "\n"}:
                self.parts.append(" ")
        self.literal(markdown)
        if inner.parts and inner.parts[-1][-1:] == " ":
            self.parts.append(" ")

    def _wrap(self, element: _Element, marker: str) -> None:
        inner = self._inner(element)
        text = inner.result()
        if text:
            self._around(inner, f"{marker}{text}{marker}")

    def _code(self, element: _Element) -> None:
        text = _code_text(element).replace("\n", " ")
        if not text:
            return
        ticks = "`" * (_longest_run(text, "`") + 1)
        pad = " " if text.startswith("`") or text.endswith("`") else ""
        self.literal(f"{ticks}{pad}{text}{pad}{ticks}")

    def _math(self, tex: str) -> None:
        tex = _strip_math(tex)
        if tex:
            snippet = f"${tex}$"
            if self.math is not None:
                self.math.append(snippet)
            self.literal(snippet)

    def _image(self, element: _Element) -> None:
        alt = _WS.sub(" ", element.get("alt") or "").strip()
        src = (element.get("src") or "").strip()
        if src.startswith("data:") or any("emoji" in name for name in _classes(element)):
            self.text(alt)  # inline image data means nothing as text; an emoji is its alt
        elif src:
            self.literal(f"![{alt}]({self._url(src)})")

    def _link(self, element: _Element) -> None:
        href = element.get("href")
        parent = element.getparent()
        if "footnote-ref" in _classes(element) or (
                parent is not None and (parent.get("id") or "").startswith("fnref")):
            label = _FOOTNOTE_ID.sub("", href or "") or _WS.sub("", "".join(element.itertext()))
            self.literal(f"[^{label}]")
            return
        if "footnote-reference" in _classes(element):  # docutils: the visible label, [1]
            self.literal(f"[^{_note_label(''.join(element.itertext()))}]")
            return
        inner = self._inner(element)
        text = inner.result().replace("\n", " ")
        if not text:
            return
        if self.itself and href == self.itself:  # a heading's link to itself: no link
            if _has_words(text):  # toc's anchorlink, around the title (a permalink is a symbol)
                self._around(inner, text)
        elif not href or href.strip().startswith("javascript:"):
            self._around(inner, text)
        else:
            self._around(inner, f"[{text}]({self._url(href)})")

    def _url(self, href: str) -> str:
        href = href.strip()
        if urlsplit(href).scheme or href.startswith("//"):
            return href
        return urljoin(self.base_url, href).replace(" ", "%20").replace(")", "%29")


def _plain_text(element: _Element) -> str:
    """Text of `element` without chrome (permalinks, line numbers, hidden parts).

    Iterative (an explicit stack), so any nesting depth is fine.
    """
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
                return _WS.sub(" ", "".join(parts)).strip()
            outer = stack[-1][2]
            words = "".join(parts)
            if not self_link or _has_words(words):
                outer.append(words)
            if owner.tail:
                outer.append(owner.tail)
            continue
        if (not isinstance(child.tag, str) or _is_dropped(child)
                or not _classes(child).isdisjoint(_REF_CLASSES)):
            pass
        elif child.tag == "script":
            parts.append(_script_tex(child))
        else:
            is_self = bool(itself) and child.tag == "a" and child.get("href") == itself
            stack.append((iter(child), child, [child.text] if child.text else [], is_self))
            continue
        if child.tail:
            parts.append(child.tail)


def _is_loose(item: _Element) -> bool:
    """True when a list item or definition holds blocks (`<p>`...): blank lines between them."""
    return any(child.tag in _LOOSE_TAGS for child in item)


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


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max((len(run) for run in runs), default=0)


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
