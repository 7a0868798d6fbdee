"""The `markdown_chunker` profile (seed 000): `{"content": ..., "metadata": {...}}` per chunk.

Rules where the seed leaves a choice:

- `content_type`: "preamble" for a chunk before the first heading of a page (all of a page
  without headings: the seed treats content before the first heading as preamble);
  "code" / "table" when everything but the headings is code blocks / tables; "mixed" when code
  or tables come with other content (or with each other); otherwise (prose only) "section" when
  the chunk starts with its section's heading, "text" when it does not (the continuation of a
  split section).
- `header_path`: the seed's rule: the heading titles from the top of the page down to and
  including the first heading in the chunk, joined as "/A/B"; for a chunk without a heading,
  the path of the section it lies in (so every chunk of a section shares it); "/__preamble__"
  for a preamble. It differs from the native headerPath (the
  section the chunk starts in) only for a chunk that starts inside one section and holds the
  heading of the next, as when a small section merged into the end of its left neighbour.
- `sub_headers`: the chunk's headings after that first one, kept when deeper than it, or at its
  level with another title (the seed's rule).
- `overlap_size`: written with `previous_content`/`next_content` when overlap is on in
  `metadata` mode. mdchunk measures the window in tokens (`overlap_tokens`), not characters.
  Text overlap duplicates text, which this model excludes, so it adds no overlap fields.
- List facts: `list_type` "ordered", "unordered" or "mixed" (both kinds), from the outermost
  lists (an ordered list with bulleted sublists is "ordered");
  `has_nested_lists`: a list inside a list item; `has_nested_items`: an item that holds more
  than its text (a sublist, code, a table, a second paragraph).
- Code facts: `language` of the first code block that names one (None if none does);
  `has_syntax_highlighting`: some code block names its language.
- Table facts: `row_count` body rows (header excluded) of all tables, `column_count` of the
  widest, `has_header` when every table has a header row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from mdchunk.chunking.chunk import Chunk
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of

ContentType = Literal["text", "code", "table", "mixed", "preamble", "section"]

PREAMBLE_PATH = "/__preamble__"
STRATEGY = "structural"
"""mdchunk always cuts along the heading tree."""


def content_type(chunk: Chunk) -> ContentType:
    """text, code, table, mixed, preamble or section (see the module docstring)."""
    if not chunk.header_path:
        return "preamble"
    kinds = set(chunk.block_types) - {"heading"}
    if kinds == {"code"}:
        return "code"
    if kinds == {"table"}:
        return "table"
    if chunk.features.code_blocks or chunk.features.tables:
        return "mixed"
    return "section" if starts_with_heading(chunk) else "text"


def starts_with_heading(chunk: Chunk) -> bool:
    """True when the chunk's text begins with the heading of its section."""
    if not chunk.header_path:
        return False
    return chunk.text.startswith("#" * chunk.header_depths[-1] + " ")


def header_path(chunk: Chunk) -> str:
    """`/A/B` (see the module docstring), or `/__preamble__`."""
    path, _, _ = _structure(chunk)
    return "/" + "/".join(path) if path else PREAMBLE_PATH


def sub_headers(chunk: Chunk) -> list[str]:
    """The seed's sub_headers: later headings deeper than the first, or its other-titled peers."""
    path, depths, later = _structure(chunk)
    context = depths[-1] if depths else 0
    root = path[-1] if path else None
    return [
        title for title, level in later
        if level > context or (level == context and title != root)
    ]


def _structure(chunk: Chunk) -> tuple[tuple[str, ...], tuple[int, ...], list[tuple[str, int]]]:
    """The path (titles, levels) down to the chunk's first heading, and its later headings.

    `Chunk.sub_headers` are the page-level headings after the chunk's start, so they are the
    last ones of `Features.heading_levels`.
    """
    titles = chunk.sub_headers
    levels = chunk.features.heading_levels[len(chunk.features.heading_levels) - len(titles):]
    later = list(zip(titles, levels, strict=True))
    path, depths = chunk.header_path, chunk.header_depths
    if later and not starts_with_heading(chunk):
        (title, level), later = later[0], later[1:]
        kept = [index for index, depth in enumerate(depths) if depth < level]
        path = (*(path[index] for index in kept), title)
        depths = (*(depths[index] for index in kept), level)
    return path, depths, later


def markdown_chunker_record(chunk: Chunk) -> Record:
    """The record of one chunk."""
    features, flags = chunk.features, chunk.flags
    metadata: dict[str, Any] = {
        "chunk_index": chunk.chunk_number,
        "content_type": content_type(chunk),
        "has_code": features.code_blocks > 0,
        "strategy": STRATEGY,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "header_path": header_path(chunk),
        "sub_headers": sub_headers(chunk),
        "small_chunk": flags.small_chunk,
        "allow_oversize": flags.allow_oversize,
    }
    if flags.small_chunk_reason:
        metadata["small_chunk_reason"] = flags.small_chunk_reason
    if flags.oversize_reason:
        metadata["oversize_reason"] = flags.oversize_reason
    metadata.update(_overlap(chunk))
    if features.lists:
        ordered, outermost = features.ordered_lists, features.lists - features.nested_lists
        metadata["list_type"] = (
            "ordered" if ordered == outermost else "unordered" if not ordered else "mixed"
        )
        metadata["has_nested_lists"] = features.nested_lists > 0
        metadata["has_nested_items"] = features.nested_items > 0
    if features.code_blocks:
        language = next((name for name in features.code_languages if name), None)
        metadata["language"] = language
        metadata["has_syntax_highlighting"] = language is not None
    if features.tables:
        metadata["row_count"] = features.table_rows
        metadata["column_count"] = features.table_columns
        metadata["has_header"] = features.tables_with_header == features.tables
    if chunk.adaptive is not None:  # the seed's adaptive sizing fields (sizes in tokens)
        metadata["adaptive_size"] = chunk.max_tokens
        metadata["content_complexity"] = chunk.adaptive[0]
        metadata["size_scale_factor"] = chunk.adaptive[1]
    return {"content": chunk.text, "metadata": metadata}


def markdown_chunker_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield markdown_chunker_record(chunk)


def _overlap(chunk: Chunk) -> dict[str, Any]:
    options = chunk.chunking_options
    size = options.get("overlap_tokens", 0)
    if options.get("overlap_mode") != "metadata" or not size:
        return {}
    fields: dict[str, Any] = {}
    if chunk.previous_content is not None:
        fields["previous_content"] = chunk.previous_content
    if chunk.next_content is not None:
        fields["next_content"] = chunk.next_content
    fields["overlap_size"] = size
    return fields
