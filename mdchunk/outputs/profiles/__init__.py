"""Output profiles: pure functions from one page's chunks to the records of each format.

Each module follows one seed document exactly; `PROFILES` lists them by the name users select.
They only make records, one at a time (a page's records are encoded as they are made, so none
of its formats' records are all held as objects): `mdchunk.outputs.formats` writes them.

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

import importlib
from collections.abc import Callable, Iterator
from typing import Any

from mdchunk.outputs.catalog import FORMATS, Record, check_formats
from mdchunk.outputs.profiles.base import ChunksLike, Profile, ProfileSettings, chunks_of

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
    "file_entries",
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

_HOMES = {
    "adr": ("adr_record", "adr_records"),
    "docsearch": ("docsearch_record", "docsearch_records"),
    "files": ("file_doc_name", "file_entries", "file_path", "file_record", "files_by_name",
              "files_layout", "files_records"),
    "flat": ("FlatSemanticChunk", "flat_records", "to_flat", "to_semantic"),
    "hepilot": ("chunk_type", "hepilot_record", "hepilot_records", "hepilot_schema"),
    "markdown_chunker": ("content_type", "markdown_chunker_record", "markdown_chunker_records"),
    "native": ("native_records",),
    "pagefind": ("pagefind_records",),
    "sections": ("section_records",),
    "semantic": ("ChunkMetrics", "FeedbackMetrics", "SemanticChunk", "semantic_chunks",
                 "semantic_records"),
    "validation": ("ChunkValidationError",),
}
"""The module of this package each name of `__all__` not imported above is defined in."""


def __getattr__(name: str) -> Any:
    """A name of a profile's module, imported when first asked for: a process that makes the
    records of the default formats loads only their modules (`PROFILES`)."""
    for module, names in _HOMES.items():
        if name in names:
            return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_Records = Callable[[ChunksLike, ProfileSettings], Iterator[Record]]

_RECORDS: dict[str, tuple[str, str, bool]] = {
    "native": ("native", "native_records", False),
    "files": ("files", "file_entries", False),
    "hepilot": ("hepilot", "hepilot_records", False),
    "semantic": ("semantic", "semantic_records", True),
    "flat": ("flat", "flat_records", True),
    "markdown_chunker": ("markdown_chunker", "markdown_chunker_records", False),
    "adr": ("adr", "adr_records", False),
    "docsearch": ("docsearch", "docsearch_records", False),
    "sqlite": ("native", "native_records", False),
    "pagefind": ("pagefind", "pagefind_records", True),
    "sections": ("sections", "section_records", False),
}
"""How each format's records are made from a page's chunks: the module of this package that
makes them (one at a time), its function, and whether that takes the `ProfileSettings` too. (The
`files` layout's records are `{"path", "record"}` pairs.)"""


def _records(module: str, function: str, with_settings: bool) -> _Records:
    """The records function `function` of the module `module` of this package, which is
    imported when a format first makes records with it (a build loads the modules of the
    formats it writes, no others)."""

    def records(chunks: ChunksLike, settings: ProfileSettings) -> Iterator[Record]:
        made: Callable[..., Iterator[Record]] = getattr(
            importlib.import_module(f"{__name__}.{module}"), function)
        return made(chunks, settings) if with_settings else made(chunks)

    return records


def _profiles() -> dict[str, Profile]:
    """Every format's `Profile`; formats whose records are the same (`native` and `sqlite`)
    share one records function, by which a page's records are made once for both."""
    functions = {how: _records(*how) for how in dict.fromkeys(_RECORDS.values())}
    return {name: Profile(name, output.target, output.layout, functions[_RECORDS[name]],
                          output.description, embedding=output.embedding)
            for name, output in FORMATS.items()}


PROFILES: dict[str, Profile] = _profiles()
"""Every output format by name, with how its records are made (`mdchunk.outputs.catalog`
says where they go)."""
