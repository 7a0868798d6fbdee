"""The retrieval benchmark's own parts (benchmarks/retrieval.py), on a small site built here.

Queries, gold sections, the location of chunks in the page text, the metrics and the bootstrap
are checked on a real MkDocs build with the plugin; BM25 ranks real chunks. No chunker library
and no model is imported; the tests that need the `bench` extra's bm25s or numpy skip without
them.
"""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest
import yaml

from benchmarks.retrieval import (
    ANCHOR_BUILD,
    Bm25,
    Chunks,
    budget_rows,
    budget_setting,
    build_corpus,
    chunk_corpus,
    mdchunk_chunks,
    score_chunks,
    shuffled,
    token_windows,
    widened,
)
from benchmarks.scoring import PairedBootstrap, Retrieved, is_hit, score_query, within_budget
from benchmarks.sections import (
    LINK_REMOVED,
    WRITTEN,
    Query,
    extract_queries,
    load_site,
    plain,
    resolve,
    sentences,
)
from benchmarks.spans import EXACT, SPACES, UNLOCATED, WORDS, locate_chunks
from mdchunk.chunking.tokens import load_encoding
from tests.conftest import build_mkdocs

PAGES = {
    "index.md": """\
        # Home

        Start with [the queue settings](setup.md#queues) before you run anything in production.
        See [Retries](retries.md#retry-policy).

        Our [own overview](#home) and [the setup page](setup.md) are not sections of another
        page, and neither is [the project site](https://example.org/#top).
        A [broken anchor](setup.md#no-such-heading) points at no heading.

        ```
        Code holds no query: [Retries](retries.md#retry-policy) stays code.
        ```
        """,
    "setup.md": """\
        # Setup

        ## Queues

        Each queue has a name and a priority. Higher priorities run first.

        ### Queue limits

        A queue may cap how many of its tasks run at once.

        ## Workers

        Workers take tasks off the queues; retried tasks follow the
        [retry policy](retries.md#retry-policy) of their queue.
        """,
    "retries.md": """\
        # Retries

        ## Retry policy

        A failed task is tried again three times, after a delay that doubles each time.

        ## Dead letters

        Tasks out of retries go to the dead queue.
        """,
}
SITE_URL = "https://docs.example/"


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site above, built once with every heading its own chunk (the benchmark's anchor
    build)."""
    folder = tmp_path_factory.mktemp("retrieval")
    for name, text in PAGES.items():
        (folder / "docs").mkdir(exist_ok=True)
        (folder / "docs" / name).write_text(textwrap.dedent(text), encoding="utf-8")
    config = {"site_name": "Queue docs", "site_url": SITE_URL, "docs_dir": "docs",
              "site_dir": "site", "plugins": [{"mdchunk": ANCHOR_BUILD}]}
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return build_mkdocs(folder / "mkdocs.yml")


def by_text(queries: list, variant: str) -> dict[str, object]:
    return {query.text: query for query in queries if query.variant == variant}


def test_links_to_sections_of_other_pages_become_queries(site_dir: Path) -> None:
    site = load_site(site_dir)
    queries, counts = extract_queries(site)
    written = by_text(queries, WRITTEN)
    removed = by_text(queries, LINK_REMOVED)
    assert set(written) == {
        "Start with the queue settings before you run anything in production.",
        "See Retries.",
        "Workers take tasks off the queues; retried tasks follow the retry policy of their queue.",
    }
    # The link text removed; "See" alone is under 4 words: no link-removed query.
    assert set(removed) == {
        "Start with before you run anything in production.",
        "Workers take tasks off the queues; retried tasks follow the of their queue.",
    }
    assert counts["link-removed sentences under 4 words (skipped)"] == 1
    assert counts["links to a section of the same page"] == 1
    assert counts["links to an anchor that is not a heading"] == 1
    assert counts["links to a section of another page"] == 3
    query = written["Start with the queue settings before you run anything in production."]
    assert (query.page, query.target_page, query.anchor) == ("", "setup/", "queues")


def test_gold_is_the_section_down_to_the_next_heading_of_its_level(site_dir: Path) -> None:
    site = load_site(site_dir)
    queries, _ = extract_queries(site)
    golds = {query.anchor: site.pages[query.target_page].markdown[slice(*query.gold)]
             for query in queries}
    queues = golds["queues"]
    assert queues.startswith("## Queues\n")
    assert "### Queue limits" in queues  # a deeper section belongs to it
    assert queues.endswith("how many of its tasks run at once.")
    assert "Workers" not in queues
    policy = golds["retry-policy"]
    assert policy.startswith("## Retry policy")
    assert policy.endswith("doubles each time.")


def test_every_heading_gets_its_anchor_from_the_records(site_dir: Path) -> None:
    page = load_site(site_dir).pages["setup/"]
    assert {slug: heading.title for slug, heading in page.anchors.items()} == {
        "setup": "Setup", "queues": "Queues", "queue-limits": "Queue limits",
        "workers": "Workers"}


def test_relative_links_resolve_against_the_page(site_dir: Path) -> None:
    site = load_site(site_dir)
    assert resolve("../retries/#dead-letters", "setup/", site) == ("retries/", "dead-letters")
    assert resolve(f"{SITE_URL}setup/#queues", "", site) == ("setup/", "queues")
    assert resolve("https://example.org/setup/#queues", "", site) is None
    assert resolve("../retries/", "setup/", site) is None


def test_sentences_are_not_cut_inside_links_or_code() -> None:
    line = "Use [`os.path.join()`](x.md#a) here. Then `a. b` runs! Done"
    assert [line[a:b].strip() for a, b in sentences(line)] == [
        "Use [`os.path.join()`](x.md#a) here.", "Then `a. b` runs!", "Done"]
    assert plain("- See **[the guide](g.md#x)** and `code`.") == "See the guide and code."


def test_chunks_are_located_in_the_page_text(site_dir: Path) -> None:
    page = load_site(site_dir).pages["setup/"].markdown
    section = page[page.index("## Workers"):].strip()
    respaced = section.replace("\n", "  \n ")
    rewritten = section.replace("(retries.md#retry-policy)", "").replace("[", "").replace("]", "")
    found = locate_chunks(page, ["## Queues", respaced, rewritten, "nothing like this page"])
    assert [where.how for where in found] == [EXACT, SPACES, WORDS, UNLOCATED]
    assert page[found[0].start:found[0].end] == "## Queues"
    assert page[found[1].start:found[1].end] == section
    assert page[found[2].start:found[2].end] == section


def test_fixed_windows_cover_the_page_at_token_boundaries() -> None:
    encoding = load_encoding("cl100k_base")
    text = "Chunking along the heading tree. " * 40
    spans = token_windows(text, 16, encoding)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert all(len(encoding.encode_ordinary(text[a:b])) <= 16 for a, b in spans)


def chunk(page: str, start: int, end: int, tokens: int = 100) -> Retrieved:
    return Retrieved(page, start, end, tokens, end - start)


def test_hit_needs_half_of_the_shorter_span() -> None:
    gold = (100, 300)
    assert is_hit(chunk("p", 150, 250), "p", gold)  # inside the section
    assert is_hit(chunk("p", 0, 1000), "p", gold)  # holds the whole section
    assert is_hit(chunk("p", 200, 400), "p", gold)  # half of both
    assert not is_hit(chunk("p", 250, 450), "p", gold)  # a quarter of the chunk
    assert not is_hit(chunk("q", 150, 250), "p", gold)  # another page
    assert not is_hit(Retrieved("p", -1, -1, 10, 50), "p", gold)  # unlocated


def test_metrics_of_a_hand_made_ranking() -> None:
    gold = (100, 300)
    ranked = [chunk("q", 0, 200), chunk("p", 100, 200), chunk("p", 200, 300),
              chunk("p", 500, 700), chunk("q", 300, 400), chunk("p", 0, 100)]
    scores = score_query(ranked, "p", gold, budget=250)
    assert scores["Hit@1"] == 0.0
    assert scores["Hit@5"] == 1.0
    assert scores["MRR@10"] == 0.5
    assert scores["R@5"] == 1.0  # ranks 2 and 3 hold the whole section
    assert scores["P@5"] == pytest.approx(200 / 700)  # 700 characters, 200 in the section
    # 250 tokens: the first two chunks whole and half of the third.
    assert [c.end for c in within_budget(ranked, 250)] == [200, 200, 250]
    assert scores["Hit@1k"] == 1.0
    assert scores["R@1k"] == pytest.approx(150 / 200)
    assert scores["P@1k"] == pytest.approx(150 / 350)
    missed = score_query([chunk("q", 0, 200)] * 3, "p", gold)
    assert missed == {metric: 0.0 for metric in missed}


def test_paired_bootstrap() -> None:
    pytest.importorskip("numpy", reason="the bootstrap resamples with numpy (the bench extra)")
    better = {"a": [1.0, 1.0, 0.0, 1.0] * 25, "b": [1.0, 0.0] * 10}
    worse = {"a": [0.0, 1.0, 0.0, 0.0] * 25, "b": [0.0, 0.0] * 10}
    bootstrap = PairedBootstrap({"a": 100, "b": 20}, resamples=500, seed=1)
    point, low, high = bootstrap.interval(better, worse)
    assert point == pytest.approx((0.5 + 0.5) / 2)  # macro: each corpus weighs the same
    assert 0 < low < point < high < 1
    assert bootstrap.interval(better, better) == (0.0, 0.0, 0.0)
    assert PairedBootstrap({"a": 100, "b": 20}, resamples=500, seed=1).interval(
        better, worse) == (point, low, high)


def test_bm25_leaves_the_query_page_out_and_a_broken_chunker_scores_lower(
        tmp_path: Path) -> None:
    pytest.importorskip("bm25s", reason="BM25 ranks with bm25s (the bench extra)")
    corpus = build_corpus("handbook", tmp_path, {"default": {}, budget_setting(64): {
        "max_tokens": 64}}, 512)
    assert corpus is not None
    encoding = load_encoding("cl100k_base")
    written = [query for query in corpus.queries if query.variant == WRITTEN]
    assert len(written) >= 10
    mdchunk = mdchunk_chunks("mdchunk", corpus.records["default"], "embedText",
                             lambda text: len(encoding.encode_ordinary(text)))
    ranked = Bm25().rank(mdchunk, written)
    for query, order in zip(written, ranked, strict=True):
        assert order and all(mdchunk.items[index].page != query.page for index in order)
    good = score_chunks(mdchunk, written, ranked)
    broken = shuffled(mdchunk)
    bad = score_chunks(broken, written, Bm25().rank(broken, written))
    assert sum(good["Hit@1"]) > 2 * sum(bad["Hit@1"])
    fixed = chunk_corpus(corpus, ["fixed"], 512, encoding, [])
    assert [chunks.name for chunks in fixed] == [
        "mdchunk embedText", "mdchunk originalText", "mdchunk embedText + sections",
        "mdchunk embedText, duplicates dropped", "fixed", "shuffled (mdchunk embedText)"]
    assert fixed[4].located[EXACT] == len(fixed[4].items)
    # Every chunker at other budgets too, named by theirs: smaller chunks, more of them.
    sized = chunk_corpus(corpus, ["fixed"], 512, encoding, [], other_budgets=[512, 64])
    assert [chunks.name for chunks in sized[4:7]] == [
        "mdchunk embedText 64", "fixed", "fixed 64"]
    for small, large in ((sized[4], sized[0]), (sized[6], sized[5])):
        assert len(small.items) > len(large.items)
    assert max(item.tokens for item in sized[6].items) <= 64
    scores = {chunks.name: {"handbook": {"Hit@1": [0.0]}} for chunks in sized}
    assert list(budget_rows(scores, 64, 512)) == ["mdchunk embedText 64", "fixed 64"]
    assert list(budget_rows(scores, 512, 512)) == ["mdchunk embedText", "fixed"]
    # Each chunk knows its section, from the build's sections.jsonl.
    widening = fixed[2]
    assert widening.sections is not None and all(widening.sections)
    for item, section in zip(widening.items, widening.sections, strict=True):
        assert section is not None and section.page == item.page
        assert section.start <= item.start and item.end <= section.end


def test_small_to_big_hands_over_sections_that_fit_the_budget() -> None:
    items = [chunk("p", 0, 100, 40), chunk("p", 100, 200, 40), chunk("q", 0, 50, 20),
             chunk("p", 300, 400, 40)]
    sections = [chunk("p", 0, 250, 90), chunk("p", 0, 250, 90), chunk("q", 0, 2000, 900),
                None]
    chunks = Chunks("widened", ["a", "b", "c", "d"], items, sections=sections)
    handed = widened(chunks, [0, 1, 2, 3], budget=150)
    # The first chunk's section fits: handed over whole; the second lies in it: left out;
    # the third's section is larger than what is left: the chunk itself; the fourth has none.
    assert handed == [sections[0], items[2], items[3]]
    scores = score_chunks(chunks, [Query("x", WRITTEN, "q", "p", "a", (120, 240))], [[0, 1, 2]])
    assert scores["R@1k"] == [1.0]


def test_duplicates_can_be_left_out_of_mdchunk_chunks() -> None:
    record = {"charOffsets": {"charStart": 0, "charEnd": 4}, "originalText": "text",
              "embedText": "Page\n\ntext", "id": "doc:a::ch0", "duplicateOf": None}
    copy = {**record, "id": "doc:b::ch0",
            "duplicateOf": {"id": "doc:a::ch0", "kind": "exact", "similarity": 1.0}}
    records = {"a/": [record], "b/": [copy]}
    assert len(mdchunk_chunks("all", records, "embedText", len).items) == 2
    kept = mdchunk_chunks("kept", records, "embedText", len, drop_duplicates=True)
    assert [item.page for item in kept.items] == ["a/"]
