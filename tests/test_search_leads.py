"""Each section's lead (the first sentence of its prose) in the lexical index: a question in
words finds the API entry whose first sentence says what it does, though its title is an
identifier and other sections use the same words more often.

The sites are real MkDocs builds in tmp_path with `formats: [native, sqlite]`; what is checked
is read from the written `chunks.sqlite` and `chunks.jsonl`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.outputs.leads import section_lead
from mdchunk.outputs.sqlite import FTS_WEIGHTS, SQLITE_SCHEMA_VERSION, TEXT_COLUMNS
from mdchunk.search import search
from tests.conftest import SiteBuilder

#: An API page in the Node.js docs' style (parameters first, then what the call does) and a
#: page whose body uses the question's words more often than the API entry.
PAGES = {
    "index.md": "# Files\n\nWorking with files.\n",
    "api/fs.md": """\
        # File system

        ## `fs.rm(path[, options])`

        - `path` {string} The path.
        - `options` {Object}
          - `force` {boolean} When `true`, a missing `path` is ignored.
          - `recursive` {boolean} When `true`, the whole tree is handled.

        Removes files and directories, as the POSIX `rm` command does.

        The returned promise settles once the work is done.

        ## `fs.watch(path)`

        - `path` {string} The path to watch.

        Watches a path for [changes](https://nodejs.example/api/events/). A watcher on a
        directory reports each file that is removed from the directory, each file added to
        the directory and each directory renamed; when the watched directory itself is
        removed, the watcher reports that the directory was removed and stops. Removing
        files from a directory reports one event per removed file.
        """,
    "guide/cleanup.md": """\
        # Cleaning up

        ## Old logs

        Logs rotate every night. The log directory keeps seven days; older logs are removed
        by the rotation, and an empty directory left by it is removed too.
        """,
}

QUESTION = "remove a directory with everything in it"
ANSWER = "api/fs/#fsrmpath-options"


def build(make_site: SiteBuilder) -> Path:
    return make_site(PAGES, plugin={"formats": ["native", "sqlite"], "min_tokens": 1,
                                    "max_tokens": 60})


def leads(index: Path) -> dict[str, str]:
    """Each section url's lead as `chunks.sqlite` holds it."""
    connection = sqlite3.connect(index)
    try:
        return dict(connection.execute(
            "SELECT chunks.url, chunk_leads.lead FROM chunk_leads "
            "JOIN chunks ON chunks.rowid = chunk_leads.rowid"))
    finally:
        connection.close()


def test_the_index_holds_each_sections_first_sentence(make_site: SiteBuilder) -> None:
    site = build(make_site)
    held = leads(site / "chunks.sqlite")
    assert held[ANSWER] == "Removes files and directories, as the POSIX `rm` command does."
    assert held["guide/cleanup/#cleaning-up"] == "Logs rotate every night."  # (packed)
    # a link's text is kept, its target left out
    assert held["api/fs/#fswatchpath"] == "Watches a path for changes."
    connection = sqlite3.connect(site / "chunks.sqlite")
    try:
        meta = dict(connection.execute("SELECT key, value FROM meta"))
        columns = [row[1] for row in connection.execute("PRAGMA table_info(chunks)")]
    finally:
        connection.close()
    assert meta["schema_version"] == str(SQLITE_SCHEMA_VERSION) == "6"
    assert "lead" not in columns  # the records are the native ones, as chunks.jsonl has them
    records = [json.loads(line) for line in
               (site / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all("lead" not in record for record in records)


def test_a_question_in_words_finds_the_entry_whose_lead_says_it(
        make_site: SiteBuilder) -> None:
    index = build(make_site) / "chunks.sqlite"
    assert search(index, QUESTION, 3, mode="lexical", priors=False)[0].url == ANSWER
    # without the lead's weight the bodies that repeat the words come first
    without = search(index, QUESTION, 3, mode="lexical", priors=False,
                     weights=(*FTS_WEIGHTS[:-1], 0.0))
    assert without[0].url != ANSWER


def test_an_index_without_leads_is_searched_as_before(make_site: SiteBuilder) -> None:
    """An index of schema version 4 (no `lead` column) keeps its ranking: FTS5 ignores the
    lead's weight."""
    index = build(make_site) / "chunks.sqlite"
    connection = sqlite3.connect(index)
    try:
        with connection:
            connection.execute("DROP TABLE chunks_fts")
            columns = ", ".join(f'"{name}"' for name in TEXT_COLUMNS)
            connection.execute(
                f"CREATE VIRTUAL TABLE chunks_fts USING fts5({columns}, content='chunks', "
                "content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2')")
            connection.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
    finally:
        connection.close()
    hits = search(index, QUESTION, 3, mode="lexical", priors=False)
    assert hits and hits[0].url != ANSWER


def test_a_lead_ends_and_reads_its_links_as_the_chunks_do(make_site: SiteBuilder) -> None:
    """The lead's sentence ends where the chunker's sentences end (`sentence_ends`: not at an
    abbreviation's full stop), and its links are read as their text by the chunker's rule
    (`links_as_text`: a destination with parentheses, a link in code left as code)."""
    site = make_site({
        "index.md": "# Files\n\nWorking with files.\n",
        "api.md": """\
            # API

            ## `fs.cp(src, dest)`

            - `src` {string} The source.

            Copies files and folders, e.g. `a/` into `b/`, as
            [cp](https://e.example/cp_(unix)) does. It returns a promise.

            ## `fs.link(target)`

            Makes a hard link, not `[a](b)` text, to a file. It returns a promise.
            """,
    }, plugin={"formats": ["native", "sqlite"], "min_tokens": 1, "max_tokens": 60})
    held = leads(site / "chunks.sqlite")
    assert held["api/#fscpsrc-dest"] == (
        "Copies files and folders, e.g. `a/` into `b/`, as cp does.")
    assert held["api/#fslinktarget"] == "Makes a hard link, not `[a](b)` text, to a file."


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
               max_size=300))
def test_a_lead_is_one_line_of_the_text(markdown: str) -> None:
    lead = section_lead(markdown)
    assert "\n" not in lead
    assert all(word in markdown for word in lead.split())
