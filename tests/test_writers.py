"""Atomic writers: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mdchunk.writers import atomic_write, dumps, write_jsonl, write_text


def test_write_jsonl_round_trips_and_counts(tmp_path: Path) -> None:
    records = [{"id": i, "text": f"ü {i}\n", "nested": {"a": [1, 2]}} for i in range(5)]
    assert write_jsonl(tmp_path / "out.jsonl", records) == 5
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records


def test_failure_midway_keeps_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "chunks.jsonl"
    write_jsonl(target, [{"id": "old"}])
    before = target.read_bytes()

    def records() -> Iterator[dict[str, str]]:
        yield {"id": "new-1"}
        raise RuntimeError("crashed while writing")

    with pytest.raises(RuntimeError, match="crashed"):
        write_jsonl(target, records())
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.jsonl"]


def test_lone_surrogates_never_reach_the_file(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "x.jsonl", [{"text": "bad \ud800 char"}])
    data = (tmp_path / "x.jsonl").read_bytes()
    data.decode("utf-8")  # strict: raises on invalid UTF-8
    assert json.loads(data)["text"] == "bad ? char"
    assert "\ud800" not in dumps({"t": "\ud800"})


def json_line(record: Any) -> str:
    """What `dumps` wrote before it used orjson: the text it must keep writing."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return line.encode("utf-8", "replace").decode("utf-8")


#: Text with any code point, lone surrogates and controls included.
any_text = st.text(st.characters(exclude_categories=()))
json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | any_text,
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
    | st.dictionaries(any_text, inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(json_like)
@example({"small": 1e-05, "large": 1e16, "5e15": 5e15, "edge": 0.0001, "tiny": -9.9e-05})
@example([float("nan"), float("inf"), -0.0, 2**63, 2**64, -(2**63) - 1, 12.5])
@example({"text": "bad \ud800 char", "é": ["ü", "\x00\x1f\x7f\u2028"]})
def test_dumps_writes_what_json_writes(record: Any) -> None:
    assert dumps(record) == json_line(record)


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize("depth", [253, 254, 255, 256, 600])
def test_dumps_of_deep_records_is_what_json_writes(depth: int) -> None:
    # Around the depth orjson refuses, with a float orjson would write otherwise at the bottom.
    for leaf in (1, "x", 1e16):
        assert dumps(nested(depth, leaf)) == json_line(nested(depth, leaf))


def test_dumps_of_a_record_holding_itself_fails_as_json_does() -> None:
    record: dict[str, Any] = {"a": [1, 2]}
    record["a"].append(record)
    with pytest.raises(ValueError, match="Circular reference"):
        json_line(record)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(record)


def test_write_text_and_atomic_write_create_folders(tmp_path: Path) -> None:
    write_text(tmp_path / "a" / "b" / "index.md", "# Title\n")
    assert (tmp_path / "a" / "b" / "index.md").read_text() == "# Title\n"
    atomic_write(tmp_path / "c" / "bin", lambda handle: handle.write(b"\x00\x01") and None)
    assert (tmp_path / "c" / "bin").read_bytes() == b"\x00\x01"


def test_folder_swap_sweeps_what_killed_writers_left(tmp_path: Path) -> None:
    from mdchunk.writers import replace_folder

    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    for leftover in (f".chunks.{dead}.abc.tmp", f".chunks.{dead}.def.old"):
        (tmp_path / leftover / "chunks").mkdir(parents=True)
    (tmp_path / f".chunks.{dead}.ghi.tmp.keep").mkdir()  # not one of ours: kept
    replace_folder(tmp_path / "chunks", {"a.json": b"{}", "sub/b.json": b"[]"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".chunks.{dead}.ghi.tmp.keep",
                                                          "chunks"]
    assert (tmp_path / "chunks" / "sub" / "b.json").read_bytes() == b"[]"
    replace_folder(tmp_path / "chunks", {"c.json": b"{}"})
    assert sorted(p.name for p in (tmp_path / "chunks").iterdir()) == ["c.json"]


def a_chunk(values: dict[str, Any] | None = None) -> Any:
    """A real chunk (the second of a small page) to vary."""
    from mdchunk import Chunker, ChunkOptions, PageInput

    html = ("<h1 id='t'>Title</h1><p>Intro text here.</p><h2 id='a'>A</h2>"
            + "<p>Some words in a paragraph. </p>" * 40 + "<h2 id='b'>B</h2><p>More.</p>")
    chunker = Chunker(ChunkOptions.validated({"max_tokens": 64, **(values or {})}))
    page = PageInput(html=html, source_path="p.md", url="p/", title="Title")
    return chunker.chunk_page(page).chunks[1]


PLAIN_CHUNK = a_chunk()
ADAPTIVE_CHUNK = a_chunk({"adaptive_sizing": True})
engine_text = any_text | st.builds(type("Name", (str,), {}), any_text)


native_cases = st.fixed_dictionaries({
    "front_matter": st.dictionaries(any_text, json_like, max_size=4) | json_like,
    "options": st.dictionaries(any_text, json_like, max_size=3),
    "seconds": st.floats() | st.integers(),
    "adaptive": st.none() | st.tuples(st.floats(), st.floats()),
    "title": engine_text, "url": engine_text, "path": engine_text,
})


@settings(max_examples=400, deadline=None)
@given(native_cases)
@example({"front_matter": nested(252, 1), "options": {}, "seconds": 1.5, "adaptive": None,
          "title": "T", "url": "u/", "path": "p.md"})
@example({"front_matter": {"when": 1e20}, "options": {"x": [2**70]}, "seconds": 1e-07,
          "adaptive": (float("nan"), 1.0), "title": "T\ud800", "url": "u/", "path": "p.md"})
def test_the_native_records_verdict_is_the_walks(case: dict[str, Any]) -> None:
    # `native_record_writes_as_json` looks only where a native record can hold what orjson
    # writes otherwise than json: it must say what the walk of the whole record says, and
    # the line written with its verdict must be json's.
    import dataclasses

    from mdchunk.records import (
        native_record,
        native_record_writes_as_json,
        orjson_writes_as_json,
    )

    adaptive = case["adaptive"]
    chunk = dataclasses.replace(
        PLAIN_CHUNK if adaptive is None else ADAPTIVE_CHUNK, front_matter=case["front_matter"],
        chunking_options=case["options"], processing_time_ms=case["seconds"],
        file_title=case["title"], page_url=case["url"], source_file=case["path"],
        **({} if adaptive is None else {"adaptive": adaptive}))
    record = native_record(chunk)
    verdict = native_record_writes_as_json(chunk, {})
    assert verdict == orjson_writes_as_json(record)
    assert dumps(record, as_json=verdict) == json_line(record)
