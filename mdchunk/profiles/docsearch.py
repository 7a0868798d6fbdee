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
"""

from __future__ import annotations

import re
from typing import Any

from mdchunk.chunk import Chunk
from mdchunk.profiles.base import ChunksLike, Record, chunks_of
from mdchunk.profiles.markdown_chunker import starts_with_heading

LEVELS = 7
"""lvl0 .. lvl6."""

_CONTAINER = re.compile(r"^((?:[ \t]*>[ \t]?)*[ \t]*)(.*)$")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_HEADING = re.compile(r"#{1,6} ")
_DELIMITER_ROW = re.compile(r"\|(?:\s*:?-+:?\s*\|)+\s*$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
_MARKERS = re.compile(r"^(?:(?:[-*+]|\d+\.)[ \t]+|\[[ xX]\][ \t]+|\[\^[^\]]+\]:[ \t]*|:[ \t]+)+")
_IMAGE = re.compile(r"!\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)\s]*\)")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)\s]*\)")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_ATOM = re.compile(r"(`+)(?!`)[ ]?(.+?)[ ]?(?<!`)\1(?!`)|\$([^$\n]+)\$")
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1")


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
    content = plain_text(chunk.text, skip_heading=starts_with_heading(chunk))
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
    return record


def docsearch_records(page: ChunksLike) -> list[Record]:
    """The records of one page's chunks, in order."""
    return [docsearch_record(chunk) for chunk in chunks_of(page)]


def plain_text(markdown: str, *, skip_heading: bool = False) -> str:
    """mdchunk's Markdown as plain text on one line (see the module docstring).

    Arguments:
        markdown: A chunk's text.
        skip_heading: Leave out the first line when it is a heading.
    """
    words: list[str] = []
    fence: tuple[int, str] | None = None  # width of the fence's line prefix, and its marker
    for number, line in enumerate(markdown.split("\n")):
        if fence is not None:
            width, marker = fence
            body = line[width:].strip()
            if body.startswith(marker) and not body.strip(marker[0]):
                fence = None
            else:
                words.append(body)
            continue
        match = _CONTAINER.match(line)
        body = _MARKERS.sub("", match.group(2)) if match else line
        opening = _FENCE.match(body)
        if opening:
            fence = (len(line) - len(body), opening.group(1))
        elif body.strip() == "$$" or _DELIMITER_ROW.match(body):
            pass
        elif _HEADING.match(body):
            if not (skip_heading and number == 0):
                words.append(_inline(body.lstrip("#")))
        elif body.startswith("|"):
            cells = _CELL_BORDER.split(body.strip().strip("|"))
            words.append(" ".join(_inline(cell.replace("\\|", "|")) for cell in cells))
        else:
            words.append(_inline(body))
    return " ".join(" ".join(words).split())


def _inline(text: str) -> str:
    """Inline Markdown as text: images and links become their text, code and math lose their
    delimiters, emphasis its marks, footnote references disappear."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub("", text)
    parts: list[str] = []
    position = 0
    for atom in _ATOM.finditer(text):
        parts.append(_plain_emphasis(text[position : atom.start()]))
        parts.append(atom.group(2) if atom.group(1) else atom.group(3))
        position = atom.end()
    parts.append(_plain_emphasis(text[position:]))
    return "".join(parts)


def _plain_emphasis(text: str) -> str:
    """Text without `**`, `*` and `~~` pairs, nested ones too."""
    previous = None
    while previous != text:
        previous, text = text, _EMPHASIS.sub(r"\2", text)
    return text
