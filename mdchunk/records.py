"""The native record of a chunk: seed 002's fields, then mdchunk's own (`Chunk.as_native`), and
the derived fields it shares with `Chunk`'s properties (ids, urls, uuids, digest)."""

from __future__ import annotations

import functools
import hashlib
import uuid
from typing import Any

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
        "duplicateOf": None,
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


def uuid5_text(name: str) -> str:
    """`uuid5(UUID_NAMESPACE, name)` as text: the same name always gives the same uuid."""
    return str(uuid.uuid5(UUID_NAMESPACE, name))


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
