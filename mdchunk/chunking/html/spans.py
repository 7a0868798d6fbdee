"""Spans: the inline Markdown of a run of leaves, each leaf with the marks it is shown with.

`InlineText` reads an element into leaves: pieces of text, atoms (a code span, an equation, an
image... written as they are) and line breaks, each with its marks (emphasis, strong,
strikethrough, a link). `render` writes them out:

- Marks become spans, opened where a leaf first has them and closed where one no longer does;
  of marks that start together, the longest lasting opens first, so `<em>list</em><em>[</em>`
  and a link inside emphasis next to more emphasis are one span, not `*list**[*`.
  Whitespace at the edge of a span stands outside it (`*a* b`, never `*a *b`).
- Each emphasis span takes the first delimiter that a CommonMark reader pairs as meant: `*`
  (`**`, `~~`), else `_` (`__`), else the HTML tag. A delimiter run must be all openers or all
  closers, an opening run left-flanking and not right-flanking, a closing run the reverse: with
  spans nested as the leaves give them, a reader then pairs every delimiter with its own.
  Emphasis around punctuation next to a word (`<em>*</em>args`) is no such run, and is
  written `<em>\\*</em>args`.
- Text is escaped (`escape`) knowing the characters it stands between.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from typing import NamedTuple

from mdchunk.chunking.html.escape import (
    PUNCT,
    char_class,
    escape_dollars,
    escape_text,
    flanking,
    may_need_escapes,
)

TEXT, ATOM, BREAK = 0, 1, 2
#: A mark: ("em",), ("strong",), ("del",), or ("link", url, number) (a link per element).
Mark = tuple[str, ...]
EM: Mark = ("em",)
STRONG: Mark = ("strong",)
DEL: Mark = ("del",)
#: Of marks that start and end together, which opens first (is outermost).
_ORDER = {"link": 0, "strong": 1, "em": 2, "del": 3}
#: The delimiters an emphasis span may take, in order of preference, then its HTML tag.
_DELIMITERS = {"em": ("*", "_"), "strong": ("**", "__"), "del": ("~~",)}
_TAGS = {"em": "em", "strong": "strong", "del": "del"}
#: Stands for an undecided delimiter when only its kind of character matters (punctuation).
_PUNCT = "!"


class Leaf(NamedTuple):
    """A piece of a run: `TEXT` (escaped when written), `ATOM` (Markdown as it is) or
    `BREAK` (a line break), with the marks it is shown with, outermost first.

    Written out, a run is a sequence of leaves and of the openings and closings of spans
    (`_OPEN`, `_CLOSE`, with their `span`), a token each.
    """

    kind: int
    text: str
    marks: tuple[Mark, ...] = ()
    span: _Span | None = None


@dataclasses.dataclass(eq=False, slots=True)
class _Span:
    """A mark over consecutive leaves, and the delimiter chosen for it."""

    mark: Mark
    delimiter: str = ""

    @property
    def kind(self) -> str:
        return self.mark[0]

    def opening(self) -> str:
        if self.kind == "link":
            return "["
        if self.delimiter.startswith("<"):
            return f"<{self.delimiter[1:]}>"
        return self.delimiter

    def closing(self) -> str:
        if self.kind == "link":
            return f"]({self.mark[1]})"
        if self.delimiter.startswith("<"):
            return f"</{self.delimiter[1:]}>"
        return self.delimiter


_MARKS = operator.attrgetter("marks")

#: A token of the written run: a leaf, or the opening or closing of a span.
_Token = Leaf
_OPEN, _CLOSE = 3, 4


def render(leaves: Sequence[Leaf]) -> str:
    """The Markdown of a run of leaves: spans opened and closed, delimiters chosen, text
    escaped, and each `$` of text that would open an equation escaped."""
    if not any(map(_MARKS, leaves)):  # (most runs: no emphasis, no link)
        return _write(leaves)
    tokens = _nest(_edge_spaces_outside(leaves))
    _choose_delimiters(tokens)
    return _write(tokens)


# -- spans ------------------------------------------------------------------------------------


def _edge_spaces_outside(leaves: Sequence[Leaf]) -> list[Leaf]:
    """The leaves with whitespace at the edges of text split off, and every whitespace leaf
    (and line break) given only the marks both of its neighbours have: spaces stay outside
    the spans they border."""
    split: list[Leaf] = []
    for leaf in leaves:
        text = leaf.text
        if leaf.kind != TEXT or not text or (text[0] != " " and text[-1] != " ") or not (
                leaf.marks):
            split.append(leaf)
            continue
        core = text.strip(" ")
        if text[0] == " ":
            split.append(Leaf(TEXT, " ", leaf.marks))
        if core:
            split.append(Leaf(TEXT, core, leaf.marks))
            if text[-1] == " ":
                split.append(Leaf(TEXT, " ", leaf.marks))
    return _blank_marks(split)


def _blank_marks(leaves: list[Leaf]) -> list[Leaf]:
    """Whitespace leaves and line breaks take the marks shared by the leaves around them."""
    solid = [index for index, leaf in enumerate(leaves) if not _is_blank(leaf)]
    if len(solid) == len(leaves):
        return leaves
    out = list(leaves)
    previous: tuple[Mark, ...] = ()
    following = iter(solid)
    next_solid = next(following, None)
    for index, leaf in enumerate(leaves):
        if next_solid is not None and index == next_solid:
            previous = leaf.marks
            next_solid = next(following, None)
            continue
        after = leaves[next_solid].marks if next_solid is not None else ()
        out[index] = Leaf(leaf.kind, leaf.text, tuple(m for m in previous if m in after))
    return out


def _is_blank(leaf: Leaf) -> bool:
    return leaf.kind == BREAK or (leaf.kind == TEXT and leaf.text.isspace())


def _nest(leaves: Sequence[Leaf]) -> list[_Token]:
    """The tokens of the run: each leaf, with spans opened before it and closed after it as
    its marks begin and end; of marks that begin together, the longest lasting first."""
    tokens: list[_Token] = []
    active: list[_Span] = []
    previous: tuple[Mark, ...] = ()
    for index, leaf in enumerate(leaves):
        marks = leaf.marks
        if marks == previous:  # (the spans open are those of the leaf before: none begin or end)
            tokens.append(leaf)
            continue
        previous = marks
        keep = 0
        while keep < len(active) and active[keep].mark in marks:
            keep += 1
        for span in reversed(active[keep:]):
            tokens.append(_Token(_CLOSE, "", (), span))
        del active[keep:]
        opened = [span.mark for span in active]
        starting = [mark for mark in marks if mark not in opened]
        if len(starting) > 1:
            starting.sort(key=lambda mark: (-_extent(leaves, index, mark), _ORDER[mark[0]]))
        for mark in starting:
            span = _Span(mark)
            active.append(span)
            tokens.append(_Token(_OPEN, "", (), span))
        tokens.append(leaf)  # (a token's marks are the spans around it: never read)
    for span in reversed(active):
        tokens.append(_Token(_CLOSE, "", (), span))
    return tokens


def _extent(leaves: Sequence[Leaf], start: int, mark: Mark) -> int:
    """How many leaves from `start` on have `mark`."""
    end = start
    while end < len(leaves) and mark in leaves[end].marks:
        end += 1
    return end - start


# -- delimiters -------------------------------------------------------------------------------


def _choose_delimiters(tokens: list[_Token]) -> None:
    """Give each emphasis span the first delimiter a reader pairs as meant, else its tag."""
    for index, token in enumerate(tokens):
        span = token.span
        if token.kind != _OPEN or span is None or span.kind == "link":
            continue
        closing = next(at for at in range(index + 1, len(tokens))
                       if tokens[at].span is span)
        for delimiter in _DELIMITERS[span.kind]:
            span.delimiter = delimiter
            if _pairs(_run(tokens, index), _run(tokens, closing)):
                break
        else:
            span.delimiter = "<" + _TAGS[span.kind]


#: How a delimiter run reads (`_run`): as meant (it only opens, or only closes), or, a lone
#: delimiter that could do both, as meant when both runs of its span are lone delimiters
#: (`foo*bar*baz`, `*\**,`).
_MEANT, _LONE, _AMBIGUOUS = "meant", "lone", "ambiguous"


def _pairs(opening: str, closing: str) -> bool:
    """Whether a span whose runs read `opening` and `closing` (see `_run`) is read as meant."""
    if not opening or not closing:
        return False
    return _AMBIGUOUS not in (opening, closing) or _MEANT not in (opening, closing)


def _run(tokens: list[_Token], index: int) -> str:
    """How the delimiter run holding the token at `index` reads: `_MEANT` when all of it
    opens and cannot close (or the reverse; `_LONE` when it is one delimiter), `_AMBIGUOUS`
    when it is a lone `*` or `~~` delimiter that could do both, "" when it is read otherwise.

    Runs that only open or only close, with spans nested as the leaves give them, are paired
    as meant. A lone delimiter that could do both pairs with a lone partner of its own length
    (the rule of three never applies to one and one, or two and two), and no delimiter between
    them is left open: those of spans inside are paired first. It must not pair with the
    delimiter of a span around it either (`_pairs_outside`).
    """
    char = _delimiter_char(tokens[index])
    first, last = _run_bounds(tokens, index)
    kinds = {tokens[at].kind for at in range(first, last + 1)}
    if len(kinds) != 1 or (char == "~" and first != last):
        return ""
    before, after = _char_before(tokens, first), _char_after(tokens, last)
    left, right = flanking(before, after)
    if char == "_":  # (`_` inside a word neither opens nor closes)
        left, right = (left and (not right or char_class(before) == PUNCT),
                       right and (not left or char_class(after) == PUNCT))
    opens, closes = (left, right) if kinds == {_OPEN} else (right, left)
    if opens and not closes:
        return _LONE if first == last else _MEANT
    if opens and first == last and char != "_" and not _pairs_outside(tokens, index):
        return _AMBIGUOUS
    return ""


def _run_bounds(tokens: Sequence[_Token], index: int) -> tuple[int, int]:
    """The first and last token of the delimiter run that holds the token at `index`."""
    char = _delimiter_char(tokens[index])
    first = last = index
    while first > 0 and _delimiter_char(tokens[first - 1]) == char:
        first -= 1
    while last + 1 < len(tokens) and _delimiter_char(tokens[last + 1]) == char:
        last += 1
    return first, last


def _pairs_outside(tokens: Sequence[_Token], index: int) -> bool:
    """Whether a reader could pair the lone delimiter at `index`, which can open and close,
    with a delimiter of a span around it of the same character: an opening one closes a span
    opened before it, a closing one opens a span closed after it. The rule of three forbids
    that only where the lengths of the two runs add up to a multiple of three (`**` and `*`,
    but not `***` and `*`)."""
    token = tokens[index]
    char = _delimiter_char(token)
    length = len(token.span.delimiter) if token.span is not None else 0
    opened: dict[int, int] = {}  # id of a span open before `index` -> its opening token
    for at in range(index):
        if tokens[at].span is not None:
            if tokens[at].kind == _OPEN:
                opened[id(tokens[at].span)] = at
            else:
                opened.pop(id(tokens[at].span), None)
    for at in range(index + 1, len(tokens)):
        other = tokens[at]
        if other.kind != _CLOSE or id(other.span) not in opened:
            continue
        partner = opened[id(other.span)] if token.kind == _OPEN else at
        if _delimiter_char(tokens[partner]) != char:
            continue
        first, last = _run_bounds(tokens, partner)
        spans = (tokens[held].span for held in range(first, last + 1))
        run = sum(len(span.delimiter) for span in spans if span is not None)
        if (run + length) % 3 or (run % 3 == 0 and length % 3 == 0):
            return True
    return False


def _delimiter_char(token: _Token) -> str:
    """The character of an emphasis token's chosen delimiter, "" for any other token."""
    span = token.span
    if span is None or span.kind == "link" or not span.delimiter:
        return ""
    return "" if span.delimiter.startswith("<") else span.delimiter[0]


def _char_before(tokens: list[_Token], index: int) -> str:
    """The last character written before the token at `index` ("" at the start)."""
    for at in range(index - 1, -1, -1):
        char = _token_chars(tokens[at], last=True)
        if char:
            return char
    return ""


def _char_after(tokens: Sequence[_Token], index: int) -> str:
    """The first character written after the token at `index` ("" at the end)."""
    for at in range(index + 1, len(tokens)):
        char = _token_chars(tokens[at], last=False)
        if char:
            return char
    return ""


def _token_chars(token: _Token, *, last: bool) -> str:
    """The last (or first) character a token writes: its own for text (escaping keeps its
    kind), `_PUNCT` for a delimiter not chosen yet."""
    span = token.span
    if span is None:
        return (token.text[-1] if last else token.text[0]) if token.text else ""
    if span.kind != "link" and not span.delimiter:
        return _PUNCT
    written = span.opening() if token.kind == _OPEN else span.closing()
    return written[-1] if last else written[0]


# -- writing ----------------------------------------------------------------------------------


def _write(tokens: Sequence[_Token]) -> str:
    """The Markdown of the tokens: text escaped between the characters around it (looked for
    only around text that holds a character that may need it)."""
    parts: list[str] = []  # (never an empty one)
    dollars: list[int] = []
    size = 0
    in_link = 0
    for index, token in enumerate(tokens):
        span = token.span
        if span is not None:
            written = span.opening() if token.kind == _OPEN else span.closing()
            if span.kind == "link":
                in_link += 1 if token.kind == _OPEN else -1
        else:
            written = token.text
            if token.kind == TEXT:
                if may_need_escapes(written):
                    written = escape_text(written, parts[-1][-1] if parts else "",
                                          _char_after(tokens, index), in_link=in_link > 0)
                at = written.find("$")
                while at >= 0:
                    dollars.append(size + at)
                    at = written.find("$", at + 1)
        if written:
            parts.append(written)
            size += len(written)
    markdown = "".join(parts)
    return escape_dollars(markdown, dollars) if dollars else markdown
