"""The dense side of search (`mdchunk.search.dense`): each chunk's vector holds its heading
beside its text (`mdchunk.search.vectors.chunk_vector`), and a question is embedded with its
tokens weighted by their idf in the index (`mdchunk.search.token_weights`), so that an API
entry whose body is a list of parameters is found by what its lead says it does.

The sites are real MkDocs builds in tmp_path with `embed_model: wordllama`; what is checked
is read from the written `chunks.sqlite`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sqlite3
from pathlib import Path

import pytest

from mdchunk.search import search
from mdchunk.search.embedders import load_embedder
from mdchunk.search.token_weights import TABLE, read_idf
from mdchunk.search.vectors import blob_vector, embed_index, text_digest, vector_blob
from tests.conftest import SiteBuilder

np = pytest.importorskip("numpy")
pytestmark = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                reason="wordllama is not installed (mdchunk[search])")

#: API entries in the Node.js docs' style: a heading that is an identifier, a list of
#: parameters, then the sentence that says what the call does.
PAGES = {
    "index.md": "# Workspace tool\n\nThe workspace tool keeps the files of a project.\n",
    "folders.md": """\
        # Folders

        The tool lists the folders of the workspace and the files they hold.
        """,
    "api.md": """\
        # API

        The calls of the workspace tool.

        ## `ws.purge(path[, options])`

        - `path` {string} The path of the workspace.
        - `options` {Object}
          - `retries` {integer} How many times the call is made again after a busy error.
            **Default:** `0`.
          - `delay` {integer} The milliseconds between two tries. **Default:** `100`.
          - `signal` {AbortSignal} Aborts the call.
          - `mode` {integer} The mode of the files the call writes. **Default:** `0o666`.
          - `encoding` {string} The encoding of the names. **Default:** `'utf8'`.
          - `timeout` {integer} The milliseconds the call may take. **Default:** `0`.
          - `verbose` {boolean} Print each name the call handles. **Default:** `false`.

        Deletes a folder and everything inside it.

        ## `ws.open(path[, flags])`

        - `path` {string} The path of the file.
        - `flags` {string} The flags of the file, `r` to read it, `w` to write it.
          **Default:** `'r'`.
        - `mode` {integer} The mode of a new file. **Default:** `0o666`.

        Opens a file of the workspace and returns its handle.

        ## `ws.options(path)`

        - `path` {string} The path of the workspace.
        - `retries` {integer} The retries of the calls made on it.
        - `delay` {integer} The milliseconds between two tries.

        Returns the options of a workspace: its retries, its delay and its signal.
        """,
}
QUESTION = "how do I delete a folder with everything inside"
ANSWER = "Deletes a folder and everything inside it."


@pytest.fixture
def index(make_site: SiteBuilder) -> Path:
    site = make_site(PAGES, plugin={"formats": ["native", "sqlite"], "min_tokens": 1,
                                    "max_tokens": 400, "embed_model": "wordllama"})
    return site / "chunks.sqlite"


def as_before(index: Path) -> None:
    """Make `index` as `mdchunk embed` wrote it before headings and token idf: each chunk's
    vector that of its `embedText` alone, keyed by its sha256, no `token_idf`."""
    model = load_embedder("wordllama")
    connection = sqlite3.connect(index)
    try:
        with connection:
            rows = connection.execute("SELECT rowid, embedText FROM chunks").fetchall()
            vectors = model.embed([text for _rowid, text in rows])
            connection.executemany(
                "UPDATE chunks_vec SET embedding = ?, sha256 = ? WHERE rowid = ?", [
                    (vector_blob(vector), text_digest(text), rowid)
                    for (rowid, text), vector in zip(rows, vectors, strict=True)])
            connection.execute(f"DROP TABLE {TABLE}")
    finally:
        connection.close()


def test_the_index_holds_the_idf_of_each_token_of_the_model(index: Path) -> None:
    model = load_embedder("wordllama")
    assert model.tokens is not None
    connection = sqlite3.connect(index)
    try:
        idf = read_idf(connection)
        texts = [row[0] for row in connection.execute("SELECT embedText FROM chunks")]
    finally:
        connection.close()
    assert idf is not None and len(idf) == len(model.tokens.vectors)
    tokens = [set(ids) for ids in model.tokens.ids(texts)]
    everywhere = next(iter(set.intersection(*tokens)))
    once = next(token for token in set.union(*tokens)
                if sum(token in found for found in tokens) == 1)
    count = len(texts)
    assert idf[everywhere] == pytest.approx(np.log((count + 1) / (count + 1)) + 1)
    assert idf[once] == pytest.approx(np.log((count + 1) / 2) + 1)
    assert idf.max() == pytest.approx(np.log(count + 1) + 1)  # a token no chunk has


def test_a_question_in_words_finds_the_entry_by_its_heading_and_rare_words(index: Path
                                                                          ) -> None:
    hits = search(index, QUESTION, 3, mode="dense", priors=False)
    assert ANSWER in hits[0].text
    as_before(index)
    before = search(index, QUESTION, 3, mode="dense", priors=False)
    assert before and ANSWER not in before[0].text  # the parameters outweighed the lead


def test_an_index_embedded_before_is_searched_with_the_question_whole(index: Path) -> None:
    as_before(index)
    model = load_embedder("wordllama")
    connection = sqlite3.connect(index)
    try:
        rows = connection.execute("SELECT rowid, embedding FROM chunks_vec").fetchall()
        urls = dict(connection.execute("SELECT rowid, url FROM chunks"))
    finally:
        connection.close()
    question = model.embed([QUESTION])[0]
    best = max(rows, key=lambda row: float(blob_vector(row[1]) @ question))
    assert search(index, QUESTION, 1, mode="dense", priors=False)[0].url == urls[best[0]]


def test_embedding_an_index_embedded_before_asks_the_model_for_its_headings_alone(
        index: Path) -> None:
    """Its chunks' vectors of `embedText` are the model's still: they are taken from the index,
    and only the headings are embedded; the question is then weighted by the idf again."""
    as_before(index)
    model = load_embedder("wordllama")
    asked: list[str] = []

    def encode(texts: list[str]) -> object:
        asked.extend(texts)
        return model.encode(texts)

    counts = embed_index(index, dataclasses.replace(model, encode=encode))
    connection = sqlite3.connect(index)
    try:
        crumbs = {row[0] for row in connection.execute("SELECT headerBreadcrumb FROM chunks")}
        texts = {row[0] for row in connection.execute("SELECT embedText FROM chunks")}
        assert read_idf(connection) is not None
    finally:
        connection.close()
    assert asked and not set(asked) & texts
    assert all(text.split(". ")[0] in crumbs for text in asked)
    assert counts.embedded == counts.chunks
    assert ANSWER in search(index, QUESTION, 1, mode="dense", priors=False)[0].text
