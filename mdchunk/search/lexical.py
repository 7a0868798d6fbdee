"""The lexical side of search: FTS5 BM25 over the index's `chunks_fts`.

The index is tokenized with `porter unicode61`, so a query word matches its stemmed forms
(`install` finds `installing`); a word in the breadcrumb weighs more than one in a title, and a
title more than the body text (`FTS_WEIGHTS`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from mdchunk.outputs.sqlite import FTS_WEIGHTS

#: Words left out of a query when others remain (they match nearly every chunk).
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "if", "in", "is", "it", "its", "my", "of", "on", "or", "should", "so", "that", "the",
    "their", "then", "there", "these", "this", "to", "was", "what", "when", "where", "which",
    "who", "why", "will", "with", "you", "your"
})
_WORD = re.compile(r"\w+", re.UNICODE)


def question_words(question: str) -> list[str]:
    """The words of `question` a search matches: lower case, each once, in their order, stop
    words dropped when others remain."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(question)))
    return [word for word in words if word not in STOP_WORDS] or words


def fts_query(question: str) -> str:
    """An FTS5 query matching any word of `question` (`question_words`).

    Every word is quoted, so no punctuation or FTS5 keyword (`AND`, `NEAR`, `*`, `"`) in user
    input can raise a syntax error. Returns "" when the question has no word.
    """
    return " OR ".join(f'"{word}"' for word in question_words(question))


def lexical_ranking(connection: sqlite3.Connection, question: str, limit: int,
                    weights: Sequence[float] = FTS_WEIGHTS,
                    expansions: Sequence[tuple[str, float]] = ()) -> list[tuple[int, float]]:
    """The `limit` chunks that best match `question` as (rowid, score) pairs, best first;
    the score is -bm25 (higher is better).

    `expansions`: (word, weight) pairs searched for besides the question's words
    (`mdchunk.search.vocabulary`): a chunk's score gains each word's -bm25 times its weight.
    """
    query = fts_query(question)
    if not query or limit <= 0:
        return []
    ranking = _matches(connection, query, limit, weights)
    if not expansions:
        return ranking
    scores = dict(ranking)
    for word, weight in expansions:
        for rowid, score in _matches(connection, f'"{word}"', limit, weights):
            scores[rowid] = scores.get(rowid, 0.0) + weight * score
    return sorted(scores.items(), key=lambda item: -item[1])[:limit]


def _matches(connection: sqlite3.Connection, query: str, limit: int,
             weights: Sequence[float]) -> list[tuple[int, float]]:
    """The `limit` chunks that best match an FTS5 `query`, as (rowid, -bm25), best first."""
    weight_args = ", ".join(str(float(weight)) for weight in weights)
    rows = connection.execute(
        f"SELECT rowid, bm25(chunks_fts, {weight_args}) AS rank FROM chunks_fts "
        "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
        (query, limit),
    ).fetchall()
    return [(rowid, -rank) for rowid, rank in rows]
