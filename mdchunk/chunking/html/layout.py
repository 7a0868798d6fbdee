"""How the HTML of each kind of block is laid out, as Python-Markdown, pymdownx and Sphinx
write it: a heading's anchor, whether a list is loose, a definition list's entries, a code
block's `<pre>`, language and title, a table's rows and header, an admonition's kind, a tabbed
set's labels and bodies, an API object's name, a paragraph that only names things."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Set
from typing import Any

from lxml.etree import _Element

from mdchunk.chunking.html.elements import class_set, is_dropped
from mdchunk.chunking.html.text import WS, code_text, plain_text, title_text

#: Children that make a list item or definition loose (Python-Markdown wraps text in `<p>`).
_LOOSE_TAGS = frozenset({"p", "pre", "div", "blockquote", "table"})
#: Blocks that make a table cell hold more than a pipe table's cell can.
_CELL_BLOCK_TAGS = frozenset({"ul", "ol", "dl", "table", "blockquote", "details", "h1", "h2",
                              "h3", "h4", "h5", "h6"})
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight)-([\w+#.-]+)$")


def heading_anchor(element: _Element) -> str:
    """The id a browser scrolls to for this heading: its own; else its parent's, when it is
    the parent's first element (a Sphinx section); else the target of its permalink."""
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


def list_start(element: _Element) -> int:
    """The number of an ordered list's first item (`start`; 1 when missing or not a number)."""
    try:
        return int(element.get("start") or 1)
    except ValueError:
        return 1


def is_loose(item: _Element) -> bool:
    """True when a list item or definition holds blocks (`<p>`...): blank lines between them."""
    return any(child.tag in _LOOSE_TAGS for child in item)


def definition_entries(element: _Element) -> list[list[_Element]]:
    """The terms and definitions of a `<dl>`, in entries: a term after a definition starts
    the next entry."""
    entries: list[list[_Element]] = []
    for child in element:
        if child.tag == "dt" and (not entries or any(e.tag == "dd" for e in entries[-1])):
            entries.append([child])
        elif child.tag in {"dt", "dd"}:
            if not entries:
                entries.append([])
            entries[-1].append(child)
    return entries


def is_highlighted(classes: Set[str]) -> bool:
    """True for the classes of a highlighted code block's wrapper (Pygments, Sphinx)."""
    return bool(classes & {"highlight", "codehilite", "highlighttable"}) or any(
        name.startswith("highlight-") for name in classes)


def find_pre(element: _Element) -> tuple[_Element | None, _Element | None]:
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


def code_title(element: _Element, caption: _Element | None) -> str:
    """A code block's title: its `.filename` caption, or Sphinx's caption just before it."""
    if caption is None:
        previous = element.getprevious()
        if previous is not None and "code-block-caption" in class_set(previous):
            caption = previous
    return title_text(caption) if caption is not None else ""


def code_language(*elements: _Element | None) -> str:
    """The language of a code block, as the first of `elements` (the `<code>`, the `<pre>`,
    its wrappers) to name one does, by a class (`language-js`) or `data-lang`."""
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

    Cached: a page names a few languages on many code blocks.
    """
    for name in value.split():
        match = _LANGUAGE_CLASS.match(name)
        if match and match.group(1) not in {"default", "none", "text"}:
            return match.group(1)
    return ""


def table_rows(table: _Element) -> Iterable[_Element]:
    """The rows of `table` itself (not of tables nested in its cells), in order."""
    for child in table:
        if child.tag == "tr":
            yield child
        elif child.tag in {"thead", "tbody", "tfoot"}:
            yield from (row for row in child if row.tag == "tr")


def holds_blocks(cell: _Element) -> bool:
    """True when a table cell holds blocks a pipe table's cell cannot: a code block of more
    than one line, a list, a quote, an admonition, a heading or a table."""
    stack = list(cell)
    while stack:
        node = stack.pop()
        if not isinstance(node.tag, str) or is_dropped(node):
            continue
        tag = node.tag
        if tag in _CELL_BLOCK_TAGS or "admonition" in class_set(node):
            return True
        if tag == "pre":
            if "\n" in code_text(node):
                return True
        else:
            stack.extend(node)
    return False


def is_header_row(row: _Element, cells: list[_Element]) -> bool:
    """True when a table's first row is its header: in `<thead>`, or all `<th>`."""
    section = row.getparent()
    return (section is not None and section.tag == "thead") or all(
        cell.tag == "th" for cell in cells)


def admonition_kind(element: _Element) -> str:
    """An admonition's kind, from its classes (`admonition note` -> `Note`), or ""."""
    kinds = [name for name in (element.get("class") or "").split() if name != "admonition"]
    return kinds[0].capitalize() if kinds else ""


def tab_parts(element: _Element) -> tuple[list[_Element], list[_Element]]:
    """The labels and the bodies of a tabbed set, in both styles of pymdownx.tabbed (labels
    beside their bodies, or all labels before all bodies)."""
    labels: list[_Element] = []
    bodies: list[_Element] = []
    for child in element:
        classes = class_set(child)
        if child.tag == "label":
            labels.append(child)
        elif "tabbed-labels" in classes:
            labels.extend(label for label in child if label.tag == "label")
        elif "tabbed-content" in classes:
            blocks = [body for body in child if "tabbed-block" in class_set(body)]
            bodies.extend(blocks or [child])
    return labels, bodies


def holds_signatures(element: _Element) -> bool:
    """True for a `<dl>` of Sphinx object descriptions (a `dt.sig-object` among its terms)."""
    return any("sig-object" in class_set(child) for child in element if child.tag == "dt")


def object_name(signature: _Element) -> str:
    """The object's name in a Sphinx signature (`sig-prename` and `sig-name`: `module.func`)."""
    names: Any = signature.xpath(".//*[contains(concat(' ', @class, ' '), ' sig-prename ') "
                                 "or contains(concat(' ', @class, ' '), ' sig-name ')]")
    return WS.sub(" ", "".join(plain_text(name) for name in names).strip())


#: Classes of Sphinx's version-change labels (`versionadded` and the like) and of
#: mkdocstrings' line of a class's base classes.
_VERSION_LABEL = "versionmodified"
_BASES_LINE = "doc-class-bases"


def names_only(element: _Element, classes: Set[str]) -> bool:
    """True for a paragraph that names things rather than tells: a class's base classes
    (mkdocstrings' `doc-class-bases`; autodoc's `Bases: ...` first in an object's
    description, a label and cross-references only) or a version-change label alone
    (Sphinx's `<span class="versionmodified">Added in version 2.0.</span>`)."""
    if _BASES_LINE in classes:
        return True
    lead = (element.text or "").strip()
    if lead and not lead.endswith(":"):  # (most paragraphs: running text from the start)
        return False
    children = [child for child in element if isinstance(child.tag, str)]
    if not children or any((child.tail or "").replace(",", " ").strip() for child in children):
        return False
    if not lead:
        return len(children) == 1 and _VERSION_LABEL in class_set(children[0])
    parent = element.getparent()
    return (parent is not None and parent.tag == "dd" and parent.index(element) == 0
            and all(_is_xref(child) for child in children))


def _is_xref(element: _Element) -> bool:
    """A Sphinx cross-reference: `code.xref`, alone or inside its link."""
    if element.tag == "a" and not (element.text or "").strip() and len(element) == 1:
        element = element[0]
    return element.tag == "code" and "xref" in class_set(element)
