"""The `sections` profile: one record per section of a page, for small-to-big retrieval.

A retriever matches small chunks (precise) and hands over their section (whole): each section
record holds the section's whole Markdown, from its heading to the next heading of its level or
above (its subsections included), the ids of the chunks that hold that text and of the chunks
whose own section it is, so that a chunk id leads to its section and a section to its parent
and to its chunks. Section 0 of a page is the page itself: its preamble's chunks are its own,
and the page's top sections its children, so every chunk is owned by exactly one section and
the sections of a page form a tree.

- `id`: `doc:{docName}::s{n}`, n in document order (0: the page); `parentId`: the enclosing
  section's id (null for the page); `pageId`: `doc:{docName}`, the chunks' `parentId`.
- `level` (0 for the page), `title`, `headerPath`, `headerBreadcrumb`, `headerSlugs`,
  `sectionSlug`, `url` (page url + `#` + sectionSlug), `absoluteUrl`, `pageUrl`, `fileTitle`,
  `sourceFile`: as in the native record.
- `text`: `page_markdown[charStart:charEnd]` exactly; `charOffsets` `{charStart, charEnd,
  totalChars}`; `tokens`: its exact count.
- `chunkIds`: the ids of the chunks that hold the section's text, in order (never empty): the
  one chunk a section sits in when it shares a chunk with its neighbours or its parent, every
  chunk of a section split over several, every chunk of the page for section 0. A chunk is in
  the `chunkIds` of every section it holds text of (its section's ancestors too).
- `ownChunkIds`: the ids of the chunks whose own section this is: they start in it, not in one
  of its subsections, and their `headerPath` and `url` are the section's. Every chunk is in
  exactly one section's `ownChunkIds` (how a matched chunk finds its section); a section that
  starts inside a chunk of its parent or of a sibling owns none.
"""

from __future__ import annotations

from collections.abc import Iterator

from mdchunk.chunking.chunk import PageChunks, PageSection, absolute_url, chunk_id, section_url
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike


def section_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's sections, in document order, one at a time; a page given as
    bare chunks (no `PageChunks`: no heading tree) has none."""
    if not isinstance(page, PageChunks) or not page.chunks:
        return
    for section in page.sections:
        yield section_record(page, section)


def section_id(doc_name: str, number: int) -> str:
    """`doc:{docName}::s{n}`."""
    return f"doc:{doc_name}::s{number}"


def section_record(page: PageChunks, section: PageSection) -> Record:
    """The record of one section of `page`."""
    first = page.chunks[0]
    doc_name = first.doc_name
    url = section_url(first.page_url, section.section_slug)
    title = section.header_path[-1] if section.header_path else first.file_title
    return {
        "id": section_id(doc_name, section.number),
        "parentId": None if section.parent is None else section_id(doc_name, section.parent),
        "pageId": first.parent_id,
        "level": section.level,
        "title": title,
        "headerPath": list(section.header_path),
        "headerBreadcrumb": " > ".join(section.header_path),
        "headerSlugs": list(section.header_slugs),
        "sectionSlug": section.section_slug,
        "url": url,
        "absoluteUrl": absolute_url(first.site_url, url),
        "pageUrl": first.page_url,
        "fileTitle": first.file_title,
        "sourceFile": first.source_file,
        "text": page.markdown[section.char_start:section.char_end],
        "charOffsets": {"charStart": section.char_start, "charEnd": section.char_end,
                        "totalChars": section.char_end - section.char_start},
        "tokens": section.tokens,
        "chunkIds": [chunk_id(doc_name, number) for number in section.chunks],
        "ownChunkIds": [chunk_id(doc_name, number) for number in section.own_chunks],
    }
