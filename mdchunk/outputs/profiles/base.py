"""What every output profile shares: its description in the registry and its input."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from mdchunk.chunking.chunk import Chunk, PageChunks
from mdchunk.outputs.catalog import Layout, Record

ChunksLike = PageChunks | Sequence[Chunk]
"""The chunks of one page: a `PageChunks`, or its chunks in order."""



@dataclasses.dataclass(frozen=True, slots=True)
class ProfileSettings:
    """Site-wide facts a profile may use beyond the chunks themselves."""

    language: str | None = None
    """The site's natural language (MkDocs `theme.language`, Sphinx `language`); a page's own
    front matter `language` / `lang` wins over it."""
    pagefind_filters: tuple[str, ...] = ()
    """Front matter keys whose values become Pagefind filters, besides `tags`."""


@dataclasses.dataclass(frozen=True, slots=True)
class Profile:
    """One output format: how to turn a page's chunks into records, and where they go."""

    name: str
    """The format's name, as users select it."""
    target: str
    """File (or folder, for the `files` layout) in the site folder."""
    layout: Layout
    records: Callable[[ChunksLike, ProfileSettings], Iterator[Record]]
    """The page's records, in chunk order, made one at a time: whoever takes them (an encoder)
    can be done with each before the next is made, so no page's records are all held."""
    description: str
    """One line for users: what the format is and which seed it follows."""
    embedding: bool = False
    """One record per chunk, for embedding pipelines and vector stores: the records that
    `duplicates: drop` leaves out for duplicate chunks."""


def chunks_of(page: ChunksLike) -> tuple[Chunk, ...]:
    """The chunks of one page, in order."""
    return page.chunks if isinstance(page, PageChunks) else tuple(page)


def front_matter_text(chunk: Chunk, *keys: str) -> str | None:
    """The first of `keys` in the page's front matter that holds a non-blank scalar, as text."""
    for key in keys:
        value = chunk.front_matter.get(key)
        if isinstance(value, bool) or value is None or isinstance(value, dict | list):
            continue
        text = str(value).strip()
        if text:
            return text
    return None
