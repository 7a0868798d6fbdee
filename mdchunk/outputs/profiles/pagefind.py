"""The `pagefind` profile: one Pagefind custom record per section of a page.

A section is the chunks that share one url (a page and an anchor), in page order: the unit a
reader lands on from a search result. Its record is what `PagefindIndex.add_custom_record`
takes (`mdchunk.outputs.pagefind_bundle` writes the bundle):

- `url`: the section's url made root-relative (`/guide/install/#linux`), as Pagefind gives the
  pages it indexes itself: Pagefind's search prefixes it with the folder the site is served
  from (its `baseUrl`), so it resolves wherever the site is published.
- `content`: the section's text as plain text (`markdown_to_text`): the page Markdown its chunks
  span, overlapping text taken once.
- `language`: the page's front matter `language` or `lang`, else the site's, else `unknown`
  (Pagefind's name for an index without stemming).
- `meta`: `title` (the breadcrumb, which Pagefind's UI shows as the result's title), `page`
  (the page title), `section` (the section title) and `tokens` (the tokens of its chunks).
- `filters`: the page's front matter `tags`, and the front matter keys the build names
  (`ProfileSettings.pagefind_filters`), each as a list of strings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mdchunk.chunking.chunk import Chunk
from mdchunk.chunking.markdown_text import markdown_to_text
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.pagefind_bundle import record_language
from mdchunk.outputs.profiles.base import ChunksLike, ProfileSettings, chunks_of

"""Pagefind's language of records whose language is not known (no stemming)."""
ALWAYS_FILTERED = ("tags",)
"""Front matter keys that are filters of every bundle."""


def pagefind_records(page: ChunksLike, settings: ProfileSettings | None = None
                     ) -> Iterator[Record]:
    """The records of one page's sections, in page order, one at a time."""
    settings = settings or ProfileSettings()
    for section in sections(chunks_of(page)):
        yield section_record(section, settings)


def sections(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """The page's chunks grouped by url, in the order each url first appears."""
    grouped: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        grouped.setdefault(chunk.url, []).append(chunk)
    return list(grouped.values())


def section_record(section: Sequence[Chunk], settings: ProfileSettings) -> Record:
    """The Pagefind record of one section (its chunks, in page order)."""
    first = section[0]
    return {
        "url": root_relative(first.url),
        "content": markdown_to_text(section_markdown(section)),
        "language": record_language(first.front_matter, settings.language),
        "meta": {
            "title": first.breadcrumb or first.file_title or first.section_title,
            "page": first.file_title,
            "section": first.section_title,
            "tokens": str(sum(chunk.tokens for chunk in section)),
        },
        "filters": front_matter_filters(first.front_matter, settings.pagefind_filters),
    }


def root_relative(url: str) -> str:
    """A url relative to the site root (`guide/install/#linux`) as Pagefind takes it:
    `/guide/install/#linux`."""
    return "/" + url.lstrip("/")


def section_markdown(section: Sequence[Chunk]) -> str:
    """The page Markdown the section's chunks span: consecutive chunks joined where they meet
    (text that two chunks share, `overlap_mode: text`, is taken once), runs of chunks that do
    not meet separated by a blank line. Between consecutive chunks the page holds nothing but
    whitespace, so this is the page's text but for the width of that whitespace."""
    parts: list[str] = []
    previous: Chunk | None = None
    for chunk in section:
        if previous is None:
            parts.append(chunk.text)
        else:
            shared = max(0, min(previous.char_end - chunk.char_start, len(chunk.text)))
            parts.append("\n\n" + chunk.text[shared:] if shared == 0 else chunk.text[shared:])
        previous = chunk
    return "".join(parts)


def front_matter_filters(front_matter: Mapping[str, Any], keys: Sequence[str]
                         ) -> dict[str, list[str]]:
    """`tags` and the front matter keys named in `keys`, each as a list of strings; keys the
    page lacks, or whose value is a mapping or empty, are left out."""
    filters: dict[str, list[str]] = {}
    for key in dict.fromkeys([*ALWAYS_FILTERED, *keys]):
        values = filter_values(front_matter.get(key))
        if values:
            filters[key] = values
    return filters


def filter_values(value: object) -> list[str]:
    """A front matter value as filter values: a list's scalars, or one scalar, as text."""
    items = value if isinstance(value, list | tuple) else [value]
    return [_text(item) for item in items
            if item is not None and not isinstance(item, Mapping | list | tuple)
            and _text(item)]


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()
