"""Tests for `mdchunk.chunking.html.parse_html`.

The HTML comes from the real Python-Markdown with the extensions MkDocs sites use; only
Sphinx-style markup and hostile input are written by hand. Every parse is checked against the
structural invariants of `ParsedPage` (offsets, nesting, order, code fences).
"""

from __future__ import annotations

import re
import string
import textwrap
import time
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown.extensions.toc import TocExtension

from mdchunk.chunking.html import parse_html
from mdchunk.chunking.model import Block, ParsedPage
from tests.helpers import render

EXTENSIONS = [
    "toc",
    "tables",
    "footnotes",
    "def_list",
    "attr_list",
    "md_in_html",
    "admonition",
    "abbr",
    "pymdownx.details",
    "pymdownx.superfences",
    "pymdownx.highlight",
    "pymdownx.inlinehilite",
    "pymdownx.tabbed",
    "pymdownx.arithmatex",
    "pymdownx.tasklist",
]
BASE_CONFIG: dict[str, dict[str, Any]] = {
    "toc": {"permalink": True},
    "pymdownx.tasklist": {"custom_checkbox": True},
}
#: Every way pymdownx.highlight can wrap a code block.
HIGHLIGHT_CONFIGS: dict[str, dict[str, Any]] = {
    "plain": {},
    "lang-class": {"pygments_lang_class": True},
    "linenums-table": {"linenums": True, "pygments_lang_class": True},
    "linenums-pymdownx-inline": {
        "linenums": True, "linenums_style": "pymdownx-inline", "pygments_lang_class": True,
    },
    "linenums-inline": {
        "linenums": True, "linenums_style": "inline", "pygments_lang_class": True,
    },
    "material": {  # what mkdocs-material's docs recommend
        "linenums": True, "anchor_linenums": True, "line_spans": "__span",
        "pygments_lang_class": True,
    },
    "material-inline": {
        "linenums": True, "linenums_style": "pymdownx-inline", "anchor_linenums": True,
        "line_spans": "__span", "pygments_lang_class": True,
    },
}

PageFixture = tuple[str, dict[str, dict[str, Any]]]
#: Markdown sources used by the tests, with their extension configs; all of them are also
#: checked by the invariant test.
FIXTURES: dict[str, PageFixture] = {}
#: Hand-written HTML (Sphinx markup, hostile input), also checked by the invariant test.
HTML_FIXTURES: dict[str, str] = {}


def fixture(name: str, text: str, **configs: dict[str, Any]) -> str:
    """Register a Markdown source (dedented) and return it."""
    source = textwrap.dedent(text)
    FIXTURES[name] = (source, {key.replace("_", "."): value for key, value in configs.items()})
    return source


def html_fixture(name: str, html: str) -> str:
    HTML_FIXTURES[name] = html
    return html


def render_page(text: str, configs: dict[str, dict[str, Any]] | None = None,
                extra: Iterable[str] = ()) -> str:
    """Render Markdown with the MkDocs extensions these tests use (`extra` added), each
    configured by `BASE_CONFIG` with `configs` on top."""
    merged = {name: dict(value) for name, value in BASE_CONFIG.items()}
    for name, value in (configs or {}).items():
        merged.setdefault(name, {}).update(value)
    return render(text, [*EXTENSIONS, *extra], merged)


def parse(text: str, *, page_url: str = "guide/", site_url: str = "",
          extra: Iterable[str] = (), **configs: dict[str, Any]) -> ParsedPage:
    """Render `text` (dedented), parse it and check the invariants.

    `configs` are extension configs by name, `_` for `.` (`pymdownx_highlight={...}`).
    """
    html = render_page(
        textwrap.dedent(text), {k.replace("_", "."): v for k, v in configs.items()}, extra
    )
    return checked(parse_html(html, page_url=page_url, site_url=site_url))


def parse_fixture(name: str, *, page_url: str = "guide/", site_url: str = "") -> ParsedPage:
    source, configs = FIXTURES[name]
    return checked(parse_html(render_page(source, configs), page_url=page_url,
                              site_url=site_url))


def checked(page: ParsedPage) -> ParsedPage:
    assert_invariants(page)
    return page


# -- invariants ------------------------------------------------------------------------------


def assert_invariants(page: ParsedPage) -> None:
    """Offsets in range, no edge whitespace, children nested, ordered, disjoint; code fences."""
    markdown_text = page.markdown
    if not page.blocks:
        assert markdown_text.strip() == ""

    def check(blocks: Iterable[Block], low: int, high: int) -> None:
        previous_end = low
        for block in blocks:
            assert low <= block.start < block.end <= high, block
            assert block.start >= previous_end, f"{block} overlaps its previous sibling"
            text = markdown_text[block.start:block.end]
            assert text == text.strip(), f"{block.kind} has edge whitespace: {text!r}"
            if block.kind == "code":
                code_of(page, block)
            if block.kind == "heading":
                assert text.startswith("#" * block.level + " ")
                assert "¶" not in text and "¶" not in block.title
            for offset in block.inline_math:
                assert block.start <= offset < block.end
                assert markdown_text[offset] == "$"
            previous_end = block.end
            check(block.children, block.start, block.end)

    check(page.blocks, 0, len(markdown_text))


def code_of(page: ParsedPage, block: Block) -> str:
    """The code of a code block: its lines between the fences, without the line prefix.

    Asserts that the fences are well formed and that no line of the code would close them.
    """
    lines = page.markdown[block.start:block.end].split("\n")
    assert len(lines) >= 3, lines
    fence = re.match(r"`{3,}", lines[0])
    assert fence, lines[0]
    ticks = fence.group()
    assert lines[0][len(ticks):].split(" ")[0] == block.language
    closing = lines[-1]
    assert closing.endswith(ticks) and not closing.endswith("`" + ticks), closing
    prefix = closing[: -len(ticks)]
    assert prefix.strip(" >") == "", prefix
    code = []
    for line in lines[1:-1]:
        if line.startswith(prefix):
            code.append(line[len(prefix):])
        else:
            assert line == prefix.rstrip(), f"line {line!r} lacks the prefix {prefix!r}"
            code.append("")
        assert not re.fullmatch(rf" {{0,3}}`{{{len(ticks)},}}\s*", code[-1]), "closes the fence"
    return "\n".join(code)


def walk(page: ParsedPage, kind: str | None = None) -> list[Block]:
    return [block for block in page.walk() if kind is None or block.kind == kind]


def text(page: ParsedPage, block: Block) -> str:
    return page.markdown[block.start:block.end]


def kinds(blocks: Iterable[Block]) -> list[str]:
    return [block.kind for block in blocks]


# -- empty input -----------------------------------------------------------------------------


@pytest.mark.parametrize("html", ["", " ", "\n\n\t  \r\n"])
def test_empty_and_whitespace_html_give_nothing(html: str) -> None:
    page = parse_html(html)
    assert page.markdown == ""
    assert page.blocks == ()


def test_markdown_rendering_to_nothing_gives_nothing() -> None:
    page = parse("[link-def]: https://example.com\n\n*[ABBR]: unused\n")
    assert page.markdown == ""
    assert page.blocks == ()


# -- headings and anchors --------------------------------------------------------------------

HEADINGS = fixture("headings", """\
    # Page title

    Intro.

    ## Install the tool

    ### Linux {#on-linux}

    Text.
    """)


def test_headings_get_their_own_id_and_lose_the_permalink() -> None:
    page = parse_fixture("headings")
    assert page.markdown == (
        "# Page title\n\nIntro.\n\n## Install the tool\n\n### Linux\n\nText."
    )
    headings = walk(page, "heading")
    assert [(h.level, h.title, h.anchor) for h in headings] == [
        (1, "Page title", "page-title"),
        (2, "Install the tool", "install-the-tool"),
        (3, "Linux", "on-linux"),
    ]
    assert [text(page, h) for h in headings] == [
        "# Page title", "## Install the tool", "### Linux",
    ]
    assert kinds(page.blocks) == ["heading", "paragraph", "heading", "heading", "paragraph"]


@pytest.mark.parametrize("symbol", [True, "#", "¶", "Link"])
def test_permalink_symbol_never_in_text_or_title(symbol: object) -> None:
    page = parse("## Usage\n\nBody.\n", toc={"permalink": symbol, "permalink_title": "Anchor"})
    assert page.markdown == "## Usage\n\nBody."
    (heading,) = walk(page, "heading")
    assert (heading.title, heading.anchor) == ("Usage", "usage")


@pytest.mark.parametrize(
    "toc",
    [
        {"permalink": True, "anchorlink": True},
        {"anchorlink": True},
        {"permalink": "§", "permalink_class": "anchor"},  # not the usual class
    ],
)
def test_heading_links_to_itself_are_not_links(toc: dict[str, Any]) -> None:
    page = parse("## Install `pip`\n\nBody [other](#x).\n", toc=toc)
    assert page.markdown == "## Install `pip`\n\nBody [other](/guide/#x)."
    (heading,) = walk(page, "heading")
    assert (heading.title, heading.anchor) == ("Install pip", "install-pip")


@pytest.mark.skipif("permalink_leading" not in TocExtension().getConfigs(),
                    reason="Markdown before 3.5 has no permalink_leading")
def test_permalink_leading_is_dropped_too() -> None:
    page = parse("## Usage\n", toc={"permalink": "#", "permalink_leading": True})
    assert page.markdown == "## Usage"


def test_heading_title_is_plain_text_while_markdown_keeps_markup() -> None:
    source = """\
        ## The `pip` *tool*: [docs](other/)[^1]

        [^1]: A note.
        """
    page = parse(source)
    heading = page.blocks[0]
    assert text(page, heading) == "## The `pip` *tool*: [docs](/guide/other/)[^1]"
    assert heading.title == "The pip tool: docs"
    # The id Markdown gave the heading (`the-pip-tool-docs`; before 3.5 its slug kept the
    # footnote's number).
    [anchor] = re.findall(r'<h2 id="([^"]+)"', render_page(textwrap.dedent(source)))
    assert heading.anchor == anchor and anchor.startswith("the-pip-tool-docs")


def test_heading_with_math_has_tex_once_in_title() -> None:
    page = parse("## Energy $E = mc^2$\n", pymdownx_arithmatex={"generic": False})
    assert page.markdown == "## Energy $E = mc^2$"
    assert page.blocks[0].title == "Energy E = mc^2"


SPHINX_SECTIONS = html_fixture("sphinx-sections", """\
<section id="install">
<h1>Install<a class="headerlink" href="#install" title="Link to this heading">¶</a></h1>
<p>Intro.</p>
<section id="from-source">
<span id="label-source"></span><h2>From <em>source</em><a class="headerlink" href="#from-source" \
title="Link to this heading">¶</a></h2>
<p>Build it.</p>
</section>
<section id="section-id">
<h2>Section id wins</h2>
<p>Text.</p>
<h3>Orphan<a class="headerlink" href="#orphan-target" title="Link to this heading">¶</a></h3>
<h3>No anchor at all</h3>
</section>
</section>
""")


def test_sphinx_heading_anchors_from_section_then_headerlink() -> None:
    page = checked(parse_html(SPHINX_SECTIONS, page_url="install.html"))
    assert page.markdown == (
        "# Install\n\nIntro.\n\n## From *source*\n\nBuild it.\n\n## Section id wins\n\nText."
        "\n\n### Orphan\n\n### No anchor at all"
    )
    assert [(h.level, h.title, h.anchor) for h in walk(page, "heading")] == [
        (1, "Install", "install"),  # the section's id (the heading is its first element)
        (2, "From source", "from-source"),  # a label span comes first: the headerlink's target
        (2, "Section id wins", "section-id"),
        (3, "Orphan", "orphan-target"),
        (3, "No anchor at all", ""),
    ]


def test_section_id_is_preferred_to_the_headerlink() -> None:
    page = checked(parse_html(
        '<section id="real"><h2>T<a class="headerlink" href="#other">¶</a></h2></section>'
    ))
    assert (page.markdown, page.blocks[0].anchor) == ("## T", "real")


# -- paragraphs and inline markup ------------------------------------------------------------

INLINE = fixture("inline", """\
    Some **bold**, *emphasis*, ***both*** and `code`, then `` a `tick` b `` and `` `x ``.

    Line one
    line two.
    """)


def test_inline_markup() -> None:
    page = parse_fixture("inline")
    assert page.markdown == (
        "Some **bold**, *emphasis*, ***both*** and `code`, then ``a `tick` b`` and `` `x ``."
        "\n\nLine one line two."  # a soft line break is a space in HTML
    )
    assert kinds(page.blocks) == ["paragraph", "paragraph"]
    assert all(block.prose for block in page.blocks)


def test_code_span_with_backtick_runs_gets_longer_delimiters() -> None:
    page = parse("Run ```` ``` ```` and ``` a``b ```.\n")
    assert page.markdown == "Run ```` ``` ```` and ```a``b```."


def test_inline_code_highlighted_by_inlinehilite_is_plain() -> None:
    page = parse("Call `#!python print('hi')` now.\n")
    assert page.markdown == "Call `print('hi')` now."


def test_spaces_around_inline_markup_are_kept() -> None:
    page = parse("a<b> bold </b>b <em>x </em>y<a href='z/'> link </a>c\n")
    assert page.markdown == "a **bold** b *x* y [link](/guide/z/) c"


LINKS = fixture("links", """\
    See [sibling](../other/), [here](#usage), [top](/abs/page/), [ext](https://python.org/a?b=1#c),
    [mail](mailto:me@example.com), [proto](//cdn.example.com/x.js), [file](my%20file.md),
    [paren](<a(b).md>) and ![A picture](img/pic.png "Title").
    """)


def test_links_become_site_absolute_with_site_url() -> None:
    page = parse_fixture("links", page_url="guide/install/", site_url="https://example.com/docs/")
    base = "https://example.com/docs/guide/"
    assert page.markdown == (
        f"See [sibling]({base}other/), [here]({base}install/#usage), "
        "[top](https://example.com/abs/page/), [ext](https://python.org/a?b=1#c), "
        "[mail](mailto:me@example.com), [proto](//cdn.example.com/x.js), "
        f"[file]({base}install/my%20file.md), "
        f"[paren]({base}install/a%28b%29.md) and ![A picture]({base}install/img/pic.png)."
    )


def test_links_become_root_relative_without_site_url() -> None:
    page = parse_fixture("links", page_url="guide/install/")
    assert page.markdown.startswith(
        "See [sibling](/guide/other/), [here](/guide/install/#usage), [top](/abs/page/), "
    )
    assert "![A picture](/guide/install/img/pic.png)" in page.markdown


@pytest.mark.parametrize(
    ("page_url", "site_url"),
    [
        ("guide/install/", "https://example.com/docs"),  # no trailing slash (Sphinx baseurl)
        ("/guide/install/", "https://example.com/docs/"),  # leading slash
    ],
)
def test_site_url_and_page_url_are_normalised(page_url: str, site_url: str) -> None:
    page = parse("[here](#usage) [up](../)\n", page_url=page_url, site_url=site_url)
    assert page.markdown == (
        "[here](https://example.com/docs/guide/install/#usage) "
        "[up](https://example.com/docs/guide/)"
    )


def test_fragment_link_on_an_html_page_url() -> None:
    page = parse("[here](#usage) [api](api.html#f)\n", page_url="guide/install.html")
    assert page.markdown == "[here](/guide/install.html#usage) [api](/guide/api.html#f)"


def test_images_and_data_uris() -> None:
    page = parse(
        '![Logo](logo.png) ![Dot](data:image/png;base64,iVBORw0KGgo=) '
        '![](https://example.com/x.svg)\n'
    )
    assert page.markdown == "![Logo](/guide/logo.png) Dot ![](https://example.com/x.svg)"


def test_emoji_images_become_their_character() -> None:
    page = parse("Hi :smile: there.\n", extra=["pymdownx.emoji"])
    assert page.markdown == "Hi 😄 there."


def test_link_without_href_and_javascript_link_keep_their_text() -> None:
    page = parse('<a name="x">Named</a> and <a href="javascript:void(0)">Click</a>.\n')
    assert page.markdown == "Named and Click."


def test_abbreviations_keep_their_text() -> None:
    page = parse("The HTML spec.\n\n*[HTML]: Hyper Text Markup Language\n")
    assert page.markdown == "The HTML spec."


# -- lists -----------------------------------------------------------------------------------

NESTED_LIST = fixture("nested-list", """\
    - one
    - two
        1. alpha
        2. beta
            - deep
    - three
    """)


def test_nested_tight_lists() -> None:
    page = parse_fixture("nested-list")
    assert page.markdown == "- one\n- two\n  1. alpha\n  2. beta\n     - deep\n- three"
    (outer,) = page.blocks
    assert outer.kind == "list"
    assert kinds(outer.children) == ["item", "item", "item"]
    second = outer.children[1]
    assert kinds(second.children) == ["paragraph", "list"]
    assert text(page, second.children[1]) == "1. alpha\n  2. beta\n     - deep"
    assert [text(page, item) for item in second.children[1].children] == [
        "1. alpha", "2. beta\n     - deep",
    ]


def test_loose_list_keeps_blank_lines() -> None:
    page = parse("- first\n\n- second\n\n    more\n")
    assert page.markdown == "- first\n\n- second\n\n  more"
    assert [kinds(item.children) for item in page.blocks[0].children] == [
        ["paragraph"], ["paragraph", "paragraph"],
    ]


def test_ordered_list_start_is_kept() -> None:
    page = parse("Para.\n\n3. three\n4. four\n", extra=["sane_lists"])
    assert page.markdown == "Para.\n\n3. three\n4. four"


LIST_WITH_CODE = fixture("list-with-code", """\
    1. Install:

        ```bash
        pip install mdchunk
          --upgrade
        ```

    2. Done.
    """, pymdownx_highlight={"pygments_lang_class": True})


def test_code_block_inside_list_item_keeps_its_indentation() -> None:
    page = parse_fixture("list-with-code")
    assert page.markdown == (
        "1. Install:\n\n   ```bash\n   pip install mdchunk\n     --upgrade\n   ```\n\n2. Done."
    )
    (code,) = walk(page, "code")
    assert code.language == "bash"
    assert code_of(page, code) == "pip install mdchunk\n  --upgrade"


@pytest.mark.parametrize("custom", [True, False])
def test_task_list(custom: bool) -> None:
    page = parse(
        "- [x] done\n- [ ] todo\n- plain\n", pymdownx_tasklist={"custom_checkbox": custom}
    )
    assert page.markdown == "- [x] done\n- [ ] todo\n- plain"


def test_blockquote_containing_a_list() -> None:
    page = parse("> Quote:\n>\n> - a\n> - b\n\nAfter.\n")
    assert page.markdown == "> Quote:\n>\n> - a\n> - b\n\nAfter."
    quote = page.blocks[0]
    assert quote.kind == "quote"
    assert kinds(quote.children) == ["paragraph", "list"]
    assert text(page, quote.children[1]) == "- a\n> - b"


# -- tables ----------------------------------------------------------------------------------

TABLE = fixture("table", """\
    | Name | Value | Mid | Plain |
    |:-----|------:|:---:|-------|
    | `a|b` | x \\| y | **z** | [l](x/) |
    | 2 | | | |
    """)


def test_table_with_header_alignment_pipes_and_inline_code() -> None:
    page = parse_fixture("table")
    assert page.markdown == (
        "| Name | Value | Mid | Plain |\n"
        "| :--- | ---: | :---: | --- |\n"
        "| `a\\|b` | x \\| y | **z** | [l](/guide/x/) |\n"
        "| 2 |  |  |  |"
    )
    assert kinds(page.blocks) == ["table"]
    assert page.blocks[0].atomic


SPHINX_TABLE = html_fixture("sphinx-table", """\
<table class="docutils align-default" id="id1">
<caption><span class="caption-number">Table 1 </span><span class="caption-text">Versions</span>\
<a class="headerlink" href="#id1" title="Link to this table">¶</a></caption>
<thead><tr class="row-odd"><th class="head"><p>Name</p></th><th class="head"><p>Since</p></th>
</tr></thead>
<tbody>
<tr class="row-even"><td><p>one</p></td><td><p>1.0</p>
<table><tr><td>nested</td></tr></table></td></tr>
</tbody>
</table>
""")


def test_sphinx_table_with_caption_and_nested_table() -> None:
    # A table in a cell is a block a pipe table's cell cannot hold: the table is HTML, its
    # cells' Markdown between blank lines (the nested table a pipe table of its own).
    page = checked(parse_html(SPHINX_TABLE))
    assert page.markdown == (
        "Table 1 Versions\n\n<table>\n<tr>\n<th>\n\nName\n\n</th>\n<th>\n\nSince\n\n</th>\n"
        "</tr>\n<tr>\n<td>\n\none\n\n</td>\n<td>\n\n1.0\n\n|  |\n| --- |\n| nested |\n\n</td>\n"
        "</tr>\n</table>"
    )
    assert kinds(page.blocks) == ["paragraph", "table"]
    assert page.blocks[1].title == "Table 1 Versions"


def test_paragraphs_inside_table_cells_keep_words_apart() -> None:
    page = checked(parse_html(
        "<table><thead><tr><th><p>A</p></th></tr></thead><tbody><tr><td><p>one</p><p>two</p>"
        "</td></tr></tbody></table>"
    ))
    assert page.markdown == "| A |\n| --- |\n| one two |"


def test_a_list_inside_a_table_cell_makes_an_html_table() -> None:
    page = checked(parse_html(
        "<table><thead><tr><th><p>A</p></th></tr></thead><tbody><tr><td><p>one</p><p>two</p>"
        "<ul><li><p>three</p></li><li>four</li></ul></td></tr></tbody></table>"
    ))
    assert page.markdown == (
        "<table>\n<tr>\n<th>\n\nA\n\n</th>\n</tr>\n<tr>\n<td>\n\none\n\ntwo\n\n- three\n\n"
        "- four\n\n</td>\n</tr>\n</table>"
    )
    assert kinds(page.blocks) == ["table"]


def test_table_without_header_row_gets_an_empty_one() -> None:
    page = checked(parse_html("<table><tr><td>a</td><td>b</td></tr></table>"))
    assert page.markdown == "|  |  |\n| --- | --- |\n| a | b |"


def test_table_with_only_empty_cells_is_left_out() -> None:
    page = checked(parse_html("<p>x</p><table><tr><td> </td></tr><tr><td></td></tr></table>"))
    assert page.markdown == "x"


# -- code blocks -----------------------------------------------------------------------------

CODE = 'def f(x):\n    """Say ```hi```."""\n\n    return x  # <done> & "ok"'
CODE_SOURCE = fixture("code", f"""\
    Before.

    ````python title="src/a.py" hl_lines="2 4"
    {textwrap.indent(CODE, "    ").lstrip()}
    ````

    After.
    """)
for _name, _config in HIGHLIGHT_CONFIGS.items():
    FIXTURES[f"code-{_name}"] = (CODE_SOURCE, {"pymdownx.highlight": _config})


@pytest.mark.parametrize("style", sorted(HIGHLIGHT_CONFIGS))
def test_code_block_is_exact_in_every_highlight_style(style: str) -> None:
    page = parse_fixture(f"code-{style}")
    (code,) = walk(page, "code")
    language = "" if style == "plain" else "python"
    assert page.markdown == (
        f'Before.\n\n````{language} title="src/a.py"\n{CODE}\n````\n\nAfter.'
    )
    assert code_of(page, code) == CODE
    assert (code.language, code.title) == (language, "src/a.py")
    assert code.atomic


def test_code_block_without_pygments() -> None:
    page = parse("```python\nx = 1\n\ny = 2\n```\n", pymdownx_highlight={"use_pygments": False})
    assert page.markdown == "```python\nx = 1\n\ny = 2\n```"
    assert walk(page, "code")[0].language == "python"


def test_indented_code_block_has_no_language() -> None:
    page = parse("Text:\n\n    $ make\n    $ make install\n")
    assert page.markdown == "Text:\n\n```\n$ make\n$ make install\n```"
    assert walk(page, "code")[0].language == ""


def test_fence_is_longer_than_any_backtick_run_in_the_code() -> None:
    page = parse("``````md\n`````\nnested\n`````\n``````\n")
    assert page.markdown == "``````\n`````\nnested\n`````\n``````"
    assert code_of(page, page.blocks[0]) == "`````\nnested\n`````"


def test_newline_right_after_pre_is_ignored() -> None:
    # Raw HTML passes through Python-Markdown; HTML ignores a newline right after <pre>.
    page = parse("<pre>\nfoo\n  bar\n</pre>\n")
    assert page.markdown == "```\nfoo\n  bar\n```"


def test_only_one_newline_after_pre_is_ignored() -> None:
    page = parse("<pre>\n\nfoo\n</pre>\n")
    assert page.markdown == "```\n\nfoo\n```"
    assert code_of(page, page.blocks[0]) == "\nfoo"


def test_newline_after_code_inside_pre_is_kept() -> None:
    page = parse("<pre><code>\nfoo\n</code></pre>\n")
    assert code_of(page, page.blocks[0]) == "\nfoo"


def test_fence_markers_left_as_text_are_escaped() -> None:
    # Python-Markdown leaves this fence as text (Node.js's API docs have such); read again as
    # Markdown, a line starting with ``` would open a code block that swallows the page, and
    # a backtick in text could open a code span: each gets a backslash.
    page = parse("- item\n<!-- c -->\n\n```js\n  x = 1\n\n  y\n  ```\n", extra=["fenced_code"])
    assert page.markdown == "- item\n\n\\`\\`\\`js x = 1\n\ny \\`\\`\\`"
    assert kinds(page.blocks) == ["list", "paragraph", "paragraph"]


def test_empty_code_block_is_left_out() -> None:
    page = parse("Text.\n\n```python\n```\n\n<pre>\n</pre>\n")
    assert page.markdown == "Text."


SPHINX_CODE = html_fixture("sphinx-code", """\
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span>\
<span class="kn">import</span> <span class="nn">os</span>
<span class="nb">print</span><span class="p">(</span><span class="s2">&quot;```&quot;</span>\
<span class="p">)</span>
</pre></div>
</div>
<div class="literal-block-wrapper docutils container" id="id1">
<div class="code-block-caption"><span class="caption-text">conf.py</span><a class="headerlink" \
href="#id1" title="Link to this code">¶</a></div>
<div class="highlight-default notranslate"><table class="highlighttable"><tr>\
<td class="linenos"><div class="linenodiv"><pre><span class="normal">1</span>
<span class="normal">2</span></pre></div></td><td class="code"><div class="highlight"><pre>\
<span></span><span class="n">project</span> <span class="o">=</span> <span class="s1">'x'</span>
<span class="n">release</span> <span class="o">=</span> <span class="s1">'1'</span>
</pre></div></td></tr></table></div>
</div>
""")


def test_sphinx_code_blocks() -> None:
    page = checked(parse_html(SPHINX_CODE))
    assert page.markdown == (
        '````python\nimport os\nprint("```")\n````\n\n'
        "``` title=\"conf.py\"\nproject = 'x'\nrelease = '1'\n```"
    )
    first, second = page.blocks
    assert (first.language, second.language, second.title) == ("python", "", "conf.py")


# -- admonitions and details -----------------------------------------------------------------

ADMONITIONS = fixture("admonitions", """\
    !!! note "Read *this*"
        Body para.

        !!! warning
            Inner.

    ??? tip "Click me"
        Hidden body.

    ???+ info
        Open body.
    """)


def test_admonitions_and_details() -> None:
    page = parse_fixture("admonitions")
    assert page.markdown == (
        "> **Read *this***\n>\n> Body para.\n>\n> > **Warning**\n> >\n> > Inner.\n\n"
        "> **Click me**\n>\n> Hidden body.\n\n"
        "> **Info**\n>\n> Open body."
    )
    note, tip, info = page.blocks
    assert kinds(page.blocks) == ["admonition"] * 3
    assert [note.title, tip.title, info.title] == ["Read this", "Click me", "Info"]
    assert kinds(note.children) == ["paragraph", "admonition"]
    assert note.children[1].title == "Warning"
    assert text(page, note.children[1].children[0]) == "Inner."


def test_admonition_without_title_is_named_after_its_kind() -> None:
    page = parse('!!! danger ""\n    No title.\n\n!!! note inline end ""\n    Side.\n')
    assert page.markdown == "> **Danger**\n>\n> No title.\n\n> **Note**\n>\n> Side."
    assert [block.title for block in page.blocks] == ["Danger", "Note"]


def test_blank_code_line_inside_admonition_keeps_the_quote_marker() -> None:
    page = parse("!!! example\n    ```\n    a\n\n    b\n    ```\n")
    assert page.markdown == "> **Example**\n>\n> ```\n> a\n>\n> b\n> ```"
    assert code_of(page, walk(page, "code")[0]) == "a\n\nb"


# -- tabbed sets -----------------------------------------------------------------------------

TABS = """\
    === "One"
        Tab one.

    === "Two `x`"
        ```bash
        echo hi
        ```

        === "Inner A"
            a

        === "Inner B"
            b

    Last.
    """
for _style in (True, False):
    fixture(f"tabs-{_style}", TABS, pymdownx_tabbed={"alternate_style": _style})


@pytest.mark.parametrize("alternate", [True, False])
def test_tabbed_sets(alternate: bool) -> None:
    page = parse_fixture(f"tabs-{alternate}")
    assert page.markdown == (
        "**One**\n\nTab one.\n\n**Two x**\n\n```\necho hi\n```\n\n"
        "**Inner A**\n\na\n\n**Inner B**\n\nb\n\nLast."
    )
    tabs, last = page.blocks
    assert (tabs.kind, last.kind) == ("tabs", "paragraph")
    assert [(tab.kind, tab.title) for tab in tabs.children] == [("tab", "One"), ("tab", "Two x")]
    second = tabs.children[1]
    assert kinds(second.children) == ["code", "tabs"]
    assert [tab.title for tab in second.children[1].children] == ["Inner A", "Inner B"]


# -- math ------------------------------------------------------------------------------------

MATH = r"""
    Inline $a^2 + b$ and $x$ too.

    $$
    E = mc^2
    $$

    \begin{align}
    y &= 1 < 2
    \end{align}
    """
for _generic in (True, False):
    fixture(f"math-{_generic}", MATH, pymdownx_arithmatex={"generic": _generic})


@pytest.mark.parametrize("generic", [True, False])
def test_arithmatex(generic: bool) -> None:
    page = parse_fixture(f"math-{generic}")
    assert page.markdown == (
        "Inline $a^2 + b$ and $x$ too.\n\n$$\nE = mc^2\n$$\n\n"
        "$$\n\\begin{align}\ny &= 1 < 2\n\\end{align}\n$$"
    )
    paragraph = page.blocks[0]
    assert paragraph.inline_math == (7, 21)
    assert [page.markdown[o:o + 3] for o in paragraph.inline_math] == ["$a^", "$x$"]
    assert kinds(page.blocks) == ["paragraph", "math", "math"]
    assert page.blocks[1].atomic


@pytest.mark.parametrize("generic", [True, False])
def test_arithmatex_tex_with_html_special_characters(generic: bool) -> None:
    # Non-generic arithmatex HTML-escapes the TeX inside its <script>.
    page = parse("If $a < b \\& c$ then\n\n$$\nx < y\n$$\n",
                 pymdownx_arithmatex={"generic": generic})
    assert page.markdown == "If $a < b \\& c$ then\n\n$$\nx < y\n$$"


SPHINX_MATH = html_fixture("sphinx-math", r"""
<p>Inline <span class="math notranslate nohighlight">\(a+b\)</span> here.</p>
<div class="math notranslate nohighlight">
\[E = mc^2\]</div>
<div class="math notranslate nohighlight" id="equation-euler">
<span class="eqno">(1)<a class="headerlink" href="#equation-euler" title="Permalink">¶</a>
</span>\[e^{i\pi} + 1 = 0\]</div>
""")


def test_sphinx_math() -> None:
    page = checked(parse_html(SPHINX_MATH))
    assert page.markdown == (
        "Inline $a+b$ here.\n\n$$\nE = mc^2\n$$\n\n$$\ne^{i\\pi} + 1 = 0\n$$"
    )
    assert kinds(page.blocks) == ["paragraph", "math", "math"]
    assert page.blocks[0].inline_math == (7,)


# -- footnotes, definitions, md_in_html ------------------------------------------------------

FOOTNOTES = fixture("footnotes", """\
    Note[^1] and another[^named].

    ## Later

    Text.

    [^1]: First note.
    [^named]: Second *note*.

        With a second paragraph.
    """)


def test_footnotes() -> None:
    page = parse_fixture("footnotes")
    assert page.markdown == (
        "Note[^1] and another[^named].\n\n## Later\n\nText.\n\n"
        "[^1]: First note.\n\n[^named]: Second *note*.\n\n    With a second paragraph."
    )
    notes = page.blocks[-1]
    assert notes.kind == "footnotes"
    assert [text(page, item) for item in notes.children] == [
        "[^1]: First note.", "[^named]: Second *note*.\n\n    With a second paragraph.",
    ]
    assert "↩" not in page.markdown


def test_footnotes_with_another_separator() -> None:
    page = parse("Text[^a].\n\n[^a]: A.\n", footnotes={"SEPARATOR": "-"})
    assert page.markdown == "Text[^a].\n\n[^a]: A."


DEFINITIONS = fixture("definitions", """\
    Term
    :   Definition one.
    :   Definition two.

    Other term
    Alias
    :   Def with `code`.
    """)


def test_definition_lists() -> None:
    page = parse_fixture("definitions")
    assert page.markdown == (
        "Term\n: Definition one.\n: Definition two.\n\nOther term\nAlias\n: Def with `code`."
    )
    (definitions,) = page.blocks
    assert definitions.kind == "definitions"
    assert [text(page, item) for item in definitions.children] == [
        "Term\n: Definition one.\n: Definition two.", "Other term\nAlias\n: Def with `code`.",
    ]


def test_loose_definition_keeps_blank_lines() -> None:
    page = parse("Term\n\n:   First para.\n\n    Second para.\n")
    assert page.markdown == "Term\n: First para.\n\n  Second para."


SPHINX_SIGNATURES = html_fixture("sphinx-signatures", """\
<dl class="py method">
<dt class="sig sig-object py" id="api.Client.reload">
<span class="sig-name descname"><span class="pre">reload</span></span><span class="sig-paren">(\
</span><em class="sig-param"><span class="keyword-only-separator o"><abbr title="Keyword-only \
parameters separator (PEP 3102)"><span class="pre">*</span></abbr></span></em>, \
<em class="sig-param"><span class="n"><span class="pre">validate_only</span></span><span class="p">\
<span class="pre">:</span></span><span class="w"> </span><span class="n"><span class="pre">bool\
</span></span></em><span class="sig-paren">)</span> <span class="sig-return">\
<span class="sig-return-icon">&#x2192;</span> <span class="sig-return-typehint"><span class="pre">\
bool</span></span></span><a class="headerlink" href="#api.Client.reload" title="Link to this \
definition">¶</a></dt>
<dd><p>Ask the agent to <em>re-read</em> its configuration.</p>
<p>Returns true when valid.</p>
</dd></dl>
""")


def test_sphinx_signature_parameters_are_not_emphasis() -> None:
    page = checked(parse_html(SPHINX_SIGNATURES))
    assert page.markdown == (
        "# `reload(*, validate_only: bool) → bool`\n\n"
        "Ask the agent to *re-read* its configuration.\n\nReturns true when valid."
    )
    [heading] = walk(page, "heading")
    assert (heading.title, heading.anchor) == ("reload", "api.Client.reload")


def test_empty_definition_writes_no_marker() -> None:
    page = checked(parse_html("<dl><dt>Term</dt><dd> </dd><dt>B</dt><dd>b</dd></dl>"))
    assert page.markdown == "Term\n\nB\n: b"


def test_md_in_html_div_is_transparent() -> None:
    page = parse("""\
        <div class="grid cards" markdown>

        - **Fast**

            Quick.

        </div>

        After.
        """)
    assert page.markdown == "- **Fast**\n\n  Quick.\n\nAfter."


# -- search exclusion and dropped content ----------------------------------------------------

EXCLUDE = fixture("exclude", """\
    # Page

    Intro.

    ## Secret {data-search-exclude}

    Hidden para.

    ### Deeper

    Still hidden.

    ## Public

    Shown.

    <div data-search-exclude markdown>
    Not this.
    </div>

    After div.

    ### Sub

    x

    #### Excluded deep {data-search-exclude}

    gone

    ### Back

    y

    ## Hidden again {data-search-exclude}

    h

    # Top

    z
    """)


def test_data_search_exclude_on_headings_and_divs() -> None:
    page = parse_fixture("exclude")
    assert page.markdown == (
        "# Page\n\nIntro.\n\n## Public\n\nShown.\n\nAfter div.\n\n### Sub\n\nx\n\n"
        "### Back\n\ny\n\n# Top\n\nz"
    )
    assert [h.anchor for h in walk(page, "heading")] == ["page", "public", "sub", "back", "top"]


def test_excluded_heading_inside_a_container_is_dropped() -> None:
    page = parse('!!! note\n    ## Inner {data-search-exclude}\n\n    Kept.\n')
    assert page.markdown == "> **Note**\n>\n> Kept."


DROPPED = fixture("dropped", """\
    Start.

    <script>var secret = 1;</script>

    <style>p { color: red; }</style>

    <svg><text>svgtext</text></svg>

    <p>Keep <button>Copy</button>this<script>inline()</script>.</p>

    <div hidden>hidden text</div>

    End.
    """)


def test_script_style_svg_button_hidden_never_in_markdown() -> None:
    page = parse_fixture("dropped")
    assert page.markdown == "Start.\n\nKeep this.\n\nEnd."


# -- hostile input ---------------------------------------------------------------------------

HOSTILE = {
    "unclosed-inline": ("<p>unclosed <b>bold <i>it", "unclosed **bold *it***"),
    "unclosed-list": ("<ul><li>a<li>b", "- a\n- b"),
    "stray-closers": ("</div></p><p>x</p></span>", "x"),
    "nul": ("\x00<p>a\x00b</p>", "ab"),
    "controls": ("<p>\x01\x02ctl\x0b\x1f\x7f</p>", "ctl"),
    "lone-surrogate": ("\ud800<p>x\udfffy</p>", "xy"),
    "html-only": ("<html>", ""),
    "full-document": (
        "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>"
        "<body><p>x</p></body></html>",
        "x",
    ),
    "after-body": ("<p>x</p></body></html><p>after</p>", "x\n\nafter"),
    "xml-declaration": ('<?xml version="1.0" encoding="utf-8"?><p>x</p>', "x"),
    "meta-charset": ('<meta charset="latin-1"><p>é</p>', "é"),
    "crlf": ("<p>a</p>\r\n<pre>\r\nfoo\r\nbar\r</pre>", "a\n\n```\nfoo\nbar\n```"),
    "comment": ("<p>a<!-- hidden -->b</p><!-- <p>c</p> -->", "ab"),
    "lt-gt": ("<p>a < b > c</p><<<>>>", "a < b > c\n\n<<<>>>"),
    "pre-only": ("<pre>", ""),
    "empty-heading": ("<h2></h2><h3> </h3>", ""),
    "table-soup": ("<table><p>x</p><tr><td>a</table>", "x\n\n|  |\n| --- |\n| a |"),
    "text-only": ("just text", "just text"),
}
for _name, (_html, _) in HOSTILE.items():
    html_fixture(f"hostile-{_name}", _html)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input(name: str) -> None:
    html, expected = HOSTILE[name]
    assert checked(parse_html(html)).markdown == expected


NESTING = {
    "admonition": "<div class='admonition note'><p class='admonition-title'>N</p>",
    "details": "<details><summary>s</summary>",
    "blockquote": "<blockquote>",
    "list": "<ul><li>",
    "definition": "<dl><dt>t</dt><dd>",
    "tabs": "<div class='tabbed-set'><label>L</label><div class='tabbed-content'>",
    "footnotes": "<div class='footnote'><ol><li id='fn:1'>",
    "table": "<table><tr><td>",
    "emphasis": "<em>",
    "link": "<a href='x'>",
    "span": "<span>",
}


@pytest.mark.parametrize("depth", [60, 250, 400])
@pytest.mark.parametrize("name", sorted(NESTING))
def test_deep_nesting_does_not_raise(name: str, depth: int) -> None:
    opening = NESTING[name]
    levels = depth // (opening.count("<") - 2 * opening.count("</"))  # elements left open
    html = opening * levels + "deepest"
    started = time.perf_counter()
    page = checked(parse_html(html))
    assert time.perf_counter() - started < 2
    if depth < 200:  # within libxml2's limit of 256 levels, nothing is lost
        assert page.markdown.count("deepest") == 1


def test_nested_footnote_lists_are_written_once() -> None:
    html = "<div class='footnote'><ol><li id='fn:1'><p>a</p>" * 3 + "<p>x</p>"
    page = checked(parse_html(html))
    assert page.markdown == "[^1]: a\n\n    [^1]: a\n\n        [^1]: a\n\n            x"


# -- invariants over every fixture -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_invariants_hold_for_every_markdown_fixture(name: str) -> None:
    page = parse_fixture(name, page_url="a/b/", site_url="https://example.com/")
    assert page.blocks
    assert_invariants(page)


@pytest.mark.parametrize("name", sorted(HTML_FIXTURES))
def test_invariants_hold_for_every_html_fixture(name: str) -> None:
    assert_invariants(parse_html(HTML_FIXTURES[name], page_url="x/"))


# -- property tests --------------------------------------------------------------------------

WORDS = st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=8)
#: Code lines: anything printable, backtick runs included, with indentation.
CODE_LINES = st.lists(
    st.builds(
        lambda indent, body: (" " * indent + body).rstrip(),
        st.integers(0, 6),
        st.text(alphabet=string.ascii_letters + "`'\"<>&#*_[](){}|=+-$\\ ", max_size=20),
    ),
    min_size=1,
    max_size=6,
).map(lambda lines: "\n".join(lines).strip("\n")).filter(lambda code: code.strip() != "")


@st.composite
def inline_text(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        word = draw(WORDS)
        style = draw(st.sampled_from(["", "**", "*", "`", "link", "math", "ref"]))
        if style == "link":
            parts.append(f"[{word}]({draw(st.sampled_from(['x/', '#a', 'https://e.com/']))})")
        elif style == "math":
            parts.append(f"${word}^2$")
        elif style == "ref":
            parts.append(f"{word}[^n]")
        else:
            parts.append(f"{style}{word}{style}")
    return " ".join(parts)


@st.composite
def blocks(draw: st.DrawFn, depth: int, codes: list[str]) -> str:
    """Markdown for one block; code blocks' contents are appended to `codes`."""
    options = ["paragraph", "code", "table", "math"]
    if depth < 2:
        options += ["list", "admonition", "details", "tabs", "quote", "ordered"]
    if depth == 0:
        options.append("heading")
    kind = draw(st.sampled_from(options))
    if kind == "paragraph":
        return draw(inline_text())
    if kind == "heading":
        attr = draw(st.sampled_from(["", " {#custom-id}"]))
        return "#" * draw(st.integers(1, 6)) + " " + draw(inline_text()) + attr
    if kind == "code":
        code = draw(CODE_LINES)
        codes.append(code)
        ticks = "`" * max(3, max((len(r) for r in re.findall("`+", code)), default=0) + 1)
        language = draw(st.sampled_from(["", "python", "text", "bash"]))
        title = draw(st.sampled_from(["", ' title="a.py"']))
        if not language:
            title = ""
        return f"{ticks}{language}{title}\n{code}\n{ticks}"
    if kind == "table":
        width = draw(st.integers(1, 3))
        rows = [[draw(inline_text()).replace("|", "") for _ in range(width)]
                for _ in range(draw(st.integers(1, 3)))]
        header = "| " + " | ".join(f"h{i}" for i in range(width)) + " |"
        rule = "|" + "|".join(draw(st.sampled_from(["---", ":--", "--:", ":-:"]))
                              for _ in range(width)) + "|"
        return "\n".join([header, rule] + ["| " + " | ".join(row) + " |" for row in rows])
    if kind == "math":
        return "$$\n" + draw(WORDS) + " = 1\n$$"
    body = "\n\n".join(
        draw(blocks(depth + 1, codes)) for _ in range(draw(st.integers(1, 3)))
    )
    if kind == "quote":
        return textwrap.indent(body, "> ", lambda line: True)
    indented = textwrap.indent(body, "    ")
    if kind == "admonition":
        return f'!!! note "{draw(WORDS)}"\n{indented}'
    if kind == "details":
        return f"???+ tip\n{indented}"
    if kind == "tabs":
        second = draw(blocks(depth + 1, codes))
        return f'=== "A"\n{indented}\n\n=== "B"\n{textwrap.indent(second, "    ")}'
    marker = "1." if kind == "ordered" else "-"
    first = f"{marker} {draw(inline_text())}\n\n{indented}"
    others = [f"{marker} {draw(inline_text())}" for _ in range(draw(st.integers(0, 2)))]
    return "\n\n".join([first, *others])


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[str], dict[str, dict[str, Any]]]:
    """A Markdown page, the code blocks it shows, and the extension configs to render it."""
    codes: list[str] = []
    parts = [draw(blocks(0, codes)) for _ in range(draw(st.integers(1, 6)))]
    if draw(st.booleans()):
        parts.append("[^n]: A footnote.")
    if draw(st.booleans()):  # a last section left out of search, with everything after it
        parts.append("## Hidden {data-search-exclude}")
        parts.extend(draw(blocks(1, [])) for _ in range(draw(st.integers(1, 3))))
    configs = {
        "pymdownx.highlight": draw(st.sampled_from(list(HIGHLIGHT_CONFIGS.values()))),
        "pymdownx.tabbed": {"alternate_style": draw(st.booleans())},
        "pymdownx.arithmatex": {"generic": draw(st.booleans())},
    }
    return "\n\n".join(parts) + "\n", codes, configs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_property_random_documents(document: tuple[str, list[str], dict[str, Any]]) -> None:
    source, codes, configs = document
    page = parse_html(render_page(source, configs), page_url="p/", site_url="https://e.com/")
    assert_invariants(page)
    found = [code_of(page, block) for block in walk(page, "code")]
    # Every code block shown comes out exactly, and none of the excluded section.
    assert sorted(found) == sorted(codes)
    assert "¶" not in page.markdown


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(
    ["<p>", "</p>", "<ul>", "<li>", "</ul>", "<pre>", "</pre>", "<code>", "<b>", "</b>", "<h2>",
     "</h2>", "<table>", "<tr>", "<td>", "<blockquote>", "<div class='admonition'>", "</div>",
     "<dl>", "<dt>", "<dd>", "<script>", "</script>", "<br>", "\n", " ", "x", "`", "\x00",
     "\x01", "&amp;", "&#0;", "<!--", "-->", "</body>", "</html>", "\ud800", "$", "\\(", "|"]
), max_size=60).map("".join))
def test_property_tag_soup_never_raises(html: str) -> None:
    page = parse_html(html)
    assert_invariants(page)


# -- Sphinx (docutils 0.22 / Sphinx 9 markup, as sphinx-build renders it) --------------------

SPHINX_API = html_fixture("sphinx-api", """
<section id="api"><h2>API<a class="headerlink" href="#api">¶</a></h2>
<dl class="py class">
<dt class="sig sig-object py" id="beacon.Client"><em class="property"><span class="pre">class</span>
</em><span class="sig-prename descclassname"><span class="pre">beacon.</span></span><span
class="sig-name descname"><span class="pre">Client</span></span><a class="headerlink"
href="#beacon.Client">¶</a></dt>
<dd><p>A client.</p>
<dl class="py method">
<dt class="sig sig-object py" id="beacon.Client.status"><span class="sig-name descname"><span
class="pre">status</span></span><span class="sig-paren">(</span><em class="sig-param"><span
class="n"><span class="pre">verbose</span></span></em><span class="sig-paren">)</span><a
class="headerlink" href="#beacon.Client.status">¶</a></dt>
<dd><p>Status of the agent.</p></dd></dl>
</dd></dl>
<dl class="py function"><dt class="sig sig-object py"><span class="sig-name descname">noindex</span>
</dt><dd><p>Not indexed.</p></dd></dl>
</section>
""")


def test_sphinx_api_objects_become_headings_below_their_section() -> None:
    page = checked(parse_html(SPHINX_API, page_url="api.html"))
    headings = [(b.level, b.title, b.anchor) for b in walk(page, "heading")]
    assert headings == [(2, "API", "api"), (3, "beacon.Client", "beacon.Client"),
                        (4, "status", "beacon.Client.status")]
    assert "### `class beacon.Client`" in page.markdown
    assert "#### `status(verbose)`" in page.markdown
    assert "`noindex`\n\nNot indexed." in page.markdown  # no id: a paragraph, not a section
    assert "*verbose*" not in page.markdown and "¶" not in page.markdown


SPHINX_NOTES = html_fixture("sphinx-notes", """
<p>TLS by default <a class="footnote-reference brackets" href="#id8" id="id4"
role="doc-noteref"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></a>.</p>
<aside class="footnote-list brackets">
<aside class="footnote brackets" id="id8" role="doc-footnote">
<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink"
href="#id4">1</a><span class="fn-bracket">]</span></span>
<p>The only exception is stdout.</p>
</aside></aside>
<div role="list" class="citation-list">
<div class="citation" id="rfc8996" role="doc-biblioentry">
<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink"
href="#id7">RFC8996</a><span class="fn-bracket">]</span></span>
<p>K. Moriarty, <em>Deprecating TLS 1.0</em>.</p>
</div></div>
<dl class="simple"><dt>glob<span class="classifier">pattern</span></dt><dd><p>A pattern.</p></dd>
</dl>
<ul class="simple"><li><p>one</p></li><li><p>two</p></li></ul>
""")


def test_sphinx_footnotes_citations_classifiers_and_simple_lists() -> None:
    page = checked(parse_html(SPHINX_NOTES, page_url="c.html"))
    assert page.markdown == (
        "TLS by default [^1].\n\n"
        "[^1]: The only exception is stdout.\n\n"
        "[^RFC8996]: K. Moriarty, *Deprecating TLS 1.0*.\n\n"
        "glob : pattern\n: A pattern.\n\n"
        "- one\n- two"
    )


def test_links_that_are_no_urls_are_kept_as_written() -> None:
    """`urlsplit` rejects `http://[x` (an open IPv6 bracket); the page must still parse (MkDocs
    itself fails on such a Markdown link, but raw HTML or another engine can carry one)."""
    page = parse_html('<p><a href="http://[x">open</a> <img src="https://[::1 y" alt="img"> '
                      '<a href="/ok">fine</a></p>', page_url="guide/")
    assert page.markdown == "[open](http://[x) ![img](https://[::1%20y) [fine](/ok)"


@pytest.mark.parametrize("tag", ["p", "h2", "h3", "h5"])
def test_a_rubric_is_a_paragraph_whatever_its_tag(tag: str) -> None:
    """Sphinx writes a rubric as `<p class="rubric">` in one build and as a heading tag in
    another: a rubric starts no section, so every build gives the same blocks."""
    def page_with(rubric: str) -> ParsedPage:
        return parse_html(f'<h2 id="usage">Usage</h2><p>Call it.</p><{rubric} class="rubric" '
                          f'id="r">Notes</{rubric}><p>Mind the rate.</p>')

    page, as_paragraph = page_with(tag), page_with("p")
    assert page == as_paragraph
    assert [block.kind for block in page.blocks] == ["heading", "paragraph", "paragraph",
                                                     "paragraph"]
    assert "Notes" in page.markdown and "## Notes" not in page.markdown


def _one_step_and_inline(tag: str, html: str, base_url: str | None) -> tuple[Any, str | None,
                                                                             Any]:
    """The first `tag` element of `html`, what `literal_run` writes for it (given `base_url`),
    and the `InlineText` that read it the general way (at the url, or "")."""
    from mdchunk.chunking.html.inline import InlineText, literal_run
    from mdchunk.chunking.html.parse import parse_tree

    root = parse_tree(f"<ul>{html}</ul>" if tag == "li" else html)
    assert root is not None
    element = next(root.iter(tag))
    inline = InlineText(base_url or "", [], 0)
    inline.content(element)
    return element, literal_run(element, base_url), inline


#: Pieces of running text: words, white space of every kind, and characters that may need an
#: escape (a bracket before `(`, a `*`, a `$`...).
_RUN_TEXT = st.lists(st.sampled_from(["a", "word", "x.y", "{s|t}", " ", "  ", "\n", "\t", "\xa0",
                                      "é", "1.", "#", "-", "[", "]", "](", "[^", "^", "(", "*", "_",
                                      "$", "`", "&amp;", "\\"]), max_size=5).map("".join)
#: A code element as the renderer writes them, and whether it is of text alone or left out:
#: text (possibly empty, a trailing newline, backticks), and now and then a permalink, a code
#: element with an attribute or a child, or emphasis.
_RUN_CODE = st.one_of(
    st.lists(st.sampled_from(["x", "a b", "`", "\n", " ", "f()"]), max_size=3).map(
        lambda parts: (f"<code>{''.join(parts)}</code>", True)),
    st.sampled_from([('<a class="headerlink" href="#h">¶</a>', True),  # (left out)
                     ('<code class="xref">x</code>', False),
                     ("<code><span>x</span></code>", False), ("<em>x</em>", False)]),
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["p", "li", "h2"]), _RUN_TEXT,
       st.lists(st.tuples(_RUN_CODE, _RUN_TEXT), max_size=4))
@example("p", "a ", [(("<code></code>", True), " b")])  # no space after a space
@example("li", "x ", [(("<code>a</code>", True), ""), (("<code>b\n</code>", True), " y")])  # `ab`
@example("p", "a[", [(("<code></code>", True), "^b]"), (("<code>c</code>", True), "]")])  # \\[^
def test_a_run_of_text_and_code_spans_is_written_as_inline_text_writes_it(
        tag: str, text: str, children: list[tuple[tuple[str, bool], str]]) -> None:
    """`literal_run`, the one-step paragraph (or heading) of text and code spans, writes what
    `InlineText` writes for the same element, and takes every such element whose text holds
    nothing that may need an escape."""
    from mdchunk.chunking.html.text import bare_title, title_text

    html = f"<{tag}>{text}{''.join(code + after for (code, _), after in children)}</{tag}>"
    element, written, inline = _one_step_and_inline(tag, html, None)
    if written is not None:
        assert written == inline.result()
        assert bare_title(element) == title_text(element)  # (a heading's title)
    bare = all(alone for (_, alone), _ in children)
    if bare and inline.literal:
        assert written is not None


#: A link as renderers write them (a target, or none, or a script), or emphasis, with text
#: that may need an escape or whitespace at its edges, and now and then a footnote reference,
#: a child or an attribute.
_RUN_LINK = st.one_of(
    st.tuples(st.sampled_from(["strong", "em", "strong", "em", "b"]), _RUN_TEXT).map(
        lambda mark: f"<{mark[0]}>{mark[1]}</{mark[0]}>"),
    st.tuples(st.sampled_from(["x.html", "../a/b.html#c", "#h", "", "javascript:f()",
                               "https://e.org/p q(1)"]), _RUN_TEXT).map(
        lambda link: f'<a href="{link[0]}">{link[1]}</a>'),
    st.tuples(st.sampled_from(["x.html", "#h", ""]), _RUN_CODE.map(lambda code: code[0]),
              st.sampled_from(["", " ", "a"])).map(
        lambda link: f'<a href="{link[0]}">{link[1]}{link[2]}</a>'),
    st.sampled_from(['<a class="footnote-ref" href="#fn:1">1</a>', '<a href="y"><em>z</em></a>',
                     '<a href="y" class="type">T</a>', '<a name="n"></a>',
                     '<em class="x">y</em>', "<strong><em>z</em></strong>"]),
)


@settings(max_examples=800, deadline=None)
@given(st.sampled_from(["p", "li"]), _RUN_TEXT,
       st.lists(st.tuples(st.one_of(_RUN_CODE.map(lambda code: code[0]), _RUN_LINK), _RUN_TEXT),
                max_size=4))
@example("p", "a ", [('<a href="x.html">b</a>', "]"), ('<a href="y.html">c</a>', "(d)")])
@example("p", "", [("<code>a</code>", ""), ('<a href="#h">b</a>', ""), ("<code>c</code>", "")])
@example("p", "a", [("<strong>b</strong>", " "), ("<strong>c</strong>", "")])  # `**b c**`
@example("p", "", [("<strong>b</strong>", ""), ("<em>c</em>", "d")])  # one delimiter run
@example("li", "x", [("<em>y.</em>", "z")])  # `*` would not close: `<em>`
@example("p", "a", [('<a href="x.html">\xa0</a>', "b")])  # a label of whitespace alone: no span
def test_a_run_with_links_is_written_as_inline_text_writes_it(
        tag: str, text: str, children: list[tuple[str, str]]) -> None:
    """`literal_run` given the page's url also takes links and emphasis of plain text, and
    writes what `InlineText` writes for the same element."""
    html = f"<{tag}>{text}{''.join(child + after for child, after in children)}</{tag}>"
    _, written, inline = _one_step_and_inline(tag, html, "https://site.example/guide/page/")
    if written is not None:
        assert written == inline.result()


def test_a_paragraph_with_links_of_plain_text_takes_the_one_step_path() -> None:
    """The commonest paragraphs with links or emphasis (plain text, code spans, links and
    emphasis of plain text) are written in one step, as `InlineText` writes them."""
    def written(html: str) -> tuple[str | None, str]:
        _, one_step, inline = _one_step_and_inline("p", html, "https://site.example/api/path/")
        return one_step, inline.result()

    one_step, general = written('<p>See <a href="../fs.html#open">the fs docs</a> and <a href='
                                '"../fs.html#open">fs.open()</a>, or <code>x</code> [1].</p>')
    assert one_step == general
    assert one_step == ("See [the fs docs](https://site.example/api/fs.html#open) and "
                       "[fs.open()](https://site.example/api/fs.html#open), or `x` [1].")
    assert written('<p>See <a href="x.html">the <code>fs</code> docs</a>.</p>')[0] is None
    one_step, general = written('<p>Calls <a href="fs.html#fs_open"><code>fs.open()</code></a> '
                                "<code>x</code>.</p>")
    assert one_step == general == (
        "Calls [`fs.open()`](https://site.example/api/path/fs.html#fs_open) `x`.")
    one_step, general = written("<p><strong>Stability:</strong> 2 - <em>Stable</em>. See "
                                '<a href="b.html">b</a>.</p>')
    assert one_step == general == (
        "**Stability:** 2 - *Stable*. See [b](https://site.example/api/path/b.html).")
