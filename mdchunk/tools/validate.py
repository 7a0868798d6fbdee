"""`mdchunk validate`: check an index of any profile against its schema and the invariants.

Every problem names the chunk it is about. Checks by profile:

- `native` (`chunks.jsonl`, `chunks.sqlite`): required fields and their types; unique ids;
  `id == parentId::ch{chunkNumber}`; a `version` that starts the docName; per page,
  chunkNumber 0..n-1, the same totalChunks == n, prevId/nextId linking the chunks in order;
  `totalChars == charEnd - charStart`; `sha256` of `originalText`; with the pages' `.md` files
  beside the index, the offsets inside the page and
  `originalText == page_markdown[charStart:charEnd]`; with a token counter, exact token counts.
- `hepilot`: seed 003's JSON Schema (with `jsonschema` when installed), unique `chunk_id`s;
  per document one total_chunks, and distinct chunk_index values in 0..total_chunks-1, all of
  them unless some chunks were left out as duplicates (`duplicates: drop`: then in order).
- `semantic` / `flat`: seed 001's models' own validation, unique `uuid`s.
- `sections` (`sections.jsonl`): unique ids; every `parentId` names a section of the same page
  listed before it (so the sections form a tree); every section lists chunks of its page
  (`chunkIds`), all of them among its parent's; each chunk of a page owned by exactly one of
  its sections, which lists it; with the pages' `.md` files beside the index, `text ==
  page_markdown[charStart:charEnd]`.
- other profiles: records must be JSON objects.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.errors import MdChunkError
from mdchunk.outputs.twins import page_markdown_path

if TYPE_CHECKING:
    import jsonschema

#: Profile of an index file, by the end of its name (checked longest first).
PROFILE_SUFFIXES: Mapping[str, str] = {
    ".hepilot.jsonl": "hepilot",
    ".semantic.jsonl": "semantic",
    ".flat.jsonl": "flat",
    ".markdown_chunker.jsonl": "markdown_chunker",
    ".adr.jsonl": "adr",
    "sections.jsonl": "sections",
    "docsearch.json": "docsearch",
    ".sqlite": "native",
    ".jsonl": "native",
}

_STR, _INT, _LIST, _DICT, _OPT_STR = (str,), (int,), (list,), (dict,), (str, type(None))
#: Fields every native record must have, with their JSON types.
NATIVE_FIELDS: Mapping[str, tuple[type, ...]] = {
    "id": _STR, "parentId": _STR, "prevId": _OPT_STR, "nextId": _OPT_STR, "embedText": _STR,
    "originalText": _STR, "chunkNumber": _INT, "totalChunks": _INT, "contentType": _STR,
    "fileTitle": _STR, "sectionTitle": _STR, "headerPath": _LIST, "headerBreadcrumb": _STR,
    "headerDepths": _LIST, "headerSlugs": _LIST, "sectionSlug": _STR, "url": _STR,
    "pageUrl": _STR, "charOffsets": _DICT, "tokenStats": _DICT, "sha256": _STR,
    "metadata": _DICT,
}


@dataclasses.dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an index."""

    chunk: str
    """The chunk's id (or `record N` when it has none)."""
    message: str

    def __str__(self) -> str:
        return f"{self.chunk}: {self.message}"


def infer_profile(path: Path) -> str:
    """The profile an index file holds, from its name (`native` when nothing else fits)."""
    name = path.name
    for suffix in sorted(PROFILE_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return PROFILE_SUFFIXES[suffix]
    return "native"


def validate_records(records: Sequence[Any], profile: str, *, markdown_dir: Path | None = None,
                     counter: Callable[[str], int] | None = None) -> list[Problem]:
    """The problems of `records` of `profile` (an empty list when all is well).

    Arguments:
        records: The index's records, in file order.
        profile: A name from `mdchunk.outputs.profiles.PROFILES`.
        markdown_dir: Folder holding the pages' `.md` files (the site folder); offsets are
            checked against the page text when a page's file is there.
        counter: Token counter; when given, every `tokenStats.tokens` must equal its count.
    """
    problems = [Problem(f"record {n}", "is not a JSON object")
                for n, record in enumerate(records, start=1) if not isinstance(record, dict)]
    if problems:
        return problems
    if profile in ("native", "sqlite"):
        return _native(records, markdown_dir, counter)
    if profile == "hepilot":
        return _hepilot(records)
    if profile in ("semantic", "flat"):
        return _semantic(records, profile)
    if profile == "sections":
        return _sections(records, markdown_dir)
    return []


def _type_name(types: tuple[type, ...]) -> str:
    names = {str: "string", int: "integer", list: "array", dict: "object", type(None): "null"}
    return " or ".join(names[t] for t in types)


def _native(records: Sequence[dict[str, Any]], markdown_dir: Path | None,
            counter: Callable[[str], int] | None) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    pages: dict[str, list[dict[str, Any]]] = {}
    for number, record in enumerate(records, start=1):
        name = str(record.get("id") or f"record {number}")
        bad = False
        for field, types in NATIVE_FIELDS.items():
            value = record.get(field, ...)
            if value is ...:
                problems.append(Problem(name, f"missing field '{field}'"))
                bad = True
            elif not isinstance(value, types) or (isinstance(value, bool) and types == _INT):
                problems.append(Problem(name, f"'{field}' must be {_type_name(types)}, "
                                              f"got {value!r:.60}"))
                bad = True
        if bad:
            continue
        if name in seen:
            problems.append(Problem(name, "duplicate id"))
            continue
        seen.add(name)
        pages.setdefault(record["parentId"], []).append(record)
        problems.extend(_record_checks(name, record, counter))
    for parent, chunks in pages.items():
        problems.extend(_chain(parent, chunks))
        if markdown_dir is not None:
            problems.extend(_offsets_in_page(chunks, markdown_dir))
    return problems


def _record_checks(name: str, record: dict[str, Any], counter: Callable[[str], int] | None
                   ) -> list[Problem]:
    problems: list[Problem] = []
    expected = f"{record['parentId']}::ch{record['chunkNumber']}"
    if name != expected:
        problems.append(Problem(name, f"id does not match parentId and chunkNumber "
                                      f"(expected {expected!r})"))
    problems.extend(_version_checks(name, record))
    text = record["originalText"]
    offsets = record["charOffsets"]
    start, end = offsets.get("charStart"), offsets.get("charEnd")
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
        problems.append(Problem(name, f"bad charOffsets {offsets}"))
    elif offsets.get("totalChars") != end - start or end - start != len(text):
        problems.append(Problem(name, f"charOffsets {start}..{end} (totalChars "
                                      f"{offsets.get('totalChars')}) do not span the "
                                      f"{len(text)} characters of originalText"))
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if record["sha256"] != digest:
        problems.append(Problem(name, "sha256 is not the SHA-256 of originalText"))
    tokens = record["tokenStats"].get("tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
        problems.append(Problem(name, f"tokenStats.tokens must be a count, got {tokens!r}"))
    elif counter is not None and counter(text) != tokens:
        problems.append(Problem(name, f"tokenStats.tokens is {tokens}, but originalText has "
                                      f"{counter(text)} tokens"))
    return problems


def _version_checks(name: str, record: dict[str, Any]) -> list[Problem]:
    """A record's `version` (absent in indexes of an older mdchunk): null, or a version whose
    folder starts the record's docName (`doc:1.0/guide/install`)."""
    version = record.get("version")
    if version is None:
        return []
    if not isinstance(version, str):
        return [Problem(name, f"'version' must be string or null, got {version!r:.60}")]
    if not record["parentId"].startswith(f"doc:{version}/"):
        return [Problem(name, f"parentId {record['parentId']!r} does not start with its "
                              f"version's folder (expected 'doc:{version}/...')")]
    return []


def _chain(parent: str, chunks: list[dict[str, Any]]) -> list[Problem]:
    """chunkNumber 0..n-1, totalChunks n, prevId/nextId in order, for one page."""
    problems: list[Problem] = []
    ordered = sorted(chunks, key=lambda record: record["chunkNumber"])
    numbers = [record["chunkNumber"] for record in ordered]
    if numbers != list(range(len(ordered))):
        problems.append(Problem(parent, f"chunkNumbers are {numbers}, expected 0.."
                                        f"{len(ordered) - 1}"))
    for index, record in enumerate(ordered):
        if record["totalChunks"] != len(ordered):
            problems.append(Problem(record["id"], f"totalChunks is {record['totalChunks']}, "
                                                  f"the page has {len(ordered)} chunks"))
        previous = ordered[index - 1]["id"] if index else None
        following = ordered[index + 1]["id"] if index + 1 < len(ordered) else None
        if record["prevId"] != previous:
            problems.append(Problem(record["id"], f"prevId is {record['prevId']!r}, expected "
                                                  f"{previous!r}"))
        if record["nextId"] != following:
            problems.append(Problem(record["id"], f"nextId is {record['nextId']!r}, expected "
                                                  f"{following!r}"))
    return problems


def _offsets_in_page(chunks: list[dict[str, Any]], markdown_dir: Path) -> list[Problem]:
    """originalText == page_markdown[charStart:charEnd], when the page's .md file is there."""
    page = markdown_dir / page_markdown_path(chunks[0]["pageUrl"])
    if not page.is_file():
        return []
    text = page.read_text(encoding="utf-8")
    problems: list[Problem] = []
    for record in chunks:
        start = record["charOffsets"].get("charStart")
        end = record["charOffsets"].get("charEnd")
        if not (isinstance(start, int) and isinstance(end, int)):
            continue
        if end > len(text):
            problems.append(Problem(record["id"], f"charEnd {end} is past the end of "
                                                  f"{page.name} ({len(text)} characters)"))
        elif text[start:end] != record["originalText"]:
            problems.append(Problem(record["id"], f"originalText is not the page text at "
                                                  f"charOffsets {start}..{end}"))
    return problems


def _hepilot(records: Sequence[dict[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    validator = _hepilot_validator()
    seen: set[str] = set()
    documents: dict[str, list[dict[str, Any]]] = {}
    for number, record in enumerate(records, start=1):
        name = str(record.get("chunk_id") or f"record {number}")
        if validator is not None:
            for error in sorted(validator.iter_errors(record), key=str):
                where = "/".join(str(part) for part in error.absolute_path) or "record"
                problems.append(Problem(name, f"schema: {where}: {error.message}"))
        if name in seen:
            problems.append(Problem(name, "duplicate chunk_id"))
        seen.add(name)
        documents.setdefault(str(record.get("document_id")), []).append(record)
    for document, chunks in documents.items():
        problems.extend(_hepilot_document(document, chunks))
    return problems


def _hepilot_validator() -> jsonschema.Draft202012Validator | None:
    """The validator of HEPilot's schema; None without jsonschema (in the test extra)."""
    from mdchunk.outputs.profiles import hepilot_schema

    try:
        import jsonschema
    except ImportError:  # pragma: no cover - jsonschema is in the test extra
        return None
    return jsonschema.Draft202012Validator(
        hepilot_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _hepilot_document(document: str, chunks: Sequence[dict[str, Any]]) -> list[Problem]:
    """One total_chunks (the most common; each chunk that says otherwise is named), and
    chunk_index values that are distinct, in order and below it; all of 0..total_chunks-1
    unless chunks were left out (duplicates dropped)."""
    totals = Counter(record.get("total_chunks") for record in chunks)
    total = totals.most_common(1)[0][0]
    problems = [Problem(str(record.get("chunk_id")),
                        f"total_chunks is {record.get('total_chunks')}, the document's other "
                        f"chunks say {total}")
                for record in chunks if record.get("total_chunks") != total]
    if not isinstance(total, int) or total < len(chunks):
        return [*problems, Problem(document, f"total_chunks is {total}, the document has "
                                             f"{len(chunks)} chunks")]
    indexes = [record.get("chunk_index") for record in chunks]
    valid = [index for index in indexes if isinstance(index, int) and 0 <= index < total]
    if len(valid) < len(indexes) or valid != sorted(set(valid)):
        problems.append(Problem(document, f"chunk_index values are {indexes}, expected "
                                          f"distinct values in order within 0..{total - 1}"))
    return problems


def _semantic(records: Sequence[dict[str, Any]], profile: str) -> list[Problem]:
    from mdchunk.outputs.profiles import FlatSemanticChunk, SemanticChunk

    model = SemanticChunk if profile == "semantic" else FlatSemanticChunk
    problems: list[Problem] = []
    seen: set[str] = set()
    for number, record in enumerate(records, start=1):
        name = str(record.get("uuid") or f"record {number}")
        try:
            model.from_dict(record)
        except (MdChunkError, ValueError, TypeError, KeyError) as error:
            problems.append(Problem(name, str(error)))
        if name in seen:
            problems.append(Problem(name, "duplicate uuid"))
        seen.add(name)
    return problems


def _sections(records: Sequence[dict[str, Any]], markdown_dir: Path | None) -> list[Problem]:
    """Unique ids, parents listed before their children on the same page, chunks listed by
    every section (`_section_chunks`), and each section's text at its offsets in its page's
    `.md` file (when there)."""
    problems: list[Problem] = []
    pages: dict[str, str] = {}  # section id: its pageId
    chunks: dict[str, set[str]] = {}  # section id: its chunkIds
    owners: dict[str, str] = {}  # chunk id: the section that owns it
    texts: dict[Path, str | None] = {}  # a page's .md file: its text (None: not there)
    for number, record in enumerate(records, start=1):
        name = str(record.get("id") or f"record {number}")
        if name in pages:
            problems.append(Problem(name, "duplicate id"))
        parent = record.get("parentId")
        if parent is not None and pages.get(parent) != record.get("pageId"):
            problems.append(Problem(name, f"parentId {parent!r} is no section of its page "
                                          "listed before it"))
        pages[name] = str(record.get("pageId"))
        chunks[name] = set(record.get("chunkIds") or ())
        problems.extend(_section_chunks(name, record, chunks, owners))
        problems.extend(_section_text(name, record, markdown_dir, texts))
    problems.extend(_unowned_chunks(records, owners))
    return problems


def _section_chunks(name: str, record: dict[str, Any], chunks: Mapping[str, set[str]],
                    owners: dict[str, str]) -> list[Problem]:
    """The section lists chunks of its page, all of them among its parent's; it owns some of
    them, and no chunk another section owns (`owners` gathers the owners)."""
    listed = record.get("chunkIds") or []
    if not listed:
        return [Problem(name, "chunkIds is empty: every section lies in some chunk")]
    problems: list[Problem] = []
    page = f"{record.get('pageId')}::ch"
    if any(not str(chunk).startswith(page) for chunk in listed):
        problems.append(Problem(name, f"chunkIds name chunks of another page than {page[:-4]}"))
    parent = chunks.get(str(record.get("parentId")))
    if parent is not None and not chunks[name] <= parent:
        problems.append(Problem(name, "chunkIds name chunks that its parent section does not"))
    for chunk in record.get("ownChunkIds") or []:
        if chunk not in chunks[name]:
            problems.append(Problem(name, f"owns chunk {chunk}, which its chunkIds do not name"))
        if chunk in owners:
            problems.append(Problem(name, f"chunk {chunk} is also owned by {owners[chunk]}"))
        owners[chunk] = name
    return problems


def _unowned_chunks(records: Sequence[dict[str, Any]], owners: Mapping[str, str]
                    ) -> list[Problem]:
    """Every chunk of a page (the page section's `chunkIds`) is owned by one of its sections."""
    problems: list[Problem] = []
    for record in records:
        if record.get("parentId") is None:
            problems.extend(Problem(str(record.get("id")), f"no section owns chunk {chunk}")
                            for chunk in record.get("chunkIds") or [] if chunk not in owners)
    return problems


def _section_text(name: str, record: dict[str, Any], markdown_dir: Path | None,
                  texts: dict[Path, str | None]) -> list[Problem]:
    """`text == page_markdown[charStart:charEnd]`, when the page's .md file is there (`texts`
    keeps each page's text once read)."""
    if markdown_dir is None or not isinstance(record.get("pageUrl"), str):
        return []
    page = markdown_dir / page_markdown_path(record["pageUrl"])
    if page not in texts:
        texts[page] = page.read_text(encoding="utf-8") if page.is_file() else None
    offsets = record.get("charOffsets") or {}
    start, end = offsets.get("charStart"), offsets.get("charEnd")
    text = texts[page]
    if text is None or not (isinstance(start, int) and isinstance(end, int)):
        return []
    if text[start:end] != record.get("text"):
        return [Problem(name, f"text is not the page text at charOffsets {start}..{end}")]
    return []
