"""Duplicate chunks: found over the whole site when a build finishes, marked in the native
index with the first occurrence, and left out of the embedding formats with `duplicates:
drop`; the rules of `mdchunk.outputs.duplicates` on generated texts."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdchunk.chunking import PageInput
from mdchunk.cli import main
from mdchunk.options import ChunkOptions
from mdchunk.outputs.duplicates import (
    NEAR_THRESHOLD,
    SKETCH_SIZE,
    ChunkPrint,
    chunk_print,
    find_duplicates,
    find_duplicates_in,
    normalized,
    shingles,
    similarity,
    sketch,
)
from mdchunk.session.builder import IndexBuilder
from mdchunk.settings import BuildSettings
from tests.conftest import SiteBuilder
from tests.helpers import read_jsonl
from tests.invariants import Index, check_index
from tests.test_sections import PAGES, SNIPPET, build_with_snippets

# -- the rules --------------------------------------------------------------------------------


def words(count: int, start: int = 0) -> str:
    return " ".join(f"word{i}" for i in range(start, start + count))


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from([*"ab AB1 .\n\t", "é", "ß", "ﬁ", "\ud800", "数"]),
                    max_size=300))
def test_a_print_is_the_sketch_of_the_shingles_of_the_normalised_text(text: str) -> None:
    """`chunk_print` hashes each shingle's UTF-8, built from words encoded once: the same
    hashes as the definition (`sketch` of `shingles`), lone surrogates included."""
    made = chunk_print("id", text)
    assert made.sketch == sketch(shingles(normalized(text)))
    assert ChunkPrint.from_json(made.as_json()) == made


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_the_words_of_ascii_text_are_the_words_of_the_definition(text: str) -> None:
    """ASCII text, whose words `chunk_print` splits out of its bytes, has the same print as
    the definition's, whatever its punctuation, `_` and control characters."""
    assert chunk_print("id", text).sketch == sketch(shingles(normalized(text)))


def test_exact_duplicates_compare_normalised_text() -> None:
    texts = {"a": "## Setup\n\nRun  the\ttool.", "b": "Other text.",
             "c": "## SETUP\n\nRun the tool.  \n", "d": "## Setup\n\nRun the tool."}
    prints = [chunk_print(name, text) for name, text in texts.items()]
    marks = find_duplicates(prints)
    assert {key: (mark.of, mark.kind, mark.similarity) for key, mark in marks.items()} == {
        "c": ("a", "exact", 1.0), "d": ("a", "exact", 1.0)}
    assert normalized("\uff21  b\n\tC") == "a b c"  # (a fullwidth A)


def test_near_duplicates_meet_the_threshold() -> None:
    base = words(100)
    one_word = base.replace("word99", "changed")  # 1 of 96 shingles differs: 95 / 97
    ten_words = words(90) + " " + words(10, start=500)  # 10 of 96 shingles differ: 86 / 106
    marks = find_duplicates([chunk_print("a", base), chunk_print("b", one_word),
                             chunk_print("c", ten_words)])
    assert set(marks) == {"b"}
    assert (marks["b"].of, marks["b"].kind, marks["b"].similarity) == ("a", "near",
                                                                       round(95 / 97, 3))


def test_a_duplicate_points_to_a_kept_chunk() -> None:
    a = words(100)
    b = words(95) + " " + words(5, start=900)   # near a: 91 / 101
    c = words(90) + " " + words(10, start=900)  # near b (91 / 101), not near a (86 / 106)
    d = b                                       # the same text as b, which is not kept
    marks = find_duplicates([chunk_print(name, text) for name, text in
                             (("a", a), ("b", b), ("c", c), ("d", d))])
    assert marks["b"].of == "a" and "c" not in marks
    assert (marks["d"].of, marks["d"].kind) == ("a", "near")


def test_prints_round_trip_through_json() -> None:
    made = chunk_print("doc:a::ch1", words(300))
    assert len(made.sketch) == SKETCH_SIZE
    assert ChunkPrint.from_json(json.loads(json.dumps(made.as_json()))) == made


TEXTS = st.lists(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "Alpha"]),
                          min_size=1, max_size=40).map(" ".join), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=TEXTS, data=st.data())
def test_marks_follow_their_definition(texts: list[str], data: st.DataObject) -> None:
    """Small texts (their sketch is their whole shingle set, so similarities are exact): a
    chunk is marked iff an earlier kept chunk has its text or a similarity at the threshold; the
    chunk it is marked with is kept and earlier; the marks do not depend on anything but the
    order."""
    repeated = texts + [data.draw(st.sampled_from(texts)) for _ in range(3)]
    ids = [f"doc:p{index}::ch0" for index in range(len(repeated))]
    marks = find_duplicates([chunk_print(i, text) for i, text in zip(ids, repeated, strict=True)])
    kept: list[int] = []
    for index, text in enumerate(repeated):
        mark = marks.get(ids[index])
        plain, own = normalized(text), shingles(normalized(text))

        def jaccard(other: int, own: set[str] = own) -> float:
            theirs = shingles(normalized(repeated[other]))
            return len(own & theirs) / len(own | theirs) if own | theirs else 0.0

        same = [other for other in range(index) if normalized(repeated[other]) == plain]
        near = [other for other in kept if jaccard(other) >= NEAR_THRESHOLD]
        if mark is None:
            assert not same and not near
            kept.append(index)
            continue
        assert mark.of in {ids[other] for other in kept}
        if mark.kind == "exact":
            assert ids.index(mark.of) == same[0]
        else:
            assert not same or marks.get(ids[same[0]]) == mark
            assert mark.similarity == round(jaccard(ids.index(mark.of)), 3) >= NEAR_THRESHOLD
    assert find_duplicates([chunk_print(i, t) for i, t in zip(ids, repeated, strict=True)]
                           ) == marks


def every_pair_marks(prints: list[ChunkPrint], threshold: float) -> dict[str, tuple[str, float]]:
    """The near marks of comparing each chunk with every kept chunk before it (no index)."""
    kept: list[ChunkPrint] = []
    marks: dict[str, tuple[str, float]] = {}
    for chunk in prints:
        scores = [(similarity(chunk.sketch, other.sketch), -at) for at, other in enumerate(kept)]
        best = max(scores, default=(0.0, 0))
        if best[0] >= threshold:
            marks[chunk.id] = (kept[-best[1]].id, round(best[0], 3))
        else:
            kept.append(chunk)
    return marks


CHANGES = st.tuples(st.integers(0, 60), st.sets(st.integers(150, 299), max_size=60))
"""How many of the smallest of 150 common hashes a sketch leaves out, and the hashes it adds."""


@settings(max_examples=200, deadline=None)
@given(changes=st.lists(CHANGES, min_size=2, max_size=10),
       threshold=st.sampled_from([0.5, 0.8, NEAR_THRESHOLD, 0.95]))
def test_the_index_finds_what_comparing_every_pair_finds(
        changes: list[tuple[int, set[int]]], threshold: float) -> None:
    """Sketches that share many of their hashes, but often not their smallest: only the kept
    chunks that could reach the threshold are compared, and the marks are those of comparing
    every pair."""
    prints = [ChunkPrint(f"doc:p{at}::ch0", f"digest{at}",
                         tuple(sorted(set(range(left_out, 150)) | added)[:SKETCH_SIZE]))
              for at, (left_out, added) in enumerate(changes)]
    marks = find_duplicates(prints, threshold=threshold)
    assert {key: (mark.of, mark.similarity) for key, mark in marks.items()} == \
        every_pair_marks(prints, threshold)



def plain_marks(prints: list[ChunkPrint], threshold: float) -> dict[str, tuple[str, str, float]]:
    """The marks by their definition, without an index or a compact layout: a chunk with the
    digest of an earlier one is marked as that one is (or exactly with it); another is
    compared with every kept chunk before it (`similarity` of the sketches' tuples)."""
    first_with: dict[str, str] = {}
    kept: list[ChunkPrint] = []
    marks: dict[str, tuple[str, str, float]] = {}
    for chunk in prints:
        earlier = first_with.setdefault(chunk.digest, chunk.id)
        if earlier != chunk.id:
            marks[chunk.id] = marks.get(earlier) or (earlier, "exact", 1.0)
            continue
        scores = [(similarity(chunk.sketch, other.sketch), -at) for at, other in enumerate(kept)]
        best = max(scores, default=(0.0, 0))
        if best[0] >= threshold:
            marks[chunk.id] = (kept[-best[1]].id, "near", round(best[0], 3))
        else:
            kept.append(chunk)
    return marks


EDITS = st.lists(st.tuples(st.sampled_from(["replace", "insert", "delete", "upper"]),
                           st.integers(0, 10**6), st.integers(0, 50)), max_size=8)
"""Changes to a text's words: what, where (taken modulo its length), with which word."""


def edited(words: list[str], edits: list[tuple[str, int, int]]) -> str:
    changed = list(words)
    for what, where, word in edits:
        at = where % (len(changed) + 1)
        if what == "insert" or not changed:
            changed.insert(at, f"new{word}")
        elif what == "delete":
            del changed[min(at, len(changed) - 1)]
        else:
            at = min(at, len(changed) - 1)
            changed[at] = changed[at].upper() if what == "upper" else f"new{word}"
    return " ".join(changed)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lengths=st.lists(st.integers(1, 400), min_size=1, max_size=3),
       copies=st.lists(st.tuples(st.integers(0, 2), EDITS), min_size=1, max_size=10),
       threshold=st.sampled_from([0.5, 0.8, NEAR_THRESHOLD]))
def test_the_finder_marks_near_copies_as_their_definition_does(
        lengths: list[int], copies: list[tuple[int, list[tuple[str, int, int]]]],
        threshold: float) -> None:
    """Texts of up to 400 words (sketches of a part of their shingles, similarities
    estimated) and copies of them with a few words changed, in any order: the finder, given
    the prints or their JSON form, marks what the definition marks."""
    texts = [[f"w{base}x{at}" for at in range(length)] for base, length in enumerate(lengths)]
    made = [edited(texts[which % len(texts)], edits) for which, edits in copies]
    prints = [chunk_print(f"doc:p{at}::ch0", text) for at, text in enumerate(made)]
    expected = plain_marks(prints, threshold)
    for marks in (find_duplicates(prints, threshold=threshold),
                  find_duplicates_in([chunk.as_json() for chunk in prints],
                                     threshold=threshold)):
        assert {key: (mark.of, mark.kind, mark.similarity) for key, mark in marks.items()
                } == expected


def test_repeated_hashes_in_a_sketch_count_once() -> None:
    """A sketch that repeats a hash (made by hand: prints never do) is compared as the set
    of its hashes, as `similarity` compares it."""
    common = tuple(range(100, 200))
    prints = [ChunkPrint("a", "digest-a", (100, *common, 150)),
              ChunkPrint("b", "digest-b", (100, 100, *common[1:], 5000)),
              ChunkPrint("c", "digest-c", (*common[:95], 7001, 7002, 7003, 7003))]
    expected = plain_marks(prints, NEAR_THRESHOLD)
    assert set(expected) == {"b", "c"}
    marks = find_duplicates(prints)
    assert {key: (mark.of, mark.kind, mark.similarity) for key, mark in marks.items()
            } == expected


# -- a built site -----------------------------------------------------------------------------

NEAR_COPY = SNIPPET.replace("on every attempt.", "on every retry.")
"""The snippet, its last word changed (one shingle of 5 words of all its shingles): copied by
hand on another page."""
OPTIONS = {"max_tokens": 512, "min_tokens": 0}


def marked(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {record["id"]: record["duplicateOf"] for record in records if record["duplicateOf"]}


def test_duplicates_are_marked_with_the_first_occurrence(
        make_site: SiteBuilder, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pages = {**PAGES, "zos.md": "# z/OS\n\nNo package yet.\n\n" + NEAR_COPY}
    with caplog.at_level(logging.INFO):
        site = build_with_snippets(make_site, tmp_path, pages=pages,
                                   formats=["native", "flat", "sections"], **OPTIONS)
    index = Index.load(site)
    check_index(index, max_tokens=512)
    proxy = [r["id"] for r in index.records if r["headerPath"][-1:] == ["Proxy settings"]]
    assert [chunk.split("::")[0] for chunk in proxy] == [
        "doc:linux", "doc:macos", "doc:windows", "doc:zos"]  # the index's order
    first = proxy[0]
    assert marked(index.records) == {
        proxy[1]: {"id": first, "kind": "exact", "similarity": 1.0},
        proxy[2]: {"id": first, "kind": "exact", "similarity": 1.0},
        proxy[3]: {"id": first, "kind": "near", "similarity": marked(index.records)[proxy[3]][
            "similarity"]}}
    assert NEAR_THRESHOLD <= marked(index.records)[proxy[3]]["similarity"] < 1
    # `mark` (the default) leaves every format whole.
    assert len(read_jsonl(site / "chunks.flat.jsonl")) == len(index.records)
    assert "4 duplicates" not in caplog.text and "3 duplicates) written" in caplog.text


def test_drop_leaves_duplicates_out_of_the_embedding_formats(
        make_site: SiteBuilder, tmp_path: Path) -> None:
    formats = ["native", "flat", "semantic", "adr", "files", "hepilot", "docsearch",
               "sections"]
    site = build_with_snippets(make_site, tmp_path, formats=formats, duplicates="drop",
                               **OPTIONS)
    native = Index.load(site).records
    dropped = set(marked(native))
    assert len(dropped) == 2
    kept = [(record["metadata"]["sourceFile"], record["charOffsets"]["charStart"])
            for record in native if record["id"] not in dropped]
    flat = read_jsonl(site / "chunks.flat.jsonl")
    assert [(record["source_path"], record["start"]) for record in flat] == kept
    for name in ("semantic", "adr", "hepilot"):
        assert len(read_jsonl(site / f"chunks.{name}.jsonl")) == len(kept)
    for name in ("chunks.jsonl", "chunks.hepilot.jsonl", "chunks.semantic.jsonl"):
        result = CliRunner().invoke(main, ["validate", str(site / name)])
        assert result.exit_code == 0, result.output
    assert len(list((site / "chunks").glob("*.json"))) == len(kept)
    # Search records and sections keep every chunk.
    assert len(json.loads((site / "docsearch.json").read_text(encoding="utf-8"))) == len(native)
    sections = read_jsonl(site / "sections.jsonl")
    assert sorted(c for s in sections for c in s["ownChunkIds"]) == sorted(r["id"] for r in native)


def test_off_looks_for_no_duplicates(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = build_with_snippets(make_site, tmp_path, duplicates="off", **OPTIONS)
    records = Index.load(site).records
    assert all(record["duplicateOf"] is None for record in records)


def test_marks_follow_the_index_order_however_they_are_found(
        make_site: SiteBuilder, tmp_path: Path, reproducible: None) -> None:
    """The marks are those of the index's order whether the build's own process finds them or
    a worker does, and whether a build takes the last build's marks (an unchanged site) or
    searches again (a marks file it cannot read, or a page that comes first)."""
    pages = {**PAGES, "zos.md": "# z/OS\n\nNo package yet.\n\n" + NEAR_COPY}

    def build(**plugin: Any) -> list[dict[str, Any]]:
        site = build_with_snippets(make_site, tmp_path, pages=pages, **OPTIONS, **plugin)
        return read_jsonl(site / "chunks.jsonl")

    inline = build(workers=0, cache=False)
    assert {mark["id"].split("::")[0] for mark in marked(inline).values()} == {"doc:linux"}
    assert build(workers=1, cache=False) == inline
    assert build(workers=1) == inline  # searched, and kept for the next build
    (kept,) = tmp_path.glob("**/duplicate-marks.json")
    assert build(workers=1) == inline  # taken
    kept.write_text('{"key": ', encoding="utf-8")
    assert build(workers=0) == inline  # searched again

    pages["aix.md"] = "# AIX\n\nInstall the package with installp.\n\n--8<-- \"proxy.md\"\n"
    earlier = build()  # aix.md comes before linux.md in the index
    assert {mark["id"].split("::")[0] for mark in marked(earlier).values()} == {"doc:aix"}
    assert len(marked(earlier)) == 4


def test_marks_are_those_of_the_index_order_whatever_order_pages_come_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker searches the pages as they come; where they came in another order than the
    index's, the finish searches again: the marks are the index's order's either way."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    shared = " ".join(f"shared{i}" for i in range(80))
    pages = [PageInput(html=f"<h1>Page {n}</h1><p>{' '.join(f'own{n}x{i}' for i in range(90))}"
                            f"</p><h2 id='s'>Shared</h2><p>{shared}</p>",
                       source_path=f"p{n}.md", url=f"p{n}/", title=f"Page {n}")
             for n in range(4)]
    order = [page.source_path for page in pages]

    def index(name: str, arrival: list[PageInput], workers: int) -> list[dict[str, Any]]:
        site = tmp_path / name
        builder = IndexBuilder(BuildSettings(options=ChunkOptions(max_tokens=100, min_tokens=0),
                                             workers=workers), site_dir=site)
        try:
            for page in arrival:
                builder.add_page(page, markdown_path=f"{page.url}index.md")
            builder.finish(order)
        finally:
            builder.close()
        return read_jsonl(site / "chunks.jsonl")

    expected = index("inline", pages, 0)
    assert {mark["id"].split("::")[0] for mark in marked(expected).values()} == {"doc:p0"}
    assert len(marked(expected)) >= 3
    assert index("worker", pages, 1) == expected
    assert index("reversed-inline", pages[::-1], 0) == expected
    assert index("reversed-worker", pages[::-1], 1) == expected
