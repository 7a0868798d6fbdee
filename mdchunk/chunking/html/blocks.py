"""The block renderer: one pass over the tree that writes each block (headings, paragraphs,
lists, code, tables, math, admonitions, tabs, footnotes, definitions, API objects) through the
`MarkdownWriter`, and the inline text between and inside them through `InlineText`."""

from __future__ import annotations

from collections.abc import Set
from typing import cast

from lxml.etree import _Element

from mdchunk.chunking.html.elements import (
    BLOCK_TAGS,
    FOOTNOTE_ID,
    HEADINGS,
    MAX_DEPTH,
    class_set,
    is_display_math_script,
    is_math_script,
    kept_classes,
    script_tex,
)
from mdchunk.chunking.html.escape import escape_heading_end, escape_line_start
from mdchunk.chunking.html.inline import InlineText, literal_run
from mdchunk.chunking.html.layout import (
    admonition_kind,
    code_language,
    code_title,
    definition_entries,
    find_pre,
    heading_anchor,
    holds_blocks,
    holds_signatures,
    is_header_row,
    is_highlighted,
    is_loose,
    list_start,
    names_only,
    object_name,
    tab_parts,
    table_rows,
)
from mdchunk.chunking.html.spans import STRONG
from mdchunk.chunking.html.text import (
    ASCII_WS,
    WS,
    bare_title,
    code_span,
    code_text,
    longest_backticks,
    note_label,
    plain_text,
    strip_math,
    title_text,
)
from mdchunk.chunking.html.writer import MarkdownWriter
from mdchunk.chunking.model import BlockKind

#: Elements searched, inside a section left out (`data-search-exclude`), for the heading that
#: ends it.
_TRANSPARENT_TAGS = frozenset(
    {"div", "section", "article", "main", "aside", "header", "footer", "figure", "body", "html",
     "center", "fieldset", "address", "span", "picture"}
)
#: Children of a table that are its own parts (any other is a stray block).
_TABLE_PARTS = frozenset({"tr", "thead", "tbody", "tfoot", "caption", "colgroup", "col"})
#: Attributes of a cell kept in an HTML table: the rows and columns it spans.
_SPANS = ("colspan", "rowspan")
#: How far the lines of a footnote after its first are indented.
_NOTE_INDENT = "    "


class BlockRenderer:
    """Walks the lxml tree, writing Markdown through a `MarkdownWriter`.

    `top` says that an element is at the page's top level, where headings open sections
    (sections marked `data-search-exclude` are left out); `tight` that blocks are set off from
    their siblings by a line break rather than a blank line (a tight list's items).
    """

    __slots__ = ("base_url", "depth", "excluded_level", "section_level", "w")

    def __init__(self, writer: MarkdownWriter, base_url: str) -> None:
        self.w = writer
        self.base_url = base_url
        self.excluded_level = 0  # > 0 while skipping a section marked data-search-exclude
        self.section_level = 0  # level of the last top-level heading (API objects go below)
        self.depth = 0  # nesting of `_children` calls, bounded by MAX_DEPTH

    def render_page(self, root: _Element) -> None:
        """Write the page whose tree `root` is."""
        self._children(root, top=True, tight=False)

    # -- the walk ---------------------------------------------------------------------------

    def _children(self, element: _Element, *, top: bool, tight: bool,
                  skip: _Element | None = None) -> None:
        """Write the block content of `element`, loose inline text gathered into paragraphs.

        Inline content goes into an `InlineText` (a run), written out as a paragraph before the
        next block and at the end. `skip` is a child left out (a title, written already).
        """
        if self.depth >= MAX_DEPTH:
            self._flat(element, top=top, tight=tight)
            return
        self.depth += 1
        text = element.text
        run = self._add_text(None, text) if text else None
        for child in element:
            tag = child.tag
            if child is skip:
                pass
            elif tag in BLOCK_TAGS or (tag == "script" and is_display_math_script(child)):
                if run is not None:
                    self._run(run, top=top, tight=tight)
                    run = None
                self._block(child, top=top, tight=tight)
            elif isinstance(tag, str) and not (top and self.excluded_level):
                if run is None:
                    run = self._new_run()
                run.node(child)
            text = child.tail
            if text:
                run = self._add_text(run, text)
        if run is not None:
            self._run(run, top=top, tight=tight)
        self.depth -= 1

    def _new_run(self) -> InlineText:
        return InlineText(self.base_url, [], self.depth)

    def _add_text(self, run: InlineText | None, text: str) -> InlineText | None:
        """`run` with `text` added. Whitespace alone starts no run: between blocks it is only
        layout, and `InlineText` would drop it."""
        if run is not None or text.strip(ASCII_WS):
            if run is None:
                run = self._new_run()
            run.text(text)
        return run

    def _flat(self, element: _Element, *, top: bool, tight: bool) -> None:
        """An element nested beyond `MAX_DEPTH`: its text as one paragraph."""
        run = self._new_run()
        run.text(plain_text(element))
        self._run(run, top=top, tight=tight)

    def _block(self, element: _Element, *, top: bool, tight: bool) -> None:
        """Write one block-level element (nothing if it is dropped or left out)."""
        tag = cast(str, element.tag)  # (a name: the parser drops comments and instructions)
        level = HEADINGS.get(tag)
        if level and not _is_rubric(element):
            self._heading(element, level, top=top, tight=tight)
            return
        names = kept_classes(element)
        if names is None:
            return
        if top and self.excluded_level:  # only look for the heading that ends the exclusion
            if tag in _TRANSPARENT_TAGS:
                self._children(element, top=top, tight=tight)
            return
        self._kept_block(element, frozenset(names), top=top, tight=tight)

    def _kept_block(self, element: _Element, classes: Set[str], *, top: bool,
                    tight: bool) -> None:
        """Write a block-level element as what its tag and classes say it is."""
        tag = element.tag
        if tag in {"p", "figcaption", "caption", "summary"} or "rubric" in classes:  # (_is_rubric)
            self._paragraph(element, top=top, tight=tight,
                            prose=not (tag == "p" and names_only(element, classes)))
        elif tag in {"ul", "ol", "menu"}:
            self._list(element, tight=tight)
        elif tag == "pre" or is_highlighted(classes):
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
        elif tag == "dl" and holds_signatures(element):
            self._api_objects(element, top=top, tight=tight)
        elif tag == "dl":
            self._definitions(element, tight=tight)
        elif "code-block-caption" not in classes:  # (Sphinx's, the title `_code` gives a block)
            self._children(element, top=top, tight=tight)

    # -- headings and paragraphs ------------------------------------------------------------

    def _heading(self, element: _Element, level: int, *, top: bool, tight: bool) -> None:
        """A heading, `#` times its level, titled with its plain text."""
        if top and self._excludes(element, level):
            return
        if kept_classes(element) is None:
            return
        anchor = heading_anchor(element)
        itself = f"#{anchor}" if anchor else ""
        inline = InlineText(self.base_url, None, self.depth, itself)
        literal = literal_run(element) if self.depth < MAX_DEPTH else None
        if literal:  # (one line: `heading` without the leaves)
            text = escape_heading_end(literal)
        else:
            inline.node(element)
            text = inline.heading()
        if not text:  # a heading without text is known by its anchor
            inline.text(anchor)
            text = inline.heading()
        if not text:
            return
        if top:
            self.section_level = level
        title = bare_title(element) if literal else title_text(element, itself=itself)
        self.w.leaf("heading", "#" * level + " " + text, blank=not tight, level=level,
                    title=title or text, anchor=anchor)

    def _excludes(self, heading: _Element, level: int) -> bool:
        """True when a top-level heading is left out: it starts a section marked
        `data-search-exclude`, or is inside one (which a heading as high or higher ends)."""
        if self.excluded_level and level > self.excluded_level:
            return True
        self.excluded_level = 0
        if heading.get("data-search-exclude") is not None:
            self.excluded_level = level
            return True
        return False

    def _paragraph(self, element: _Element, *, top: bool, tight: bool,
                   one_line: bool = False, prose: bool = True) -> None:
        """A paragraph of the content of `element` (`<p>`, `<dt>`, a caption...); its line
        breaks spaces with `one_line`; not `prose` when it only names things (`names_only`)."""
        if top and self.excluded_level:
            return
        if self.depth < MAX_DEPTH and self._literal_paragraph(element, tight=tight, prose=prose):
            return
        run = self._new_run()
        run.content(element)
        self._run(run, top=top, tight=tight, one_line=one_line, prose=prose)

    def _literal_paragraph(self, element: _Element, *, tight: bool, prose: bool = True) -> bool:
        """Write the content of `element` as a paragraph when it is text and code spans only
        that need no escape (`literal_run`: one line, no marks); False for any other."""
        # (a link's content is read a level deeper: up to `MAX_DEPTH`, its code is code)
        text = literal_run(element, self.base_url if self.depth + 1 < MAX_DEPTH else None)
        if text is None:
            return False
        text = escape_line_start(text)
        if text:
            self.w.leaf("paragraph", text, blank=not tight, prose=prose)
        return True

    def _run(self, run: InlineText, *, top: bool, tight: bool, one_line: bool = False,
             prose: bool = True) -> None:
        """Write the inline content collected in `run` as a paragraph."""
        if top and self.excluded_level:
            return
        text = run.paragraph(one_line=one_line)
        if text:
            self.w.leaf("paragraph", text, blank=not tight, prose=prose, math=run.math)

    def _inline(self, element: _Element, *, strong: bool = False) -> str:
        """Inline Markdown of `element`, rendered with its content (not its tail); all of it
        strong with `strong` (a title)."""
        out = InlineText(self.base_url, None, self.depth, marks=(STRONG,) if strong else ())
        out.node(element)
        return out.result()

    def _strong_text(self, text: str) -> str:
        """Plain text as strong Markdown (`**Note**`), escaped."""
        out = InlineText(self.base_url, None, self.depth, marks=(STRONG,))
        out.text(text)
        return out.result()

    # -- lists and definitions --------------------------------------------------------------

    def _list(self, element: _Element, *, tight: bool) -> None:
        """A list, `- ` or `1. ` before each item; loose (a blank line between items) when an
        item holds a block such as `<p>`."""
        items = [item for item in element if item.tag == "li" and kept_classes(item) is not None]
        # (Sphinx marks compact lists `simple`: their items still wrap text in <p>.)
        loose = "simple" not in class_set(element) and any(map(is_loose, items))
        ordered = element.tag == "ol"
        number = list_start(element)
        block = self.w.begin("list", blank=not tight)
        for item in items:
            marker = f"{number}. " if ordered else "- "
            if self._item(item, marker, " " * len(marker), blank=loose, tight=not loose):
                number += 1
        self.w.end(block)

    def _item(self, element: _Element, marker: str, indent: str, *, blank: bool, tight: bool,
              skip: _Element | None = None) -> bool:
        """An item of a list or of footnotes: `marker`, then the content of `element`, its
        lines after the first indented by `indent`. False when it is empty (and dropped)."""
        entry = self.w.begin("item", blank=blank)
        outer = self.w.prefix
        self.w.write(marker)
        self.w.prefix = outer + indent
        if skip is not None or self.depth >= MAX_DEPTH or not self._literal_paragraph(
                element, tight=tight):  # (an item of text alone is one paragraph)
            self._children(element, top=False, tight=tight, skip=skip)
        self.w.prefix = outer
        return self.w.end(entry) is not None

    def _definitions(self, element: _Element, *, tight: bool) -> None:
        """A definition list: each entry an item, its terms paragraphs, its definitions `: `."""
        block = self.w.begin("definitions", blank=not tight)
        for entry in definition_entries(element):
            item = self.w.begin("item", blank=True)
            for part in entry:
                if part.tag == "dt":  # (a term is one line: a reader takes the last for it)
                    self._paragraph(part, top=False, tight=True, one_line=True)
                else:
                    self._definition(part)
            self.w.end(item)
        self.w.end(block)

    def _definition(self, definition: _Element) -> None:
        """A `<dd>`: `: `, then its content indented below; an empty one takes its `: ` back.
        Without a term before it, a `: ` would define nothing: it is its content alone."""
        w = self.w
        outer = w.prefix
        filled = w.filled[-1]
        if not filled:
            self._children(definition, top=False, tight=not is_loose(definition))
            return
        mark = w.mark()
        if filled:
            w.separate(blank=False)
        w.write(": ")
        written = w.pos
        w.prefix = outer + "  "
        w.filled[-1] = False
        self._children(definition, top=False, tight=not is_loose(definition))
        w.prefix = outer
        if w.pos == written:
            w.reset(mark)
            w.filled[-1] = filled
        else:
            w.filled[-1] = True

    # -- code, math and tables --------------------------------------------------------------

    def _code(self, element: _Element, *, tight: bool) -> None:
        """A code block, fenced, with its language and title."""
        pre, caption = find_pre(element)
        if pre is None:
            self._children(element, top=False, tight=tight)
            return
        text = code_text(pre)
        if not text or text.isspace():
            return
        language = code_language(pre.find("code"), pre, pre.getparent(), element)
        title = code_title(element, caption)
        fence = "`" * max(3, longest_backticks(text) + 1)
        info = language + (f' title="{title}"' if title else "")
        self.w.leaf("code", f"{fence}{info}\n{text}\n{fence}", blank=not tight,
                    language=language, title=title)

    def _math(self, element: _Element, *, tight: bool) -> None:
        """Display math, between `$$` lines."""
        tex = strip_math(script_tex(element) if element.tag == "script" else plain_text(element))
        if not tex:
            return
        self.w.leaf("math", f"$$\n{tex}\n$$", blank=not tight)

    def _table(self, element: _Element, *, tight: bool) -> None:
        """A table, titled with its caption (also written before it): a pipe table, or an HTML
        table when a cell holds blocks (a code block of several lines, a list...) that a pipe
        table's cells, one line each, cannot."""
        for child in element:  # stray blocks in a table: a browser shows them before it
            if isinstance(child.tag, str) and child.tag not in _TABLE_PARTS:
                self._block(child, top=False, tight=tight)
        if any(holds_blocks(cell) for row in table_rows(element) for cell in row
               if cell.tag in {"td", "th"}):
            text = self._html_table(element)
        else:
            rows, aligns, has_header = self._table_cells(element)
            text = _pipe_table(rows, aligns, has_header) if any(any(row) for row in rows) else ""
        if not text:
            return
        caption = element.find("caption")
        if caption is not None:  # visible text that says what the table holds
            self._paragraph(caption, top=False, tight=tight)
        self.w.leaf("table", text, blank=not tight,
                    title=title_text(caption) if caption is not None else "")

    def _html_table(self, table: _Element) -> str:
        """A table as HTML whose cells hold Markdown (set off by blank lines, as CommonMark
        and GFM read it), one tag a line; "" when no cell holds anything."""
        lines = ["<table>"]
        filled = False
        for row in table_rows(table):
            cells = [cell for cell in row if cell.tag in {"td", "th"}]
            if not cells:
                continue
            lines.append("<tr>")
            for cell in cells:
                name = cast(str, cell.tag)  # ("td" or "th")
                tag = name + "".join(f' {span}="{cell.get(span)}"' for span in _SPANS
                                     if (cell.get(span) or "").isdigit())
                markdown = self._cell_markdown(cell)
                filled = filled or bool(markdown)
                lines.append(f"<{tag}>\n\n{markdown}\n\n</{name}>" if markdown
                             else f"<{tag}></{name}>")
            lines.append("</tr>")
        lines.append("</table>")
        return "\n".join(lines) if filled else ""

    def _cell_markdown(self, cell: _Element) -> str:
        """The Markdown of a cell's content, blocks and all, from a renderer of its own."""
        writer = MarkdownWriter()
        renderer = BlockRenderer(writer, self.base_url)
        renderer.depth = self.depth + 1
        renderer._children(cell, top=False, tight=False)
        return writer.finish().markdown

    def _table_cells(self, table: _Element) -> tuple[list[list[str]], list[str], bool]:
        """The inline Markdown of the cells, row by row; the alignment of the first row's
        cells; whether the first row is a header."""
        rows: list[list[str]] = []
        aligns: list[str] = []
        has_header = False
        for row in table_rows(table):
            cells = [cell for cell in row if cell.tag in {"td", "th"}]
            if not cells:
                continue
            if not rows:
                aligns = [_align(cell) for cell in cells]
                has_header = is_header_row(row, cells)
            rows.append([_cell_text(self._inline(cell)) for cell in cells])
        return rows, aligns, has_header

    # -- containers -------------------------------------------------------------------------

    def _container(self, kind: BlockKind, element: _Element, *, title: str, tight: bool,
                   plain: str = "", skip: _Element | None = None) -> None:
        """A quoted container: blockquote, admonition, details (`> **Title**` then the body);
        `title` is Markdown."""
        block = self.w.begin(kind, blank=not tight)
        block.title = plain
        outer = self.w.prefix
        self.w.write("> ")
        self.w.prefix = outer + "> "
        if title:
            self.w.write(title)
            self.w.filled[-1] = True
        self._children(element, top=False, tight=False, skip=skip)
        self.w.prefix = outer
        self.w.end(block)

    def _admonition(self, element: _Element, *, tight: bool) -> None:
        """An admonition or details, titled with its title or else its kind (`Note`)."""
        title_element = next(
            (child for child in element
             if child.tag == "summary" or "admonition-title" in class_set(child)),
            None,
        )
        title, plain = "", ""
        if title_element is not None:
            title = self._inline(title_element, strong=True).replace("\n", " ")
            plain = title_text(title_element)
        if not title:  # `!!! note ""`: the kind, which the page shows as icon and colour
            plain = admonition_kind(element)
            title = self._strong_text(plain)
        self._container("admonition", element, title=title, plain=plain or title, tight=tight,
                        skip=title_element)

    def _tabs(self, element: _Element, *, tight: bool) -> None:
        """A tabbed set (pymdownx.tabbed): each tab `**Label**`, then its content."""
        labels, bodies = tab_parts(element)
        block = self.w.begin("tabs", blank=not tight)
        for index, body in enumerate(bodies):
            label = title_text(labels[index]) if index < len(labels) else ""
            tab = self.w.begin("tab", blank=True)
            tab.title = label
            if label:
                self.w.write(self._strong_text(label))
                self.w.filled[-1] = True
            self._children(body, top=False, tight=False)
            self.w.end(tab)
        self.w.end(block)

    def _footnotes(self, element: _Element, *, tight: bool) -> None:
        """Python-Markdown's footnotes (`div.footnote`): `[^label]: ...` each."""
        notes = [
            item for listing in element if listing.tag == "ol"
            for item in listing if item.tag == "li" and (item.get("id") or "").startswith("fn")
        ]
        if not notes:
            self._children(element, top=False, tight=tight)
            return
        block = self.w.begin("footnotes", blank=not tight)
        for index, note in enumerate(notes):
            label = FOOTNOTE_ID.sub("", note.get("id") or "") or str(index + 1)
            self._item(note, f"[^{label}]: ", _NOTE_INDENT, blank=True, tight=False)
        self.w.end(block)

    def _notes(self, element: _Element, *, tight: bool) -> None:
        """docutils footnotes and citations (`aside.footnote`, `div.citation`): `[^label]: ...`."""
        notes = [child for child in element if class_set(child) & {"footnote", "citation"}]
        block = self.w.begin("footnotes", blank=not tight)
        for note in notes:
            label_element = next((c for c in note if "label" in class_set(c)), None)
            label = note_label(plain_text(label_element) if label_element is not None else "")
            marker = f"[^{label or note.get('id') or '?'}]: "
            self._item(note, marker, _NOTE_INDENT, blank=True, tight=False, skip=label_element)
        self.w.end(block)

    # -- API objects ------------------------------------------------------------------------

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
        """A signature as code: a heading, or a paragraph for an object without an id."""
        signature = WS.sub(" ", plain_text(element)).strip()
        if not signature:
            return
        code = code_span(signature)
        anchor = element.get("id") or ""
        if not anchor:  # :no-index: objects have no id: a paragraph (code, not prose)
            self.w.leaf("paragraph", code, blank=not tight)
            return
        self.w.leaf("heading", "#" * level + " " + code, blank=not tight, level=level,
                    title=object_name(element) or signature, anchor=anchor)


def title_heading(title: str) -> tuple[str, str] | None:
    """A page title as a heading's Markdown (escaped as heading text) and as plain text on one
    line; None for a title without text."""
    text = " ".join(title.split())
    if not text:
        return None
    inline = InlineText("", None, 0)
    inline.text(text)
    markdown = inline.heading()
    return (markdown, text) if markdown else None


def _align(cell: _Element) -> str:
    """The delimiter row's cell for a column aligned as `cell` is."""
    style = (cell.get("style") or "") + " " + (cell.get("align") or "")
    if "center" in style:
        return ":---:"
    if "right" in style:
        return "---:"
    if "left" in style:
        return ":---"
    return "---"


def _cell_text(text: str) -> str:
    """A cell's inline Markdown on one line, its pipes escaped."""
    return text.replace("\n", " ").replace("|", "\\|")


def _pipe_table(rows: list[list[str]], aligns: list[str], has_header: bool) -> str:
    """The Markdown of a table: the header (empty without one), the delimiter row, the body;
    short rows padded to the widest."""
    width = max(len(row) for row in rows)
    aligns = aligns + ["---"] * (width - len(aligns))
    if not has_header:
        rows = [[""] * width, *rows]
    lines = []
    for index, cells in enumerate(rows):
        lines.append("| " + " | ".join(cells + [""] * (width - len(cells))) + " |")
        if index == 0:
            lines.append("| " + " | ".join(aligns[:width]) + " |")
    return "\n".join(lines)


def _is_rubric(element: _Element) -> bool:
    """Whether `element` is a rubric: a heading-like label that starts no section. Sphinx
    writes one as `<p class="rubric">` or as a heading tag, depending on the build; both are
    a paragraph here, so every build gives the same chunks."""
    return "rubric" in (element.get("class") or "").split()
