"""The output formats users select, as the writers need them: each format's name, where it is
written, how, and whether it is an embedding format.

How a format's records are made from chunks (`mdchunk.outputs.profiles.PROFILES`) is needed
only where pages are chunked; writing the merged records, applying the duplicate marks and
checking the `formats` option need only this table, which imports none of the chunking.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from mdchunk.errors import OptionError

Record = dict[str, Any]
"""One output record, as plain JSON values."""

Layout = Literal["jsonl", "json", "files", "sqlite", "pagefind"]
"""How a format's records are written: one per line, one JSON array, one file per record, an
SQLite database, a Pagefind bundle."""


@dataclasses.dataclass(frozen=True, slots=True)
class OutputFormat:
    """One output format: where its records go and how."""

    name: str
    """The format's name, as users select it."""
    target: str
    """File (or folder, for the `files` layout) in the site folder."""
    layout: Layout
    description: str
    """One line for users: what the format is and which seed it follows."""
    embedding: bool = False
    """One record per chunk, for embedding pipelines and vector stores: the records that
    `duplicates: drop` leaves out for duplicate chunks."""


FORMATS: dict[str, OutputFormat] = {
    output.name: output
    for output in (
        OutputFormat("native", "chunks.jsonl", "jsonl",
                     "mdchunk's own record: seed 002's fields and every structural fact"),
        OutputFormat("files", "chunks", "files",
                     "seed 002: one JSON file per chunk in chunks/", embedding=True),
        OutputFormat("hepilot", "chunks.hepilot.jsonl", "jsonl",
                     "seed 003: valid against its JSON Schema", embedding=True),
        OutputFormat("semantic", "chunks.semantic.jsonl", "jsonl",
                     "seed 001: SemanticChunk (nested)", embedding=True),
        OutputFormat("flat", "chunks.flat.jsonl", "jsonl",
                     "seed 001: FlatSemanticChunk (flat)", embedding=True),
        OutputFormat("markdown_chunker", "chunks.markdown_chunker.jsonl", "jsonl",
                     "seed 000: structural chunker metadata", embedding=True),
        OutputFormat("adr", "chunks.adr.jsonl", "jsonl",
                     "seed 004: front matter metadata, ChromaDB-ready", embedding=True),
        OutputFormat("docsearch", "docsearch.json", "json",
                     "DocSearch / Typesense scraper records (one per chunk)"),
        OutputFormat("sqlite", "chunks.sqlite", "sqlite",
                     "the native records in SQLite with an FTS5 (bm25) index over text and "
                     "titles"),
        OutputFormat("pagefind", "pagefind", "pagefind",
                     "a Pagefind search bundle with one record per section, searchable on the "
                     "site"),
        OutputFormat("sections", "sections.jsonl", "jsonl",
                     "one record per section: its whole Markdown, breadcrumb, url, tokens, the "
                     "ids of its chunks and of its parent section (small-to-big retrieval)"),
    )
}
"""Every output format by name."""


def check_formats(formats: Sequence[str]) -> list[str]:
    """The selected format names without repeats.

    Raises:
        OptionError: for an unknown format name.
    """
    selected = list(dict.fromkeys(formats))
    unknown = [name for name in selected if name not in FORMATS]
    if unknown:
        raise OptionError(
            "formats",
            f"unknown format(s) {', '.join(map(repr, unknown))}; known formats: "
            + ", ".join(FORMATS),
        )
    return selected
