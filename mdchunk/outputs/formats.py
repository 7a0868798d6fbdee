"""The files of each output format: one page's records in every selected format, and the merged
records of a site written next to it, each file (or folder) atomically."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from mdchunk.outputs.pagefind_bundle import write_bundle
from mdchunk.outputs.profiles import (
    PROFILES,
    ChunksLike,
    ProfileSettings,
    Record,
    check_formats,
    chunks_of,
    file_path,
    file_record,
    files_by_name,
)
from mdchunk.outputs.sqlite import write_sqlite
from mdchunk.outputs.writers import atomic_write, record_encoder, replace_folder, write_jsonl
from mdchunk.settings import DEFAULT_FOLDER


def page_records(page: ChunksLike, formats: Sequence[str], *, language: str | None = None,
                 pagefind_filters: Sequence[str] = ()) -> dict[str, list[str]]:
    """One page's records for each selected format, in chunk order, each as its JSON text (for
    `files`: `{"path", "record"}` pairs).

    A page's records are encoded here, once, where the page is chunked (a worker process, a
    Sphinx worker): the process that writes the index joins them (`write_records`), and the
    page cache keeps them as they are. The text is that of `writers.dumps`, written by orjson
    where it writes the same (`record_encoder`). `language` and `pagefind_filters`: see
    `ProfileSettings`.
    """
    settings = ProfileSettings(language=language, pagefind_filters=tuple(pagefind_filters))
    chunks = chunks_of(page)
    encode = record_encoder([chunks[0].front_matter, chunks[0].chunking_options] if chunks
                            else [])
    records: dict[str, list[str]] = {}
    for name in check_formats(formats):
        profile = PROFILES[name]
        made: list[Record]
        if profile.layout == "files":
            made = [{"path": file_path(c), "record": file_record(c)} for c in chunks]
        else:
            made = profile.records(page, settings)
        records[name] = list(map(encode, made))
    return records


def write_records(site_dir: Path, records: Mapping[str, Iterable[str]], *,
                  output: str = "chunks.jsonl", pagefind_output: str = DEFAULT_FOLDER
                  ) -> dict[str, Path]:
    """Write the merged records of each format (JSON text, as `page_records` makes them) into
    `site_dir`, each file (or folder) atomically.

    The JSON Lines and JSON formats are written as their records come; the SQLite file, the
    Pagefind bundle and the chunk files need the records' fields, and decode each record as
    it goes to them. `output` and `pagefind_output`: where the native index and the Pagefind
    bundle go, relative to `site_dir`.

    Raises:
        PageError: when two pages would write the same chunk file (`files`).
        PagefindError: when Pagefind cannot write its bundle.
    """
    written: dict[str, Path] = {}
    targets = {"native": output, "pagefind": pagefind_output}
    for name, format_records in records.items():
        profile = PROFILES[name]
        target = site_dir / targets.get(name, profile.target)
        if profile.layout == "pagefind":
            write_bundle(target, map(json.loads, format_records))
        elif profile.layout == "files":
            write_folder(target, files_by_name(map(json.loads, format_records)))
        elif profile.layout == "json":
            write_json_array(target, format_records)
        elif profile.layout == "sqlite":
            write_sqlite(target, map(json.loads, format_records))
        else:
            write_jsonl(target, format_records)
        written[name] = target
    return written


def write_json_array(path: Path, records: Iterable[str]) -> int:
    """Write one JSON array, a record (its JSON text) per line, atomically; return the number
    of records."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        handle.write(b"[")
        for text in records:
            handle.write((b",\n" if count else b"\n") + text.encode("utf-8"))
            count += 1
        handle.write(b"\n]\n" if count else b"]\n")

    atomic_write(path, write)
    return count


def write_folder(folder: Path, files: Mapping[str, Any]) -> int:
    """Replace `folder` by one holding `files` (name inside it -> JSON record), atomically
    (see `mdchunk.outputs.writers.replace_folder`); return the number of files."""
    replace_folder(folder, {
        name: (json.dumps(record, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "replace")
        for name, record in files.items()
    })
    return len(files)
