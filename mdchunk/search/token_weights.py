"""A question embedded with its tokens weighted by their idf in the index.

A static model (WordLlama) embeds a text as the mean of its tokens' vectors, every token
alike. In a question of six words, the words every page uses ("file", "function", "how")
weigh as much as the one that tells its answer apart ("scratch", "hash", "bytes"), and the
nearest chunks are those about the common words. `mdchunk embed` stores, beside the chunks'
vectors, the inverse document frequency of each of the model's tokens over the index's
`embedText`s (`write_idf`, the table `token_idf`: one row, the idf of every token id as
little-endian float32); the dense side embeds the question as the idf-weighted sum of its
tokens' vectors (`weighted_question`), as BM25 weighs its words. The chunks' own vectors are
the model's, so a chunk's vector depends on its text alone and stays in the embedding cache.

Only a model whose vector is a sum of token vectors has tokens to weigh (`Embedder.tokens`):
for any other, and for an index embedded before this table, the question is embedded whole.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mdchunk.search.embedders import BATCH_SIZE, Embedder, TokenModel, text_batches

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

TABLE = "token_idf"


def token_idf(tokens: TokenModel, texts: Sequence[str]) -> Matrix:
    """Each token id's idf over `texts`, `log((N + 1) / (df + 1)) + 1` (a token no text has
    gets the highest): the texts are tokenized in batches of about one length, as the model
    embeds them."""
    import numpy as np

    size = len(tokens.vectors)
    counts = np.zeros(size, dtype=np.float64)
    for batch in text_batches(texts, BATCH_SIZE):
        for ids in tokens.ids([texts[index] for index in batch]):
            counts[np.unique(np.clip(np.asarray(ids, dtype=np.int64), 0, size - 1))] += 1
    idf: Matrix = (np.log((len(texts) + 1) / (counts + 1)) + 1).astype(np.float32)
    return idf


def write_idf(connection: sqlite3.Connection, idf: Matrix | None) -> None:
    """Replace the index's `token_idf` with `idf` (None: drop it), inside the caller's
    transaction."""
    connection.execute(f"DROP TABLE IF EXISTS {TABLE}")
    if idf is None:
        return
    import numpy as np

    connection.execute(f"CREATE TABLE {TABLE} (idf BLOB NOT NULL)")
    connection.execute(f"INSERT INTO {TABLE} VALUES (?)",
                       (np.asarray(idf, dtype="<f4").tobytes(),))


def read_idf(connection: sqlite3.Connection) -> Matrix | None:
    """The index's token idf (None: it has none; `weighted_question` checks that it is of as
    many tokens as the model has)."""
    import numpy as np

    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                          (TABLE,)).fetchone() is None:
        return None
    row = connection.execute(f"SELECT idf FROM {TABLE}").fetchone()
    if row is None or not row[0] or len(row[0]) % 4:
        return None
    idf: Matrix = np.frombuffer(row[0], dtype="<f4").astype(np.float32)
    return idf


def weighted_question(embedder: Embedder, idf: Matrix | None, question: str) -> Matrix:
    """The unit vector of `question`: its tokens' vectors weighted by `idf` where the model
    has tokens and the index their idf, else the model's own vector of it."""
    import numpy as np

    tokens = embedder.tokens
    if tokens is None or idf is None or len(idf) != len(tokens.vectors):
        whole: Matrix = embedder.embed([question])[0]
        return whole
    ids = np.clip(np.asarray(tokens.ids([question])[0], dtype=np.int64), 0, len(idf) - 1)
    vector = (tokens.vectors[ids] * idf[ids][:, None]).sum(axis=0, dtype=np.float64)
    norm = math.sqrt(float(vector @ vector))
    unit: Matrix = (vector / norm if norm > 0 else vector).astype(np.float32)
    return unit
