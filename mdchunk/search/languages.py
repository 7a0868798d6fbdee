"""Which build of a site answers in a language.

A site built once per language keeps its default language's build in its folder and every
other language's in a subfolder named after its language tag: mkdocs-static-i18n's `site/fr/`,
Sphinx's `-D language=fr` into `_build/html/fr`. Each build has its own index (`chunks.sqlite`,
or only `chunks.jsonl` with the default formats), whose records say their language.
`language_folder` maps a folder and a language to the folder of that language's build;
`mdchunk query --language` and MCP `search_docs`'s `language` then open its index.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import Counter
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.outline import is_language_tag, normal_tag
from mdchunk.outputs.sqlite import connect

INDEXES = ("chunks.sqlite", "chunks.jsonl")
"""The index files of a build, in its folder, that tell its language (the SQLite one first)."""
_SAMPLE = 1000
"""How many records of a `chunks.jsonl` tell its build's language."""


class LanguageError(MdChunkError):
    """No build of the site is in the language asked for."""


def build_language(folder: Path) -> str | None:
    """The language of the build in `folder`: the one most of its chunks are in, as its
    `chunks.sqlite` says, else the first records of its `chunks.jsonl` (None without an
    index, or with chunks that name none)."""
    sqlite, jsonl = (folder / name for name in INDEXES)
    if sqlite.is_file():
        return _sqlite_language(sqlite)
    return _jsonl_language(jsonl) if jsonl.is_file() else None


def _sqlite_language(path: Path) -> str | None:
    try:
        connection = connect(path)
        try:
            row = connection.execute(
                "SELECT language FROM chunks WHERE language IS NOT NULL GROUP BY language "
                "ORDER BY count(*) DESC, language LIMIT 1").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


def _jsonl_language(path: Path) -> str | None:
    counts: Counter[str] = Counter()
    try:
        with path.open(encoding="utf-8") as lines:
            for line in itertools.islice(lines, _SAMPLE):
                language = json.loads(line).get("language") if line.strip() else None
                if isinstance(language, str):
                    counts[language] += 1
    except (OSError, ValueError, AttributeError):
        return None
    return min(counts, key=lambda tag: (-counts[tag], tag)) if counts else None


def site_languages(folder: Path) -> dict[str, Path]:
    """Every language built in `folder`, by tag: its own build's, then each subfolder named
    after a language tag that holds an index."""
    found: dict[str, Path] = {}
    own = build_language(folder)
    if own is not None:
        found[own] = folder
    children = sorted(folder.iterdir()) if folder.is_dir() else []
    for child in children:
        if is_language_tag(child.name) and any((child / name).is_file() for name in INDEXES):
            found.setdefault(build_language(child) or child.name, child)
    return found


def language_folder(folder: Path, language: str | None) -> Path:
    """The folder of the build of `folder`'s site in `language`; None: the default language's,
    `folder` itself. A tag matches the same tag (`pt_BR` is `pt-BR`), else the one language of
    the site with the same primary tag (`pt` or `pt-PT` for a site whose only Portuguese is
    `pt-BR`).

    Raises:
        LanguageError: naming the languages the site has, when none matches.
    """
    if language is None:
        return folder
    languages = site_languages(folder)
    wanted = normal_tag(language)
    exact = [path for tag, path in languages.items() if normal_tag(tag) == wanted]
    close = [path for tag, path in languages.items()
             if normal_tag(tag).split("-")[0] == wanted.split("-")[0]]
    if exact or len(close) == 1:
        return (exact or close)[0]
    known = ", ".join(sorted(languages)) or "none (no chunk index says its language)"
    raise LanguageError(f"{folder}: no build in language {language!r}; its languages: {known}")
