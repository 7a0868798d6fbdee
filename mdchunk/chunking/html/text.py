"""Text: the text of an element as the page shows it, and the text rules of Markdown.

`plain_text` and `title_text` walk the tree with an explicit stack, so any nesting depth is
fine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import lxml.etree
from lxml.etree import _Element

from mdchunk.chunking.html.elements import (
    CODE_TAGS,
    DROPPED_BARE_TAGS,
    REF_CLASSES,
    is_dropped,
    kept_classes,
    script_tex,
)

#: ASCII whitespace, whose runs show as one space (a no-break space is no whitespace here).
WS = re.compile(r"[ \t\n\r\f\v]+")
#: The characters `WS` matches, for `str.strip`.
ASCII_WS = " \t\n\r\f\v"
_SPACES = re.compile("  +")
_BACKTICKS = re.compile("`+")
_MATH_DELIMITERS = re.compile(r"^\s*(?:\\\[|\\\(|\$\$|\$)?(.*?)(?:\\\]|\\\)|\$\$|\$)?\s*$", re.S)


# -- whitespace and Markdown's text rules ---------------------------------------------------

def collapse(text: str) -> str:
    """`WS.sub(" ", text)`: whitespace runs as one space.

    Running text mostly holds single spaces and line breaks, which a replace handles without
    the regex. Text that is printable once its line breaks are spaces holds no whitespace but
    spaces (tabs, form feeds are not printable), so only runs of spaces are left to find.
    """
    spaced = text.replace("\n", " ")
    if not spaced.isprintable():
        return WS.sub(" ", text)
    if "  " in spaced:
        return _SPACES.sub(" ", spaced)
    return spaced


def strip_lines(text: str) -> str:
    """`text` with each line stripped, and the lines left empty left out (a paragraph holds
    no blank line)."""
    return "\n".join(line for line in (part.strip() for part in text.split("\n")) if line)


def has_words(text: str) -> bool:
    """True when `text` holds a letter or digit (a permalink's `¶` or `#` holds none)."""
    return any(char.isalnum() for char in text)


def code_span(text: str) -> str:
    """`text` as inline code, line breaks as spaces; "" for no text."""
    text = text.replace("\n", " ")
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    ticks = "`" * (longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def longest_backticks(text: str) -> int:
    """The length of the longest run of backticks in `text`."""
    if "`" not in text:
        return 0
    if "``" not in text:
        return 1
    return max(map(len, _BACKTICKS.findall(text)))


def strip_math(text: str) -> str:
    """TeX without its delimiters (`$...$`, `\\(...\\)`, `$$...$$`, `\\[...\\]`) and whitespace."""
    match = _MATH_DELIMITERS.match(text)
    return (match.group(1) if match else text).strip()


def note_label(text: str) -> str:
    """A docutils footnote or citation label without its brackets: `[1]` -> `1`."""
    return WS.sub("", text).strip("[]")


# -- the text of elements -------------------------------------------------------------------

def itertext(element: _Element) -> str:
    """All text inside `element`, its tail left out."""
    return "".join(element.itertext())


def code_text(element: _Element) -> str:
    """The code exactly as shown: highlighting spans and line numbers removed.

    Like a browser, drops the newline that directly follows `<pre>` and the last newline.
    """
    text = plain_text(element)
    if element.tag == "pre" and (element.text or "").startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def plain_text(element: _Element) -> str:
    """Text of `element` without chrome (permalinks, line numbers, hidden parts), its tail left
    out.

    Where nothing inside is left out or changed, libxml2 gives all the text in one call; the
    walk in Python is for the rest. Highlighted code, a span per token, is the common case.
    """
    if not len(element):
        return element.text or ""
    if _all_text_kept(element):
        return _all_text(element)
    return _walked_text(element)


def _all_text_kept(element: _Element) -> bool:
    """True when `plain_text` keeps all text inside `element` as it is: nothing inside is
    dropped (see `kept_classes`), and there is no math script (its TeX is unescaped)."""
    for node in element.iterdescendants():
        if node.tag in DROPPED_BARE_TAGS or kept_classes(node) is None:
            return False
    return True


def _all_text(element: _Element) -> str:
    """The text of `element` and all its descendants, its tail left out: libxml2's node
    content, what XPath `string()` gives (the text of comments left out, not their tails)."""
    return str(lxml.etree.tostring(element, method="text", encoding=str, with_tail=False))


def _walked_text(element: _Element) -> str:
    """`plain_text` by a walk: each element's text, its children's, then its tail."""
    parts: list[str] = [element.text] if element.text else []
    # Each frame: the children left to walk, and the element they belong to (None: `element`,
    # whose tail is not its text).
    stack: list[tuple[Iterator[_Element], _Element | None]] = [(iter(element), None)]
    while stack:
        children, owner = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if owner is not None and owner.tail:
                parts.append(owner.tail)
        elif _enter(child, parts):
            stack.append((iter(child), child))  # its tail follows its children
        elif child.tail:
            parts.append(child.tail)
    return "".join(parts)


def _enter(child: _Element, parts: list[str]) -> bool:
    """Add the text `child` begins with to `parts`; True when its children are to be walked,
    False when it is done (dropped, or a math script, whose TeX is its text)."""
    if not isinstance(child.tag, str) or is_dropped(child):
        return False
    if child.tag == "script":  # a math script (others are dropped)
        parts.append(script_tex(child))
        return False
    if child.text:
        parts.append(child.text)
    return True


def bare_title(element: _Element) -> str:
    """`title_text` of an element that `inline.literal_run` takes (text, code elements of
    text alone, elements left out): its text and its code's, on one line, without a walk."""
    parts = [element.text or ""]
    for child in element:
        if child.tag in CODE_TAGS and not len(child) and not child.keys():
            parts.append(child.text or "")
        tail = child.tail
        if tail:
            parts.append(tail)
    return collapse("".join(parts)).strip()


#: A frame of `title_text`'s walk: the children left, the element they belong to (None for the
#: title itself), the text gathered inside it, and whether it is a link to the heading itself.
_TitleFrame = tuple[Iterator[_Element], _Element | None, list[str], bool]


def title_text(element: _Element, *, itself: str = "") -> str:
    """A title as plain text on one line: no permalink, footnote marker or hidden part.

    `itself` is a heading's own `#anchor`; a link to it that holds no words is a permalink.
    """
    stack: list[_TitleFrame] = [(iter(element), None, [element.text] if element.text else [],
                                 False)]
    while True:
        children, owner, parts, self_link = stack[-1]
        child = next(children, None)
        if child is not None:
            frame = _title_child(child, parts, itself)
            if frame is not None:
                stack.append(frame)
            continue
        stack.pop()
        if owner is None:
            return collapse("".join(parts)).strip()
        outer = stack[-1][2]
        words = "".join(parts)
        if not self_link or has_words(words):
            outer.append(words)
        if owner.tail:
            outer.append(owner.tail)


def _title_child(child: _Element, parts: list[str], itself: str) -> _TitleFrame | None:
    """Add what `child` gives a title to `parts`, or return the frame that walks it."""
    tag = child.tag
    names = kept_classes(child) if isinstance(tag, str) else None
    if names is None or (names and not REF_CLASSES.isdisjoint(names)):
        pass
    elif tag == "script":  # a math script (others are dropped)
        parts.append(script_tex(child))
    else:
        is_self = bool(itself) and tag == "a" and child.get("href") == itself
        return (iter(child), child, [child.text] if child.text else [], is_self)
    if child.tail:
        parts.append(child.tail)
    return None
