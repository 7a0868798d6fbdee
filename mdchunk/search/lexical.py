"""The lexical side of search: FTS5 BM25 over the index's `chunks_fts`.

The index is tokenized with `porter unicode61`, so a query word matches its stemmed forms
(`install` finds `installing`); a word in the breadcrumb or a section's lead weighs more than
one in a title, and a title more than the body text (`FTS_WEIGHTS`).

Besides its words, each two consecutive words of the question (stop words left out) are
searched as a phrase, their bm25 weighted `PHRASE_WEIGHT`: a chunk that says "child process"
or "uncaught exception" as the question does ranks above one that has both words apart (a
sequential dependence model, as in Metzler and Croft's, with FTS5's phrase queries).
"""

from __future__ import annotations

import itertools
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
#: The weight of a phrase of two consecutive question words, against 1 for a word.
PHRASE_WEIGHT = 0.5


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


def phrase_query(question: str) -> str:
    """An FTS5 query matching any two consecutive words of `question` as a phrase, once each
    ("" where it has fewer than two): its words in their order, stop words left out, so that
    "delete a directory" gives the phrase `"delete directory"`."""
    words = [word.lower() for word in _WORD.findall(question)]
    kept = [word for word in words if word not in STOP_WORDS]
    pairs = dict.fromkeys(f"{first} {second}" for first, second in itertools.pairwise(kept))
    return " OR ".join(f'"{pair}"' for pair in pairs)


def lexical_ranking(connection: sqlite3.Connection, question: str, limit: int,
                    weights: Sequence[float] = FTS_WEIGHTS,
                    expansions: Sequence[tuple[str, float]] = (), *,
                    phrases: bool = True) -> list[tuple[int, float]]:
    """The `limit` chunks that best match `question` as (rowid, score) pairs, best first;
    the score is -bm25 (higher is better).

    `expansions`: (word, weight) pairs searched for besides the question's words
    (`mdchunk.search.vocabulary`): a chunk's score gains each word's -bm25 times its weight.
    With `phrases` (the default) a chunk's score also gains the -bm25 of the question's
    phrases (`phrase_query`) times `PHRASE_WEIGHT`. Each of these counts for the `limit`
    chunks it matches best (`lexical_scores` counts them all).
    """
    if limit <= 0:
        return []
    scores = _scored(connection, question, weights, expansions, phrases=phrases, limit=limit)
    return sorted(scores.items(), key=lambda item: -item[1])[:limit]


def lexical_scores(connection: sqlite3.Connection, question: str,
                   weights: Sequence[float] = FTS_WEIGHTS,
                   expansions: Sequence[tuple[str, float]] = (), *,
                   phrases: bool = True) -> dict[int, float]:
    """The score `lexical_ranking` gives, of every chunk that matches `question`, by rowid,
    each of its words, expansions and phrases counted wherever the chunk ranks for it: a
    hybrid search has the lexical score of the chunks the dense side found, however low
    they rank here (FTS5 scores every match to rank them, so this costs little more)."""
    return _scored(connection, question, weights, expansions, phrases=phrases, limit=None)


def _scored(connection: sqlite3.Connection, question: str, weights: Sequence[float],
            expansions: Sequence[tuple[str, float]], *, phrases: bool, limit: int | None
            ) -> dict[int, float]:
    """Each chunk's score for `question`: its words, `expansions` and phrases, each an FTS5
    query whose `limit` best matches (None: every match) count, by their weights."""
    query = fts_query(question)
    if not query:
        return {}
    searched = [(query, 1.0), *((f'"{word}"', weight) for word, weight in expansions)]
    phrased = phrase_query(question) if phrases else ""
    if phrased:
        searched.append((phrased, PHRASE_WEIGHT))
    scores: dict[int, float] = {}
    for match, weight in searched:
        for rowid, score in _matches(connection, match, weights, limit):
            scores[rowid] = scores.get(rowid, 0.0) + weight * score
    return scores


def _matches(connection: sqlite3.Connection, query: str, weights: Sequence[float],
             limit: int | None) -> list[tuple[int, float]]:
    """The chunks that match an FTS5 `query`, as (rowid, -bm25): the `limit` best, best
    first, or (None) every match."""
    weight_args = ", ".join(str(float(weight)) for weight in weights)
    select = (f"SELECT rowid, bm25(chunks_fts, {weight_args}) AS rank FROM chunks_fts "
              "WHERE chunks_fts MATCH ?")
    rows = (connection.execute(select, (query,)) if limit is None else
            connection.execute(f"{select} ORDER BY rank LIMIT ?", (query, limit))).fetchall()
    return [(rowid, -rank) for rowid, rank in rows]
