"""The `native` profile: mdchunk's own record (seed 002's names and more), `Chunk.as_native()`."""

from __future__ import annotations

from collections.abc import Iterator

from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of


def native_records(page: ChunksLike) -> Iterator[Record]:
    """The native records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield chunk.as_native()
