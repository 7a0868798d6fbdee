"""What the renderer knows of HTML elements: which are blocks, code or headings, and which
never reach chunk text (page chrome, hidden parts, duplicates)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from html import unescape

from lxml.etree import _Element

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCK_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "pre", "table", "blockquote",
     "div", "section", "article", "main", "aside", "header", "footer", "figure", "figcaption",
     "details", "summary", "hr", "body", "center", "fieldset", "address", "menu", "caption",
     "math"}
)
#: Elements that `InlineText` renders by their content alone (their own markup is block markup).
CONTENT_TAGS = BLOCK_TAGS.union(HEADINGS.keys(), {"td", "th", "dt", "li"})
#: Inline elements that become code spans.
CODE_TAGS = frozenset({"code", "kbd", "samp", "tt"})

#: Elements whose content never reaches chunk text.
DROP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "button", "nav", "iframe", "hr", "head",
     "form", "select", "textarea", "object", "embed", "canvas", "audio", "video", "meta", "link",
     "title"}
)
#: Tags dropped when they carry no attribute: `DROP_TAGS` (a script is kept only as math, which
#: its type says) and inputs (kept only as checkboxes, which their type says).
DROPPED_BARE_TAGS = DROP_TAGS | {"input"}
#: Classes of page chrome (permalinks, copy buttons, line numbers, navigation lists, a
#: footnote's links back to where it is referred to) and of duplicates (MathJax previews
#: repeat the TeX of their script, equation numbers are not TeX). Back-references are
#: Python-Markdown's `footnote-backref` and docutils' `backrefs` (`fn-backref` before 0.18):
#: in Markdown a footnote reads `[^1]: text`, and `[^1]: ([1](#a),[2](#b))` would be a link
#: reference definition to readers.
_DROP_CLASSES = frozenset(
    {"headerlink", "md-clipboard", "linenos", "linenodiv", "lineno", "footnote-backref",
     "backrefs", "fn-backref", "toc", "toctree-wrapper", "md-annotation__index",
     "md-source-file", "md-tags", "copybtn", "visually-hidden", "screen-reader-text",
     "MathJax_Preview", "eqno"}
)
#: Footnote markers, left out of titles (a heading `Install[^1]` is titled `Install`).
REF_CLASSES = frozenset({"footnote-ref", "footnote-reference"})
#: The prefix of a Python-Markdown footnote id or link (`fn:1`, `#fn:1`), before its label.
FOOTNOTE_ID = re.compile(r"^#?fn[:\-_]?")

#: Nesting beyond this is written as plain text, so hostile input cannot exhaust the stack
#: (libxml2 itself stops at 2048 levels with `huge_tree`; real pages stay far below this).
MAX_DEPTH = 48


def class_set(element: _Element) -> set[str]:
    """The names in the element's class attribute."""
    value = element.get("class")
    return set(value.split()) if value else set()


def kept_classes(element: _Element) -> Sequence[str] | None:
    """The element's class names, or None when its content never reaches chunk text.

    Dropped: `DROP_TAGS` (math scripts aside), inputs other than checkboxes, elements marked
    `data-search-exclude` or `hidden`, and those of a class in `_DROP_CLASSES`. Most elements
    have no attribute at all, which one look at their names tells.
    """
    tag = element.tag
    keys = element.keys()
    if not keys:
        return None if tag in DROPPED_BARE_TAGS else ()
    if tag in DROP_TAGS and not is_math_script(element):
        return None
    if "data-search-exclude" in keys or "hidden" in keys:
        return None
    if tag == "input" and element.get("type") != "checkbox":
        return None
    return class_names(element.get("class")) if "class" in keys else ()


def is_dropped(element: _Element) -> bool:
    """True when the element's content never reaches chunk text (see `kept_classes`)."""
    return kept_classes(element) is None


@functools.lru_cache(maxsize=4096)
def class_names(value: str) -> tuple[str, ...] | None:
    """The names in a class attribute, or None when one is in `_DROP_CLASSES`.

    Cached: pages repeat a few class attributes (highlighting tokens, admonition kinds) again
    and again.
    """
    names = tuple(value.split())
    return names if _DROP_CLASSES.isdisjoint(names) else None


def is_math_script(element: _Element) -> bool:
    """True for a `<script type="math/tex">` (arithmatex, Sphinx's MathJax): TeX, not code."""
    return element.tag == "script" and (element.get("type") or "").startswith("math/tex")


def is_display_math_script(element: _Element) -> bool:
    """True for a math script of display math (`math/tex; mode=display`): a block."""
    return is_math_script(element) and "mode=display" in (element.get("type") or "")


def script_tex(script: _Element) -> str:
    """The TeX of a `math/tex` script: arithmatex writes it HTML-escaped (`&amp;`)."""
    return unescape(script.text or "")
