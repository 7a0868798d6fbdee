"""Inline Markdown of one paragraph, heading or table cell: emphasis, code spans, links, math,
images, task list checkboxes and line breaks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from urllib.parse import urljoin, urlsplit

from lxml.etree import _Element

from mdchunk.chunking.html.elements import (
    BLOCK_TAGS,
    CODE_TAGS,
    CONTENT_TAGS,
    FOOTNOTE_ID,
    MAX_DEPTH,
    is_math_script,
    kept_classes,
    script_tex,
)
from mdchunk.chunking.html.text import (
    WS,
    code_span,
    code_text,
    collapse,
    escape_fences,
    has_words,
    itertext,
    note_label,
    plain_text,
    strip_lines,
    strip_math,
)

#: Elements that lose their own markup inside a run but keep their words apart from the rest.
_SPACED_TAGS = BLOCK_TAGS | {"li", "dt", "dd", "td", "th", "tr"}


class InlineText:
    """Collects the inline Markdown of one paragraph, heading or cell.

    `parts` never holds an empty string, so `parts[-1][-1]` is the last character so far.
    """

    __slots__ = ("base_url", "depth", "itself", "lead", "math", "parts")

    def __init__(self, base_url: str, math: list[str] | None, depth: int,
                 itself: str = "") -> None:
        """Arguments:
        base_url: The page's url, which relative links are joined to.
        math: Where the inline equations written go (None: not recorded).
        depth: The nesting depth so far, bounded by `MAX_DEPTH`.
        itself: A heading's own `#anchor`: links to it are permalinks or toc anchorlinks.
        """
        self.parts: list[str] = []
        self.base_url = base_url
        self.math = math
        self.depth = depth
        self.itself = itself
        self.lead = False  # the text began with whitespace (dropped here, kept by a wrapper)

    # -- results ----------------------------------------------------------------------------

    def result(self) -> str:
        """The inline Markdown collected, each line stripped."""
        text = "".join(self.parts)
        if "\n" not in text:  # line breaks (`<br>`) are rare
            return text.strip()
        return strip_lines(text)

    def paragraph(self) -> str:
        """The Markdown of a paragraph of this text: `result`, fence-like line starts escaped."""
        return escape_fences(self.result())

    # -- adding text and elements -----------------------------------------------------------

    def text(self, text: str) -> None:
        """Add running text: whitespace collapsed, never two spaces in a row."""
        text = collapse(text)
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
        """Add Markdown as it is."""
        if text:
            self.parts.append(text)

    def node(self, element: _Element) -> None:
        """An element of a run: rendered with its content, its own markup if inline."""
        if element.tag in CONTENT_TAGS:
            self.content(element)
        else:
            self.element(element)

    def content(self, element: _Element) -> None:
        """The element's children and text, without its own markup and without its tail."""
        if self.depth >= MAX_DEPTH:
            self.text(plain_text(element))
            return
        self.depth += 1
        text = element.text
        if text:
            self.text(text)
        for child in element:
            if isinstance(child.tag, str):
                self.element(child)
            text = child.tail
            if text:
                self.text(text)
        self.depth -= 1

    def element(self, element: _Element) -> None:
        """An inline element: its content inside its own markup (a link, emphasis, code...)."""
        tag = element.tag
        if tag == "script" and is_math_script(element):
            self._math(script_tex(element))
            return
        names = kept_classes(element)
        if names is None:
            return
        if names and ("arithmatex" in names or "math" in names):
            self._math(plain_text(element))
        elif tag in CODE_TAGS:
            self.literal(code_span(code_text(element)))
        elif tag == "a":
            self._link(element, names)
        elif tag in {"input", "br", "img"}:
            self._empty_element(element, names)
        elif marker := _emphasis(tag, names):
            self._wrap(element, marker)
        elif "classifier" in names:  # docutils: `term : classifier`, the colon is CSS
            self.literal(" : ")
            self.content(element)
        elif tag in _SPACED_TAGS:  # blocks inside a table cell or title: words kept apart
            self._gap()
            self.content(element)
            self._gap()
        else:
            self.content(element)

    # -- the kinds of inline element --------------------------------------------------------

    def _empty_element(self, element: _Element, names: Sequence[str]) -> None:
        """An element without content: a task list checkbox, a line break or an image."""
        tag = element.tag
        if tag == "input":  # (only checkboxes are kept)
            self.literal("[x] " if element.get("checked") is not None else "[ ] ")
        elif tag == "br":
            self.literal("\n")
        else:
            self._image(element, names)

    def _math(self, tex: str) -> None:
        """Inline math, `$tex$`, recorded for `finish` to locate."""
        tex = strip_math(tex)
        if tex:
            snippet = f"${tex}$"
            if self.math is not None:
                self.math.append(snippet)
            self.literal(snippet)

    def _image(self, element: _Element, names: Sequence[str]) -> None:
        alt = WS.sub(" ", element.get("alt") or "").strip()
        src = (element.get("src") or "").strip()
        if src.startswith("data:") or any("emoji" in name for name in names):
            self.text(alt)  # inline image data means nothing as text; an emoji is its alt
        elif src:
            self.literal(f"![{alt}]({_link_url(self.base_url, src)})")

    def _link(self, element: _Element, names: Sequence[str]) -> None:
        """A link, a footnote reference (`[^label]`), or, without a target, its text alone."""
        label = _footnote_label(element, names)
        if label is not None:
            self.literal(f"[^{label}]")
            return
        text, lead, trail = self._inner(element)
        text = text.replace("\n", " ")
        if not text:
            return
        href = element.get("href")
        if self.itself and href == self.itself:  # a heading's link to itself: no link
            if has_words(text):  # toc's anchorlink, around the title (a permalink is a symbol)
                self._around(lead, trail, text)
        elif not href or href.strip().startswith("javascript:"):
            self._around(lead, trail, text)
        else:
            self._around(lead, trail, f"[{text}]({_link_url(self.base_url, href)})")

    def _wrap(self, element: _Element, marker: str) -> None:
        """The element's content between two `marker`s (`**bold**`), if it has any."""
        text, lead, trail = self._inner(element)
        if text:
            self._around(lead, trail, f"{marker}{text}{marker}")

    # -- spacing around markup --------------------------------------------------------------

    def _inner(self, element: _Element) -> tuple[str, bool, bool]:
        """The inline Markdown of `element`'s content, and whether it began and ended with a
        space (which a wrapper keeps outside its markup)."""
        inner = InlineText(self.base_url, self.math, self.depth, self.itself)
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

    def _gap(self) -> None:
        """A space, unless the text so far is empty or ends in whitespace."""
        if self.parts and self.parts[-1][-1] not in " \n":
            self.parts.append(" ")


def _emphasis(tag: str, names: Sequence[str]) -> str:
    """The Markdown marker around the text of an emphasis element (`**`, `*`, `~~`), or ""."""
    if tag in {"strong", "b"}:
        return "**"
    if tag in {"em", "i", "cite", "dfn", "var"} and "sig-param" not in names:
        return "*"  # (Sphinx sets signature parameters in <em>: not emphasis)
    if tag in {"del", "s", "strike"}:
        return "~~"
    return ""


def _footnote_label(link: _Element, names: Sequence[str]) -> str | None:
    """The label of a link that is a footnote reference, None for any other link."""
    parent = link.getparent()
    if "footnote-ref" in names or (
            parent is not None and (parent.get("id") or "").startswith("fnref")):
        return FOOTNOTE_ID.sub("", link.get("href") or "") or WS.sub("", itertext(link))
    if "footnote-reference" in names:  # docutils: the visible label, [1]
        return note_label(itertext(link))
    return None


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
