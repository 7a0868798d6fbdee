"""The `native` profile: mdchunk's own record (seed 002's names and more), `Chunk.as_native()`."""

from __future__ import annotations

from mdchunk.profiles.base import ChunksLike, Record, chunks_of
from mdchunk.records import native_record, native_record_writes_as_json
from mdchunk.writers import dumps


def native_records(page: ChunksLike) -> list[Record]:
    """The native records of one page's chunks, in order."""
    return [chunk.as_native() for chunk in chunks_of(page)]


def native_lines(page: ChunksLike) -> list[str]:
    """The native records of one page's chunks as JSON lines (`writers.dumps`), in order.

    Each is encoded without the walk `dumps` makes of a record it knows nothing of: what orjson
    may write otherwise than json is told by the few values of the chunk that can hold it
    (`records.native_record_writes_as_json`; the page's front matter and options are looked at
    once)."""
    seen: dict[int, bool] = {}
    return [dumps(native_record(chunk), as_json=native_record_writes_as_json(chunk, seen))
            for chunk in chunks_of(page)]
