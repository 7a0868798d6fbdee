"""The agent outputs' rules, one function at a time: descriptions, sections from a navigation,
folders as a navigation, llms-full budgets, twin paths, and token counts that add up."""

from __future__ import annotations

import posixpath

import markdown as md
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.chunking import Chunker
from mdchunk.chunking.html import parse_html
from mdchunk.chunking.model import PageInput
from mdchunk.chunking.summary import is_version_title, page_summary
from mdchunk.errors import OptionError
from mdchunk.options import ChunkOptions
from mdchunk.outputs.llms_full import FULL_TXT, FullPage, plan_full
from mdchunk.outputs.outline import NavItem, SiteOutline, folder_outline, nav_sections
from mdchunk.outputs.page_facts import block_tokens, is_changelog
from mdchunk.outputs.twins import (
    note_line,
    page_block,
    page_directive,
    page_markdown_path,
    relative_path,
    twin_path,
    with_directive,
)
from mdchunk.settings import LlmsOptions
from tests.invariants import count_tokens


@pytest.mark.parametrize(("html", "summary"), [
    ("<h1>Title</h1><p>First one. Second one is long enough to stay out of the summary, as a "
     "summary is a sentence or two.</p>", "First one. Second one is long enough to stay out of "
     "the summary, as a summary is a sentence or two."),  # a short first sentence: the next too
    ("<p>Use a tool, e.g. a hammer, for this job and for no other job, J. Doe says. Then stop."
     "</p>", "Use a tool, e.g. a hammer, for this job and for no other job, J. Doe says."),
    ("<pre><code>code. here</code></pre><ul><li>a list. item</li></ul><table><tr><td>a</td>"
     "</tr></table><p>The <a href='/x/'>link</a> and <b>bold</b> text with <code>code</code> "
     "that says what the page holds! More.</p>",
     "The link and bold text with `code` that says what the page holds!"),
    ("<blockquote><p>A quote.</p></blockquote><div class='admonition note'><p class="
     "'admonition-title'>Note</p><p>An aside.</p></div><p>Prose at last.</p>",
     "Prose at last."),
    ("<p>A paragraph without an end</p>", "A paragraph without an end"),
    ("<p>The command that builds the site and writes all of its outputs is <code>mkdocs build. "
     "-q</code> on a shell. More.</p>", "The command that builds the site and writes all of "
     "its outputs is `mkdocs build. -q` on a shell."),  # no sentence ends inside code
    ("<p>Every page of the site is chunked along its heading tree (see the guide.) Then more "
     "follows.</p>", "Every page of the site is chunked along its heading tree (see the guide.)"),

    ("<dl><dt>size</dt><dd>A definition.</dd></dl><p>Prose at last.</p>", "Prose at last."),
    ("<h1>Only a heading</h1><pre><code>print(1)</code></pre>", ""),
    ("<p>日本語の文です。次の文。</p>", "日本語の文です。次の文。"),
    ("<p>Release v2.32.3. (<a href='install/'>Installation</a>)</p><p>Requests is an HTTP "
     "library.</p>", "Requests is an HTTP library."),  # a version label is no summary
    ("<h1>Changelog</h1><h2>2.1.0 (2025-06-10)</h2><p>Fixed a crash.</p><h3>Details</h3>"
     "<p>More of it.</p><h2>2.0.0 (2025-01-02)</h2><p>First.</p>", ""),  # entries: none
    ("<h1>Changelog</h1><p>Every change of Beacon, newest first.</p><h2>v2.1.0</h2><p>Fixed."
     "</p>", "Every change of Beacon, newest first."),
    ("<h1>API</h1><dl class='py class'><dt class='sig sig-object py' id='m.W'>class m.W</dt>"
     "<dd><p>Bases: <code class='xref py py-class'>object</code></p><p>A widget draws a value."
     "</p></dd></dl>", "A widget draws a value."),  # autodoc's base classes: not prose
    ("<h2 class='doc doc-heading' id='m.W'><code>W</code></h2><div class='doc doc-contents'>"
     "<p class='doc doc-class-bases'>Bases: <code>Base</code></p><p>A widget.</p></div>",
     "A widget."),  # mkdocstrings' base classes
    ("<div class='versionadded'><p><span class='versionmodified added'>Added in version 2.6."
     "</span></p></div><p>The rules of a release.</p>", "The rules of a release."),
    ("<dl class='py function'><dt class='sig sig-object py'>f(x)</dt><dd><p>Do f.</p></dd></dl>",
     "Do f."),  # a signature without an id (`:no-index:`) is code, not prose
    ("<p>" + "word " * 100 + ".</p>", "word " * 47 + "word…"),  # cut between words
])
def test_a_summary_is_the_first_paragraph_of_prose(html: str, summary: str) -> None:
    assert page_summary(parse_html(html)) == summary


@pytest.mark.parametrize(("title", "version"), [
    ("9.7.6 March 19, 2026", True), ("2.32.4 (2025-06-10)", True), ("[1.0.0] - 2017-06-20", True),
    ("Release 7.2.6 (released Sep 13, 2023)", True), ("v2.0.0-beta.1", True), ("1.0", True),
    ("Version 2", True), ("[Unreleased]", True), ("2024-01-15", True),
    ("2.1 Install", False), ("2.1. Install", False), ("Upgrading from 8.x to 9.x", False),
    ("2024", False), ("Version 2 of the protocol", False), ("Release notes", False),
])
def test_version_titles(title: str, version: bool) -> None:
    """A changelog's entries, not numbered sections or titles that speak of versions."""
    assert is_version_title(title) is version


@pytest.mark.parametrize(("markdown", "changelog"), [
    ("# Changelog\n\n## Material\n\n### 9.7.1 March 19, 2026\n\n- Fixed.\n\n"
     "### 9.7.0 March 1, 2026\n\n- Added.\n", True),  # versions below a product's heading
    ("# Changes\n\n## Release 7.2.6 (released Sep 13, 2023)\n\n### Bugs fixed\n\n- One.\n\n"
     "### Features added\n\n- Two.\n\n## Release 7.2.5 (released Sep 1, 2023)\n\n"
     "### Bugs fixed\n\n- Three.\n", True),  # each release in parts
    ("# Upgrade\n\n## 9.0 (2023)\n\nText.\n\n## Configuration\n\nText.\n", False),
    ("# Guide\n\n## 1.0 (2020)\n\nA.\n\n## 2.0 (2021)\n\nB.\n\n## Install\n\nC.\n\n"
     "## Use\n\nD.\n\n## Tune\n\nE.\n", False),  # versions, but few of its sections
])
def test_a_changelog_is_a_page_of_version_headings(markdown: str, changelog: bool) -> None:
    html = md.markdown(markdown, extensions=["toc"])
    result = Chunker(ChunkOptions.validated({})).chunk_page(
        PageInput(html=html, source_path="page.md", url="page/", title="Page"))
    assert is_changelog(result.sections) is changelog


def title_of(source: str) -> str:
    return source.removesuffix(".md").title()


def test_sections_follow_the_navigation() -> None:
    outline = SiteOutline(nav=(
        NavItem("Home", "index.md"),
        NavItem("Guide", None, (NavItem(None, "guide/a.md"),
                                NavItem("Deeper", None, (NavItem("B", "guide/b.md"),)))),
        NavItem("API", "api.md", (NavItem(None, "api/x.md"),)),  # a page with pages under it
        NavItem("Changelog", "changelog.md"),
        NavItem("License", "license.md"),
        NavItem("Guide", None, (NavItem(None, "guide/a.md"), NavItem(None, "extra.md"))),
    ))
    listed = ["index.md", "guide/a.md", "guide/b.md", "api.md", "api/x.md", "changelog.md",
              "license.md", "extra.md", "orphan.md"]
    sections = nav_sections(outline, [page for page in listed if page != "license.md"],
                            title_of)
    assert [(section.title, section.pages) for section in sections] == [
        ("Docs", (("index.md", "Home"), ("changelog.md", "Changelog"))),  # every top-level page
        ("Guide", (("guide/a.md", None), ("guide/b.md", "B"))),  # nested sections flattened
        ("API", (("api.md", "API"), ("api/x.md", None))),
        ("Guide (2)", (("extra.md", None),)),  # guide/a.md was listed already
        ("Optional", (("orphan.md", None),)),  # a page the navigation omits
    ]  # license.md is not listed


def test_without_a_navigation_every_page_is_in_the_first_section() -> None:
    sections = nav_sections(SiteOutline(), ["index.md", "a.md"], title_of)
    assert [(section.title, section.pages) for section in sections] == [
        ("Docs", (("index.md", None), ("a.md", None)))]


def test_folders_make_a_navigation_as_mkdocs_does() -> None:
    outline = SiteOutline(nav=folder_outline({
        "index.md": "", "zeta.md": "zeta/", "getting-started/index.md": "getting-started/",
        "getting-started/install.md": "getting-started/install/", "api_ref/a.html":
        "api_ref/a.html", "alpha.md": "alpha/"}))
    sections = nav_sections(outline, ["index.md", "zeta.md", "getting-started/index.md",
                                      "getting-started/install.md", "api_ref/a.html",
                                      "alpha.md"], title_of)
    assert [(section.title, [page for page, _ in section.pages]) for section in sections] == [
        ("Docs", ["index.md", "alpha.md", "zeta.md"]),
        ("Api ref", ["api_ref/a.html"]),  # a folder without a page: its name as a title
        ("Getting-Started/Index",  # a folder with a page of its own: that page's title
         ["getting-started/index.md", "getting-started/install.md"]),
    ]


def pages(*tokens: int) -> list[FullPage]:
    return [FullPage(f"p{index}.md", count, f"P{index}") for index, count in enumerate(tokens)]


def test_llms_full_is_one_file_when_everything_fits() -> None:
    [file] = plan_full([("A", pages(40, 60)), ("B", pages(0))], 100)
    assert file.path == FULL_TXT and file.tokens == 100 and not file.over_budget


def test_llms_full_splits_along_sections_then_between_pages() -> None:
    files = plan_full([("Getting started", pages(30, 30)), ("Guide", pages(60, 50, 150, 10)),
                       ("Ünïcode", pages(5))], 100)
    assert [(file.path, file.title, file.tokens, file.over_budget) for file in files] == [
        ("llms-full/getting-started.txt", "Getting started", 60, False),
        ("llms-full/guide-1.txt", "Guide (1/4)", 60, False),
        ("llms-full/guide-2.txt", "Guide (2/4)", 50, False),
        ("llms-full/guide-3.txt", "Guide (3/4)", 150, True),  # one page alone is over
        ("llms-full/guide-4.txt", "Guide (4/4)", 10, False),
        ("llms-full/n-code.txt", "Ünïcode", 5, False),
    ]


@pytest.mark.parametrize(("url", "twin", "markdown"), [
    ("", "index.md", "index.html.md"),
    ("guide/install/", "guide/install.md", "guide/install/index.html.md"),
    ("install.html", "install.md", "install.html.md"),
    ("index.html", "index.md", "index.html.md"),  # Sphinx's home page
    ("api/index.html#top", "api/index.md", "api/index.html.md"),
    ("a%20b/", "a b.md", "a b/index.html.md"),
])
def test_twins_are_where_agents_look_and_the_page_markdown_beside_the_html(
        url: str, twin: str, markdown: str) -> None:
    """The twin at the url with `.md` for its `/` or `.html` (afdocs' first try); the page
    Markdown of the offsets at the HTML file + `.md`, so the two never share a file."""
    assert twin_path(url) == twin
    assert page_markdown_path(url) == markdown


def test_bad_options_name_the_option() -> None:
    assert LlmsOptions.validated({"llms_txt": False}) is None
    assert LlmsOptions.validated({}) == LlmsOptions()
    with pytest.raises(OptionError, match="llms_full_max_tokens"):
        LlmsOptions.validated({"llms_full_max_tokens": 0})
    with pytest.raises(OptionError, match="llms_nope"):
        LlmsOptions.validated({"llms_nope": 1})


TRICKY = st.text(alphabet=st.sampled_from(list(
    " \n\r\t\x0b\x0c\xa0\u2028\u3000\x1c\x85abcXYZ019'.,;:!?()[]<>/#*_-`|\"\\日本é😀")),
    min_size=1, max_size=60)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(first=TRICKY, second=TRICKY)
def test_parts_of_llms_full_add_up(first: str, second: str) -> None:
    """The count of two pages' parts put together is the sum of their counts: llms-full's
    budgets are kept without counting its files again."""
    blocks = [page_block(text, note_line("T", "a/", "", directive=True))
              for text in (first, second) if text.strip()]
    assert count_tokens("".join(blocks)) == sum(count_tokens(block) for block in blocks)


_MARKDOWN = st.text(alphabet=st.sampled_from(
    [*"ab Z9.,'`*#>|-_()[]\n\t ", "é", "数", "🚀", "\r", "\xa0", "\u2028", "\x1c"]), max_size=80)


@settings(max_examples=500, deadline=None)
@given(markdown=st.one_of(_MARKDOWN, st.text(max_size=60)), title=st.text(max_size=20),
       directive=st.booleans())
def test_a_page_block_counts_from_the_count_of_its_markdown(markdown: str, title: str,
                                                            directive: bool) -> None:
    """`llms.txt` states each twin's tokens without counting the page again: from the count of
    its Markdown that the packing made."""
    note = note_line(title, "guide/", "https://example.com/", directive=directive)
    tokens = block_tokens(markdown, note, count_tokens(markdown), count_tokens)
    assert tokens == count_tokens(page_block(markdown, note))


_HTML_PARTS = st.sampled_from([
    "<html>", "<head>", "<title>t</title>", "</head>", "</HEAD >", "<body>", '<body class="x">',
    "<p>text</p>", "</body>", "</html>", "\n", "<div>", "</div>"])


@given(parts=st.lists(_HTML_PARTS, max_size=12),
       url=st.sampled_from(["", "guide/", "guide/install/", "a.html", "docs/b.html"]),
       twin=st.booleans())
def test_a_directive_put_twice_is_put_once_and_taken_out_whole(parts: list[str], url: str,
                                                               twin: bool) -> None:
    """Marking a page again (a later build) leaves it as one marking does, and unmarking a
    marked page gives the page as it was: nothing of the directive is left or doubled."""
    page = "".join(parts)
    directive = page_directive(url, twin=twin)
    marked = with_directive(page, directive)
    if marked is None:
        assert "<body" not in page.lower()
        return
    assert with_directive(marked, directive) == marked
    assert with_directive(marked, None) == page
    assert marked.count(directive.element) == 1
    if directive.alternate is not None:
        head_end = page.lower().find("</head")
        has_head = -1 < head_end < page.lower().find("<body")
        assert marked.count(directive.alternate) == (1 if has_head else 0)


_SEGMENTS = st.sampled_from(["a", "b", "guide", "..", ".", "", "x y", "llms.txt", "a.md",
                             "index.html"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_SEGMENTS, min_size=1, max_size=5), st.lists(_SEGMENTS, max_size=5))
def test_relative_path_is_relpath_without_the_working_folder(target: list[str],
                                                             base: list[str]) -> None:
    """The links of the directive and `<link>`: the same path as `posixpath.relpath` for any
    two paths relative to the site root, those that climb out of it included."""
    path, start = "/".join(target) or ".", "/".join(base)
    assert relative_path(path, start) == posixpath.relpath(path, start or ".")
