"""Packing rules and invariants, over pages rendered by the real Python-Markdown."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mdchunk import Chunk, Chunker, ChunkOptions, OptionError, PageChunks, PageInput, parse_html
from mdchunk.chunking.markdown_text import links_as_text
from mdchunk.chunking.model import Block
from mdchunk.options import BOUNDED_FIELDS
from tests.conftest import SiteBuilder
from tests.helpers import chunk_page, render
from tests.invariants import (
    check_atomic_blocks,
    check_chain,
    check_headings,
    check_offsets,
    check_tokens,
    count_tokens,
)

#: The title of the pages `chunk_page` makes: their first heading when they do not open with
#: an H1.
TITLE = "Page"


def records(result: PageChunks) -> list[dict[str, object]]:
    return [c.as_native() for c in result.chunks]


def check_page(result: PageChunks, max_tokens: int) -> None:
    native = records(result)
    check_chain(native)
    check_offsets(native, result.markdown)
    check_atomic_blocks(native, result.markdown)
    check_headings(native, result.markdown, max_tokens)
    for record in native:
        check_tokens(record, max_tokens)


# -- generated pages -------------------------------------------------------------------------

WORDS = st.sampled_from(
    ["agent", "buffer", "sink", "the", "records", "of", "a", "checkpoint", "`code`", "**bold**",
     "*em*", "[link](other.md)", "$x^2$", "über", "数据", "日志。", "x" * 30, "1.5", "e.g.",
     "—", "(note)", "\u03b1", "🚀"]
)
SENTENCE = st.lists(WORDS, min_size=1, max_size=25).map(lambda ws: " ".join(ws) + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=8).map(" ".join)
HEADING = st.tuples(st.integers(1, 6), st.lists(WORDS, min_size=1, max_size=12)).map(
    lambda pair: "#" * pair[0] + " " + " ".join(pair[1])
)
CODE = st.tuples(
    st.sampled_from(["python", "bash", "", "yaml"]),
    st.lists(st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=40),
             min_size=1, max_size=60),
).map(lambda pair: f"```{pair[0]}\n" + "\n".join(
    line.replace("`", "'") for line in pair[1]) + "\n```")
TABLE = st.tuples(st.integers(1, 4), st.integers(1, 25)).map(
    lambda shape: "\n".join(
        ["| " + " | ".join(f"h{c}" for c in range(shape[0])) + " |",
         "|" + "---|" * shape[0]]
        + ["| " + " | ".join(f"cell {r} {c} value" for c in range(shape[0])) + " |"
           for r in range(shape[1])]
    )
)
MATH = st.integers(1, 30).map(
    lambda n: "$$\n" + " + ".join(f"\\frac{{a_{i}}}{{b_{i}}}" for i in range(n)) + "\n$$"
)
LIST = st.lists(SENTENCE, min_size=1, max_size=12).map(
    lambda items: "\n".join(f"- {item}" for item in items)
)
NESTED_LIST = st.lists(st.tuples(SENTENCE, st.lists(SENTENCE, max_size=3)), min_size=1,
                       max_size=5).map(
    lambda items: "\n".join(
        f"1. {top}\n" + "".join(f"    - {sub}\n" for sub in subs) for top, subs in items
    )
)
ADMONITION = PARAGRAPH.map(lambda text: f'!!! note "Heads up"\n    {text}\n\n    {text}')
QUOTE = st.lists(PARAGRAPH, min_size=1, max_size=3).map(
    lambda paragraphs: "\n>\n".join(f"> {p}" for p in paragraphs)
)
BLOCK = st.one_of(HEADING, HEADING, PARAGRAPH, PARAGRAPH, CODE, TABLE, MATH, LIST, NESTED_LIST,
                  ADMONITION, QUOTE)
DOCUMENT = st.lists(BLOCK, min_size=0, max_size=25).map("\n\n".join)
OPTIONS = st.fixed_dictionaries({
    "max_tokens": st.integers(24, 400),
    "split_level": st.integers(1, 4),
})


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT, options=OPTIONS, min_ratio=st.sampled_from([0, 0.1, 0.3]))
def test_generated_pages_keep_every_invariant(text: str, options: dict[str, int],
                                              min_ratio: float) -> None:
    min_tokens = int(options["max_tokens"] * min_ratio)
    result = chunk_page(text, min_tokens=min_tokens, **options)
    check_page(result, options["max_tokens"])
    html_ids = _ids(render(text))
    for c in result.chunks:
        assert not c.section_slug or c.section_slug in html_ids
    _check_item_boundaries(result, render(text), options["max_tokens"])


TEMPLATES = st.sampled_from(["{context}\n\n{text}", "{text}", "[{breadcrumb}] {url}\n{text}",
                             "{text}\n\n({context})", "{section}: {text}"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT, max_tokens=st.integers(24, 400), template=TEMPLATES,
       bounds=st.sampled_from(BOUNDED_FIELDS))
def test_the_budget_bounds_what_is_embedded(text: str, max_tokens: int, template: str,
                                            bounds: str) -> None:
    """`max_tokens_bounds: embedText` (the default): every chunk's embedText, whatever the
    template, fits max_tokens unless it is flagged (an atomic block, or a context line over
    half the budget). `originalText`: the text alone fits, and the chunks are those of a
    template that adds nothing."""
    result = chunk_page(text, max_tokens=max_tokens, min_tokens=max_tokens // 10,
                        embed_template=template, max_tokens_bounds=bounds)
    check_page(result, max_tokens)
    for c in result.chunks:
        bounded = c.embed_tokens if bounds == "embedText" else c.tokens
        assert bounded <= max_tokens or c.flags.allow_oversize
    if bounds == "originalText":
        alone = chunk_page(text, max_tokens=max_tokens, min_tokens=max_tokens // 10,
                           embed_template="{text}")
        assert spans(result) == spans(alone)


def spans(result: PageChunks) -> list[tuple[int, int]]:
    return [(c.char_start, c.char_end) for c in result.chunks]


def test_the_context_line_counts_in_the_budget_by_default() -> None:
    words = " ".join(f"word{i}" for i in range(400))  # (no sentence end: cut between words)
    text = (f"# Guide\n\nIntro of the guide, long enough to stand as a chunk.\n\n"
            f"## Install\n\n{words}")
    embedded = chunk_page(text, max_tokens=100, min_tokens=0)
    original = chunk_page(text, max_tokens=100, min_tokens=0, max_tokens_bounds="originalText")
    assert max(c.embed_tokens for c in embedded.chunks) <= 100
    assert max(c.embed_tokens for c in original.chunks) > 100  # the context line on top
    assert max(c.tokens for c in original.chunks) <= 100
    assert embedded.chunks[1].as_native()["metadata"]["chunkingOptions"][
        "max_tokens_bounds"] == "embedText"


def test_a_context_line_over_half_the_budget_keeps_half_and_is_flagged() -> None:
    title = " ".join(["alpha"] * 12)
    text = f"# {title}\n\n## {title}\n\n### {title}\n\n{LONG}"
    result = chunk_page(text, max_tokens=64, min_tokens=0, split_level=3)
    deep = [c for c in result.chunks if len(c.header_path) == 3]
    assert deep and all(c.embed_tokens - c.tokens > 32 for c in deep)  # the context line
    assert all(c.tokens <= 32 for c in deep)
    flagged = [c for c in result.chunks if c.flags.allow_oversize]
    assert flagged and all(c.flags.oversize_reason == "context_integrity" for c in flagged)
    check_page(result, 64)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT, overlap=st.integers(1, 12), mode=st.sampled_from(["metadata", "text"]))
@example(  # a context line over half the budget, and a text overlap: the text keeps half
    text="# " + " ".join(["agent"] * 10) + "\n\n## " + " ".join(["agent"] * 7) + " 日志。 agent "
         "agent $x^2$ agent\n\n" + "agent. " * 6 + " ".join(["agent"] * 8) + " 日志。.",
    overlap=8, mode="text")
def test_overlap_keeps_every_invariant(text: str, overlap: int, mode: str) -> None:
    result = chunk_page(text, max_tokens=64, min_tokens=8, overlap_tokens=overlap,
                        overlap_mode=mode)
    check_page(result, 64)
    for previous, current in itertools.pairwise(result.chunks):
        if mode == "metadata":
            assert current.char_start >= previous.char_end  # text never duplicated
            assert current.previous_content is not None
            assert count_tokens(current.previous_content) <= overlap
            assert previous.text.endswith(current.previous_content)
            assert previous.next_content is not None and current.text.startswith(
                previous.next_content)
        elif current.flags.has_overlap_previous:
            shared = result.markdown[current.char_start:previous.char_end]
            assert count_tokens(shared) <= overlap + 1
            assert previous.flags.has_overlap_next


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT)
def test_chunking_is_deterministic(text: str) -> None:
    with mock.patch.dict(os.environ, {"SOURCE_DATE_EPOCH": "1700000000"}):
        first = records(chunk_page(text, max_tokens=96))
        second = records(chunk_page(text, max_tokens=96))
    assert first == second


def _ids(html: str) -> set[str]:
    import lxml.html

    if not html.strip():
        return set()
    return set(lxml.html.fragment_fromstring(html, create_parent="div").xpath("//@id"))


def _check_item_boundaries(result: PageChunks, html: str, max_tokens: int) -> None:
    """A chunk may end inside a list item or a heading (and the next one start there) only
    when the item does not fit the text budget of the chunk that cuts it, together with what
    that chunk holds before it (the headings and lead-ins that lead it): max_tokens less the
    tokens its embed template adds (at most half of max_tokens). With the default template that
    is its context line, what embedText holds before the chunk's text as embedded (links as
    their text), and at most one more title for each heading the chunk starts with (it was
    packed within the budget of its deepest section)."""
    parsed = parse_html(html, page_url=result.url, site_url="https://example.org/", title=TITLE)
    assert parsed.markdown == result.markdown
    text = parsed.markdown
    budgets = [_text_budget(c, parsed.blocks, max_tokens) for c in result.chunks]
    for block in parsed.walk():
        if block.kind not in {"item", "heading"}:
            continue
        # (a chunk that starts with a nested item holds its indentation too)
        line = text.rfind("\n", 0, block.start) + 1
        start = line if not text[line:block.start].strip(" ") else block.start
        for number, c in enumerate(result.chunks):
            if block.start < c.char_start < block.end:  # the chunk before ends inside it too
                assert number and block.start < result.chunks[number - 1].char_end, (c.id, block)
            if block.start < c.char_end < block.end:
                held = count_tokens(text[min(start, c.char_start):block.end])
                assert held > budgets[number], (c.id, block)


def _text_budget(c: Chunk, blocks: Sequence[Block], max_tokens: int) -> int:
    embedded = links_as_text(c.text)
    assert c.embed_text.endswith("\n\n" + embedded)
    context = count_tokens(c.embed_text[: len(c.embed_text) - len(embedded)])
    for block in blocks:  # the headings the chunk starts with, after its own
        if block.start <= c.char_start:
            continue
        if block.kind != "heading" or block.start >= c.char_end:
            break
        context += count_tokens(" > " + block.title) + 1
    return max_tokens - min(context, max_tokens // 2)


# -- the rules, one by one -------------------------------------------------------------------

LONG = " ".join(f"Sentence number {i} talks about buffers and sinks." for i in range(60))


def titles(result: PageChunks) -> list[tuple[str, ...]]:
    return [c.header_path for c in result.chunks]


def test_h2_always_starts_a_chunk_and_h3_stays_with_its_parent() -> None:
    result = chunk_page(
        "# T\n\nIntro text long enough to stand alone as the title chunk of the page "
        "with more words.\n\n## A\n\nAlpha.\n\n### A1\n\nAlpha one.\n\n## B\n\nBeta.",
        max_tokens=200, min_tokens=0, split_level=2)
    assert titles(result) == [("T",), ("T", "A"), ("T", "B")]
    assert result.chunks[1].sub_headers == ("A1",)


def test_deeper_sections_are_packed_separately_when_the_subtree_is_too_big() -> None:
    text = f"## A\n\nAlpha.\n\n### A1\n\n{LONG}\n\n### A2\n\nShort two."
    result = chunk_page(text, title="", max_tokens=120, min_tokens=0)
    paths = titles(result)
    assert paths[0] == ("A",)
    assert ("A", "A2") in paths
    assert all(len(c.text) for c in result.chunks)
    assert sum(path == ("A", "A1") for path in paths) >= 4  # the long section, by sentences
    assert not any(c.flags.forced_split for c in result.chunks)


def test_split_level_one_keeps_h2_with_the_page_when_it_fits() -> None:
    result = chunk_page("# T\n\nIntro.\n\n## A\n\nAlpha.\n\n## B\n\nBeta.", split_level=1,
                        min_tokens=0)
    assert titles(result) == [("T",)]
    assert result.chunks[0].sub_headers == ("A", "B")


def test_lone_title_joins_the_first_section() -> None:
    result = chunk_page("# Title\n\n## First\n\nBody of the first section.\n\n## Second\n\nMore.",
                        min_tokens=20)
    first = result.chunks[0]
    assert first.text.startswith("# Title\n\n## First")
    assert first.header_path == ("Title",)
    assert first.section_slug == "title"


def test_preamble_is_never_merged() -> None:
    result = chunk_page("Just a line.\n\n## A\n\nShort.", title="", min_tokens=40)
    assert [c.header_path for c in result.chunks] == [(), ("A",)]
    assert result.chunks[0].url == "guide/page/"


def test_small_chunks_merge_left_within_their_section() -> None:
    text = f"## A\n\n{LONG}\n\nTiny tail."
    result = chunk_page(text, max_tokens=150, min_tokens=30)
    assert not result.chunks[-1].text.startswith("Tiny") or count_tokens(
        result.chunks[-1].text) >= 30
    assert result.chunks[-1].text.endswith("Tiny tail.")


def test_small_chunks_never_merge_across_split_level_sections() -> None:
    result = chunk_page("## A\n\nAlpha.\n\n## B\n\nBeta.", title="", min_tokens=100)
    assert titles(result) == [("A",), ("B",)]
    assert not any(c.flags.small_chunk for c in result.chunks)  # H2 is structurally strong


def test_weak_small_chunk_is_flagged() -> None:
    result = chunk_page("Preamble words.\n\n#### Deep\n\nTiny.", title="", min_tokens=40)
    flagged = [c for c in result.chunks if c.flags.small_chunk]
    assert flagged and all(c.flags.small_chunk_reason == "cannot_merge" for c in flagged)


def test_a_chunk_of_headings_alone_is_weak_and_flagged_small() -> None:
    """Seed 000's small_chunk: under min_tokens, no neighbour to merge with, structurally
    weak. A chunk of headings alone (a section with no body) is weak at any level; an H2 with
    its brief text is not."""
    result = chunk_page("## Empty\n\n## Next\n\nShort.", title="", min_tokens=40)
    assert [c.text for c in result.chunks] == ["## Empty", "## Next\n\nShort."]
    assert [c.flags.small_chunk for c in result.chunks] == [True, False]
    assert result.chunks[0].flags.small_chunk_reason == "cannot_merge"


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ("```python\n" + "\n".join(f"value_{i} = compute({i}, 'x')" for i in range(80)) + "\n```",
         "code_block_integrity"),
        ("| a | b |\n|---|---|\n" + "\n".join(f"| row {i} | value {i} |" for i in range(80)),
         "table_integrity"),
        ("$$\n" + " + ".join(f"\\frac{{x_{i}}}{{y_{i}}}" for i in range(80)) + "\n$$",
         "equation_integrity"),
    ],
)
def test_atomic_blocks_larger_than_the_budget_are_one_flagged_chunk(block: str,
                                                                    reason: str) -> None:
    result = chunk_page(f"## A\n\nBefore.\n\n{block}\n\nAfter.", max_tokens=64, min_tokens=0)
    oversize = [c for c in result.chunks if c.tokens > 64]
    assert len(oversize) == 1
    assert oversize[0].flags.allow_oversize and oversize[0].flags.oversize_reason == reason
    check_page(result, 64)


def test_a_list_splits_between_items() -> None:
    items = "\n".join(f"- Item {i} explains one more option of the agent." for i in range(40))
    result = chunk_page(f"## Options\n\n{items}", title="", max_tokens=80, min_tokens=0)
    assert len(result.chunks) > 3
    for c in result.chunks[1:]:
        assert c.text.startswith("- Item")


LEAD_INS = st.lists(st.tuples(st.sampled_from(["Markup:", "Builders:", "Other changes:"]),
                              st.lists(SENTENCE, min_size=1, max_size=12)), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=LEAD_INS, max_tokens=st.integers(48, 300), heading=st.booleans())
def test_a_lead_in_stays_with_its_nested_list(items: list[tuple[str, list[str]]],
                                             max_tokens: int, heading: bool) -> None:
    """An item's lead-in line (`- Markup:`) never ends a chunk: it starts the chunk that holds
    the start of its nested list, whose items may be cut between them at any depth."""
    text = ("## Changes\n\n" if heading else "") + "\n".join(
        f"- {lead}\n\n" + "".join(f"    - {line}\n" for line in lines) for lead, lines in items)
    result = chunk_page(text, max_tokens=max_tokens, min_tokens=max_tokens // 10)
    check_page(result, max_tokens)
    for c in result.chunks:
        last = c.text.rsplit("\n", 1)[-1]
        assert last.removeprefix("- ") not in {lead for lead, _ in items}, c.id


def test_a_list_nested_deeper_than_the_budget_is_cut_at_any_depth() -> None:
    """Every level leads the next (one line each), the deepest holds the text: the chunks
    keep the budget, and one that starts deep in the list starts at its item's marker."""
    text = "# Deep\n\n" + "".join("    " * depth + f"- Level {depth} of the list.\n"
                                  for depth in range(12)) + "    " * 12 + f"- {LONG}\n"
    result = chunk_page(text, max_tokens=64, min_tokens=0)
    check_page(result, 64)
    assert all(c.embed_tokens <= 64 for c in result.chunks)
    assert len(result.chunks) > 10
    assert result.chunks[0].text.startswith("# Deep\n\n- Level 0")  # (the heading, led on)
    assert any(c.text.startswith("- Level ") for c in result.chunks[1:])


def test_sentence_without_end_is_split_between_words_and_flagged() -> None:
    words = " ".join(f"word{i}" for i in range(400))
    result = chunk_page(f"## A\n\n{words}", max_tokens=50, min_tokens=0)
    assert all(c.tokens <= 50 for c in result.chunks)
    assert any(c.flags.forced_split for c in result.chunks)
    check_page(result, 50)


def test_a_heading_is_never_cut_between_its_words() -> None:
    heading = "# 0a0a 0a\u00e90a 0a0000 0a0a0a"
    sentence = " ".join(f"w{i}" for i in range(60)) + "."
    result = chunk_page(f"{heading}\n\n{sentence} {sentence}", max_tokens=24, split_level=1,
                        min_tokens=0)
    assert result.chunks[0].text == heading
    check_page(result, 24)


def test_text_overlap_prefixes_the_previous_tail() -> None:
    result = chunk_page(f"## A\n\n{LONG}", title="", max_tokens=100, min_tokens=0,
                        overlap_tokens=20, overlap_mode="text")
    second = result.chunks[1]
    assert second.flags.has_overlap_previous and result.chunks[0].flags.has_overlap_next
    assert second.char_start < result.chunks[0].char_end
    assert all(c.tokens <= 100 for c in result.chunks)


def test_presets_fill_options_that_are_not_set() -> None:
    adr = ChunkOptions.validated({"preset": "adr"})
    assert (adr.max_tokens, adr.min_tokens, adr.split_level) == (1024, 50, 2)
    assert (adr.overlap_tokens, adr.overlap_mode) == (100, "text")
    assert ChunkOptions.validated({"preset": "adr", "max_tokens": 800}).max_tokens == 800
    assert ChunkOptions.validated({"preset": "minimal", "max_tokens": None}).max_tokens == 128
    assert ChunkOptions.validated({"max_tokens": None}).max_tokens == 512
    with pytest.raises(OptionError, match="option 'preset': must be one of code-heavy"):
        ChunkOptions.validated({"preset": "huge"})


def test_adr_preset_overlaps_only_parts_of_a_split_section() -> None:
    # (A in three parts or more: the page title may join its first part, in its own section)
    text = f"# Doc\n\n## A\n\n{LONG} {LONG} {LONG} {LONG}\n\n## B\n\nShort section of text."
    result = chunk_page(text, preset="adr")
    overlapped = [c for c in result.chunks if c.flags.has_overlap_previous]
    assert overlapped and all(c.header_path[-1] == "A" for c in overlapped)
    assert not result.chunks[-1].flags.has_overlap_previous  # a new section: no overlap
    check_page(result, 1024)


CODE_SECTION = "## Code\n\n```python\n" + "\n".join(
    f"value_{i} = compute({i})" for i in range(150)) + "\n```"
PROSE_SECTION = f"## Prose\n\n{LONG}"


def test_adaptive_sizing_gives_complex_sections_larger_budgets() -> None:
    result = chunk_page(f"{CODE_SECTION}\n\n{PROSE_SECTION}", title="",
                        adaptive_sizing={"base_size": 200, "min_scale": 0.5, "max_scale": 2.0},
                        min_tokens=10)
    code = next(c for c in result.chunks if c.header_path == ("Code",))
    prose = next(c for c in result.chunks if c.header_path == ("Prose",))
    assert code.adaptive is not None and prose.adaptive is not None
    assert code.adaptive[0] > 0.8
    assert prose.adaptive[0] < 0.3
    assert code.max_tokens > 200 > prose.max_tokens
    assert code.max_tokens == round(200 * code.adaptive[1])
    for c in result.chunks:
        assert c.tokens <= c.max_tokens or c.flags.allow_oversize
    native = code.as_native()["adaptiveSizing"]
    assert native == {"contentComplexity": code.adaptive[0],
                      "sizeScaleFactor": code.adaptive[1], "adaptiveSize": code.max_tokens}
    assert chunk_page(PROSE_SECTION).chunks[0].as_native()["adaptiveSizing"] is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCUMENT, base=st.integers(40, 300))
def test_adaptive_sizing_keeps_every_invariant(text: str, base: int) -> None:
    result = chunk_page(text, adaptive_sizing={"base_size": base}, min_tokens=5)
    native = records(result)
    check_chain(native)
    check_offsets(native, result.markdown)
    check_atomic_blocks(native, result.markdown)
    check_headings(native, result.markdown, base)
    for c, record in zip(result.chunks, native, strict=True):
        check_tokens(record, c.max_tokens)
        assert c.max_tokens == round(base * c.adaptive[1]) or c.max_tokens == 16


def test_embed_template_and_context() -> None:
    result = chunk_page("## Install\n\nRun it.", title="",
                        embed_template="[{breadcrumb}] {url}\n{text}")
    assert result.chunks[0].embed_text == "[Install] guide/page/#install\n## Install\n\nRun it."
    # (the context line starts with the page title, also where the page's H1 is another)
    default = chunk_page("# Setup\n\nSet it up.\n\n## Install\n\nRun it.", min_tokens=0).chunks[1]
    assert default.embed_text == "Page > Setup > Install\n\n## Install\n\nRun it."


LINKED = """\
## Install

Read [the queue settings](setup.md#queues) and [`fs.readFile()`](api.md#read) first; \
![the logo](logo.png) shows it.

```
See [Retries](retries.md) in code: it stays a link.
```

`[a](b)` stays code, and [Home](index.md)."""


def test_links_read_as_their_text_in_embed_text_by_default() -> None:
    """`embed_links: text` (the default): embedText has each link's text and each image's alt
    text, without their urls, and code as it is; originalText and the spans are untouched,
    and embedTokens is the exact count of embedText. `markdown` keeps the links."""
    linked = chunk_page(LINKED).chunks[0]
    assert "](" in linked.text and "https://example.org/guide/page/setup.md#queues" in linked.text
    assert linked.embed_text == (  # (the page has no H1: its title is its first heading)
        "Page\n\n# Page\n\n## Install\n\n"
        "Read the queue settings and `fs.readFile()` first; the logo shows it.\n\n"
        "```\nSee [Retries](retries.md) in code: it stays a link.\n```\n\n"
        "`[a](b)` stays code, and Home.")
    assert linked.embed_tokens == count_tokens(linked.embed_text) < linked.tokens + 10
    kept = chunk_page(LINKED, embed_links="markdown").chunks[0]
    assert kept.embed_text == "Page\n\n" + kept.text
    assert (kept.char_start, kept.char_end, kept.text) == (
        linked.char_start, linked.char_end, linked.text)
    assert kept.embed_tokens == count_tokens(kept.embed_text) > linked.embed_tokens
    assert linked.as_native()["metadata"]["chunkingOptions"]["embed_links"] == "text"
    with pytest.raises(OptionError, match="embed_links"):
        chunk_page(LINKED, embed_links="plain")


@pytest.mark.parametrize(("markdown_text", "expected"), [
    ("[a](u) [b](<v w>) [c](x(y)z \"title\") [d](e 'f')", "a b c d"),
    ("[![alt](i.png)](https://u)", "alt"),
    ("[](empty) and [ref][] and <https://auto.link>", " and [ref][] and <https://auto.link>"),
    ("\\[not](a) but [yes](u)", "\\[not](a) but yes"),
    ("- [x](y)\n  ```\n  [in](code)\n  ```\n- [z](w)", "- x\n  ```\n  [in](code)\n  ```\n- z"),
    ("~~~\n[a](b)\n~~~\n[c](d)", "~~~\n[a](b)\n~~~\nc"),
    ("```js `x`\n[a](b)", "```js `x`\na"),  # (backticks after ``` open no fence)
])
def test_links_as_text(markdown_text: str, expected: str) -> None:
    assert links_as_text(markdown_text) == expected


#: Pieces of running text that links, images and code spans are made of, with the characters
#: around them that decide whether they are any (a backslash, a bracket, a backtick).
_LINK_PIECES = st.lists(st.sampled_from(
    ["[", "]", "(", ")", "![", "](", "\\", "`", "``", "<", ">", " ", "\n", "\t", '"', "'",
     "a", "b c", "[a](u)", "![i](v.png)", "[`x`](w \"t\")", "`[a](b)`", "[![i](p)](q)"]),
    max_size=24).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_LINK_PIECES)
@example("\\![a](b) \\[c](d) [e](f)")
@example("```[a](b)`` `` `[c](d)` ```")
def test_links_regex_reads_the_text_as_its_plain_form_does(prose: str) -> None:
    """The regex `links_as_text` rewrites prose with (each alternative written to start with
    its first character, so that the engine skips to the next candidate) finds and rewrites
    what its plain form does: a code span, or a link or image not after a backslash."""
    import re

    from mdchunk.chunking import markdown_text

    tail = markdown_text._LINK_TAIL
    plain = re.compile(r"(?P<code>(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`))"
                       r"|(?<!\\)!?\[(?P<label>" + tail, re.S)
    expected = plain.sub(lambda found: found.group("code") or found.group("label"), prose)
    assert markdown_text._LINK_OR_CODE.sub(markdown_text._read_as, prose) == expected


def test_record_fields_follow_seed_002() -> None:
    result = chunk_page(
        "# Guide\n\nIntro paragraph.\n\n## Install\n\nText.\n\n## Use\n\nMore text.",
        min_tokens=0)
    native = records(result)
    assert [r["id"] for r in native] == [f"doc:guide/page::ch{i}" for i in range(len(native))]
    second = native[1]
    assert second["parentId"] == "doc:guide/page"
    assert second["headerPath"] == ["Guide", "Install"]
    assert second["headerBreadcrumb"] == "Guide > Install"
    assert second["headerDepths"] == [1, 2]
    assert second["headerSlugs"] == ["guide", "install"]
    assert second["sectionSlug"] == "install" and second["sectionTitle"] == "Install"
    assert second["url"] == "guide/page/#install"
    assert second["contentType"] == "doc"
    assert second["tokenStats"]["estimatedTokens"] == -(-len(second["originalText"]) // 4)
    assert set(second["metadata"]) >= {"sourceFile", "processedAt", "chunkingOptions",
                                       "pipeline"}
    assert isinstance(result.chunks[1], Chunk)


def test_running_text_is_cut_after_sentences_not_after_abbreviations(make_site: SiteBuilder
                                                                     ) -> None:
    """A paragraph larger than the budget is cut between sentences; a full stop that closes an
    abbreviation (`e.g.`) or an initial (`J.`) ends no sentence, so no chunk ends there (the
    page summary in `llms.txt` follows the same rule)."""
    sentence = "Pick a tool, e.g. a hammer or a saw, from the shelf that J. Doe keeps in order. "
    site = make_site({"index.md": f"# Tools\n\n{sentence * 24}\n"},
                     plugin={"max_tokens": 60, "min_tokens": 0})
    lines = (site / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["originalText"] for line in lines]
    assert len(texts) > 4
    assert all(text.endswith("keeps in order.") for text in texts), texts
    assert f"(index.md): {sentence.strip()} (" in (site / "llms.txt").read_text(encoding="utf-8")


def test_a_chunked_page_leaves_no_reference_cycles() -> None:
    """Chunking a page leaves nothing for the cycle collector: the page's heading tree, its
    blocks and its pieces are freed as soon as the page is done (a cycle would keep them in
    memory, and each collection would walk them, until the collector runs)."""
    import gc

    text = "# T\n\nIntro.\n\n## A\n\n" + LONG + "\n\n### A1\n\n- x\n- y\n\n## B\n\n```\ncode\n```"
    page = PageInput(html=render(text), source_path="guide/page.md", url="guide/page/",
                     title="T")
    chunker = Chunker(ChunkOptions(max_tokens=120, min_tokens=0))
    chunker.chunk_page(page)  # (the counter and the converter loaded)
    gc.collect()
    gc.disable()
    try:
        result = chunker.chunk_page(page)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert len(result.chunks) > 3 and len(result.sections) == 5
    assert unreachable == 0
