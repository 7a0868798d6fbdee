"""Where a chunker's chunks are in the page text it was given.

Every chunker of the retrieval benchmark chunks the same page Markdown, and every chunk is
judged by its span of that text, so chunkers that return text only (LangChain, LlamaIndex,
docling) are located here. Chunkers rewrite their text in different ways: LangChain and
LlamaIndex trim and rejoin whitespace, docling rewrites inline code as fenced blocks and drops
link targets. `locate_chunks` therefore tries, in order:

1. `exact`: the text itself, searched from the end of the previous chunk (then anywhere);
2. `spaces`: the same with every run of white space taken as one space;
3. `words`: the chunk's words aligned to the page's words (difflib), in a window after the
   previous chunk, accepted when at least half of the chunk's words align; the span runs from
   the first to the last aligned word.

A chunk none of these finds is `unlocated`: it stays in the index (it can be retrieved, and it
spends retrieval budget) but never matches a gold section. The share of each outcome is printed
per chunker, so a chunker is never scored on text the benchmark could not place.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
from collections.abc import Sequence

EXACT, SPACES, WORDS, UNLOCATED = "exact", "spaces", "words", "unlocated"
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")
_CLOSING = re.compile(r"[^\s\w]+")
MIN_ALIGNED = 0.5
"""Share of a chunk's words that must align to the page for a `words` location."""


@dataclasses.dataclass(frozen=True)
class Located:
    """A chunk's span of its page text (`start == end == -1` when unlocated)."""

    start: int
    end: int
    how: str


class PageText:
    """A page's text, with the indexes `locate_chunks` searches it by."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._squeezed, self._squeezed_at = squeeze(text)
        self.words = [match.group().lower() for match in _WORD.finditer(text)]
        self.word_spans = [match.span() for match in _WORD.finditer(text)]
        self._word_starts = [span[0] for span in self.word_spans]

    def find_exact(self, chunk: str, cursor: int) -> Located | None:
        """The chunk verbatim, after `cursor` first."""
        text = chunk.strip()
        if not text:
            return None
        start = self.text.find(text, cursor)
        if start < 0:
            start = self.text.find(text)
        return None if start < 0 else Located(start, start + len(text), EXACT)

    def find_spaces(self, chunk: str, cursor: int) -> Located | None:
        """The chunk with every run of white space read as one space."""
        text, _ = squeeze(chunk)
        text = text.strip()
        if not text:
            return None
        first = bisect.bisect_left(self._squeezed_at, cursor)
        start = self._squeezed.find(text, first)
        if start < 0:
            start = self._squeezed.find(text)
        if start < 0:
            return None
        end = start + len(text) - 1
        return Located(self._squeezed_at[start], self._squeezed_at[end] + 1, SPACES)

    def find_words(self, chunk: str, cursor: int) -> Located | None:
        """The chunk's words aligned to the page's words in a window after `cursor` (then
        over the whole page)."""
        words = [match.group().lower() for match in _WORD.finditer(chunk)]
        if not words:
            return None
        first = bisect.bisect_left(self._word_starts, cursor)
        window = 2 * len(words) + 50
        for begin in (first, max(0, first - window), 0):
            end = len(self.words) if begin == 0 else begin + window
            found = self._align(words, begin, end)
            if found is not None:
                return found
        return None

    def _align(self, words: Sequence[str], begin: int, end: int) -> Located | None:
        matcher = difflib.SequenceMatcher(None, words, self.words[begin:end], autojunk=False)
        blocks = [block for block in matcher.get_matching_blocks() if block.size]
        aligned = sum(block.size for block in blocks)
        if not blocks or aligned < MIN_ALIGNED * len(words):
            return None
        first_word = begin + blocks[0].b
        last_word = begin + blocks[-1].b + blocks[-1].size - 1
        return Located(self.widen_start(self.word_spans[first_word][0]),
                       self.widen_end(self.word_spans[last_word][1]), WORDS)

    def widen_start(self, start: int) -> int:
        """`start`, moved back to its line's start over markup alone (`## `, `- `, `> `):
        chunkers that rewrite Markdown drop those marks, but the chunk holds that line."""
        line_start = self.text.rfind("\n", 0, start) + 1
        return line_start if not _WORD.search(self.text, line_start, start) else start

    def widen_end(self, end: int) -> int:
        """`end`, moved over the punctuation that closes its last word (`.`, `)`, `**`)."""
        match = _CLOSING.match(self.text, end)
        return match.end() if match else end


def squeeze(text: str) -> tuple[str, list[int]]:
    """`text` with each run of white space as one space, and the offset in `text` of each
    character of the result."""
    out: list[str] = []
    offsets: list[int] = []
    last = 0
    for match in _SPACE.finditer(text):
        out.append(text[last:match.start()])
        offsets.extend(range(last, match.start()))
        out.append(" ")
        offsets.append(match.start())
        last = match.end()
    out.append(text[last:])
    offsets.extend(range(last, len(text)))
    return "".join(out), offsets


def locate_chunks(page: str | PageText, chunks: Sequence[str]) -> list[Located]:
    """The span of each of a page's chunks (given in page order) in the page text."""
    text = page if isinstance(page, PageText) else PageText(page)
    cursor = 0
    located = []
    for chunk in chunks:
        found = (text.find_exact(chunk, cursor) or text.find_spaces(chunk, cursor)
                 or text.find_words(chunk, cursor))
        if found is None:
            located.append(Located(-1, -1, UNLOCATED))
            continue
        located.append(found)
        cursor = found.end
    return located
