"""Atomic, deterministic writers: a temporary file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any


def atomic_write(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write `path` through `write` so that readers see the old file or the whole new one.

    The data goes to a temporary file in the same folder, is flushed to disk, then renamed over
    `path`; on any error the temporary file is removed and `path` is left as it was.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, renamed or removed
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise


def dumps(record: Any) -> str:
    """One JSON line: UTF-8 text, keys in the record's own order, no lone surrogates."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return line.encode("utf-8", "replace").decode("utf-8")


def write_jsonl(path: Path, records: Iterable[Any]) -> int:
    """Write one JSON record per line, atomically; return the number of records."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        for record in records:
            handle.write(dumps(record).encode("utf-8"))
            handle.write(b"\n")
            count += 1

    atomic_write(path, write)
    return count


def write_text(path: Path, text: str) -> None:
    """Write a UTF-8 text file atomically."""
    data = text.encode("utf-8", "replace")
    atomic_write(path, lambda handle: handle.write(data) and None)
