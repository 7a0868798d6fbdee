"""Rendered page HTML -> the page's Markdown, as blocks with exact offsets.

`parse_html` is the whole step; the chunker calls its two halves, `parse_tree` and
`convert_tree`, to time them apart. The flow, one module each, every module importing only
from those listed before it:

- `elements`: what the renderer knows of HTML elements: which are blocks, code or headings,
  and which never reach chunk text (permalinks, copy buttons, hidden parts, duplicates).
- `text`: the text of an element as the page shows it, a title on one line, and the text rules
  of Markdown (whitespace, code spans).
- `escape`: the backslashes that keep text plain text to a CommonMark reader (a `*` that
  would open emphasis, a `#` that would start a heading...), and only where it needs them.
- `parse`: the page body as an lxml tree (`parse_tree`), with a capped fallback for nesting
  too deep for libxml2.
- `writer`: the `MarkdownWriter`, which writes Markdown with line prefixes (list indents,
  quote markers) and records where each block starts and ends.
- `spans`: inline Markdown from leaves of text with their marks (emphasis, strong, links):
  spans nested, each emphasis given a delimiter a reader pairs as meant, text escaped.
- `inline`: `InlineText`, which reads the inline content of one paragraph, heading or table
  cell into leaves (emphasis, code spans, links, math, images).
- `layout`: how the HTML of each kind of block is laid out (a heading's anchor, a code
  block's `<pre>`, language and title, a table's rows, a tabbed set's labels and bodies...).
- `blocks`: the `BlockRenderer`, one pass over the tree that writes each block through the
  writer, its inline text through `InlineText`.

The Markdown round-trips: read by a CommonMark reader (with GFM tables and the extensions
mdchunk writes: footnotes, definitions, `$` math), it shows the text, emphasis, code and list
nesting of the HTML (tests/roundtrip.py compares the two). A table whose cells hold blocks (a
code block of several lines, a list) is written as HTML, with Markdown in its cells.

What the renderer understands: Python-Markdown core (toc ids and permalinks, tables,
footnotes, definition lists, attr_list), pymdownx and Material markup (highlight with and
without line numbers, superfences titles, admonition and details, tabbed sets, arithmatex,
task lists, md_in_html) and Sphinx's HTML (sections, headerlinks, highlight-LANG, math, API
object descriptions, docutils footnotes and citations).
"""

from __future__ import annotations

from urllib.parse import urljoin

from lxml.etree import _Element

from mdchunk.chunking.html.blocks import BlockRenderer, title_heading
from mdchunk.chunking.html.parse import parse_tree
from mdchunk.chunking.html.writer import MarkdownWriter, with_title
from mdchunk.chunking.model import ParsedPage

__all__ = ["convert_tree", "parse_html", "parse_tree"]


def parse_html(html: str, *, page_url: str = "", site_url: str = "", title: str = ""
               ) -> ParsedPage:
    """Turn a page's rendered body HTML into its Markdown and blocks.

    Never raises on bad input: unclosed tags, stray `</body>`, control characters and lone
    surrogates are repaired or dropped the way a browser would show the page.

    Arguments:
        html: The page body, as the engine rendered it (not the whole themed page).
        page_url: The page's url relative to the site root (`guide/install/`).
        site_url: The site's public url; links become absolute against it. Without it links
            become root-relative (`/guide/install/#linux`).
        title: The page title: a page without an H1 gets it as its first heading (themes show
            such a page's title outside the content they render).
    """
    return convert_tree(parse_tree(html), page_url=page_url, site_url=site_url, title=title)


def convert_tree(root: _Element | None, *, page_url: str = "", site_url: str = "",
                 title: str = "") -> ParsedPage:
    """The second half of `parse_html`: a tree from `parse_tree` as Markdown and blocks."""
    if root is None:
        return ParsedPage(markdown="", blocks=())
    site = site_url.rstrip("/") + "/" if site_url else "/"
    base = urljoin(site, page_url.lstrip("/"))
    writer = MarkdownWriter()
    BlockRenderer(writer, base).render_page(root)
    return with_title(writer.finish(), title_heading(title))
