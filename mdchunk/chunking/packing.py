"""Sections -> pieces of the page's Markdown that fit the token budget (DESIGN.md, Packing rules).

Every piece is a span of the page Markdown; the only places a span may end are between blocks
(sections, top-level blocks, children of a container at any depth), then between sentences,
then between words. Code blocks, tables and display math have no such places: one larger than
the budget becomes a piece of its own, flagged with the reason. What leads a block never ends
a piece: a heading goes with the first part of its content (a section with nothing but its
heading, with its first subsection), and a list item's lead-in with the first part of its
nested list; either stands alone only when not a word more fits the budget with it.

The budget bounds what is embedded (`max_tokens_bounds: embedText`, the default): a chunk of a
section holds at most the budget minus the tokens the embed template adds for that section (its
context line, `EmbedCost`). A context line larger than half the budget reserves half of it: the
text keeps the other half, and a chunk that then exceeds the budget is flagged
`context_integrity`.

Token counts: each block is counted once and the counts are summed to decide what fits (a sum
of parts is never smaller than the count of their concatenation in practice, since the BPE
pre-tokenizer splits at block separators). Every final piece is then counted exactly; should
one exceed the budget all the same, the page is packed again with exact counts throughout.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from mdchunk.chunking.adaptive import complexity
from mdchunk.chunking.markdown_text import off_marks, sentence_ends
from mdchunk.chunking.model import ATOMIC_REASONS, Block
from mdchunk.chunking.span_counts import BlockRuns, last_true
from mdchunk.chunking.tokens import TokenCounter
from mdchunk.chunking.tree import Section
from mdchunk.options import ChunkOptions

_WORD_GAP = re.compile(r"\s+")
_HEADING = re.compile(r"#{1,6}(?: |$)")
# Container markup between blocks: line breaks, indentation, quote markers, list and definition
# markers.
_MARKUP = re.compile(r"(?:[ \n>]|[-+*:] |\d{1,9}[.)] )*")
CONTEXT_INTEGRITY = "context_integrity"
"""The oversize reason of a chunk over its budget because its context line took more than half
of the budget (the text kept the other half)."""
MARGIN_ROUNDS = 3
"""Times a page is packed again when a template's cost, counted apart from the text, fell short
of a chunk's exact embed count (never for the default template, whose counts add up)."""


class EmbedCost(Protocol):
    """What packing needs of the embed template (`mdchunk.chunking.embed.EmbedTemplate`)."""

    def cost(self, path: Sequence[Block]) -> int:
        """Tokens the template adds to a chunk of the section of heading `path`."""

    def tokens(self, path: Sequence[Block], text: str, text_tokens: int) -> int:
        """The exact count of the embed text of a chunk with `text` in the section `path`."""


@dataclasses.dataclass(slots=True)
class Piece:
    """A span of the page Markdown that becomes one chunk (changed only by replacing it; not
    frozen: see `mdchunk.chunking.model.Block`)."""

    start: int
    end: int
    section: Section
    """The section the piece starts in (the root section for the preamble)."""
    oversize_reason: str = ""
    """Why the piece may exceed the budget: an atomic block larger than it."""
    forced_split: bool = False
    """True when the piece was cut inside a sentence (no sentence end fitted the budget)."""
    size: int = 0
    """The chunk's token budget: max_tokens, or its section's adaptive size."""
    adaptive: tuple[float, float] | None = None
    """With adaptive sizing: the section's complexity and scale factor."""
    reserve: int = 0
    """Tokens of the budget left for what the embed template adds (0: the budget bounds the
    text alone)."""
    context_capped: bool = False
    """True when the template would take more than half the budget, and `reserve` is half."""

    @property
    def preamble(self) -> bool:
        """True for content before the page's first heading."""
        return self.section.heading is None


class Packer:
    """Cuts one page into pieces; see the module docstring."""

    def __init__(self, markdown: str, counter: TokenCounter, options: ChunkOptions,
                 blocks: Sequence[Block] = (), embed: EmbedCost | None = None) -> None:
        self.text = markdown
        self.count = counter
        self.runs = BlockRuns(markdown, blocks, counter)
        self.options = options
        self.embed = embed if options.max_tokens_bounds == "embedText" else None
        """The template whose cost the budget holds (None: the budget bounds the text)."""
        self.size = options.max_tokens  # the budget of the section being packed
        self.adaptive: tuple[float, float] | None = None
        self.reserve, self.capped = 0, False  # what the template takes in that section
        self.budget = options.packing_budget()
        self.margins: dict[Section, int] = {}  # tokens a template's cost fell short by
        self.exact = False  # count every candidate exactly (the second, careful pass)

    def _piece(self, start: int, end: int, section: Section, *, oversize_reason: str = "",
               forced_split: bool = False) -> Piece:
        return Piece(start, end, section, oversize_reason=oversize_reason,
                     forced_split=forced_split, size=self.size, adaptive=self.adaptive,
                     reserve=self.reserve, context_capped=self.capped)

    def _reserve(self, section: Section, size: int) -> tuple[int, bool]:
        """Tokens of a budget of `size` kept for the embed template in `section`, and whether
        they were capped at half of it."""
        if self.embed is None:
            return 0, False
        wanted = self.embed.cost(section.path) + self.margins.get(section, 0)
        half = size // 2
        return min(wanted, half), wanted > half

    def _focus(self, section: Section, owner: Section | None = None) -> tuple[int, bool]:
        """Set the budget of the chunks of `section`; return the reserve to restore. When its
        first chunk belongs to `owner` (an enclosing section whose heading leads it), the
        reserve is the larger of the two sections' (a template may cost more for either)."""
        previous = (self.reserve, self.capped)
        self.reserve, self.capped = self._reserve(section, self.size)
        if owner is not None and owner is not section:
            self.reserve, self.capped = max((self.reserve, self.capped),
                                            self._reserve(owner, self.size))
        self.budget = self._text_budget(self.size, self.reserve)
        return previous

    def _unfocus(self, previous: tuple[int, bool]) -> None:
        self.reserve, self.capped = previous
        self.budget = self._text_budget(self.size, self.reserve)

    def _text_budget(self, size: int, reserve: int) -> int:
        """Tokens a piece's own text may hold in a budget of `size` of which `reserve` goes to
        the embed template (and `overlap_tokens` to a text overlap): at least one."""
        return max(1, self.options.packing_budget(size) - reserve)

    def _enter(self, section: Section, *, subsections: bool = True
               ) -> tuple[int, tuple[float, float] | None]:
        """Set the budget for a section starting a chunk group (with adaptive sizing, from the
        blocks of the section's body, and of its subsections'); return the one to restore."""
        previous = (self.size, self.adaptive)
        sizing = self.options.adaptive_sizing
        if sizing is not None:
            parts: Iterable[Section] = section.walk() if subsections else [section]
            score = complexity(self.text, [block for part in parts for block in part.body])
            scale, self.size = sizing.size(score)
            self.adaptive = (score, scale)
        return previous

    def _leave(self, previous: tuple[int, tuple[float, float] | None]) -> None:
        self.size, self.adaptive = previous

    def tokens(self, start: int, end: int) -> int:
        """Exact number of tokens of `text[start:end]`."""
        if start >= end:  # (an empty text has no tokens: no call to the counter)
            return 0
        run = self.runs.tokens(start, end)
        return self.count(self.text[start:end]) if run is None else run

    def pack(self, root: Section) -> list[Piece]:
        """All pieces of the page, in document order, merged and checked against the budget."""
        pieces = self._pack_all(root)
        if any(self._over_budget(piece) for piece in pieces):
            self.exact = True
            pieces = self._pack_all(root)
        for _ in range(MARGIN_ROUNDS):
            short = {piece.section: excess for piece in pieces
                     if (excess := self._embed_excess(piece)) > 0}
            if not short:
                break
            for section, excess in short.items():
                self.margins[section] = self.margins.get(section, 0) + excess
            pieces = self._pack_all(root)
        return pieces

    def _pack_all(self, root: Section) -> list[Piece]:
        pieces: list[Piece] = []
        if root.body:
            previous = self._enter(root, subsections=False)
            focus = self._focus(root)
            pieces += self._split_units(root.body, root)
            self._unfocus(focus)
            self._leave(previous)
        for child in root.children:
            pieces += self._pack_section(child)
        pieces = self._merge_lone_titles(pieces)
        pieces = self._merge_small(pieces)
        return [trimmed for piece in pieces if (trimmed := self._trim(piece)) is not None]

    # -- sections ------------------------------------------------------------------------

    def _pack_section(self, section: Section, owner: Section | None = None) -> list[Piece]:
        """The pieces of `section`. A heading travels with the start of its content: a section
        with nothing but its heading before its subsections that are packed apart leads the
        first of them, whose first piece starts with that heading and belongs to it (`owner`:
        the outermost such section, when `section` is the first subsection of one)."""
        split_level = self.options.split_level
        starts_group = section.level <= split_level or section.parent is None or (
            section.parent.heading is None)
        previous = None
        if starts_group:
            previous = self._enter(section)
        first = owner or section
        focus = self._focus(section, first)
        keeps_whole = all(child.level > split_level for child in section.children)
        start = first.start
        if keeps_whole and self._fits(start, section.end, self._estimate(start, section.end)):
            pieces = [self._piece(start, section.end, first)]
        elif section.children and len(section.body) == 1:  # (the body is the heading alone)
            pieces = self._pack_section(section.children[0], first)
            for child in section.children[1:]:
                pieces += self._pack_section(child)
        else:
            pieces = self._split_units(section.body, section, None if owner is None else start)
            for child in section.children:
                pieces += self._pack_section(child)
        if pieces and first is not section:
            pieces[0] = dataclasses.replace(pieces[0], section=first)
        self._unfocus(focus)
        if previous is not None:
            self._leave(previous)
        return pieces

    def _estimate(self, start: int, end: int) -> int:
        # Sections are runs of top-level blocks: counted from the run sums, or exactly.
        run = self.runs.estimate(start, end)
        return run if run is not None else self.tokens(start, end)

    def _estimate_blocks(self, blocks: Sequence[Block]) -> int:
        run = self.runs.estimate(blocks[0].start, blocks[-1].end) if blocks else None
        if run is not None:
            return run
        total = 0
        for index, block in enumerate(blocks):
            if index:
                total += self.count(self.text[blocks[index - 1].end : block.start])
            total += self.tokens(block.start, block.end)
        return total

    # -- blocks --------------------------------------------------------------------------

    def _split_units(self, units: Sequence[Block], section: Section, lead: int | None = None,
                     *, within: Block | None = None) -> list[Piece]:
        """Greedy packing of sibling blocks: the top-level blocks of a section's body, or the
        children of the container `within`. A heading stays with what follows it, and so does a
        list item's lead-in with its nested list (`_glue_leads`); `lead` is where the first
        piece starts, before the first unit when the headings of enclosing sections (or what
        leads the container) go with it."""
        pieces: list[Piece] = []
        current: tuple[int, int, int] | None = None  # start, end, estimate
        todo = self._starts(_glue_leads(units, within), lead, nested=within is not None)
        todo.reverse()
        while todo:
            start, group = todo.pop()
            end = group[-1].end
            estimate = self.tokens(start, group[0].start) + self._estimate_blocks(group)
            if current is not None:
                joined = current[2] + self.tokens(current[1], start) + estimate
                if self._fits(current[0], end, joined):
                    current = (current[0], end, joined)
                    continue
                pieces.append(self._piece(current[0], current[1], section))
                current = None
            if self._fits(start, end, estimate):
                current = (start, end, estimate)
            elif self.tokens(start, self._line_start(group[-1].start)) >= self.budget:
                set_apart, regrouped = self._make_room(start, group, section, within)
                pieces += set_apart
                todo += reversed(regrouped)
            else:
                pieces += self._split_unit(group[-1], section, start)
        if current is not None:
            pieces.append(self._piece(current[0], current[1], section))
        return pieces

    def _make_room(self, start: int, group: list[Block], section: Section,
                   within: Block | None) -> tuple[list[Piece], list[tuple[int, list[Block]]]]:
        """What leads the group's last unit (from `start` on) leaves it no room in the budget:
        the pieces set apart, and the groups to pack instead. What leads the group from outside
        (enclosing sections' headings, lead-ins of enclosing items) is set apart, a piece of its
        own, and the group packed again from its own line; but where the group's own lead is a
        lead-in (running text) and the outside lead ends in a heading, which would be left
        alone, the group comes apart into its units instead, the first led as the group was."""
        first = self._line_start(group[0].start)
        headings = all(unit.kind == "heading" for unit in group[:-1])
        outside = start < first and not _MARKUP.fullmatch(self.text, start, first)
        if outside and (headings or not self._ends_in_heading(start, first)):
            return [self._lead_piece(start, first, section)], [(first, group)]
        return [], self._starts([[unit] for unit in group], start, nested=within is not None)

    def _ends_in_heading(self, start: int, end: int) -> bool:
        """Whether the last line of `text[start:end]` with words is a heading."""
        line = self.text[start:end].rstrip().rsplit("\n", 1)[-1]
        markup = _MARKUP.match(line)
        return _HEADING.match(line, markup.end() if markup else 0) is not None

    def _starts(self, groups: Iterable[list[Block]], lead: int | None, *, nested: bool
                ) -> list[tuple[int, list[Block]]]:
        """Each group with where a piece that begins with it starts: the first at `lead` when
        given, the others at their first block, or inside a container (`nested`) where the
        group before ends: the text between children holds the container's markup (quote
        markers, indents), which belongs to the next piece, so the chunks tile the page. Blank
        lines alone before a group's line are left to the piece before (they are trimmed)."""
        starts: list[tuple[int, list[Block]]] = []
        for group in groups:
            if not starts:
                start = group[0].start if lead is None else lead
            else:
                start = starts[-1][1][-1].end if nested else group[0].start
            line = self._line_start(group[0].start)
            if start < line and not self.text[start:line].strip():
                start = line
            starts.append((start, group))
        return starts

    def _split_unit(self, unit: Block, section: Section, lead: int) -> list[Piece]:
        """Cut one block too large for the budget: between its children (at any depth),
        sentences or words.

        `lead` is where the piece starts: before `unit` when headings or a lead-in are glued to
        it, which go with the unit's first part (an atomic unit takes them along, over the
        budget). Container markup (indentation, quote and list markers) on the unit's first
        line stays with it, which needs it; markup on lines before it (a quote's `>`) too.
        """
        cut = self._line_start(unit.start)
        if lead < unit.start and not self.text[lead:cut].strip() and (
                self.tokens(cut, unit.end) <= self.budget):
            return [self._piece(cut, unit.end, section)]  # (blank lines before the unit's line)
        if unit.children and not unit.atomic:
            return self._split_units(unit.children, section, lead, within=unit)
        if unit.prose:
            return self._split_prose(unit, section, lead)
        reason = ATOMIC_REASONS.get(unit.kind, "block_integrity")
        return [self._piece(lead, unit.end, section, oversize_reason=reason)]

    def _line_start(self, offset: int) -> int:
        """The start of the line of `offset` when only container markup (`_MARKUP`) comes
        before it there, else `offset`: where a piece that begins with the block at `offset`
        starts."""
        line = self.text.rfind("\n", 0, offset) + 1
        return line if _MARKUP.fullmatch(self.text, line, offset) else offset

    def _split_prose(self, unit: Block, section: Section, lead: int) -> list[Piece]:
        """Cut running text between sentences, and a sentence too large between words; what
        leads the unit (from `lead` on: headings, a lead-in) goes with its first words."""
        bounds = [lead, *self._sentence_starts(unit), unit.end]
        floor = lead if _MARKUP.fullmatch(self.text, lead, unit.start) else unit.start
        pieces: list[Piece] = []
        current: tuple[int, int, int] | None = None
        forced = False  # (whether the current piece starts inside a sentence cut between words)
        for start, end in itertools.pairwise(bounds):
            estimate = self.tokens(start, end)
            if current is not None:
                if self._fits(current[0], end, current[2] + estimate):
                    current = (current[0], end, current[2] + estimate)
                    continue
                pieces.append(self._piece(current[0], current[1], section, forced_split=forced))
                current = None
            if estimate <= self.budget:
                current, forced = (start, end, estimate), False
            else:  # (the sentence's last part may take the sentences after it)
                *cut, rest = self._split_words(start, end, section, max(start, floor))
                pieces += cut
                current, forced = (rest.start, rest.end, self.tokens(rest.start, rest.end)), True
        if current is not None:
            pieces.append(self._piece(current[0], current[1], section, forced_split=forced))
        return pieces

    def _sentence_starts(self, unit: Block) -> list[int]:
        """Where each sentence of `unit` after its first starts: past the end of the one before
        (`sentence_ends`) and the whitespace after it."""
        starts = []
        for end in sentence_ends(self.text, unit.start, unit.end):
            start = end
            while start < unit.end and self.text[start].isspace():
                start += 1
            if start < unit.end:
                starts.append(start)
        return starts

    def _lead_piece(self, start: int, end: int, section: Section) -> Piece:
        """What leads a block (headings, a lead-in) set apart from it, when not even a word of
        the block fits with it; one larger than the budget is kept whole (a heading cut in two
        is no heading) and flagged."""
        too_large = self.tokens(start, end) > self.budget
        reason = "block_integrity" if too_large else ""
        return self._piece(start, end, section, oversize_reason=reason)

    def _split_words(self, start: int, end: int, section: Section, floor: int) -> list[Piece]:
        """Cut a sentence too large for the budget at the last word gap that fits (else the last
        character), repeatedly. The text before `floor` (what leads the sentence) is never cut:
        it stands alone only when not even a character more fits with it."""
        pieces: list[Piece] = []
        while start < end:
            if self.tokens(start, end) <= self.budget:
                pieces.append(self._piece(start, end, section, forced_split=True))
                break
            if start < floor and _MARKUP.fullmatch(self.text, start, floor):
                floor = start  # (container markup alone leads it: it is cut as any text)
            after = max(start, floor, self._markup_end(start)) + 1
            gaps = [m.end() for m in _WORD_GAP.finditer(self.text, after, end)]
            cut = self._last_fitting(start, gaps)
            if cut is None:
                cut = self._last_fitting(start, range(after, end))
                cut = None if cut is None else off_marks(self.text, cut, after)
            if cut is None and start < floor:
                cut = self._line_start(floor)
                pieces.append(self._lead_piece(start, cut, section))
            else:
                cut = cut or after
                pieces.append(self._piece(start, cut, section, forced_split=True))
            start = cut
        return pieces

    def _markup_end(self, start: int) -> int:
        """Where the container markup at `start` ends, where a piece that starts there must
        take some text after it (a list marker alone is no piece, and its text alone, mid-line,
        reads as another block); `start` when that markup leaves the budget no room (deep
        nesting: the markup is then cut as any text)."""
        markup = _MARKUP.match(self.text, start)
        end = markup.end() if markup is not None else start
        return end if self.tokens(start, min(end + 1, len(self.text))) <= self.budget else start

    def _last_fitting(self, start: int, candidates: Sequence[int]) -> int | None:
        """The largest candidate end whose span from `start` fits."""
        return last_true(candidates, lambda end: self.tokens(start, end) <= self.budget)

    # -- merging -------------------------------------------------------------------------

    def _merge_lone_titles(self, pieces: list[Piece]) -> list[Piece]:
        """A page title with little text of its own joins the first section after it when the
        two fit: alone, it says too little to be found. (Only the page title: letting any
        section's short intro join its first subsection lost more of the retrieval
        benchmark's hits than it won, see benchmarks/RESULTS.md.)"""
        out: list[Piece] = []
        for piece in pieces:
            if out and self._is_lone_title(out[-1], piece):
                merged = self._retitled(piece, out[-1])
                if self.tokens(merged.start, merged.end) <= self._budget_of(merged):
                    out[-1] = merged
                    continue
            out.append(piece)
        return out

    def _is_lone_title(self, piece: Piece, following: Piece) -> bool:
        """Whether `piece` is the page title (an H1) and its text before its first section,
        under min_tokens, and `following` starts that section with more than its heading (a
        heading alone would end the chunk, its content in the next one)."""
        children = piece.section.children
        return (piece.section.level == 1 and not following.oversize_reason and bool(children)
                and piece.start == piece.section.start and piece.end <= children[0].start
                and following.start == children[0].start and not _heading_only(following)
                and self.tokens(piece.start, piece.end) < self.options.min_tokens)

    def _retitled(self, following: Piece, title: Piece) -> Piece:
        """`following` grown back to start with the page title `title`, in its section (whose
        context line the chunk now has)."""
        reserve, capped = self._reserve(title.section, following.size)
        return dataclasses.replace(following, start=title.start, section=title.section,
                                   reserve=reserve, context_capped=capped)

    def _merge_small(self, pieces: list[Piece]) -> list[Piece]:
        """Pieces under min_tokens join a neighbour of the same section (left first) if it fits.

        A piece that is only its section's heading joins the piece after it first: joined to
        the piece before, it would be that chunk's last line, away from what follows it. It
        joins the piece before only when its section is empty (nothing of its own follows)."""
        out: list[Piece] = []
        index = 0
        while index < len(pieces):
            piece = pieces[index]
            index += 1
            heading_only = _heading_only(piece)
            forward = heading_only and index < len(pieces) and self._can_merge(piece, pieces[index])
            if not forward and self._small(piece) and out and self._can_merge(out[-1], piece) and (
                    not heading_only or not piece.section.children):
                out[-1] = _joined(out[-1], piece)
                continue
            while (self._small(piece) and index < len(pieces)
                   and self._can_merge(piece, pieces[index])):
                piece = _joined(piece, pieces[index])
                index += 1
            out.append(piece)
        return out

    def _small(self, piece: Piece) -> bool:
        return not piece.oversize_reason and (
            self.tokens(piece.start, piece.end) < self.options.min_tokens)

    def _can_merge(self, left: Piece, right: Piece) -> bool:
        if left.preamble or right.preamble or left.oversize_reason or right.oversize_reason:
            return False
        split_level = self.options.split_level
        if _split_ancestor(left.section, split_level) is not _split_ancestor(
            right.section, split_level
        ):
            return False
        return self.tokens(left.start, right.end) <= self._budget_of(left)

    # -- checks --------------------------------------------------------------------------

    def _fits(self, start: int, end: int, estimate: int) -> bool:
        if not self.exact and estimate <= self.budget:
            return True
        if estimate > self.budget * 5 // 4:
            return False
        return self.tokens(start, end) <= self.budget

    def _budget_of(self, piece: Piece) -> int:
        """Tokens the piece's text may hold."""
        return self._text_budget(piece.size, piece.reserve)

    def _over_budget(self, piece: Piece) -> bool:
        return not piece.oversize_reason and self.tokens(piece.start, piece.end) > (
            self._budget_of(piece))

    def _embed_excess(self, piece: Piece) -> int:
        """Tokens by which the piece's exact embed text exceeds its budget, where the reserve
        for the template fell short (0 without a template to bound, for an oversize piece, or
        where the reserve was capped)."""
        if self.embed is None or piece.oversize_reason or piece.context_capped:
            return 0
        embedded = self.embed.tokens(piece.section.path, self.text[piece.start:piece.end],
                                     self.tokens(piece.start, piece.end))
        return embedded - self.options.packing_budget(piece.size)

    def _trim(self, piece: Piece) -> Piece | None:
        """The piece without whitespace at its edges, but for the indentation of its first line
        when under four columns (a list nested in an item: without it, the items after the
        first re-nest under it; with four or more, the line would read as code)."""
        start, end = piece.start, piece.end
        while start < end and self.text[start].isspace():
            start += 1
        line = self.text.rfind("\n", 0, start) + 1
        if piece.start <= line < start < end and start - line < 4 and not (
                self.text[line:start].strip(" ")):
            start = line
        while end > start and self.text[end - 1].isspace():
            end -= 1
        if start == end:
            return None
        if (start, end) == (piece.start, piece.end):
            return piece
        return dataclasses.replace(piece, start=start, end=end)


def _glue_leads(units: Sequence[Block], within: Block | None) -> list[list[Block]]:
    """Group blocks so that what leads a block stays with it: a heading with the block after
    it, and in a list item (`within`) a paragraph right before a nested list, the item's
    lead-in (`- Markup:` and the list of markup changes)."""
    groups: list[list[Block]] = []
    pending: list[Block] = []
    in_item = within is not None and within.kind == "item"
    for unit, following in itertools.zip_longest(units, units[1:]):
        pending.append(unit)
        lead_in = in_item and unit.kind == "paragraph" and following is not None and (
            following.kind == "list")
        if unit.kind != "heading" and not lead_in:
            groups.append(pending)
            pending = []
    if pending:
        groups.append(pending)
    return groups


def _heading_only(piece: Piece) -> bool:
    """Whether `piece` holds its section's heading and nothing else."""
    heading = piece.section.heading
    return heading is not None and piece.start == heading.start and piece.end <= heading.end


def _joined(left: Piece, right: Piece) -> Piece:
    return Piece(
        left.start,
        right.end,
        left.section,
        oversize_reason=left.oversize_reason or right.oversize_reason,
        forced_split=left.forced_split or right.forced_split,
        size=left.size,
        adaptive=left.adaptive,
        reserve=left.reserve,
        context_capped=left.context_capped,
    )


def _split_ancestor(section: Section, split_level: int) -> Section:
    """The nearest section at or above the split level that contains `section`."""
    node = section
    while node.level > split_level and node.parent is not None:
        node = node.parent
    return node
