"""The question's consecutive words searched as phrases: a section that says "child process"
as the question does ranks above one that uses both words apart, more often.

The site is a real MkDocs build in tmp_path with `formats: [native, sqlite]`; the rankings are
read from the written `chunks.sqlite`.
"""

from __future__ import annotations

import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from mdchunk.outputs.sqlite import connect
from mdchunk.search import search
from mdchunk.search.lexical import lexical_ranking, phrase_query
from tests.conftest import SiteBuilder

PAGES = {
    "index.md": "# Runner\n\nRuns jobs.\n",
    "guide/jobs.md": """\
        # Jobs

        A job is a command the runner runs for you, once or on a schedule.

        ## Isolation

        Jobs share no memory. Each job runs in a child process of the runner, with the
        job's command and the runner's environment; the child process ends with the job.

        ## Pools

        A pool keeps a process for each slot. When a child dies, the pool starts a new process in
        its place; the process that replaces it is a child of the pool, and a process that
        fails three times stops the pool. Every process of a pool is a child of the runner.

        ## Logs

        Logs of every job are kept for seven days.
        """,
}

#: Pages on other topics, so that the words above are rare in the index (as in a real site).
FILLER = {f"topics/{topic}.md": f"# {topic.title()}\n\n## Setting up {topic}\n\nThe runner reads "
          f"its {topic} from the configuration file at start; each has a name and a value.\n"
          for topic in ("keys", "logging", "proxies", "schedules", "mirrors", "quotas", "hooks",
                        "themes", "shells", "plugins")}

QUESTION = "what is a child process?"
ANSWER = "guide/jobs/#isolation"


def urls(connection: sqlite3.Connection, ranking: list[tuple[int, float]]) -> list[str]:
    """The section url of each rowid of `ranking`, in its order."""
    return [connection.execute("SELECT url FROM chunks WHERE rowid = ?", (rowid,)).fetchone()[0]
            for rowid, _score in ranking]


def test_the_section_with_the_questions_phrase_comes_first(make_site: SiteBuilder) -> None:
    site = make_site({**PAGES, **FILLER}, plugin={"formats": ["native", "sqlite"], "min_tokens": 1,
                                    "max_tokens": 60})
    index = site / "chunks.sqlite"
    assert search(index, QUESTION, 3, mode="lexical", priors=False)[0].url == ANSWER
    connection = connect(index)
    try:
        with_phrases = urls(connection, lexical_ranking(connection, QUESTION, 10))
        words_alone = urls(connection, lexical_ranking(connection, QUESTION, 10, phrases=False))
    finally:
        connection.close()
    assert with_phrases[0] == ANSWER
    assert words_alone[0] == "guide/jobs/#pools"  # the words apart, more often
    assert sorted(with_phrases) == sorted(words_alone)  # phrases move hits, never add them


def test_phrases_are_consecutive_words_without_stop_words() -> None:
    assert phrase_query("how do I delete a directory and everything inside it") == (
        '"delete directory" OR "directory everything" OR "everything inside"')
    assert phrase_query("the the") == ""
    assert phrase_query("run, run run") == '"run run"'


@given(st.text(max_size=80))
def test_any_question_gives_a_valid_query(question: str) -> None:
    """No punctuation or FTS5 keyword in a question makes the phrase query invalid."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')")
        connection.execute("INSERT INTO t VALUES ('a child process')")
        query = phrase_query(question)
        if query:
            connection.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
    finally:
        connection.close()
