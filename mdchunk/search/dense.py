"""The dense side of search: the question embedded by the model that made the index's vectors,
the chunks ranked by cosine similarity (numpy, brute force over every vector).

The vectors are unit vectors (`mdchunk.search.vectors`), so the cosine is a dot product. Which
side a search runs is the search's `mode`; `auto` runs this side only where the index has
vectors and their model loads, and says once per process (a log line) why it does not.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import sqlite3
from collections.abc import Collection
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.sqlite import connect
from mdchunk.search.embedders import Embedder, EmbedderError, cached_embedder
from mdchunk.search.token_weights import weighted_question
from mdchunk.search.vectors import META_KEY, StoredVectors, VectorError, read_vectors
from mdchunk.search.vocabulary import single_threaded_dot

_log = logging.getLogger("mdchunk.search")


class SearchError(MdChunkError):
    """A search cannot run in the mode asked for (an index without vectors, a model that does
    not load)."""


class NoVectorsError(SearchError):
    """The index has no vectors (none were asked for: a lexical index)."""


@dataclasses.dataclass(frozen=True, slots=True)
class DenseSide:
    """What the dense side of one search needs: the index's vectors and their model."""

    vectors: StoredVectors
    embedder: Embedder

    def ranking(self, question: str, limit: int, also: Collection[int] = ()
                ) -> list[tuple[int, float]]:
        """The `limit` chunks nearest to `question` as (rowid, cosine) pairs, best first,
        then the cosines of the chunks of `also` (rowids another side found) not among them;
        none for a question the model has no word of. The question's tokens are weighted by
        their idf in the index where it holds them (`mdchunk.search.token_weights`)."""
        import numpy as np

        query = weighted_question(self.embedder, self.vectors.idf, question)
        if limit <= 0 or not query.any() or not len(self.vectors.rowids):
            return []
        rowids = self.vectors.rowids
        scores = single_threaded_dot(self.vectors.matrix, query)
        count = min(limit, len(scores))
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.lexsort((rowids[best], -scores[best]))]
        if also:
            found = np.zeros(len(rowids), dtype=bool)
            found[best] = True
            wanted = np.isin(rowids, np.fromiter(also, dtype=np.int64, count=len(also)))
            best = np.concatenate([best, np.flatnonzero(wanted & ~found)])
        return [(int(rowids[index]), float(scores[index])) for index in best]


def dense_side(path: Path, mode: str, connection: sqlite3.Connection) -> DenseSide | None:
    """The dense side of a search of the index at `path` (open as `connection`) in `mode`
    (None: lexical only).

    Raises:
        SearchError: in mode `dense` or `hybrid`, when the index has no vectors or their
            model cannot be had (in mode `auto` the search is lexical, and says why once).
    """
    if mode == "lexical":
        return None
    try:
        return _side(path, connection)
    except SearchError as error:
        if mode != "auto":
            raise
        _note_once(logging.INFO if isinstance(error, NoVectorsError) else logging.WARNING,
                   f"search is lexical only: {error}")
        return None


def _side(path: Path, connection: sqlite3.Connection) -> DenseSide:
    try:
        vectors = _stored_vectors(str(path.resolve()), index_stamp(path, connection))
    except VectorError as error:
        raise SearchError(f"{path}: {error}") from error
    if vectors is None:
        raise NoVectorsError(f"{path} has no vectors: add them with `mdchunk embed {path}` "
                             "(or the embed_model option of the build)")
    embedder = cached_embedder(vectors.model)
    if isinstance(embedder, EmbedderError):
        raise SearchError(f"{path}: the model of its vectors cannot be had: {embedder}")
    if embedder.dimension != vectors.dimension:
        raise SearchError(f"{path}: its vectors have {vectors.dimension} dimensions, "
                          f"{vectors.model} gives {embedder.dimension}; run mdchunk embed again")
    return DenseSide(vectors, embedder)


def index_stamp(path: Path, connection: sqlite3.Connection) -> tuple[int, int, int, str]:
    """What tells one state of the file from another (its vectors are read again after it
    changed): its inode, size and time of change, and the key of its vectors' model (which
    tells apart vectors of two models of one dimension written within one tick of the
    clock)."""
    status = os.stat(path)
    row = connection.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return status.st_ino, status.st_size, status.st_mtime_ns, str(row[0]) if row else ""


@functools.lru_cache(maxsize=4)
def _stored_vectors(path: str, _stamp: tuple[int, int, int, str]) -> StoredVectors | None:
    """The vectors of the index at `path` as it is at `_stamp`, read once per process."""
    connection = connect(Path(path))
    try:
        return read_vectors(connection)
    finally:
        connection.close()


@functools.cache
def _note_once(level: int, message: str) -> None:
    """Log `message` the first time it is said in this process."""
    _log.log(level, "%s", message)
