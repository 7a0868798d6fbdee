"""The chunk: one `Chunk` per piece, its native JSON form (seed 002's names), and the
fields derived from it (ids, urls, uuids, digest) that every output shares."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import uuid
from typing import Any

from mdchunk.chunking.tokens import estimate_tokens

__all__ = [
    "SCHEMA_VERSION",
    "UUID_NAMESPACE",
    "Chunk",
    "Features",
    "Flags",
    "PageChunks",
    "PageSection",
    "chunk_id",
    "uuid5_text",
    "versioned_doc_name",
]


@dataclasses.dataclass(slots=True)
class Features:
    """What a chunk holds, counted over the blocks that start inside it.

    Made once per chunk and never changed after (not frozen: see `mdchunk.chunking.model.Block`).
    """

    headings: int = 0
    paragraphs: int = 0
    lists: int = 0
    list_items: int = 0
    code_blocks: int = 0
    tables: int = 0
    equations_display: int = 0
    equations_inline: int = 0
    admonitions: int = 0
    languages: tuple[str, ...] = ()
    """Languages of the code blocks, sorted, without repeats."""
    heading_levels: tuple[int, ...] = ()
    """Levels of the page-level headings (not those inside containers), in document order."""
    ordered_lists: int = 0
    """Outermost lists (not inside another list) that are numbered."""
    nested_lists: int = 0
    """Lists among `lists` that sit inside an item of another list."""
    nested_items: int = 0
    """List items that hold more than their text: a sublist, code, a table, more paragraphs."""
    code_languages: tuple[str, ...] = ()
    """Language of each code block in document order ("" where the block names none)."""
    table_rows: int = 0
    """Body rows of the tables (header rows not counted)."""
    table_columns: int = 0
    """Columns of the widest table."""
    tables_with_header: int = 0
    """Tables whose first row is a header row."""

    def as_dict(self) -> dict[str, Any]:
        """camelCase JSON form."""
        return {
            "headings": self.headings,
            "paragraphs": self.paragraphs,
            "lists": self.lists,
            "listItems": self.list_items,
            "codeBlocks": self.code_blocks,
            "tables": self.tables,
            "equationsDisplay": self.equations_display,
            "equationsInline": self.equations_inline,
            "admonitions": self.admonitions,
            "languages": list(self.languages),
            "headingLevels": list(self.heading_levels),
            "orderedLists": self.ordered_lists,
            "nestedLists": self.nested_lists,
            "nestedItems": self.nested_items,
            "codeLanguages": list(self.code_languages),
            "tableRows": self.table_rows,
            "tableColumns": self.table_columns,
            "tablesWithHeader": self.tables_with_header,
        }


@dataclasses.dataclass(slots=True)
class Flags:
    """Facts about how a chunk was cut (seed 000's names, camelCased).

    Made once per chunk and never changed after (not frozen: see `mdchunk.chunking.model.Block`).
    """

    allow_oversize: bool = False
    """The chunk exceeds max_tokens because it holds an atomic block larger than that."""
    oversize_reason: str | None = None
    """code_block_integrity, table_integrity, equation_integrity or block_integrity."""
    small_chunk: bool = False
    """Under min_tokens, could not merge, and structurally weak (seed 000's rules)."""
    small_chunk_reason: str | None = None
    """Why it is small: cannot_merge."""
    forced_split: bool = False
    """Cut inside a sentence: no sentence end fitted the budget."""
    has_overlap_previous: bool = False
    """The text starts with the tail of the previous chunk (overlap_mode text)."""
    has_overlap_next: bool = False
    """The next chunk starts with the tail of this one (overlap_mode text)."""

    def as_dict(self) -> dict[str, Any]:
        """camelCase JSON form."""
        return {
            "allowOversize": self.allow_oversize,
            "oversizeReason": self.oversize_reason,
            "smallChunk": self.small_chunk,
            "smallChunkReason": self.small_chunk_reason,
            "forcedSplit": self.forced_split,
            "hasOverlapPrevious": self.has_overlap_previous,
            "hasOverlapNext": self.has_overlap_next,
        }


@dataclasses.dataclass(slots=True)
class Chunk:
    """One chunk of one page, with everything every output profile needs.

    Made once per piece and never changed after (a changed copy is `dataclasses.replace`'s).
    Not frozen: a frozen dataclass sets each of its 36 fields through `object.__setattr__`,
    which took a fifth of the time of describing a chunk (see `mdchunk.chunking.model.Block`).
    """

    doc_name: str
    """Source path without extension, `/` kept (`guide/install`)."""
    chunk_number: int
    """Zero-based position of the chunk in its page."""
    total_chunks: int
    """Number of chunks of the page."""
    text: str
    """The chunk's Markdown (`originalText`): `page_markdown[char_start:char_end]`."""
    embed_text: str
    """The text to embed: the embed template applied (context line + text by default)."""
    file_title: str
    """The page title."""
    section_title: str
    """Title of the section the chunk starts in (the page title for a preamble)."""
    header_path: tuple[str, ...]
    """Heading texts from the top of the page to the chunk's section."""
    header_depths: tuple[int, ...]
    """Levels (1-6) of the headings in `header_path`."""
    header_slugs: tuple[str, ...]
    """Anchor ids of the headings in `header_path` ("" where a heading has none)."""
    section_slug: str
    """The id the browser scrolls to for the chunk ("" for a preamble: the top of the page)."""
    sub_headers: tuple[str, ...]
    """Headings inside the chunk after the one it starts with."""
    page_url: str
    """The page's url relative to the site root."""
    site_url: str
    """The site's public url ("" when the site has none)."""
    char_start: int
    """Offset of the chunk in the page Markdown."""
    char_end: int
    """Offset just past the chunk in the page Markdown."""
    start_line: int
    """1-based line of the page Markdown where the chunk starts."""
    end_line: int
    """1-based line of the page Markdown where the chunk ends."""
    tokens: int
    """Exact token count of `text`."""
    embed_tokens: int
    """Exact token count of `embed_text`."""
    block_types: tuple[str, ...]
    """Kinds of the top-level blocks the chunk holds, in order of first appearance."""
    features: Features
    flags: Flags
    previous_content: str | None
    """Tail of the previous chunk (overlap_mode metadata), never part of `text`."""
    next_content: str | None
    """Head of the next chunk (overlap_mode metadata), never part of `text`."""
    source_file: str
    """The page's source path relative to the docs folder."""
    processed_at: str
    """ISO 8601 time of the build (SOURCE_DATE_EPOCH when set)."""
    chunking_options: dict[str, Any]
    processing_time_ms: float
    """Time spent chunking the page (0 in reproducible builds)."""
    front_matter: dict[str, Any]
    """The page's front matter / metadata."""
    version: str
    """mdchunk's version."""
    max_tokens: int = 0
    """The chunk's token budget: max_tokens, or its section's adaptive size."""
    adaptive: tuple[float, float] | None = None
    """With adaptive sizing: the section's complexity (0..1) and scale factor."""
    docs_version: str | None = None
    """The version of the docs the page belongs to (None: an unversioned build); `doc_name`
    then starts with it (`versioned_doc_name`)."""
    language: str | None = None
    """The page's natural language: its front matter `language` / `lang`, else the build's
    (`mdchunk.chunking.describe.page_language`); None when neither says."""

    @property
    def id(self) -> str:
        """`doc:{docName}::ch{n}`."""
        return chunk_id(self.doc_name, self.chunk_number)

    @property
    def parent_id(self) -> str:
        """`doc:{docName}`."""
        return f"doc:{self.doc_name}"

    @property
    def prev_id(self) -> str | None:
        """Id of the previous chunk of the page."""
        return previous_id(self.doc_name, self.chunk_number)

    @property
    def next_id(self) -> str | None:
        """Id of the next chunk of the page."""
        return next_id(self.doc_name, self.chunk_number, self.total_chunks)

    @property
    def url(self) -> str:
        """Page url + `#` + section slug: the deep link to the chunk's section."""
        return section_url(self.page_url, self.section_slug)

    @property
    def absolute_url(self) -> str | None:
        """`url` joined to the site url; None when the site has no site_url."""
        return absolute_url(self.site_url, self.url)

    @property
    def uuid(self) -> str:
        """Deterministic uuid (v5) of the chunk id."""
        return uuid5_text(self.id)

    @property
    def document_uuid(self) -> str:
        """Deterministic uuid (v5) of the page."""
        return page_uuid5(self.parent_id)

    @property
    def sha256(self) -> str:
        """SHA-256 of `text` (UTF-8)."""
        return text_sha256(self.text)

    @property
    def breadcrumb(self) -> str:
        """`header_path` joined with ` > `."""
        return " > ".join(self.header_path)

    def as_native(self) -> dict[str, Any]:
        """The native record (a line of `chunks.jsonl`): seed 002's fields in its order, then
        mdchunk's own."""
        doc_name, number, text = self.doc_name, self.chunk_number, self.text
        identifier = chunk_id(doc_name, number)
        parent = f"doc:{doc_name}"
        url = section_url(self.page_url, self.section_slug)
        return {
            "id": identifier,
            "parentId": parent,
            "prevId": previous_id(doc_name, number),
            "nextId": next_id(doc_name, number, self.total_chunks),
            "embedText": self.embed_text,
            "originalText": text,
            "chunkNumber": number,
            "totalChunks": self.total_chunks,
            "contentType": "doc",
            "fileTitle": self.file_title,
            "sectionTitle": self.section_title,
            "headerPath": list(self.header_path),
            "headerBreadcrumb": " > ".join(self.header_path),
            "headerDepths": list(self.header_depths),
            "headerSlugs": list(self.header_slugs),
            "sectionSlug": self.section_slug,
            "url": url,
            "absoluteUrl": absolute_url(self.site_url, url),
            "pageUrl": self.page_url,
            "version": self.docs_version,
            "language": self.language,
            "subHeaders": list(self.sub_headers),
            "charOffsets": {"charStart": self.char_start, "charEnd": self.char_end,
                            "totalChars": self.char_end - self.char_start},
            "lineRange": {"startLine": self.start_line, "endLine": self.end_line},
            "tokenStats": {"tokens": self.tokens, "estimatedTokens": estimate_tokens(text),
                           "embedTokens": self.embed_tokens},
            "blockTypes": list(self.block_types),
            "features": self.features.as_dict(),
            "flags": self.flags.as_dict(),
            "adaptiveSizing": self._adaptive_sizing(),
            "previousContent": self.previous_content,
            "nextContent": self.next_content,
            "uuid": uuid5_text(identifier),
            "documentUuid": page_uuid5(parent),
            "sha256": text_sha256(text),
            "duplicateOf": None,
            "schemaVersion": SCHEMA_VERSION,
            "metadata": self._metadata(),
        }

    def _adaptive_sizing(self) -> dict[str, Any] | None:
        """The section's complexity, scale and size, with adaptive sizing (else None)."""
        if self.adaptive is None:
            return None
        complexity, scale = self.adaptive
        return {"contentComplexity": complexity, "sizeScaleFactor": scale,
                "adaptiveSize": self.max_tokens}

    def _metadata(self) -> dict[str, Any]:
        """Where the chunk comes from and how it was made."""
        return {
            "sourceFile": self.source_file,
            "processedAt": self.processed_at,
            "chunkingOptions": self.chunking_options,
            "pipeline": {"version": self.version, "processingTimeMs": self.processing_time_ms},
            "frontMatter": self.front_matter,
        }


@dataclasses.dataclass(slots=True)
class PageSection:
    """One section of a page: a heading and everything under it, up to the next heading of its
    level or above; number 0 is the page itself (its preamble, then every section).

    Made once per section and never changed after (not frozen: see `Chunk`)."""

    number: int
    """Position in the page, in document order (0: the page)."""
    parent: int | None
    """Number of the enclosing section (None for the page)."""
    level: int
    """Heading level, 1-6 (0 for the page)."""
    header_path: tuple[str, ...]
    """Heading texts from the top of the page down to this section (empty for the page)."""
    header_slugs: tuple[str, ...]
    """Anchor ids of the headings in `header_path` ("" where a heading has none)."""
    section_slug: str
    """The id the browser scrolls to: the section's own, else its nearest ancestor's."""
    char_start: int
    """Offset of the section (its heading) in the page Markdown."""
    char_end: int
    """Offset just past the last block of the section and its subsections."""
    tokens: int
    """Exact token count of `page_markdown[char_start:char_end]`."""
    chunks: tuple[int, ...]
    """Numbers of the chunks that hold the section's text, in order: the one chunk a short
    section sits in, every chunk of a long one, all of them for the page (never empty)."""
    own_chunks: tuple[int, ...]
    """Numbers of the chunks whose own section this is: they start in it, not in one of its
    subsections (every chunk of the page is in exactly one section's `own_chunks`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PageChunks:
    """A chunked page: its Markdown, its chunks and what went wrong on it (not its HTML)."""

    source_path: str
    """The page's source path."""
    url: str
    """The page's url relative to the site root."""
    markdown: str
    """The page Markdown that every chunk's offsets index into."""
    chunks: tuple[Chunk, ...]
    warnings: tuple[str, ...]
    """Problems a user should fix on this page (each message names the page's location)."""
    notes: tuple[str, ...] = ()
    """Facts about the page that mdchunk copes with (headings without an id): said at info
    level, never a warning that fails a strict build."""
    sections: tuple[PageSection, ...] = ()
    """The page and every section of its heading tree, in document order (none for a page
    without chunks)."""
    summary: str = ""
    """A sentence or two that says what the page is about, from its first paragraph of prose
    (`mdchunk.chunking.summary`); "" when it has none."""


# -- the fields derived from a chunk ------------------------------------------------------------

#: Version of the native record's layout; bumped when a field changes meaning or name.
SCHEMA_VERSION = 1
#: Namespace of the deterministic chunk and document uuids.
UUID_NAMESPACE = uuid.UUID("6f1c3a52-8d0e-5b6c-9a47-2f6d4e1b7c90")


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
    """`uuid5(UUID_NAMESPACE, name)` as text: the same name always gives the same uuid.

    Made from the SHA-1 digest as RFC 4122 says (version 5, variant bits), which is what
    `uuid.uuid5` does, without building a `UUID` object for each chunk."""
    digest = bytearray(hashlib.sha1(UUID_NAMESPACE.bytes + name.encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


#: `uuid5_text`, cached for document uuids (every chunk of a page asks for the same one).
page_uuid5 = functools.lru_cache(maxsize=256)(uuid5_text)


def versioned_doc_name(doc_name: str, version: str | None) -> str:
    """The docName of a page of a versioned build: the version folder, then the page's docName
    (`1.0/guide/install`), so that ids stay unique across the versions of one tree."""
    return doc_name if version is None else f"{version}/{doc_name}"


def chunk_id(doc_name: str, number: int) -> str:
    """`doc:{docName}::ch{n}` (seed 002)."""
    return f"doc:{doc_name}::ch{number}"


def previous_id(doc_name: str, number: int) -> str | None:
    """Id of the chunk before chunk `number` of the page (None for the first)."""
    return chunk_id(doc_name, number - 1) if number else None


def next_id(doc_name: str, number: int, total: int) -> str | None:
    """Id of the chunk after chunk `number` of the page's `total` (None for the last)."""
    return None if number + 1 >= total else chunk_id(doc_name, number + 1)
