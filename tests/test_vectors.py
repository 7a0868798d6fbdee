"""Vectors of the chunks in chunks.sqlite, and the dense side of search: real builds in
tmp_path (MkDocs and Sphinx), real models (WordLlama, a model2vec model made here), the file
read back, sqlite-vec reading the same vectors."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import itertools
import json
import logging
import os
import re
import sqlite3
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st
from mkdocs.exceptions import Abort

from mdchunk.cli import main
from mdchunk.errors import MdChunkError, OptionError
from mdchunk.outputs.sqlite import read_sqlite, write_sqlite
from mdchunk.search import SearchError, search
from mdchunk.search.embedders import (
    BATCH_CHARACTERS,
    Embedder,
    EmbedderError,
    load_embedder,
    text_batches,
    unit_rows,
)
from mdchunk.search.token_weights import read_idf, weighted_question
from mdchunk.search.vectors import (
    CACHE_FILE,
    EmbedCache,
    VectorError,
    blob_vector,
    embed_index,
    text_digest,
    vector_blob,
)
from mdchunk.search.vocabulary import index_vocabulary
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.config import SiteFacts, build_settings
from mdchunk.settings import BuildSettings
from tests.conftest import SiteBuilder
from tests.test_sphinx import CONF, make_project, sphinx_build

np = pytest.importorskip("numpy")

needs_wordllama = pytest.mark.skipif(importlib.util.find_spec("wordllama") is None,
                                     reason="wordllama is not installed (mdchunk[search])")
needs_model2vec = pytest.mark.skipif(importlib.util.find_spec("model2vec") is None,
                                     reason="model2vec is not installed (mdchunk[embed])")

PAGES = {
    "index.md": """\
        # Home

        Welcome to the handbook of the service: what it does and where to start.
        """,
    "install.md": """\
        # Install

        ## Linux

        Install the package with apt, then start the daemon with systemctl.

        ## Windows

        Run the installer and follow the wizard; reboot the machine when asked.
        """,
    "certificates.md": """\
        # Certificates

        ## Rotate the TLS certificate

        Replace the expiring certificate before it lapses: upload the new key pair and reload
        the proxy so that clients see the new chain.

        ## Trust stores

        Add the company's root authority to the trust store of every client.
        """,
}
SQLITE = {"formats": ["native", "sqlite"]}
QUESTION = "my https cert is about to expire, what do I do"


def build_site(make_site: SiteBuilder, changed: dict[str, str] | None = None, **plugin: Any
               ) -> Path:
    """Build `PAGES` (with the pages of `changed` instead) with the sqlite format."""
    return make_site({**PAGES, **(changed or {})}, plugin={**SQLITE, **plugin})


def stored(path: Path) -> tuple[dict[str, str], dict[int, tuple[str, bytes]]]:
    """The index's meta, and its vectors by chunk rowid: (sha256, BLOB)."""
    connection = sqlite3.connect(path)
    try:
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        rows = connection.execute("SELECT rowid, sha256, embedding FROM chunks_vec").fetchall()
    finally:
        connection.close()
    return meta, {rowid: (digest, blob) for rowid, digest, blob in rows}


def chunk_texts(path: Path) -> dict[int, tuple[str, str]]:
    """(id, embedText) of each chunk of the index, by rowid."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT rowid, id, embedText FROM chunks").fetchall()
    finally:
        connection.close()
    return {rowid: (chunk_id, text) for rowid, chunk_id, text in rows}


def headings(path: Path) -> dict[int, str]:
    """The heading embedded beside each chunk's text, by rowid: its breadcrumb, and its
    section's lead where the section has one."""
    connection = sqlite3.connect(path)
    try:
        leads = dict(connection.execute(
            "SELECT chunks.url, lead FROM chunk_leads JOIN chunks "
            "ON chunks.rowid = chunk_leads.rowid"))
        rows = connection.execute("SELECT rowid, headerBreadcrumb, url FROM chunks").fetchall()
    finally:
        connection.close()
    return {rowid: f"{crumbs}. {leads[url]}" if url in leads else crumbs
            for rowid, crumbs, url in rows}


def chunk_vectors(model: Embedder, path: Path) -> Any:
    """The vector each chunk of the index should have by `model` (rows in rowid order): the
    unit sum of its text's and its heading's unit vectors."""
    texts, heads = chunk_texts(path), headings(path)
    both = (model.embed([text for _id, text in texts.values()])
            + model.embed([heads[rowid] for rowid in texts]))
    return both / np.linalg.norm(both, axis=1, keepdims=True)


def question_vector(model: Embedder, path: Path, question: str) -> Any:
    """The question's vector as the dense side makes it: by the index's token idf where the
    model has tokens."""
    connection = sqlite3.connect(path)
    try:
        return weighted_question(model, read_idf(connection), question)
    finally:
        connection.close()


def embedded_texts(path: Path) -> set[str]:
    """Every text embedded for the index: its chunks' texts, their headings and its words."""
    return ({text for _id, text in chunk_texts(path).values()} | set(headings(path).values())
            | set(words_of(path)))


def words_of(path: Path) -> list[str]:
    """The words of the index's vocabulary, whose vectors are stored beside the chunks'."""
    connection = sqlite3.connect(path)
    try:
        return index_vocabulary(connection)
    finally:
        connection.close()


def counting(embedder: Embedder, asked: list[str]) -> Embedder:
    """`embedder`, noting in `asked` every text the model is asked to embed."""

    def encode(texts: list[str]) -> Any:
        asked.extend(texts)
        return embedder.encode(texts)

    return dataclasses.replace(embedder, encode=encode)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


# -- the stored vectors --------------------------------------------------------------------------


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=64))
def test_a_vector_is_stored_as_little_endian_float32(values: list[float]) -> None:
    blob = vector_blob(values)
    assert blob == struct.pack(f"<{len(values)}f", *values)
    assert blob_vector(blob).tolist() == values


@given(st.lists(st.lists(st.floats(-1e6, 1e6, width=32), min_size=3, max_size=3),
                min_size=1, max_size=8))
def test_unit_rows_have_length_one_or_are_zero(rows: list[list[float]]) -> None:
    unit = unit_rows(rows)
    for row, original in zip(unit, rows, strict=True):
        norm = float(np.linalg.norm(row))
        assert norm == pytest.approx(1.0, abs=1e-5) if any(original) else norm == 0.0


@given(st.lists(st.integers(0, 3 * BATCH_CHARACTERS // 4), max_size=60), st.integers(1, 40))
def test_batches_hold_every_text_once_shortest_first_within_the_budget(
        lengths: list[int], size: int) -> None:
    texts = ["x" * length for length in lengths]
    batches = text_batches(texts, size)
    order = [index for batch in batches for index in batch]
    assert sorted(order) == list(range(len(texts)))
    assert [len(texts[index]) for index in order] == sorted(lengths)
    for batch in batches:
        longest = max(len(texts[index]) for index in batch)
        assert 1 <= len(batch) <= size
        assert len(batch) == 1 or len(batch) * longest <= BATCH_CHARACTERS


@needs_wordllama
def test_a_build_stores_the_vector_of_each_chunks_embed_text_and_heading(
        make_site: SiteBuilder, reproducible: None) -> None:
    """A chunk's vector is the unit sum of its `embedText`'s and its heading's (breadcrumb
    and section lead), keyed by the sha256 of both."""
    site = build_site(make_site, embed_model="wordllama")
    meta, vectors = stored(site / "chunks.sqlite")
    texts = chunk_texts(site / "chunks.sqlite")
    heads = headings(site / "chunks.sqlite")
    assert (meta["embed_model"], meta["embed_dimension"]) == ("wordllama", "256")
    assert set(vectors) == set(texts) and len(texts) >= 5
    assert any(". " in head for head in heads.values())  # leads are there
    model = load_embedder("wordllama")
    bodies = model.embed([text for _id, text in texts.values()])
    tops = model.embed([heads[rowid] for rowid in texts])
    for (rowid, (_id, text)), body, top in zip(texts.items(), bodies, tops, strict=True):
        digest, blob = vectors[rowid]
        both = f"{text}\0{heads[rowid]}"
        assert digest == hashlib.sha256(both.encode()).hexdigest() == text_digest(both)
        assert len(blob) == 4 * 256
        assert np.allclose(blob_vector(blob), (body + top) / np.linalg.norm(body + top),
                           atol=1e-5)
        assert float(np.linalg.norm(blob_vector(blob))) == pytest.approx(1.0, abs=1e-5)


@needs_wordllama
def test_the_option_changes_no_byte_of_the_native_index(make_site: SiteBuilder,
                                                        reproducible: None) -> None:
    plain = (build_site(make_site) / "chunks.jsonl").read_bytes()
    site = build_site(make_site, embed_model="wordllama")
    assert (site / "chunks.jsonl").read_bytes() == plain
    assert stored(site / "chunks.sqlite")[1]


@needs_wordllama
def test_a_rebuild_embeds_only_the_chunks_that_changed(
        make_site: SiteBuilder, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    site = build_site(make_site, embed_model="wordllama")
    total = len(chunk_texts(site / "chunks.sqlite"))
    assert f"{total} chunks have vectors of wordllama: {total} embedded, 0 from" in caplog.text
    first = stored(site / "chunks.sqlite")[1]
    assert (tmp_path / ".cache" / "mdchunk" / CACHE_FILE).is_file()

    caplog.clear()
    build_site(make_site, embed_model="wordllama")
    assert f"{total} chunks have vectors of wordllama: 0 embedded, {total} from" in caplog.text
    assert stored(site / "chunks.sqlite")[1] == first

    before = {text for _id, text in chunk_texts(site / "chunks.sqlite").values()}
    caplog.clear()
    build_site(make_site, {"install.md": PAGES["install.md"].replace("apt", "dnf")},
               embed_model="wordllama")
    after = chunk_texts(site / "chunks.sqlite")
    changed = {text for _id, text in after.values()} - before
    assert 1 <= len(changed) < len(after)
    assert f"{len(changed)} embedded, {len(after) - len(changed)} from" in caplog.text


@needs_wordllama
def test_an_unchanged_index_asks_the_model_for_no_text(make_site: SiteBuilder,
                                                       tmp_path: Path) -> None:
    """Counted where the texts reach the real model: its own vectors, then the cache, then
    only the texts of a changed page."""
    site = build_site(make_site)
    index = site / "chunks.sqlite"
    cache = EmbedCache(tmp_path / "user-cache" / CACHE_FILE)
    asked: list[str] = []
    model = counting(load_embedder("wordllama"), asked)
    texts = embedded_texts(index)

    counts = embed_index(index, model, cache)
    assert sorted(asked) == sorted(texts)  # each distinct text (or word) once
    assert (counts.embedded, counts.cached) == (counts.chunks, 0)
    asked.clear()
    counts = embed_index(index, model, cache)
    assert asked == [] and counts.embedded == 0

    build_site(make_site)  # a new chunks.sqlite, without vectors: the cache has them
    counts = embed_index(index, model, cache)
    assert asked == [] and (counts.embedded, counts.cached) == (0, counts.chunks)

    build_site(make_site, {"certificates.md": "# Certificates\n\n## Rotate the TLS certificate"
                           "\n\nAsk the security team for a new certificate.\n"})
    new = embedded_texts(index) - texts
    embed_index(index, model, cache)
    assert sorted(asked) == sorted(new) and new


@needs_wordllama
def test_a_failing_model_leaves_the_vectors_as_they_were(make_site: SiteBuilder) -> None:
    index = build_site(make_site, embed_model="wordllama") / "chunks.sqlite"
    before = stored(index)
    real = load_embedder("wordllama")
    calls: list[int] = []

    def encode(texts: list[str]) -> Any:
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("the model fails on its second batch")
        return real.encode(texts)

    failing = dataclasses.replace(real, key="wordllama@another-version", encode=encode)
    with pytest.raises(RuntimeError, match="second batch"):
        embed_index(index, failing, batch_size=2)
    assert len(calls) == 2 and stored(index) == before


@needs_wordllama
def test_a_build_embeds_before_its_index_replaces_the_last_one(make_site: SiteBuilder,
                                                               tmp_path: Path) -> None:
    """What `embed_model` runs through: a failure while the new file is completed leaves the
    last index, vectors and all, and no temporary file."""
    index = build_site(make_site, embed_model="wordllama") / "chunks.sqlite"
    before = index.read_bytes()
    records = read_sqlite(index)

    def fail(path: Path) -> None:
        embed_index(path, "wordllama")
        raise OSError("no space left on device")

    with pytest.raises(OSError, match="no space left"):
        write_sqlite(index, records, complete=fail)
    assert index.read_bytes() == before
    assert sorted(path.name for path in index.parent.iterdir()
                  if path.name.startswith(".chunks.sqlite")) == []
    counts: list[Any] = []
    write_sqlite(index, records, complete=lambda path: counts.append(
        embed_index(path, "wordllama")))
    assert counts[0].chunks == len(records) and stored(index)[1] == stored_before(before, tmp_path)


def stored_before(data: bytes, folder: Path) -> dict[int, tuple[str, bytes]]:
    """The vectors of an index file's bytes."""
    copy = folder / "copy.sqlite"
    copy.write_bytes(data)
    return stored(copy)[1]


# -- the option in both engines ------------------------------------------------------------------


@needs_wordllama
def test_sphinx_stores_vectors_with_a_cache_in_the_doctree_folder(tmp_path: Path) -> None:
    source = make_project(tmp_path, conf=CONF + "mdchunk_formats = ['native', 'sqlite']\n"
                          "mdchunk_embed_model = 'wordllama'\n")
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code == 0, warnings
    index = tmp_path / "out" / "chunks.sqlite"
    meta, vectors = stored(index)
    assert meta["embed_model"] == "wordllama" and set(vectors) == set(chunk_texts(index))
    cache = tmp_path / "out" / ".doctrees" / "mdchunk-store" / CACHE_FILE
    connection = sqlite3.connect(cache)
    try:
        digests = {row[0] for row in connection.execute("SELECT sha256 FROM vectors")}
    finally:
        connection.close()
    assert digests == {text_digest(text) for text in embedded_texts(index)}
    hits = search(index, "a note about the install", 1, mode="dense")
    assert hits and hits[0].page_url == "index.html"


def test_the_option_needs_the_sqlite_format() -> None:
    with pytest.raises(OptionError, match=r"embed_model.*add sqlite to formats"):
        build_settings({"embed_model": "wordllama"}, SiteFacts())
    with pytest.raises(OptionError, match=r"embed_model.*unknown embedding model 'bert'"):
        build_settings({"embed_model": "bert", **SQLITE}, SiteFacts())
    assert build_settings({"embed_model": "model2vec:./m", **SQLITE},
                          SiteFacts()).embed_model == "model2vec:./m"


def test_a_builder_made_without_the_sqlite_format_refuses_the_model(tmp_path: Path) -> None:
    """Settings made without `build_settings` (the Python API) are checked too."""
    with pytest.raises(MdChunkError, match="embed_model needs the sqlite format"):
        IndexBuilder(BuildSettings(embed_model="wordllama"), site_dir=tmp_path / "site")


@pytest.mark.skipif(importlib.util.find_spec("fastembed") is not None,
                    reason="fastembed is installed")
def test_a_build_whose_model_cannot_be_had_stops_before_any_page(
        make_site: SiteBuilder, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(Abort):
        build_site(make_site, embed_model="fastembed:BAAI/bge-small-en-v1.5")
    assert re.search(r"mdchunk: embedding model kind 'fastembed' needs fastembed, which is not "
                     r"installed .*: pip install 'mdchunk\[embed\]'", caplog.text)
    assert not (tmp_path / "site").exists()


def test_models_that_cannot_be_had_are_named_with_their_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="no such folder"):
        load_embedder(f"model2vec:{tmp_path / 'missing'}")
    with pytest.raises(EmbedderError, match="unknown embedding model 'wordllama:big'"):
        load_embedder("wordllama:big")
    for name, module in (("sentence-transformers:all-MiniLM-L6-v2", "sentence_transformers"),
                         ("fastembed:BAAI/bge-small-en-v1.5", "fastembed")):
        if importlib.util.find_spec(module) is None:
            with pytest.raises(EmbedderError, match=rf"{module}.*mdchunk\[embed\]"):
                load_embedder(name)


@needs_model2vec
def test_a_hub_model_that_cannot_be_downloaded_says_so(tmp_path: Path) -> None:
    """Offline (as the hub library is told here), a model named by its hub id cannot load."""
    code = ("from mdchunk.search.embedders import load_embedder, EmbedderError\n"
            "try:\n    load_embedder('model2vec:minishlab/potion-base-8M')\n"
            "except EmbedderError as error:\n    print(error)\n")
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=environment, check=True, timeout=120).stdout
    assert printed.startswith("embedding model 'model2vec:minishlab/potion-base-8M' cannot be "
                              "loaded")
    assert "needs network access" in printed and len(printed.splitlines()) == 1


# -- search ---------------------------------------------------------------------------------------


@needs_wordllama
def test_dense_search_ranks_by_cosine_with_the_indexs_model(make_site: SiteBuilder) -> None:
    index = build_site(make_site, embed_model="wordllama") / "chunks.sqlite"
    texts = chunk_texts(index)
    model = load_embedder("wordllama")
    question = question_vector(model, index, QUESTION)
    chunks = chunk_vectors(model, index)
    expected = sorted(zip([chunk_id for chunk_id, _ in texts.values()], chunks @ question,
                          strict=True), key=lambda pair: -pair[1])
    hits = search(index, QUESTION, len(texts), mode="dense", per_section=False, priors=False)
    assert [hit.id for hit in hits] == [chunk_id for chunk_id, _ in expected]
    assert [hit.score for hit in hits] == [round(float(score), 4) for _, score in expected]
    assert hits[0].url.startswith("certificates/")


@needs_wordllama
def test_hybrid_fuses_both_rankings_and_is_what_auto_does(make_site: SiteBuilder) -> None:
    index = build_site(make_site, embed_model="wordllama") / "chunks.sqlite"
    question = "rotate the certificate"
    count = len(chunk_texts(index))
    lexical = search(index, question, count, mode="lexical", per_section=False,
                     priors=False)
    dense = search(index, question, count, mode="dense", per_section=False, priors=False)
    fused: dict[str, float] = {}
    for ranking in (lexical, dense):
        best = ranking[0].score
        for hit in ranking:
            fused[hit.id] = fused.get(hit.id, 0.0) + hit.score / best / 2
    hybrid = search(index, question, count, mode="hybrid", per_section=False)
    assert {hit.id: hit.score for hit in hybrid} == pytest.approx(fused, abs=1e-3)
    assert hybrid[0].score == 1.0  # the best chunk of both sides
    assert search(index, question, 3, mode="auto") == search(index, question, 3, mode="hybrid")
    sections = [hit.url for hit in search(index, question, count, mode="hybrid")]
    assert len(sections) == len(set(sections))  # one hit per section by default


@needs_wordllama
def test_an_index_without_vectors_is_searched_lexically_and_says_so_once(
        make_site: SiteBuilder, caplog: pytest.LogCaptureFixture) -> None:
    index = build_site(make_site) / "chunks.sqlite"
    caplog.set_level(logging.INFO, logger="mdchunk.search")
    first = search(index, "install on linux", 3)
    assert first == search(index, "install on linux", 3, mode="lexical")
    search(index, "rotate the certificate", 3)
    notes = [record for record in caplog.records if "has no vectors" in record.getMessage()]
    assert len(notes) == 1 and "mdchunk embed" in notes[0].getMessage()
    for mode in ("dense", "hybrid"):
        with pytest.raises(SearchError, match=r"has no vectors.*mdchunk embed"):
            search(index, "install", 3, mode=mode)  # type: ignore[arg-type]


# -- a model2vec model made here, the command, sqlite-vec ----------------------------------------


def make_model2vec(folder: Path, seed: int = 31, texts: Sequence[str] = ()) -> Path:
    """A model2vec model of a small vocabulary, the words of `texts` (by default this file's
    pages'): random vectors and a word-level tokenizer."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[UNK]", "[PAD]", *sorted({word.strip(".,:;").lower()
                                        for text in texts or PAGES.values()
                                        for word in text.split() if word.isalpha()})]
    tokenizer = Tokenizer(models.WordLevel({word: n for n, word in enumerate(words)},
                                           unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(seed).standard_normal((len(words), 24)).astype(np.float32)
    StaticModel(vectors=vectors, tokenizer=tokenizer).save_pretrained(str(folder))
    return folder


@needs_wordllama
@needs_model2vec
def test_mdchunk_embed_with_a_local_model2vec_model(
        make_site: SiteBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = build_site(make_site)
    folder = make_model2vec(tmp_path / "model")
    cache = tmp_path / "user-cache"
    monkeypatch.chdir(tmp_path)
    name = f"model2vec:{folder.resolve()}"  # (a folder is named by its absolute path)
    result = run("embed", site, "--model", "model2vec:./model", "--cache-dir", cache)
    assert result.exit_code == 0, result.output
    total = len(chunk_texts(site / "chunks.sqlite"))
    assert f"{total} chunks have vectors of {name}: {total} embedded, 0 from" in result.output
    meta, vectors = stored(site / "chunks.sqlite")
    assert (meta["embed_model"], meta["embed_dimension"]) == (name, "24")
    from model2vec import StaticModel

    texts, heads = chunk_texts(site / "chunks.sqlite"), headings(site / "chunks.sqlite")
    model = StaticModel.from_pretrained(str(folder))
    both = [unit_rows(model.encode([text for _id, text in texts.values()],
                                   use_multiprocessing=False)),
            unit_rows(model.encode([heads[rowid] for rowid in texts], use_multiprocessing=False))]
    for rowid, body, head in zip(texts, *both, strict=True):
        expected = (body + head) / (np.linalg.norm(body + head) or 1)
        assert np.allclose(blob_vector(vectors[rowid][1]), expected, atol=1e-5)

    monkeypatch.chdir(site)
    again = run("embed", site, "--cache-dir", cache)  # the index's own model, its own vectors
    assert f"of {name}: 0 embedded, {total} from" in again.output
    other = run("embed", site, "--model", "wordllama", "--cache-dir", cache)
    assert f"of wordllama: {total} embedded" in other.output  # another model: all again
    back = run("embed", site, "--model", name, "--cache-dir", cache)
    assert f"of {name}: 0 embedded, {total} from" in back.output  # from the user's cache
    hits = json.loads(run("query", site, "rotate certificate", "--mode", "dense", "--json").output)
    assert [hit["id"] for hit in hits] == [hit.id for hit in search(
        site / "chunks.sqlite", "rotate certificate", 5, mode="dense")]


@needs_model2vec
def test_auto_is_lexical_when_the_model_of_the_vectors_is_gone(
        make_site: SiteBuilder, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    index = build_site(make_site) / "chunks.sqlite"
    folder = make_model2vec(tmp_path / "gone")
    embed_index(index, f"model2vec:{folder}")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    caplog.set_level(logging.INFO, logger="mdchunk.search")
    assert search(index, "install", 3) == search(index, "install", 3, mode="lexical")
    search(index, "certificate", 3)
    warned = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warned) == 1 and "no such folder" in warned[0].getMessage()
    with pytest.raises(SearchError, match="model of its vectors cannot be had"):
        search(index, "install", 3, mode="hybrid")


def query_without_numpy(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`mdchunk query ARGS` in a Python where numpy cannot be imported."""
    code = ("import sys\nsys.modules['numpy'] = None  # (import numpy raises ImportError)\n"
            "from mdchunk.cli import main\nmain(sys.argv[1:])\n")
    return subprocess.run([sys.executable, "-c", code, "query", *map(str, args)],
                          capture_output=True, text=True, timeout=120, check=False)


@needs_wordllama
def test_without_numpy_search_is_lexical(make_site: SiteBuilder, tmp_path: Path) -> None:
    plain = build_site(make_site) / "chunks.sqlite"
    lexical = query_without_numpy(plain, "install on linux", "--json")
    assert lexical.returncode == 0, lexical.stderr
    expected = search(plain, "install on linux", 5, mode="lexical")
    assert [hit["id"] for hit in json.loads(lexical.stdout)] == [hit.id for hit in expected]
    embed_index(plain, "wordllama")
    auto = query_without_numpy(plain, "install on linux", "--json")
    assert auto.returncode == 0 and json.loads(auto.stdout) == json.loads(lexical.stdout)
    assert "search is lexical only" in auto.stderr and "mdchunk[search]" in auto.stderr
    hybrid = query_without_numpy(plain, "install on linux", "--mode", "hybrid")
    assert hybrid.returncode == 1 and "numpy, which is not installed" in hybrid.stderr


@needs_model2vec
def test_a_search_reads_vectors_again_once_another_model_wrote_them(
        make_site: SiteBuilder, tmp_path: Path) -> None:
    """Even where the file's size, inode and time are those it had (a coarse clock)."""
    index = build_site(make_site) / "chunks.sqlite"
    first, second = (f"model2vec:{make_model2vec(tmp_path / name, seed)}"
                     for name, seed in (("first", 1), ("second", 2)))
    embed_index(index, first)
    before = os.stat(index)
    ranked = search(index, "install linux", 3, mode="dense", priors=False)
    embed_index(index, second)
    os.utime(index, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(index).st_ino, os.stat(index).st_size) == (before.st_ino, before.st_size)
    model = load_embedder(second)
    texts = chunk_texts(index)
    scores = chunk_vectors(model, index) @ model.embed(["install linux"])[0]
    best = sorted(zip([chunk_id for chunk_id, _ in texts.values()], scores, strict=True),
                  key=lambda pair: -pair[1])
    hits = search(index, "install linux", 3, mode="dense", priors=False, per_section=False)
    assert [hit.id for hit in hits] == [chunk_id for chunk_id, _ in best[:3]]
    assert [hit.score for hit in hits] != [hit.score for hit in ranked]


def test_the_command_names_what_is_wrong(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_site(make_site)
    result = run("query", site, "install", "--mode", "dense")
    assert result.exit_code == 1 and "has no vectors" in result.output
    plain = tmp_path / "plain.sqlite"
    sqlite3.connect(plain).close()
    result = run("embed", plain, "--no-cache")
    assert result.exit_code == 1 and "not a chunk index" in result.output
    with pytest.raises(VectorError, match="no such index file"):
        embed_index(tmp_path / "none.sqlite", "wordllama")


@needs_wordllama
def test_sqlite_vec_reads_the_vectors_in_the_same_order(make_site: SiteBuilder) -> None:
    apsw = pytest.importorskip("apsw")
    sqlite_vec = pytest.importorskip("sqlite_vec")
    index = build_site(make_site, embed_model="wordllama") / "chunks.sqlite"
    count = len(chunk_texts(index))
    hits = search(index, QUESTION, count, mode="dense", per_section=False, priors=False)
    question = vector_blob(question_vector(load_embedder("wordllama"), index, QUESTION))
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    connection.enable_load_extension(True)
    connection.load_extension(sqlite_vec.loadable_path())
    rows = list(connection.execute(
        "SELECT chunks.id, vec_distance_cosine(chunks_vec.embedding, ?) AS distance "
        "FROM chunks_vec JOIN chunks ON chunks.rowid = chunks_vec.rowid ORDER BY distance",
        (question,)))
    connection.close()
    assert len(rows) == count
    distance = dict(rows)
    mdchunk_order = [distance[hit.id] for hit in hits]
    assert all(a <= b + 1e-6 for a, b in itertools.pairwise(mdchunk_order))
    assert all(abs(distance[hit.id] - (1 - hit.score)) < 1e-4 for hit in hits)
    assert [chunk_id for chunk_id, _ in rows][:3] == [hit.id for hit in hits][:3]



@needs_wordllama
def test_loading_a_model_leaves_the_root_logger_as_it_was() -> None:
    """wordllama calls logging.basicConfig when imported: in a build, every library's INFO
    lines would print from then on. A fresh process, so that nothing is imported yet."""
    code = ("import logging; from mdchunk.search.embedders import load_embedder; "
            "load_embedder('wordllama'); root = logging.getLogger(); "
            "print(len(root.handlers), root.level)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["0", str(logging.WARNING)]
