"""The `adr` profile (seed 004): `{"text": ..., "metadata": {...}}`, ready for ChromaDB.

Metadata comes from the page's front matter, with fallbacks:

| key | from | fallback |
|---|---|---|
| `doc_id` | `id` | the docName (`guide/install`) |
| `doc_title` | `title` | the page title, else the docName |
| `doc_type` | `type` | "doc" |
| `section` | the title of the section the chunk starts in (*) | the page title (preamble) |
| `header_level` | that section's heading level | 0 (preamble) |
| `relates_to` | `relates_to` | "" |
| `chunk_index` | the chunk's number in its page | |
| `file_path` | the page's source path, relative to the docs folder | |

(*) The seed merges a lone H1 into the first H2 section, and so does mdchunk: such a chunk
starts with the H1, which is the document (`doc_title`), so its section is that H2.

ChromaDB accepts only str, int, float and bool metadata values, so every value is one of those:
a `relates_to` list is joined with commas (`"ADR-0180,GOV-0020"`; filter with `$contains`),
and other front matter values become their text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mdchunk.chunking.chunk import Chunk
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of, front_matter_text

DEFAULT_DOC_TYPE = "doc"
LIST_SEPARATOR = ","
"""Joins the items of a front matter list into one ChromaDB string."""
_LONE_TITLE = re.compile(r"# [^\n]*\n\s*#{2,6} ")


def adr_record(chunk: Chunk) -> Record:
    """The record of one chunk."""
    section, level = section_of(chunk)
    metadata: dict[str, str | int] = {
        "doc_id": front_matter_text(chunk, "id") or chunk.doc_name,
        "doc_title": front_matter_text(chunk, "title") or chunk.file_title or chunk.doc_name,
        "doc_type": front_matter_text(chunk, "type") or DEFAULT_DOC_TYPE,
        "section": section,
        "header_level": level,
        "relates_to": joined(chunk.front_matter.get("relates_to")),
        "chunk_index": chunk.chunk_number,
        "file_path": chunk.source_file,
    }
    return {"text": chunk.text, "metadata": metadata}


def adr_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield adr_record(chunk)


def section_of(chunk: Chunk) -> tuple[str, int]:
    """Title and level of the chunk's section; for a chunk that starts with a lone H1 (the page
    title, merged into the section after it), that section's."""
    if chunk.header_depths == (1,) and chunk.sub_headers and _LONE_TITLE.match(chunk.text):
        levels = chunk.features.heading_levels
        return chunk.sub_headers[0], levels[len(levels) - len(chunk.sub_headers)]
    if not chunk.header_depths:
        return chunk.section_title, 0
    return chunk.section_title, chunk.header_depths[-1]


def joined(value: Any) -> str:
    """A front matter value as one string: list items joined with commas, None as ""."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return LIST_SEPARATOR.join(str(item).strip() for item in value if item is not None)
    return str(value).strip()
