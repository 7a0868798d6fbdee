"""Text of elements, and the text rules of Markdown (whitespace, code spans, fence escapes)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

import lxml.etree
from lxml.etree import _Element

from mdchunk.chunking.html.elements import (
    DROP_OR_INPUT,
    REF_CLASSES,
    class_names,
    is_dropped,
    kept_classes,
    script_tex,
)

WS = re.compile(r"[ \t\n\r\f\v]+")
#: The characters `WS` matches, for `str.strip`.
ASCII_WS = " \t\n\r\f\v"
_MATH_DELIMITERS = re.compile(r"^\s*(?:\\\[|\\\(|\$\$|\$)?(.*?)(?:\\\]|\\\)|\$\$|\$)?\s*$", re.S)

#: Text at a line start that a Markdown reader would take for a code fence or display math
#: (a fence Python-Markdown did not recognise stays text): it gets a backslash.
FENCE_LIKE = re.compile(r"^(?=`{3}|~{3}|\$\$[ \t]*$)", re.M)


def strip_math(text: str) -> str:
    match = _MATH_DELIMITERS.match(text)
    return (match.group(1) if match else text).strip()


def collapse(text: str) -> str:
    """`WS.sub(" ", text)`: whitespace runs as one space.

    Running text mostly has single spaces and line breaks, which a replace does exactly (when
    no two spaces meet and nothing but spaces is left unprintable); the regex visits every
    space: 0.070 s -> 0.040 s over the 117,000 text nodes of the Node.js docs. Printable text
    holds no whitespace but spaces (tabs, form feeds, no-break spaces are not printable): its
    runs of spaces are found faster by a literal search (10,000 indented texts of the Node.js
    docs: 18 -> 8 ms).
    """
    spaced = text.replace("\n", " ")
    if not spaced.isprintable():
        return WS.sub(" ", text)
    if "  " in spaced:
        return SPACES.sub(" ", spaced)
    return spaced


SPACES = re.compile("  +")


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


def itertext(element: _Element) -> str:
    """All text inside `element`, its tail left out (`itertext`: str for a tree parsed from
    text, as every tree here is)."""
    return "".join(cast("Iterator[str]", element.itertext()))


def plain_text(element: _Element) -> str:
    """Text of `element` without chrome (permalinks, line numbers, hidden parts).

    Iterative (an explicit stack), so any nesting depth is fine.
    """
    count = len(element)
    if not count:
        return element.text or ""
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
        if not isinstance(child.tag, str) or is_dropped(child):
            pass
        elif child.tag == "script":  # a math script (others are dropped)
            parts.append(script_tex(child))
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
    """True when `plain_text` keeps all text inside `element` as it is.

    That is, nothing inside is dropped (see `kept_classes`) and there is no math script
    (its TeX is unescaped).
    """
    for node in element.iterdescendants():
        if node.tag in DROP_OR_INPUT:
            return False
        items = node.items()
        if not items:
            continue
        if len(items) == 1 and items[0][0] == "class":  # (highlighted code: every token)
            if class_names(items[0][1]) is None:
                return False
        elif kept_classes(node) is None:
            return False
    return True


def title_text(element: _Element, *, itself: str = "") -> str:
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
                return collapse("".join(parts)).strip()
            outer = stack[-1][2]
            words = "".join(parts)
            if not self_link or has_words(words):
                outer.append(words)
            if owner.tail:
                outer.append(owner.tail)
            continue
        tag = child.tag
        names = kept_classes(child) if isinstance(tag, str) else None
        if names is None or (names and not REF_CLASSES.isdisjoint(names)):
            pass
        elif tag == "script":
            parts.append(script_tex(child))
        else:
            is_self = bool(itself) and tag == "a" and child.get("href") == itself
            words = child.text or ""
            if len(child):
                stack.append((iter(child), child, [words] if words else [], is_self))
                continue
            if words and (not is_self or has_words(words)):  # no children: no frame needed
                parts.append(words)
        if child.tail:
            parts.append(child.tail)


def strip_lines(text: str) -> str:
    """`text` with each line stripped, and then the whole."""
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def escape_fences(text: str) -> str:
    """Stripped lines of paragraph text, a backslash before each line that would read as a code
    fence or display math (see `FENCE_LIKE`)."""
    if "```" in text or "~~~" in text or "$$" in text:
        return FENCE_LIKE.sub("\\\\", text)
    return text


def note_label(text: str) -> str:
    """A docutils footnote or citation label without its brackets: `[1]` -> `1`."""
    return WS.sub("", text).strip("[]")


def has_words(text: str) -> bool:
    return any(char.isalnum() for char in text)


def code_text(element: _Element) -> str:
    """The code exactly as shown: highlighting spans and line numbers removed.

    Like a browser, drops the newline that directly follows `<pre>` and the last newline.
    """
    text = plain_text(element)
    if element.tag == "pre" and (element.text or "").startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def longest_backticks(text: str) -> int:
    """The length of the longest run of backticks in `text`."""
    if "`" not in text:
        return 0
    if "``" not in text:
        return 1
    return max(map(len, _BACKTICKS.findall(text)))


_BACKTICKS = re.compile("`+")
