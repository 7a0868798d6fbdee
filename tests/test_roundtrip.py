"""The page Markdown round-trips (issue 19, item 6): rendered back to HTML by a CommonMark
reader it shows the text, emphasis, code and list nesting of the HTML it came from, and so
does every chunk on its own. `tests/roundtrip.py` says how the two are compared.

The property is checked on generated HTML (hypothesis), on every page of the test corpora
(the example sites, built with MkDocs and Sphinx; the Node.js API docs, where installed),
and on small real sites that reproduce what real sites showed: mkautodoc signatures, Sphinx
type annotations, chunks that start inside a nested list, code blocks in table cells.
"""

from __future__ import annotations

import html as html_lib
import os
import shutil
import string
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from sphinx.cmd.build import build_main

from mdchunk import Chunker, ChunkOptions, PageInput
from mdchunk.chunking.html import parse_html
from tests.conftest import REPO, SiteBuilder, build_mkdocs
from tests.corpus import NODEJS_API, nodejs_site
from tests.roundtrip import (
    ChunkedPage,
    PageRecorder,
    check_chunks,
    chunked_page,
    compare_page,
    markdown_reader,
    problems,
)

# -- generated HTML -----------------------------------------------------------------------------

#: Words, and the characters that mean something to a Markdown reader.
TEXT = st.lists(
    st.one_of(
        st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=6),
        st.sampled_from([
            *"*_`[]()!<>&\\$~#|:-+=. ", "  ", "**", "__", "~~", "$5", "a_b", "2*3", "[x](y)",
            "![i](s)", "<b>", "&amp;", "\\*", "# ", "- ", "1. ", "> ", "---", "===", "[x]: y",
            ": ", "[^1]", "`x`", "$x$", "<http://x>", "\u00a0", "\u201c", "\u2014"]),
    ),
    min_size=1, max_size=6,
).map("".join)
INLINE_TAGS = ["em", "strong", "code", "a", "del", "i", "b", "span"]


@st.composite
def inline_html(draw: st.DrawFn, depth: int = 0) -> str:
    """Inline HTML: text, and emphasis, code and links nested in each other and side by
    side (`<em>a</em><em>b</em>`)."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["text", "text", "tag", "br"] if depth < 3 else ["text"]))
        if kind == "text":
            parts.append(html_lib.escape(draw(TEXT), quote=False))
        elif kind == "br":
            parts.append("<br>")
        else:
            tag = draw(st.sampled_from(INLINE_TAGS))
            inner = (html_lib.escape(draw(TEXT), quote=False) if tag == "code"
                     else draw(inline_html(depth + 1)))
            attributes = ' href="x/y.html"' if tag == "a" else ""
            parts.append(f"<{tag}{attributes}>{inner}</{tag}>")
    return "".join(parts)


@st.composite
def block_html(draw: st.DrawFn, depth: int = 0) -> str:
    """One block: a heading, paragraph, list (nested), quote, code block, table or
    definition list."""
    kinds = ["p", "p", "pre", "table", "dl"]
    if depth < 3:
        kinds += ["ul", "ol", "blockquote"]
    if depth == 0:
        kinds.append("h")
    kind = draw(st.sampled_from(kinds))
    if kind == "p":
        return f"<p>{draw(inline_html())}</p>"
    if kind == "h":
        level = draw(st.integers(1, 4))
        return f'<h{level} id="h{draw(st.integers(0, 99))}">{draw(inline_html())}</h{level}>'
    if kind == "pre":  # (a code line starting `: ` after a definition list would make the
        # line before it a term to markdown-it: its deflist plugin consults no other rule)
        code = (draw(TEXT) + "\n" + draw(TEXT)).replace(":", ";").replace("~", "-")
        return f"<pre><code>{html_lib.escape(code)}</code></pre>"
    if kind == "table":
        return draw(table_html(depth))
    if kind == "dl":
        return f"<dl><dt>{draw(inline_html())}</dt><dd>{draw(inline_html())}</dd></dl>"
    if kind == "blockquote":
        return f"<blockquote>{draw(blocks_html(depth + 1))}</blockquote>"
    items = []
    for _ in range(draw(st.integers(1, 4))):
        body = (draw(inline_html()) if draw(st.booleans())
                else draw(blocks_html(depth + 1)))
        if "<dl>" in body:  # (markdown-it takes `- term` after a definition list for one
            body = "<p>item</p>" + body  # more term of it)
        items.append(f"<li>{body}</li>")
    return f"<{kind}>{''.join(items)}</{kind}>"


@st.composite
def table_html(draw: st.DrawFn, depth: int) -> str:
    """A table whose cells hold inline content, or blocks (a code block, a list)."""
    width = draw(st.integers(1, 3))
    rows = []
    for row in range(draw(st.integers(1, 3))):
        cells = []
        for _ in range(width):
            content = draw(st.one_of(
                inline_html(),
                st.builds(lambda code: f"<pre>{html_lib.escape(code)}</pre>", TEXT),
                st.builds(lambda a, b: f"<pre>{html_lib.escape(a)}\n{html_lib.escape(b)}</pre>",
                          TEXT, TEXT),
                st.builds(lambda a, b: f"<ul><li>{a}</li><li>{b}</li></ul>",
                          inline_html(), inline_html()),
            ))
            tag = "th" if row == 0 else "td"
            cells.append(f"<{tag}>{content}</{tag}>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table>{''.join(rows)}</table>"


@st.composite
def blocks_html(draw: st.DrawFn, depth: int = 0) -> str:
    return "\n".join(draw(st.lists(block_html(depth), min_size=1, max_size=3)))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(blocks_html())
@example("<p>0</p>\n<p>[[^1]:0</p>")  # a label with an escaped bracket is still a definition
@example("<p>0</p>\n<p>\\\xa0<em><br>0</em></p>")  # a backslash, then white space a break trims
def test_generated_html_round_trips(html: str) -> None:
    assert compare_page(html, parse_html(html).markdown) == ""


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(block_html(), min_size=2, max_size=8).map("\n".join))
@example("<p>0</p>\n<ul><li><blockquote><p>0</p>\n<ol><li><p>0</p></li><li><p><em>0A0A~~0A0A"
         "<br>00</em></p></li><li>0</li></ol></blockquote></li></ul>")  # a marker keeps its words
def test_generated_chunks_round_trip(html: str) -> None:
    chunker = Chunker(ChunkOptions(max_tokens=24, min_tokens=1))
    result = chunker.chunk_page(PageInput(html=html, source_path="p.md", url="p/", title="P"))
    page = chunked_page("p/", html, result)
    assert check_chunks(page.markdown, page.spans, page.prose) == ""


# -- the test corpora ---------------------------------------------------------------------------


def _inline_chunking(config_file: Path, **options: Any) -> Path:
    """`config_file` with mdchunk chunking in the build's own process (so that `PageRecorder`
    sees every page), without its page cache, with `options`."""
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    plugins: list[Any] = []
    for entry in config.get("plugins", []):
        if entry == "mdchunk" or (isinstance(entry, dict) and "mdchunk" in entry):
            given_options = (entry["mdchunk"] if isinstance(entry, dict) else None) or {}
            plugins.append({"mdchunk": {**given_options, "workers": 0, "cache": False,
                                        **options}})
        else:
            plugins.append(entry)
    config["plugins"] = plugins
    config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
    return config_file


def built_mkdocs(config_file: Path, **options: Any) -> list[ChunkedPage]:
    """Build an MkDocs site with mdchunk (`options`); return the pages it chunked."""
    with PageRecorder() as pages:
        build_mkdocs(_inline_chunking(config_file, **options))
    return pages


def built_sphinx(source: Path, out: Path) -> list[ChunkedPage]:
    """Build a Sphinx project (`-j 1`) on one core; return the pages mdchunk chunked.

    On one core mdchunk chunks every page in the build's own process, where `PageRecorder`
    sees it (Sphinx has no `workers` option: with a second core free, a build slowed down by
    a loaded machine would start a worker part way and the recorder would miss the rest)."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if cores is not None:
        os.sched_setaffinity(0, {min(cores)})
    try:
        with PageRecorder() as pages:
            code = build_main(["-q", "-b", "html", "-j", "1", str(source), str(out)])
    finally:
        if cores is not None:
            os.sched_setaffinity(0, cores)
    assert code == 0
    return pages


@pytest.mark.parametrize("max_tokens", [512, 96])
@pytest.mark.parametrize("config", ["mkdocs.yml", "mkdocs-material.yml"])
def test_example_mkdocs_site_round_trips(example_site: Path, config: str,
                                         max_tokens: int) -> None:
    # (the material configuration inherits its plugins from mkdocs.yml)
    _inline_chunking(example_site / "mkdocs.yml", max_tokens=max_tokens)
    with PageRecorder() as pages:
        build_mkdocs(example_site / config)
    assert len(pages) >= 10
    assert problems(pages) == []


@pytest.mark.parametrize("max_tokens", [512, 96])
def test_example_sphinx_project_round_trips(tmp_path: Path, max_tokens: int) -> None:
    source = tmp_path / "src"
    shutil.copytree(REPO / "example-site" / "sphinx", source,
                    ignore=shutil.ignore_patterns("_build"))
    with (source / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(f"\nmdchunk_max_tokens = {max_tokens}\n")
    pages = built_sphinx(source, tmp_path / "out")
    assert len(pages) >= 10
    assert problems(pages) == []


@pytest.mark.slow
@pytest.mark.skipif(not any(NODEJS_API.glob("*.md")),
                    reason=f"the Node.js API docs are not installed at {NODEJS_API}")
@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_nodejs_api_docs_round_trip(tmp_path: Path, theme: str) -> None:
    config = nodejs_site(tmp_path, theme=theme, plugins=["mdchunk"])
    assert config is not None
    pages = built_mkdocs(config)
    assert len(pages) >= 60
    assert problems(pages) == []


# -- small real sites, one for each kind of page that did not round-trip ---------------------

#: mkautodoc's HTML, as httpx's API page has it (raw HTML in the Markdown source): parameters in
#: `<em>`, the keyword-only marker a parameter of its own.
MKAUTODOC_PAGE = """\
# API

<div class="autodoc">
<div class="autodoc-signature"><code>httpx.<strong>request</strong></code><span \
class="autodoc-punctuation">(</span><em class="autodoc-param">method</em><span \
class="autodoc-punctuation">, </span><em class="autodoc-param">url</em><span \
class="autodoc-punctuation">, </span><em class="autodoc-param">*</em><span \
class="autodoc-punctuation">, </span><em class="autodoc-param">params=None</em><span \
class="autodoc-punctuation">, </span><em class="autodoc-param">**kwargs</em><span \
class="autodoc-punctuation">)</span></div>
<div class="autodoc-docstring"><p>Sends an HTTP request.</p></div>
</div>

<p><code>def f(</code><em>*</em>args<code>)</code> takes <em>*args</em> and <em>**kw</em>.</p>
"""


def test_mkautodoc_signatures_round_trip(make_site: SiteBuilder) -> None:
    with PageRecorder() as pages:
        make_site({"index.md": MKAUTODOC_PAGE}, plugin={"workers": 0, "cache": False})
    [page] = pages
    assert problems(pages) == []
    assert "***" not in page.markdown
    assert ("`httpx.request`(*method*, *url*, *\\**, *params=None*, *\\*\\*kwargs*)"
            in page.markdown)
    # Emphasis around a `*` right before a word: no `*` delimiter can close there.
    assert "`def f(`<em>\\*</em>args`)` takes *\\*args* and *\\*\\*kw*." in page.markdown


HOOKS_MODULE = '''\
"""Hooks."""
from collections.abc import Callable


def register(name: str, hooks: list[Callable[[str], int]] | None = None, *args: int,
             **options: dict[str, int | None]) -> dict[str, list[int]]:
    """Register hooks under a name.

    :param name: The name.
    :param hooks: The hooks to call, in order.
    :param args: Positions.
    :param options: Settings by hook.
    :returns: The hooks by name.
    """
    return {}
'''
HOOKS_CONF = """\
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
project = "Hooks"
extensions = ["sphinx_mdchunk", "sphinx.ext.autodoc"]
autodoc_typehints = "description"
"""


def test_sphinx_type_annotations_round_trip(tmp_path: Path) -> None:
    # autodoc sets each part of a type in an <em> of its own: <em>list</em><em>[</em>...
    source = tmp_path / "src"
    source.mkdir()
    (source / "hooks.py").write_text(HOOKS_MODULE, encoding="utf-8")
    (source / "conf.py").write_text(HOOKS_CONF, encoding="utf-8")
    (source / "index.rst").write_text("API\n===\n\n.. automodule:: hooks\n   :members:\n",
                                      encoding="utf-8")
    pages = built_sphinx(source, tmp_path / "out")
    assert problems(pages) == []
    [page] = pages
    assert "- **hooks** (*list[Callable[[str], int]] | None*) \u2013 The hooks" in page.markdown
    assert "- **options** (*dict[str, int | None]*) \u2013 Settings by hook." in page.markdown
    assert "**[" not in page.markdown


#: attrs' API page: a list nested in an item, long enough to be cut with a small budget.
NESTED_LIST_PAGE = "# API\n\n## attrs.define\n\nThe decorator takes:\n\n" + (
    "- Options that change the methods written for the class:\n\n" + "\n".join(
        f"    - `{name}`: {text}" for name, text in [
            ("these", "Whether to collect the attributes from the class body, in order."),
            ("repr_ns", "The namespace shown in the repr, for classes inside functions."),
            ("eq", "Create an equality method that compares instances as tuples."),
            ("order", "Create ordering methods that compare instances as tuples."),
            ("frozen", "Make instances immutable: setting one raises FrozenInstanceError."),
            ("slots", "Create a slotted class, faster and smaller but fixed."),
        ]) + "\n\n- Options that change nothing but the repr.\n")


def test_chunks_starting_inside_a_nested_list_keep_its_nesting(
        make_site: SiteBuilder) -> None:
    with PageRecorder() as pages:
        make_site({"index.md": NESTED_LIST_PAGE},
                  plugin={"workers": 0, "cache": False, "max_tokens": 64, "min_tokens": 8})
    [page] = pages
    assert problems(pages) == []
    inside = [page.markdown[start:end] for start, end in page.spans
              if page.markdown[start:end].startswith("  - `")]
    assert len(inside) >= 2
    for text in inside:  # on its own, one list of sibling items
        html = markdown_reader().render(text)
        assert html.count("<ul>") == 1 and html.count("<li>") == text.count("\n  - ") + 1


#: MyST-Parser's syntax reference: code in table cells, on one line and on several.
RAW_HTML_TABLES_PAGE = """\
# Syntax

<table>
<thead><tr><th>Syntax</th><th>Example</th></tr></thead>
<tbody>
<tr><td>Strong</td><td><pre><code>**strong**</code></pre></td></tr>
<tr><td>A block</td><td><pre><code>```python
print("hi")
```</code></pre></td></tr>
</tbody>
</table>

<table>
<tr><th>Syntax</th><th>Example</th></tr>
<tr><td>Emphasis</td><td><pre><code>*emphasis*</code></pre></td></tr>
</table>
"""


def test_code_in_raw_html_table_cells_round_trips(make_site: SiteBuilder) -> None:
    with PageRecorder() as pages:
        make_site({"index.md": RAW_HTML_TABLES_PAGE}, plugin={"workers": 0, "cache": False})
    [page] = pages
    assert problems(pages) == []
    # Code of several lines: an HTML table, the code a fenced block in its cell.
    assert "<td>\n\n````\n```python\nprint(\"hi\")\n```\n````\n\n</td>" in page.markdown
    assert "<td>\n\n```\n**strong**\n```\n\n</td>" in page.markdown
    # Code of one line alone: a pipe table, the code a code span.
    assert "| Emphasis | `*emphasis*` |" in page.markdown


MYST_ROLES_PAGE = """\
# Roles

```{list-table}
:header-rows: 1

* - Syntax
  - Result
* - ```md
    **strong**
    ```
  - **strong**
* - ```md
    {sub}`H{sub}`2`O`
    and more
    ```
  - H<sub>2</sub>O
```

```{list-table}
:header-rows: 1

* - Syntax
  - Result
* - ```md
    *emphasis*
    ```
  - *emphasis*
```
"""


def test_code_in_myst_table_cells_round_trips(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        'project = "Roles"\nextensions = ["sphinx_mdchunk", "myst_parser"]\n', encoding="utf-8")
    (source / "index.md").write_text(MYST_ROLES_PAGE, encoding="utf-8")
    pages = built_sphinx(source, tmp_path / "out")
    assert problems(pages) == []
    [page] = pages
    assert "<td>\n\n```md\n**strong**\n```\n\n</td>\n<td>\n\n**strong**\n\n</td>" in page.markdown
    assert "```md\n{sub}`H{sub}`2`O`\nand more\n```" in page.markdown
    assert "| `*emphasis*` | *emphasis* |" in page.markdown


# -- footnotes: `[^label]: text`, as a footnote reader expects them ----------------------------

#: A note referred to twice (its HTML has links back to both places), one of two paragraphs,
#: and one referred to once.
FOOTNOTES_MD = """\
# Notes

A claim[^1], another[^long] and the first again[^1].

[^1]: The *first* note.
[^long]: A longer note.

    With a second paragraph.
"""
FOOTNOTES_RST = """\
Cited
=====

A claim [#a]_, again [#a]_ and a numbered note [1]_.

.. [#a] An auto-numbered note.
.. [1] A numbered note.
"""


def footnote_definitions(markdown: str) -> list[str]:
    """The lines that open a footnote, as the page Markdown has them."""
    return [line for line in markdown.splitlines() if line.startswith("[^")]


def link_references(markdown: str) -> dict[str, Any]:
    """The link reference definitions a CommonMark reader that knows no footnotes finds (such
    a reader took `[^1]: ([1](#a),[2](#b))` for a link to the whole list)."""
    env: dict[str, Any] = {}
    MarkdownIt("commonmark").parse(markdown, env)
    return dict(env.get("references", {}))


def test_mkdocs_footnotes_read_as_footnotes(make_site: SiteBuilder) -> None:
    """Python-Markdown's footnotes (the `footnotes` extension): each `[^label]: text`, without
    the links back to the text (`↩`), and the page still round-trips."""
    with PageRecorder() as pages:
        site = make_site({"index.md": FOOTNOTES_MD}, plugin={"workers": 0, "cache": False})
    assert problems(pages) == []
    markdown = (site / "index.html.md").read_text(encoding="utf-8")
    assert footnote_definitions(markdown) == ["[^1]: The *first* note.",
                                              "[^long]: A longer note."]
    assert "\n\n    With a second paragraph." in markdown
    assert "\u21a9" not in markdown and link_references(markdown) == {}


def test_sphinx_footnotes_read_as_footnotes(tmp_path: Path) -> None:
    """docutils' footnotes (MyST and reST alike): a note referred to twice has its links back
    in a `backrefs` span; the Markdown has the note's text alone after `[^label]: `."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        'project = "Notes"\nextensions = ["sphinx_mdchunk", "myst_parser"]\n', encoding="utf-8")
    (source / "index.md").write_text(FOOTNOTES_MD + "\n```{toctree}\ncited\n```\n", "utf-8")
    (source / "cited.rst").write_text(FOOTNOTES_RST, encoding="utf-8")
    pages = built_sphinx(source, tmp_path / "out")
    assert problems(pages) == []
    myst = (tmp_path / "out" / "index.html.md").read_text(encoding="utf-8")
    assert footnote_definitions(myst) == ["[^1]: The *first* note.", "[^2]: A longer note."]
    assert "A claim[^1], another[^2] and the first again[^1]." in myst
    rst = (tmp_path / "out" / "cited.html.md").read_text(encoding="utf-8")
    assert footnote_definitions(rst) == ["[^2]: An auto-numbered note.", "[^1]: A numbered note."]
    for markdown in (myst, rst):
        assert "](/" not in markdown.split("\n[^", 1)[1], "a link back in a note"
        assert link_references(markdown) == {}
