"""Chunk records from a packed page: every field of `Chunk` but the packing's own."""

from __future__ import annotations

import bisect
import dataclasses
import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from mdchunk._version import __version__
from mdchunk.chunking.chunk import Chunk, Features, Flags, versioned_doc_name
from mdchunk.chunking.embed import EmbedTemplate, section_slug
from mdchunk.chunking.model import Block, PageInput, ParsedPage
from mdchunk.chunking.overlap import head, tail
from mdchunk.chunking.packing import CONTEXT_INTEGRITY, Piece
from mdchunk.chunking.tokens import TokenCounter
from mdchunk.options import ChunkOptions

_ORDERED_MARKER = re.compile(r"\d+\. ")
_CELL_BORDER = re.compile(r"(?<!\\)\|")


@dataclasses.dataclass(frozen=True, slots=True)
class DescribeSettings:
    """What every chunk of a page shares: the `Chunker`'s settings, read for each page (the
    post-build path sets `Chunker.site_url` page by page)."""

    options: ChunkOptions
    count: TokenCounter
    site_url: str
    processed_at: str
    options_dict: dict[str, Any]
    """`options.as_dict()`, made once."""
    language: str | None = None
    """The build's natural language (`Chunker.language`)."""
    language_folder: str = ""
    """The folder of the build's language in a site built once per language, which prefixes
    the doc names (`doc_name_in`)."""
    docs_version: str | None = None
    """The version of the docs (`Chunk.docs_version`)."""
    site_prefix: str | None = None
    """The site the page belongs to among many chunked together (`mdchunk.ray`): it prefixes
    the doc names as a version folder does (`versioned_doc_name`), before the version, so that
    ids stay unique across sites; None: no prefix."""


def doc_name_in(folder: str, doc_name: str) -> str:
    """The doc name of a page of the build whose language sits in `folder`: `folder/` and the
    page's own, unless its source path starts with that folder already (mkdocs-static-i18n's
    `docs_structure: folder`), so that the ids of a site's languages never meet."""
    if not folder or doc_name.startswith(folder + "/"):
        return doc_name
    return f"{folder}/{doc_name}"


def page_language(front_matter: Mapping[str, Any], build_language: str | None) -> str | None:
    """The page's natural language: its front matter `language`, else `lang` (a non-blank
    scalar, as text), else `build_language` (the engine's for the page, else the build's);
    None when neither says."""
    for key in ("language", "lang"):
        value = front_matter.get(key)
        if value is None or isinstance(value, bool | dict | list):
            continue
        text = str(value).strip()
        if text:
            return text
    return build_language


class ChunkBuilder:
    """Turns the pieces of one page into `Chunk` records."""

    def __init__(self, settings: DescribeSettings, page: PageInput, parsed: ParsedPage,
                 elapsed: float, span_tokens: Callable[[int, int], int], *,
                 embed: EmbedTemplate, meta: dict[str, Any]) -> None:
        self.settings = settings
        self.options = settings.options
        self.count = settings.count
        self.span_tokens = span_tokens  # exact count of markdown[start:end], run sums reused
        self.embed = embed
        self.page = page  # (`clean_page`'s)
        self.doc_name = versioned_doc_name(versioned_doc_name(
            doc_name_in(settings.language_folder, self.page.doc_name), settings.docs_version),
            settings.site_prefix)
        self.text = parsed.markdown
        self.blocks = parsed.blocks
        self.block_starts = [block.start for block in parsed.blocks]
        flat = _Flattened(parsed.blocks)
        self.all_blocks, self.all_starts, self.all_kinds = flat.blocks, flat.starts, flat.kinds
        self.nested_lists, self.nested_items = flat.nested_lists, flat.nested_items
        self.detailed = flat.detailed
        self.line_cursor = (0, 1)  # an offset of the text and its line, for `_line`
        self.elapsed = elapsed
        self.meta = meta  # the front matter as JSON values, made by the `Chunker`

    def chunk(self, number: int, total: int, piece: Piece, starts: Sequence[int],
              pieces: Sequence[Piece]) -> Chunk:
        start, end = starts[number], piece.end
        text = self.text[start:end]
        path = piece.section.path
        header_path = tuple(map(_TITLE, path))
        tokens = self.span_tokens(start, end)
        embed_text = self.embed.render(path, text)
        embed_tokens = self.embed.tokens(path, text, tokens)
        previous_content, next_content = self._neighbours(number, pieces)
        # The top-level blocks that start inside the chunk, and those that enclose its start.
        first = bisect.bisect_left(self.block_starts, start)
        inside = self.blocks[first : bisect.bisect_left(self.block_starts, end, first)]
        headings = [block for block in inside if block.kind == "heading"]
        enclosing = self._enclosing(start, first - 1)
        top = enclosing[:1] + list(inside)
        return Chunk(
            doc_name=self.doc_name,
            chunk_number=number,
            total_chunks=total,
            text=text,
            embed_text=embed_text,
            file_title=self.page.title,
            section_title=header_path[-1] if header_path else self.page.title,
            header_path=header_path,
            header_depths=tuple(map(_LEVEL, path)),
            header_slugs=tuple(map(_ANCHOR, path)),
            section_slug=section_slug(path),
            sub_headers=tuple(
                b.title for b in top if b.kind == "heading" and b.start > piece.start
            ),
            page_url=self.page.url,
            site_url=self.settings.site_url,
            char_start=start,
            char_end=end,
            start_line=self._line(start),
            end_line=self._line(end),
            tokens=tokens,
            embed_tokens=embed_tokens,
            block_types=tuple(dict.fromkeys(map(_KIND, top))),
            features=self._features(start, end, enclosing, headings),
            flags=self._flags(piece, text, top, tokens=tokens, embed_tokens=embed_tokens, overlap=(
                start < piece.start,
                number + 1 < total and starts[number + 1] < pieces[number + 1].start)),
            previous_content=previous_content,
            next_content=next_content,
            source_file=self.page.source_path,
            processed_at=self.settings.processed_at,
            chunking_options=self.settings.options_dict,
            processing_time_ms=self.elapsed,
            front_matter=self.meta,
            version=__version__,
            max_tokens=piece.size,
            adaptive=piece.adaptive,
            language=page_language(self.meta, self.page.language or self.settings.language),
            docs_version=self.settings.docs_version,
        )

    def _flags(self, piece: Piece, text: str, top: list[Block], *, tokens: int,
               embed_tokens: int, overlap: tuple[bool, bool]) -> Flags:
        """How the chunk of `piece` was cut: `top` are its top-level blocks (and the one that
        encloses its start), `overlap` whether it starts with the previous chunk's tail and the
        next one with its own."""
        small = (
            tokens < self.options.min_tokens
            and not piece.oversize_reason
            and _structurally_weak(text, top)
        )
        oversize_reason = self._oversize_reason(piece, tokens, embed_tokens)
        return Flags(
            allow_oversize=oversize_reason is not None,
            oversize_reason=oversize_reason,
            small_chunk=small,
            small_chunk_reason="cannot_merge" if small else None,
            forced_split=piece.forced_split,
            has_overlap_previous=overlap[0],
            has_overlap_next=overlap[1],
        )

    def _neighbours(self, number: int, pieces: Sequence[Piece]) -> tuple[str | None, str | None]:
        """The end of the piece before piece `number` and the start of the one after it, each
        `overlap_tokens` long, where the overlap goes in the metadata (`overlap_mode`)."""
        overlap = self.options.overlap_tokens
        if self.options.overlap_mode != "metadata" or overlap <= 0:
            return None, None
        previous = following = None
        if number > 0:
            before = pieces[number - 1]
            previous = tail(self.text[before.start:before.end], self.count, overlap)
        if number + 1 < len(pieces):
            after = pieces[number + 1]
            following = head(self.text[after.start:after.end], self.count, overlap)
        return previous, following

    def _enclosing(self, start: int, index: int) -> list[Block]:
        """The blocks that enclose `start` (strictly), outermost first: the top-level block at
        `index` (the last one that starts before `start`), then the blocks inside it.

        Siblings are ordered and disjoint, so only the last child that starts before `start`
        may enclose it: a bisection finds it, where a scan would walk long lists' items."""
        enclosing: list[Block] = []
        holder = self.blocks[index] if index >= 0 else None
        while holder is not None and start < holder.end:
            enclosing.append(holder)
            children = holder.children
            position = bisect.bisect_left(children, start, key=_START) - 1
            holder = children[position] if position >= 0 else None
        return enclosing

    def _line(self, offset: int) -> int:
        """1-based line of `offset` in the page Markdown, counted on from the last one asked
        (chunks come in order)."""
        cursor, line = self.line_cursor
        if offset >= cursor:
            line += self.text.count("\n", cursor, offset)
        else:
            line -= self.text.count("\n", offset, cursor)
        self.line_cursor = (offset, line)
        return line

    def _oversize_reason(self, piece: Piece, tokens: int, embed_tokens: int) -> str | None:
        """Why the chunk exceeds its budget (None when it does not): an atomic block larger
        than the budget, or a context line that took more than half of it (`Piece`). The
        budget bounds `embedText` or `originalText`, as `max_tokens_bounds` says."""
        bounded = embed_tokens if self.options.max_tokens_bounds == "embedText" else tokens
        if bounded <= piece.size:
            return None
        reason = piece.oversize_reason or (CONTEXT_INTEGRITY if piece.context_capped else "")
        return reason or None

    def _features(self, start: int, end: int, enclosing: list[Block],
                  headings: list[Block]) -> Features:
        """What the chunk `[start, end)` holds: the blocks that start inside it and those that
        `enclosing` gives; `headings` are the top-level ones that start inside it."""
        # Kinds are counted in a slice of `all_kinds`; only the blocks that need more than
        # their kind (`detailed`) are visited one by one.
        first = bisect.bisect_left(self.all_starts, start)
        last = bisect.bisect_left(self.all_starts, end, first)
        kinds = [block.kind for block in enclosing] + self.all_kinds[first:last]
        detailed = self.detailed
        inside = detailed[bisect.bisect_left(detailed, first) : bisect.bisect_left(detailed, last)]
        languages: set[str] = set()
        code_languages: list[str] = []
        inline = ordered = nested_lists = nested_items = 0
        rows = columns = with_header = 0
        for block in enclosing + [self.all_blocks[index] for index in inside]:
            if block.language:
                languages.add(block.language)
            if block.inline_math:
                inline += sum(1 for offset in block.inline_math if start <= offset < end)
            if block.kind == "list":
                nested = id(block) in self.nested_lists
                nested_lists += nested
                ordered += not nested and bool(_ORDERED_MARKER.match(self.text, block.start))
            elif block.kind == "item":
                nested_items += id(block) in self.nested_items
            elif block.kind == "code":
                code_languages.append(block.language)
            elif block.kind == "table":
                body_rows, width, header = _table_shape(self.text[block.start : block.end])
                rows += body_rows
                columns = max(columns, width)
                with_header += header
        return Features(
            headings=kinds.count("heading"),
            paragraphs=kinds.count("paragraph"),
            lists=kinds.count("list"),
            list_items=kinds.count("item"),
            code_blocks=kinds.count("code"),
            tables=kinds.count("table"),
            equations_display=kinds.count("math"),
            equations_inline=inline,
            admonitions=kinds.count("admonition"),
            languages=tuple(sorted(languages)),
            heading_levels=tuple(map(_LEVEL, headings)),
            ordered_lists=ordered,
            nested_lists=nested_lists,
            nested_items=nested_items,
            code_languages=tuple(code_languages),
            table_rows=rows,
            table_columns=columns,
            tables_with_header=with_header,
        )


#: Kinds of the blocks `_ChunkBuilder._features` looks at one by one (besides any with a
#: language or inline math).
_DETAILED = frozenset({"list", "item", "code", "table"})
_KIND = operator.attrgetter("kind")
_START = operator.attrgetter("start")
_TITLE = operator.attrgetter("title")
_LEVEL = operator.attrgetter("level")
_ANCHOR = operator.attrgetter("anchor")
class _Flattened:
    """Every block of a page in document order (`ParsedPage.walk`), with its start and kind;
    the indexes of the blocks that `_features` looks at one by one (`detailed`: most count by
    their kind alone); the ids of the lists that sit inside another list; those of the list
    items that hold more than their text (a sublist, code, a table, further paragraphs).

    One walk for all of them, with its own stack (a page's nesting may be deep): each block's
    fields are read once."""

    def __init__(self, top: Sequence[Block]) -> None:
        self.blocks: list[Block] = []
        self.starts: list[int] = []
        self.kinds: list[str] = []
        self.detailed: list[int] = []
        self.nested_lists: set[int] = set()
        self.nested_items: set[int] = set()
        stack: list[tuple[Iterator[Block], bool]] = [(iter(top), False)]
        while stack:
            level, in_list = stack[-1]
            for block in level:
                kind = block.kind
                if kind in _DETAILED or block.language or block.inline_math:
                    self.detailed.append(len(self.blocks))
                self.blocks.append(block)
                self.starts.append(block.start)
                self.kinds.append(kind)
                children = block.children
                if kind == "list":
                    if in_list:
                        self.nested_lists.add(id(block))
                    for item in children:
                        content = item.children
                        if len(content) > 1 or (content and content[0].kind != "paragraph"):
                            self.nested_items.add(id(item))
                    stack.append((iter(children), True))
                    break
                if children:
                    stack.append((iter(children), in_list))
                    break
            else:
                stack.pop()


def _table_shape(table: str) -> tuple[int, int, bool]:
    """Body rows, columns and whether the header row has text, of a table's Markdown.

    The parser always writes a header row and a delimiter row (an empty header row for a table
    without one); lines may carry a container prefix (`> `, list indent) before the first `|`.
    """
    if table.lstrip(" >").startswith("<table>"):
        return _html_table_shape(table)
    lines = [line[line.find("|"):] for line in table.split("\n") if "|" in line]
    if len(lines) < 2:
        return 0, 0, False
    columns = len(lines[1].strip().strip("|").split("|"))
    return len(lines) - 2, columns, bool(_CELL_BORDER.sub("", lines[0]).strip())


def _html_table_shape(table: str) -> tuple[int, int, bool]:
    """`_table_shape` of a table the parser wrote as HTML (its cells hold blocks): one tag a
    line, `<tr>`, `<th>` and `<td>` of its own at nesting depth one (a cell may hold tables)."""
    rows: list[list[str]] = []
    depth = 0
    for line in table.split("\n"):
        tag = line.lstrip(" >")
        if tag.startswith("<table>"):
            depth += 1
        elif tag.startswith("</table>"):
            depth -= 1
        elif depth == 1 and tag == "<tr>":
            rows.append([])
        elif depth == 1 and rows and tag.startswith(("<th", "<td")):
            rows[-1].append(tag[1:3])
    if not rows:
        return 0, 0, False
    header = all(cell == "th" for cell in rows[0])
    return len(rows) - header, max(map(len, rows)), header


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _clean_text(text: str) -> str:
    """Text without C0 controls (tab and line ends aside), DEL or lone surrogates."""
    if not text.isascii():
        text = text.encode("utf-8", "ignore").decode("utf-8")
    return _CONTROLS.sub("", text)


def clean_page(page: PageInput) -> PageInput:
    """The page facts as the records hold them. The title comes from the engine, not through
    the HTML parser: the same cleaning (no C0 controls or DEL, no lone surrogates), so it cannot
    carry a NUL into the JSON. Paths from the file system may hold undecodable bytes (lone
    surrogates in Python): written as `\\xNN` escapes, so ids stay unique and every output is
    valid UTF-8."""
    return dataclasses.replace(page, title=_clean_text(page.title),
                               source_path=_escaped(page.source_path), url=_escaped(page.url))


def _escaped(text: str) -> str:
    """`text` with lone surrogates as backslash escapes of their bytes (unchanged otherwise)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            data = text.encode("utf-8", "surrogateescape")  # undecodable file name bytes
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
        return data.decode("utf-8", "backslashreplace")
    return text


def _structurally_weak(text: str, blocks: Sequence[Block]) -> bool:
    """Seed 000's test of a chunk too weak to stand alone: a chunk of headings alone (a section
    with no body) always is; any other is weak unless it has an H2 or H3 heading (a section
    with its brief description), 3 lines of body, over 100 characters of body or 2 paragraph
    breaks. `blocks` are the chunk's top-level blocks (and the one enclosing its start)."""
    headings = [block for block in blocks if block.kind == "heading"]
    if len(headings) == len(blocks):
        return True
    if any(heading.level in (2, 3) for heading in headings):
        return False
    body_lines = [line for line in text.split("\n") if line.strip() and not line.startswith("#")]
    body = "\n".join(body_lines)
    return len(body_lines) < 3 and len(body) <= 100 and text.count("\n\n") < 2
