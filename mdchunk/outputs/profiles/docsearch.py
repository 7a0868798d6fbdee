"""The `docsearch` profile: records shaped like a DocSearch / Typesense docs-scraper's.

One record per chunk (a scraper makes one per paragraph; a chunk is mdchunk's unit of
retrieval, so its record carries the chunk's whole text):

- `objectID`: the chunk's id (`doc:guide/install::ch2`), stable from build to build.
- `hierarchy`: `lvl0` the page title (else the top heading), then the chunk's headerPath, the
  title not repeated when the page's H1 is the title; `null` for the levels below.
- `url`: the absolute url when the site has a site url, else the url relative to the site root;
  `url_without_anchor`, and `anchor` (the section slug, `null` for the top of the page).
- `content`: the chunk as plain text: no fences, heading marks, emphasis marks, link targets,
  list or quote marks, table pipes; the chunk's own heading is left out (it is in the hierarchy).
- `type`: "content", or `lvlN` (N the deepest hierarchy level) for a chunk that holds nothing
  but its heading (its `content` is then `null`).
- `weight`: `level` 0 for content, 100 - 10 N for `lvlN` (the scraper's scale); `position` the
  chunk's number in its page; `pageRank` 0.
- `version`: in a versioned build only, `[version]`, as the scraper makes it of a page's
  `docsearch:version` meta tag (the facet a versioned search bar filters on).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mdchunk.chunking.chunk import Chunk
from mdchunk.chunking.markdown_text import markdown_to_text
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, chunks_of
from mdchunk.outputs.profiles.markdown_chunker import starts_with_heading

LEVELS = 7
"""lvl0 .. lvl6."""



def hierarchy_levels(chunk: Chunk) -> list[str]:
    """lvl0 (page title, else the top heading), then the headerPath: at most 7 entries."""
    path = list(chunk.header_path)
    title = chunk.file_title
    if not title:
        levels = path or [chunk.doc_name]
    elif path and path[0] == title:
        levels = path
    else:
        levels = [title, *path]
    return levels[:LEVELS]


def docsearch_record(chunk: Chunk) -> Record:
    """The record of one chunk."""
    levels = hierarchy_levels(chunk)
    hierarchy = {f"lvl{n}": levels[n] if n < len(levels) else None for n in range(LEVELS)}
    content = markdown_to_text(chunk.text, skip_heading=starts_with_heading(chunk))
    deepest = len(levels) - 1
    url = chunk.absolute_url or chunk.url
    record: dict[str, Any] = {
        "objectID": chunk.id,
        "hierarchy": hierarchy,
        "url": url,
        "url_without_anchor": url.split("#", 1)[0],
        "anchor": chunk.section_slug or None,
        "content": content or None,
        "type": "content" if content else f"lvl{deepest}",
        "weight": {
            "level": 0 if content else 100 - 10 * deepest,
            "position": chunk.chunk_number,
            "pageRank": 0,
        },
    }
    if chunk.docs_version is not None:
        record["version"] = [chunk.docs_version]
    return record


def docsearch_records(page: ChunksLike) -> Iterator[Record]:
    """The records of one page's chunks, in order, one at a time."""
    for chunk in chunks_of(page):
        yield docsearch_record(chunk)
