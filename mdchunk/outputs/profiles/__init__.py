"""Output profiles: pure functions from one page's chunks to the records of each format.

Each module follows one seed document exactly; `PROFILES` lists them by the name users select.
They only make records: `mdchunk.outputs.formats` writes them.

| name | records | written to |
|---|---|---|
| `native` | `Chunk.as_native()` | `chunks.jsonl` (the `output` option) |
| `files` | seed 002, one file per chunk | `chunks/{contentType}_{docName}__ch{n}.json` |
| `hepilot` | seed 003's JSON Schema | `chunks.hepilot.jsonl` |
| `semantic` | seed 001's `SemanticChunk` | `chunks.semantic.jsonl` |
| `flat` | seed 001's `FlatSemanticChunk` | `chunks.flat.jsonl` |
| `markdown_chunker` | seed 000's metadata | `chunks.markdown_chunker.jsonl` |
| `adr` | seed 004's metadata (ChromaDB-ready) | `chunks.adr.jsonl` |
| `docsearch` | DocSearch / Typesense scraper records | `docsearch.json` (a JSON array) |
| `sqlite` | the native records + an FTS5 index (`mdchunk.outputs.sqlite`) | `chunks.sqlite` |
| `pagefind` | one Pagefind custom record per section (`outputs.pagefind_bundle`) | `pagefind/` |
| `sections` | one record per section of the heading tree, with its chunks' ids | `sections.jsonl` |
"""

from __future__ import annotations

from collections.abc import Callable

from mdchunk.outputs.catalog import FORMATS, Record, check_formats
from mdchunk.outputs.profiles.adr import adr_record, adr_records
from mdchunk.outputs.profiles.base import ChunksLike, Profile, ProfileSettings, chunks_of
from mdchunk.outputs.profiles.docsearch import docsearch_record, docsearch_records
from mdchunk.outputs.profiles.files import (
    file_doc_name,
    file_path,
    file_record,
    files_by_name,
    files_layout,
    files_records,
)
from mdchunk.outputs.profiles.flat import FlatSemanticChunk, flat_records, to_flat, to_semantic
from mdchunk.outputs.profiles.hepilot import (
    chunk_type,
    hepilot_record,
    hepilot_records,
    hepilot_schema,
)
from mdchunk.outputs.profiles.markdown_chunker import (
    content_type,
    markdown_chunker_record,
    markdown_chunker_records,
)
from mdchunk.outputs.profiles.native import native_records
from mdchunk.outputs.profiles.pagefind import pagefind_records
from mdchunk.outputs.profiles.sections import section_records
from mdchunk.outputs.profiles.semantic import (
    ChunkMetrics,
    FeedbackMetrics,
    SemanticChunk,
    semantic_chunks,
    semantic_records,
)
from mdchunk.outputs.profiles.validation import ChunkValidationError

__all__ = [
    "PROFILES",
    "ChunkMetrics",
    "ChunkValidationError",
    "ChunksLike",
    "FeedbackMetrics",
    "FlatSemanticChunk",
    "Profile",
    "ProfileSettings",
    "Record",
    "SemanticChunk",
    "adr_record",
    "adr_records",
    "check_formats",
    "chunk_type",
    "chunks_of",
    "content_type",
    "docsearch_record",
    "docsearch_records",
    "file_doc_name",
    "file_path",
    "file_record",
    "files_by_name",
    "files_layout",
    "files_records",
    "flat_records",
    "hepilot_record",
    "hepilot_records",
    "hepilot_schema",
    "markdown_chunker_record",
    "markdown_chunker_records",
    "native_records",
    "pagefind_records",
    "section_records",
    "semantic_chunks",
    "semantic_records",
    "to_flat",
    "to_semantic",
]

_Records = Callable[[ChunksLike, ProfileSettings], list[Record]]


def _page_only(records: Callable[[ChunksLike], list[Record]]) -> _Records:
    """A profile function that needs nothing but the chunks."""
    return lambda chunks, _settings: records(chunks)


_RECORDS: dict[str, _Records] = {
    "native": _page_only(native_records),
    "files": _page_only(files_records),
    "hepilot": _page_only(hepilot_records),
    "semantic": semantic_records,
    "flat": flat_records,
    "markdown_chunker": _page_only(markdown_chunker_records),
    "adr": _page_only(adr_records),
    "docsearch": _page_only(docsearch_records),
    "sqlite": _page_only(native_records),
    "pagefind": pagefind_records,
    "sections": _page_only(section_records),
}
"""How each format's records are made from a page's chunks."""

PROFILES: dict[str, Profile] = {
    name: Profile(name, output.target, output.layout, _RECORDS[name], output.description,
                  embedding=output.embedding)
    for name, output in FORMATS.items()
}
"""Every output format by name, with how its records are made (`mdchunk.outputs.catalog`
says where they go)."""


