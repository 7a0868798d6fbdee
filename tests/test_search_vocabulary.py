"""Query expansion through the index's own vocabulary (`mdchunk.search.vocabulary`): a hybrid
search finds a section in the words the docs use when the question uses others."""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.outputs.sqlite import connect
from mdchunk.search import search
from mdchunk.search.embedders import load_embedder
from mdchunk.search.vectors import blob_vector
from mdchunk.search.vocabulary import (
    MIN_SIMILARITY,
    TABLE,
    expansions,
    index_vocabulary,
    read_terms,
    stems,
)
from tests.conftest import SiteBuilder

np = pytest.importorskip("numpy")
pytestmark = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                reason="wordllama is not installed (mdchunk[search])")

#: The section that answers says "remove" and "directory"; the reader asks to "delete a
#: folder". Another page deletes in passing, and another moves a directory.
PAGES = {
    "index.md": """\
        # Workspace tool

        The workspace tool keeps the files of a project in one place.
        """,
    "files.md": """\
        # Files

        ## Clean a workspace

        `ws clean` will remove the workspace directory and every file and directory under it,
        at once, without asking. Nothing it removes can be restored afterwards, so commit your
        work before you run it. Add `--keep-config` to keep the `keepConfig` file.

        ## Move a project

        `ws move` copies the project directory to its new place, checks that every file
        arrived, then deletes the old copy. A project that is open in an editor is moved once
        the editor lets go of its files and its `keepConfig`.

        ## Cache entries

        `ws cache rm KEY` will remove one entry of the cache; `ws cache list` shows the
        entries, their keys and their sizes. The cache fills again as projects are built.
        """,
    "settings.md": """\
        # Settings

        ## Colours

        Pick the colours of the interface: a light theme, a dark theme, or the one of the
        system.

        ## Fonts

        Choose the font of the editor and its size; a larger size is easier on the eyes.

        ## Keyboard shortcuts

        Every command has a shortcut; bind a new one in the list of commands.

        ## Language

        The interface speaks English, French and German; the spelling checker follows it.

        ## Updates

        The tool looks for a new release once a day and asks before it installs one.

        ## Proxy

        Behind a company proxy, give its address and port so that updates can be fetched.
        """,
    "mail.md": """\
        # Mail

        ## Trash

        Messages you delete stay in the trash for thirty days, then the server frees their
        space.

        ## Signatures

        Write the signature added under every message you send; each account has its own.
        """,
}
QUESTION = "how do I delete a folder"
ANSWER = "ws clean"


@pytest.fixture
def index(make_site: SiteBuilder) -> Path:
    """The site built with vectors of its chunks and words (`embed_model`)."""
    site = make_site(PAGES, plugin={"formats": ["native", "sqlite"],
                                    "embed_model": "wordllama"})
    return site / "chunks.sqlite"


def terms(path: Path) -> dict[str, tuple[str, bytes]]:
    """The index's words: (stem, BLOB) by word."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(f"SELECT term, stem, embedding FROM {TABLE}").fetchall()
    finally:
        connection.close()
    return {term: (stem, blob) for term, stem, blob in rows}


def first_text(path: Path, **options: Any) -> str:
    return search(path, QUESTION, 5, **options)[0].text


def test_a_hybrid_search_finds_the_section_in_the_words_it_uses(index: Path) -> None:
    assert ANSWER in first_text(index, mode="hybrid")
    assert ANSWER not in first_text(index, mode="hybrid", expand=False)


def test_the_question_words_are_searched_by_the_nearest_words_of_the_index(index: Path
                                                                         ) -> None:
    connection = connect(index)
    try:
        vocabulary = read_terms(connection, 256)
    finally:
        connection.close()
    assert vocabulary is not None
    model = load_embedder("wordllama")
    found = dict(expansions(vocabulary, QUESTION, model.embed))
    assert set(found) == {"remove", "directory"}
    assert all(MIN_SIMILARITY <= similarity <= 1 for similarity in found.values())
    # forms of the question's own words are no expansion of them
    assert not {"remove", "removes", "directory"} & {
        word for word, _ in expansions(vocabulary, "it removes a directory", model.embed)}
    # a word of the index needs no model; another is left alone without one
    known = "moves the workspace files"
    assert expansions(vocabulary, known) == expansions(vocabulary, known, model.embed)
    assert expansions(vocabulary, QUESTION) == []


def test_the_index_holds_the_vectors_of_its_plain_words(index: Path) -> None:
    stored = terms(index)
    connection = sqlite3.connect(index)
    try:
        assert sorted(stored) == index_vocabulary(connection)
    finally:
        connection.close()
    assert {"remove", "directory", "workspace"} <= set(stored)
    # an identifier, a word of one chunk, a stop word: none is a word of the vocabulary
    assert not {"keepconfig", "signature", "the"} & set(stored)
    assert stored["remove"][0] == stems(["remove"])["remove"] == "remov"
    model = load_embedder("wordllama")
    words = sorted(stored)
    for word, vector in zip(words, model.embed(words), strict=True):
        assert np.allclose(blob_vector(stored[word][1]), vector, atol=1e-6)


def test_a_lexical_search_is_not_expanded(index: Path) -> None:
    expanded = search(index, QUESTION, 5, mode="lexical")
    assert expanded == search(index, QUESTION, 5, mode="lexical", expand=False)
    assert all(ANSWER not in hit.text for hit in expanded)


def test_an_index_without_its_words_vectors_is_searched_without_them(index: Path,
                                                                     tmp_path: Path) -> None:
    """An index written by an older mdchunk (schema version 3) has no `terms_vec`."""
    older = tmp_path / "older.sqlite"
    shutil.copy(index, older)
    connection = sqlite3.connect(older)
    with connection:
        connection.execute(f"DROP TABLE {TABLE}")
    connection.close()
    assert search(older, QUESTION, 5, mode="hybrid") == search(index, QUESTION, 5,
                                                               mode="hybrid", expand=False)


FAMILIES = (("remove", "removes", "removed", "removing"), ("directory", "directories"),
            ("delete", "deletes", "deleting"))


@given(st.lists(st.sampled_from([word for family in FAMILIES for word in family]),
                min_size=1))
def test_the_forms_of_a_word_share_one_stem_as_the_index_stems_them(words: list[str]) -> None:
    """What keeps a form of a question's word (`removes` for `removing`) from being its
    expansion."""
    by_word = stems(words)
    assert set(by_word) == set(words)
    family_of = {word: number for number, family in enumerate(FAMILIES) for word in family}
    for word, stem in by_word.items():
        assert stem == stems([word])[word]
        assert all((stem == other) == (family_of[word] == family_of[one])
                   for one, other in by_word.items())
