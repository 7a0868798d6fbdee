"""`mdchunk sync chroma`: keep a local persistent ChromaDB collection equal to a chunk index.

Each chunk is stored under its native id with its `originalText` as the document, its
embedding, and flat metadata (str/int/float/bool only, as ChromaDB requires: lists joined with
commas, front matter as `fm_<key>`, `sha256` of the text). A sync:

1. reads the ids and `sha256`s already in the collection;
2. embeds and upserts only the chunks that are new or whose text changed;
3. updates the metadata (no re-embedding) of chunks whose text is unchanged but whose
   metadata changed;
4. deletes the ids that are no longer in the index.

The vectors come from an `Embedder` (a callable from texts to vectors; `embedText` is embedded,
the text with its breadcrumb context), e.g. a local sentence-transformers model
(`sentence_transformers_embedder`); without one, each record must carry its own vector in an
`embedding` field. The collection itself has no embedding function, so ChromaDB never
downloads its default model.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mdchunk.errors import MdChunkError

Embedder = Callable[[list[str]], Sequence[Sequence[float]]]
"""Texts in, one vector per text out."""

INSTALL_HINT = "ChromaDB is not installed: pip install 'mdchunk[chroma]'"
_SKIPPED_FIELDS = frozenset({"embedText", "originalText", "previousContent", "nextContent",
                             "metadata", "embedding", "features", "flags", "charOffsets",
                             "lineRange", "tokenStats", "adaptiveSizing"})
BATCH = 256


class ChromaError(MdChunkError):
    """ChromaDB is missing, or a sync cannot be done."""


@dataclasses.dataclass(frozen=True, slots=True)
class SyncReport:
    """What a sync did."""

    embedded: int
    """Chunks embedded and upserted (new or changed text)."""
    updated: int
    """Chunks whose metadata alone was updated."""
    deleted: int
    unchanged: int
    total: int
    """Chunks in the collection after the sync."""


def _scalar(value: Any) -> str | int | float | bool | None:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value if item is not None)
    return str(value)


def flat_metadata(record: Mapping[str, Any]) -> dict[str, str | int | float | bool]:
    """The ChromaDB metadata of a native record: scalars, lists joined with commas, the token
    count, source file, flags and front matter (`fm_<key>`); None values left out."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if key not in _SKIPPED_FIELDS:
            flat[key] = _scalar(value)
    flat["tokens"] = (record.get("tokenStats") or {}).get("tokens")
    flags = record.get("flags") or {}
    flat["allowOversize"] = flags.get("allowOversize")
    flat["smallChunk"] = flags.get("smallChunk")
    metadata = record.get("metadata") or {}
    flat["sourceFile"] = metadata.get("sourceFile")
    for key, value in (metadata.get("frontMatter") or {}).items():
        flat[f"fm_{key}"] = _scalar(value)
    return {key: value for key, value in flat.items() if value is not None and value != ""}


def open_collection(path: Path, name: str) -> Any:
    """The persistent collection `name` in `path` (created when missing), without telemetry
    and without an embedding function.

    Raises:
        ChromaError: when chromadb is not installed.
    """
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as error:
        raise ChromaError(INSTALL_HINT) from error
    client = chromadb.PersistentClient(path=str(path),
                                       settings=Settings(anonymized_telemetry=False))
    return client.get_or_create_collection(name, embedding_function=None,
                                           metadata={"hnsw:space": "cosine"})


def sync_chroma(records: Sequence[Mapping[str, Any]], collection: Any,
                embed: Embedder | None = None) -> SyncReport:
    """Make `collection` hold exactly the chunks of `records` (native records).

    Raises:
        ChromaError: without `embed`, for a new or changed chunk that carries no `embedding`.
    """
    existing = collection.get(include=["metadatas"])
    stored = {
        chunk_id: metadata or {}
        for chunk_id, metadata in zip(existing["ids"], existing["metadatas"] or [], strict=False)
    }
    wanted = {str(record["id"]): record for record in records}
    fresh = [r for i, r in wanted.items() if stored.get(i, {}).get("sha256") != r.get("sha256")]
    stale = [
        (i, flat_metadata(r)) for i, r in wanted.items()
        if i in stored and stored[i].get("sha256") == r.get("sha256")
        and stored[i] != flat_metadata(r)
    ]
    for start in range(0, len(fresh), BATCH):
        batch = fresh[start:start + BATCH]
        if embed is not None:
            vectors = [list(map(float, v)) for v in embed([str(r["embedText"]) for r in batch])]
        else:
            missing = [str(r["id"]) for r in batch if not r.get("embedding")]
            if missing:
                raise ChromaError(f"{missing[0]}: no embedding in the record and no embedding "
                                  "model given (--model PATH)")
            vectors = [list(map(float, r["embedding"])) for r in batch]
        collection.upsert(
            ids=[str(r["id"]) for r in batch],
            embeddings=vectors,
            documents=[str(r["originalText"]) for r in batch],
            metadatas=[flat_metadata(r) for r in batch],
        )
    for start in range(0, len(stale), BATCH):
        batch_ids, batch_meta = zip(*stale[start:start + BATCH], strict=True)
        collection.update(ids=list(batch_ids), metadatas=list(batch_meta))
    gone = [chunk_id for chunk_id in stored if chunk_id not in wanted]
    for start in range(0, len(gone), BATCH):
        collection.delete(ids=gone[start:start + BATCH])
    return SyncReport(embedded=len(fresh), updated=len(stale), deleted=len(gone),
                      unchanged=len(wanted) - len(fresh) - len(stale), total=collection.count())


def sentence_transformers_embedder(model_path: Path) -> Embedder:
    """An embedder from a local sentence-transformers model folder; nothing is downloaded
    (HF_HUB_OFFLINE and TRANSFORMERS_OFFLINE are set for this process).

    Raises:
        ChromaError: when sentence-transformers is missing or the folder is not a model.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    if not model_path.is_dir():
        raise ChromaError(f"{model_path}: not a model folder (a local path is required)")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:
        raise ChromaError("sentence-transformers is not installed: "
                          "pip install sentence-transformers") from error
    try:
        model = SentenceTransformer(str(model_path), local_files_only=True)
    except Exception as error:
        raise ChromaError(f"{model_path}: cannot load the model: {error}") from error

    def embed(texts: list[str]) -> Sequence[Sequence[float]]:
        return [list(map(float, vector)) for vector in model.encode(texts)]

    return embed
