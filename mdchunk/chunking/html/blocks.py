"""The block renderer: walks the tree and writes each block (headings, paragraphs, lists, code,
tables, math, admonitions, tabs, footnotes, definitions, API objects) through the writer."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from lxml.etree import _Element

from mdchunk.chunking.html.elements import (
    BLOCK_TAGS,
    FOOTNOTE_ID,
    HEADINGS,
    MAX_DEPTH,
    class_set,
    is_display_math_script,
    is_dropped,
    is_math_script,
    kept_classes,
    script_tex,
)
from mdchunk.chunking.html.inline import InlineText
from mdchunk.chunking.html.text import (
    ASCII_WS,
    WS,
    code_span,
    code_text,
    longest_backticks,
    note_label,
    plain_text,
    strip_math,
    title_text,
)
from mdchunk.chunking.html.writer import MarkdownWriter
from mdchunk.model import BlockKind

_TRANSPARENT_TAGS = frozenset(
    {"div", "section", "article", "main", "aside", "header", "footer", "figure", "body", "html",
     "center", "fieldset", "address", "span", "picture"}
)

_NO_CLASSES: frozenset[str] = frozenset()
_TABLE_PARTS = frozenset({"tr", "thead", "tbody", "tfoot", "caption", "colgroup", "col"})
#: Children that make a list item or definition loose (Python-Markdown wraps text in `<p>`).
_LOOSE_TAGS = frozenset({"p", "pre", "div", "blockquote", "table"})

_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight)-([\w+#.-]+)$")


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


class BlockRenderer:
    """Walks the lxml tree, writing Markdown through a `MarkdownWriter`."""

    __slots__ = ("base_url", "depth", "excluded_level", "section_level", "w")

    def __init__(self, writer: MarkdownWriter, base_url: str) -> None:
        self.w = writer
        self.base_url = base_url
        self.excluded_level = 0  # > 0 while skipping a section marked data-search-exclude
        self.section_level = 0  # level of the last top-level heading (API objects go below)
        self.depth = 0  # nesting of `_children` calls, bounded by MAX_DEPTH

    # -- block level ---------------------------------------------------------------------

    def render_page(self, root: _Element) -> None:
        self._children(root, top=True, tight=False)

    def _children(self, element: _Element, *, top: bool, tight: bool,
                  skip: _Element | None = None) -> None:
        """Write the block content of `element`, loose inline text gathered into paragraphs.

        Inline content goes straight into an `InlineText` (a run), written out as a paragraph
        before the next block and at the end.
        """
        if self.depth >= MAX_DEPTH:
            flat = InlineText(self.base_url, [], self.depth)
            flat.text(plain_text(element))
            self._run(flat, top=top, tight=tight)
            return
        self.depth += 1
        # Whitespace before any inline content (the newlines between blocks) starts no run: an
        # `InlineText` drops it anyway, and most runs would then hold nothing at all.
        run: InlineText | None = None
        text = element.text
        if text and text.strip(ASCII_WS):
            run = InlineText(self.base_url, [], self.depth)
            run.text(text)
        for child in element:
            tag = child.tag
            if tag in BLOCK_TAGS or (tag == "script" and is_display_math_script(child)):
                if child is not skip:
                    if run is not None:
                        self._run(run, top=top, tight=tight)
                        run = None
                    self._block(child, top=top, tight=tight)
            elif child is skip or not isinstance(tag, str):  # entities
                pass
            elif not (top and self.excluded_level):
                if run is None:
                    run = InlineText(self.base_url, [], self.depth)
                run.node(child)
            text = child.tail
            if text and (run is not None or text.strip(ASCII_WS)):
                if run is None:
                    run = InlineText(self.base_url, [], self.depth)
                run.text(text)
        if run is not None:
            self._run(run, top=top, tight=tight)
        self.depth -= 1

    def _block(self, element: _Element, *, top: bool, tight: bool) -> None:
        tag = element.tag
        level = HEADINGS.get(tag)
        if level:
            self._heading(element, level, top=top, tight=tight)
            return
        names = kept_classes(element)
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
        elif tag == "math" or classes & {"arithmatex", "math"} or is_math_script(element):
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
        elif tag == "dl" and any("sig-object" in class_set(child) for child in element
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
        if kept_classes(element) is None:
            return
        anchor = _heading_anchor(element)
        itself = f"#{anchor}" if anchor else ""
        text = self._inline(element, itself=itself).replace("\n", " ") or anchor
        if not text:
            return
        if top:
            self.section_level = level
        title = title_text(element, itself=itself)
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
        signature = WS.sub(" ", plain_text(element)).strip()
        if not signature:
            return
        code = code_span(signature)
        anchor = element.get("id") or ""
        if not anchor:  # :no-index: objects have no id: a paragraph, not a section
            self.w.leaf("paragraph", code, blank=not tight, prose=True)
            return
        names: Any = element.xpath(".//*[contains(concat(' ', @class, ' '), ' sig-prename ') "
                                   "or contains(concat(' ', @class, ' '), ' sig-name ')]")
        title = "".join(plain_text(name) for name in names).strip() or signature
        self.w.leaf("heading", "#" * level + " " + code, blank=not tight, level=level,
                    title=WS.sub(" ", title), anchor=anchor)

    def _paragraph(self, element: _Element, *, top: bool, tight: bool) -> None:
        """A paragraph of the content of `element` (`<p>`, `<dt>`, a caption...)."""
        if top and self.excluded_level:
            return
        run = InlineText(self.base_url, [], self.depth)
        run.content(element)
        self._run(run, top=top, tight=tight)

    def _run(self, run: InlineText, *, top: bool, tight: bool) -> None:
        """Write the inline content collected in `run` as a paragraph."""
        if top and self.excluded_level:
            return
        text = run.paragraph()
        if text:
            self.w.leaf("paragraph", text, blank=not tight, prose=True, math=run.math)

    def _list(self, element: _Element, *, tight: bool) -> None:
        ordered = element.tag == "ol"
        try:
            number = int(element.get("start") or 1)
        except ValueError:
            number = 1
        # Loose: an item holds a block like `<p>` (Sphinx marks compact lists `simple`, their
        # items still wrap text in <p>). Plain: an item holds no block at all.
        simple = "simple" in class_set(element)
        loose = False
        items = [item for item in element if item.tag == "li" and kept_classes(item) is not None]
        loose = not simple and any(_holds_loose(first) for first in map(first_block, items)
                                   if first is not None)
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
        text = code_text(pre)
        if not text or text.isspace():
            return
        code = _first_code(pre)
        language = _code_language(code, pre, pre.getparent(), element)
        if caption is None:
            previous = element.getprevious()
            if previous is not None and "code-block-caption" in class_set(previous):
                caption = previous
        title = title_text(caption) if caption is not None else ""
        fence = "`" * max(3, longest_backticks(text) + 1)
        info = language + (f' title="{title}"' if title else "")
        self.w.leaf("code", f"{fence}{info}\n{text}\n{fence}", blank=not tight,
                    language=language, title=title)

    def _math(self, element: _Element, *, tight: bool) -> None:
        tex = strip_math(script_tex(element) if element.tag == "script" else plain_text(element))
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
                    title=title_text(caption) if caption is not None else "")

    def _admonition(self, element: _Element, *, tight: bool) -> None:
        title_element = next(
            (child for child in element
             if child.tag == "summary" or "admonition-title" in class_set(child)),
            None,
        )
        title, plain = "", ""
        if title_element is not None:
            title = self._inline(title_element).replace("\n", " ")
            plain = title_text(title_element)
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
            classes = class_set(child)
            if child.tag == "label":
                labels.append(child)
            elif "tabbed-labels" in classes:
                labels.extend(label for label in child if label.tag == "label")
            elif "tabbed-content" in classes:
                blocks = [body for body in child if "tabbed-block" in class_set(body)]
                bodies.extend(blocks or [child])
        block = self.w.begin("tabs", blank=not tight)
        for index, body in enumerate(bodies):
            label = title_text(labels[index]) if index < len(labels) else ""
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
            label = FOOTNOTE_ID.sub("", note.get("id") or "") or str(index + 1)
            item = self.w.begin("item", blank=True)
            self.w.write(f"[^{label}]: ")
            self.w.prefix = outer + "    "
            self._children(note, top=False, tight=False)
            self.w.prefix = outer
            self.w.end(item)
        self.w.end(block)

    def _notes(self, element: _Element, *, tight: bool) -> None:
        """docutils footnotes and citations (`aside.footnote`, `div.citation`): `[^label]: ...`."""
        notes = [child for child in element if class_set(child) & {"footnote", "citation"}]
        block = self.w.begin("footnotes", blank=not tight)
        outer = self.w.prefix
        for note in notes:
            label_element = next((c for c in note if "label" in class_set(c)), None)
            label = note_label(plain_text(label_element) if label_element is not None else "")
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
        out = InlineText(self.base_url, None, self.depth, itself)
        out.node(element)
        return out.result()


def _is_loose(item: _Element) -> bool:
    """True when a list item or definition holds blocks (`<p>`...): blank lines between them."""
    return any(child.tag in _LOOSE_TAGS for child in item)


def first_block(item: _Element) -> _Element | None:
    """The first child of a list item that is a block (a script may be display math)."""
    for child in item:
        tag = child.tag
        if tag in BLOCK_TAGS or tag == "script":
            return child
    return None


def _holds_loose(first: _Element) -> bool:
    """True when `first`, a block in a list item, or a block after it makes the list loose."""
    return first.tag in _LOOSE_TAGS or any(
        sibling.tag in _LOOSE_TAGS for sibling in first.itersiblings())


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
        if not isinstance(node.tag, str) or is_dropped(node):
            continue
        if node.tag == "pre":
            return node, caption
        if caption is None and "filename" in class_set(node):
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
        if "headerlink" in class_set(link):
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
