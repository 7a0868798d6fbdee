"""Atomic, deterministic writers: a temporary file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

try:  # the `fast` extra: the same bytes as the standard library, in a third of the time
    import orjson
except ImportError:  # pragma: no cover - every test environment installs it
    orjson = None  # type: ignore[assignment]


def atomic_write(path: Path, write: Callable[[IO[bytes]], object], *, durable: bool = True,
                 sweep: bool = True) -> None:
    """Write `path` through `write` so that readers see the old file or the whole new one.

    The data goes to a temporary file in the same folder, is flushed to disk, then renamed over
    `path`; on any error the temporary file is removed and `path` is left as it was. With
    `durable=False` the flush to disk is skipped (the rename still makes the file appear whole):
    for files derived from the site, which a power loss would rebuild anyway. A writer
    killed outright (SIGKILL, power loss) cannot remove its temporary file: the next write of
    the same `path` does (see `sweep_stale_temporaries`), unless `sweep=False` says that the
    folder's owner sweeps it as a whole (a folder of many files, each written once: a sweep at
    each write would read the folder each time). A folder made for this write holds nothing to
    sweep.
    """
    temporary, handle, made = _temporary_beside(path)
    if sweep and not made:
        sweep_stale_temporaries(path)  # (this process's own temporary file is kept)
    try:
        with handle:
            write(handle)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _temporary_beside(path: Path) -> tuple[str, IO[bytes], bool]:
    """A new temporary file beside `path`, open for writing, named as `sweep_stale_temporaries`
    finds it (`.{name}.{pid}.{random}.tmp`); the folder is made when it is missing. Also says
    whether it made the folder.

    One `open` where the folder is there (a build writes many files into folders that exist):
    the folder is made only when the open says it is missing."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(
        os, "O_BINARY", 0)
    prefix = os.path.join(path.parent, f".{path.name}.{os.getpid()}.")
    made = False
    for _ in range(100):
        temporary = f"{prefix}{os.urandom(5).hex()}.tmp"
        try:
            descriptor = os.open(temporary, flags, 0o600)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            made = True
            continue
        except FileExistsError:
            continue
        return temporary, os.fdopen(descriptor, "w+b"), made
    raise FileExistsError(f"no free name for a temporary file beside {path}")


def replace_folder(folder: Path, files: Mapping[str, bytes]) -> None:
    """Replace `folder` by one holding `files` (relative name -> content), atomically
    (`staged_folder`)."""
    with staged_folder(folder) as staging:
        for name, data in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.chmod(path, 0o644)


@contextlib.contextmanager
def staged_folder(folder: Path, *, durable: bool = True) -> Iterator[Path]:
    """A temporary folder beside `folder` to write into, which replaces `folder` atomically
    when the block ends without an error.

    What was written is flushed to disk (one `os.sync` rather than an fsync per file; skipped
    with `durable=False`), then the old folder is renamed away and the new one renamed into
    place: a reader sees the old folder or the whole new one (or, for the instant between the
    two renames, none). On any error the temporary folders are removed and the old folder is
    put back; folders left by a killed writer go at the next write (`sweep_stale_temporaries`).
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_temporaries(folder)
    prefix = f".{folder.name}.{os.getpid()}."
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=prefix, suffix=".tmp"))
    retired: Path | None = None
    try:
        yield staging
        os.chmod(staging, 0o755)
        if durable and hasattr(os, "sync"):
            os.sync()
        if folder.exists():
            retired = Path(tempfile.mkdtemp(dir=folder.parent, prefix=prefix, suffix=".old"))
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


def sweep_stale_temporaries(path: Path) -> list[Path]:
    """Remove what earlier writes of `path` left behind when their writer was killed.

    Temporary files and folders are named `.{name}.{pid}.{random}.tmp` (and `.old` for a
    folder being replaced); those whose process no longer exists were left by a killed writer.
    Those of live processes (a concurrent build) are kept. Returns what was removed.
    """
    return sweep_folder(path.parent, {path.name})


def sweep_folder(folder: Path, names: Container[str]) -> list[Path]:
    """`sweep_stale_temporaries` of every file of `folder` named in `names`, in one read of the
    folder (for a folder of many files written without a sweep each: `atomic_write`'s
    `sweep`)."""
    removed: list[Path] = []
    try:
        candidates = [entry for entry in os.scandir(folder) if entry.name.startswith(".")
                      and entry.name.endswith((".tmp", ".old"))]
    except OSError:
        return removed
    for entry in candidates:
        name = entry.name[1:-4].rpartition(".")[0]  # (the random part left out)
        name, _, pid = name.rpartition(".")
        if name not in names or not pid.isdigit() or _process_alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":
        # Another thread of this process may be writing the same file; on Windows
        # os.kill(pid, 0) would terminate the process, so nothing is swept there.
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's) or cannot tell: keep its file
    return True


def dumps(record: Any) -> str:
    """One JSON line: UTF-8 text, keys in the record's own order, lone surrogates as "?"."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return line.encode("utf-8", "replace").decode("utf-8")


def loads(text: bytes | str) -> Any:
    """JSON text read back (what `dumps` wrote): by orjson where it is installed, which reads
    the same values faster; what it refuses (`NaN`, integers beyond 64 bits) by the standard
    library's `json`."""
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def record_encoder(outside: Iterable[Any]) -> Callable[[Any], str]:
    """`dumps` for records whose only values from outside mdchunk are among `outside` (a page's
    front matter, the chunking options): orjson where it is installed and writes them as
    `dumps` does, else `dumps`.

    orjson writes the same text as the standard library, but for floats that Python writes with
    an exponent (`0.00001` for `1e-05`; some releases `1e16` for `1e+16`) or that are not
    finite (`null` for `NaN`), which only user values can hold (mdchunk's own floats are
    rounded to three decimals); and it refuses what `dumps` takes otherwise:
    lone surrogates, integers beyond 64 bits, keys that are not text. Those records go to
    `dumps`."""
    if orjson is None or not all(map(_same_in_orjson, outside)):
        return dumps
    return _orjson_dumps


def _orjson_dumps(record: Any) -> str:
    try:
        return orjson.dumps(record).decode("utf-8")
    except TypeError:
        return dumps(record)


def _same_in_orjson(value: Any) -> bool:
    """Whether orjson writes `value` as `dumps` does, or refuses it (see `record_encoder`)."""
    if isinstance(value, float):
        return value == 0 or (math.isfinite(value) and 1e-4 <= abs(value) < 1e16)
    if isinstance(value, dict):
        return all(map(_same_in_orjson, value.values()))
    if isinstance(value, list | tuple):
        return all(map(_same_in_orjson, value))
    return True


def write_jsonl(path: Path, lines: Iterable[str]) -> int:
    """Write one record per line, atomically; return the number of records.

    Each record comes as its JSON text (`dumps`, or a page's records as `page_records` makes
    them): a record is encoded once, where it is made, and written as it is."""
    count = 0

    def write(handle: IO[bytes]) -> None:
        nonlocal count
        for line in lines:
            handle.write(line.encode("utf-8") + b"\n")
            count += 1

    atomic_write(path, write)
    return count


def write_blocks(path: Path, blocks: Iterable[bytes]) -> None:
    """Write a file of the blocks of bytes that `blocks` yields, in turn, atomically (a JSON
    Lines file joined from its pages' lines, each page's written as it was made)."""

    def write(handle: IO[bytes]) -> None:
        for block in blocks:
            handle.write(block)

    atomic_write(path, write)


def write_text(path: Path, text: str, *, durable: bool = True, sweep: bool = True) -> None:
    """Write a UTF-8 text file atomically (see `atomic_write` for `durable` and `sweep`)."""
    data = text.encode("utf-8", "replace")
    atomic_write(path, lambda handle: handle.write(data), durable=durable, sweep=sweep)
