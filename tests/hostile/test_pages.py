# ruff: noqa: RUF001 - CJK, Hebrew and full-width punctuation are the point
"""Hostile and odd pages through real `mkdocs build` and real `sphinx-build` (MyST).

Each page is built alone; the build must succeed within the time limit, the written index must
keep every invariant (`tests.invariants.check_index`), and the page's own expectation holds.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SiteBuilder
from tests.hostile.conftest import build_sphinx
from tests.hostile.pages import EMPTY, LONG_PARAGRAPH, PAGES
from tests.invariants import Index, check_index

MAX_TOKENS = 512
ATOMIC = {"code_block_integrity", "table_integrity", "equation_integrity"}
Build = Callable[[str], Path]


@pytest.fixture(params=["mkdocs", "sphinx"])
def build(request: pytest.FixtureRequest, make_site: SiteBuilder, tmp_path: Path) -> Build:
    """Build one page as the site's home page with the engine of the parameter."""
    if request.param == "mkdocs":
        return lambda text: make_site({"index.md": text})

    def sphinx(text: str) -> Path:
        code, warnings, out = build_sphinx(tmp_path / "sphinx", {"index.md": text})
        assert code == 0, warnings
        return out

    return sphinx


def records_of(site: Path) -> list[dict[str, Any]]:
    return Index.load(site).records


SITES: dict[str, Path] = {}


def rendered_html(records: list[dict[str, Any]]) -> str:
    """The HTML page the records were chunked from."""
    index = Index(SITES["current"], records)
    return index.html_path(records[0]["pageUrl"]).read_text(encoding="utf-8")


EXPECTATIONS: dict[str, Callable[[list[dict[str, Any]]], None]] = {}


def expect(name: str) -> Callable[[Callable[[list[dict[str, Any]]], None]], Any]:
    def register(check: Callable[[list[dict[str, Any]]], None]) -> Any:
        EXPECTATIONS[name] = check
        return check
    return register


@expect("no-heading")
def _(records: list[dict[str, Any]]) -> None:
    # (the page has no H1: its title is its first heading, where the engine gives one)
    assert len(records) == 1 and records[0]["headerPath"] in (["Home"], [])
    assert records[0]["originalText"].startswith("# Home\n\n" if records[0]["headerPath"]
                                                 else "Just a paragraph")


@expect("only-headings")
def _(records: list[dict[str, Any]]) -> None:
    text = "\n".join(record["originalText"] for record in records)
    for heading in ("# Top", "## Second", "### Third", "## Fourth"):
        assert heading in text
    assert re.search("^#{3,6} Sixth$", text, re.M)  # (docutils renumbers skipped levels)


@expect("symbol-headings")
def _(records: list[dict[str, Any]]) -> None:
    text = "\n".join(record["originalText"] for record in records)
    for body in ("Body one.", "Body two.", "Body three.", "Body four."):
        assert body in text


@expect("duplicate-headings")
def _(records: list[dict[str, Any]]) -> None:
    slugs = [record["sectionSlug"] for record in records]
    assert len(slugs) == len(set(slugs)), slugs  # the engine de-duplicated, mdchunk kept them


@expect("unicode-ids")
def _(records: list[dict[str, Any]]) -> None:
    slugs = {record["sectionSlug"] for record in records}
    assert {"日本語", "a b&c"} <= slugs
    # (the page has no H1: the first section joins the page title, and links to the page)
    assert "ünï-çødé" in slugs or records[0]["subHeaders"][:1] == ["Ünï çødé"]


def _deep(records: list[dict[str, Any]]) -> None:
    assert records[0]["headerPath"] == ["Deep"]
    # Past libxml2's 2,048 levels the page is parsed again, nesting capped: nothing is lost.
    assert "deepest" in "".join(record["originalText"] for record in records)


for _name in ("deep-html-list", "deep-html-quote", "deep-html-mixed"):
    expect(_name)(_deep)


@expect("deep-html-list-items")
def _(records: list[dict[str, Any]]) -> None:
    _deep(records)
    text = " ".join(record["originalText"] for record in records)
    assert re.findall(r"item (\d+)", text) == [str(i) for i in range(3000)]  # all, in order
    assert len(records) > 10  # (cut between items, at any depth, then between words)


@expect("deep-md-quote")
def _(records: list[dict[str, Any]]) -> None:
    if "deepest quote" in rendered_html(records):  # (MyST drops it, past its nesting limit)
        assert "deepest quote" in records[-1]["originalText"]


@expect("deep-md-list")
def _(records: list[dict[str, Any]]) -> None:
    # Every item the engine rendered (MyST stops nesting blocks at 20 levels and drops the
    # rest itself; see test_engine_nesting_limits).
    rendered = len(re.findall(r"<li>\s*(?:<p>)?item", rendered_html(records)))
    assert rendered in (120, 9)
    assert "".join(record["originalText"] for record in records).count("item") == rendered


@expect("long-paragraph")
def _(records: list[dict[str, Any]]) -> None:
    body = [record for record in records if "word" in record["originalText"]]
    assert len(body) > 70
    assert all(record["flags"]["forcedSplit"] for record in body[:-1])
    assert all(record["tokenStats"]["tokens"] <= MAX_TOKENS for record in records)
    words = " ".join(record["originalText"].removeprefix("# Long").strip() for record in body)
    assert " ".join(words.split()) == LONG_PARAGRAPH  # nothing lost, nothing repeated


@expect("huge-code")
def _(records: list[dict[str, Any]]) -> None:
    code = [record for record in records if "value_0 = 0" in record["originalText"]]
    assert len(code) == 1
    (chunk,) = code
    assert "value_49999 = 49999" in chunk["originalText"]
    assert chunk["flags"]["allowOversize"]
    assert chunk["flags"]["oversizeReason"] == "code_block_integrity"


@expect("cjk")
def _(records: list[dict[str, Any]]) -> None:
    assert len(records) > 3
    for record in records[:-1]:
        if record["headerPath"] == records[records.index(record) + 1]["headerPath"]:
            # Cut inside one section: between sentences, so at a CJK sentence end.
            assert record["originalText"][-1] in "。！？", record["originalText"][-20:]
            assert not record["flags"]["forcedSplit"]


@expect("thai")
def _(records: list[dict[str, Any]]) -> None:
    assert len(records) > 10
    assert all("ภาษาไทย" in record["originalText"] for record in records)
    for record, after in itertools.pairwise(records):
        # Cut between sentences: at a space between two Thai words, never inside a word.
        assert record["originalText"].endswith("ระหว่างคำ"), record["originalText"][-20:]
        assert after["originalText"].startswith("ภาษาไทย")
        assert not record["flags"]["forcedSplit"]


@expect("thai-unspaced")
def _(records: list[dict[str, Any]]) -> None:
    assert len(records) > 10
    for record in records[1:]:  # cut inside the one long sentence, between letters
        first = record["originalText"][0]
        assert not unicodedata.category(first).startswith("M") and first != "\u0e33", record["id"]
        assert record["flags"]["forcedSplit"]


@expect("rtl")
def _(records: list[dict[str, Any]]) -> None:
    text = "".join(record["originalText"] for record in records)
    assert "שלום עולם." in text and "مرحبا بالعالم." in text


@expect("zero-width-and-controls")
def _(records: list[dict[str, Any]]) -> None:
    text = "".join(record["originalText"] + record["embedText"] for record in records)
    assert not re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", text)
    assert "chars" in text


@expect("nul")
def _(records: list[dict[str, Any]]) -> None:
    raw = json.dumps(records)
    assert "\\u0000" not in raw and "\x00" not in raw
    # Python-Markdown keeps a NUL (mdchunk drops it, as browsers do); MyST makes it U+FFFD.
    assert re.search(r"More \ufffd? ?text\.", records[-1]["originalText"])


@expect("malformed-html")
def _(records: list[dict[str, Any]]) -> None:
    text = "\n".join(record["originalText"] for record in records)
    assert "After the mess." in text and "cell" in text
    assert "javascript:" not in text and "onerror" not in text and "onclick" not in text


@expect("script-style")
def _(records: list[dict[str, Any]]) -> None:
    for record in records:
        for field in ("originalText", "embedText"):
            for marker in ("SCRIPTMARKER", "STYLEMARKER", "TEMPLATEMARKER"):
                assert marker not in record[field]
    assert "More visible text." in "".join(record["originalText"] for record in records)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_hostile_page(build: Build, name: str) -> None:
    site = build(PAGES[name])
    if name in EMPTY:
        assert (site / "chunks.jsonl").read_bytes() == b""
        return
    index = Index.load(site)
    SITES["current"] = site
    check_index(index, max_tokens=MAX_TOKENS)
    for record in index.records:  # only what cannot be cut exceeds the budget
        if record["tokenStats"]["embedTokens"] > MAX_TOKENS:
            assert record["flags"]["oversizeReason"] in ATOMIC, record["id"]
            assert set(record["blockTypes"]) - {"heading"} in ({"code"}, {"table"}, {"math"})
    EXPECTATIONS[name](index.records)


def test_every_page_has_an_expectation() -> None:
    assert set(PAGES) - EMPTY == set(EXPECTATIONS)
