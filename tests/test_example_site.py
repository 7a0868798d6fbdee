"""The example site, built for real with both themes: every invariant on every chunk."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.conftest import build_mkdocs
from tests.invariants import Index, check_index, fenced_regions


@pytest.fixture(params=["mkdocs.yml", "mkdocs-material.yml"], ids=["default-theme", "material"])
def built(request: pytest.FixtureRequest, example_site: Path,
          caplog: pytest.LogCaptureFixture) -> tuple[Index, str]:
    caplog.set_level(logging.INFO, logger="mkdocs")
    site = build_mkdocs(example_site / request.param)
    return Index.load(site), caplog.text


def test_every_chunk_keeps_every_invariant(built: tuple[Index, str]) -> None:
    index, _ = built
    check_index(index, max_tokens=512)


def test_build_log_names_counts_and_index(built: tuple[Index, str]) -> None:
    index, log = built
    oversize = sum(r["flags"]["allowOversize"] for r in index.records)
    small = sum(r["flags"]["smallChunk"] for r in index.records)
    pages = len(index.pages())
    expected = (f"mdchunk: {pages} pages, {len(index.records)} chunks ({oversize} oversize, "
                f"{small} small) written to {index.site / 'chunks.jsonl'}")
    assert expected in log


def test_huge_code_block_is_one_flagged_chunk(built: tuple[Index, str]) -> None:
    index, _ = built
    [chunk] = [r for r in index.by_page_url("reference/huge-code/")
               if r["tokenStats"]["tokens"] > 512]
    assert chunk["flags"] == {**chunk["flags"], "allowOversize": True,
                              "oversizeReason": "code_block_integrity"}
    assert chunk["features"]["codeBlocks"] == 1
    assert chunk["features"]["languages"] == ["python"]
    text = chunk["originalText"]
    assert text.count("```") == 2 and text.rstrip().endswith("```")


def test_preamble_is_its_own_chunk(built: tuple[Index, str]) -> None:
    index, _ = built
    first, second = index.by_page_url("getting-started/preamble/")[:2]
    assert first["headerPath"] == [] and first["sectionSlug"] == ""
    assert first["url"] == "getting-started/preamble/"
    assert not first["originalText"].startswith("#")
    assert second["originalText"].startswith("# ")


def test_excluded_pages_and_sections_are_left_out(built: tuple[Index, str]) -> None:
    index, _ = built
    urls = {r["pageUrl"] for r in index.records}
    assert "guide/excluded/" not in urls  # mdchunk: {exclude: true}
    assert "guide/search-excluded/" not in urls  # search: {exclude: true}
    assert "empty/" not in urls  # nothing to chunk
    page = index.by_page_url("guide/partially-excluded/")
    text = "\n".join(r["originalText"] for r in page)
    html = index.html_path("guide/partially-excluded/").read_text(encoding="utf-8")
    # The marked parts are on the built page (a theme's search may strip the marker itself
    # from the HTML, as Material 9.5 does) and not in its chunks.
    for marked in ("Internal escalation path", "Debugging with verbose tracing"):
        assert marked in html and marked not in text
    assert all("debugging" not in r["sectionSlug"] for r in page)


def test_small_budget_keeps_every_invariant_and_links_duplicates(example_site: Path) -> None:
    config = example_site / "mkdocs.yml"
    config.write_text(config.read_text().replace("max_tokens: 512",
                                                 "max_tokens: 32\n      min_tokens: 0"))
    index = Index.load(build_mkdocs(config))
    check_index(index, max_tokens=32)
    slugs = {r["sectionSlug"] for r in index.records}
    assert {"usage", "usage_1", "usage_2", "usage_3", "example", "example_1", "example_2",
            "my-custom-id", "_1"} <= slugs
    assert any(r["flags"]["forcedSplit"] for r in index.records)
    assert sum(r["sectionSlug"] == "at-least-once-delivery" for r in index.records) > 20


def test_rendered_markdown_is_clean(built: tuple[Index, str]) -> None:
    index, _ = built
    for record in index.records:
        text = record["originalText"]
        assert "¶" not in text and "\u00b6" not in text, record["id"]
        assert "](../" not in text and "](./" not in text, record["id"]
        assert "<span" not in text and "<div" not in text, record["id"]


def test_code_keeps_its_language_and_exact_text(built: tuple[Index, str]) -> None:
    index, _ = built
    page = index.by_page_url("getting-started/install/")
    languages = {lang for r in page for lang in r["features"]["languages"]}
    assert {"bash", "python", "toml", "yaml", "json", "powershell"} <= languages
    markdown = index.markdown("getting-started/install/")
    source = (index.site.parent / "docs" / "getting-started" / "install.md").read_text()
    for start, end in fenced_regions(markdown):
        block = markdown[start:end]
        if block.startswith("```"):
            code = block.split("\n", 1)[1].rsplit("\n", 1)[0]
            assert code.strip() in source.replace("    ", "").replace("\n\n", "\n") or all(
                line.strip() in source for line in code.splitlines()), code[:80]


def test_math_page_counts_equations(built: tuple[Index, str]) -> None:
    index, _ = built
    page = index.by_page_url("guide/math/")
    assert sum(r["features"]["equationsDisplay"] for r in page) >= 3
    assert sum(r["features"]["equationsInline"] for r in page) >= 1
    assert any("\\begin{aligned}" in r["originalText"] for r in page)


def test_front_matter_reaches_metadata(built: tuple[Index, str]) -> None:
    index, _ = built
    page = index.by_page_url("guide/configuration/")
    meta = page[0]["metadata"]
    assert meta["sourceFile"] == "guide/configuration.md"
    assert meta["frontMatter"]["owner"]
    assert isinstance(meta["frontMatter"]["tags"], list)
    assert meta["chunkingOptions"]["max_tokens"] == 512


def test_page_markdown_written_beside_html(built: tuple[Index, str]) -> None:
    index, _ = built
    for page_url in {r["pageUrl"] for r in index.records}:
        assert index.markdown_path(page_url).is_file()


def test_two_builds_are_byte_identical(example_site: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first = (build_mkdocs(example_site / "mkdocs.yml") / "chunks.jsonl").read_bytes()
    second = (build_mkdocs(example_site / "mkdocs.yml") / "chunks.jsonl").read_bytes()
    assert first == second
    assert json.loads(first.splitlines()[0])["metadata"]["processedAt"] == "2023-11-14T22:13:20Z"
