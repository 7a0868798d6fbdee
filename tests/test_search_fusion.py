"""How a hybrid search fuses its two rankings (`mdchunk.search.ranking.fuse`): each side's
scores over that side's best, averaged. The end-to-end check on a real build with a real model
is `test_hybrid_fuses_both_rankings_and_is_what_auto_does` (tests/test_vectors.py); these are
the properties of the fusion itself, over any rankings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mdchunk.search.ranking import fuse

Ranking = list[tuple[int, float]]

#: A side's ranking: distinct rowids with positive scores, best first (as both sides give them).
rankings = st.dictionaries(st.integers(min_value=1, max_value=40),
                           st.floats(min_value=0.01, max_value=50.0), min_size=1).map(
    lambda scores: sorted(scores.items(), key=lambda item: -item[1]))


def test_a_chunk_one_side_finds_far_better_keeps_its_lead() -> None:
    """The lexical side finds chunk 1 ten times better than chunk 2; the dense side finds both
    about as near, chunk 2 a hair nearer. Ranks alone would put chunk 2 first (first and second
    against second and third); the scores keep chunk 1 first."""
    lexical: Ranking = [(1, 10.0), (2, 1.0)]
    dense: Ranking = [(2, 0.90), (3, 0.89), (1, 0.88)]
    fused = fuse([lexical, dense])
    assert [rowid for rowid, _ in fused] == [1, 2, 3]
    assert dict(fused) == {1: (1.0 + 0.88 / 0.90) / 2, 2: (0.1 + 1.0) / 2, 3: 0.89 / 0.90 / 2}


@given(lexical=rankings, dense=rankings)
def test_fused_scores_are_the_mean_of_each_sides_share_of_its_best(lexical: Ranking,
                                                                   dense: Ranking) -> None:
    fused = fuse([lexical, dense])
    best = (lexical[0][1], dense[0][1])
    expected = {rowid: 0.0 for rowid, _ in [*lexical, *dense]}
    for ranking, top in zip((lexical, dense), best, strict=True):
        for rowid, score in ranking:
            expected[rowid] += score / top / 2
    assert {rowid for rowid, _ in fused} == set(expected)
    for rowid, score in fused:
        assert abs(score - expected[rowid]) < 1e-9 and 0.0 < score <= 1.0 + 1e-9
    assert [score for _, score in fused] == sorted((score for _, score in fused), reverse=True)


@given(lexical=rankings, dense=rankings, factor=st.floats(min_value=0.001, max_value=1000.0))
def test_the_scale_of_a_side_changes_nothing(lexical: Ranking, dense: Ranking,
                                             factor: float) -> None:
    """BM25 and cosine scores live on unrelated scales: multiplying one side's scores by any
    positive number leaves the fused ranking as it was."""
    scaled = [(rowid, score * factor) for rowid, score in lexical]
    fused, again = dict(fuse([lexical, dense])), dict(fuse([scaled, dense]))
    assert fused.keys() == again.keys()
    assert all(abs(fused[rowid] - again[rowid]) < 1e-9 for rowid in fused)


@given(ranking=rankings)
def test_a_single_ranking_keeps_its_own_scores(ranking: Ranking) -> None:
    assert fuse([ranking]) == ranking


@given(lexical=rankings)
def test_a_side_that_matches_nothing_adds_nothing(lexical: Ranking) -> None:
    """A question with no word the model knows: the dense side is empty, the fused ranking is
    the lexical one's order, each score its share of the best, halved."""
    fused = fuse([lexical, []])
    assert [rowid for rowid, _ in fused] == [rowid for rowid, _ in lexical]
    assert fused[0][1] == 0.5
