"""The agent outputs on real builds (MkDocs, Sphinx, `mdchunk site`): llms.txt read by the
reference parser, Markdown twins where agents look for them, the hidden directive in the HTML,
and llms-full files within their token budget."""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
import sys
import textwrap
import urllib.parse
from pathlib import Path
from typing import Any

import lxml.html
import pytest
import yaml
from click.testing import CliRunner
from llms_txt import parse_llms_file

from mdchunk.cli import main
from tests.conftest import EXAMPLE_SITE, build_mkdocs
from tests.invariants import Index, check_index, count_tokens
from tests.test_sphinx import EXAMPLE as SPHINX_EXAMPLE
from tests.test_sphinx import sphinx_build

MKDOCS_URL = "https://example.com/docs/"
SPHINX_URL = "https://example.com/sphinx/"
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
TOKENS = re.compile(r"\((\d+) tokens\)$|^(\d+) tokens$")
DIRECTIVE = re.compile(
    rb'<div class="mdchunk-llms"[^>]*>.*?</div>|<link [^>]*class="mdchunk-llms"[^>]*>', re.DOTALL)


# -- helpers: what an agent (and afdocs) does with a built site -------------------------------


def llms_text(site: Path) -> str:
    return (site / "llms.txt").read_text(encoding="utf-8")


def site_file(site: Path, url: str, site_url: str) -> Path:
    """The file a link of llms.txt (at the site root) leads to."""
    path = url.removeprefix(site_url) if site_url and url.startswith(site_url) else url
    assert "://" not in path, f"{url} leaves the site"
    return site / urllib.parse.unquote(path.lstrip("/"))


def entries(site: Path) -> dict[str, list[dict[str, Any]]]:
    """The sections of llms.txt as the reference parser reads them."""
    return parse_llms_file(llms_text(site))["sections"]


def afdocs_candidates(page_url: str) -> list[str]:
    """The .md urls afdocs tries for a page url (its `toMdUrls`): `page.md`, then
    `page/index.md` (a `.html` suffix dropped first)."""
    path = page_url.rstrip("/")
    return [re.sub(r"\.html?$", "", path) + ".md", f"{path}/index.md".lstrip("/")]


def afdocs_page_url(md_url: str, *, html: bool) -> str:
    """The page url afdocs derives from a .md link of llms.txt (its `toHtmlUrl`): `clean` by
    default, `html` (`--url-path-pattern html`, for a site of `.html` urls)."""
    if html:
        return re.sub(r"\.html?$", "", md_url.removesuffix(".md")) + ".html"
    if md_url == "index.md" or md_url.endswith("/index.md"):
        return md_url.removesuffix("index.md")
    return md_url.removesuffix(".md")


def html_file(site: Path, page_url: str) -> Path:
    """The file a static server answers for a page url (a folder: its index.html)."""
    path = site / page_url
    return path / "index.html" if path.is_dir() else path


def directive(site: Path, page_url: str) -> lxml.html.HtmlElement:
    """The hidden directive of a page: the first element of its body."""
    body = lxml.html.parse(str(html_file(site, page_url))).getroot().body
    first = body[0]
    assert first.get("class") == "mdchunk-llms", f"{page_url}: no directive first in <body>"
    return first


def alternates(site: Path, page_url: str) -> list[str]:
    """The hrefs of the page's `<link rel="alternate" type="text/markdown">` in its head."""
    head = lxml.html.parse(str(html_file(site, page_url))).getroot().head
    return [link.get("href") or "" for link in head.iter("link")
            if link.get("rel") == "alternate" and link.get("type") == "text/markdown"]


def resolve_href(page_url: str, href: str) -> str:
    """`href` from the page at `page_url`, relative to the site root."""
    base = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url)
    return posixpath.normpath(posixpath.join(base, href))


def expected_twin(page_url: str) -> str:
    """The page url with `.md` for its slash or its `.html` (`guide/install/` ->
    `guide/install.md`, `install.html` -> `install.md`); the home page: `index.md`."""
    if not page_url:
        return "index.md"
    return re.sub(r"\.html$", "", page_url.rstrip("/")) + ".md"


def check_llms_site(site: Path, site_url: str) -> None:
    """What every build with the agent outputs must give, whatever the engine: llms.txt read
    by the reference parser, every link to a file of the site, one entry per page of the
    index linking to its twin, which afdocs maps back to the page, the hidden directive in
    each page's HTML, and the contract of the chunk offsets (`index.html.md`) intact.

    An agent that guesses (afdocs tries `afdocs_candidates` in order, the first Markdown it
    gets wins) finds the twin, with the note."""
    parsed = parse_llms_file(llms_text(site))
    assert parsed["title"] and parsed["summary"]
    for _, url in LINK.findall(llms_text(site)):
        assert site_file(site, url, site_url).is_file(), url
    index = Index.load(site)
    listed = [entry["url"] for title, section in parsed["sections"].items()
              if title != "Languages" for entry in section]  # (links to other llms.txt)
    page_urls = [records[0]["pageUrl"] for records in index.pages().values()]
    assert sorted(listed) == sorted(site_url + expected_twin(url) for url in page_urls)
    html_urls = all(url.endswith(".html") for url in page_urls)
    for page_url in page_urls:
        twin_url = expected_twin(page_url)
        assert html_file(site, afdocs_page_url(twin_url, html=html_urls)) == html_file(
            site, page_url)
        twin = (site / twin_url).read_text(encoding="utf-8")
        note, _, rest = twin.partition("\n\n")
        assert note.startswith("> Markdown of [") and f"]({site_url}llms.txt)" in note
        assert rest == index.markdown(page_url).strip() + "\n"
        guessed = next(site / candidate for candidate in afdocs_candidates(page_url)
                       if (site / candidate).is_file())
        assert guessed == site / twin_url and "/llms.txt" in note  # afdocs' directive
        element = directive(site, page_url)
        hrefs = [link.get("href") for link in element.iter("a")]
        assert resolve_href(page_url, hrefs[0]) == "llms.txt"
        assert resolve_href(page_url, hrefs[1]) == twin_url
        assert "clip" in (element.get("style") or "")
        assert [resolve_href(page_url, href) for href in alternates(site, page_url)] == [
            twin_url]
    check_index(index, max_tokens=512)  # offsets index the page Markdown, index.html.md


def section_titles(site: Path) -> dict[str, list[str]]:
    return {name: [entry["title"] for entry in section]
            for name, section in entries(site).items()}


def stated_tokens(entry: dict[str, Any]) -> int:
    found = TOKENS.search(entry["desc"])
    assert found, entry
    return int(found.group(1) or found.group(2))


# -- MkDocs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("mkdocs") / "example"
    shutil.copytree(EXAMPLE_SITE, project, ignore=shutil.ignore_patterns("site", "site-*"))
    return build_mkdocs(project / "mkdocs.yml")


def test_mkdocs_llms_txt_follows_the_nav(mkdocs_site: Path) -> None:
    check_llms_site(mkdocs_site, MKDOCS_URL)
    parsed = parse_llms_file(llms_text(mkdocs_site))
    assert parsed["title"] == "mdchunk example"
    assert parsed["summary"].startswith("Example documentation for Beacon")
    assert section_titles(mkdocs_site) == {
        "Docs": ["Home"],
        "Getting started": ["Installation", "Before you begin"],
        "Guide": ["Configuration", "Sampling math", "Pipeline internals", "Command usage",
                  "Troubleshooting", "Dashboards"],
        "Reference": ["Built-in parsers", "Delivery semantics", "Python API"],
        "Optional": ["License"],  # llms_optional: ["no-headings.md"]
    }  # excluded pages (Internal notes, Legacy agent) and the empty Changelog stay out
    assert list(entries(mkdocs_site))[-1] == "Optional"


def test_mkdocs_descriptions_and_exact_token_counts(mkdocs_site: Path) -> None:
    by_title = {entry["title"]: entry for section in entries(mkdocs_site).values()
                for entry in section}
    configuration = by_title["Configuration"]["desc"]
    assert configuration.startswith("How Beacon reads its configuration file, every top-level "
                                    "key, and how values are resolved.")  # front matter
    assert by_title["Sampling math"]["desc"].startswith(
        "Beacon can sample high-volume sources instead of shipping every record. (")
    for entry in by_title.values():
        twin = site_file(mkdocs_site, entry["url"], MKDOCS_URL).read_text(encoding="utf-8")
        assert stated_tokens(entry) == count_tokens(twin), entry["title"]
    full = (mkdocs_site / "llms-full.txt").read_text(encoding="utf-8")
    stated = re.search(r"\[llms-full.txt\]\([^)]*\) \((\d+) tokens\)", llms_text(mkdocs_site))
    assert stated and int(stated.group(1)) == count_tokens(full)


def test_mkdocs_twins_sit_where_afdocs_looks_first(mkdocs_site: Path) -> None:
    """A directory url `guide/install/` has its twin at `guide/install.md`, the home page at
    `index.md` (afdocs' first tries); `index.html.md` beside the HTML is the page Markdown the
    offsets index into."""
    twin = (mkdocs_site / "getting-started" / "install.md").read_text(encoding="utf-8")
    assert twin.startswith("> Markdown of [Installation](https://example.com/docs/getting-"
                           "started/install/); the documentation index is [llms.txt]"
                           "(https://example.com/docs/llms.txt).\n\n# Installation\n")
    page = (mkdocs_site / "getting-started" / "install" / "index.html.md").read_text("utf-8")
    assert page.startswith("# Installation\n")
    home = entries(mkdocs_site)["Docs"][0]["url"]
    assert home == "https://example.com/docs/index.md"
    assert (mkdocs_site / "index.md").read_text(encoding="utf-8").startswith("> Markdown of [")
    assert afdocs_page_url(home.removeprefix(MKDOCS_URL), html=False) == ""


def test_llms_full_is_every_page_in_the_order_of_llms_txt(mkdocs_site: Path) -> None:
    full = (mkdocs_site / "llms-full.txt").read_text(encoding="utf-8")
    starts = [full.index(f"> Markdown of [{title}]") for titles in
              section_titles(mkdocs_site).values() for title in titles]
    assert starts == sorted(starts) and starts[0] == 0


def test_llms_full_splits_within_the_budget(example_site: Path, caplog: Any) -> None:
    """Split along the top-level sections, each file within the budget unless one page alone
    is over it (flagged in llms.txt and said in the build log); the pages are the same."""
    whole = (build_mkdocs(example_site / "mkdocs.yml") / "llms-full.txt").read_text("utf-8")
    budget = 3000
    config = yaml.safe_load((example_site / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"][1]["mdchunk"]["llms_full_max_tokens"] = budget
    (example_site / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    with caplog.at_level("INFO"):
        site = build_mkdocs(example_site / "mkdocs.yml")
    listed = re.findall(r"^- \[([^\]]+)\]\((https://[^)]+/llms-full/[^)]+)\): (\d+) tokens(.*)$",
                        llms_text(site), re.MULTILINE)
    assert [title for title, *_ in listed] == [
        "Docs", "Getting started", "Guide (1/2)", "Guide (2/2)", "Reference (1/3)",
        "Reference (2/3)", "Reference (3/3)", "Optional"]
    parts = []
    for title, url, tokens, flag in listed:
        text = site_file(site, url, MKDOCS_URL).read_text(encoding="utf-8")
        parts.append(text)
        assert count_tokens(text) == int(tokens), title
        alone = text.count("\n> Markdown of [") + text.startswith("> Markdown of [") == 1
        assert int(tokens) <= budget or (alone and "over the budget" in flag), title
        assert ("over the budget" in flag) == (int(tokens) > budget)
    assert "".join(parts) == whole
    index = (site / "llms-full.txt").read_text(encoding="utf-8")
    assert parse_llms_file(index)["title"] == "mdchunk example"
    assert [url for _, url in LINK.findall(index)] == [url for _, url, *_ in listed]
    assert "llms-full/reference-1.txt holds the page reference/huge-code.md alone" in caplog.text


def test_pages_left_out_point_to_llms_txt_only(mkdocs_site: Path) -> None:
    """A page left out of the index (its front matter) has no twin; its HTML points to
    llms.txt. A page without text is not listed, but an agent that guesses its twin is sent
    to llms.txt too."""
    assert [link.get("href") for link in directive(mkdocs_site, "guide/excluded/").iter(
        "a")] == ["../../llms.txt"]
    assert not (mkdocs_site / "guide" / "excluded.md").exists()
    assert alternates(mkdocs_site, "guide/excluded/") == []
    assert alternates(mkdocs_site, "empty/") == ["../empty.md"]
    assert "guide/excluded" not in llms_text(mkdocs_site)
    assert [link.get("href") for link in directive(mkdocs_site, "empty/").iter("a")] == [
        "../llms.txt", "../empty.md"]
    assert (mkdocs_site / "empty.md").read_text(encoding="utf-8") == (
        "> Markdown of [this page](https://example.com/docs/empty/); the documentation index "
        "is [llms.txt](https://example.com/docs/llms.txt).\n\nThis page has no text.\n")
    assert "empty" not in llms_text(mkdocs_site)


def test_a_rebuild_from_the_page_cache_writes_the_same_files(make_site: Any) -> None:
    pages = {"index.md": "# Home\n\nWelcome.\n", "a.md": "---\ndescription: About a.\n---\n"
             "# A\n\nText of a.\n"}
    site = make_site(pages, config={"site_url": "https://example.org/"})
    first = {path: path.read_bytes() for path in site.rglob("*") if path.suffix in (".md",
                                                                                    ".txt")}
    site = make_site(pages, config={"site_url": "https://example.org/"})  # every page cached
    assert {path: path.read_bytes() for path in site.rglob("*")
            if path.suffix in (".md", ".txt")} == first
    assert "- [A](https://example.org/a.md): About a. (" in llms_text(site)


@pytest.mark.parametrize("workers", [0, 1])
def test_a_build_sweeps_what_killed_writers_of_twins_left(make_site: Any, tmp_path: Path,
                                                          workers: int) -> None:
    """Twins are written without a sweep each (many share a folder): the build sweeps their
    folders once, removing the temporary files of killed writers (MkDocs' clean keeps dot
    files), and keeping those of live ones and of files mdchunk does not write."""
    pages = {"index.md": "# Home\n\nWelcome.\n", "a.md": "# A\n\nText of a.\n",
             "sub/b.md": "# B\n\nText of b.\n"}
    site = make_site(pages, plugin={"workers": workers})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = [site / f".a.md.{dead}.x1.tmp", site / "sub" / f".b.md.{dead}.x2.tmp",
             site / f".index.md.{dead}.x3.tmp"]
    kept = [site / f".a.md.{os.getppid()}.x4.tmp", site / f".notes.md.{dead}.x5.tmp"]
    for path in stale + kept:
        path.write_text("partial")
    site = make_site(pages, plugin={"workers": workers})
    assert [path.exists() for path in stale + kept] == [False] * len(stale) + [True] * len(kept)
    assert (site / "sub" / "b.md").read_text().endswith("Text of b.\n")


def test_agent_outputs_can_be_turned_off(make_site: Any) -> None:
    pages = {"index.md": "# Home\n\nWelcome. More text.\n", "guide.md": "# Guide\n\nRead.\n"}
    site = make_site(pages, plugin={"llms_directive": False, "llms_full": False})
    assert (site / "guide.md").read_text() == (site / "guide" / "index.html.md").read_text()
    assert b"mdchunk-llms" not in (site / "guide" / "index.html").read_bytes()
    assert not (site / "llms-full.txt").exists()
    assert "](guide.md): Read. (" in llms_text(site)  # no site_url: relative links
    site = make_site(pages, plugin={"llms_txt": False})
    assert not (site / "llms.txt").exists() and not (site / "guide.md").exists()


def test_a_page_without_site_url_links_from_the_site_root(make_site: Any) -> None:
    site = make_site({"index.md": "# Home\n\nWelcome.\n", "a/b.md": "# B\n\nText of b.\n"})
    twin = (site / "a" / "b.md").read_text(encoding="utf-8")
    assert twin.startswith("> Markdown of [B](/a/b/); the documentation index is "
                           "[llms.txt](/llms.txt).\n")
    assert section_titles(site) == {"Docs": ["Home"], "A": ["B"]}


WELL_FORMED = re.compile(r"^- \[[^\]\n]+\]\([^)\s]+\)(?:: (?:.+ \()?\d+ tokens\)?)?$")
"""A page's line of llms.txt: a link, then what the reference parser reads as its notes (the
description, if any, and the token count)."""


def descriptions(site: Path) -> dict[str, str]:
    """Each listed page's description, by title, without its token count ("" for none)."""
    lines = [line for line in llms_text(site).splitlines() if line.startswith("- [")]
    assert all(WELL_FORMED.match(line) for line in lines), lines
    return {entry["title"]: TOKENS.sub("", entry["desc"]).strip()
            for section in entries(site).values() for entry in section}


DESCRIBED_PAGES = {
    "index.md": "# Home\n\nWidgets draws values on screens. This site documents it.\n",
    "guide/front.md": "---\ndescription: How Widgets reads its settings.\n---\n# Settings\n\n"
                      "The first paragraph is not the description here.\n",
    "guide/snippets.md": "# Snippets\n\n```python\nprint(1)\n```\n",
    # mkdocstrings' markup of a class: its base classes first, then its docstring
    "api.md": "# Widget API\n\n<h2 class=\"doc doc-heading\" id=\"widgets.Widget\"><code>"
              "Widget</code></h2>\n<div class=\"doc doc-contents\">\n<p class=\"doc doc-class-"
              "bases\">Bases: <code>object</code></p>\n<p>A widget renders one value on the "
              "screen.</p>\n</div>\n",
    "changelog.md": "# Changelog\n\n## 2.1.0 (2025-06-10)\n\nAddressed high-severity "
                    "security issues.\n\n## 2.0.0 (2025-01-02)\n\n- Dropped Python 3.8.\n",
    "license.md": "# License\n\nWidgets is distributed under the MIT license.\n",
    "orphan.md": "# Orphan\n\nA page that no navigation names.\n",
}


def test_descriptions_are_summaries_and_sections_follow_the_nav(make_site: Any) -> None:
    """A description is the front matter's, else the first paragraph of prose (not the base
    classes of an API object), else none (a page of code; a changelog, whose paragraphs are
    its entries). The top-level pages make the first section wherever the nav puts them, the
    sections take the nav's names, and `## Optional` holds the changelog and the page that
    the nav omits."""
    site = make_site(DESCRIBED_PAGES, config={"nav": [
        {"Home": "index.md"},
        {"Guide": [{"Settings": "guide/front.md"}, "guide/snippets.md"]},
        {"Reference": ["api.md"]},
        {"Changelog": "changelog.md"},
        {"License": "license.md"},
    ]})
    assert section_titles(site) == {
        "Docs": ["Home", "License"],
        "Guide": ["Settings", "Snippets"],
        "Reference": ["Widget API"],
        "Optional": ["Changelog", "Orphan"],
    }
    assert descriptions(site) == {
        "Home": "Widgets draws values on screens. This site documents it.",
        "License": "Widgets is distributed under the MIT license.",
        "Settings": "How Widgets reads its settings.",
        "Snippets": "",
        "Widget API": "A widget renders one value on the screen.",
        "Changelog": "",
        "Orphan": "A page that no navigation names.",
    }


SPHINX_CONF = """\
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
project = "Widgets"
release = "2.1.0"
extensions = ["sphinx.ext.autodoc", "sphinx_mdchunk"]
autodoc_default_options = {"show-inheritance": True}
html_baseurl = "https://example.org/widgets/"
"""

SPHINX_PAGES = {
    "widgets.py": '''\
        """Widgets: values on screens."""


        class Widget:
            """A widget renders one value on the screen.

            It redraws when the value changes.
            """

            def draw(self, column: int) -> None:
                """Draw the widget at `column`."""
        ''',
    "index.rst": """\
        Widgets
        =======

        Release |release|.

        Widgets draws values on screens.

        .. toctree::

           license

        The user guide
        --------------

        .. toctree::

           usage

        .. toctree::

           snippets

        The API
        -------

        .. toctree::
           :caption: Reference

           api

        .. toctree::

           changelog
        """,
    "usage.rst": """\
        Usage
        =====

        .. versionadded:: 2.0

        Draw a widget with one call.
        """,
    "snippets.rst": """\
        Snippets
        ========

        .. code-block:: python

           print(1)
        """,
    "api.rst": """\
        Widget API
        ==========

        .. autoclass:: widgets.Widget
           :members:
        """,
    "changelog.rst": """\
        Changelog
        =========

        2.1.0 (2025-06-10)
        ------------------

        Addressed high-severity security issues.

        2.0.0 (2025-01-02)
        ------------------

        First release.
        """,
    "license.rst": """\
        License
        =======

        Widgets is distributed under the MIT license.
        """,
}


def test_sphinx_descriptions_and_sections(tmp_path: Path) -> None:
    """On an autodoc page the class's docstring describes it, not its `Bases: object` line; a
    version-change label and a release line are no description either. A toctree without a
    caption takes the title of the part of the root page it sits in (two in one part make one
    section), one right under the page's title lists top-level pages."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(SPHINX_CONF, encoding="utf-8")
    for name, text in SPHINX_PAGES.items():
        (source / name).write_text(textwrap.dedent(text), encoding="utf-8")
    code, warnings = sphinx_build(source, tmp_path / "html", "-b", "html")
    assert code == 0, warnings
    site = tmp_path / "html"
    assert "Bases: `object`" in (site / "api.md").read_text(encoding="utf-8")  # (the page's)
    assert section_titles(site) == {
        "Docs": ["Widgets", "License"],
        "The user guide": ["Usage", "Snippets"],
        "Reference": ["Widget API"],  # (its caption)
        "Optional": ["Changelog"],  # ("The API" held only the changelog)
    }
    assert descriptions(site) == {
        "Widgets": "Widgets draws values on screens.",
        "License": "Widgets is distributed under the MIT license.",
        "Usage": "Draw a widget with one call.",
        "Snippets": "",
        "Widget API": "A widget renders one value on the screen.",
        "Changelog": "",
    }
    assert parse_llms_file(llms_text(site))["summary"] == "Widgets draws values on screens."


# -- Sphinx ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sphinx")
    source = root / "src"
    shutil.copytree(SPHINX_EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    code, warnings = sphinx_build(source, root / "html", "-b", "html")
    assert code == 0, warnings
    return root / "html"


def test_sphinx_llms_txt_follows_the_toctree(sphinx_site: Path) -> None:
    check_llms_site(sphinx_site, SPHINX_URL)
    parsed = parse_llms_file(llms_text(sphinx_site))
    assert parsed["title"] == "Beacon"  # the project
    assert parsed["summary"] == "Beacon is a small, single-binary log shipper."  # the home page
    assert section_titles(sphinx_site) == {
        "Docs": ["Beacon"],
        "Getting started": ["Installation", "Before you begin"],
        "Guide": ["Configuration", "Routing records", "Sampling math", "Pipeline internals"],
        "Reference": ["Python API", "Built-in parsers", "Delivery semantics"],
        "Optional": ["Changelog"],  # mdchunk_llms_optional; "Other" held only it and excluded
    }
    guide = entries(sphinx_site)["Guide"][1]
    assert guide["url"] == SPHINX_URL + "guide.md"  # beside guide.html, where agents look
    assert guide["desc"].startswith("How the router copies each record")  # MyST front matter


def test_sphinx_dirhtml_twins_sit_where_afdocs_looks(tmp_path: Path) -> None:
    """The dirhtml builder's directory urls: `install/` -> `install.md`, the root ->
    `index.md`, the page Markdown in `install/index.html.md`."""
    source = tmp_path / "src"
    shutil.copytree(SPHINX_EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    code, warnings = sphinx_build(source, tmp_path / "dirhtml", "-b", "dirhtml")
    assert code == 0, warnings
    site = tmp_path / "dirhtml"
    check_llms_site(site, SPHINX_URL)
    assert entries(site)["Docs"][0]["url"] == SPHINX_URL + "index.md"
    assert (site / "install.md").read_text(encoding="utf-8").startswith("> Markdown of [")
    assert (site / "install" / "index.html.md").read_text(encoding="utf-8").startswith("# ")


def test_sphinx_twins_match_the_post_build_command(sphinx_site: Path, tmp_path: Path) -> None:
    """`mdchunk site` over the same build writes the same twins (the site url from each
    page's canonical link, the titles from its <title>)."""
    post = tmp_path / "post"
    shutil.copytree(sphinx_site, post)
    for path in [*post.rglob("*.md"), post / "llms.txt", post / "llms-full.txt"]:
        path.unlink()
    result = CliRunner().invoke(main, ["site", str(post), "-j", "1"])
    assert result.exit_code == 0, result.output
    check_llms_site(post, SPHINX_URL)
    for twin in sphinx_site.glob("*.md"):
        if twin.name != "index.md":  # (the home page's title: the project's, not <title>'s)
            assert (post / twin.name).read_text(encoding="utf-8") == twin.read_text("utf-8")
    assert (post / "index.html").read_bytes().count(b'<div class="mdchunk-llms"') == 1
    assert (post / "index.html").read_bytes().count(b'<link rel="alternate"') == 1


def test_sphinx_incremental_build_lists_every_page(sphinx_site: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(sphinx_site.parent / "src", root / "src")
    assert sphinx_build(root / "src", root / "html", "-b", "html")[0] == 0
    first = llms_text(root / "html")
    install = root / "src" / "install.rst"
    install.write_text(install.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
    assert sphinx_build(root / "src", root / "html", "-b", "html")[0] == 0
    second = llms_text(root / "html")
    assert second != first and len(second.splitlines()) == len(first.splitlines())
    assert b"One more line." in (root / "html" / "install.md").read_bytes()


# -- mdchunk site ----------------------------------------------------------------------------


def test_post_build_command_follows_the_nav(mkdocs_site: Path, tmp_path: Path) -> None:
    """`mdchunk site` reads the nav the built pages show: its llms.txt and twins are the
    plugin's, titles from the nav included (the home page's "Home", not the site's name)."""
    site = tmp_path / "site"
    shutil.copytree(mkdocs_site, site)
    result = CliRunner().invoke(main, ["site", str(site), "--docs", str(
        EXAMPLE_SITE / "docs"), "-j", "1", "--llms-optional", "no-headings.md"])
    assert result.exit_code == 0, result.output
    check_llms_site(site, MKDOCS_URL)
    assert section_titles(site) == section_titles(mkdocs_site) == {
        "Docs": ["Home"],
        "Getting started": ["Installation", "Before you begin"],
        "Guide": ["Configuration", "Sampling math", "Pipeline internals", "Command usage",
                  "Troubleshooting", "Dashboards"],  # in the nav's order
        "Reference": ["Built-in parsers", "Delivery semantics", "Python API"],
        "Optional": ["License"],
    }
    assert (site / "llms.txt").read_bytes() == (mkdocs_site / "llms.txt").read_bytes()
    for twin in mkdocs_site.rglob("*.md"):
        relative = twin.relative_to(mkdocs_site)
        assert (site / relative).read_bytes() == twin.read_bytes(), relative
    again = CliRunner().invoke(main, ["site", str(site), "-j", "1"])
    assert again.exit_code == 0, again.output
    again_html = (site / "guide" / "math" / "index.html").read_bytes()
    assert again_html.count(b'<div class="mdchunk-llms"') == 1
    assert again_html.count(b'<link rel="alternate" type="text/markdown"') == 1


def test_post_build_command_marks_the_pages_it_leaves_out(mkdocs_site: Path,
                                                           tmp_path: Path) -> None:
    """`mdchunk site` over the plugin's site with the directives taken out puts back the same
    HTML, byte for byte: pages left out by their front matter (read with `--docs`) point to
    llms.txt as in the plugin's build; so does a page left out by `--exclude`."""
    site = tmp_path / "site"
    shutil.copytree(mkdocs_site, site)
    for page in site.rglob("*.html"):
        page.write_bytes(DIRECTIVE.sub(b"", page.read_bytes()))
    result = CliRunner().invoke(main, ["site", str(site), "--docs", str(EXAMPLE_SITE / "docs"),
                                       "-j", "1", "--llms-optional", "no-headings.md"])
    assert result.exit_code == 0, result.output
    for page in mkdocs_site.rglob("*.html"):
        relative = page.relative_to(mkdocs_site)
        assert (site / relative).read_bytes() == page.read_bytes(), relative
    result = CliRunner().invoke(main, ["site", str(site), "-j", "1", "--exclude",
                                       "guide/math/*"])
    assert result.exit_code == 0, result.output
    assert [link.get("href") for link in directive(site, "guide/math/").iter("a")] == [
        "../../llms.txt"]
    assert "guide/math" not in llms_text(site)


def test_post_build_command_flags(mkdocs_site: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(mkdocs_site, site)
    result = CliRunner().invoke(main, ["site", str(site), "-j", "1", "--no-llms-directive",
                                       "--llms-full-max-tokens", "5000"])
    assert result.exit_code == 0, result.output
    assert b"mdchunk-llms" not in (site / "guide" / "math" / "index.html").read_bytes()
    assert (site / "llms-full" / "guide.txt").is_file()
    bad = CliRunner().invoke(main, ["site", str(site), "--llms-full-max-tokens", "0"])
    assert bad.exit_code == 2 and "--llms-full-max-tokens" in bad.output
