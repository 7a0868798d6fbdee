"""Inline Markdown of one paragraph, heading or table cell: emphasis, code spans, links, math,
images, task list checkboxes and line breaks."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import cast
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
from mdchunk.chunking.html.escape import (
    escape_heading_end,
    escape_line_start,
    escape_text,
    flanking,
    is_literal,
    is_literal_beside_code,
)
from mdchunk.chunking.html.spans import ATOM, BREAK, DEL, EM, STRONG, TEXT, Leaf, Mark, render
from mdchunk.chunking.html.text import (
    WS,
    code_span,
    code_text,
    collapse,
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
    """Collects the inline content of one paragraph, heading or cell as leaves (`spans.Leaf`),
    and writes it as Markdown (`result`, `paragraph`, `heading`).

    `marks` are the marks the text being added is shown with (emphasis, a link...): an
    element's own mark is added while its content is read.
    """

    __slots__ = ("base_url", "code_before", "depth", "itself", "leaves", "links", "literal",
                 "marks", "math")

    def __init__(self, base_url: str, math: list[str] | None, depth: int,
                 itself: str = "", marks: tuple[Mark, ...] = ()) -> None:
        """Arguments:
        base_url: The page's url, which relative links are joined to.
        math: Where the inline equations written go (None: not recorded).
        depth: The nesting depth so far, bounded by `MAX_DEPTH`.
        itself: A heading's own `#anchor`: links to it are permalinks or toc anchorlinks.
        marks: The marks all of the text has (`STRONG` for an admonition's title).
        """
        self.leaves: list[Leaf] = []
        self.base_url = base_url
        self.math = math
        self.depth = depth
        self.itself = itself
        self.marks = marks
        self.links = 0  # links read so far: each link's mark is its own
        self.code_before = ""  # the code of the last leaf, when it is a code span
        #: No leaf so far has a mark, nor text that may need an escape (`is_literal`): the
        #: Markdown is then the leaves' text joined, decided as the leaves come in.
        self.literal = True

    # -- results ----------------------------------------------------------------------------

    def result(self) -> str:
        """The inline Markdown collected, each line stripped."""
        leaves = self.leaves
        text = "".join([leaf.text for leaf in leaves]) if self.literal else render(leaves)
        if "\n" not in text:  # line breaks (`<br>`) are rare
            return text.strip()
        return strip_lines(text)

    def paragraph(self, *, one_line: bool = False) -> str:
        """The Markdown of a paragraph of this text: `result` (its line breaks spaces with
        `one_line`), with a backslash where a line would otherwise start a block (a heading, a
        list, a quote...)."""
        text = self.result()
        if one_line:
            text = text.replace("\n", " ")
        if "\n" not in text:
            return escape_line_start(text)
        return "\n".join(escape_line_start(line) for line in text.split("\n"))

    def heading(self) -> str:
        """The Markdown of a heading's text: on one line, a closing `#` run escaped."""
        return escape_heading_end(self.result().replace("\n", " "))

    def has_words(self) -> bool:
        """True when some text collected holds a letter or digit."""
        return any(leaf.kind == TEXT and has_words(leaf.text) for leaf in self.leaves)

    # -- adding text and elements -----------------------------------------------------------

    def text(self, text: str) -> None:
        """Add running text: whitespace collapsed, never two spaces in a row."""
        text = collapse(text)
        leaves = self.leaves
        last = leaves[-1] if leaves else None
        if text[:1] == " " and (last is None or last.text[-1] in " \n"):
            text = text[1:]
        if not text:
            return
        marks = self.marks
        if self.literal and (marks or not is_literal(text)):
            self.literal = False
        if last is not None and last.kind == TEXT and last.marks == marks:
            leaves[-1] = Leaf(TEXT, last.text + text, marks)
        else:
            leaves.append(Leaf(TEXT, text, marks))
        self.code_before = ""

    def atom(self, markdown: str) -> None:
        """Add Markdown as it is (a code span, an equation, an image...)."""
        if markdown:
            if self.marks:
                self.literal = False
            self.leaves.append(Leaf(ATOM, markdown, self.marks))
            self.code_before = ""

    def node(self, element: _Element) -> None:
        """An element of a run: rendered with its content, its own markup if inline."""
        tag = element.tag
        if tag in CODE_TAGS and not len(element) and not element.keys():
            self._bare_code(element)  # (see `element`)
        elif tag in CONTENT_TAGS:
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
            tag = child.tag
            if tag in CODE_TAGS and not len(child) and not child.keys():
                self._bare_code(child)  # (most children of running text: see `element`)
            elif isinstance(tag, str):
                self.element(child)
            text = child.tail
            if text:
                self.text(text)
        self.depth -= 1

    def element(self, element: _Element) -> None:
        """An inline element: its content inside its own markup (a link, emphasis, code...)."""
        tag = cast(str, element.tag)  # (a name: the parser drops comments and instructions)
        if tag in CODE_TAGS and not len(element) and not element.keys():
            self._bare_code(element)
            return
        if tag == "script" and is_math_script(element):
            self._math(script_tex(element))
            return
        names = kept_classes(element)
        if names is None:
            return
        if names and ("arithmatex" in names or "math" in names):
            self._math(plain_text(element))
        elif tag in CODE_TAGS or tag == "pre":  # (a one-line code block in a table cell)
            self._code(code_text(element))
        elif tag == "a":
            self._link(element, names)
        elif tag in {"input", "br", "img"}:
            self._empty_element(element, names)
        elif mark := _emphasis(tag, names):
            self.marked(element, mark)
        elif "classifier" in names:  # docutils: `term : classifier`, the colon is CSS
            self.text(" : ")
            self.content(element)
        elif tag in _SPACED_TAGS:  # blocks inside a table cell or title: words kept apart
            self._gap()
            self.content(element)
            self._gap()
        else:
            self.content(element)

    def marked(self, element: _Element, mark: Mark) -> None:
        """The content of `element`, shown with `mark` too."""
        outer = self.marks
        if mark not in outer:
            self.marks = (*outer, mark)
        self.content(element)
        self.marks = outer

    # -- the kinds of inline element --------------------------------------------------------

    def _empty_element(self, element: _Element, names: Sequence[str]) -> None:
        """An element without content: a task list checkbox, a line break or an image."""
        tag = element.tag
        if tag == "input":  # (only checkboxes are kept)
            self.atom("[x]" if element.get("checked") is not None else "[ ]")
            self.text(" ")
        elif tag == "br":  # (a paragraph has no empty line: two breaks are one)
            if self.leaves and self.leaves[-1].kind != BREAK:
                if self.marks:
                    self.literal = False
                self.leaves.append(Leaf(BREAK, "\n", self.marks))
        else:
            self._image(element, names)

    def _bare_code(self, element: _Element) -> None:
        """A code element of text alone (no attribute, no child): the most common inline
        element, a code span with nothing to look up."""
        code = element.text or ""
        self._code(code[:-1] if code[-1:] == "\n" else code)

    def _code(self, code: str) -> None:
        """A code span; one right after another is the same span (two side by side would read
        as one run of backticks)."""
        before = self.code_before
        leaves = self.leaves
        marks = self.marks
        if before and leaves[-1] == Leaf(ATOM, code_span(before), marks):
            code = before + code
            leaves.pop()
        span = code_span(code)
        if span:  # (`atom`, and the code kept for a span that may follow)
            if marks:
                self.literal = False
            leaves.append(Leaf(ATOM, span, marks))
        # (with no span, `code` is empty: no code to join the next span to)
        self.code_before = code

    def _math(self, tex: str) -> None:
        """Inline math, `$tex$`, recorded for `finish` to locate."""
        tex = strip_math(tex)
        if tex:
            snippet = f"${tex}$"
            if self.math is not None:
                self.math.append(snippet)
            self.atom(snippet)

    def _image(self, element: _Element, names: Sequence[str]) -> None:
        alt = WS.sub(" ", element.get("alt") or "").strip()
        src = (element.get("src") or "").strip()
        if src.startswith("data:") or any("emoji" in name for name in names):
            self.text(alt)  # inline image data means nothing as text; an emoji is its alt
        elif src:
            label = escape_text(alt, "[", "]", in_link=True)
            self.atom(f"![{label}]({_link_url(self.base_url, src)})")

    def _link(self, element: _Element, names: Sequence[str]) -> None:
        """A link, a footnote reference (`[^label]`), or, without a target, its text alone."""
        label = _footnote_label(element, names)
        if label is not None:
            self.atom(f"[^{label}]")
            return
        href = element.get("href")
        if self.itself and href == self.itself:  # a heading's link to itself: no link
            start = len(self.leaves)
            self.content(element)
            if not any(leaf.kind != TEXT or has_words(leaf.text)
                       for leaf in self.leaves[start:]):  # a permalink is a symbol
                del self.leaves[start:]
        elif not href or href.strip().startswith("javascript:") or any(
                mark[0] == "link" for mark in self.marks):  # (Markdown nests no links)
            self.content(element)
        else:
            self.links += 1
            self.marked(element, ("link", _link_url(self.base_url, href), str(self.links)))

    def _gap(self) -> None:
        """A space, unless the text so far is empty or ends in whitespace."""
        leaves = self.leaves
        if leaves and leaves[-1].text[-1] not in " \n":
            self.text(" ")


def literal_run(element: _Element, base_url: str | None = None) -> str | None:
    """The inline Markdown of the content of `element` as `InlineText` writes it (`content`,
    then `result`), for the most common paragraph, list item and heading: text, code elements
    of text alone (no attribute, no child), elements left out (a permalink: `kept_classes`)
    and, given the page's `base_url` (not for a heading, whose links to itself are no links),
    links and emphasis of plain text (`_literal_link`, `_literal_emphasis`), with no text that
    needs an escape there (`is_literal_beside_code`). None for any other element, which
    `InlineText` reads.

    Without escapes the Markdown is the pieces joined: each text with its whitespace
    collapsed (a space dropped after a space, or at the start), each code span, and adjacent
    code spans joined into one (see `InlineText._code`). `_joined` checks what only the whole
    run tells.
    """
    parts: list[str] = []
    kinds: list[str] = []  # each part's: "" (text, a code span), else the tag it stands for
    code = ""  # the code of the last part, when that is a code span
    text = element.text
    if text and _append_text(text, parts, kinds) is None:
        return None
    for child in element:
        tag = child.tag
        if tag in CODE_TAGS and not len(child) and not child.keys():
            value = child.text or ""
            if value[-1:] == "\n":
                value = value[:-1]
            if code:  # (a code span right after another)
                value = code + value
                parts.pop()
                kinds.pop()
            span = code_span(value)
            if span:
                parts.append(span)
                kinds.append("")
            code = value
        elif base_url is not None and tag in _LITERAL_MARKED:
            marked = (_literal_link(child, element, base_url) if tag == "a"
                      else _literal_emphasis(child))
            if marked is None:
                return None
            parts.append(marked)
            kinds.append(tag)
            code = ""
        elif (tag == "script" and is_math_script(child)) or kept_classes(child) is not None:
            return None  # (an element left out, such as a permalink, gives only its tail)
        text = child.tail
        if text:
            appended = _append_text(text, parts, kinds)
            if appended is None:
                return None
            if appended:
                code = ""
    return _joined(parts, kinds)


def _append_text(text: str, parts: list[str], kinds: list[str]) -> bool | None:
    """Add running text to a run (`literal_run`), its whitespace collapsed and a space dropped
    at the start or after a space: whether anything was left of it to add; None when it may
    need an escape."""
    text = collapse(text)
    if text[:1] == " " and (not parts or parts[-1][-1] == " "):
        text = text[1:]
    if not text:
        return False
    if not is_literal_beside_code(text):
        return None
    parts.append(text)
    kinds.append("")
    return True


#: The elements `literal_run` may write in one step besides text and code (given a page url).
_LITERAL_MARKED = frozenset({"a", "strong", "em"})
#: The delimiter `literal_run` writes an emphasis element with.
_LITERAL_DELIMITERS = {"strong": "**", "em": "*"}


def _joined(parts: list[str], kinds: list[str]) -> str | None:
    """The Markdown of the pieces of a run (`literal_run`), or None where `InlineText` would
    write more than the pieces: texts with only an empty code element between them are one
    text to it, so the text and code joined must hold no `[^` or `](` (a link or emphasis
    stands apart, its own leaf: left out of that test), and each emphasis must read as meant
    with the first delimiter (`_emphasis_reads`)."""
    if len(parts) != kinds.count(""):
        plain = "".join(["\0" if kind else part for part, kind in zip(parts, kinds, strict=True)])
        if any(kind in _LITERAL_DELIMITERS and not _emphasis_reads(parts, kinds, at)
               for at, kind in enumerate(kinds)):
            return None
        written = "".join(parts)
    else:
        plain = written = "".join(parts)
    if "[^" in plain or "](" in plain:
        return None
    return written.strip()


def _emphasis_reads(parts: list[str], kinds: list[str], at: int) -> bool:
    """Whether the emphasis at `at` of a run takes its first delimiter in `InlineText`: its
    opening left-flanking and its closing right-flanking (`spans._run`), and no emphasis
    beside it or of the same kind past only whitespace (one delimiter run, or one span)."""
    kind = kinds[at]
    if (at and kinds[at - 1] in _LITERAL_DELIMITERS) or (
            at + 1 < len(kinds) and kinds[at + 1] in _LITERAL_DELIMITERS) or (
            at + 2 < len(kinds) and kinds[at + 2] == kind and parts[at + 1].isspace()):
        return False
    size = len(_LITERAL_DELIMITERS[kind])
    inner = parts[at][size:-size]
    before = parts[at - 1][-1] if at else ""
    after = parts[at + 1][0] if at + 1 < len(parts) else ""
    return flanking(before, inner[0])[0] and flanking(inner[-1], after)[1]


def _literal_emphasis(element: _Element) -> str | None:
    """`<strong>` or `<em>` of plain text (no attribute, no child, text that needs no escape,
    no whitespace of any kind at its edges: `InlineText` moves spaces out of the span, and
    drops the marks of whitespace alone) with the delimiter `_emphasis_reads` checks, else
    None."""
    if len(element) or element.keys():
        return None
    text = collapse(element.text or "")
    if not text or text[0].isspace() or text[-1].isspace() or not is_literal(text):
        return None
    delimiter = _LITERAL_DELIMITERS[cast(str, element.tag)]
    return f"{delimiter}{text}{delimiter}"


def _literal_link(link: _Element, parent: _Element, base_url: str) -> str | None:
    """The Markdown of a link in `parent` as `InlineText` writes it (`_link`) when that is
    `[label](url)` with the label as it is (`_literal_label`): a target (not `javascript:`), no
    footnote reference. None for any other link."""
    names = kept_classes(link)
    if names is None or "footnote-ref" in names or "footnote-reference" in names or (
            parent.get("id") or "").startswith("fnref"):
        return None
    href = link.get("href")
    if not href or href.strip().startswith("javascript:"):
        return None
    label = _literal_label(link)
    return None if label is None else f"[{label}]({_link_url(base_url, href)})"


def _literal_label(link: _Element) -> str | None:
    """The label of a link as `InlineText` writes it, for the two commonest: text that needs
    no escape (`is_literal`) with no whitespace at its edges (which `InlineText` moves out of
    the span, and a label of whitespace alone out of the run), or one code element of text
    alone, as its code span (a link to an API). None for any other."""
    if not len(link):
        text = collapse(link.text or "")
        if not text or text[0].isspace() or text[-1].isspace() or not is_literal(text):
            return None
        return text
    code = link[0]
    if len(link) > 1 or link.text or code.tail or code.tag not in CODE_TAGS or len(code) or (
            code.keys()):
        return None
    value = code.text or ""
    return code_span(value[:-1] if value[-1:] == "\n" else value) or None


def _emphasis(tag: str, names: Sequence[str]) -> Mark | None:
    """The mark of an emphasis element (strong, emphasis, strikethrough), or None."""
    if tag in {"strong", "b"}:
        return STRONG
    if tag in {"em", "i", "cite", "dfn", "var"} and "sig-param" not in names:
        return EM  # (Sphinx sets signature parameters in <em>: not emphasis)
    if tag in {"del", "s", "strike"}:
        return DEL
    return None


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
            return _destination(href)
        joined = urljoin(base_url, href)
    except ValueError:  # not a url (`http://[x`: a bracket that opens no IPv6 address)
        return _destination(href)
    return _destination(joined)


#: Characters that would end or break a link's destination, and what stands for them.
_DESTINATION_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C",
                                      ">": "%3E", "\\": "%5C", "\n": "%0A"})


def _destination(url: str) -> str:
    """A url as a link's destination: spaces, parentheses, angle brackets and backslashes
    percent-encoded (each would end the destination or be read as an escape)."""
    return url.translate(_DESTINATION_ESCAPES)
