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
from mdchunk.outputs.writers import (
    atomic_write,
    record_bytes,
    record_encoder,
    replace_folder,
    write_jsonl,
)
from mdchunk.settings import DEFAULT_FOLDER


def page_records(page: ChunksLike, formats: Sequence[str], *, language: str | None = None,
                 pagefind_filters: Sequence[str] = ()) -> dict[str, list[Record]]:
    """One page's records for each selected format (for `files`: `{"path", "record"}` pairs).

    Engines that chunk pages in worker processes (Sphinx -j N) call this per page and merge
    the results with `write_records` in the main process. `language` and `pagefind_filters`:
    see `ProfileSettings`.
    """
    settings = ProfileSettings(language=language, pagefind_filters=tuple(pagefind_filters))
    chunks = chunks_of(page)
    records: dict[str, list[Record]] = {}
    for name in check_formats(formats):
        profile = PROFILES[name]
        if profile.layout == "files":
            records[name] = [{"path": file_path(c), "record": file_record(c)} for c in chunks]
        else:
            records[name] = profile.records(page, settings)
    return records


ENCODED_LAYOUTS = frozenset({"jsonl", "json"})
"""Layouts written as JSON text one record at a time: their records can arrive encoded."""


def encoded_page_records(page: ChunksLike, formats: Sequence[str], *,
                         language: str | None = None, pagefind_filters: Sequence[str] = ()
                         ) -> dict[str, list[Record] | list[str]]:
    """`page_records`, with the records of the `ENCODED_LAYOUTS` formats as JSON text
    (`writers.dumps`): a page's records are encoded once, where it is chunked."""
    records = page_records(page, formats, language=language, pagefind_filters=pagefind_filters)
    chunks = chunks_of(page)
    encode = record_encoder([chunks[0].front_matter, chunks[0].chunking_options] if chunks
                            else [])
    encoded: dict[str, list[Record] | list[str]] = {}
    for name in records:
        if PROFILES[name].layout in ENCODED_LAYOUTS:
            encoded[name] = list(map(encode, records[name]))
        else:
            encoded[name] = records[name]
    return encoded


def write_records(site_dir: Path, records: Mapping[str, Iterable[Record]], *,
                  output: str = "chunks.jsonl", encoded: bool = False,
                  pagefind_output: str = DEFAULT_FOLDER) -> dict[str, Path]:
    """Write the merged records of each format into `site_dir`, each file (or folder) atomically.

    `encoded`: the records of the `ENCODED_LAYOUTS` formats are already JSON text (`dumps`).
    `output` and `pagefind_output`: where the native index and the Pagefind bundle go, relative
    to `site_dir`.

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
            write_bundle(target, format_records)
        elif profile.layout == "files":
            write_folder(target, files_by_name(format_records))
        elif profile.layout == "json":
            write_json_array(target, format_records, encoded=encoded)
        elif profile.layout == "sqlite":
            write_sqlite(target, format_records)
        else:
            write_jsonl(target, format_records, encoded=encoded)
        written[name] = target
    return written


def write_json_array(path: Path, records: Iterable[Any], *, encoded: bool = False) -> int:
    """Write one JSON array, a record per line, atomically; return the number of records
    (`encoded`: see `record_bytes`)."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        handle.write(b"[")
        for text in record_bytes(records, encoded=encoded):
            handle.write((b",\n" if count else b"\n") + text)
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
