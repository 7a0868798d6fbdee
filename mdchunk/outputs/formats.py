"""The files of each output format: the merged records of a site (each page's made where it was
chunked, `mdchunk.outputs.page_output`) written next to it, each file (or folder) atomically.

The writers of the SQLite file, the Pagefind bundle and the chunk files are imported when their
format is written: a build writes the formats it selected, and loads only their writers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from mdchunk.outputs.catalog import FORMATS
from mdchunk.outputs.writers import atomic_write, replace_folder, write_blocks
from mdchunk.settings import DEFAULT_FOLDER


def write_records(site_dir: Path, records: Mapping[str, Iterable[bytes]], *,
                  output: str = "chunks.jsonl", pagefind_output: str = DEFAULT_FOLDER,
                  page_kinds: Sequence[tuple[str, str]] = (),
                  complete_sqlite: Callable[[Path], object] | None = None) -> dict[str, Path]:
    """Write the merged records of each format into `site_dir`, each file (or folder)
    atomically. Each format's records come as blocks of bytes, one per page: the UTF-8 of its
    records' JSON text (as `page_records` makes them), each record a line ending with a line
    break.

    The JSON Lines and JSON formats are written as their blocks come; the SQLite file, the
    Pagefind bundle and the chunk files need the records' fields, and decode each record as
    it goes to them. `output` and `pagefind_output`: where the native index and the Pagefind
    bundle go, relative to `site_dir`; `page_kinds`: the site's (glob, kind) pairs, kept in
    the SQLite file for search (`mdchunk.search.kinds`); `complete_sqlite`: adds to the SQLite
    file before it replaces the last one (`write_sqlite`'s `complete`).

    Raises:
        PageError: when two pages would write the same chunk file (`files`).
        PagefindError: when Pagefind cannot write its bundle.
    """
    written: dict[str, Path] = {}
    for name, blocks in records.items():
        layout = FORMATS[name].layout
        target = format_target(site_dir, name, output=output, pagefind_output=pagefind_output)
        if layout == "pagefind":
            from mdchunk.outputs.pagefind_bundle import write_bundle

            write_bundle(target, map(json.loads, record_lines(blocks)))
        elif layout == "files":
            from mdchunk.outputs.profiles.files import files_by_name

            write_folder(target, files_by_name(map(json.loads, record_lines(blocks))))
        elif layout == "json":
            write_json_array(target, record_lines(blocks))
        elif layout == "sqlite":
            from mdchunk.outputs.sqlite import write_sqlite

            write_sqlite(target, map(json.loads, record_lines(blocks)), page_kinds=page_kinds,
                         complete=complete_sqlite)
        else:
            write_blocks(target, blocks)
        written[name] = target
    return written


def format_target(site_dir: Path, name: str, *, output: str = "chunks.jsonl",
                  pagefind_output: str = DEFAULT_FOLDER) -> Path:
    """Where `write_records` writes the file (or folder) of format `name` (`output` and
    `pagefind_output`: as there)."""
    targets = {"native": output, "pagefind": pagefind_output}
    return site_dir / targets.get(name, FORMATS[name].target)


def records_block(records: Iterable[str]) -> bytes:
    """The block of records (their JSON text) that `write_records` takes for one page."""
    return "".join([f"{record}\n" for record in records]).encode("utf-8")


def record_lines(blocks: Iterable[bytes]) -> Iterator[bytes]:
    """The records of `blocks` (see `write_records`), each its JSON text in UTF-8."""
    for block in blocks:
        yield from block.split(b"\n")[:-1]


def write_json_array(path: Path, records: Iterable[bytes]) -> int:
    """Write one JSON array, a record (the UTF-8 of its JSON text) per line, atomically; return
    the number of records."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        handle.write(b"[")
        for text in records:
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
