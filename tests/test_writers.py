"""Atomic writers: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.outputs import writers
from mdchunk.outputs.writers import atomic_write, dumps, record_encoder, write_jsonl, write_text


def test_write_jsonl_round_trips_and_counts(tmp_path: Path) -> None:
    records = [{"id": i, "text": f"ü {i}\n", "nested": {"a": [1, 2]}} for i in range(5)]
    assert write_jsonl(tmp_path / "out.jsonl", map(dumps, records)) == 5
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records


def test_failure_midway_keeps_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "chunks.jsonl"
    write_jsonl(target, [dumps({"id": "old"})])
    before = target.read_bytes()

    def records() -> Iterator[str]:
        yield dumps({"id": "new-1"})
        raise RuntimeError("crashed while writing")

    with pytest.raises(RuntimeError, match="crashed"):
        write_jsonl(target, records())
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.jsonl"]


def test_lone_surrogates_never_reach_the_file(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "x.jsonl", [dumps({"text": "bad \ud800 char"})])
    data = (tmp_path / "x.jsonl").read_bytes()
    data.decode("utf-8")  # strict: raises on invalid UTF-8
    assert json.loads(data)["text"] == "bad ? char"
    assert "\ud800" not in dumps({"t": "\ud800"})


def test_write_text_and_atomic_write_create_folders(tmp_path: Path) -> None:
    write_text(tmp_path / "a" / "b" / "index.md", "# Title\n")
    assert (tmp_path / "a" / "b" / "index.md").read_text() == "# Title\n"
    atomic_write(tmp_path / "c" / "bin", lambda handle: handle.write(b"\x00\x01") and None)
    assert (tmp_path / "c" / "bin").read_bytes() == b"\x00\x01"


def test_folder_swap_sweeps_what_killed_writers_left(tmp_path: Path) -> None:
    from mdchunk.outputs.writers import replace_folder

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


def _json_containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)


# (a named function: hypothesis reads a lambda's source to see that it recurses, which a
# lambda over several lines can defeat)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    _json_containers, max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(outside=_JSON, own=_JSON)
def test_records_encode_to_the_same_text_with_or_without_orjson(outside: object,
                                                                own: object) -> None:
    """orjson where it writes what the standard library writes (`dumps`), `dumps` where not:
    floats it would write otherwise (1e-05, NaN), surrogates, integers beyond 64 bits."""
    record = {"frontMatter": outside, "own": own if _rounded(own) else None}
    assert record_encoder([outside])(record) == dumps(record)


def _rounded(value: object) -> bool:
    """Whether `value` holds only floats as mdchunk makes them (rounded, finite)."""
    if isinstance(value, float):
        return value == round(value, 3) and abs(value) < 1e15
    if isinstance(value, dict):
        return all(map(_rounded, value.values()))
    if isinstance(value, list):
        return all(map(_rounded, value))
    return True


def test_the_records_of_a_page_are_encoded_by_orjson_when_it_can() -> None:
    assert record_encoder([{"weight": 1.5, "tags": ["a"]}]) is not dumps
    assert record_encoder([{"weight": 1e-05}]) is dumps
    assert record_encoder([[float("nan")]]) is dumps


def test_a_write_sweeps_a_killed_writers_file_unless_the_folder_owner_does(
        tmp_path: Path) -> None:
    """The page cache writes many files into one folder and sweeps it as a whole when it
    prunes: its writes (`sweep=False`) do not read the folder each time."""
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    stale = tmp_path / f".page.json.{dead}.abc.tmp"
    stale.write_text("partial")
    write_text(tmp_path / "page.json", "{}", durable=False, sweep=False)
    assert stale.exists()
    write_text(tmp_path / "page.json", "{}", durable=False)
    assert not stale.exists()
    assert (tmp_path / "page.json").read_text() == "{}"


def test_a_write_into_a_folder_it_makes_reads_no_folder_to_sweep(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder made for the write holds no killed writer's file, so the write does not read
    it (a build writes a page's Markdown into a folder MkDocs just emptied); a folder that was
    there is swept as before, and the file is written whole either way."""
    swept: list[Path] = []
    original = writers.sweep_stale_temporaries

    def sweep(path: Path) -> list[Path]:
        swept.append(path)
        return original(path)

    monkeypatch.setattr(writers, "sweep_stale_temporaries", sweep)  # (counts the sweeps)
    page = tmp_path / "new" / "deeper" / "page.md"
    write_text(page, "text", durable=False)
    assert swept == []
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    stale = page.parent / f".page.md.{dead}.abc.tmp"
    stale.write_text("partial")
    write_text(page, "again", durable=False)
    assert swept == [page] and not stale.exists()
    assert page.read_text() == "again"
    assert [path.name for path in page.parent.iterdir()] == ["page.md"]
