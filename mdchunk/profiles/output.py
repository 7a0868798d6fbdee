"""Writers the profiles need beyond `mdchunk.writers`: a JSON array, a folder of JSON files."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from mdchunk.writers import atomic_write, dumps


def write_json_array(path: Path, records: Iterable[Any]) -> int:
    """Write one JSON array, a record per line, atomically; return the number of records."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        handle.write(b"[")
        for record in records:
            handle.write(b",\n" if count else b"\n")
            handle.write(dumps(record).encode("utf-8"))
            count += 1
        handle.write(b"\n]\n" if count else b"]\n")

    atomic_write(path, write)
    return count


def write_folder(folder: Path, files: Mapping[str, Any]) -> int:
    """Replace `folder` by one holding `files` (name inside it -> JSON record).

    The files are written into a temporary folder beside `folder` and flushed to disk
    (`os.sync`, once, rather than one fsync per file), then the old folder is renamed away and
    the new one renamed into place: a reader sees the old folder or the whole new one (or, for
    the instant between the two renames, none). On any error the temporary folder is removed
    and the old folder is left in place.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    retired: Path | None = None
    try:
        for name, record in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
            path.write_bytes(text.encode("utf-8", "replace"))
        os.chmod(staging, 0o755)
        if hasattr(os, "sync"):
            os.sync()
        if folder.exists():
            retired = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.",
                                            suffix=".old"))
            os.replace(folder, retired / folder.name)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if retired is not None:
            with contextlib.suppress(OSError):
                if not folder.exists():
                    os.replace(retired / folder.name, folder)
            shutil.rmtree(retired, ignore_errors=True)
        raise
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
    return len(files)
