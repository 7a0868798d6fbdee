"""The `sections` output on real builds: one record per section of the heading tree, whose text
is the page Markdown from the heading to the next heading of its level or above, with the ids
of the chunks that hold its text, of those it owns and of its parent section (small-to-big
retrieval)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk.cli import main
from mdchunk.outputs.profiles.sections import section_records
from tests.conftest import SiteBuilder, build_mkdocs
from tests.helpers import chunk_page, read_jsonl
from tests.invariants import Index, check_index, check_page_sections, count_tokens
from tests.test_packing import DOCUMENT
from tests.test_sphinx import EXAMPLE, sphinx_build

SNIPPET = """\
## Proxy settings

The agent reads `HTTPS_PROXY` and `NO_PROXY` from its environment before it opens any
connection to a sink. A proxy that asks for credentials takes them from the URL, as in
`https://user:secret@proxy.example.com:3128`, and the agent never writes them to its logs.
When the proxy cannot be reached, the agent retries with the backoff of its sink, and reports
the failure once a minute rather than on every attempt.
"""
"""Included on three pages (pymdownx.snippets): the same section text on each."""

PAGES = {
    "index.md": "# Home\n\nPreamble of the home page, before its first section.\n\n"
                "## Start\n\nRead the guides in order.\n",
    "linux.md": "# Linux\n\nInstall the package with apt.\n\n--8<-- \"proxy.md\"\n\n"
                "## Service\n\nThe unit file starts the agent at boot.\n\n"
                "### Logs\n\nThe journal keeps the agent's logs.\n",
    "macos.md": "# macOS\n\nInstall the package with Homebrew.\n\n--8<-- \"proxy.md\"\n\n"
                "## Service\n\nlaunchd starts the agent at login.\n",
    "windows.md": "# Windows\n\nInstall the package with winget.\n\n--8<-- \"proxy.md\"\n",
}


def build_with_snippets(make_site: SiteBuilder, tmp_path: Path, *,
                        pages: dict[str, str] | None = None, **plugin: Any) -> Path:
    """The site of `pages` (default `PAGES`), the snippet included from outside the docs
    folder; `plugin`: mdchunk's options."""
    includes = tmp_path / "includes"
    includes.mkdir(exist_ok=True)
    (includes / "proxy.md").write_text(SNIPPET, encoding="utf-8")
    extensions = [{"toc": {"permalink": True}}, "tables", "admonition", "attr_list",
                  {"pymdownx.snippets": {"base_path": [str(includes)], "check_paths": True}}]
    return make_site(pages or PAGES, plugin=plugin, config={"markdown_extensions": extensions})


def test_sections_tile_the_heading_tree(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_with_snippets(make_site, tmp_path, formats=["native", "sections"],
                               max_tokens=48, min_tokens=0)
    index = Index.load(site)
    check_index(index, max_tokens=48)
    sections = read_jsonl(site / "sections.jsonl")
    by_id = {section["id"]: section for section in sections}
    assert len(by_id) == len(sections)

    # Every chunk is owned by exactly one section: the one it starts in.
    owners = Counter(chunk for section in sections for chunk in section["ownChunkIds"])
    assert set(owners) == {record["id"] for record in index.records}
    assert set(owners.values()) == {1}
    chunks = {record["id"]: record for record in index.records}
    for section in sections:
        for chunk in section["ownChunkIds"]:
            assert chunks[chunk]["headerPath"] == section["headerPath"]
            assert chunks[chunk]["url"] == section["url"]

    # Parent links form a tree per page: the page (level 0) is its root, and a parent holds
    # its children's text.
    for section in sections:
        parent = section["parentId"]
        if parent is None:
            assert section["level"] == 0 and section["id"] == section["pageId"] + "::s0"
            continue
        above = by_id[parent]
        assert above["pageId"] == section["pageId"] and above["level"] < section["level"]
        assert sections.index(above) < sections.index(section)  # so no cycle
        assert above["charOffsets"]["charStart"] <= section["charOffsets"]["charStart"]
        assert section["charOffsets"]["charEnd"] <= above["charOffsets"]["charEnd"]
    assert Counter(s["pageId"] for s in sections if s["parentId"] is None) == Counter(
        {f"doc:{name[:-3]}": 1 for name in PAGES})

    # The text is the page Markdown from the heading to the next heading of its level or
    # above, its token count exact.
    for section in sections:
        markdown = index.markdown(section["pageUrl"])
        start, end = section["charOffsets"]["charStart"], section["charOffsets"]["charEnd"]
        assert section["text"] == markdown[start:end]
        assert section["tokens"] == count_tokens(section["text"])
        if section["level"]:
            assert section["text"].startswith("#" * section["level"] + " ")
            following = markdown[end:].lstrip()
            assert not following or following.startswith("#")
            level = len(following) - len(following.lstrip("#")) if following else 0
            assert not following or level <= section["level"]
        else:
            assert section["text"] == markdown.strip()

    linux = [s for s in sections if s["pageId"] == "doc:linux"]
    assert [s["headerPath"] for s in linux] == [
        [], ["Linux"], ["Linux", "Proxy settings"], ["Linux", "Service"],
        ["Linux", "Service", "Logs"]]
    assert linux[4]["parentId"] == linux[3]["id"] and linux[3]["parentId"] == linux[1]["id"]
    assert linux[2]["url"] == "linux/#proxy-settings"


def test_mdchunk_validate_accepts_the_sections(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_with_snippets(make_site, tmp_path, formats=["sections"])
    result = CliRunner().invoke(main, ["validate", str(site / "sections.jsonl")])
    assert result.exit_code == 0, result.output
    assert "valid (sections)" in result.output
    broken = read_jsonl(site / "sections.jsonl")
    broken[2]["text"] += " (edited)"
    owner = next(section for section in broken if section["ownChunkIds"])
    other = next(section for section in broken
                 if section is not owner and section["pageId"] == owner["pageId"])
    other["ownChunkIds"] = owner["ownChunkIds"] + other["ownChunkIds"]
    deep = broken[-1]
    deep["chunkIds"] = deep["ownChunkIds"] = []
    path = site / "broken.sections.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in broken), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert "text is not the page text" in result.output
    assert f"chunk {owner['ownChunkIds'][0]} is also owned by" in result.output
    assert f"{deep['id']}: chunkIds is empty" in result.output


DELIVERY = "\n\n".join(
    f"Sink {n} receives each batch at least once: the agent keeps the batch in its on-disk "
    f"buffer until sink {n} acknowledges it, and sends it again after a restart." for n in range(6))
DEEP_PAGES = {
    "index.md": "Read this before the agent's first run.\n\n# Agent\n\nThe agent ships logs.\n\n"
                "## Pipeline\n\nRecords pass through stages.\n\n"
                "### Stage\n\nA stage transforms records.\n\n"
                "#### Batch\n\nA batch groups records.\n\n"
                "### Router\n\nThe router picks a sink.\n\n"
                f"## Delivery\n\n{DELIVERY}\n\n### Retries\n\nFailed batches wait and retry.\n",
}
"""Sections deeper than split_level (kept in their parent's chunk) and a section split over
several chunks."""


def test_every_section_lists_the_chunks_that_hold_its_text(
        make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_with_snippets(make_site, tmp_path, pages=DEEP_PAGES,
                               formats=["native", "sections"], max_tokens=80, min_tokens=0,
                               split_level=2)
    index = Index.load(site)
    check_index(index, max_tokens=80)  # every section of every page (tests.invariants)
    sections = {tuple(s["headerPath"]): s for s in read_jsonl(site / "sections.jsonl")}
    chunks = index.records
    ids = [chunk["id"] for chunk in chunks]

    # The page and its title list every chunk; the preamble is the page's own.
    assert sections[()]["chunkIds"] == ids
    assert sections[()]["ownChunkIds"] == [ids[0]] and chunks[0]["headerPath"] == []
    assert sections[("Agent",)]["chunkIds"] == ids[1:]
    # Sections below split_level sit in their parent's chunk, and own none.
    [pipeline] = [chunk for chunk in chunks if chunk["headerPath"] == ["Agent", "Pipeline"]]
    assert "### Stage" in pipeline["originalText"] and "#### Batch" in pipeline["originalText"]
    for path in [("Agent", "Pipeline", "Stage"), ("Agent", "Pipeline", "Stage", "Batch"),
                 ("Agent", "Pipeline", "Router")]:
        assert sections[path]["chunkIds"] == [pipeline["id"]], path
        assert sections[path]["ownChunkIds"] == []
    # A section split over several chunks lists each of them, its subsection's included.
    delivery = [chunk["id"] for chunk in chunks if chunk["headerPath"][:2] == ["Agent", "Delivery"]]
    assert len(delivery) >= 3
    assert sections[("Agent", "Delivery")]["chunkIds"] == delivery
    assert sections[("Agent", "Delivery", "Retries")]["chunkIds"] == delivery[-1:]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT, max_tokens=st.integers(24, 400), split_level=st.integers(1, 4),
       min_ratio=st.sampled_from([0, 0.3]), overlap=st.sampled_from(["", "metadata", "text"]))
def test_generated_pages_list_the_chunks_of_every_section(
        text: str, max_tokens: int, split_level: int, min_ratio: float, overlap: str) -> None:
    """Whatever the heading tree, the budget, split_level and the overlap (a text overlap
    repeats the end of the chunk before: that chunk does not hold the section for it)."""
    options: dict[str, object] = {"overlap_tokens": 8, "overlap_mode": overlap} if overlap else {}
    result = chunk_page(text, max_tokens=max_tokens, split_level=split_level,
                        min_tokens=int(max_tokens * min_ratio), **options)
    if result.chunks:
        check_page_sections(list(section_records(result)), [c.as_native() for c in result.chunks],
                            result.markdown)


def check_every_section_has_chunks(index: Index) -> None:
    """The index and its sections, written beside it, keep every invariant."""
    sections = index.sections()
    assert sections is not None and len(sections) > len(index.pages())
    check_index(index, max_tokens=512)


def test_the_mkdocs_example_site_lists_chunks_for_every_section(example_site: Path) -> None:
    config = example_site / "mkdocs.yml"
    config.write_text(config.read_text().replace(
        "max_tokens: 512", "max_tokens: 512\n      formats: [native, sections]"))
    check_every_section_has_chunks(Index.load(build_mkdocs(config)))


@pytest.mark.skipif(not (EXAMPLE / "conf.py").exists(), reason="no Sphinx example project")
def test_the_sphinx_example_project_lists_chunks_for_every_section(tmp_path: Path) -> None:
    source = tmp_path / "example"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    with (source / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('\nmdchunk_formats = ["native", "sections"]\n')
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html", "-W")
    assert code == 0, warnings
    check_every_section_has_chunks(Index.load(tmp_path / "out"))
