"""Escapes: the backslashes that keep running text plain text when the page Markdown is read.

Text from the HTML may hold characters that mean something to a CommonMark reader: a `*` that
would open emphasis, a `[` and `](` that would make a link, a `#` that would make a line a
heading, a `$` that would open an equation (mdchunk writes inline math as `$tex$`, read as
pandoc reads it). Such a character gets a backslash, and only then: most `*`, `_`, `[` and `$`
in prose mean nothing where they stand (`a * b`, `snake_case`, `list[int]`, `$5`), and the
Markdown stays as readable as the page.

The rules follow CommonMark (as markdown-it implements it), GFM tables and strikethrough, and
the extensions mdchunk writes (footnotes, definition lists, `$` math). Whether a `*` or `_`
run may open or close emphasis depends on the characters around it (`flanking`); callers pass
the characters their text will stand between.
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: CommonMark's ASCII punctuation: the characters a backslash escapes.
ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
#: What CommonMark (markdown-it) reads as whitespace around a delimiter run.
_WHITESPACE = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u202f\u205f\u3000") | frozenset(
    chr(code) for code in range(0x2000, 0x200B))
#: Characters of text that may mean something inline, wherever they stand.
_INLINE_SPECIAL = re.compile(r"[\\`*_~\[\]!<&]")
#: The same and `$` (which may open an equation): text without any is written as it is.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_~\[\]!<&$]")
#: The same but brackets: text whose only such characters are brackets mostly needs no escape.
_UNBRACKETED_SPECIAL = re.compile(r"[\\`*_~!<&]")
#: The same as `_MARKDOWN_SPECIAL` but brackets (see `is_literal_beside_code`).
_UNBRACKETED_MARKDOWN_SPECIAL = re.compile(r"[\\`*_~!<&$]")
#: The same, a run of one of `*`, `_` or `~` at a time (a delimiter run is read whole).
_SPECIAL_RUNS = re.compile(r"\*+|_+|~+|[\\`\[\]!<&]")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
#: Line starts a reader would take for a block: the group is the character to escape.
_LINE_START = re.compile(
    r"""^(?:(\#){1,6}(?:[ \t]|$)         # ATX heading
         |(>)                            # block quote
         |([-+*])(?:[ \t]|$)             # bullet list item
         |\d{1,9}([.)])(?:[ \t]|$)       # ordered list item (the delimiter is escaped)
         |([-*_])(?:[ \t]*\5){2,}[ \t]*$     # thematic break
         |(=)=*[ \t]*$                   # setext underline
         |(-)-[- \t]*$                   # setext underline (a rule after a list's `- `)
         |(\$)\$                         # display math
         |([:~])(?:[ \t]|$)              # definition (of the previous paragraph)
         |\[(?:[^\[\]\\]|\\.)*\](:)      # link reference or footnote definition (a label
                                         # may hold escaped brackets)
        )""",
    re.X,
)
#: The characters a line `_LINE_START` matches begins with, but digits.
_LINE_START_CHARS = frozenset("#>-+*_=$:~[")
#: A GFM table's delimiter row, which turns the line before it into a table header.
_DELIMITER_ROW = re.compile(r"^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
#: The closing `#` run of an ATX heading, which a reader strips.
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])(#+)$")

WHITE, PUNCT, OTHER = 0, 1, 2


@functools.lru_cache(maxsize=4096)
def char_class(char: str) -> int:
    """How a delimiter run sees a neighbour: `WHITE` (also "" for a line edge), `PUNCT`
    (ASCII punctuation, or a Unicode punctuation or symbol), else `OTHER`."""
    if not char or char in _WHITESPACE:
        return WHITE
    if char in ASCII_PUNCT or unicodedata.category(char)[0] in "PS":
        return PUNCT
    return OTHER


def flanking(before: str, after: str) -> tuple[bool, bool]:
    """Whether a delimiter run between `before` and `after` is left- and right-flanking."""
    last, following = char_class(before), char_class(after)
    left = following != WHITE and (following != PUNCT or last != OTHER)
    right = last != WHITE and (last != PUNCT or following != OTHER)
    return left, right


def may_need_escapes(text: str) -> bool:
    """Whether running text holds a character that may need a backslash inline (`escape_text`
    leaves any other text as it is, whatever stands around it)."""
    return _INLINE_SPECIAL.search(text) is not None


def is_literal(text: str) -> bool:
    """Whether running text reads as itself in any inline context: it holds no character that
    may need a backslash (`may_need_escapes`) and no `$` that could open an equation."""
    return _MARKDOWN_SPECIAL.search(text) is None


def is_literal_beside_code(text: str) -> bool:
    """Whether running text reads as itself where only code spans and line edges stand around
    it (a paragraph of text and code spans): as `is_literal`, but with brackets that open no
    footnote reference and close no link label (`[^`, `](`). A bracket needs a backslash only
    before `^` or `(` (`_needs_escape`), and a code span begins with a backtick."""
    return (_UNBRACKETED_MARKDOWN_SPECIAL.search(text) is None and "[^" not in text
            and "](" not in text)


def escape_text(text: str, before: str, after: str, *, in_link: bool) -> str:
    """Running text with a backslash before each character a reader would take for markup,
    `before` and `after` being the characters around it in the Markdown ("" at a line edge).

    `in_link`: the text is a link's label (or an image's alt), where brackets always get one.
    """
    if not _INLINE_SPECIAL.search(text):
        return text
    if not in_link and not _UNBRACKETED_SPECIAL.search(text) and not _brackets_need_escapes(
            text, after):  # (`list[int]`, `{string[]}`: the most common text with specials)
        return text
    out: list[str] = []
    done = 0
    for match in _SPECIAL_RUNS.finditer(text):
        start, end = match.span()
        run = match.group()
        nxt = text[end] if end < len(text) else after
        if run[0] in "*_~":
            escaped = _escaped_run(run, text[start - 1] if start else before, nxt)
        elif _needs_escape(run, nxt, text, start, in_link):
            escaped = "\\" + run
        else:
            continue
        out.append(text[done:start])
        out.append(escaped)
        done = end
    out.append(text[done:])
    return "".join(out)


def _brackets_need_escapes(text: str, after: str) -> bool:
    """Whether a bracket of text outside a link needs a backslash (see `_needs_escape`): a `[`
    before `^` (a footnote reference) or a `]` before `(` (a link), `after` following the
    text."""
    last = text[-1]
    return ("[^" in text or "](" in text or (last == "[" and after == "^")
            or (last == "]" and after == "("))


def _escaped_run(run: str, before: str, after: str) -> str:
    """A run of `*`, `_` or `~` from text, escaped when a reader could take it for a
    delimiter (or when it touches one of the same character)."""
    char = run[0]
    if char in (before, after):
        return "\\" + "\\".join(run)
    if char == "~":
        return "\\" + "\\".join(run) if len(run) > 1 else run
    left, right = flanking(before, after)
    if char == "_":  # `_` inside a word is no delimiter
        opens = left and (not right or char_class(before) == PUNCT)
        closes = right and (not left or char_class(after) == PUNCT)
    else:
        opens, closes = left, right
    return "\\" + "\\".join(run) if opens or closes else run


def _needs_escape(char: str, after: str, text: str, index: int, in_link: bool) -> bool:
    """Whether one character of text (not `*`, `_` or `~`) needs a backslash, `after` being
    the character that follows it."""
    if char == "\\":  # (at a line's end, white space after it trimmed, a hard line break)
        return after in ASCII_PUNCT or (not text[index + 1:].strip() and not after.strip())
    if char == "`":
        return True
    if char in "[]":
        return in_link or (char == "[" and after == "^") or (char == "]" and after == "(")
    if char == "!":
        return after == "["
    if char == "<":
        return bool(after) and after.isascii() and (after.isalpha() or after in "/!?")
    return bool(_ENTITY.match(text, index))  # "&"


def escape_line_start(line: str) -> str:
    """A paragraph's line with a backslash where a reader would otherwise start a block there
    (a heading, quote, list, rule, setext underline, display math, definition, link
    definition or a table's delimiter row)."""
    first = line[:1]
    match = _LINE_START.match(line) if first in _LINE_START_CHARS or first.isdecimal() else None
    if match:
        at = next(match.start(group) for group in range(1, 11) if match.start(group) >= 0)
        line = line[:at] + "\\" + line[at:]
    if "|" in line and "-" in line and _DELIMITER_ROW.match(line):
        line = line.replace("|", "\\|")
    return line


def escape_heading_end(text: str) -> str:
    """A heading's text with a backslash before a closing run of `#`, which a reader would
    strip (`Issue #` stays `Issue #`)."""
    match = _CLOSING_HASHES.search(text) if text[-1:] == "#" else None
    if not match:
        return text
    at = match.start(1)
    return text[:at] + "\\" + text[at:]


def escape_dollars(markdown: str, candidates: list[int]) -> str:
    """`markdown` with a backslash before each `$` at `candidates` (the `$` of text, in order)
    that would open inline math, as pandoc reads `$`: not before a space or after a digit,
    closed by the next unescaped `$` when that follows no space and precedes no digit.

    An escape takes a `$` from those that close: a `$` before it that found no closer may find
    one now, so the passes go on until one escapes nothing.
    """
    pending = list(candidates)
    while pending:
        opening = next((at for at in pending if _opens_math(markdown, at)), None)
        if opening is None:
            break
        markdown = markdown[:opening] + "\\" + markdown[opening:]
        pending = [at if at < opening else at + 1 for at in pending if at != opening]
    return markdown


def _opens_math(markdown: str, at: int) -> bool:
    """Whether the `$` at `at` opens inline math (see `escape_dollars`)."""
    size = len(markdown)
    if at + 1 >= size or markdown[at + 1] in _WHITESPACE:
        return False
    if at and markdown[at - 1].isdigit():
        return False
    if _is_escaped(markdown, at):
        return False
    end = markdown.find("$", at + 1)
    while end >= 0 and _is_escaped(markdown, end):
        end = markdown.find("$", end + 1)
    if end < 0 or end == at + 1 or markdown[end - 1] in _WHITESPACE:
        return False
    return not (end + 1 < size and markdown[end + 1].isdigit())


def _is_escaped(markdown: str, at: int) -> bool:
    """Whether an odd number of backslashes precedes `at`."""
    count = 0
    while at - count - 1 >= 0 and markdown[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
