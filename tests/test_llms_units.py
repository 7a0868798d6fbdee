"""The agent outputs' rules, one function at a time: descriptions, sections from a navigation,
folders as a navigation, llms-full budgets, twin paths, and token counts that add up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.errors import OptionError
from mdchunk.outputs.llms import LlmsOptions, first_sentence
from mdchunk.outputs.llms_full import FULL_TXT, FullPage, plan_full
from mdchunk.outputs.outline import NavItem, SiteOutline, folder_outline, nav_sections
from mdchunk.outputs.twins import note_line, page_block, page_markdown_path, twin_path
from tests.invariants import count_tokens


@pytest.mark.parametrize(("markdown", "sentence"), [
    ("# Title\n\nFirst one. Second one.\n", "First one."),
    ("Use a tool, e.g. a hammer. Then stop.", "Use a tool, e.g. a hammer."),
    ("```\ncode. here\n```\n\n- a list. item\n\n| a | b |\n\nThe [link](https://x/) and "
     "**bold** text! More.", "The link and bold text!"),
    ("> **Note**\n>\n> A quote.\n\nVersion 2.4 of `beacon.toml`. Next.",
     "Version 2.4 of `beacon.toml`."),
    ("A paragraph without an end", "A paragraph without an end"),
    ("size\n: A definition.\n\nProse at last.", "Prose at last."),
    ("# Only a heading\n", ""),
    ("日本語の文です。次の文。", "日本語の文です。"),
])
def test_first_sentence(markdown: str, sentence: str) -> None:
    assert first_sentence(markdown) == sentence


def test_a_long_first_sentence_is_cut_between_words() -> None:
    sentence = first_sentence("word " * 100 + ".")
    assert sentence.endswith("word…") and len(sentence) <= 241


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
        ("Docs", (("index.md", "Home"),)),
        ("Guide", (("guide/a.md", None), ("guide/b.md", "B"))),  # nested sections flattened
        ("API", (("api.md", "API"), ("api/x.md", None))),
        ("More", (("changelog.md", "Changelog"),)),  # license.md is not listed
        ("Guide (2)", (("extra.md", None),)),  # guide/a.md was listed already
        ("More (2)", (("orphan.md", None),)),  # pages the navigation omits close the list
    ]


def test_folders_make_a_navigation_as_mkdocs_does() -> None:
    outline = SiteOutline(nav=folder_outline({
        "index.md": "", "zeta.md": "zeta/", "getting-started/index.md": "getting-started/",
        "getting-started/install.md": "getting-started/install/", "api_ref/a.html":
        "api_ref/a.html", "alpha.md": "alpha/"}))
    sections = nav_sections(outline, ["index.md", "zeta.md", "getting-started/index.md",
                                      "getting-started/install.md", "api_ref/a.html",
                                      "alpha.md"], title_of)
    assert [(section.title, [page for page, _ in section.pages]) for section in sections] == [
        ("Docs", ["index.md", "alpha.md"]),
        ("Api ref", ["api_ref/a.html"]),  # a folder without a page: its name as a title
        ("Getting-Started/Index",  # a folder with a page of its own: that page's title
         ["getting-started/index.md", "getting-started/install.md"]),
        ("More", ["zeta.md"]),
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
