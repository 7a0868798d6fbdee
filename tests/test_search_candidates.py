"""Each side of a hybrid search scores the other side's candidates: a chunk the lexical side
ranks first and the dense side past its candidates is fused with both its scores, not with the
dense side's share taken as none (`mdchunk.search.ranking.side_rankings`).

The site is a real MkDocs build in tmp_path with `formats: [native, sqlite]` and the default
model's vectors (`embed_model: wordllama`); the rankings are read from the written
`chunks.sqlite`, each side's candidates cut to a few so that the two sides' differ.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sqlite3
from collections.abc import Iterator

import pytest

from mdchunk.outputs.sqlite import connect
from mdchunk.search.dense import DenseSide, dense_side
from mdchunk.search.lexical import lexical_scores
from mdchunk.search.ranking import fuse, side_rankings
from tests.conftest import SiteBuilder

pytestmark = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                reason="wordllama is not installed (mdchunk[search])")

TOPICS = ("certificates", "proxies", "schedules", "mirrors", "quotas", "hooks", "themes",
          "shells", "plugins", "backups")
PAGES = {
    "index.md": "# Runner\n\nRuns jobs on a schedule and keeps their logs for a week.\n",
    **{f"topics/{topic}.md": (
        f"# {topic.title()}\n\n## Setting up {topic}\n\nThe runner reads its {topic} from "
        f"the configuration file at start.\n\n## Renewing {topic}\n\nRenew the {topic} before "
        f"they expire: the runner warns a week ahead.\n\n## Removing {topic}\n\nDelete the "
        f"{topic} you no longer use; the runner forgets them at its next start.\n")
       for topic in TOPICS},
}
QUESTIONS = ("renew an expired certificate", "delete old backups", "where are the logs kept",
             "set up a proxy at start", "how long are logs kept")
#: Candidates a side: fewer than the site's chunks, so that the sides' candidates differ.
LIMIT = 4


@contextlib.contextmanager
def embedded_index(make_site: SiteBuilder) -> Iterator[tuple[sqlite3.Connection, DenseSide, int]]:
    """The built site's index open, its dense side and its count of chunks."""
    index = make_site(PAGES, plugin={"formats": ["native", "sqlite"],
                                     "embed_model": "wordllama"}) / "chunks.sqlite"
    connection = connect(index)
    try:
        dense = dense_side(index, "hybrid", connection)
        assert dense is not None
        yield connection, dense, connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        connection.close()


def test_every_candidate_has_both_sides_scores(make_site: SiteBuilder) -> None:
    differ = 0
    with embedded_index(make_site) as (connection, dense, chunks):
        for question in QUESTIONS:
            words, nearest = side_rankings(connection, question, LIMIT, dense)
            every_word = lexical_scores(connection, question)
            every_vector = dict(dense.ranking(question, chunks))
            top_words = sorted(every_word, key=lambda rowid: -every_word[rowid])[:LIMIT]
            top_vectors = [rowid for rowid, _ in dense.ranking(question, LIMIT)]
            differ += set(top_words) != set(top_vectors)
            candidates = {*top_words, *top_vectors}
            # each side: its own best first, then the other side's candidates it scores
            assert [rowid for rowid, _ in words[:LIMIT]] == top_words
            assert [rowid for rowid, _ in nearest[:LIMIT]] == top_vectors
            assert dict(words) == pytest.approx(
                {rowid: every_word[rowid] for rowid in candidates if rowid in every_word})
            assert dict(nearest) == pytest.approx(
                {rowid: every_vector[rowid] for rowid in candidates})
    assert differ >= 2  # the sides' candidates differ: the scores filled in are checked


def test_the_fused_score_of_a_hit_is_that_of_both_its_scores(make_site: SiteBuilder) -> None:
    """The fusion of a few candidates a side gives each of them the score it has when every
    chunk is a candidate of both sides."""
    with embedded_index(make_site) as (connection, dense, chunks):
        for question in QUESTIONS:
            few = dict(fuse(side_rankings(connection, question, LIMIT, dense)))
            every = dict(fuse(side_rankings(connection, question, chunks, dense)))
            assert few == pytest.approx({rowid: every[rowid] for rowid in few})
