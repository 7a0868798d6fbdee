"""Text read back from the page Markdown that mdchunk writes: one rule for each thing its users
ask of it.

- `sentence_ends`: where the sentences of running text end (packing cuts a paragraph there,
  the page summary ends there).
- `INLINE_ATOM`: an inline code span or an inline equation, whose inside is not running text (no
  sentence ends there; the plain text keeps what is inside, without the delimiters).
- `links_as_text`: the Markdown with each inline link written as its text and each image as
  its alt text, code left as it is (the embed text, `embed_links: text`).
- `inline_text`: running text without its inline syntax: links and images as their text,
  no footnote references, emphasis marks or escapes (the page summary keeps code spans whole).
- `markdown_to_text`: the Markdown as plain text on one line, without its syntax (the
  `docsearch` and `pagefind` records' `content`).
- `off_marks`: a cut between two characters moved back off a combining mark (packing cuts
  there when no sentence or word end fits).
"""

from __future__ import annotations

import re
import unicodedata

INLINE_ATOM = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)|\$([^$\n]+)\$", re.S)
"""An inline code span (group 2: its code, `_unpadded` for the code alone) or an inline equation
(group 3: its TeX)."""
SENTENCE_END = re.compile(
    r"""[.!?]['"\u2019\u201d)\]]*(?=\s|$)"""  # . ! ? then closing quotes or brackets, then a space
    r"""|[\u3002\uff01\uff1f]['"\u2019\u201d\u300d\u300f)\]]*"""  # CJK full stops: no space
    r"""|[\u0e00-\u0eff](?=\s+[\u0e00-\u0eff])""")  # Thai, Lao: a space between two of their words
"""The end of a sentence, unless an abbreviation or an initial closes there (`sentence_ends`).
Thai and Lao write no space between words and no full stop: a space between two of their
words ends a sentence (or a clause, the nearest cut their text has)."""
ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "fig", "no", "approx", "incl"})
"""Words whose full stop ends no sentence (lowercase, without that full stop)."""
_OPENERS = "([{\"'\u2018\u201c"

# A fenced code block's opening or closing line: indentation and quote markers, then three or
# more backticks or tildes.
_FENCE = re.compile(r"[ \t>]*(`{3,}|~{3,})")
# What `links_as_text` rewrites, and what it leaves alone: an inline code span (kept as it is:
# `[a](b)` in code is code), or an inline link or image: its text (escapes and code spans
# allowed, no unescaped bracket), its destination (in angle brackets, or without spaces, with
# balanced parentheses) and an optional title. A link and an image are two alternatives, and
# each alternative starts with its first character (the backslash before it looked behind
# for after it): the regex engine then skips to the next `` ` ``, `!` or `[` instead of trying
# every position of the text.
_LINK_TAIL = (
    r"(?:\\.|`[^`\n]*`|[^\\\[\]`\n])*)\]"
    r"\((?:<[^<>\n]*>|[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)"
    r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)""")
_LINK_OR_CODE = re.compile(
    r"`(?P<ticks>`*)(?!`).+?(?<!`)`(?P=ticks)(?!`)"
    r"|!(?<!\\!)\[(?P<alt>" + _LINK_TAIL
    + r"|\[(?<!\\\[)(?P<label>" + _LINK_TAIL,
    re.S)

# What `markdown_to_text` takes out of a line: container markup (quote markers, indentation),
# list, task, footnote-definition and definition markers, fences, headings' marks, a table's
# delimiter row and cell borders.
_CONTAINER = re.compile(r"^((?:[ \t]*>[ \t]?)*[ \t]*)(.*)$")
_FENCE_MARK = re.compile(r"(`{3,}|~{3,})")
_HEADING = re.compile(r"#{1,6} ")
_DELIMITER_ROW = re.compile(r"\|(?:\s*:?-+:?\s*\|)+\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
_MARKERS = re.compile(r"^(?:(?:[-*+]|\d+\.)[ \t]+|\[[ xX]\][ \t]+|\[\^[^\]]+\]:[ \t]*|:[ \t]+)+")
# What `inline_text` takes out of running text besides links: footnote references, emphasis
# (`*` and `~~` anywhere, `_` only outside words: `snake_case` is no emphasis; an escaped mark
# neither opens nor closes), and the backslash of an escape.
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_EMPHASIS = (
    re.compile(r"(?<!\\)(\*\*|\*|~~)(?=\S)(.+?)(?<=[^\s\\])\1"),
    re.compile(r"(?<![\w\\])(__|_)(?=\S)(.+?)(?<=[^\s\\])\1(?!\w)"),
)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")


def sentence_ends(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Where the sentences of `text[start:end]` end, right after their closing mark (and the
    quotes or brackets that close with it): at each `SENTENCE_END` outside code spans and
    inline equations (`INLINE_ATOM`) that does not close an abbreviation (`e.g.`, `etc.`) or
    an initial (`J.`). The end of the text is not one unless a sentence ends there."""
    stop = len(text) if end is None else end
    atoms = [found.span() for found in INLINE_ATOM.finditer(text, start, stop)]
    ends: list[int] = []
    for found in SENTENCE_END.finditer(text, start, stop):
        mark = found.start()
        if any(first < mark < last for first, last in atoms):
            continue
        if text[mark] == "." and _closes_abbreviation(text, start, mark):
            continue
        ends.append(found.end())
    return ends


def _closes_abbreviation(text: str, start: int, dot: int) -> bool:
    """Whether the full stop at `dot` closes an abbreviation or an initial: the word before it
    (from the last whitespace on, opening quotes and brackets left out) is in `ABBREVIATIONS`, or
    is a single letter."""
    begin = dot
    while begin > start and not text[begin - 1].isspace():
        begin -= 1
    word = text[begin:dot].lstrip(_OPENERS).lower()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def links_as_text(markdown: str) -> str:
    """`markdown` with each inline link written as its text and each image as its alt text,
    outside code (fenced blocks and inline code spans are left as they are). An image inside a
    link's text becomes its alt text first, then the link its text. Reference links, autolinks
    and raw HTML are left as they are."""
    if "](" not in markdown:
        return markdown
    out: list[str] = []
    fence = ""
    prose: list[str] = []
    for line in markdown.splitlines(keepends=True):
        opening = _FENCE.match(line)
        if fence:
            out.append(line)
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(
                    fence) and not line[opening.end():].strip():
                fence = ""
            continue
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end():]):
            out.append(_prose_links_as_text("".join(prose)))
            prose = []
            out.append(line)
            fence = opening.group(1)
            continue
        prose.append(line)
    out.append(_prose_links_as_text("".join(prose)))
    return "".join(out)


def _prose_links_as_text(prose: str) -> str:
    """Links and images of `prose` (no fenced code in it) as their text, code spans kept."""
    while "](" in prose:
        rewritten = _LINK_OR_CODE.sub(_read_as, prose)
        if rewritten == prose:
            break
        prose = rewritten
    return prose


def _read_as(found: re.Match[str]) -> str:
    """What a match of `_LINK_OR_CODE` reads as: a code span as it is, a link's label, an
    image's alt text."""
    label = found["label"]
    if label is None:
        label = found["alt"]
    return found[0] if label is None else label


def markdown_to_text(markdown: str, *, skip_heading: bool = False) -> str:
    """mdchunk's Markdown as plain text on one line: no fences, heading marks, emphasis marks,
    link targets, list or quote marks, table pipes; code and math without their delimiters
    (code blocks and display math as they are, inline syntax and escapes being none there).

    Arguments:
        markdown: A span of the page Markdown (a chunk's text, a section's).
        skip_heading: Leave out the first line when it is a heading.
    """
    words: list[str] = []
    fence: tuple[int, str] | None = None  # width of the line prefix of a fence (or of display
    # math's `$$`: its TeX is kept as it is too), and its marker
    for number, line in enumerate(markdown.split("\n")):
        if fence is not None:
            width, marker = fence
            body = line[width:].strip()
            if body.startswith(marker) and not body.strip(marker[0]):
                fence = None
            else:
                words.append(body)
            continue
        match = _CONTAINER.match(line)
        body = _MARKERS.sub("", match.group(2)) if match else line
        opening = _FENCE_MARK.match(body)
        if opening or body.strip() == "$$":
            fence = (len(line) - len(body), opening.group(1) if opening else "$$")
        elif _DELIMITER_ROW.match(body):
            pass
        elif _HEADING.match(body):
            if not (skip_heading and number == 0):
                words.append(inline_text(body.lstrip("#")))
        elif body.startswith("|"):
            cells = _CELL_BORDER.split(body.strip().strip("|"))
            words.append(" ".join(inline_text(cell.replace("\\|", "|")) for cell in cells))
        else:
            words.append(inline_text(body))
    return " ".join(" ".join(words).split())


def inline_text(markdown: str, *, code_spans: bool = False) -> str:
    """Running text without its inline syntax: links as their text and images as their alt
    text (`links_as_text`), footnote references left out, emphasis marks (nested ones too) and
    the backslashes of escapes taken out; code spans and inline math lose their delimiters, or
    with `code_spans` stay whole (a summary in `llms.txt`, which is Markdown)."""
    text = _FOOTNOTE_REF.sub("", links_as_text(markdown))
    parts: list[str] = []
    position = 0
    for atom in INLINE_ATOM.finditer(text):
        parts.append(_without_marks(text[position : atom.start()]))
        if code_spans:
            parts.append(atom.group())
        else:
            parts.append(_unpadded(atom.group(2)) if atom.group(1) else atom.group(3))
        position = atom.end()
    parts.append(_without_marks(text[position:]))
    return "".join(parts)


def _unpadded(code: str) -> str:
    """A code span's code without a space that pads it on either side (one at most on each,
    and never the last character)."""
    if len(code) > 1 and code[0] == " ":
        code = code[1:]
    if len(code) > 1 and code[-1] == " ":
        code = code[:-1]
    return code


def _without_marks(text: str) -> str:
    """Text (no code in it) without emphasis marks, nested ones too, and without the backslash
    of each escape."""
    previous = None
    while previous != text:
        previous = text
        for emphasis in _EMPHASIS:
            text = emphasis.sub(r"\2", text)
    return _ESCAPE.sub(r"\1", text)


_SPACING_MARKS = frozenset("\u0e33\u0eb3")
"""Letters that Unicode's grapheme clusters keep with the letter before them, though they are no
marks (Thai SARA AM, Lao AM: `SpacingMark` in UAX #29)."""


def off_marks(text: str, cut: int, floor: int) -> int:
    """`cut` moved back, not below `floor`, until no combining mark starts the text after it:
    a Thai vowel or tone mark, an accent, stays with the letter it sits on."""
    while cut > floor and (text[cut] in _SPACING_MARKS
                           or unicodedata.category(text[cut]).startswith("M")):
        cut -= 1
    return cut
