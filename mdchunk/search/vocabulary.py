"""Query expansion through the index's own vocabulary: a question word the docs do not use is
searched for by the word of the docs nearest to it ("delete" by "remove", "RAM" by "memory",
"folder" by "directory").

`write_terms` stores, beside the chunks' vectors (`mdchunk.search.vectors`), the vector of
every plain word of the index by the same model, in `chunks.sqlite`:

- `terms_vec`: one row per word: `term` (lower case), `stem` (the word as the FTS5 index's
  `porter` tokenizer stems it) and `embedding`, the unit vector as little-endian float32.

A plain word is one written in the chunks' breadcrumbs, titles or text as a word of at least
`MIN_LETTERS` letters with no capital inside (`delete`, `Directory`; not `readFileSync` or
`fs.rm`), found in at least `MIN_CHUNKS` chunks. Identifiers are left out: a static model
embeds `serverHttp` near `server`, and its words already match by themselves.

`expansions` gives, for each word of a question, the index word nearest to it when their
cosine is at least `MIN_SIMILARITY` and it is not a form of a word of the question (the same
stem, or one holds the other: `remove` for `delete`, not `deleted` or `deleteInstance`). A
question word of the index has its vector in the table; another one is embedded by the
index's model. A hybrid search (`mdchunk.search.ranking`) searches for each of them too, its
BM25 score weighted by the cosine.

A static model's word vectors bridge synonyms and near synonyms (`delete`/`remove`,
`folder`/`directory`, `big`/`large`, `RAM`/`memory`, `copy`/`clone`), not an idiom and the API
that does it (`sleep` and `setTimeout`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from mdchunk.outputs.sqlite import TEXT_COLUMNS
from mdchunk.search.lexical import STOP_WORDS, question_words

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

TABLE = "terms_vec"
#: The fewest letters of a word of the vocabulary.
MIN_LETTERS = 3
#: A word is in the vocabulary when this many chunks use it, at least (not a typo or a name
#: used once).
MIN_CHUNKS = 2
#: The least cosine between a question word and the index word it is expanded by.
MIN_SIMILARITY = 0.6
#: The FTS5 tokenizer of `chunks_fts` (`mdchunk.outputs.sqlite`), which stems the words.
TOKENIZER = "porter unicode61 remove_diacritics 2"
#: Words that name no thing or act, left out of the vocabulary beside the stop words: no
#: question word is expanded to them.
_FUNCTION_WORDS = frozenset({
    "about", "after", "all", "also", "any", "before", "both", "each", "either", "every",
    "here", "into", "just", "many", "more", "most", "much", "neither", "not", "only", "other",
    "out", "over", "some", "such", "than", "them", "they", "those", "under", "use", "used",
    "using", "very", "while",
})
#: A word as written: letters only, not glued to a `.` or `(` (not part of `fs.rm()`).
_PLAIN_WORD = re.compile(rf"(?<![\w.])[^\W\d_]{{{MIN_LETTERS},}}(?![\w(])")


@dataclasses.dataclass(frozen=True, slots=True)
class StoredTerms:
    """The vocabulary of an index and its words' vectors, as `read_terms` finds them."""

    terms: list[str]
    stems: list[str]
    matrix: Matrix
    """One unit vector per word, in the order of `terms`."""
    rows: dict[str, int]
    """Each word's row in `matrix`."""


def index_vocabulary(connection: sqlite3.Connection) -> list[str]:
    """The plain words (see the module's docstring) of the index's chunks, lower case,
    sorted."""
    columns = " || ' ' || ".join(f"""COALESCE("{name}", '')""" for name in TEXT_COLUMNS)
    chunks: Counter[str] = Counter()
    for (text,) in connection.execute(f"SELECT {columns} FROM chunks"):
        chunks.update({word.lower() for word in _PLAIN_WORD.findall(text)
                       if word[1:] == word[1:].lower()})
    return sorted(word for word, count in chunks.items() if count >= MIN_CHUNKS
                  and word not in STOP_WORDS and word not in _FUNCTION_WORDS)


@functools.lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    return stems([word]).get(word, word)


def stems(words: Sequence[str]) -> dict[str, str]:
    """Each word's stem as the index's FTS5 tokenizer makes it (an FTS5 table in memory, so
    that the stems are those the index matches by)."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(f"CREATE VIRTUAL TABLE words USING fts5(word, tokenize='{TOKENIZER}')")
        connection.executemany("INSERT INTO words (rowid, word) VALUES (?, ?)",
                               enumerate(words, start=1))
        connection.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, instance)")
        return {words[row - 1]: stem for stem, row in
                connection.execute("SELECT term, doc FROM stems")}
    finally:
        connection.close()


def write_terms(connection: sqlite3.Connection, vectors: Mapping[str, bytes]) -> None:
    """Replace the index's `terms_vec` with `vectors` (word -> BLOB of its unit vector, as
    `mdchunk.search.vectors.vector_blob` writes it), inside the caller's transaction."""
    stem_of = stems(list(vectors))
    connection.execute(f"DROP TABLE IF EXISTS {TABLE}")
    connection.execute(f"CREATE TABLE {TABLE} (term TEXT PRIMARY KEY, stem TEXT NOT NULL, "
                       "embedding BLOB NOT NULL)")
    connection.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?)", [
        (term, stem_of.get(term, term), blob) for term, blob in vectors.items()])


def read_terms(connection: sqlite3.Connection, dimension: int) -> StoredTerms | None:
    """The vocabulary of an open index (None: it has none, it was made by a model of another
    dimension, or numpy is not installed)."""
    try:
        import numpy as np
    except ImportError:
        return None
    if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                          (TABLE,)).fetchone() is None:
        return None
    rows = [row for row in connection.execute(f"SELECT term, stem, embedding FROM {TABLE} "
                                              "ORDER BY term") if len(row[2]) == 4 * dimension]
    if not rows:
        return None
    matrix = np.frombuffer(b"".join(blob for _term, _stem, blob in rows), dtype="<f4")
    terms = [term for term, _stem, _blob in rows]
    return StoredTerms(terms=terms, stems=[stem for _term, stem, _blob in rows],
                       matrix=matrix.astype(np.float32).reshape(len(rows), dimension),
                       rows={term: row for row, term in enumerate(terms)})


def expansions(vocabulary: StoredTerms, question: str,
               embed: Callable[[list[str]], Matrix] | None = None) -> list[tuple[str, float]]:
    """(index word, cosine) pairs to search for besides the words of `question`: for each of
    its words, the nearest word of `vocabulary` (see the module's docstring). A question word
    that is not in the vocabulary is embedded by `embed`, and left without one where `embed`
    is None."""
    words = [word for word in question_words(question) if _PLAIN_WORD.fullmatch(word)]
    unknown = [word for word in words if word not in vocabulary.rows]
    embedded = dict(zip(unknown, embed(unknown), strict=True)) if unknown and embed else {}
    taken = {_stem(word) for word in words}
    found: list[tuple[str, float]] = []
    for word in words:
        row = vocabulary.rows.get(word)
        vector = vocabulary.matrix[row] if row is not None else embedded.get(word)
        if vector is None:
            continue
        nearest = _nearest(vocabulary, vector, words, taken)
        if nearest is not None:
            taken.add(vocabulary.stems[vocabulary.rows[nearest[0]]])
            found.append(nearest)
    return found


def single_threaded_dot(matrix: Matrix, vector: Matrix) -> Matrix:
    """`matrix @ vector` in numpy's own loop, not BLAS: a product of a few thousand rows gains
    nothing from BLAS's threads, which on a busy machine wait for a free core and make a search
    many times slower."""
    import numpy as np

    product: Matrix = np.einsum("ij,j->i", matrix, vector)
    return product


def _nearest(vocabulary: StoredTerms, vector: Matrix, words: Sequence[str], taken: set[str]
             ) -> tuple[str, float] | None:
    """The word of `vocabulary` nearest to `vector` with a cosine of `MIN_SIMILARITY` or
    more that is no form of `words` (a stem in `taken`, or one of them holds the other)."""
    import numpy as np

    similarities = single_threaded_dot(vocabulary.matrix, vector)
    candidates = np.flatnonzero(similarities >= MIN_SIMILARITY)
    for row in candidates[np.argsort(-similarities[candidates], kind="stable")]:
        term = vocabulary.terms[row]
        if vocabulary.stems[row] in taken or any(term in word or word in term
                                                 for word in words):
            continue
        return term, float(similarities[row])
    return None
