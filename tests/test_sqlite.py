"""The `sqlite` output format: tables, FTS5 ranking, atomic writes, both engines' config."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from mdchunk.outputs.formats import records_block, write_records
from mdchunk.outputs.profiles import PROFILES
from mdchunk.outputs.sqlite import (
    COLUMNS,
    SQLITE_SCHEMA_VERSION,
    read_sqlite,
    write_sqlite,
)
from mdchunk.outputs.writers import dumps
from mdchunk.search import search
from mdchunk.search.lexical import fts_query
from tests.conftest import build_mkdocs
from tests.helpers import read_jsonl


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built by the MkDocs plugin with `formats: [native, sqlite]`."""
    import shutil

    from tests.conftest import EXAMPLE_SITE

    root = tmp_path_factory.mktemp("sqlite") / "example"
    shutil.copytree(EXAMPLE_SITE, root, ignore=shutil.ignore_patterns("site", "site-material"))
    config_file = root / "mkdocs.yml"
    text = config_file.read_text(encoding="utf-8").replace(
        "      max_tokens: 512", "      max_tokens: 512\n      formats: [native, sqlite]"
    )
    config_file.write_text(text, encoding="utf-8")
    return build_mkdocs(config_file)


def test_sqlite_format_is_registered() -> None:
    assert PROFILES["sqlite"].target == "chunks.sqlite"
    assert PROFILES["sqlite"].layout == "sqlite"


def test_mkdocs_build_writes_the_native_records_to_sqlite(built_site: Path) -> None:
    native = read_jsonl(built_site / "chunks.jsonl")
    stored = read_sqlite(built_site / "chunks.sqlite")
    assert len(stored) == len(native) > 50
    assert stored == native  # every field, nested ones decoded from JSON
    assert list(native[0]) == list(COLUMNS)


def test_sqlite_columns_meta_and_fts(built_site: Path) -> None:
    path = built_site / "chunks.sqlite"
    connection = sqlite3.connect(path)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(chunks)")]
        types = {row[1]: row[2] for row in connection.execute("PRAGMA table_info(chunks)")}
        tokens = connection.execute(
            "SELECT json_extract(tokenStats, '$.tokens') FROM chunks WHERE id = ?",
            ("doc:guide/math::ch0",),
        ).fetchone()[0]
        fts = connection.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'bucket'"
        ).fetchone()[0]
        meta = dict(connection.execute("SELECT key, value FROM meta"))
    finally:
        connection.close()
    assert columns == list(COLUMNS)
    assert types["headerPath"] == "JSON" and types["chunkNumber"] == "INTEGER"
    assert isinstance(tokens, int) and tokens > 0
    assert fts >= 1
    assert meta["schema_version"] == str(SQLITE_SCHEMA_VERSION)
    assert json.loads(meta["options"])["max_tokens"] == 512
    assert meta["chunks"] == str(len(read_sqlite(path)))
    assert not [p for p in built_site.iterdir() if p.name.startswith(".chunks.sqlite")]


#: Questions a reader asks, and the section that answers each.
QUESTIONS = {
    "How do I install Beacon on macOS?": "getting-started/install/#macos",
    "How are configuration values resolved?": "guide/configuration/#how-values-are-resolved",
    "What is the token bucket rate limit?": "guide/math/#rate-limiting-with-a-token-bucket",
    "Why is memory usage high?": "guide/partially-excluded/#high-memory-usage",
    "How do I write my own parser?": "reference/huge-code/#writing-your-own-parser",
    # (in the page's own words: split at H3, the beacon check section's intro is a chunk of
    # its own, without its example's `--config` flag)
    "Does beacon check validate a configuration file?": "guide/duplicate-headings/#beacon-check",
}


@pytest.mark.parametrize(("question", "url"), QUESTIONS.items())
def test_fts_returns_the_answering_section_first(built_site: Path, question: str, url: str
                                                 ) -> None:
    hits = search(built_site / "chunks.sqlite", question, k=3)
    assert hits[0].url == url
    assert hits[0].score > hits[1].score


@pytest.mark.parametrize("question", ['"unbalanced', "NEAR(a b", "a AND OR *", "c++ -x:y", "^"])
def test_punctuation_never_raises(built_site: Path, question: str) -> None:
    search(built_site / "chunks.sqlite", question)  # no sqlite3.OperationalError


def test_search_keeps_one_hit_per_section_unless_asked(built_site: Path) -> None:
    """The huge code block's section is several chunks: a search for its words returns it once,
    and every chunk of it with `per_section=False`."""
    question = "writing your own parser"
    every = search(built_site / "chunks.sqlite", question, k=20, per_section=False)
    best = search(built_site / "chunks.sqlite", question, k=20)
    assert len({hit.url for hit in every}) < len(every)
    assert len({hit.url for hit in best}) == len(best)
    sections = list(dict.fromkeys(hit.url for hit in every))
    assert [hit.url for hit in best][:len(sections)] == sections


def test_fts_query_quotes_words_and_drops_stop_words() -> None:
    assert fts_query('How do I "install" on Linux?') == '"install" OR "linux"'
    assert fts_query("how do I") == '"how" OR "do" OR "i"'  # only stop words: keep them
    assert fts_query("?!") == ""


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "chunks.sqlite"
    write_sqlite(path, [{"id": "doc:a::ch0", "originalText": "hello", "metadata": {}}])

    def broken():
        yield {"id": "doc:b::ch0", "originalText": "new"}
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_sqlite(path, broken())
    assert [r["id"] for r in read_sqlite(path)] == ["doc:a::ch0"]
    assert [p.name for p in tmp_path.iterdir()] == ["chunks.sqlite"]


def test_write_records_writes_sqlite(tmp_path: Path) -> None:
    records = [{"id": f"doc:a::ch{n}", "originalText": f"text {n}", "headerPath": ["A"]}
               for n in range(3)]
    written = write_records(tmp_path, {"sqlite": [records_block(map(dumps, records))]})
    assert written == {"sqlite": tmp_path / "chunks.sqlite"}
    assert [r["headerPath"] for r in read_sqlite(written["sqlite"])] == [["A"]] * 3


def test_sphinx_config_accepts_sqlite(tmp_path: Path) -> None:
    """`mdchunk_formats = ["sqlite"]` goes through the same registry (no adapter change)."""
    pytest.importorskip("sphinx")
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        'extensions = ["sphinx_mdchunk"]\nmdchunk_formats = ["native", "sqlite"]\n',
        encoding="utf-8",
    )
    (source / "index.rst").write_text(
        "Title\n=====\n\nIntro text about buckets.\n\nSection\n-------\n\nMore words here.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    # (in docutils' namespace, as sphinx-build runs: the directives Sphinx registers do not
    # outlive the build, and a later build in this process registers them anew)
    with docutils_namespace():
        app = Sphinx(str(source), str(source), str(out), str(tmp_path / "doctrees"), "html",
                     status=None, warning=None, freshenv=True)
        app.build()
    assert read_sqlite(out / "chunks.sqlite") == read_jsonl(out / "chunks.jsonl")
