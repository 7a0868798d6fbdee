"""The page title heads every breadcrumb: a page whose content has no H1 (the theme shows its
title outside the content) gets it as its first heading, on both engines and in `mdchunk site`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from mdchunk.engines.site import chunk_site
from mdchunk.mcp.index import load_docs
from mdchunk.outputs.twins import twin_path
from mdchunk.settings import BuildSettings
from tests.conftest import SiteBuilder
from tests.invariants import Index, check_index
from tests.test_sphinx import make_project, sphinx_build

#: A small site: a home page with an H1 of its own, a page without one (its sections start at
#: H2), one without any heading, and one whose H1 comes after a preamble.
PAGES = {
    "index.md": "# Welcome\n\nThe home page of the site, with an H1 of its own.\n\n"
                "## Why\n\nBecause it is the home page.\n",
    "guide/middleware.md": "Middleware runs between the router and the handlers; every "
                           "request passes through it in order.\n\n## Routing\n\n"
                           "Routes are matched first.\n\n## Errors\n\nErrors stop the chain.\n",
    "license.md": "Distributed under the Apache License, Version 2.0.\n\nKeep the notices.\n",
    "preamble.md": "Read this first.\n\n# Before you begin\n\nThe concepts of the site.\n",
}
NAV = [{"Introduction": "index.md"}, {"Guide": [{"Middleware": "guide/middleware.md"}]},
       {"License": "license.md"}, {"Before you begin": "preamble.md"}]


def by_page(index: Index) -> dict[str, list[dict[str, Any]]]:
    return {records[0]["pageUrl"]: records for records in index.pages().values()}


@pytest.fixture(params=["mkdocs", "material"])
def titled_site(request: pytest.FixtureRequest, make_site: SiteBuilder) -> Path:
    return make_site(PAGES, plugin={"formats": ["native", "sqlite"]},
                     config={"nav": NAV, "theme": {"name": request.param},
                             "site_url": "https://example.org/"})


def test_a_page_without_an_h1_gets_its_title_as_one(titled_site: Path) -> None:
    index = Index.load(titled_site)
    check_index(index, max_tokens=512)
    pages = by_page(index)
    middleware = pages["guide/middleware/"]
    for record in middleware:
        assert record["fileTitle"] == "Middleware"
        assert record["headerPath"][0] == "Middleware"
        assert record["headerBreadcrumb"].startswith("Middleware")
        assert (record["headerDepths"][0], record["headerSlugs"][0]) == (1, "")
    first = middleware[0]
    assert first["originalText"].startswith("# Middleware\n\nMiddleware runs between")
    assert first["url"] == first["pageUrl"] == "guide/middleware/"  # the title is the page
    assert first["sectionSlug"] == ""
    assert index.markdown("guide/middleware/").startswith("# Middleware\n\nMiddleware runs")
    twin = (titled_site / twin_path("guide/middleware/")).read_text(encoding="utf-8")
    full = (titled_site / "llms-full.txt").read_text(encoding="utf-8")
    assert "\n# Middleware\n\nMiddleware runs between" in twin
    assert "\n# Middleware\n\nMiddleware runs between" in full
    assert [record["headerPath"] for record in pages["license/"]] == [["License"]]
    assert pages["license/"][0]["originalText"].startswith("# License\n\nDistributed under")


def test_a_page_with_an_h1_keeps_its_own(titled_site: Path) -> None:
    pages = by_page(Index.load(titled_site))
    home = pages[""]
    assert {record["fileTitle"] for record in home} == {"Introduction"}  # the nav's title
    assert all(record["headerPath"][0] == "Welcome" for record in home)
    assert home[0]["originalText"].startswith("# Welcome\n\n")
    assert home[0]["headerSlugs"][0] == "welcome"
    # Content before an H1 stays the page's preamble (seed 000): only it has no breadcrumb.
    preamble = pages["preamble/"]
    assert preamble[0]["headerPath"] == [] and preamble[0]["originalText"] == "Read this first."
    assert all(record["headerPath"][0] == "Before you begin" for record in preamble[1:])
    assert Index.load(titled_site).markdown("preamble/").count("# Before you begin") == 1


def test_list_sections_gives_the_page_title_depth_one_on_every_page(titled_site: Path) -> None:
    docs, _ = load_docs(titled_site)
    for url, title in (("", "Welcome"), ("guide/middleware/", "Middleware"),
                       ("license/", "License")):
        sections = docs.list_sections(url)["sections"]
        assert (sections[0]["title"], sections[0]["depth"]) == (title, 1), url
        assert all(section["depth"] >= 1 for section in sections)
        assert all(section["breadcrumb"].startswith(title) for section in sections)


def test_mdchunk_site_gives_the_built_pages_the_same_titles(titled_site: Path,
                                                           tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(titled_site, copy)
    chunk_site(copy, BuildSettings(index="post.jsonl"))
    plugin, post = Index.load(titled_site), Index.load(copy, "post.jsonl")
    fields = ("id", "fileTitle", "headerPath", "headerDepths", "headerSlugs", "url",
              "originalText", "embedText", "tokenStats")

    def titles(records: list[dict[str, Any]]) -> list[list[Any]]:
        return [[record[name] for name in fields]
                for record in sorted(records, key=lambda record: record["id"])]

    assert titles(post.records) == titles(plugin.records)


SPHINX_PAGES = {
    "index.md": "# Home\n\nThe home page.\n\n```{toctree}\nmiddleware\nraw\n```\n",
    "middleware.md": "Middleware runs between the router and the handlers.\n\n"
                     "# Middleware\n\nThe chain.\n\n## Routing\n\nRoutes are matched first.\n",
    "raw.md": "<p>Only raw HTML, no section: Sphinx titles this page with none.</p>\n",
}


def test_sphinx_titles_are_the_first_section_and_none_without_one(tmp_path: Path) -> None:
    source = make_project(tmp_path, SPHINX_PAGES)
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code == 0, warnings
    index = Index.load(tmp_path / "out")
    check_index(index, max_tokens=512)
    pages = by_page(index)
    for record in pages["middleware.html"][1:]:
        assert record["headerPath"][0] == record["fileTitle"] == "Middleware"
    assert pages["middleware.html"][0]["headerPath"] == []  # the preamble before the H1
    raw = pages["raw.html"]
    assert [(record["fileTitle"], record["headerPath"]) for record in raw] == [("", [])]
    assert "<no title>" not in (tmp_path / "out" / "chunks.jsonl").read_text(encoding="utf-8")
    chunk_site(tmp_path / "out", BuildSettings(index="post.jsonl"), docs_dir=source)
    post = by_page(Index.load(tmp_path / "out", "post.jsonl"))
    assert {url: [(r["fileTitle"], r["headerPath"]) for r in records]
            for url, records in post.items()} == {
        url: [(r["fileTitle"], r["headerPath"]) for r in records]
        for url, records in pages.items()}
