"""One search over an index: each side ranks chunks, the rankings are fused, the best hits are
kept, at most one per section.

Fusion (`fuse`) is a convex combination of the sides' scores, each side's scores divided by its
best score for the question: a chunk's fused score is the mean, over the rankings, of its score
in that ranking over the ranking's best (0 where the ranking does not hold it). Dividing by the
best puts BM25 scores and cosine similarities, which live on unrelated scales, on one scale (the
best of each side is 1), and unlike rank fusion it keeps how far apart two chunks are: a chunk
that one side finds far better than the rest keeps that lead. With a single ranking the hits
keep that ranking's own scores.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Literal

from mdchunk.outputs.sqlite import FTS_WEIGHTS, column_or_null, connect
from mdchunk.search.dense import DenseSide, dense_side, index_stamp
from mdchunk.search.kinds import page_kinds, reorder
from mdchunk.search.lexical import lexical_ranking, lexical_scores
from mdchunk.search.vectors import META_DIMENSION
from mdchunk.search.vocabulary import StoredTerms, expansions, read_terms

#: How a search ranks: `lexical` (FTS5 BM25), `dense` (vectors), `hybrid` (both, fused) or
#: `auto` (hybrid where the index holds vectors and their model loads, else lexical).
Mode = Literal["auto", "lexical", "dense", "hybrid"]
MODES: tuple[str, ...] = ("auto", "lexical", "dense", "hybrid")

def candidates_for(k: int) -> int:
    """How many chunks each side ranks for a search of `k` hits: enough that keeping one hit
    per section still leaves `k` sections."""
    return max(100, 10 * k)


@dataclasses.dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a chunk, and the section (`url`) and page it belongs to."""

    id: str
    url: str
    page_url: str
    breadcrumb: str
    title: str
    score: float
    """Higher is better: -bm25 for a lexical search, the fused score for a hybrid one."""
    text: str
    version: str | None = None
    """The version of the docs the chunk belongs to (None: an unversioned build)."""
    language: str | None = None
    """The natural language of the chunk's page (the native record's `language`)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON form, named as the native record names these fields."""
        return {"id": self.id, "url": self.url, "pageUrl": self.page_url,
                "breadcrumb": self.breadcrumb, "title": self.title, "score": self.score,
                "text": self.text, "version": self.version, "language": self.language}


def fuse(rankings: Sequence[Sequence[tuple[int, float]]]) -> list[tuple[int, float]]:
    """One ranking of (rowid, score) pairs from several, best first: each chunk's mean over the
    rankings of its score divided by that ranking's best score (see the module's docstring);
    a single ranking is returned as it is. A ranking whose best score is not positive (no
    chunk matches at all) adds nothing."""
    if len(rankings) == 1:
        return list(rankings[0])
    scores: dict[int, float] = {}
    for ranking in rankings:
        best = max((score for _rowid, score in ranking), default=0.0)
        if best <= 0:
            continue
        for rowid, score in ranking:
            scores[rowid] = scores.get(rowid, 0.0) + score / best / len(rankings)
    return sorted(scores.items(), key=lambda item: -item[1])


def one_per_section(hits: Sequence[Hit]) -> list[Hit]:
    """The best hit of each section (`url`), in the order of `hits`."""
    best: dict[str, Hit] = {}
    for hit in hits:
        best.setdefault(hit.url, hit)
    return list(best.values())


def search(path: Path, question: str, k: int = 5, *, mode: Mode = "auto",
           per_section: bool = True, weights: Sequence[float] = FTS_WEIGHTS,
           priors: bool = True, kinds: Collection[str] = (), expand: bool = True
           ) -> list[Hit]:
    """The `k` best hits for `question` in the index at `path`, best first.

    With `per_section` (the default) at most one hit per section is returned: the section's
    best chunk. With `priors` (the default) hits are moved by their pages' kinds and for
    diversity across pages and kinds (`mdchunk.search.kinds`); `kinds` keeps only the hits
    of pages of those kinds. `mode`: see `Mode`; the dense side embeds the question with the
    model that made the index's vectors (`mdchunk.search.dense`). With `expand` (the default),
    in a search with a dense side, the lexical side also searches for the index's words
    nearest to the question's (`mdchunk.search.vocabulary`): a lexical search alone takes
    every match of a word that is near but wrong at face value, where the dense side of a
    hybrid search outvotes it.

    Raises:
        SearchError: in mode `dense` or `hybrid`, for an index without vectors or whose model
            cannot be had.
    """
    if k <= 0:
        return []
    if mode not in MODES:
        raise ValueError(f"search mode must be one of {', '.join(MODES)}, got {mode!r}")
    connection = connect(path)
    try:
        dense = dense_side(path, mode, connection)
        if mode == "dense" and dense is not None:
            rankings = [dense.ranking(question, candidates_for(k))]
        else:
            extra = _expansions(path, connection, question, dense) if expand and dense else []
            rankings = side_rankings(connection, question, candidates_for(k), dense,
                                     weights=weights, extra=extra)
        hits = _hits(connection, fuse(rankings))
        if priors or kinds:
            hits = _with_kinds(connection, hits, question, priors=priors, kinds=kinds)
    finally:
        connection.close()
    if per_section:
        hits = one_per_section(hits)
    return hits[:k]


def side_rankings(connection: Any, question: str, limit: int, dense: DenseSide | None, *,
                  weights: Sequence[float] = FTS_WEIGHTS,
                  extra: Sequence[tuple[str, float]] = ()) -> list[list[tuple[int, float]]]:
    """The lexical side's ranking of `question`, and the dense side's where there is one,
    each of `limit` candidates. With both, each side also scores the other side's candidates
    that it did not rank among its own, so that every candidate is fused with both its scores
    (a chunk one side puts 101st keeps that side's score, not none); the lexical scores are
    then `lexical_scores`', every word, expansion and phrase counted wherever it ranks the
    chunk."""
    if dense is None:
        return [lexical_ranking(connection, question, limit, weights, extra)]
    scores = lexical_scores(connection, question, weights, extra)
    words = sorted(scores.items(), key=lambda item: -item[1])[:max(limit, 0)]
    nearest = dense.ranking(question, limit, also=[rowid for rowid, _score in words])
    ranked = {rowid for rowid, _score in words}
    words += [(rowid, scores[rowid]) for rowid, _score in nearest
              if rowid in scores and rowid not in ranked]
    return [words, nearest]


def _expansions(path: Path, connection: Any, question: str, dense: DenseSide
                ) -> list[tuple[str, float]]:
    """The index words the lexical side searches for besides the question's: none where the
    index holds no vectors of its words (written by an older mdchunk: `mdchunk embed` adds
    them)."""
    vocabulary = _stored_terms(str(path.resolve()), index_stamp(path, connection))
    if vocabulary is None:
        return []
    return expansions(vocabulary, question, dense.embedder.embed)


@functools.lru_cache(maxsize=4)
def _stored_terms(path: str, _stamp: tuple[int, int, int, str]) -> StoredTerms | None:
    """The words' vectors of the index at `path` as it is at `_stamp`, read once per
    process."""
    connection = connect(Path(path))
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = ?",
                                 (META_DIMENSION,)).fetchone()
        return read_terms(connection, int(row[0])) if row and str(row[0]).isdigit() else None
    finally:
        connection.close()


def _with_kinds(connection: Any, hits: list[Hit], question: str, *, priors: bool,
                kinds: Collection[str]) -> list[Hit]:
    """`hits` of pages of `kinds` (all where empty), reordered by the kinds' priors."""
    of_page = page_kinds(connection, {hit.page_url: hit.id for hit in hits}.values())
    if kinds:
        hits = [hit for hit in hits if of_page.get(hit.page_url) in kinds]
    return reorder(hits, of_page, question) if priors else hits


def _hits(connection: Any, ranking: Sequence[tuple[int, float]]) -> list[Hit]:
    """The hits of a ranking's rowids, in its order."""
    if not ranking:
        return []
    marks = ", ".join("?" for _ in ranking)
    rows = connection.execute(
        "SELECT rowid, id, url, pageUrl, headerBreadcrumb, fileTitle, originalText, "
        f"{column_or_null(connection, 'version')}, {column_or_null(connection, 'language')} "
        "FROM chunks "
        f"WHERE rowid IN ({marks})", [rowid for rowid, _ in ranking]).fetchall()
    by_rowid = {row[0]: row for row in rows}
    return [
        Hit(id=row[1], url=row[2] or "", page_url=row[3] or "", breadcrumb=row[4] or "",
            title=row[5] or "", score=round(score, 4), text=row[6] or "", version=row[7],
            language=row[8])
        for rowid, score in ranking if (row := by_rowid.get(rowid)) is not None
    ]
