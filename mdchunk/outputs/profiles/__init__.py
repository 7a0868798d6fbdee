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

from collections.abc import Callable, Sequence

from mdchunk.errors import OptionError
from mdchunk.outputs.profiles.adr import adr_record, adr_records
from mdchunk.outputs.profiles.base import ChunksLike, Profile, ProfileSettings, Record, chunks_of
from mdchunk.outputs.profiles.docsearch import docsearch_record, docsearch_records
from mdchunk.outputs.profiles.files import (
    FOLDER,
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


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile("native", "chunks.jsonl", "jsonl", _page_only(native_records),
                "mdchunk's own record: seed 002's fields and every structural fact"),
        Profile("files", FOLDER, "files", _page_only(files_records),
                "seed 002: one JSON file per chunk in chunks/", embedding=True),
        Profile("hepilot", "chunks.hepilot.jsonl", "jsonl", _page_only(hepilot_records),
                "seed 003: valid against its JSON Schema", embedding=True),
        Profile("semantic", "chunks.semantic.jsonl", "jsonl", semantic_records,
                "seed 001: SemanticChunk (nested)", embedding=True),
        Profile("flat", "chunks.flat.jsonl", "jsonl", flat_records,
                "seed 001: FlatSemanticChunk (flat)", embedding=True),
        Profile("markdown_chunker", "chunks.markdown_chunker.jsonl", "jsonl",
                _page_only(markdown_chunker_records), "seed 000: structural chunker metadata",
                embedding=True),
        Profile("adr", "chunks.adr.jsonl", "jsonl", _page_only(adr_records),
                "seed 004: front matter metadata, ChromaDB-ready", embedding=True),
        Profile("docsearch", "docsearch.json", "json", _page_only(docsearch_records),
                "DocSearch / Typesense scraper records (one per chunk)"),
        Profile("sqlite", "chunks.sqlite", "sqlite",
                _page_only(native_records),
                "the native records in SQLite with an FTS5 (bm25) index over text and titles"),
        Profile("pagefind", "pagefind", "pagefind", pagefind_records,
                "a Pagefind search bundle with one record per section, searchable on the site"),
        Profile("sections", "sections.jsonl", "jsonl", _page_only(section_records),
                "one record per section: its whole Markdown, breadcrumb, url, tokens, the ids "
                "of its chunks and of its parent section (small-to-big retrieval)"),
    )
}
"""Every output format by name."""


def check_formats(formats: Sequence[str]) -> list[str]:
    """The selected format names without repeats.

    Raises:
        OptionError: for an unknown format name.
    """
    selected = list(dict.fromkeys(formats))
    unknown = [name for name in selected if name not in PROFILES]
    if unknown:
        raise OptionError(
            "formats",
            f"unknown format(s) {', '.join(map(repr, unknown))}; known formats: "
            + ", ".join(PROFILES),
        )
    return selected
