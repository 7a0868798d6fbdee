"""The `pagefind` format: section records, the bundle in real builds, its search page in
headless Chromium, and the errors and atomicity of the bundle."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import lxml.html
import pytest
import yaml

from mdchunk import OptionError
from mdchunk.chunking.markdown_text import markdown_to_text
from mdchunk.outputs import pagefind_bundle as pagefind_output
from mdchunk.outputs.pagefind_bundle import (
    BUNDLE_ENTRY,
    PagefindError,
    write_bundle,
)
from mdchunk.outputs.profiles import ProfileSettings, pagefind_records
from mdchunk.outputs.profiles.pagefind import sections
from mdchunk.search import search
from mdchunk.settings import SEARCH_PAGE, PagefindSettings, check_bundle_folder
from tests.conftest import EXAMPLE_SITE, browser_test, build_mkdocs
from tests.helpers import chunk_page, read_jsonl
from tests.test_cli import run
from tests.test_sphinx import EXAMPLE as SPHINX_EXAMPLE
from tests.test_sphinx import sphinx_build

PAGE = """\
# Guide

Intro of the **guide**, with [a link](other.md) and `code`.

## Install

Install it with pip. Then run it. It works on Linux and on macOS alike, and it needs no
compiler. The wheel is pure Python. The command prints its version. Nothing else is needed.

```bash
pip install beacon
```

## Configure

Write a *configuration* file.
"""


def read_chunks(site: Path) -> list[dict[str, Any]]:
    return read_jsonl(site / "chunks.jsonl")


def section_titles(site: Path) -> dict[str, str]:
    """Each section's url (root-relative) and the title its record should carry."""
    titles: dict[str, str] = {}
    for record in read_chunks(site):
        titles.setdefault("/" + record["url"], record["headerBreadcrumb"]
                          or record["fileTitle"] or record["sectionTitle"])
    return titles


def bundle_entry(folder: Path) -> dict[str, Any]:
    entry: dict[str, Any] = json.loads((folder / BUNDLE_ENTRY).read_text(encoding="utf-8"))
    return entry


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()
                  if path.name.startswith(".") and path.name.endswith((".tmp", ".old")))


# ---- records ----


def test_one_record_per_section_with_its_text_once() -> None:
    # (room for the context line and the intro's sentence, which a cut between words would
    # cut inside its link)
    page = chunk_page(PAGE, max_tokens=30, min_tokens=0, languages=True)
    urls = list(dict.fromkeys(chunk.url for chunk in page.chunks))
    assert len(page.chunks) > len(urls) > 2  # a section of several chunks
    records = list(pagefind_records(page, ProfileSettings(language="en")))
    assert [record["url"] for record in records] == ["/" + url for url in urls]
    for record, section in zip(records, sections(page.chunks), strict=True):
        span = page.markdown[section[0].char_start:section[-1].char_end]
        assert record["content"] == markdown_to_text(span)
        assert not any(mark in record["content"] for mark in ("```", "**", "](", "## "))
        assert record["meta"] == {
            "title": section[0].breadcrumb, "page": "Page",
            "section": section[0].section_title,
            "tokens": str(sum(chunk.tokens for chunk in section))}
        assert record["language"] == "en"
    assert records[1]["meta"]["title"] == "Guide > Install"


def test_text_shared_by_overlapping_chunks_is_taken_once() -> None:
    page = chunk_page(PAGE, max_tokens=24, min_tokens=0, overlap_tokens=6, overlap_mode="text",
                      languages=True)
    assert any(chunk.flags.has_overlap_previous for chunk in page.chunks)
    for record, section in zip(pagefind_records(page), sections(page.chunks), strict=True):
        span = page.markdown[section[0].char_start:section[-1].char_end]
        assert record["content"] == markdown_to_text(span)


def test_filters_and_language_come_from_front_matter() -> None:
    meta = {"tags": ["setup", "linux"], "owner": "docs-team", "draft": True, "level": 2,
            "nested": {"a": 1}, "lang": "pt_BR", "empty": []}
    page = chunk_page(PAGE, meta=meta, languages=True)
    settings = ProfileSettings(language="en",
                               pagefind_filters=("owner", "draft", "level", "nested", "empty",
                                                 "absent"))
    record = next(pagefind_records(page, settings))
    assert record["filters"] == {"tags": ["setup", "linux"], "owner": ["docs-team"],
                                 "draft": ["true"], "level": ["2"]}
    assert record["language"] == "pt-br"
    plain = next(pagefind_records(chunk_page(PAGE, meta={"tags": "one"}, languages=True),
                                  ProfileSettings()))
    assert (plain["filters"], plain["language"]) == ({"tags": ["one"]}, "unknown")


@pytest.mark.parametrize("folder", ["..", "../out", "/abs", ".", "a/./b", "a//b", "_mdchunk",
                                    "_mdchunk/search", "C:\\x", ""])
def test_bundle_folder_stays_inside_the_site(folder: str) -> None:
    with pytest.raises(OptionError) as caught:
        check_bundle_folder(folder)
    assert caught.value.option == "pagefind_output"


def test_bundle_folder_may_nest() -> None:
    assert check_bundle_folder("assets/search/") == "assets/search"
    assert check_bundle_folder("search\\bundle") == "search/bundle"


def test_search_page_needs_the_pagefind_format() -> None:
    with pytest.raises(OptionError, match="add pagefind to formats") as caught:
        PagefindSettings.validated(search_page=True, formats=["native"])
    assert caught.value.option == "pagefind_search_page"
    assert PagefindSettings.validated(search_page=True, formats=["pagefind"]).search_page


# ---- the bundle ----


def test_a_failed_run_keeps_the_previous_bundle(tmp_path: Path) -> None:
    page = chunk_page(PAGE, max_tokens=24, min_tokens=0, languages=True)
    folder = tmp_path / "site" / "pagefind"
    assert write_bundle(folder, list(pagefind_records(page))) == len(sections(page.chunks))
    before = folder_bytes(folder)
    # Pagefind takes two records, then refuses the third (a title that is no string).
    refused = {**next(pagefind_records(page)), "meta": {"title": 1}}
    records = [*list(pagefind_records(page))[:2], refused, *pagefind_records(page)]
    with pytest.raises(PagefindError, match=r"^Pagefind: "):
        write_bundle(folder, records)
    assert folder_bytes(folder) == before
    assert leftovers(tmp_path / "site") == []


def test_the_bundle_is_written_from_a_running_event_loop_too(tmp_path: Path) -> None:
    """A caller inside asyncio (a notebook, an async server) gets the bundle all the same."""
    records = list(pagefind_records(chunk_page(PAGE, languages=True)))

    async def from_a_coroutine() -> int:
        return write_bundle(tmp_path / "pagefind", records)

    assert asyncio.run(from_a_coroutine()) == len(records)
    assert bundle_entry(tmp_path / "pagefind")["languages"]["unknown"]["page_count"] == len(
        records)


def test_each_answer_of_pagefind_is_taken_as_soon_as_it_is_written(tmp_path: Path) -> None:
    """A large site's sections take what Pagefind needs, not a pause per record (Pagefind's
    Python package waits a tenth of a second before it reads each answer: 100 s here)."""
    page = chunk_page(PAGE, max_tokens=24, min_tokens=0)
    records = [{**record, "url": f"{record['url']}{number}"}
               for number in range(1000 // len(list(pagefind_records(page))) + 1)
               for record in pagefind_records(page)]
    start = time.monotonic()
    assert write_bundle(tmp_path / "pagefind", records) == len(records)
    assert time.monotonic() - start < 30
    assert bundle_entry(tmp_path / "pagefind")["languages"]["unknown"]["page_count"] == len(
        records)


def test_a_folder_that_is_no_bundle_is_never_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "assets"
    folder.mkdir()
    (folder / "theme.css").write_text("body {}")
    with pytest.raises(PagefindError, match="not a Pagefind bundle"):
        write_bundle(folder, list(pagefind_records(chunk_page(PAGE, languages=True))))
    assert [path.name for path in folder.iterdir()] == ["theme.css"]


def test_pagefind_that_answers_with_errors_fails_the_write(tmp_path: Path) -> None:
    bad = [{"url": "/x/", "content": "text", "language": "en", "meta": {"title": 1}}]
    with pytest.raises(PagefindError):
        write_bundle(tmp_path / "pagefind", bad)
    assert not (tmp_path / "pagefind").exists()
    assert leftovers(tmp_path) == []


@pytest.fixture(scope="module")
def pagefind_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built with `formats: [native, sqlite, pagefind]` and the search page;
    its site folder."""
    target = tmp_path_factory.mktemp("pagefind") / "example"
    shutil.copytree(EXAMPLE_SITE, target, ignore=shutil.ignore_patterns("site", "site-material"))
    config = yaml.safe_load((target / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = ["search", {"mdchunk": {
        "max_tokens": 512, "formats": ["native", "sqlite", "pagefind"],
        "pagefind_search_page": True, "pagefind_filters": ["owner"], "inspector": True}}]
    (target / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return build_mkdocs(target / "mkdocs.yml")


def test_bundle_holds_one_record_per_section(pagefind_site: Path) -> None:
    entry = bundle_entry(pagefind_site / "pagefind")
    assert list(entry["languages"]) == ["en"]  # the default theme's locale
    assert entry["languages"]["en"]["page_count"] == len(section_titles(pagefind_site))
    assert (pagefind_site / "pagefind" / "pagefind-ui.js").is_file()
    assert leftovers(pagefind_site) == []
    # the inspector replaces _mdchunk/ whole: the search page is written after it
    assert (pagefind_site / "_mdchunk" / "index.html").is_file()
    page = (pagefind_site / SEARCH_PAGE).read_text(encoding="utf-8")
    assert '<html lang="en">' in page and "mdchunk example" in page
    assert 'src="../pagefind/pagefind-ui.js"' in page
    assert "//" not in page.replace("://", "")  # no CDN, nothing outside the site


# ---- in the browser ----


QUERY = "checkpoint"
"""A word of many sections of the example site, on several pages."""

RANKED_ALIKE = ["max_open_files", "Windows Event Log", "state directory lock", "regex parser"]
"""Queries whose words gather in one section of the example site: a configuration key named
in one section, the platform an install section is about, three words of one section's text,
the subject of one section. Pagefind (its own ranking, over the section's text) and mdchunk
query (bm25, weighing the breadcrumb and titles) should then agree on the best section. Single
common words spread over many sections ("install", "dashboard") are left out: there the two
rankings weigh titles differently and may fairly disagree."""

EXCLUDED_WORDS = {"escalation": "an element marked data-search-exclude",
                  "tracing": "a section whose heading is marked data-search-exclude",
                  "maintainers": "a page with mdchunk: {exclude: true}",
                  "migrating": "a page with search: {exclude: true}"}


class _SiteUnderPrefix(http.server.SimpleHTTPRequestHandler):
    """Serves the site folder under a url prefix, as `mkdocs serve` does under site_url's
    path."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / ".not-in-the-site")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(pagefind_site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, under its site_url's path (`/docs/`)."""
    handler = type("Handler", (_SiteUnderPrefix,), {"prefix": "/docs/"})
    with serve(pagefind_site, handler) as origin:
        yield origin + "/docs/"


@functools.cache
def _page_ids(url: str) -> frozenset[str]:
    with urllib.request.urlopen(url) as response:  # 127.0.0.1 only
        root = lxml.html.fromstring(response.read())
    return frozenset(root.xpath("//@id"))


def resolves(origin: str, href: str) -> bool:
    """Whether `href` (root-relative, with an anchor) names an element of its page."""
    parts = urlsplit(href)
    ids = _page_ids(origin + parts.path)
    return not parts.fragment or unquote(parts.fragment) in ids


@contextlib.contextmanager
def serve(folder: Path, handler: type[http.server.SimpleHTTPRequestHandler]) -> Iterator[str]:
    """Serve `folder` on 127.0.0.1 with `handler` from a thread; give the origin."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def pagefind_search(tab: Any, bundle: str, query: str | None) -> list[dict[str, Any]]:
    """Every result of Pagefind's own search API (`pagefind.js`) for `query` (None: every
    record), best first: url, meta, content."""
    return list(tab.evaluate(
        """async ([bundle, query]) => {
             const pagefind = await import(bundle + "pagefind.js");
             const found = await pagefind.search(query);
             const data = await Promise.all(found.results.map(result => result.data()));
             return data.map(d => ({url: d.url, meta: d.meta, content: d.content,
                                    filters: d.filters}));
           }""", [bundle, query]))


@browser_test
def test_search_page_lists_sections_that_link_to_their_heading(
        pagefind_site: Path, served: str, open_page: Any, browser: Any) -> None:
    from playwright.sync_api import expect

    origin = served.removesuffix("/docs/")
    titles = {"/docs" + url: title for url, title in section_titles(pagefind_site).items()}
    tab = open_page
    tab.goto(served + SEARCH_PAGE)
    tab.locator(".pagefind-ui__search-input").fill(QUERY)
    results = tab.locator(".pagefind-ui__result")
    expect(results.first).to_be_visible()
    expect(tab.locator(".pagefind-ui__message")).to_contain_text(f"for {QUERY}")
    expect(tab.locator(".pagefind-ui__loading")).to_have_count(0)  # results drawn, not placeholders
    shown = [(result.locator(".pagefind-ui__result-title").text_content().strip(),
              result.locator("a.pagefind-ui__result-link").get_attribute("href"))
             for result in results.all()]
    assert len(shown) >= 3
    assert len({href.split("#")[0] for _, href in shown}) >= 2  # sections of several pages
    for title, href in shown:
        assert titles[href] == title  # the section's breadcrumb
        assert "#" in href and resolves(origin, href), href
    # The site's own pages load scripts from CDNs, which fail offline: open the first result
    # in a tab of its own, which does not count their errors as the search page's.
    other = browser.new_context()
    try:
        target = other.new_page()
        target.goto(origin + shown[0][1], wait_until="domcontentloaded")
        assert target.evaluate(
            "document.getElementById(decodeURIComponent(location.hash.slice(1))) !== null")
    finally:
        other.close()


@browser_test
def test_search_page_opens_with_the_query_of_its_url(served: str, open_page: Any) -> None:
    from playwright.sync_api import expect

    tab = open_page
    tab.goto(served + SEARCH_PAGE + "?q=max_open_files")
    first = tab.locator(".pagefind-ui__result-title").first
    expect(first).to_have_text("Troubleshooting > High memory usage")
    assert tab.locator(".pagefind-ui__search-input").input_value() == "max_open_files"


@browser_test
def test_pagefind_ranks_first_the_section_mdchunk_query_ranks_first(
        pagefind_site: Path, served: str, open_page: Any) -> None:
    tab = open_page
    tab.goto(served + SEARCH_PAGE)
    for query in RANKED_ALIKE:
        best = search(pagefind_site / "chunks.sqlite", query, 1)
        found = pagefind_search(tab, "/docs/pagefind/", query)
        assert best and found, query
        assert found[0]["url"] == "/docs/" + best[0].url, query


@browser_test
def test_bundle_records_are_the_sections_of_the_index(
        pagefind_site: Path, served: str, open_page: Any) -> None:
    tab = open_page
    tab.goto(served + SEARCH_PAGE)
    records = pagefind_search(tab, "/docs/pagefind/", None)
    titles = {"/docs" + url: title for url, title in section_titles(pagefind_site).items()}
    assert {record["url"]: record["meta"]["title"] for record in records} == titles
    configuration = [r for r in records if r["url"].startswith("/docs/guide/configuration/")]
    assert configuration and all(
        r["filters"] == {"owner": ["platform-observability"],
                         "tags": ["configuration", "toml", "reference"]} for r in configuration)
    page_titles = {"/docs/" + record["url"]: record["fileTitle"]
                   for record in read_chunks(pagefind_site)}
    assert all(r["meta"]["page"] == page_titles[r["url"]] for r in records)


@browser_test
@pytest.mark.parametrize("word", sorted(EXCLUDED_WORDS))
def test_excluded_content_is_not_in_the_bundle(word: str, served: str, open_page: Any) -> None:
    sources = (EXAMPLE_SITE / "docs").rglob("*.md")
    assert any(word in path.read_text(encoding="utf-8").lower() for path in sources), word
    tab = open_page
    tab.goto(served + SEARCH_PAGE)
    for record in pagefind_search(tab, "/docs/pagefind/", word):
        assert word not in record["content"].lower(), EXCLUDED_WORDS[word]
        assert not record["url"].startswith(("/docs/guide/excluded/",
                                             "/docs/guide/search-excluded/"))


# ---- Sphinx ----


@pytest.mark.skipif(not (SPHINX_EXAMPLE / "conf.py").exists(), reason="no Sphinx example")
@browser_test
def test_sphinx_build_writes_a_bundle_of_its_sections(tmp_path: Path, open_page: Any) -> None:
    source = tmp_path / "example"
    shutil.copytree(SPHINX_EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    with (source / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write("mdchunk_formats = ['native', 'pagefind']\n"
                   "mdchunk_pagefind_search_page = True\n"
                   "mdchunk_pagefind_filters = ['owner']\n")
    out = tmp_path / "out"
    code, warnings = sphinx_build(source, out, "-b", "html", "-W")
    assert code == 0, warnings
    titles = section_titles(out)
    assert bundle_entry(out / "pagefind")["languages"]["en"]["page_count"] == len(titles)
    assert (out / SEARCH_PAGE).is_file()
    with serve(out, _SiteUnderPrefix) as origin:
        tab = open_page
        tab.goto(origin + "/" + SEARCH_PAGE)
        records = pagefind_search(tab, "/pagefind/", None)
        assert {record["url"]: record["meta"]["title"] for record in records} == titles
        assert any(record["filters"].get("owner") == ["platform-observability"]
                   for record in records)
        for record in pagefind_search(tab, "/pagefind/", "sink"):
            assert resolves(origin, record["url"]), record["url"]


# ---- mdchunk site ----


def test_mdchunk_site_writes_the_bundle_and_search_page(tmp_path: Path) -> None:
    example = tmp_path / "example"
    shutil.copytree(EXAMPLE_SITE, example, ignore=shutil.ignore_patterns("site", "site-material"))
    site = build_mkdocs(example / "mkdocs.yml")
    result = run("site", site, "--docs", example / "docs", "-j", "1", "-f", "native",
                 "-f", "pagefind", "--pagefind-filter", "owner", "--pagefind-search-page",
                 "--pagefind-output", "search/bundle")
    assert result.exit_code == 0, result.output
    assert f"search page: {site / SEARCH_PAGE}" in result.output
    entry = bundle_entry(site / "search" / "bundle")
    assert entry["languages"]["en"]["page_count"] == len(section_titles(site))
    assert 'src="../search/bundle/pagefind-ui.js"' in (site / SEARCH_PAGE).read_text()


def test_mdchunk_site_flags_are_checked(tmp_path: Path) -> None:
    result = run("site", tmp_path, "--pagefind-search-page")
    assert result.exit_code != 0
    assert "'--pagefind-search-page'" in result.output
    assert "add pagefind to formats" in result.output
    result = run("site", tmp_path, "-f", "pagefind", "--pagefind-output", "../x")
    assert result.exit_code != 0 and "'--pagefind-output'" in result.output


# ---- errors ----


def mkdocs_project(tmp_path: Path, plugin: dict[str, Any], **config: Any) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "index.md").write_text("# Home\n\nWelcome home.\n\n## Next\n\nMore text.\n")
    path = tmp_path / "mkdocs.yml"
    path.write_text(yaml.safe_dump({"site_name": "x", "plugins": [{"mdchunk": plugin}],
                                    **config}))
    return path


def python(code: str, *, without_pagefind: bool = False, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh Python. `without_pagefind`: every import of pagefind fails there
    (`sys.modules['pagefind'] = None`), as where it is not installed."""
    prefix = "import sys; sys.modules['pagefind'] = None\n" if without_pagefind else ""
    return subprocess.run([sys.executable, "-c", prefix + textwrap.dedent(code)],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {})})


def test_mkdocs_without_pagefind_stops_at_startup(tmp_path: Path) -> None:
    config = mkdocs_project(tmp_path, {"formats": ["native", "pagefind"]})
    result = python(f"""
        import sys
        from mkdocs.__main__ import cli
        sys.argv = ["mkdocs", "build", "-q", "-f", {str(config)!r}]
        cli()
        """, without_pagefind=True)
    assert result.returncode != 0
    assert "pip install 'mdchunk[pagefind]'" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "site" / "index.html").exists()  # stopped before any page


def test_sphinx_without_pagefind_stops_at_startup(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text("extensions = ['sphinx_mdchunk']\n"
                                    "mdchunk_formats = ['native', 'pagefind']\n")
    (source / "index.rst").write_text("Home\n====\n\nWelcome.\n")
    result = python(f"""
        import sys
        from sphinx.cmd.build import main
        sys.exit(main(["-q", "-b", "html", {str(source)!r}, {str(tmp_path / 'out')!r}]))
        """, without_pagefind=True)
    assert result.returncode != 0
    assert "pip install 'mdchunk[pagefind]'" in result.stderr, result.stderr
    assert not (tmp_path / "out" / "index.html").exists()


def test_mdchunk_site_without_pagefind_writes_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body><main><h1 id='a'>A</h1><p>Text.</p></main>"
                                     "</body></html>")
    result = python(f"""
        import sys
        from mdchunk.cli import main
        sys.argv = ["mdchunk", "site", {str(site)!r}, "-f", "native", "-f", "pagefind"]
        main()
        """, without_pagefind=True)
    assert result.returncode != 0
    assert "pip install 'mdchunk[pagefind]'" in result.stderr, result.stderr
    assert sorted(path.name for path in site.iterdir()) == ["index.html"]


@pytest.mark.parametrize("binary", ["missing", "not-executable"])
def test_a_binary_that_cannot_run_stops_at_startup(tmp_path: Path, binary: str) -> None:
    path = tmp_path / binary
    if binary == "not-executable":
        path.write_text("not a program")
    config = mkdocs_project(tmp_path, {"formats": ["pagefind"]})
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PAGEFIND_BINARY_PATH": str(path)})
    assert result.returncode != 0
    assert f"Pagefind's binary {path} cannot run" in result.stderr, result.stderr
    assert "pip install 'mdchunk[pagefind]'" in result.stderr
    assert not (tmp_path / "site" / "index.html").exists()


FAILING_PAGEFIND = """\
#!/bin/sh
if [ "$1" = "--version" ]; then echo "pagefind 1.5.2"; exit 0; fi
echo "pagefind: cannot index this site (a simulated failure)" >&2
exit 3
"""


def test_a_failing_pagefind_run_leaves_the_previous_bundle(tmp_path: Path) -> None:
    example = tmp_path / "example"
    shutil.copytree(EXAMPLE_SITE, example, ignore=shutil.ignore_patterns("site", "site-material"))
    site = build_mkdocs(example / "mkdocs.yml")
    command = ["site", str(site), "--docs", str(example / "docs"), "-j", "1", "-f", "native",
               "-f", "pagefind"]
    assert run(*command).exit_code == 0
    before = folder_bytes(site / "pagefind")
    assert BUNDLE_ENTRY in before
    failing = tmp_path / "pagefind"
    failing.write_text(FAILING_PAGEFIND)
    failing.chmod(0o755)
    result = python(f"""
        import sys
        from mdchunk.cli import main
        sys.argv = ["mdchunk", *{command!r}]
        main()
        """, env={"PAGEFIND_BINARY_PATH": str(failing)})
    assert result.returncode != 0
    assert "a simulated failure" in result.stderr, result.stderr
    assert folder_bytes(site / "pagefind") == before
    assert leftovers(site) == []


def test_bundle_folder_of_the_theme_is_refused(tmp_path: Path) -> None:
    config = mkdocs_project(tmp_path, {"formats": ["pagefind"], "pagefind_output": "css"})
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "not a Pagefind bundle" in result.stderr, result.stderr
    assert (tmp_path / "site" / "css" / "base.css").is_file()  # the theme's, kept


@pytest.mark.parametrize(("plugin", "option", "fragment"), [
    ({"pagefind_search_page": True}, "pagefind_search_page", "add pagefind to formats"),
    ({"formats": ["pagefind"], "pagefind_output": "../out"}, "pagefind_output",
     "inside the site folder"),
    ({"formats": ["pagefind"], "pagefind_output": "_mdchunk/x"}, "pagefind_output",
     "must not be in _mdchunk/"),
    ({"pagefind_filters": "tags"}, "pagefind_filters", "must be a list of str"),
])
def test_bad_pagefind_options_stop_mkdocs(tmp_path: Path, plugin: dict[str, Any], option: str,
                                          fragment: str) -> None:
    config = mkdocs_project(tmp_path, plugin)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert f"'{option}'" in result.stderr and fragment in result.stderr, result.stderr


@pytest.mark.parametrize(("setting", "fragment"), [
    ("mdchunk_pagefind_search_page = True",
     "mdchunk_pagefind_search_page = True: must be false without the pagefind format"),
    ("mdchunk_formats = ['pagefind']\nmdchunk_pagefind_output = '/abs'",
     "mdchunk_pagefind_output = '/abs': must be a relative path"),
    ("mdchunk_pagefind_filters = [1]", "mdchunk_pagefind_filters = [1]: must be a list of"),
])
def test_bad_pagefind_options_stop_sphinx(tmp_path: Path, setting: str, fragment: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(f"extensions = ['sphinx_mdchunk']\n{setting}\n")
    (source / "index.rst").write_text("Home\n====\n\nWelcome.\n")
    code, _ = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code != 0
    assert fragment in capsys.readouterr().err


def test_pagefind_is_checked_once_per_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    pagefind_output._checked_binary.cache_clear()
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(argv: list[str], **kwargs: Any) -> Any:
        calls.append(argv)
        return real_run(argv, **kwargs)

    monkeypatch.setattr(pagefind_output.subprocess, "run", counting_run)
    first = pagefind_output.require_pagefind()
    assert pagefind_output.require_pagefind() == first
    assert calls == [[str(first), "--version"]]
