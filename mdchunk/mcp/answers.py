"""What the MCP tools return: typed dictionaries, which are also the tools' output schemas."""

from typing import Literal

try:  # pydantic (under the MCP SDK) reads TypedDicts from typing_extensions before Python 3.12
    from typing_extensions import TypedDict
except ImportError:  # pragma: no cover - the MCP SDK depends on typing_extensions
    from typing import TypedDict


class SearchResult(TypedDict):
    """One section that matches a query, with the text of its best-matching chunk."""

    rank: int
    id: str
    url: str
    absoluteUrl: str | None
    pageUrl: str
    breadcrumb: str
    title: str
    score: float
    tokens: int
    text: str
    sectionChunks: int
    parentId: str | None
    """The id of the section one heading up (None at the top of its page), for read_section."""
    version: str | None
    """The version of the docs the section belongs to (None: an unversioned build)."""
    language: str | None
    """The natural language of the section's page (the native record's `language`)."""


class OmittedResult(TypedDict):
    """A search result left out because its text did not fit the tokens left."""

    rank: int
    id: str
    url: str
    breadcrumb: str
    tokens: int


class SearchAnswer(TypedDict):
    """What `search_docs` returns."""

    query: str
    maxTokens: int
    tokens: int
    results: list[SearchResult]
    omitted: list[OmittedResult]


class OutlineEntry(TypedDict):
    """One section of a page's outline."""

    id: str
    url: str
    absoluteUrl: str | None
    title: str
    breadcrumb: str
    depth: int
    tokens: int
    chunks: int
    subHeaders: list[str]


class SectionAnswer(TypedDict):
    """What `read_section` returns."""

    id: str
    url: str
    absoluteUrl: str | None
    pageUrl: str
    title: str
    breadcrumb: str
    headerPath: list[str]
    depth: int
    tokens: int
    text: str
    truncated: bool
    sectionTokens: int
    chunkIds: list[str]
    omittedChunkIds: list[str]
    subsections: list[OutlineEntry]
    parentId: str | None
    source: str


class OmittedSection(TypedDict):
    """A section `read_sections` left out because it did not fit the tokens left."""

    id: str
    url: str
    breadcrumb: str
    tokens: int


class SectionsAnswer(TypedDict):
    """What `read_sections` returns."""

    maxTokens: int
    tokens: int
    sections: list[SectionAnswer]
    omitted: list[OmittedSection]


class PageAnswer(TypedDict):
    """What `read_page` returns."""

    url: str
    absoluteUrl: str | None
    title: str
    tokens: int
    text: str
    truncated: bool
    cut: Literal["none", "section boundary", "chunk boundary"]
    pageTokens: int
    omitted: list[OutlineEntry]
    partlyOmitted: str | None
    source: str


class OutlineAnswer(TypedDict):
    """What `list_sections` returns."""

    url: str
    absoluteUrl: str | None
    title: str
    tokens: int
    sections: list[OutlineEntry]
