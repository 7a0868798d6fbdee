"""The native record of a chunk: seed 002's fields, then mdchunk's own (`Chunk.as_native`).

Compiled with mypyc with the rest of the chunking path (setup.py): the chunk's derived fields
(ids, urls, uuids, digest) are made here, not through the properties of `Chunk` one by one.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Iterable
from typing import Any, Final

from mdchunk.tokens import estimate_tokens

#: Version of the native record's layout; bumped when a field changes meaning or name.
SCHEMA_VERSION = 1
#: Namespace of the deterministic chunk and document uuids.
UUID_NAMESPACE = uuid.UUID("6f1c3a52-8d0e-5b6c-9a47-2f6d4e1b7c90")


def native_record(chunk: Any) -> dict[str, Any]:
    """`chunk.as_native()` of a `Chunk`."""
    doc_name, number, total = chunk.doc_name, chunk.chunk_number, chunk.total_chunks
    identifier = chunk_id(doc_name, number)
    parent = f"doc:{doc_name}"
    url = section_url(chunk.page_url, chunk.section_slug)
    return {
        "id": identifier,
        "parentId": parent,
        "prevId": previous_id(doc_name, number),
        "nextId": next_id(doc_name, number, total),
        "embedText": chunk.embed_text,
        "originalText": chunk.text,
        "chunkNumber": number,
        "totalChunks": total,
        "contentType": "doc",
        "fileTitle": chunk.file_title,
        "sectionTitle": chunk.section_title,
        "headerPath": list(chunk.header_path),
        "headerBreadcrumb": " > ".join(chunk.header_path),
        "headerDepths": list(chunk.header_depths),
        "headerSlugs": list(chunk.header_slugs),
        "sectionSlug": chunk.section_slug,
        "url": url,
        "absoluteUrl": absolute_url(chunk.site_url, url),
        "pageUrl": chunk.page_url,
        "subHeaders": list(chunk.sub_headers),
        "charOffsets": {
            "charStart": chunk.char_start,
            "charEnd": chunk.char_end,
            "totalChars": chunk.char_end - chunk.char_start,
        },
        "lineRange": {"startLine": chunk.start_line, "endLine": chunk.end_line},
        "tokenStats": {
            "tokens": chunk.tokens,
            "estimatedTokens": estimate_tokens(chunk.text),
            "embedTokens": chunk.embed_tokens,
        },
        "blockTypes": list(chunk.block_types),
        "features": features_record(chunk.features),
        "flags": flags_record(chunk.flags),
        "adaptiveSizing": None if chunk.adaptive is None else {
            "contentComplexity": chunk.adaptive[0],
            "sizeScaleFactor": chunk.adaptive[1],
            "adaptiveSize": chunk.max_tokens,
        },
        "previousContent": chunk.previous_content,
        "nextContent": chunk.next_content,
        "uuid": uuid5_text(identifier),
        "documentUuid": page_uuid5(parent),
        "sha256": text_sha256(chunk.text),
        "schemaVersion": SCHEMA_VERSION,
        "metadata": {
            "sourceFile": chunk.source_file,
            "processedAt": chunk.processed_at,
            "chunkingOptions": chunk.chunking_options,
            "pipeline": {"version": chunk.version, "processingTimeMs": chunk.processing_time_ms},
            "frontMatter": chunk.front_matter,
        },
    }


def features_record(features: Any) -> dict[str, Any]:
    """`Features.as_dict()`: the camelCase JSON form."""
    return {
        "headings": features.headings,
        "paragraphs": features.paragraphs,
        "lists": features.lists,
        "listItems": features.list_items,
        "codeBlocks": features.code_blocks,
        "tables": features.tables,
        "equationsDisplay": features.equations_display,
        "equationsInline": features.equations_inline,
        "admonitions": features.admonitions,
        "languages": list(features.languages),
        "headingLevels": list(features.heading_levels),
        "orderedLists": features.ordered_lists,
        "nestedLists": features.nested_lists,
        "nestedItems": features.nested_items,
        "codeLanguages": list(features.code_languages),
        "tableRows": features.table_rows,
        "tableColumns": features.table_columns,
        "tablesWithHeader": features.tables_with_header,
    }


def flags_record(flags: Any) -> dict[str, Any]:
    """`Flags.as_dict()`: the camelCase JSON form."""
    return {
        "allowOversize": flags.allow_oversize,
        "oversizeReason": flags.oversize_reason,
        "smallChunk": flags.small_chunk,
        "smallChunkReason": flags.small_chunk_reason,
        "forcedSplit": flags.forced_split,
        "hasOverlapPrevious": flags.has_overlap_previous,
        "hasOverlapNext": flags.has_overlap_next,
    }


def section_url(page_url: str, section_slug: str) -> str:
    """Page url + `#` + section slug: the deep link to a chunk's section."""
    return f"{page_url}#{section_slug}" if section_slug else page_url


def absolute_url(site_url: str, url: str) -> str | None:
    """`url` joined to the site url; None when the site has no site_url."""
    if not site_url:
        return None
    return site_url.rstrip("/") + "/" + url


def text_sha256(text: str) -> str:
    """SHA-256 of `text` (UTF-8; lone surrogates as their UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


#: SHA-1 fed with the namespace's bytes: each uuid copies it and adds its name.
_NAMESPACE_SHA1 = hashlib.sha1(UUID_NAMESPACE.bytes)
#: The variant digit of a uuid (bits 10xx) by the low two bits of the hash's digit there.
_VARIANT_DIGITS = "89ab"


def uuid5_text(name: str) -> str:
    """`str(uuid.uuid5(UUID_NAMESPACE, name))` without building a `UUID` object: the hash's
    first 32 hex digits with the version digit set to 5 and the variant bits to 10 (3.0 us ->
    0.8 us; with `page_uuid5`, the two uuids of the 3,270 chunks of the Node.js docs take
    0.003 s instead of 0.020 s)."""
    hasher = _NAMESPACE_SHA1.copy()
    hasher.update(name.encode("utf-8"))
    value = hasher.hexdigest()
    variant = _VARIANT_DIGITS[int(value[16], 16) & 3]
    return f"{value[:8]}-{value[8:12]}-5{value[13:16]}-{variant}{value[17:20]}-{value[20:32]}"


#: `uuid5_text`, cached for document uuids (every chunk of a page asks for the same one).
page_uuid5 = functools.lru_cache(maxsize=256)(uuid5_text)


def chunk_id(doc_name: str, number: int) -> str:
    """`doc:{docName}::ch{n}` (seed 002)."""
    return f"doc:{doc_name}::ch{number}"


def previous_id(doc_name: str, number: int) -> str | None:
    """Id of the chunk before chunk `number` of the page (None for the first)."""
    return chunk_id(doc_name, number - 1) if number else None


def next_id(doc_name: str, number: int, total: int) -> str | None:
    """Id of the chunk after chunk `number` of the page's `total` (None for the last)."""
    return None if number + 1 >= total else chunk_id(doc_name, number + 1)


#: Nesting orjson refuses beyond (`json` then writes the value, or says why it cannot).
_ORJSON_DEPTH: Final = 254


def orjson_writes_as_json(value: Any, *, depth: int = 0) -> bool:
    """Whether orjson writes `value` as `writers.dumps` must, or refuses it: `value` holds only
    dicts, lists, tuples, `str`, `int`, `bool`, None and floats that orjson writes as `repr`
    does, 0 and magnitudes in [1e-4, 1e15) (orjson 3.9 to 3.13 write others with another
    exponent or as decimals, NaN and infinities as null; `json` refuses other types, orjson
    writes some).

    A walk with its own stack, bounded where orjson refuses to go deeper: a value nested deeper,
    or holding itself, is left to `json`. Scalars are looked at where they sit, never stacked
    (the native records of the Node.js docs: 0.016 s -> 0.012 s). `depth`: how deep `value`
    sits in the record written."""
    items: list[Any] = [[value]]  # containers to look into (first, a list holding the value)
    depths: list[int] = [depth - 1]  # the depth of each
    while items:
        item = items.pop()
        level = depths.pop()
        if level >= _ORJSON_DEPTH:
            return False
        children: Iterable[Any] = item.values() if type(item) is dict else item
        for child in children:
            verdict = _verdict(child)
            if verdict == _REFUSED:
                return False
            if verdict == _CONTAINER:
                items.append(child)
                depths.append(level + 1)
    return True


def native_record_writes_as_json(chunk: Any, seen: dict[int, bool]) -> bool:
    """`orjson_writes_as_json(native_record(chunk))`, without walking the whole record.

    A native record holds mdchunk's own strings, ints, bools and None, and lists and dicts of
    them, but for a few values: the front matter and the chunking options (shared by a page's
    chunks: each looked at once, its verdict kept in `seen` by id, for as long as the page's
    chunks live), the floats, and the strings the engine gave (page url, paths, titles). Only
    those are looked at (tests/test_writers.py checks that the verdict is the walk's).
    """
    for shared in (chunk.front_matter, chunk.chunking_options):
        verdict = seen.get(id(shared))
        if verdict is None:
            verdict = seen[id(shared)] = orjson_writes_as_json(shared, depth=2)
        if not verdict:
            return False
    for given in (chunk.doc_name, chunk.file_title, chunk.page_url, chunk.site_url,
                  chunk.source_file, chunk.processed_at, chunk.version):
        if type(given) is not str:
            return False
    if _verdict(chunk.processing_time_ms) != _WRITTEN:
        return False
    adaptive = chunk.adaptive
    return adaptive is None or (_verdict(adaptive[0]) == _WRITTEN
                                and _verdict(adaptive[1]) == _WRITTEN
                                and _verdict(chunk.max_tokens) == _WRITTEN)


_WRITTEN: Final = 0
_CONTAINER: Final = 1
_REFUSED: Final = 2


def _verdict(value: Any) -> int:
    """`_WRITTEN` for a value orjson writes as `json` does, `_CONTAINER` for one to look into,
    `_REFUSED` otherwise."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return _WRITTEN
    if kind is float:
        return _WRITTEN if _float_writes_as_json(value) else _REFUSED
    if kind is dict or kind is list or kind is tuple:
        return _CONTAINER
    return _REFUSED


def _float_writes_as_json(number: float) -> bool:
    return number == 0.0 or 1e-4 <= abs(number) < 1e15
