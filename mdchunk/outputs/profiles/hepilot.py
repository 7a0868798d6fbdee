"""The `hepilot` profile: records valid against seed 003's JSON Schema (`hepilot_schema.json`).

The schema is shipped as package data, exactly as the seed gives it (its one mis-encoded
character, a multiplication sign, repaired); `hepilot_schema()` loads it for validation.

`chunk_type` rule: the kinds of content in the chunk besides its headings are sorted into
text (paragraphs, lists, quotes, admonitions, code, anything else), tables and display equations.
Only tables -> "table"; only display equations -> "equation"; only text, or nothing but headings
-> "text"; more than one kind -> "mixed". Code counts as text: the schema has no kind for it, and
a fenced block is CommonMark text. Inline equations stay text (they are counted in
`content_features.equation_count`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any, Literal

from mdchunk.chunking.chunk import Chunk
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of

ChunkType = Literal["text", "table", "equation", "mixed"]

SCHEMA_FILE = "hepilot_schema.json"
"""Seed 003's schema, beside this module."""

_NOT_TEXT = frozenset({"heading", "table", "math"})


@functools.cache
def _schema_text() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def hepilot_schema() -> dict[str, Any]:
    """Seed 003's JSON Schema (draft 2020-12), a fresh copy."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


def chunk_type(chunk: Chunk) -> ChunkType:
    """text, table, equation or mixed (see the module docstring)."""
    kinds = {
        "text": any(kind not in _NOT_TEXT for kind in chunk.block_types),
        "table": chunk.features.tables > 0,
        "equation": chunk.features.equations_display > 0,
    }
    present = [name for name, found in kinds.items() if found]
    if len(present) > 1:
        return "mixed"
    if present == ["table"]:
        return "table"
    if present == ["equation"]:
        return "equation"
    return "text"


def hepilot_record(chunk: Chunk) -> Record:
    """The record of one chunk.

    `chunk_id` and `document_id` are the chunk's deterministic uuids (version 5, from its id and
    its page's id). The schema's prose says "UUID v4", but it only checks `format: uuid`, and a
    stable id across builds is worth more to an index than a random one.
    """
    features = chunk.features
    return {
        "chunk_id": chunk.uuid,
        "document_id": chunk.document_uuid,
        "chunk_index": chunk.chunk_number,
        "total_chunks": chunk.total_chunks,
        "content": chunk.text,
        "token_count": chunk.tokens,
        "chunk_type": chunk_type(chunk),
        "section_path": list(chunk.header_path),
        "has_overlap_previous": chunk.flags.has_overlap_previous,
        "has_overlap_next": chunk.flags.has_overlap_next,
        "content_features": {
            "heading_count": features.headings,
            "list_count": features.lists,
            "table_count": features.tables,
            "equation_count": features.equations_inline + features.equations_display,
        },
    }


def hepilot_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield hepilot_record(chunk)
