"""Output profiles, over chunks of pages rendered by Python-Markdown and of a real MkDocs build."""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mkdocs.commands.build import build
from mkdocs.config import load_config

from mdchunk import Chunk, Chunker, ChunkOptions, OptionError, PageChunks
from mdchunk.chunking.chunk import UUID_NAMESPACE, uuid5_text
from mdchunk.chunking.markdown_text import markdown_to_text
from mdchunk.engines.site import site_pages
from mdchunk.outputs import formats as output_module
from mdchunk.outputs.formats import records_block, write_records
from mdchunk.outputs.page_output import page_records
from mdchunk.outputs.profiles import (
    PROFILES,
    ChunkMetrics,
    ChunkValidationError,
    FeedbackMetrics,
    FlatSemanticChunk,
    ProfileSettings,
    SemanticChunk,
    adr_records,
    check_formats,
    chunk_type,
    docsearch_records,
    file_doc_name,
    file_path,
    files_layout,
    flat_records,
    hepilot_records,
    hepilot_schema,
    markdown_chunker_records,
    semantic_chunks,
    semantic_records,
    to_flat,
    to_semantic,
)
from tests.conftest import EXAMPLE_SITE, REPO, SiteBuilder
from tests.helpers import chunk_page
from tests.invariants import Index

SEED_SCHEMA = REPO.parent / "shared" / "seeds" / "003_ee18b213f4e8f998.txt"
VALIDATOR = jsonschema.Draft202012Validator(
    hepilot_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


def only(text: str, **options: object) -> Chunk:
    [chunk] = chunk_page(text, languages=True, **options).chunks
    return chunk


@pytest.fixture(scope="module")
def example_pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[PageChunks]]:
    """The example MkDocs site, built for real: its site folder and its chunked pages.

    The plugin keeps records, not `Chunk` objects: the chunks come from chunking the built
    site again (which gives the plugin's chunks, see test_engines.py); their number per page
    is checked against the plugin's."""
    target = tmp_path_factory.mktemp("example") / "mkdocs"
    shutil.copytree(EXAMPLE_SITE, target, ignore=shutil.ignore_patterns("site", "site-material"))
    config = load_config(config_file=str(target / "mkdocs.yml"))
    build(config)
    site = Path(config.site_dir)
    chunker = Chunker(ChunkOptions.validated({"max_tokens": 512}),
                      site_url=config.site_url or "")
    pages = [chunker.chunk_page(page) for page in site_pages(site, docs_dir=target / "docs")]
    built = collections.Counter(record["metadata"]["sourceFile"]
                                for record in Index.load(site).records)
    assert {page.source_path: len(page.chunks) for page in pages if page.chunks} == built
    assert sum(len(page.chunks) for page in pages) > 40
    return site, pages


def all_chunks(pages: list[PageChunks]) -> Iterator[Chunk]:
    for page in pages:
        yield from page.chunks


def test_every_profile_makes_its_records_one_at_a_time_for_one_encoder(
        example_pages: tuple[Path, list[PageChunks]]) -> None:
    """Every format's records come one at a time (an iterator, never a list held whole), and
    `page_records` writes for each format what its profile gives, encoded by the standard
    library's JSON: no format is encoded another way. The formats whose records are the same
    (`native`, `sqlite`) share one list."""
    from mdchunk.outputs.writers import dumps

    _, pages = example_pages
    settings = ProfileSettings(language="en")
    for page in pages:
        made = page_records(page, list(PROFILES), language="en")
        for name, profile in PROFILES.items():
            records = profile.records(page, settings)
            assert iter(records) is records, name
            assert made[name] == [dumps(record) for record in records], name
        assert made["native"] is made["sqlite"]
        assert [json.loads(pair)["path"] for pair in made["files"]] == [
            file_path(chunk) for chunk in page.chunks]


# -- hepilot (seed 003) ----------------------------------------------------------------------


def test_packaged_schema_is_the_seed_schema() -> None:
    if not SEED_SCHEMA.exists():
        pytest.skip("the seed documents are not beside the repository")
    seed = json.loads(SEED_SCHEMA.read_text(encoding="utf-8").replace("\u00c3\u2014", "\u00d7"))
    assert hepilot_schema() == seed
    assert seed["additionalProperties"] is False


def test_hepilot_records_of_every_example_page_are_valid(
        example_pages: tuple[Path, list[PageChunks]]) -> None:
    _, pages = example_pages
    for page in pages:
        records = list(hepilot_records(page))
        for record, chunk in zip(records, page.chunks, strict=True):
            errors = [error.message for error in VALIDATOR.iter_errors(record)]
            assert not errors, (chunk.id, errors)
            assert record["content"] == chunk.as_native()["originalText"]
            assert record["section_path"] == chunk.as_native()["headerPath"]
            assert record["chunk_id"] == chunk.uuid
            assert record["document_id"] == chunk.document_uuid
        assert [r["chunk_index"] for r in records] == list(range(len(records)))
        assert {r["total_chunks"] for r in records} <= {len(records)}
        assert len({r["document_id"] for r in records}) <= 1


@pytest.mark.parametrize("change", [
    {"chunk_id": "not-a-uuid"},
    {"chunk_type": "code"},
    {"extra": 1},
    {"content_features": {"heading_count": 1, "code_count": 2}},
])
def test_schema_validation_rejects_bad_records(change: dict[str, Any]) -> None:
    [record] = hepilot_records(chunk_page("# Title\n\nSome text."))
    assert VALIDATOR.is_valid(record)
    assert not VALIDATOR.is_valid({**record, **change})


@pytest.mark.parametrize(("text", "expected"), [
    ("## Data\n\n| a | b |\n|---|---|\n| 1 | 2 |", "table"),
    ("## Euler\n\n$$\ne^{i\\pi} + 1 = 0\n$$", "equation"),
    ("## Prose\n\nJust words, with $x$ inline.", "text"),
    ("## Code\n\n```python\nprint(1)\n```", "text"),
    ("## Both\n\nWords.\n\n| a |\n|---|\n| 1 |", "mixed"),
    ("## Both\n\n$$\nx\n$$\n\n| a |\n|---|\n| 1 |", "mixed"),
    ("## Heading only", "text"),
])
def test_hepilot_chunk_type(text: str, expected: str) -> None:
    chunk = only(text)
    assert chunk_type(chunk) == expected
    assert next(hepilot_records([chunk]))["chunk_type"] == expected


def test_hepilot_counts_and_overlap_flags() -> None:
    text = ("# T\n\n- a\n- b\n\nBetween.\n\n1. c\n\n| a |\n|---|\n| 1 |\n\nInline $x$ and $y$.\n\n"
            "$$\nz\n$$")
    [record] = hepilot_records(chunk_page(text))
    assert record["content_features"] == {"heading_count": 1, "list_count": 2,
                                          "table_count": 1, "equation_count": 3}
    sentences = " ".join(f"Sentence number {n} says a little more." for n in range(60))
    page = chunk_page(f"# T\n\n{sentences}", max_tokens=64, min_tokens=8, overlap_tokens=12,
                      overlap_mode="text")
    records = list(hepilot_records(page))
    assert len(records) > 2
    assert [r["has_overlap_previous"] for r in records] == [
        c.flags.has_overlap_previous for c in page.chunks]
    assert [r["has_overlap_next"] for r in records] == [
        c.flags.has_overlap_next for c in page.chunks]
    assert records[1]["has_overlap_previous"] and records[0]["has_overlap_next"]
    assert not records[0]["has_overlap_previous"] and not records[-1]["has_overlap_next"]
    for record in records:
        assert VALIDATOR.is_valid(record)


# -- semantic and flat (seed 001) ------------------------------------------------------------

UUID4 = st.uuids(version=4).map(str)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)
ITEM = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters=","),
               min_size=1, max_size=12)
UNIT = st.one_of(st.none(), st.floats(0, 1))
TIMESTAMP = st.datetimes(timezones=st.timezones()).map(lambda moment: moment.isoformat())


def _json_containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    # (a named function: hypothesis reads a lambda's source to see that it recurses)
    return st.one_of(st.lists(inner, max_size=3), st.dictionaries(ITEM, inner, max_size=3))


JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False,
              allow_infinity=False), TEXT),
    _json_containers, max_leaves=8,
)
METRICS = st.builds(
    ChunkMetrics, quality_score=UNIT, coverage=UNIT, cohesion=UNIT, boundary_prev=UNIT,
    boundary_next=UNIT, matches=st.one_of(st.none(), st.integers(0, 1000)),
    used_in_generation=st.booleans(), used_as_input=st.booleans(), used_as_context=st.booleans(),
    feedback=st.one_of(st.none(), st.builds(FeedbackMetrics, st.integers(0, 9),
                                            st.integers(0, 9), st.integers(0, 9))),
)


@st.composite
def semantic_chunk(draw: st.DrawFn) -> SemanticChunk:
    text = draw(TEXT)
    start = draw(st.integers(0, 10**6))
    optional = st.one_of
    lines = draw(optional(st.none(), st.tuples(st.integers(0, 100), st.integers(0, 100))))
    return SemanticChunk(
        uuid=draw(UUID4),
        type=draw(st.sampled_from(["DocBlock", "CodeBlock", "Message", "Log"])),
        text=text,
        language=draw(st.sampled_from(["en", "de", "UNKNOWN", "Python"])),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        start=start,
        end=start + draw(st.integers(0, 1000)),
        source_id=draw(optional(st.none(), UUID4)),
        project=draw(optional(st.none(), TEXT)),
        task_id=draw(optional(st.none(), TEXT)),
        role=draw(optional(st.none(), st.sampled_from(["user", "tool"]))),
        summary=draw(optional(st.none(), TEXT)),
        source_path=draw(optional(st.none(), TEXT)),
        source_lines=tuple(sorted(lines)) if lines else None,  # type: ignore[arg-type]
        ordinal=draw(optional(st.none(), st.integers(0, 500))),
        created_at=draw(optional(st.none(), TIMESTAMP)),
        status=draw(optional(st.none(), st.sampled_from(["new", "indexed"]))),
        chunking_version=draw(optional(st.none(), TEXT)),
        embedding=draw(optional(st.none(), st.lists(
            st.floats(allow_nan=False, allow_infinity=False), max_size=5).map(tuple))),
        links=draw(optional(st.none(), st.lists(
            st.tuples(st.sampled_from(["parent", "related"]), UUID4).map(":".join),
            max_size=4).map(tuple))),
        tags=draw(optional(st.none(), st.lists(ITEM, max_size=4).map(tuple))),
        metrics=draw(optional(st.none(), METRICS)),
        block_id=draw(optional(st.none(), UUID4)),
        block_type=draw(optional(st.none(), st.sampled_from(["section", "paragraph"]))),
        block_index=draw(optional(st.none(), st.integers(0, 50))),
        block_meta=draw(optional(st.none(), st.dictionaries(ITEM, JSON_VALUE, max_size=3))),
    )


@settings(max_examples=300, deadline=None)
@given(chunk=semantic_chunk())
def test_semantic_flat_round_trip(chunk: SemanticChunk) -> None:
    flat = to_flat(chunk)
    assert to_semantic(flat) == chunk
    assert to_flat(to_semantic(flat)) == flat
    for value in flat.as_dict().values():
        assert isinstance(value, str | int | float | bool)
    wire = json.loads(json.dumps(chunk.as_dict()))
    assert SemanticChunk.from_dict(wire) == chunk
    assert FlatSemanticChunk.from_dict(json.loads(json.dumps(flat.as_dict()))) == flat


def test_semantic_records_of_real_chunks(example_pages: tuple[Path, list[PageChunks]]) -> None:
    _, pages = example_pages
    for page in pages:
        records = list(semantic_records(page, ProfileSettings(language="en")))
        flats = list(flat_records(page, ProfileSettings(language="en")))
        for chunk, record, flat in zip(page.chunks, records, flats, strict=True):
            semantic = SemanticChunk.from_dict(record)
            assert to_semantic(FlatSemanticChunk.from_dict(flat)) == semantic
            assert to_flat(semantic).as_dict() == flat
            assert page.markdown[semantic.start:semantic.end] == semantic.text == chunk.text
            assert semantic.sha256 == chunk.sha256
            assert semantic.ordinal == chunk.chunk_number
            assert semantic.source_lines == (chunk.start_line, chunk.end_line)
            assert uuid.UUID(semantic.uuid).version == 4
            assert semantic.uuid != semantic.source_id
            assert semantic.language == ("en" if semantic.type == "DocBlock"
                                         else chunk.features.code_languages[0])
        uuids = [record["uuid"] for record in records]
        for number, record in enumerate(records):
            parent = [link for link in record["links"] if link.startswith("parent:")]
            related = [link.partition(":")[2] for link in record["links"]
                       if link.startswith("related:")]
            assert parent == [f"parent:{record['source_id']}"]
            assert related == uuids[max(number - 1, 0):number] + uuids[number + 1:number + 2]


def test_semantic_language_tags_and_blocks() -> None:
    text = "Intro.\n\n# Title\n\nWords.\n\n## Code\n\n```python\nprint(1)\n```"
    meta = {"lang": "de", "tags": ["a", " b ", "", "c,d", "e"]}
    page = chunk_page(text, meta=meta, max_tokens=24, min_tokens=0, languages=True)
    chunks = list(semantic_chunks(page, ProfileSettings(language="en")))
    assert [c.type for c in chunks] == ["DocBlock", "DocBlock", "CodeBlock"]
    assert [c.language for c in chunks] == ["de", "de", "python"]
    assert chunks[0].tags == ("a", "b", "e")
    assert [c.block_index for c in chunks] == [0, 1, 2]
    assert len({c.block_id for c in chunks}) == 3
    french = list(semantic_chunks(chunk_page(text, languages=True), ProfileSettings("fr")))
    assert french[0].language == "fr"
    assert next(semantic_chunks(chunk_page(text, languages=True))).language == "UNKNOWN"
    assert next(semantic_chunks(chunk_page(text, languages=True))).tags is None


def _valid(**changes: object) -> dict[str, Any]:
    text = "hello"
    values: dict[str, Any] = {
        "uuid": str(uuid.uuid4()), "type": "DocBlock", "text": text, "language": "en",
        "sha256": hashlib.sha256(text.encode()).hexdigest(), "start": 0, "end": 5,
    }
    return {**values, **changes}


V5 = str(uuid.uuid5(uuid.NAMESPACE_URL, "x"))
V4 = str(uuid.uuid4())


@pytest.mark.parametrize(("field", "value"), [
    ("uuid", "not-a-uuid"),
    ("uuid", V5),  # valid uuid, but version 5
    ("uuid", V4.replace("-", "")),  # not the 8-4-4-4-12 form
    ("uuid", None),
    ("type", None),
    ("type", "Paragraph"),
    ("text", None),
    ("language", None),
    ("language", " "),
    ("sha256", None),
    ("sha256", "0" * 64),
    ("start", None),
    ("start", -1),
    ("end", None),
    ("end", "5"),
    ("source_id", "1234"),
    ("block_id", V5),
    ("created_at", "2024-05-01T10:00:00"),  # no timezone
    ("created_at", "yesterday"),
    ("created_at", "2024-05-01"),
    ("links", ("parent:not-a-uuid",)),
    ("links", (V4,)),
    ("links", (f"cousin:{V4}",)),
    ("links", "parent:" + V4),
    ("tags", ("a,b",)),
    ("tags", ("",)),
    ("role", "boss"),
    ("status", "done"),
    ("ordinal", True),
    ("source_lines", (3,)),
    ("source_lines", (5, 3)),
    ("embedding", (float("nan"),)),
    ("block_meta", {"when": object()}),
])
def test_semantic_validation_rejects(field: str, value: object) -> None:
    with pytest.raises(ChunkValidationError) as caught:
        SemanticChunk(**_valid(**{field: value}))
    assert caught.value.field == field
    assert isinstance(caught.value, ValueError)
    assert field in str(caught.value)
    SemanticChunk(**_valid())  # the same values without the bad one are fine


def test_end_before_start_names_end() -> None:
    with pytest.raises(ChunkValidationError, match=r"^end: must not be before start \(9\)"):
        SemanticChunk(**_valid(start=9, end=5))


@pytest.mark.parametrize(("field", "value"), [
    ("quality_score", 1.5), ("coverage", 1.01), ("cohesion", -0.1), ("boundary_prev", 2),
    ("boundary_next", -1), ("matches", -3), ("used_in_generation", None),
])
def test_metrics_validation_rejects(field: str, value: object) -> None:
    with pytest.raises(ChunkValidationError) as caught:
        ChunkMetrics(**{field: value})  # type: ignore[arg-type]
    assert caught.value.field == field
    assert caught.value.value == value
    flat = {"used_in_generation": False, "used_as_input": False, "used_as_context": False}
    with pytest.raises(ChunkValidationError) as caught:
        FlatSemanticChunk(**_valid(**{**flat, field: value}))
    assert caught.value.field == field


@pytest.mark.parametrize(("changes", "field"), [
    ({"link_parent": V4}, "link_related"),
    ({"link_parent": "", "link_related": "nope"}, "link_related"),
    ({"link_parent": V5, "link_related": ""}, "link_parent"),
    ({"source_lines_start": 3}, "source_lines_end"),
    ({"source_lines_start": 3, "source_lines_end": 2}, "source_lines_end"),
    ({"tags": "a,,b"}, "tags"),
    ({"embedding": "1.0,x"}, "embedding"),
    ({"embedding": "1.0,inf"}, "embedding"),
    ({"coverage": 0.5}, "used_in_generation"),
    ({"feedback_accepted": 1, "used_in_generation": True, "used_as_input": True,
      "used_as_context": True}, "feedback_rejected"),
    ({"block_meta": "[1, 2]"}, "block_meta"),
    ({"created_at": "2024-05-01 10:00"}, "created_at"),
])
def test_flat_validation_rejects(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ChunkValidationError) as caught:
        FlatSemanticChunk(**_valid(**changes))
    assert caught.value.field == field


def test_from_dict_refuses_unknown_and_missing_fields() -> None:
    with pytest.raises(ChunkValidationError, match="colour: is not a field of SemanticChunk"):
        SemanticChunk.from_dict(_valid(colour="red"))
    values = _valid()
    del values["language"]
    with pytest.raises(ChunkValidationError, match="language: is required"):
        SemanticChunk.from_dict(values)
    with pytest.raises(ChunkValidationError, match="is not a field of FlatSemanticChunk"):
        FlatSemanticChunk.from_dict(_valid(links=[]))


def test_flat_spellings_are_canonical() -> None:
    flat = FlatSemanticChunk(**_valid(embedding="1,2.50", block_meta='{"b": 1, "a": [1]}'))
    assert flat.embedding == "1.0,2.5"
    assert flat.block_meta == '{"a":[1],"b":1}'
    semantic = to_semantic(flat)
    assert semantic.embedding == (1.0, 2.5)
    assert semantic.block_meta == {"a": [1], "b": 1}
    linked = SemanticChunk(**_valid(links=(f"related:{V4}", f"parent:{V4}")))
    assert linked.links == (f"parent:{V4}", f"related:{V4}")


# -- files (seed 002) ------------------------------------------------------------------------

SEED_002_KEYS = ["id", "parentId", "prevId", "nextId", "embedText", "originalText",
                 "chunkNumber", "contentType", "fileTitle", "sectionTitle", "headerPath",
                 "headerBreadcrumb", "headerDepths", "headerSlugs", "sectionSlug", "charOffsets",
                 "tokenStats", "metadata"]
FILE_NAME = re.compile(r"^chunks/doc_(?P<doc>[^/]+)__ch(?P<n>\d+)\.json$")


def test_files_names_and_chain() -> None:
    text = "# Strategy\n\n" + "\n\n".join(
        f"## Part {n}\n\n" + " ".join(["Some words about this part."] * 12) for n in range(4))
    pages = [chunk_page(text, source=source, max_tokens=80, min_tokens=0)
             for source in ("a/index.md", "b/index.md", "a--index.md", "flatten-ast.md",
                            "strategy.md")]
    layout = files_layout(pages)
    assert len(layout) == sum(len(page.chunks) for page in pages)
    names = {FILE_NAME.match(path).group("doc") for path in layout}  # type: ignore[union-attr]
    assert "a--index" in names and "b--index" in names and "flatten-ast" in names
    assert len(names) == 5
    strategy = [path for path in layout if "_strategy__" in path]
    assert strategy == [f"chunks/doc_strategy__ch{n}.json" for n in range(len(strategy))]
    records = [layout[path] for path in strategy]
    assert [r["prevId"] for r in records] == [None] + [f"doc:strategy::ch{n}"
                                                       for n in range(len(records) - 1)]
    assert [r["nextId"] for r in records] == [f"doc:strategy::ch{n}"
                                              for n in range(1, len(records))] + [None]
    for path, record in layout.items():
        assert list(record) == SEED_002_KEYS
        assert list(record["tokenStats"]) == ["tokens", "estimatedTokens"]
        assert list(record["metadata"]) == ["sourceFile", "processedAt", "chunkingOptions",
                                            "pipeline"]
        assert record["contentType"] == "doc"
        assert path.endswith(f"__ch{record['chunkNumber']}.json")


SEGMENT = st.lists(st.sampled_from(["a", "b", "-", "~"]), max_size=4).map("".join)


@settings(max_examples=500, deadline=None)
@given(names=st.lists(st.lists(SEGMENT, min_size=1, max_size=3).map("/".join), min_size=2,
                      max_size=8, unique=True))
@example(names=["a/b", "a--b"])
@example(names=["a-/b", "a/-b"])
@example(names=["a/b~0", "a/b"])
def test_file_doc_names_never_collide(names: list[str]) -> None:
    flat = [file_doc_name(name) for name in names]
    assert len(set(flat)) == len(flat)
    for name, file_name in zip(names, flat, strict=True):
        assert "/" not in file_name
        if "~" not in file_name:
            assert file_name == name.replace("/", "--")


def test_files_layout_refuses_two_pages_with_one_doc_name() -> None:
    pages = [chunk_page("# A\n\nText.", source=source) for source in ("a.md", "a.rst")]
    with pytest.raises(Exception, match=r"a\.rst: .* also written for a\.md"):
        files_layout(pages)


# -- markdown_chunker (seed 000) -------------------------------------------------------------

PLAIN_WORD = st.text("abcdefghijklmnopqrstuvwxyzéü0123", min_size=1, max_size=8)
# Short titles: a heading longer than the budget left beside it may be cut between its words
# (a packing matter, outside these properties).
TITLE = st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6), min_size=1,
                 max_size=3).map(" ".join)
PARAGRAPH = st.lists(st.lists(PLAIN_WORD, min_size=1, max_size=14).map(" ".join), min_size=1,
                     max_size=5).map(lambda sentences: ". ".join(sentences) + ".")
SECTION = st.tuples(st.integers(1, 4), TITLE, st.lists(PARAGRAPH, max_size=3)).map(
    lambda s: "\n\n".join(["#" * s[0] + " " + s[1], *s[2]]))
SECTIONS = st.lists(SECTION, min_size=1, max_size=8).map("\n\n".join)
SIZES = st.fixed_dictionaries({"max_tokens": st.integers(40, 200),
                               "min_tokens": st.integers(0, 20),
                               "split_level": st.integers(1, 3)})
_HEADING_LINE = re.compile(r"^(#{1,6}) (.+)$", re.M)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=SECTIONS, sizes=SIZES)
def test_property_first_header_determines_header_path(text: str, sizes: dict[str, int]) -> None:
    page = chunk_page(text, **sizes)
    for record in markdown_chunker_records(page):
        headings = _HEADING_LINE.findall(record["content"])
        path = record["metadata"]["header_path"]
        if headings:
            assert path.endswith("/" + headings[0][1]), (path, record["content"])
            later = [title for _, title in headings[1:]]
            assert set(record["metadata"]["sub_headers"]) <= set(later)
        else:
            assert path.startswith("/")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preamble=st.lists(PARAGRAPH, min_size=1, max_size=3).map("\n\n".join), text=SECTIONS,
       sizes=SIZES)
def test_property_preamble_is_separated(preamble: str, text: str, sizes: dict[str, int]) -> None:
    # (seed 000 chunks Markdown files, which have no title beside their headings)
    records = list(markdown_chunker_records(chunk_page(f"{preamble}\n\n{text}", title="",
                                                       **sizes)))
    kinds = [r["metadata"]["content_type"] for r in records]
    assert kinds[0] == "preamble"
    count = kinds.index(next(kind for kind in kinds if kind != "preamble"))
    assert "preamble" not in kinds[count:]
    for record in records[:count]:
        assert record["metadata"]["header_path"] == "/__preamble__"
        assert not _HEADING_LINE.search(record["content"])
    assert records[count]["content"].startswith("#")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=SECTIONS, sizes=SIZES)
def test_property_no_preamble_without_content_before_first_header(
        text: str, sizes: dict[str, int]) -> None:
    records = list(markdown_chunker_records(chunk_page(text, **sizes)))
    assert records
    for record in records:
        assert record["metadata"]["content_type"] != "preamble"
        assert record["metadata"]["header_path"] != "/__preamble__"


def test_sde12_header_path_ends_with_first_header() -> None:
    scope = " ".join(["Scope covers the whole team and the systems it owns."] * 12)
    text = (f"# Grades\n\n## SDE 12\n\n### Scope\n\n{scope}\n\n### Impact (Delivery)\n\n"
            "Delivers projects of medium size on time.\n\n### Complexity\n\nHandles ambiguous "
            "requirements.\n\n### Leadership\n\nMentors juniors.")
    records = list(markdown_chunker_records(chunk_page(text, max_tokens=120, min_tokens=40,
                                                       split_level=2)))
    [impact] = [r for r in records if "### Impact" in r["content"]]
    assert impact["metadata"]["header_path"] == "/Grades/SDE 12/Impact (Delivery)"
    assert impact["metadata"]["sub_headers"] == ["Complexity", "Leadership"]


def test_preamble_links_are_their_own_chunk() -> None:
    text = ("Links to other resources:\n\n- https://example.com/doc1\n- https://example.com/doc2"
            "\n\n# Критерии грейдов SDE\n\nBody text.")
    first, second = markdown_chunker_records(chunk_page(text, max_tokens=400))
    assert first["metadata"]["content_type"] == "preamble"
    assert first["metadata"]["header_path"] == "/__preamble__"
    assert second["metadata"]["header_path"] == "/Критерии грейдов SDE"
    assert second["metadata"]["content_type"] == "section"


@pytest.mark.parametrize(("text", "expected", "path"), [
    ("## Code\n\n```python\nprint(1)\n```", "code", "/Code"),
    ("## Data\n\n| a |\n|---|\n| 1 |", "table", "/Data"),
    ("## Mixed\n\nWords.\n\n```python\nprint(1)\n```", "mixed", "/Mixed"),
    ("## Both\n\n```python\nprint(1)\n```\n\n| a |\n|---|\n| 1 |", "mixed", "/Both"),
    ("## Prose\n\nWords.\n\n- a list", "section", "/Prose"),
    # seed 000: content before the first heading is preamble, on a page without any too
    ("Only words on a page without headings.", "preamble", "/__preamble__"),
])
def test_markdown_chunker_content_type(text: str, expected: str, path: str) -> None:
    [record] = markdown_chunker_records(chunk_page(text, title="", languages=True))
    assert record["metadata"]["content_type"] == expected
    assert record["metadata"]["header_path"] == path


def test_markdown_chunker_list_code_and_table_facts() -> None:
    text = ("## Facts\n\n1. one\n2. two\n\n    - sub\n\n    ```bash\n    ls\n    ```\n\n"
            "```\nplain\n```\n\n```python\nprint(1)\n```\n\n| a | b | c |\n|---|---|---|\n"
            "| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n\n<table><tr><td>x</td></tr></table>")
    [record] = markdown_chunker_records(chunk_page(text, max_tokens=400, languages=True))
    meta = record["metadata"]
    assert meta["list_type"] == "ordered"
    assert meta["has_nested_lists"] is True and meta["has_nested_items"] is True
    assert meta["has_code"] is True
    assert meta["language"] == "bash" and meta["has_syntax_highlighting"] is True
    assert meta["row_count"] == 3 and meta["column_count"] == 3
    assert meta["has_header"] is False  # the raw HTML table has none
    simple = "## L\n\n- a\n- b\n\n```\nx\n```\n\n| a |\n|-|\n|1|"
    [flat] = markdown_chunker_records(chunk_page(simple, languages=True))
    meta = flat["metadata"]
    assert meta["list_type"] == "unordered"
    assert meta["has_nested_lists"] is False and meta["has_nested_items"] is False
    assert meta["language"] is None and meta["has_syntax_highlighting"] is False
    assert meta["has_header"] is True and meta["row_count"] == 1
    [plain] = markdown_chunker_records(chunk_page("## P\n\nWords only."))
    assert not {"list_type", "language", "row_count"} & set(plain["metadata"])


def test_markdown_chunker_flags_and_overlap() -> None:
    code = "```python\n" + "\n".join(f"value_{n} = {n} * {n}" for n in range(80)) + "\n```"
    words = " ".join(f"Sentence {n} has a few words." for n in range(40))
    text = f"# Big\n\n{code}\n\n## Tiny\n\nShort.\n\n## Long\n\n{words}"
    page = chunk_page(text, max_tokens=64, min_tokens=20, overlap_tokens=8, languages=True)
    records = list(markdown_chunker_records(page))
    for chunk, record in zip(page.chunks, records, strict=True):
        meta = record["metadata"]
        assert meta["allow_oversize"] == chunk.flags.allow_oversize
        assert meta.get("oversize_reason") == chunk.flags.oversize_reason
        assert meta["small_chunk"] == chunk.flags.small_chunk
        assert meta.get("small_chunk_reason") == chunk.flags.small_chunk_reason
        assert meta["overlap_size"] == 8
        assert meta.get("previous_content") == chunk.previous_content
        assert meta.get("next_content") == chunk.next_content
        assert (meta["start_line"], meta["end_line"]) == (chunk.start_line, chunk.end_line)
        assert meta["strategy"] == "structural"
    assert any(r["metadata"]["allow_oversize"] for r in records)
    assert "previous_content" not in records[0]["metadata"]
    assert records[1]["metadata"]["previous_content"] in records[0]["content"]
    text_mode = chunk_page(text, max_tokens=64, min_tokens=20, overlap_tokens=8,
                           overlap_mode="text", languages=True)
    for record in markdown_chunker_records(text_mode):
        assert not {"overlap_size", "previous_content", "next_content"} & set(record["metadata"])


# -- adr (seed 004) --------------------------------------------------------------------------

ADR_TEXT = ("# ADR-0184: RAG Markdown Header Chunking Strategy\n\n## Status\n\n**Accepted**\n\n"
            "## Context\n\nThe pipeline needs a chunking strategy.")


def test_adr_metadata_from_front_matter() -> None:
    meta = {"id": "ADR-0184-rag-markdown-header-chunking", "title": "RAG Chunking",
            "type": "adr", "relates_to": ["GOV-0020", "PRD-0008"], "tags": ["rag"]}
    page = chunk_page(ADR_TEXT, source="adrs/ADR-0184.md", meta=meta)
    records = list(adr_records(page))
    assert [r["metadata"]["section"] for r in records] == ["Status", "Context"]
    assert records[0]["text"].startswith("# ADR-0184")  # the lone H1 joined the first H2
    assert records[0]["metadata"]["header_level"] == 2
    assert records[1] == {
        "text": "## Context\n\nThe pipeline needs a chunking strategy.",
        "metadata": {"doc_id": "ADR-0184-rag-markdown-header-chunking",
                     "doc_title": "RAG Chunking", "doc_type": "adr", "section": "Context",
                     "header_level": 2, "relates_to": "GOV-0020,PRD-0008", "chunk_index": 1,
                     "file_path": "adrs/ADR-0184.md"},
    }


def test_adr_fallbacks_and_chroma_values(example_pages: tuple[Path, list[PageChunks]]) -> None:
    # (a page without an H1 gets its title as one: its section)
    [record] = adr_records(chunk_page("Just text.", source="notes/todo.md", title="To do"))
    assert record["metadata"] == {
        "doc_id": "notes/todo", "doc_title": "To do", "doc_type": "doc", "section": "To do",
        "header_level": 1, "relates_to": "", "chunk_index": 0, "file_path": "notes/todo.md"}
    [untitled] = adr_records(chunk_page("Just text.", source="notes/todo.md", title=""))
    assert untitled["metadata"]["section"] == ""
    assert untitled["metadata"]["header_level"] == 0
    _, pages = example_pages
    for page in pages:
        for chunk, record in zip(page.chunks, adr_records(page), strict=True):
            assert record["text"] == chunk.text
            for value in record["metadata"].values():
                assert isinstance(value, str | int | float | bool), (chunk.id, value)


# -- docsearch -------------------------------------------------------------------------------


@pytest.mark.parametrize(("markdown", "expected"), [
    ("## Title\n\nSome **bold**, *em* and ~~gone~~ text.", "Some bold, em and gone text."),
    ("A [link](https://x.org/a_%28b%29) and ![alt text](img.png).", "A link and alt text."),
    ('A [*linked* `code`](u "title") \\_escaped\\_ and __strong__.',
     "A linked code _escaped_ and strong."),
    ("Call `f(*args)` with $x_1$ now[^1].", "Call f(*args) with x_1 now."),
    ("```python\nprint('**not emphasis**')\n```", "print('**not emphasis**')"),
    ("- item one\n- [ ] task\n    1. nested", "item one task nested"),
    ("> **Note**\n>\n> quoted `code`", "Note quoted code"),
    ("| a | b\\|c |\n| --- | --- |\n| 1 | 2 |", "a b|c 1 2"),
    ("$$\ne = mc^2\n$$", "e = mc^2"),
    ("> $$\n> a *b* \\\\ c\n> $$\n>\n> After it.", "a *b* \\\\ c After it."),
    ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
])
def test_markdown_to_text(markdown: str, expected: str) -> None:
    assert markdown_to_text(markdown, skip_heading=True) == expected


def test_docsearch_records(example_pages: tuple[Path, list[PageChunks]]) -> None:
    _, pages = example_pages
    seen_types = set()
    for page in pages:
        for chunk, record in zip(page.chunks, docsearch_records(page), strict=True):
            native = chunk.as_native()
            assert record["objectID"] == native["id"]
            assert record["url"] == native["absoluteUrl"]
            assert record["url"].startswith("https://example.com/docs/")
            assert record["url_without_anchor"] + (f"#{record['anchor']}" if record["anchor"]
                                                   else "") == record["url"]
            assert record["anchor"] == (native["sectionSlug"] or None)
            levels = [record["hierarchy"][f"lvl{n}"] for n in range(7)]
            filled = [level for level in levels if level is not None]
            assert levels[:len(filled)] == filled  # no gaps
            assert filled[-len(chunk.header_path):] == list(chunk.header_path) or not (
                chunk.header_path)
            assert filled[0] == (chunk.file_title or chunk.header_path[0])
            content = record["content"]
            seen_types.add(record["type"])
            if content:
                assert record["type"] == "content" and record["weight"]["level"] == 0
                assert not re.search(r"```\w", content), chunk.id  # no fence info strings
                assert "](https://example.com/docs/" not in content  # no link targets
                assert not content.startswith("#")
                if "**" in chunk.text and "`" not in chunk.text:
                    assert "**" not in content
            assert record["weight"]["position"] == chunk.chunk_number
    assert "content" in seen_types
    *_, heading_only = docsearch_records(chunk_page(
        "# Page\n\nThe page's own text.\n\n## Lonely", site_url="", min_tokens=0))
    assert heading_only["content"] is None and heading_only["type"] == "lvl1"
    assert heading_only["weight"]["level"] == 90
    assert heading_only["url"] == "guide/page/#lonely"
    assert heading_only["hierarchy"] == {"lvl0": "Page", "lvl1": "Lonely", "lvl2": None,
                                         "lvl3": None, "lvl4": None, "lvl5": None, "lvl6": None}
    [titled] = docsearch_records(chunk_page("# Page\n\nBody **text**.\n\n### Sub\n\nMore."))
    assert titled["hierarchy"]["lvl0"] == "Page" and titled["hierarchy"]["lvl1"] is None
    assert titled["content"] == "Body text. Sub More."


# -- every profile agrees with the native record ---------------------------------------------


def test_every_profile_agrees_with_native(example_pages: tuple[Path, list[PageChunks]]) -> None:
    _, pages = example_pages
    checked = 0
    for page in pages:
        native = [chunk.as_native() for chunk in page.chunks]
        by_profile = {name: list(profile.records(page.chunks, ProfileSettings(language="en")))
                      for name, profile in PROFILES.items()}
        for number, record in enumerate(native):
            text = record["originalText"]
            start, end = record["charOffsets"]["charStart"], record["charOffsets"]["charEnd"]
            assert page.markdown[start:end] == text
            assert by_profile["native"][number] == record
            files = by_profile["files"][number]["record"]
            assert (files["originalText"], files["charOffsets"], files["id"]) == (
                text, record["charOffsets"], record["id"])
            assert by_profile["hepilot"][number]["content"] == text
            for name in ("semantic", "flat"):
                semantic = by_profile[name][number]
                assert (semantic["text"], semantic["start"], semantic["end"]) == (text, start, end)
                assert semantic["sha256"] == record["sha256"]
            chunker = by_profile["markdown_chunker"][number]
            assert chunker["content"] == text
            assert (chunker["metadata"]["start_line"], chunker["metadata"]["end_line"]) == (
                record["lineRange"]["startLine"], record["lineRange"]["endLine"])
            assert chunker["metadata"]["chunk_index"] == record["chunkNumber"]
            assert by_profile["adr"][number]["text"] == text
            docsearch = by_profile["docsearch"][number]
            assert docsearch["objectID"] == record["id"]
            assert docsearch["content"] == (markdown_to_text(
                text, skip_heading=text.startswith("#" * (record["headerDepths"] or [0])[-1]
                                                   + " ")) or None)
            checked += 1
    assert checked == sum(len(page.chunks) for page in pages)


# -- writing the formats ---------------------------------------------------------------------


def write_profiles(site_dir: Path, pages: list[PageChunks], formats: list[str], *,
                   output: str = "chunks.jsonl", language: str | None = None) -> dict[str, Path]:
    """Every selected format of `pages` written into `site_dir` the way a build writes them: each
    page's records (`page_records`), then the files
    (`write_records`)."""
    merged: dict[str, list[Any]] = {name: [] for name in check_formats(formats)}
    for page in pages:
        for name, records in page_records(page, formats, language=language).items():
            merged[name].extend(records)
    return write_records(site_dir, {name: [records_block(records)]
                                    for name, records in merged.items()}, output=output)

TARGETS = {"native": "chunks.jsonl", "files": "chunks", "hepilot": "chunks.hepilot.jsonl",
           "semantic": "chunks.semantic.jsonl", "flat": "chunks.flat.jsonl",
           "markdown_chunker": "chunks.markdown_chunker.jsonl", "adr": "chunks.adr.jsonl",
           "docsearch": "docsearch.json", "sqlite": "chunks.sqlite", "pagefind": "pagefind",
           "sections": "sections.jsonl"}


def _leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()
                  if path.name.startswith(".") and path.name.endswith((".tmp", ".old")))


def test_write_profiles_writes_every_format(example_pages: tuple[Path, list[PageChunks]]
                                            ) -> None:
    site, pages = example_pages
    (site / "chunks").mkdir(exist_ok=True)
    (site / "chunks" / "stale.json").write_text("{}", encoding="utf-8")
    written = write_profiles(site, pages, list(PROFILES), language="en")
    assert {name: path.name for name, path in written.items()} == TARGETS
    total = sum(len(page.chunks) for page in pages)
    for name, target in TARGETS.items():
        path = site / target
        if name == "files":
            names = sorted(p.name for p in path.iterdir())
            assert names == sorted(p.removeprefix("chunks/") for p in files_layout(pages))
            sample = json.loads((path / names[0]).read_text(encoding="utf-8"))
            assert list(sample) == SEED_002_KEYS
        elif name == "docsearch":
            records = json.loads(path.read_text(encoding="utf-8"))
            assert isinstance(records, list) and len(records) == total
        elif name == "pagefind":
            entry = json.loads((path / "pagefind-entry.json").read_text(encoding="utf-8"))
            sections = {chunk.url for page in pages for chunk in page.chunks}
            assert entry["languages"]["en"]["page_count"] == len(sections)
        elif name == "sqlite":
            from mdchunk.outputs.sqlite import read_sqlite

            native = [c.as_native() for page in pages for c in page.chunks]
            assert read_sqlite(path) == json.loads(json.dumps(native))
        elif name == "sections":
            lines = path.read_text(encoding="utf-8").splitlines()
            assert len(lines) == sum(len(page.sections) for page in pages)
        else:
            lines = path.read_text(encoding="utf-8").splitlines()
            assert len(lines) == total
            expected = [r for page in pages for r in PROFILES[name].records(
                page.chunks, ProfileSettings(language="en"))]
            assert [json.loads(line) for line in lines] == json.loads(json.dumps(expected))
    hepilot = (site / "chunks.hepilot.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(VALIDATOR.is_valid(json.loads(line)) for line in hepilot)
    assert _leftovers(site) == []


def test_write_profiles_output_name_and_selection(tmp_path: Path) -> None:
    page = chunk_page("# T\n\nText.")
    written = write_profiles(tmp_path, [page], ["native", "adr", "adr"], output="index.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.adr.jsonl", "index.jsonl"]
    assert written == {"native": tmp_path / "index.jsonl", "adr": tmp_path / "chunks.adr.jsonl"}
    write_profiles(tmp_path, [], ["docsearch"])
    assert json.loads((tmp_path / "docsearch.json").read_text(encoding="utf-8")) == []


def test_unknown_format_is_an_option_error_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(OptionError) as caught:
        write_profiles(tmp_path, [chunk_page("# T\n\nText.")], ["native", "algolia"])
    assert caught.value.option == "formats"
    assert "'algolia'" in str(caught.value)
    for name in PROFILES:
        assert name in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_failed_folder_write_keeps_the_old_folder(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    page = chunk_page("# T\n\n" + "\n\n".join(f"## S{n}\n\nText {n}." for n in range(5)),
                      min_tokens=0)
    write_profiles(tmp_path, [page], ["files"])
    before = {p.name: p.read_bytes() for p in (tmp_path / "chunks").iterdir()}
    assert len(before) == len(page.chunks) > 1
    calls = 0
    real_dumps = json.dumps

    def failing(*args: Any, **kwargs: Any) -> str:
        nonlocal calls
        calls += 1
        if calls > 2:
            raise OSError("disk full")
        return real_dumps(*args, **kwargs)

    monkeypatch.setattr(output_module.json, "dumps", failing)
    changed = dataclasses.replace(page, chunks=tuple(
        dataclasses.replace(c, text=c.text + " changed") for c in page.chunks))
    with pytest.raises(OSError, match="disk full"):
        write_profiles(tmp_path, [changed], ["files"])
    assert {p.name: p.read_bytes() for p in (tmp_path / "chunks").iterdir()} == before
    assert _leftovers(tmp_path) == []


def test_native_features_only_gain_keys() -> None:
    record = only("## T\n\n- a\n\n```python\nx\n```", title="").as_native()
    assert {"headings", "paragraphs", "lists", "listItems", "codeBlocks", "tables",
            "equationsDisplay", "equationsInline", "admonitions", "languages"} <= set(
        record["features"])
    assert record["features"]["codeLanguages"] == ["python"]
    assert record["features"]["headingLevels"] == [2]


@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=80))
@settings(max_examples=300)
def test_uuid5_text_is_the_standard_uuid5(name: str) -> None:
    """The chunk uuids are built without `uuid.UUID` objects, and are the same text."""
    from mdchunk.chunking.chunk import UUID_NAMESPACE, uuid5_text

    assert uuid5_text(name) == str(uuid.uuid5(UUID_NAMESPACE, name))


def test_docsearch_content_reads_the_page_as_text(make_site: SiteBuilder) -> None:
    """The `docsearch` content is the page's text: escaped characters as themselves, a link
    as its text (brackets in it too), emphasis without its marks in every spelling, code as it
    is (a bracketed name in code is no link)."""
    page = """\
        # Calls

        Pass `f(*args)` or [`g[0]`](https://example.org/g) as *many* or __all__, with
        `a[i](j)` in code and a literal \\*star\\* and <del>old</del> [RFC 1][rfc].

        [rfc]: https://example.org/rfc
        """
    site = make_site({"index.md": page}, plugin={"formats": ["native", "docsearch"]})
    records = json.loads((site / "docsearch.json").read_text(encoding="utf-8"))
    assert records[0]["content"] == ("Pass f(*args) or g[0] as many or all, with a[i](j) in code "
                                     "and a literal *star* and old RFC 1.")


@given(name=TEXT)
def test_chunk_uuids_are_the_standard_library_uuid5(name: str) -> None:
    """`uuid5_text` (every record's `uuid` and `documentUuid`) gives what `uuid.uuid5` gives."""
    assert uuid5_text(name) == str(uuid.uuid5(UUID_NAMESPACE, name))
