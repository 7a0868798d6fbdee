"""Writers the profiles need beyond `mdchunk.writers`: a JSON array, a folder of JSON files."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from mdchunk.writers import atomic_write, dumps, replace_folder


def write_json_array(path: Path, records: Iterable[Any], *, encoded: bool = False) -> int:
    """Write one JSON array, a record per line, atomically; return the number of records.

    `encoded`: the records are already `dumps` text (made where the pages were chunked).
    """
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        handle.write(b"[")
        for record in records:
            handle.write(b",\n" if count else b"\n")
            handle.write((record if encoded else dumps(record)).encode("utf-8"))
            count += 1
        handle.write(b"\n]\n" if count else b"]\n")

    atomic_write(path, write)
    return count


def write_folder(folder: Path, files: Mapping[str, Any]) -> int:
    """Replace `folder` by one holding `files` (name inside it -> JSON record), atomically
    (see `mdchunk.writers.replace_folder`); return the number of files."""
    replace_folder(folder, {
        name: (json.dumps(record, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "replace")
        for name, record in files.items()
    })
    return len(files)
