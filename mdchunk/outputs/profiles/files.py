"""The `files` profile (seed 002): one JSON file per chunk.

Files are named `chunks/{contentType}_{docName}__ch{n}.json`. A record holds exactly seed
002's fields, with the native record's values: same ids (docName keeps its `/`, as in the
native `id`), text, offsets and linking (`prevId`/`nextId`).

File names flatten the docName so that pages sharing a file name in different folders never
collide: folders are joined with `--` (`a/index` -> `a--index`, `guide/flatten-ast` ->
`guide--flatten-ast`); hyphens are kept. That flattening can be undone, so it is collision-free,
unless a folder or file name is empty, contains `--` or `~`, or starts or ends with `-`; such a
docName gets `~` and 12 hex digits of its SHA-256 appended (`a---b` -> `a---b~1f0c...`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from mdchunk.chunking.chunk import Chunk
from mdchunk.errors import PageError
from mdchunk.outputs.catalog import FORMATS, Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of

FOLDER = FORMATS["files"].target
"""The folder, in the site folder, that holds the chunk files."""
CONTENT_TYPE = "doc"
"""Seed 002's `contentType`: always "doc" for documentation chunks."""

_FIELDS = (
    "id", "parentId", "prevId", "nextId", "embedText", "originalText", "chunkNumber",
    "contentType", "fileTitle", "sectionTitle", "headerPath", "headerBreadcrumb", "headerDepths",
    "headerSlugs", "sectionSlug", "charOffsets",
)


def file_record(chunk: Chunk) -> Record:
    """Seed 002's record of one chunk: its fields only, in its order."""
    native = chunk.as_native()
    record = {key: native[key] for key in _FIELDS}
    stats = native["tokenStats"]
    record["tokenStats"] = {"tokens": stats["tokens"], "estimatedTokens": stats["estimatedTokens"]}
    metadata = native["metadata"]
    record["metadata"] = {
        "sourceFile": metadata["sourceFile"],
        "processedAt": metadata["processedAt"],
        "chunkingOptions": metadata["chunkingOptions"],
        "pipeline": metadata["pipeline"],
    }
    return record


def files_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield file_record(chunk)


def file_entries(page: ChunksLike) -> Iterator[Record]:
    """One page's chunk files, in order, one at a time: each a `{"path", "record"}` pair (the
    file's path relative to the site folder, its record), as the `files` layout writes them
    (`files_by_name`)."""
    for chunk in chunks_of(page):
        yield {"path": file_path(chunk), "record": file_record(chunk)}


def file_doc_name(doc_name: str) -> str:
    """The docName as one file name component (see the module docstring)."""
    segments = doc_name.split("/")
    flat = "--".join(segments)
    if "~" in doc_name or any(_ambiguous(segment) for segment in segments):
        flat += "~" + hashlib.sha256(doc_name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return flat


def file_path(chunk: Chunk) -> str:
    """`chunks/{contentType}_{docName}__ch{n}.json`, relative to the site folder."""
    name = file_doc_name(chunk.doc_name)
    return f"{FOLDER}/{CONTENT_TYPE}_{name}__ch{chunk.chunk_number}.json"


def files_layout(pages: Iterable[ChunksLike]) -> dict[str, Record]:
    """Every chunk file of the site: relative path -> record.

    Raises:
        PageError: when two pages have the same docName (`a.md` and `a.rst`), so their chunks
            would share ids and files.
    """
    pairs = (entry for page in pages for entry in file_entries(page))
    return {f"{FOLDER}/{name}": record for name, record in files_by_name(pairs).items()}


def files_by_name(pairs: Iterable[Record]) -> dict[str, Record]:
    """`{"path", "record"}` pairs as name inside the folder -> record.

    Raises:
        PageError: when two pages would write the same file.
    """
    files: dict[str, Record] = {}
    for pair in pairs:
        name = pair["path"].removeprefix(f"{FOLDER}/")
        if name in files:
            owner = files[name]["metadata"]["sourceFile"]
            record = pair["record"]
            raise PageError(
                record["metadata"]["sourceFile"],
                f"its chunk file {pair['path']} is also written for {owner}: both pages have "
                f"the docName {record['parentId'].removeprefix('doc:')!r}",
            )
        files[name] = pair["record"]
    return files


def _ambiguous(segment: str) -> bool:
    return not segment or "--" in segment or segment.startswith("-") or segment.endswith("-")
