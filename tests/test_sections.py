"""The `sections` output on real builds: one record per section of the heading tree, whose text
is the page Markdown from the heading to the next heading of its level or above, with the ids
of the chunks that start in it and of its parent section (small-to-big retrieval)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mdchunk.cli import main
from tests.conftest import SiteBuilder
from tests.invariants import Index, check_index, count_tokens

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


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_sections_tile_the_heading_tree(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_with_snippets(make_site, tmp_path, formats=["native", "sections"],
                               max_tokens=48, min_tokens=0)
    index = Index.load(site)
    check_index(index, max_tokens=48)
    sections = read_jsonl(site / "sections.jsonl")
    by_id = {section["id"]: section for section in sections}
    assert len(by_id) == len(sections)

    # Every chunk belongs to exactly one section: the one it starts in.
    owners = Counter(chunk for section in sections for chunk in section["chunkIds"])
    assert set(owners) == {record["id"] for record in index.records}
    assert set(owners.values()) == {1}
    chunks = {record["id"]: record for record in index.records}
    for section in sections:
        for chunk in section["chunkIds"]:
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
    owner = next(section for section in broken if section["chunkIds"])
    other = next(section for section in broken if section is not owner)
    other["chunkIds"] = owner["chunkIds"] + other["chunkIds"]
    path = site / "broken.sections.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in broken), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert "text is not the page text" in result.output and "is also in" in result.output
