"""Duplicate marks applied to the records a build writes (`duplicates` option).

The marks are found at the build's finish (`mdchunk.outputs.duplicates.find_duplicates`), after
every page's records were made; this applies them while the records are written: a marked chunk's
native record (and its SQLite row) holds its `duplicateOf`, and with `duplicates: drop` the
embedding formats (`OutputFormat.embedding`) leave marked chunks out. Other formats (search records,
sections, the Pagefind bundle) keep every chunk: a reader searching the site expects each page
whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence

from mdchunk.outputs.catalog import FORMATS
from mdchunk.outputs.duplicates import Duplicate
from mdchunk.outputs.writers import dumps

MARKED = frozenset({"native", "sqlite"})
"""The formats whose records are native records, which hold the marks."""


def marked_records(name: str, records: Sequence[str], ids: Sequence[str],
                   marks: Mapping[str, Duplicate], *, drop: bool) -> Iterator[str]:
    """A page's records of format `name` (each its JSON text; one per chunk, whose ids are
    `ids`, where the format has one per chunk), with the marks applied."""
    if not marks:
        yield from records
    elif name in MARKED:
        for record, chunk_id in zip(records, ids, strict=True):
            mark = marks.get(chunk_id)
            yield record if mark is None else with_mark(record, mark)
    elif drop and FORMATS[name].embedding:
        for record, chunk_id in zip(records, ids, strict=True):
            if chunk_id not in marks:
                yield record
    else:
        yield from records


def marks_touch(name: str, ids: Sequence[str], marks: Mapping[str, Duplicate], *,
                drop: bool) -> bool:
    """Whether `marked_records` changes a page's records of format `name` (its chunks' ids are
    `ids`): when it does not, they are written as they were made."""
    if not marks or not (name in MARKED or (drop and FORMATS[name].embedding)):
        return False
    return any(chunk_id in marks for chunk_id in ids)


def with_mark(record: str, mark: Duplicate) -> str:
    """A native record's JSON text with its `duplicateOf` set."""
    return dumps({**json.loads(record), "duplicateOf": mark.as_record()})
