"""Which pages are left out of the index: one rule for every engine and the CLI."""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

_TRUE = {"true", "yes", "1", "on"}


def metadata_exclusion(meta: Mapping[str, Any]) -> str:
    """Why a page's metadata leaves it out ("" when it does not).

    Front matter `mdchunk: {exclude: true}` or Material's `search: {exclude: true}`, or a reST
    docinfo field `:mdchunk-exclude: true` (docinfo values are text).
    """
    for key in ("mdchunk", "search"):
        value = meta.get(key)
        if isinstance(value, Mapping) and value.get("exclude") is True:
            return f"front matter {key}: {{exclude: true}}"
    if str(meta.get("mdchunk-exclude", "")).strip().lower() in _TRUE:
        return "metadata mdchunk-exclude: true"
    return ""


def pattern_exclusion(paths: Iterable[str], patterns: Iterable[str]) -> str:
    """Why a page whose paths (source path, name) match a glob is left out ("" otherwise)."""
    names = list(paths)
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(name, pattern) for name in names):
            return f"matches exclude pattern {pattern!r}"
    return ""


@dataclasses.dataclass(frozen=True, slots=True)
class Exclusion:
    """Why a rendered page is left out of the index ("" when it is not)."""

    reason: str = ""
    by_metadata: bool = False
    """Left out by its own metadata: it stays out when a later build keeps it without
    rendering it (a pattern or a draft is decided again by each build)."""

    def __bool__(self) -> bool:
        return bool(self.reason)


def page_exclusion(meta: Mapping[str, Any], paths: Iterable[str], patterns: Iterable[str], *,
                   draft: bool = False) -> Exclusion:
    """Whether and why a rendered page is left out of the index: its metadata
    (`metadata_exclusion`), a pattern its paths match (`pattern_exclusion`), or its engine
    calling it a draft."""
    by_metadata = metadata_exclusion(meta)
    if by_metadata:
        return Exclusion(by_metadata, by_metadata=True)
    return Exclusion(pattern_exclusion(paths, patterns) or ("draft page" if draft else ""))
