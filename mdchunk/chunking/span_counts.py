"""Token counts of spans of the page Markdown without counting the page again for each
candidate span: runs of whole top-level blocks from one count per block (`BlockRuns`), where
tiktoken must begin a piece (`last_piece_start`), and the binary searches for the longest or
shortest span within a budget (`first_true`, `last_true`). Packing and the text overlap use
them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from mdchunk.chunking.model import Block
from mdchunk.chunking.tokens import TokenCounter


class BlockRuns:
    """Exact token counts of runs of whole top-level blocks, from one count per block.

    tiktoken cuts text into pieces by a regex before BPE, and a piece that reaches a line end
    ends there when a non-space character follows (tests/test_tokens.py checks this as a
    property). Top-level blocks are separated by newlines and start with a non-space
    character, so a run of them counts as the sum of each block counted with the separator
    after it, plus the last block alone: the page is counted once, not once per candidate.
    """

    def __init__(self, text: str, blocks: Sequence[Block], count: TokenCounter) -> None:
        self.text = text
        self.blocks = blocks
        self.count = count
        self.first: dict[int, int] = {}  # a block's start: its index
        self.last: dict[int, int] = {}  # a block's end: its index
        self._alone_counts: dict[int, int] = {}  # block index: its count without separator
        self._breaks: list[int] = []  # breaks[i]: separators before block i that are not line ends
        #: sums[i]: the counts of blocks 0..i-1, each with the separator after it (packing and
        #: the page's sections ask for every block's count: they are made at once).
        self.sums = sums = [0]
        first, last, marks = self.first, self.last, self._breaks
        breaks = total = 0
        size = len(text)
        previous: Block | None = None
        for index, block in enumerate(blocks):  # (one pass, each block's offsets read once)
            start, end = block.start, block.end
            first[start] = index
            last[end] = index
            if previous is not None:
                previous_end = previous.end
                if text.find("\n", previous_end, start) < 0 or (
                        start < size and text[start].isspace()):
                    breaks += 1
                total += count(text[previous.start : start])
                sums.append(total)
            marks.append(breaks)
            previous = block
        if previous is not None:
            sums.append(total + count(text[previous.start : previous.end]))

    def tokens(self, start: int, end: int) -> int | None:
        """The exact count of `text[start:end]` when it is a run of whole blocks, else None."""
        run = self._run(start, end)
        if run is None:
            return None
        first, last = run
        sums = self.sums
        alone = self._alone_counts.get(last)
        if alone is None:  # (asked for again and again while packing: 15,000 times, 3,300 ends)
            alone = self._alone_counts[last] = self._alone(last, sums[last + 1] - sums[last])
        return sums[last] - sums[first] + alone

    def _alone(self, index: int, with_separator: int) -> int:
        """The count of block `index` without the separator after it, from its count with it:
        only the block's last piece is counted again (with and without the separator)."""
        block = self.blocks[index]
        if index + 1 == len(self.blocks):
            return with_separator
        cut = last_piece_start(self.text, block.start, block.end)
        if cut is None:
            return self.count(self.text[block.start : block.end])
        following = self.blocks[index + 1].start
        return (with_separator - self.count(self.text[cut:following])
                + self.count(self.text[cut : block.end]))

    def estimate(self, start: int, end: int) -> int | None:
        """The run's count with the separator after its last block (no extra counting; at most
        a token or two above the exact count), or None when it is no run of whole blocks."""
        run = self._run(start, end)
        if run is None:
            return None
        sums = self.sums
        return sums[run[1] + 1] - sums[run[0]]

    def _run(self, start: int, end: int) -> tuple[int, int] | None:
        first, last = self.first.get(start), self.last.get(end)
        if first is None or last is None or last < first:
            return None
        if self._breaks[last] != self._breaks[first]:
            return None
        return first, last



def last_piece_start(text: str, start: int, end: int) -> int | None:
    """The last offset in `text[start:end]` where tiktoken must begin a piece whatever follows
    (so `text[:at]` and `text[at:]` count apart), or None.

    tiktoken's regexes (cl100k, o200k, p50k, r50k) never put a space after a non-space
    character inside one piece, and a piece that reaches a line end ends there when a
    non-space character follows (tests/test_tokens.py checks both as properties). Only
    printable ASCII counts as non-space here, where Python and the regexes' `\\s` agree.
    """
    at = end
    while True:
        at = text.rfind(" ", start + 1, at)
        if at < 0:
            break
        if "!" <= text[at - 1] <= "~":
            break
    line = text.rfind("\n", start, end - 1) + 1
    if line > start and "!" <= text[line] <= "~":
        at = max(at, line)
    return at if at > start else None


def first_true(candidates: Sequence[int], test: Callable[[int], bool]) -> int | None:
    """The first candidate that passes `test`, when every later one passes too (a binary
    search: a span's token count only shrinks as its start moves right)."""
    at = bisect.bisect_left(candidates, True, key=test)
    return candidates[at] if at < len(candidates) else None


def last_true(candidates: Sequence[int], test: Callable[[int], bool]) -> int | None:
    """The last candidate that passes `test`, when every earlier one passes too (a binary
    search: a span's token count only grows as its end moves right)."""
    at = bisect.bisect_left(candidates, True, key=lambda candidate: not test(candidate))
    return candidates[at - 1] if at else None
