# ruff: noqa: RUF001 - CJK, Hebrew and full-width punctuation are the point
"""Fuzzing the core: random heading trees, blocks and raw HTML through `Chunker.chunk_page`.

Every generated page must keep the per-page invariants of `tests.invariants` (chain, offsets,
atomic blocks, exact tokens). CI runs a bounded number of examples; a longer run:

    MDCHUNK_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/hostile/test_fuzz.py

Crashes found are kept in `tests/hostile/corpus/*.html` and replayed by `test_corpus`.
"""

from __future__ import annotations

import html as html_lib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk import Chunker, ChunkOptions, PageInput
from mdchunk.outputs.profiles.native import native_records
from tests.invariants import (
    check_atomic_blocks,
    check_chain,
    check_headings,
    check_offsets,
    check_tokens,
    count_tokens,
)

EXAMPLES = int(os.environ.get("MDCHUNK_FUZZ_EXAMPLES", "60"))
CORPUS = Path(__file__).parent / "corpus"
MAX_TOKENS = 64
CHUNKER = Chunker(ChunkOptions(max_tokens=MAX_TOKENS, min_tokens=8), counter=count_tokens,
                  processed_at="2023-11-14T22:13:20Z")
#: The whole test's time limit grows with the examples (a hang is caught by it; a slow example
#: by hypothesis's deadline, which reports the example).
LIMIT = pytest.mark.limit(max(30.0, EXAMPLES * 0.5))
FUZZ = settings(max_examples=EXAMPLES, deadline=10_000, derandomize=EXAMPLES <= 200,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Words from many scripts, with sentence ends, markup characters and invisible characters.
WORD = st.one_of(
    st.sampled_from(["alpha", "beta", "word", "x", "Über", "日本語", "中文。", "真的？", "好！",
                     "ภาษาไทย", "שלום", "مرحبا", "🎉", "a.", "b!", "c?", "`tick`", "*star*",
                     "_under_", "#hash", "|pipe|", "[link]", "<lt>", "&amp;", "\\", "```",
                     "$$", "---", "1.", "-", ">", "\u200b", "\ufeff", "\x00", "\x1b", "\ud800",
                     "\u202e"]),
    st.text(min_size=1, max_size=12),
)
TEXT = st.lists(WORD, min_size=0, max_size=40).map(" ".join)
ESCAPED = TEXT.map(html_lib.escape)
IDS = st.one_of(st.none(), st.sampled_from(["a", "a", "dup", "ünï", "日本", "x y", "1"]),
                st.text(min_size=0, max_size=8))


def _heading(level: int, text: str, anchor: str | None) -> str:
    attribute = f' id="{html_lib.escape(anchor, quote=True)}"' if anchor is not None else ""
    return f"<h{level}{attribute}>{text}</h{level}>"


HEADING = st.builds(_heading, st.integers(1, 6), ESCAPED, IDS)
PARAGRAPH = ESCAPED.map(lambda text: f"<p>{text}</p>")
CODE = st.builds(
    lambda lang, lines: f'<pre><code class="language-{lang}">'
    + html_lib.escape("\n".join(lines)) + "</code></pre>",
    st.sampled_from(["python", "text", "x"]),
    st.lists(st.text(max_size=40), max_size=60),
)
TABLE = st.builds(
    lambda rows: "<table><tr><th>h</th><th>k</th></tr>" + "".join(
        f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows) + "</table>",
    st.lists(st.tuples(ESCAPED, ESCAPED), max_size=12),
)
MATH = ESCAPED.map(lambda tex: f'<div class="arithmatex">\\[{tex}\\]</div>')
RAW = st.lists(st.sampled_from([
    "<div>", "</div>", "<p>", "</p>", "<b>", "</i>", "<ul><li>", "</li>", "<ol><li>",
    "<blockquote>", "</blockquote>", "<table><tr><td>", "</table>", "<pre>", "</pre>", "<code>",
    "<script>SCRIPTMARKER</script>", "<style>STYLEMARKER</style>", "<script>", "<!--", "-->",
    "<h2>", "</h2>", '<h3 id="r">', "<a href='#x'>", "</a>", "<br>", "<hr>", "</body>",
    "</html>", "<html>", "<![CDATA[", "]]>", "<?pi?>", "<", ">", "&", "&#0;", "&#xD800;",
    "<img src=x>", "<details><summary>s</summary>", '<div class="admonition note">',
    "text", "more text.", "\x00", "\r\n",
]), max_size=30).map("".join)


def _nested(depth: int, kind: str, inner: str) -> str:
    opening, closing = {"ul": ("<ul><li>", "</li></ul>"), "quote": ("<blockquote>",
                        "</blockquote>"), "div": ("<div>", "</div>")}[kind]
    return opening * depth + inner + closing * depth


NESTED = st.builds(_nested, st.integers(1, 80), st.sampled_from(["ul", "quote", "div"]),
                   PARAGRAPH)
LIST = st.lists(ESCAPED, min_size=1, max_size=10).map(
    lambda items: "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
BLOCK = st.one_of(PARAGRAPH, PARAGRAPH, HEADING, HEADING, CODE, TABLE, MATH, LIST, NESTED, RAW)
PAGE = st.lists(BLOCK, max_size=25).map("\n".join)


def check_page(html: str) -> list[dict[str, Any]]:
    """Chunk one page and check every per-page invariant; return its records."""
    result = CHUNKER.chunk_page(PageInput(html=html, source_path="fuzz/page.md",
                                          url="fuzz/page/", title="Fuzz"))
    records = list(native_records(result))
    json.dumps(records, ensure_ascii=False).encode("utf-8")  # valid UTF-8, no lone surrogate
    if not records:
        assert not result.markdown.strip()
        return records
    check_chain(records)
    check_offsets(records, result.markdown)
    check_atomic_blocks(records, result.markdown)
    check_headings(records, result.markdown, MAX_TOKENS)
    # `<![CDATA[` outside SVG/MathML is a bogus comment up to the next `>`: it can eat a
    # `<script` and show its content as text, in browsers too (corpus/cdata-eats-script.html).
    scripts_intact = "<![CDATA[" not in html
    for record in records:
        check_tokens(record, MAX_TOKENS)
        if scripts_intact:
            assert "SCRIPTMARKER" not in record["originalText"]
            assert "STYLEMARKER" not in record["originalText"]
    return records


@LIMIT
@FUZZ
@given(PAGE)
def test_random_pages_keep_the_invariants(html: str) -> None:
    check_page(html)


@LIMIT
@FUZZ
@given(st.lists(st.tuples(st.integers(1, 6), TEXT, st.lists(PARAGRAPH, max_size=3)),
                max_size=30))
def test_random_heading_trees_keep_the_invariants(tree: list[tuple[int, str, list[str]]]
                                                   ) -> None:
    html = "\n".join(f"<h{level}>{html_lib.escape(title)}</h{level}>" + "".join(body)
                     for level, title, body in tree)
    records = check_page(html)
    titled = [title for _, title, _ in tree if any(c.isalnum() for c in title)]
    if titled:
        assert records


@LIMIT
@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text_as_html(text: str) -> None:
    check_page(text)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.html")), ids=lambda path: path.stem)
def test_corpus(path: Path) -> None:
    """Pages that once crashed the core (or broke an invariant) stay fixed."""
    check_page(path.read_text(encoding="utf-8"))
