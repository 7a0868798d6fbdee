"""The vectors of an index's chunks, stored in its own `chunks.sqlite`, and the cache that lets a
rebuild embed only the chunks that changed.

`embed_index` adds to a written `chunks.sqlite` (`mdchunk.outputs.sqlite`):

- `chunks_vec`: one row per chunk: `rowid` (the chunk's rowid in `chunks`), `sha256` (of the
  texts embedded: the chunk's `embedText`, which the token budget covers, and its heading, its
  breadcrumb and its section's lead; `chunk_vector`) and `embedding`, the unit vector as a
  BLOB of little-endian float32, the layout sqlite-vec reads (`vec_distance_cosine(embedding,
  ?)`);
- `token_idf`: the idf of a static model's tokens over the chunks (`mdchunk.search.token_weights`);
- in `meta`: `embed_model` (the model's name, which a query embeds its question with),
  `embed_dimension` and `embed_model_key` (`Embedder.key`).

It replaces the tables in one transaction: a reader sees the vectors before or after, never a
table half written. A chunk is embedded only when no vector of its texts by the same model is
at hand: in the index already (`mdchunk embed` run again), or in an `EmbedCache` (a SQLite file
of vectors by model key and text sha256, a chunk's text and its heading each by its own: the
build's in its page cache folder, `mdchunk embed`'s in the user's cache folder).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.errors import MdChunkError
from mdchunk.search.embedders import BATCH_SIZE, Embedder, load_embedder
from mdchunk.search.token_weights import read_idf, token_idf, write_idf
from mdchunk.search.vocabulary import TABLE as TERMS_TABLE
from mdchunk.search.vocabulary import index_vocabulary, write_terms

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

TABLE = "chunks_vec"
META_MODEL, META_DIMENSION, META_KEY = "embed_model", "embed_dimension", "embed_model_key"
#: The file of an `EmbedCache` in its folder.
CACHE_FILE = "embeddings.sqlite"

_log = logging.getLogger(__name__)


class VectorError(MdChunkError):
    """An index cannot be embedded or its vectors cannot be read."""


@dataclasses.dataclass(frozen=True, slots=True)
class EmbedCounts:
    """What `embed_index` did."""

    model: str
    chunks: int
    embedded: int
    """Chunks whose text the model embedded in this run."""
    cached: int
    """Chunks whose vector came from the index itself or the cache."""

    def describe(self) -> str:
        """`3283 chunks have vectors of wordllama: 12 embedded, 3271 from the cache`."""
        return (f"{self.chunks} chunks have vectors of {self.model}: {self.embedded} embedded, "
                f"{self.cached} from the cache")


@dataclasses.dataclass(frozen=True, slots=True)
class StoredVectors:
    """The vectors of an index, as `read_vectors` finds them."""

    model: str
    dimension: int
    rowids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    """One unit vector per row, in the order of `rowids`."""
    idf: npt.NDArray[np.float32] | None = None
    """The idf of the model's tokens over the chunks (`mdchunk.search.token_weights`; None:
    not a static model, or an index embedded before it)."""


def vector_blob(vector: Any) -> bytes:
    """A vector as sqlite-vec reads it: little-endian float32, 4 bytes per dimension."""
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def blob_vector(blob: bytes) -> npt.NDArray[np.float32]:
    """The vector of a BLOB written by `vector_blob` (float32, native order)."""
    import numpy as np

    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def text_digest(text: str) -> str:
    """The sha256 of a text embedded (UTF-8), which the cache keys its vector by."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbedCache:
    """Vectors of earlier runs by (model key, text sha256), in the SQLite file `path`.

    The cache only saves work: a file that cannot be read or written is left alone with one
    warning, and every text is embedded.
    """

    def __init__(self, path: Path, *, log: logging.Logger | logging.LoggerAdapter[Any] | None
                 = None) -> None:
        self.path = path
        self._log = log or _log
        self._usable = True

    def lookup(self, key: str, digests: Iterable[str]) -> dict[str, bytes]:
        """The vectors held for `digests` of the model `key`."""
        wanted = sorted(set(digests))
        found: dict[str, bytes] = {}
        if not wanted or not self.path.is_file():
            return found
        with self._open() as connection:
            if connection is None:
                return found
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                marks = ", ".join("?" for _ in part)
                found.update(connection.execute(
                    "SELECT sha256, embedding FROM vectors WHERE model = ? "
                    f"AND sha256 IN ({marks})", [key, *part]).fetchall())
        return found

    def store(self, key: str, vectors: Mapping[str, bytes], *, keep: Iterable[str] | None = None
              ) -> None:
        """Add `vectors` (sha256 -> BLOB) of the model `key`; with `keep`, forget every other
        vector (of any model) but those of these digests of `key`."""
        with self._open(create=True) as connection:
            if connection is None:
                return
            with connection:
                connection.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                       [(key, digest, blob) for digest, blob in vectors.items()])
                if keep is not None:
                    connection.execute("CREATE TEMP TABLE kept (sha256 TEXT PRIMARY KEY)")
                    connection.executemany("INSERT OR IGNORE INTO kept VALUES (?)",
                                           [(digest,) for digest in keep])
                    connection.execute("DELETE FROM vectors WHERE model != ? OR sha256 NOT IN "
                                       "(SELECT sha256 FROM kept)", (key,))

    @contextlib.contextmanager
    def _open(self, *, create: bool = False) -> Any:
        """A connection to the cache file (made when `create`), or None when it cannot be had
        (said once)."""
        connection = None
        if self._usable:
            try:
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(self.path, timeout=30)
                connection.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, sha256 TEXT, "
                                   "embedding BLOB, PRIMARY KEY (model, sha256)) WITHOUT ROWID")
            except (OSError, sqlite3.Error) as error:
                self._give_up(error)
                connection = None
        try:
            yield connection
        except sqlite3.Error as error:
            self._give_up(error)
        finally:
            if connection is not None:
                connection.close()

    def _give_up(self, error: Exception) -> None:
        if self._usable:
            self._log.warning("cannot use the embedding cache %s, embedding without it: %s",
                              self.path, error)
        self._usable = False


def embed_index(sqlite_path: Path, model: Embedder | str, cache: EmbedCache | None = None, *,
                prune_cache: bool = False, batch_size: int = BATCH_SIZE) -> EmbedCounts:
    """Give every chunk of the index `sqlite_path` its vector by `model` (`chunk_vector`: its
    `embedText` and its heading beside it), every word of its vocabulary its vector
    (`mdchunk.search.vocabulary`) and each token of a static model its idf
    (`mdchunk.search.token_weights`), replacing the index's vectors in one transaction;
    return what was embedded (of the chunks).

    A text whose vector is in the index already (same model) or in `cache` is not embedded
    again; the vectors embedded go into `cache`. `prune_cache`: the cache keeps only the vectors
    of this index (a build's own cache; not a user's, shared by several sites).

    Raises:
        VectorError: the file is no chunk index, or cannot be written.
        EmbedderError: the model cannot be loaded, or fails on a text.
    """
    embedder = model if isinstance(model, Embedder) else load_embedder(model)
    connection = _open_for_writing(sqlite_path)
    try:
        connection.execute("BEGIN IMMEDIATE")
        chunks = _chunk_texts(connection, sqlite_path)
        words = index_vocabulary(connection)
        pairs = [text_digest(f"{text}\0{head}") for _rowid, text, head in chunks]
        held = _vectors_in_index(connection, embedder)
        texts = list(dict.fromkeys(
            [text for (_rowid, *both), pair in zip(chunks, pairs, strict=True)
             if pair not in held for text in both] + words))
        digests = [text_digest(text) for text in texts]
        held.update(cache.lookup(embedder.key, set(digests) - set(held)) if cache else {})
        new = _embed_missing(embedder, texts, digests, held, batch_size)
        vector_of = {**held, **new}
        _replace_table(connection, embedder, [
            (rowid, pair, held.get(pair) or chunk_vector(vector_of[text_digest(text)],
                                                         vector_of[text_digest(head)]))
            for (rowid, text, head), pair in zip(chunks, pairs, strict=True)])
        write_terms(connection, {word: vector_of[text_digest(word)] for word in words})
        write_idf(connection, token_idf(embedder.tokens, [text for _r, text, _h in chunks])
                  if embedder.tokens else None)
        connection.execute("COMMIT")
    except BaseException as error:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        if isinstance(error, sqlite3.Error):
            raise VectorError(f"{sqlite_path}: cannot write the vectors: {error}") from error
        raise
    finally:
        connection.close()
    if cache is not None:
        cache.store(embedder.key, new, keep=_digests(chunks, words) if prune_cache else None)
    embedded = sum(1 for _rowid, text, head in chunks
                   if text_digest(text) in new or text_digest(head) in new)
    return EmbedCounts(embedder.name, len(chunks), embedded, len(chunks) - embedded)


def chunk_vector(text: bytes, head: bytes) -> bytes:
    """A chunk's vector from the vectors of its `embedText` and of its heading (BLOBs of
    `vector_blob`): the unit vector of their sum, so that the words that name the section
    weigh as much as its whole text (a static model averages every token of a long chunk,
    its parameter lists and examples, into a vector that its heading barely moves)."""
    import numpy as np

    both = blob_vector(text).astype(np.float64) + blob_vector(head)
    norm = float(np.linalg.norm(both))
    return vector_blob(both / norm if norm > 0 else both)


def _digests(chunks: Sequence[tuple[int, str, str]], words: Sequence[str]) -> list[str]:
    """The digests of every text embedded for an index: its chunks', headings' and words'."""
    return [text_digest(text) for text in
            dict.fromkeys([text for _rowid, *both in chunks for text in both] + list(words))]


def _open_for_writing(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise VectorError(f"{path}: no such index file (write one with formats: [native, sqlite])")
    try:
        return sqlite3.connect(path, isolation_level=None, timeout=30)
    except sqlite3.Error as error:
        raise VectorError(f"{path}: cannot be opened: {error}") from error


def _chunk_texts(connection: sqlite3.Connection, path: Path) -> list[tuple[int, str, str]]:
    """(rowid, embedText, heading) of every chunk, in the index's order. The heading is the
    chunk's breadcrumb and its section's lead (`mdchunk.outputs.leads`; an index written
    before the leads has none): every chunk of an API entry says what the call does."""
    try:
        rows = connection.execute(
            "SELECT rowid, COALESCE(embedText, originalText, ''), COALESCE(headerBreadcrumb, ''), "
            "COALESCE(url, '') FROM chunks ORDER BY rowid").fetchall()
    except sqlite3.Error as error:
        raise VectorError(f"{path}: not a chunk index (chunks.sqlite): {error}") from error
    leads = dict(connection.execute(
        "SELECT chunks.url, chunk_leads.lead FROM chunk_leads "
        "JOIN chunks ON chunks.rowid = chunk_leads.rowid")) if _has_table(
            connection, "chunk_leads") else {}
    return [(int(rowid), str(text), f"{crumbs}. {leads[url]}" if leads.get(url) else str(crumbs))
            for rowid, text, crumbs, url in rows]


def _vectors_in_index(connection: sqlite3.Connection, embedder: Embedder) -> dict[str, bytes]:
    """The index's own vectors (of its chunks and words) by text sha256, when `embedder` (the
    same model key) made them."""
    meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    if meta.get(META_KEY) != embedder.key or not _has_table(connection):
        return {}
    size = 4 * embedder.dimension
    held = {digest: blob for digest, blob in connection.execute(
        f"SELECT sha256, embedding FROM {TABLE}") if len(blob) == size}
    if _has_table(connection, TERMS_TABLE):
        held.update((text_digest(term), blob) for term, blob in connection.execute(
            f"SELECT term, embedding FROM {TERMS_TABLE}") if len(blob) == size)
    return held


def _has_table(connection: sqlite3.Connection, name: str = TABLE) -> bool:
    return connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                              (name,)).fetchone() is not None


def _embed_missing(embedder: Embedder, texts: Sequence[str], digests: Sequence[str],
                   held: Mapping[str, bytes], batch_size: int) -> dict[str, bytes]:
    """The vectors of the texts that `held` lacks (each distinct text embedded once)."""
    missing = {digest: text for text, digest in zip(texts, digests, strict=True)
               if digest not in held}
    if not missing:
        return {}
    vectors = embedder.embed(list(missing.values()), batch_size=batch_size)
    return {digest: vector_blob(vector)
            for digest, vector in zip(missing, vectors, strict=True)}


def _replace_table(connection: sqlite3.Connection, embedder: Embedder,
                   rows: Sequence[tuple[int, str, bytes]]) -> None:
    connection.execute(f"DROP TABLE IF EXISTS {TABLE}")
    connection.execute(f"CREATE TABLE {TABLE} (rowid INTEGER PRIMARY KEY, sha256 TEXT NOT NULL, "
                       "embedding BLOB NOT NULL)")
    connection.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?)", rows)
    connection.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
        (META_MODEL, embedder.name), (META_DIMENSION, str(embedder.dimension)),
        (META_KEY, embedder.key)])


def read_vectors(connection: sqlite3.Connection) -> StoredVectors | None:
    """The vectors of an open index (None: it has none).

    Raises:
        VectorError: vectors whose length is not the dimension the index names, or no numpy
            to read them with.
    """
    meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    model, dimension = meta.get(META_MODEL), meta.get(META_DIMENSION)
    if not model or not dimension or not _has_table(connection):
        return None
    try:
        import numpy as np
    except ImportError as error:
        raise VectorError(f"its vectors need numpy, which is not installed ({error}): "
                          "pip install 'mdchunk[search]'") from error
    rows = connection.execute(f"SELECT rowid, embedding FROM {TABLE} ORDER BY rowid").fetchall()
    size = int(dimension)
    if any(len(blob) != 4 * size for _rowid, blob in rows):
        raise VectorError(f"the index's vectors are not all of {size} dimensions "
                          f"({META_DIMENSION}); run mdchunk embed again")
    matrix = np.frombuffer(b"".join(blob for _rowid, blob in rows), dtype="<f4")
    return StoredVectors(model=model, dimension=size,
                         rowids=np.array([rowid for rowid, _blob in rows], dtype=np.int64),
                         matrix=matrix.astype(np.float32).reshape(len(rows), size),
                         idf=read_idf(connection))
