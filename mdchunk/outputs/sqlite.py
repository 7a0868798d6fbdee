"""The `sqlite` output format: the native records in one SQLite file with an FTS5 index.

`chunks.sqlite` holds these tables and needs nothing but Python's `sqlite3` to open:

- `chunks`: one row per chunk, one column per native field (`id`, `parentId`, ...,
  `originalText`, ...). Nested fields (`headerPath`, `charOffsets`, `tokenStats`, `flags`,
  `metadata`, ...) are JSON text in columns declared `JSON` (query them with `json_extract`).
- `chunks_fts`: an FTS5 index over `headerBreadcrumb`, `sectionTitle`, `fileTitle`,
  `originalText` and `lead`, tokenized with `porter unicode61`. Its content is the view
  `chunks_search`: the columns of `chunks`, and for the first of a section's chunks with
  prose the section's `lead`, from the table `chunk_leads` (`rowid` of the chunk, `lead`: the
  first sentence of the section's prose, `mdchunk.outputs.leads`; from schema version 5).
- `meta`: `key`/`value` pairs: `schema_version` (of this file's layout), `record_schema_version`,
  `mdchunk_version`, `options` (the chunking options, JSON) and `chunks`; `page_kinds` (the
  site's option of that name, JSON [glob, kind] pairs) where it is set.

`mdchunk.search.vectors` adds the chunks' vectors to the same file (`chunks_vec`, and the
model's name in `meta`) when a build or `mdchunk embed` asks for them, and the vectors of the
index's words (`terms_vec`, `mdchunk.search.vocabulary`; from schema version 4, an index of
an older version has none and is searched without them); from schema version 6 each chunk's
vector holds its heading beside its text, and a static model's token idf (`token_idf`,
`mdchunk.search.token_weights`) weighs the question's tokens: an index embedded before has
neither and is searched with the question embedded whole.

Search ranks with `bm25(chunks_fts, *FTS_WEIGHTS)`: a word in the breadcrumb or the section's
lead weighs 4 times, in the section or page title 3 and 2 times, a word in the body text; see
`mdchunk.search`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from mdchunk._version import __version__
from mdchunk.chunking.chunk import SCHEMA_VERSION
from mdchunk.outputs.leads import first_lead

#: File suffixes read as a SQLite index (`read_index`, `mdchunk query`, `mdchunk mcp`).
SQLITE_SUFFIXES: tuple[str, ...] = (".sqlite", ".sqlite3", ".db")

#: Version of the SQLite layout (tables, columns, FTS columns); bumped when it changes.
SQLITE_SCHEMA_VERSION = 6

#: The native record's fields, in order; those in `JSON_COLUMNS` hold JSON text.
COLUMNS: tuple[str, ...] = (
    "id", "parentId", "prevId", "nextId", "embedText", "originalText", "chunkNumber",
    "totalChunks", "contentType", "fileTitle", "sectionTitle", "headerPath", "headerBreadcrumb",
    "headerDepths", "headerSlugs", "sectionSlug", "url", "absoluteUrl", "pageUrl", "version",
    "language", "subHeaders", "charOffsets", "lineRange", "tokenStats", "blockTypes", "features",
    "flags", "adaptiveSizing", "previousContent", "nextContent", "uuid", "documentUuid",
    "sha256", "duplicateOf", "schemaVersion", "metadata",
)
JSON_COLUMNS = frozenset({
    "headerPath", "headerDepths", "headerSlugs", "subHeaders", "charOffsets", "lineRange",
    "tokenStats", "blockTypes", "features", "flags", "adaptiveSizing", "duplicateOf", "metadata",
})
_INTEGER_COLUMNS = frozenset({"chunkNumber", "totalChunks", "schemaVersion"})

#: The columns of `chunks` that `chunks_fts` indexes...
TEXT_COLUMNS: tuple[str, ...] = ("headerBreadcrumb", "sectionTitle", "fileTitle", "originalText")
#: ... the FTS5 columns (those, then the section's lead from `chunk_leads`) and their bm25
#: weights, in the same order. An index of schema version 4 or older has no `lead` column:
#: FTS5 ignores the weight of a column it does not have.
FTS_COLUMNS: tuple[str, ...] = (*TEXT_COLUMNS, "lead")
FTS_WEIGHTS: tuple[float, ...] = (4.0, 3.0, 2.0, 1.0, 4.0)



def _column_type(name: str) -> str:
    if name in JSON_COLUMNS:
        return "JSON"
    return "INTEGER" if name in _INTEGER_COLUMNS else "TEXT"


def _cell(name: str, value: Any) -> Any:
    if name in JSON_COLUMNS:
        return None if value is None else json.dumps(value, ensure_ascii=False)
    return value


def write_sqlite(path: Path, records: Iterable[dict[str, Any]],
                 page_kinds: Sequence[tuple[str, str]] = (), *,
                 complete: Callable[[Path], object] | None = None) -> int:
    """Write native records to `path` atomically; return the number of chunks.

    `page_kinds`: a site's (glob, kind) pairs (the `page_kinds` option), kept in `meta` as
    `page_kinds` (JSON pairs) where there are any. `complete`: called with the temporary file
    once the records are in it, to add to it (the chunks' vectors) before it replaces `path`.

    The database is built in a temporary file beside `path`, then renamed over it: readers
    see the old file or the whole new one, never a half-written index.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        count = _fill(Path(temporary), records, page_kinds)
        if complete is not None:
            complete(Path(temporary))
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return count


def _fill(path: Path, records: Iterable[dict[str, Any]],
          page_kinds: Sequence[tuple[str, str]]) -> int:
    placeholders = ", ".join("?" for _ in COLUMNS)
    options: Any = None
    count = 0
    sections: set[str] = set()
    connection = sqlite3.connect(path)
    try:
        with connection:
            _create_tables(connection)
            for record in records:
                rowid = connection.execute(
                    f"INSERT INTO chunks VALUES ({placeholders})",
                    [_cell(name, record.get(name)) for name in COLUMNS],
                ).lastrowid
                lead = first_lead(record, sections)
                if lead:
                    connection.execute("INSERT INTO chunk_leads VALUES (?, ?)", (rowid, lead))
                if options is None:
                    options = (record.get("metadata") or {}).get("chunkingOptions")
                count += 1
            connection.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
            meta = {
                "schema_version": str(SQLITE_SCHEMA_VERSION),
                "record_schema_version": str(SCHEMA_VERSION),
                "mdchunk_version": __version__,
                "options": json.dumps(options, sort_keys=True),
                "chunks": str(count),
            }
            if page_kinds:
                meta["page_kinds"] = json.dumps([list(pair) for pair in page_kinds])
            connection.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    finally:
        connection.close()
    return count


def _create_tables(connection: sqlite3.Connection) -> None:
    """The tables of an empty index: `chunks`, `chunk_leads`, the view `chunks_search` that
    `chunks_fts` indexes, `chunks_fts` and `meta`."""
    columns = ", ".join(f'"{name}" {_column_type(name)}' for name in COLUMNS)
    connection.execute(f"CREATE TABLE chunks ({columns}, PRIMARY KEY (id))")
    connection.execute("CREATE INDEX chunks_parent ON chunks (parentId, chunkNumber)")
    connection.execute("CREATE TABLE chunk_leads (rowid INTEGER PRIMARY KEY, lead TEXT)")
    text_columns = ", ".join(f'chunks."{name}"' for name in TEXT_COLUMNS)
    connection.execute(
        f"CREATE VIEW chunks_search AS SELECT chunks.rowid AS rowid, {text_columns}, "
        "chunk_leads.lead AS lead FROM chunks "
        "LEFT JOIN chunk_leads ON chunk_leads.rowid = chunks.rowid")
    fts_columns = ", ".join(f'"{name}"' for name in FTS_COLUMNS)
    connection.execute(
        f"CREATE VIRTUAL TABLE chunks_fts USING fts5({fts_columns}, content='chunks_search', "
        "content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2')"
    )
    connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")


def connect(path: Path) -> sqlite3.Connection:
    """Open an index read-only (a missing file raises instead of creating one)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such index file")
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def column_or_null(connection: sqlite3.Connection, name: str) -> str:
    """`name` quoted, to select that column of `chunks`; `NULL` where the index was written
    before the column was (an older mdchunk), so that it can still be searched."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(chunks)")}
    return f'"{name}"' if name in columns else "NULL"


def read_sqlite(path: Path) -> list[dict[str, Any]]:
    """The native records of a `chunks.sqlite`, in the order they were written."""
    connection = connect(path)
    try:
        cursor = connection.execute("SELECT * FROM chunks ORDER BY rowid")
        names = [column[0] for column in cursor.description]
        return [
            {name: json.loads(value) if name in JSON_COLUMNS and value is not None else value
             for name, value in zip(names, row, strict=True)}
            for row in cursor
        ]
    finally:
        connection.close()


def read_index(path: Path) -> list[dict[str, Any]]:
    """Records of an index: a `.sqlite`/`.db` file, a JSON array, or JSON lines."""
    if path.suffix in SQLITE_SUFFIXES:
        return read_sqlite(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        records = json.loads(text)
        if not isinstance(records, list):
            raise ValueError(f"{path}: expected a JSON array of records")
        return records
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not JSON: {error.msg}") from error
    return records
