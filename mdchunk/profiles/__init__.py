"""Output profiles: pure functions from one page's chunks to the records of each format.

Each module follows one seed document exactly; `PROFILES` lists them by the name users select,
and `write_profiles` writes the selected ones next to the built site, each file atomically.

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
| `sqlite` | the native records + an FTS5 index (`mdchunk.sqlite`) | `chunks.sqlite` |
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from mdchunk.chunk import Chunk
from mdchunk.errors import OptionError
from mdchunk.pipeline import PageChunks
from mdchunk.profiles.adr import adr_record, adr_records
from mdchunk.profiles.base import ChunksLike, Profile, ProfileSettings, Record, chunks_of
from mdchunk.profiles.docsearch import docsearch_record, docsearch_records, plain_text
from mdchunk.profiles.files import (
    FOLDER,
    file_doc_name,
    file_path,
    file_record,
    files_by_name,
    files_layout,
    files_records,
)
from mdchunk.profiles.flat import FlatSemanticChunk, flat_records, to_flat, to_semantic
from mdchunk.profiles.hepilot import chunk_type, hepilot_record, hepilot_records, hepilot_schema
from mdchunk.profiles.markdown_chunker import (
    content_type,
    markdown_chunker_record,
    markdown_chunker_records,
)
from mdchunk.profiles.native import native_lines, native_records
from mdchunk.profiles.output import write_folder, write_json_array
from mdchunk.profiles.semantic import (
    ChunkMetrics,
    FeedbackMetrics,
    SemanticChunk,
    semantic_chunks,
    semantic_records,
)
from mdchunk.profiles.validation import ChunkValidationError
from mdchunk.sqlite import write_sqlite
from mdchunk.writers import dumps, write_jsonl

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
    "content_type",
    "docsearch_record",
    "docsearch_records",
    "encoded_page_records",
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
    "native_lines",
    "native_records",
    "page_records",
    "plain_text",
    "semantic_chunks",
    "semantic_records",
    "to_flat",
    "to_semantic",
    "write_profiles",
    "write_records",
]

_Records = Callable[[Sequence[Chunk], ProfileSettings], list[Record]]


def _page_only(records: Callable[[ChunksLike], list[Record]]) -> _Records:
    """A profile function that needs nothing but the chunks."""
    return lambda chunks, _settings: records(chunks)


PROFILES: dict[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile("native", "chunks.jsonl", "jsonl", _page_only(native_records),
                "mdchunk's own record: seed 002's fields and every structural fact"),
        Profile("files", FOLDER, "files", _page_only(files_records),
                "seed 002: one JSON file per chunk in chunks/"),
        Profile("hepilot", "chunks.hepilot.jsonl", "jsonl", _page_only(hepilot_records),
                "seed 003: valid against its JSON Schema"),
        Profile("semantic", "chunks.semantic.jsonl", "jsonl", semantic_records,
                "seed 001: SemanticChunk (nested)"),
        Profile("flat", "chunks.flat.jsonl", "jsonl", flat_records,
                "seed 001: FlatSemanticChunk (flat)"),
        Profile("markdown_chunker", "chunks.markdown_chunker.jsonl", "jsonl",
                _page_only(markdown_chunker_records), "seed 000: structural chunker metadata"),
        Profile("adr", "chunks.adr.jsonl", "jsonl", _page_only(adr_records),
                "seed 004: front matter metadata, ChromaDB-ready"),
        Profile("docsearch", "docsearch.json", "json", _page_only(docsearch_records),
                "DocSearch / Typesense scraper records (one per chunk)"),
        # base.Layout does not name "sqlite" yet (base.py is not ours to edit here).
        Profile("sqlite", "chunks.sqlite", "sqlite",
                _page_only(native_records),
                "the native records in SQLite with an FTS5 (bm25) index over text and titles"),
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


def page_records(page: ChunksLike, formats: Sequence[str], *, language: str | None = None
                 ) -> dict[str, list[Record]]:
    """One page's records for each selected format (for `files`: `{"path", "record"}` pairs).

    Engines that chunk pages in worker processes (Sphinx -j N) call this per page and merge
    the results with `write_records` in the main process.
    """
    settings = ProfileSettings(language=language)
    chunks = chunks_of(page)
    records: dict[str, list[Record]] = {}
    for name in check_formats(formats):
        profile = PROFILES[name]
        if profile.layout == "files":
            records[name] = [{"path": file_path(c), "record": file_record(c)} for c in chunks]
        else:
            records[name] = profile.records(chunks, settings)
    return records


ENCODED_LAYOUTS = frozenset({"jsonl", "json"})
"""Layouts written as JSON text one record at a time: their records can arrive encoded."""


def encoded_page_records(page: ChunksLike, formats: Sequence[str], *,
                         language: str | None = None) -> dict[str, list[Record] | list[str]]:
    """`page_records`, with the records of the `ENCODED_LAYOUTS` formats as JSON text
    (`writers.dumps`): what a worker hands to the process that writes the index. The native
    records are encoded as they are made (`native_lines`)."""
    selected = check_formats(formats)
    records = page_records(page, [name for name in selected if name != "native"],
                           language=language)
    encoded: dict[str, list[Record] | list[str]] = {}
    for name in selected:
        if name == "native":
            encoded[name] = native_lines(page)
        elif PROFILES[name].layout in ENCODED_LAYOUTS:
            encoded[name] = [dumps(record) for record in records[name]]
        else:
            encoded[name] = records[name]
    return encoded


def write_records(site_dir: Path, records: Mapping[str, Iterable[Record]], *,
                  output: str = "chunks.jsonl", encoded: bool = False) -> dict[str, Path]:
    """Write the merged records of each format into `site_dir`, each file (or folder) atomically.

    `encoded`: the records of the `ENCODED_LAYOUTS` formats are already JSON text (`dumps`).

    Raises:
        PageError: when two pages would write the same chunk file (`files`).
    """
    written: dict[str, Path] = {}
    for name, format_records in records.items():
        profile = PROFILES[name]
        target = site_dir / (output if name == "native" else profile.target)
        if profile.layout == "files":
            write_folder(target, files_by_name(format_records))
        elif profile.layout == "json":
            write_json_array(target, format_records, encoded=encoded)
        elif profile.layout == "sqlite":
            write_sqlite(target, format_records)
        else:
            write_jsonl(target, format_records, encoded=encoded)
        written[name] = target
    return written


def write_profiles(
    site_dir: Path,
    pages: Sequence[PageChunks],
    formats: Sequence[str],
    *,
    output: str = "chunks.jsonl",
    language: str | None = None,
) -> dict[str, Path]:
    """Write each selected format of `pages` into `site_dir`, each file (or folder) atomically.

    Arguments:
        site_dir: The built site's folder.
        pages: The chunked pages, in the order their records should appear.
        formats: Names from `PROFILES`; repeats are written once.
        output: File name of the `native` index.
        language: The site's natural language, for the `semantic` and `flat` records of pages
            whose front matter names none.

    Returns:
        The path written for each format.

    Raises:
        OptionError: for an unknown format name (before anything is written).
    """
    merged: dict[str, list[Record]] = {name: [] for name in check_formats(formats)}
    for page in pages:
        for name, records in page_records(page, formats, language=language).items():
            merged[name].extend(records)
    return write_records(site_dir, merged, output=output)
