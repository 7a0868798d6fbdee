"""The page body as an lxml tree (`parse_tree`).

libxml2 parses, after control characters and stray `</html>` tags are removed. Where it gives
up (nesting beyond its limit), the stdlib's tokenizer builds the tree instead, its nesting
capped, so that no page loses text.
"""

from __future__ import annotations

import html.parser
import re

import lxml.etree
from lxml.etree import _Element

from mdchunk.chunking.html.elements import DROP_TAGS

#: C0 controls (tab, newlines and form feed aside) and DEL: invisible, and NUL would become
#: U+FFFD. UTF-8 never uses these bytes inside a multi-byte character.
_CONTROL_BYTES = bytes([*range(0x09), 0x0B, *range(0x0E, 0x20), 0x7F])
#: libxml2 drops everything after `</html>`; a stray one must not hide the rest of the page.
_CLOSE_HTML = re.compile(rb"</html\s*>", re.I)
#: `huge_tree` lifts libxml2's limits of 256 levels of nesting and of 10 MB text nodes: without
#: it, deeper text would be lost, and blockquotes nested thousands deep are valid Markdown. The
#: HTML parser expands no custom entities, so the limits' other purpose does not apply.
_PARSER = lxml.etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True
)


def parse_tree(html: str) -> _Element | None:
    """The first half of `parse_html`: the page body as an lxml tree (None for a blank page)."""
    if not html.strip():
        return None
    data = html.encode("utf-8", "ignore")
    # (Most pages hold none: looking for them costs less than copying the page without them.)
    if any(byte in data for byte in _CONTROL_BYTES):
        data = data.translate(None, _CONTROL_BYTES)
    if b"\r" in data:  # newlines as HTML reads them (libxml2 2.12, in lxml 5.0, keeps CRs)
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if _CLOSE_HTML.search(data):
        data = _CLOSE_HTML.sub(b"", data)
    root = lxml.etree.fromstring(b"<html><body>" + data, _PARSER)
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in _PARSER.error_log):
        # libxml2 gave up (nesting beyond its limit of 2048 levels) and dropped the rest.
        root = _parse_capped(data.decode("utf-8"))
    return root


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
        # Beyond the cap start tags are ignored (their text stays), except for an element whose
        # text is left out (`DROP_TAGS`): it still opens, so that its text stays out, and
        # nothing opens inside it.
        if not _is_name(tag):
            pass
        elif tag in _VOID_TAGS:
            self.handle_startendtag(tag, attrs)
        elif len(self.open) >= _CAPPED_DEPTH and not (
                tag in DROP_TAGS and self.open[-1] not in DROP_TAGS):
            self.ignored += 1
        else:
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
        """The tree, every element still open closed."""
        self.close()
        while self.open:
            self.builder.end(self.open.pop())
        return self.builder.close()


_NAME = re.compile(r"[A-Za-z_:][-\w.:]*")


def _is_name(name: str) -> bool:
    """True for a name lxml accepts for a tag or attribute (the tokenizer passes any)."""
    return bool(_NAME.fullmatch(name))


def _parse_capped(text: str) -> _Element:
    """Parse HTML that libxml2 refuses (too deep): the stdlib tokenizer, nesting capped."""
    builder = _CappedBuilder()
    builder.feed(text)
    return builder.finish()
