"""`mdchunk diff`: added, changed and removed chunks between two native indexes.

Chunks are matched by a **section key**, not by their id: an id (`doc:page::ch3`) changes for
every chunk after an inserted one, but a section that did not change should keep its key, so
that only what changed is re-embedded.

    key = "{parentId}#{headerSlugs joined with '/'}@{ordinal}"

- `parentId` is the page (`doc:guide/install`);
- `headerSlugs` are the anchors of the chunk's section and its ancestors
  (`installation/linux/package-repositories`), the section the chunk starts in; a heading
  without an anchor contributes its title; a preamble has an empty path;
- `ordinal` numbers the chunks that start in that same section (0, 1, ... in page order), for
  sections split into several chunks.

Two chunks with the same key are the same chunk; it is *changed* when the SHA-256 of its
`originalText` differs, and *unchanged* otherwise (even when its id moved: `moved` lists those,
so a store keyed by id can re-key them without re-embedding). Keys only in the new index are
*added*, keys only in the old one *removed*. Renaming a heading changes its anchor and so the
keys of its chunks: they are removed and added.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One chunk in a diff."""

    key: str
    id: str
    url: str
    old_id: str | None = None
    """The chunk's id in the old index (changed and moved chunks)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {key: value for key, value in dataclasses.asdict(self).items() if value is not None}


@dataclasses.dataclass(frozen=True, slots=True)
class IndexDiff:
    """What changed between two indexes."""

    added: tuple[Entry, ...]
    changed: tuple[Entry, ...]
    removed: tuple[Entry, ...]
    moved: tuple[Entry, ...]
    """Unchanged text under a new id."""
    unchanged: int
    """Chunks with the same key and text (moved ones included)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "added": [entry.as_dict() for entry in self.added],
            "changed": [entry.as_dict() for entry in self.changed],
            "removed": [entry.as_dict() for entry in self.removed],
            "moved": [entry.as_dict() for entry in self.moved],
            "unchanged": self.unchanged,
        }


def _text_hash(record: dict[str, Any]) -> str:
    text = str(record.get("originalText") or "")
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def section_keys(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each record by its section key (see the module docstring)."""
    ordered = sorted(records,
                     key=lambda r: (str(r.get("parentId")), int(r.get("chunkNumber") or 0)))
    keyed: dict[str, dict[str, Any]] = {}
    ordinals: dict[tuple[str, str], int] = {}
    for record in ordered:
        slugs = record.get("headerSlugs") or []
        titles = record.get("headerPath") or []
        path = "/".join(
            str(slug) or str(titles[index] if index < len(titles) else "")
            for index, slug in enumerate(slugs)
        )
        section = (str(record.get("parentId")), path)
        ordinal = ordinals.get(section, 0)
        ordinals[section] = ordinal + 1
        keyed[f"{section[0]}#{path}@{ordinal}"] = record
    return keyed


def diff_indexes(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> IndexDiff:
    """Added, changed and removed chunks from `old` to `new` (native records)."""
    before, after = section_keys(old), section_keys(new)

    def entry(key: str, record: dict[str, Any], old_id: str | None = None) -> Entry:
        return Entry(key=key, id=str(record.get("id")), url=str(record.get("url") or ""),
                     old_id=old_id)

    added = tuple(entry(key, record) for key, record in after.items() if key not in before)
    removed = tuple(entry(key, record) for key, record in before.items() if key not in after)
    changed: list[Entry] = []
    moved: list[Entry] = []
    unchanged = 0
    for key, record in after.items():
        previous = before.get(key)
        if previous is None:
            continue
        if _text_hash(previous) != _text_hash(record):
            changed.append(entry(key, record, str(previous.get("id"))))
            continue
        unchanged += 1
        if previous.get("id") != record.get("id"):
            moved.append(entry(key, record, str(previous.get("id"))))
    return IndexDiff(added=added, changed=tuple(changed), removed=removed, moved=tuple(moved),
                     unchanged=unchanged)
