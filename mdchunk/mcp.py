"""`mdchunk mcp`: a built site's chunk index served to AI assistants over MCP.

An assistant (Claude Code, Cursor, any MCP client) reads the documentation through four tools,
all read-only:

- `search_docs(query, limit, max_tokens)`: the sections that best match the query, ranked as
  `mdchunk query` ranks (FTS5, bm25), at most one result per section.
- `read_section(id_or_url, max_tokens)`: one whole section, as the page's Markdown has it.
- `read_page(url, max_tokens)`: a page's Markdown.
- `list_sections(url)`: a page's outline.

A section is what the chunk records call a `url`: a page and an anchor (`guide/install/#linux`);
its chunks are the records sharing that url. Every id and url a tool returns (a chunk id
`doc:guide/install::ch1`, a page id `doc:guide/install`, a section or page url, an absolute url)
is accepted by every tool.

Budgets. `max_tokens` bounds the text a tool returns: the sum of the exact token counts (the
index's encoding, counted by `mdchunk.tokens.token_counter`) of the `text` fields of its answer;
urls, breadcrumbs and other fields are not counted. Text is only ever cut between chunks, never
inside one: a section is cut after its last chunk that fits, a page after its last section that
fits (after its last chunk that fits where not even the first section does), and search results
that do not fit what is left are left out whole and named in `omitted`. A budget that cannot hold
even the first chunk of the answer is refused with an error that says the budget needed.

The index. The server answers from the SQLite/FTS5 index `chunks.sqlite`
(`mdchunk.outputs.sqlite`). A
site built with `formats: [native]` has only `chunks.jsonl`: the SQLite index is then made from
it, atomically, beside it; where the site folder cannot be written, in the user's cache folder
(`$XDG_CACHE_HOME/mdchunk/mcp`, or `--cache-dir`), under a name made of chunks.jsonl's path,
size and modification time (the file of an earlier version is removed). An existing
`chunks.sqlite` older than `chunks.jsonl` is used only when it holds the same records. When the
index files change (the site was built again), the next tool call loads them again.

Safety. The server reads the index it was given and, for a page of that index, the page's
Markdown file inside the site folder: nothing else. A url is looked up in the index, never
turned into a file path, so a url that is not a page of the index reads nothing; a url with a
`..` segment, a backslash or a scheme other than the site's own http(s) url (`file:`, `C:`) is
refused before any look-up; and a page's Markdown file whose real path (symbolic links followed)
leaves the site folder is not read (the page is then served from its chunk texts).
"""

import collections
import contextlib
import dataclasses
import functools
import hashlib
import logging
import os
import re
import sqlite3
import sys
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal, TypeVar

try:  # pydantic (under the MCP SDK) reads TypedDicts from typing_extensions before Python 3.12
    from typing_extensions import TypedDict
except ImportError:  # pragma: no cover - the MCP SDK depends on typing_extensions
    from typing import TypedDict

from mdchunk._version import __version__
from mdchunk.outputs.sqlite import Hit, fts_query, read_index, read_sqlite, search, write_sqlite
from mdchunk.outputs.twins import page_markdown_path, twin_path
from mdchunk.tokens import TokenCounter, token_counter

log = logging.getLogger(__name__)

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

#: File names of the indexes found in a site folder.
NATIVE_INDEX = "chunks.jsonl"
SQLITE_INDEX = "chunks.sqlite"
_SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")

#: Defaults and bounds of the tools' arguments.
SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 50
SEARCH_TOKENS = 2000
SECTION_TOKENS = 4000
PAGE_TOKENS = 8000

#: Anchors an error about an unknown anchor names (list_sections gives them all).
_ANCHORS_NAMED = 20

#: Page texts kept in memory (read from disk again past that).
_PAGE_TEXT_CACHE = 32

#: Where the SQLite index made from a read-only site's chunks.jsonl goes, under the user cache.
_CACHE_SUBFOLDER = Path("mdchunk") / "mcp"


class DocsError(Exception):
    """A request the docs cannot answer (unknown url, empty query, too small a budget, a url
    that leaves the site); its message is what the assistant reads, so it says what to do."""


# ---------------------------------------------------------------------------------------------
# What the tools return (also their MCP output schemas)


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
    source: str


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


# ---------------------------------------------------------------------------------------------
# The index in memory: chunks, sections, pages


@dataclasses.dataclass(frozen=True, slots=True)
class Chunk:
    """The fields of a native chunk record the tools use."""

    id: str
    page_id: str
    number: int
    url: str
    page_url: str
    absolute_url: str | None
    title: str
    page_title: str
    breadcrumb: str
    header_path: tuple[str, ...]
    sub_headers: tuple[str, ...]
    start: int
    end: int
    text: str

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "Chunk":
        """The chunk of a native record (`chunks.jsonl` line or `chunks.sqlite` row)."""
        offsets = record.get("charOffsets") or {}
        text = str(record.get("originalText") or "")
        start = offsets.get("charStart")
        end = offsets.get("charEnd")
        if not (isinstance(start, int) and isinstance(end, int) and end - start == len(text)):
            start, end = -1, -1  # no usable offsets: joined from chunk texts
        header_path = tuple(str(part) for part in record.get("headerPath") or ())
        return cls(
            id=str(record["id"]), page_id=str(record.get("parentId") or ""),
            number=int(record.get("chunkNumber") or 0),
            url=str(record.get("url") or ""), page_url=str(record.get("pageUrl") or ""),
            absolute_url=record.get("absoluteUrl") or None,
            title=str(record.get("sectionTitle") or ""),
            page_title=str(record.get("fileTitle") or ""),
            breadcrumb=str(record.get("headerBreadcrumb") or " > ".join(header_path)),
            header_path=header_path,
            sub_headers=tuple(str(h) for h in record.get("subHeaders") or ()),
            start=start, end=end, text=text,
        )


@dataclasses.dataclass(slots=True)
class Section:
    """The chunks that share one url (a page and an anchor), in page order."""

    url: str
    page_url: str
    chunks: list[Chunk]

    @property
    def first(self) -> Chunk:
        return self.chunks[0]

    @property
    def title(self) -> str:
        """The heading's text; the page title for the text before a page's first heading."""
        return self.first.title or self.first.page_title or "(start of the page)"

    @property
    def depth(self) -> int:
        """Nesting in the page's outline: 1 for the page title, 0 before any heading."""
        return len(self.first.header_path)


@dataclasses.dataclass(slots=True)
class Page:
    """A page of the index: its chunks in order and its sections in order."""

    url: str
    chunks: list[Chunk]
    sections: list[Section]

    @property
    def title(self) -> str:
        first = self.chunks[0]
        return first.page_title or (first.header_path[0] if first.header_path else self.url)


@dataclasses.dataclass(frozen=True, slots=True)
class PageText:
    """A page's text and where each of its chunks is in it.

    `source` is `page markdown` when the text is the page's Markdown file (the chunks' offsets
    index into it), `chunk text` when it was joined from the chunks' texts (no Markdown file,
    or one that does not match the index): overlapping chunks are then joined once, and chunks
    that did not touch are separated by a blank line.
    """

    text: str
    spans: dict[str, tuple[int, int]]
    source: str


def markdown_files(page_url: str) -> list[str]:
    """Where the builds write a page's Markdown, relative to the site: beside its HTML file,
    named after it + `.md` (`guide/install/index.html.md`, `install.html.md`)."""
    return [page_markdown_path(page_url)]


def _is_site_relative(url: str) -> bool:
    """Whether `url` stays inside the site: no scheme, no leading slash, no `..`, no backslash."""
    return not (url.startswith("/") or "\\" in url or ":" in url.split("/", 1)[0]
                or ".." in url.split("/"))


# ---------------------------------------------------------------------------------------------
# Docs: the tools' answers over one loaded index


class Docs:
    """One loaded index and the site folder it belongs to; answers the tools.

    Args:
        records: the native chunk records, in index order.
        site: the folder holding the pages' Markdown files.
        sqlite: the `chunks.sqlite` searched (holding the same records).
        count: the token counter of the index's encoding.
        encoding: that encoding's name.
    """

    def __init__(self, records: Sequence[dict[str, Any]], *, site: Path, sqlite: Path,
                 count: TokenCounter, encoding: str = "cl100k_base") -> None:
        self.site = site
        self.sqlite = sqlite
        self.count = count
        self.encoding = encoding
        self.chunks: dict[str, Chunk] = {}
        self.sections: dict[str, Section] = {}
        self.pages: dict[str, Page] = {}
        for record in records:
            self._add(Chunk.from_record(record))
        for page in self.pages.values():
            page.chunks.sort(key=lambda chunk: chunk.number)
        self.site_url = _site_url(self.chunks.values())
        self._aliases = _page_aliases(self.pages)
        self._page_ids = {c.page_id: c.page_url for c in self.chunks.values() if c.page_id}
        self._texts: collections.OrderedDict[str, PageText] = collections.OrderedDict()
        self._lock = threading.Lock()

    def _add(self, chunk: Chunk) -> None:
        self.chunks[chunk.id] = chunk
        page = self.pages.setdefault(chunk.page_url, Page(chunk.page_url, [], []))
        page.chunks.append(chunk)
        section = self.sections.get(chunk.url)
        if section is None:
            section = self.sections[chunk.url] = Section(chunk.url, chunk.page_url, [])
            page.sections.append(section)
        section.chunks.append(chunk)

    # --- the tools ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = SEARCH_LIMIT,
               max_tokens: int = SEARCH_TOKENS) -> SearchAnswer:
        """The sections best matching `query`, best first, one result per section, with the
        text of each section's best-matching chunk; results whose text does not fit the tokens
        left are named in `omitted` instead."""
        if not fts_query(query):
            raise DocsError("the query has no word to search for: give one or more words, "
                            "e.g. 'install on linux'")
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise DocsError(f"limit must be between 1 and {MAX_SEARCH_LIMIT}, not {limit}")
        _check_budget(max_tokens)
        results: list[SearchResult] = []
        omitted: list[OmittedResult] = []
        left = max_tokens
        for rank, hit in enumerate(self._best_sections(query, limit), start=1):
            chunk = self.chunks[hit.id]
            tokens = self.count(chunk.text)
            if tokens > left:
                omitted.append(OmittedResult(rank=rank, id=chunk.id, url=chunk.url,
                                             breadcrumb=chunk.breadcrumb, tokens=tokens))
                continue
            left -= tokens
            results.append(SearchResult(
                rank=rank, id=chunk.id, url=chunk.url, absoluteUrl=chunk.absolute_url,
                pageUrl=chunk.page_url, breadcrumb=chunk.breadcrumb,
                title=self.sections[chunk.url].title, score=hit.score, tokens=tokens,
                text=chunk.text, sectionChunks=len(self.sections[chunk.url].chunks)))
        if omitted and not results:
            smallest = min(entry["tokens"] for entry in omitted)
            raise DocsError(f"max_tokens={max_tokens} is below one chunk: the smallest of the "
                            f"{len(omitted)} matching chunks has {smallest} tokens; ask again "
                            f"with max_tokens={smallest} or more")
        return SearchAnswer(query=query, maxTokens=max_tokens, tokens=max_tokens - left,
                            results=results, omitted=omitted)

    def read_section(self, id_or_url: str, max_tokens: int = SECTION_TOKENS) -> SectionAnswer:
        """The whole section named by a chunk id or a section url (a page url or id: the page's
        first section), cut after its last chunk that fits `max_tokens`."""
        _check_budget(max_tokens)
        section = self._section(id_or_url)
        page = self.pages[section.page_url]
        texts = self._page_text(page)
        whole = _join_spans(texts, section.chunks)
        whole_tokens = self.count(whole)
        kept = len(section.chunks)
        text, tokens = whole, whole_tokens
        if whole_tokens > max_tokens:
            kept, tokens = self._longest_prefix(
                lambda n: _join_spans(texts, section.chunks[:n]), kept - 1, max_tokens)
            text = _join_spans(texts, section.chunks[:kept])
            if kept == 0:
                raise DocsError(
                    f"max_tokens={max_tokens} is below one chunk: the first chunk of "
                    f"{section.url or '/'} has {self.count(section.first.text)} tokens; ask "
                    f"again with max_tokens={self.count(section.first.text)} or more (the "
                    f"whole section has {whole_tokens})")
        return SectionAnswer(
            id=section.first.id, url=section.url, absoluteUrl=section.first.absolute_url,
            pageUrl=section.page_url, title=section.title, breadcrumb=section.first.breadcrumb,
            headerPath=list(section.first.header_path), depth=section.depth, tokens=tokens,
            text=text, truncated=kept < len(section.chunks), sectionTokens=whole_tokens,
            chunkIds=[chunk.id for chunk in section.chunks[:kept]],
            omittedChunkIds=[chunk.id for chunk in section.chunks[kept:]],
            subsections=[self._outline_entry(texts, s) for s in _subsections(page, section)],
            source=texts.source)

    def read_page(self, url: str, max_tokens: int = PAGE_TOKENS) -> PageAnswer:
        """The Markdown of the page named by `url` (any url or id on it), cut after its last
        section that fits `max_tokens`, or its last chunk that fits where no section does."""
        _check_budget(max_tokens)
        page = self._page(url)
        texts = self._page_text(page)
        page_tokens = self.count(texts.text)
        answer = PageAnswer(url=page.url, absoluteUrl=self._absolute(page.url), title=page.title,
                            tokens=page_tokens, text=texts.text, truncated=False, cut="none",
                            pageTokens=page_tokens, omitted=[], partlyOmitted=None,
                            source=texts.source)
        if page_tokens <= max_tokens:
            return answer
        cut, end, text, tokens = self._cut_page(page, texts, max_tokens)
        left_out = [s for s in page.sections if any(texts.spans[c.id][1] > end
                                                   for c in s.chunks)]
        answer["text"], answer["tokens"], answer["cut"] = text, tokens, cut
        answer["truncated"] = True
        answer["omitted"] = [self._outline_entry(texts, s) for s in left_out]
        if left_out and texts.spans[left_out[0].first.id][1] <= end:
            answer["partlyOmitted"] = left_out[0].url
        return answer

    def _cut_page(self, page: Page, texts: PageText, max_tokens: int
                  ) -> tuple[Literal["section boundary", "chunk boundary"], int, str, int]:
        """Where a page too long for `max_tokens` is cut: after its last section that fits,
        else after its last chunk that fits; the cut's kind, its offset in the page text, the
        text before it (trailing blank lines dropped) and its tokens."""
        section_ends = [max(texts.spans[c.id][1] for c in s.chunks) for s in page.sections]
        chunk_ends = [texts.spans[c.id][1] for c in page.chunks]
        cuts: tuple[tuple[Literal["section boundary", "chunk boundary"], list[int]], ...] = (
            ("section boundary", section_ends), ("chunk boundary", chunk_ends))
        for cut, ends in cuts:
            kept, tokens = self._longest_prefix(
                functools.partial(_text_up_to, texts.text, ends), len(ends), max_tokens)
            if kept:
                return cut, ends[kept - 1], _text_up_to(texts.text, ends, kept), tokens
        first = self.count(texts.text[:chunk_ends[0]].rstrip())
        raise DocsError(f"max_tokens={max_tokens} is below one chunk: the first chunk of "
                        f"{page.url or '/'} has {first} tokens; ask again with "
                        f"max_tokens={first} or more (the whole page has "
                        f"{self.count(texts.text)})")

    def list_sections(self, url: str) -> OutlineAnswer:
        """The outline of the page named by `url` (any url or id on it)."""
        page = self._page(url)
        texts = self._page_text(page)
        return OutlineAnswer(url=page.url, absoluteUrl=self._absolute(page.url),
                             title=page.title, tokens=self.count(texts.text),
                             sections=[self._outline_entry(texts, s) for s in page.sections])

    # --- helpers of the tools ----------------------------------------------------------------

    def _best_sections(self, query: str, limit: int) -> list[Hit]:
        """The best hit of each of the `limit` best sections: chunks are fetched in growing
        batches until `limit` distinct section urls are found or the matches run out."""
        wanted = limit * 4
        while True:
            try:
                hits = search(self.sqlite, query, wanted)
            except (sqlite3.Error, OSError) as error:
                raise DocsError(f"the index {self.sqlite} cannot be searched: {error}") from error
            best: dict[str, Hit] = {}
            for hit in hits:
                if hit.id in self.chunks:
                    best.setdefault(hit.url, hit)
            if len(best) >= limit or len(hits) < wanted:
                return list(best.values())[:limit]
            wanted *= 4

    def _longest_prefix(self, prefix: Callable[[int], str], most: int, max_tokens: int
                        ) -> tuple[int, int]:
        """The largest n in 1..`most` whose `prefix(n)` (a text growing with n) fits
        `max_tokens`, and its tokens; (0, 0) when none fits. A binary search: each text it
        tries is counted exactly, so the one it returns fits."""
        low, high = 1, most
        best = (0, 0)
        while low <= high:
            middle = (low + high) // 2
            tokens = self.count(prefix(middle))
            if tokens <= max_tokens:
                best = (middle, tokens)
                low = middle + 1
            else:
                high = middle - 1
        return best

    def _outline_entry(self, texts: PageText, section: Section) -> OutlineEntry:
        return OutlineEntry(
            id=section.first.id, url=section.url, absoluteUrl=section.first.absolute_url,
            title=section.title, breadcrumb=section.first.breadcrumb, depth=section.depth,
            tokens=self.count(_join_spans(texts, section.chunks)), chunks=len(section.chunks),
            subHeaders=[h for chunk in section.chunks for h in chunk.sub_headers])

    def home_page(self) -> Page | None:
        """The site's home page (url `` or, from Sphinx, `index.html`), if it is indexed."""
        url = self._aliases.get("")
        return None if url is None else self.pages[url]

    def _absolute(self, url: str) -> str | None:
        return None if self.site_url is None else self.site_url + url

    # --- resolving ids and urls --------------------------------------------------------------

    def _section(self, reference: str) -> Section:
        """The section a chunk id or section url names; a page url or id names its first
        section."""
        found = self._resolve(reference)
        if isinstance(found, Chunk):
            return self.sections[found.url]
        if isinstance(found, Page):
            return self.sections.get(found.url) or found.sections[0]
        return found

    def _page(self, reference: str) -> Page:
        """The page any id or url on it names."""
        found = self._resolve(reference)
        return found if isinstance(found, Page) else self.pages[found.page_url]

    def _resolve(self, reference: str) -> Chunk | Section | Page:
        """What an id or url names: a chunk id, a page id (`doc:guide/install`), a section url
        or a page url, site-relative (`guide/install/#linux`, with or without a leading `/` or
        the site's path) or absolute under the site's url."""
        reference = reference.strip()
        if reference in self.chunks:
            return self.chunks[reference]
        if reference in self._page_ids:
            return self.pages[self._page_ids[reference]]
        if reference.startswith("doc:"):
            raise DocsError(f"no chunk or page has the id {_shown(reference)} in this index")
        path, anchor = self._split_url(reference)
        page_url = self._page_url(path)
        if page_url is None:
            raise DocsError(f"{_shown(reference)} is not a page of this site, nor a chunk id; "
                            "use the url or id of a search result, e.g. guide/install/#linux")
        if not anchor:
            return self.pages[page_url]
        section = self.sections.get(f"{page_url}#{anchor}")
        if section is None:
            anchors = [f"#{s.url.partition('#')[2]}" for s in self.pages[page_url].sections
                       if "#" in s.url]
            known = ", ".join(anchors[:_ANCHORS_NAMED]) + (
                ", ..." if len(anchors) > _ANCHORS_NAMED else "")
            raise DocsError(f"page {page_url or '/'} has no section #{anchor[:120]}; its "
                            f"sections: {known or '(none with an anchor)'} (list_sections "
                            "gives them all)")
        return section

    def _split_url(self, reference: str) -> tuple[str, str]:
        """A reference's site-relative path and anchor, both percent-decoded; refuses what
        would leave the site (`..`, backslashes, schemes other than the site's url)."""
        if "\x00" in reference or "\\" in reference:
            raise DocsError(f"refused: {_shown(reference)} is not a url of this site")
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", reference)
        if scheme or reference.startswith("//"):
            reference = self._strip_site_url(reference)
        path, _, anchor = reference.partition("#")
        path = urllib.parse.unquote(path.partition("?")[0])
        anchor = urllib.parse.unquote(anchor)
        if ".." in path.split("/"):
            raise DocsError(f"refused: {_shown(reference)} has a '..' segment; urls are "
                            "relative to the site and cannot leave it")
        return path.lstrip("/"), anchor

    def _strip_site_url(self, reference: str) -> str:
        """The site-relative part of an absolute url under the site's url; refuses others."""
        base = self.site_url
        without_scheme = reference.partition(":")[2]
        if base is not None and reference.lower().startswith(("http:", "https:")):
            base_rest = base.partition(":")[2]
            if (without_scheme + "/").startswith(base_rest):
                return without_scheme[len(base_rest):]
        served = f" ({base})" if base else ""
        raise DocsError(f"refused: {_shown(reference)} is not a url of this site{served}; give a "
                        "site-relative url such as guide/install/#linux")

    def _page_url(self, path: str) -> str | None:
        """The page url a site-relative path names (aliases such as `guide/install`,
        `guide/install/index.html`), or the same path under the site url's own path
        (`docs/guide/install/` for a site at https://example.com/docs/)."""
        if path in self._aliases:
            return self._aliases[path]
        prefix = urllib.parse.urlsplit(self.site_url or "").path.strip("/")
        if prefix and (path == prefix or path.startswith(prefix + "/")):
            return self._aliases.get(path[len(prefix):].lstrip("/"))
        return None

    # --- page texts --------------------------------------------------------------------------

    def _page_text(self, page: Page) -> PageText:
        """The page's text: its Markdown file where it matches the index, else its chunks'
        texts joined (kept for the last few pages asked for)."""
        with self._lock:
            cached = self._texts.get(page.url)
            if cached is not None:
                self._texts.move_to_end(page.url)
                return cached
        markdown = self._read_markdown(page)
        texts = (PageText(markdown, {c.id: (c.start, c.end) for c in page.chunks},
                          "page markdown")
                 if markdown is not None else _joined_chunk_texts(page.chunks))
        with self._lock:
            self._texts[page.url] = texts
            while len(self._texts) > _PAGE_TEXT_CACHE:
                self._texts.popitem(last=False)
        return texts

    def _read_markdown(self, page: Page) -> str | None:
        """The page's Markdown file, when it is inside the site folder and every chunk's text
        is found at its offsets (a file from another build is not used)."""
        if any(chunk.start < 0 for chunk in page.chunks):
            return None
        path = self._markdown_path(page.url)
        if path is None:
            return None
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            log.warning("%s cannot be read (%s): served from its chunks", path, error)
            return None
        if any(text[c.start:c.end] != c.text for c in page.chunks):
            log.warning("%s does not match the index (built again since?): served from its "
                        "chunks", path)
            return None
        return text

    def _markdown_path(self, page_url: str) -> Path | None:
        """The page's Markdown file, or None where there is none or where its real path is
        not inside the site folder (a `..` in the index, a symbolic link out of the site)."""
        if not _is_site_relative(page_url):
            log.warning("page url %r leaves the site: its Markdown is not read", page_url)
            return None
        root = self.site.resolve()
        for name in markdown_files(page_url):
            path = (root / name).resolve()
            if not path.is_relative_to(root):
                log.warning("%s leads out of the site folder: not read", root / name)
                return None
            if path.is_file():
                return path
        return None


def _shown(text: str, most: int = 120) -> str:
    """`text` quoted for an error message, cut after `most` characters (an error must not
    hand a long argument back to the assistant's context)."""
    return repr(text if len(text) <= most else text[:most] + "...")


def _check_budget(max_tokens: int) -> None:
    if max_tokens < 1:
        raise DocsError(f"max_tokens must be a positive number of tokens, not {max_tokens}")


def _text_up_to(text: str, ends: Sequence[int], n: int) -> str:
    """`text` up to the `n`th of the cut offsets `ends`, without its trailing blank lines."""
    return text[:ends[n - 1]].rstrip()


def _join_spans(texts: PageText, chunks: Sequence[Chunk]) -> str:
    """The page text the chunks cover: one slice per run of consecutive chunks (overlapping
    chunks are taken once), runs separated by a blank line."""
    runs: list[list[int]] = []
    previous: Chunk | None = None
    for chunk in chunks:
        start, end = texts.spans[chunk.id]
        if previous is not None and chunk.number == previous.number + 1:
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
        previous = chunk
    return "\n\n".join(texts.text[start:end] for start, end in runs)


def _joined_chunk_texts(chunks: Sequence[Chunk]) -> PageText:
    """A page's text rebuilt from its chunks: a chunk that overlaps the previous one (by its
    offsets) adds only what follows the overlap; chunks that do not touch are separated by a
    blank line."""
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    position = 0
    previous: Chunk | None = None
    for chunk in chunks:
        overlap = (previous.end - chunk.start
                   if previous is not None and previous.end >= 0 and chunk.start >= 0 else 0)
        overlap = min(max(overlap, 0), len(chunk.text), position)
        if previous is not None and overlap == 0:
            parts.append("\n\n")
            position += 2
        parts.append(chunk.text[overlap:])
        spans[chunk.id] = (position - overlap, position - overlap + len(chunk.text))
        position = spans[chunk.id][1]
        previous = chunk
    return PageText("".join(parts), spans, "chunk text")


def _subsections(page: Page, section: Section) -> list[Section]:
    """The sections right below `section` in its page's outline (those whose header path
    extends its own by one heading)."""
    path = section.first.header_path
    return [s for s in page.sections
            if len(s.first.header_path) == len(path) + 1 and s.first.header_path[:len(path)]
            == path and s.url != section.url]


def _site_url(chunks: Any) -> str | None:
    """The site's url (`https://example.com/docs/`), from a chunk's absolute and relative
    urls; None where the site was built without one."""
    for chunk in chunks:
        if chunk.absolute_url and chunk.absolute_url.endswith(chunk.url):
            return str(chunk.absolute_url[:len(chunk.absolute_url) - len(chunk.url)])
    return None


def _page_aliases(pages: dict[str, Page]) -> dict[str, str]:
    """Every spelling of a page url that names it: `guide/install/`, `guide/install`,
    `guide/install/index.html`, `guide/install/index.md`; `guide/api.html`, `guide/api`,
    `guide/api.md`; the home page as `` and `index.html` (Sphinx's `index.html` as ``
    too); and the urls of its Markdown twin and page Markdown."""
    aliases: dict[str, str] = {}
    for url in pages:
        spellings = [url, twin_path(url), page_markdown_path(url)]
        if not url or url.endswith("/"):
            spellings += [url.rstrip("/"), f"{url}index.html", f"{url}index.md"]
        elif PurePosixPath(url).suffix in (".html", ".htm"):
            stem = str(PurePosixPath(url).with_suffix(""))
            spellings += [stem, f"{stem}/", f"{stem}.md"]
            if PurePosixPath(stem).name == "index":  # Sphinx's index.html: its folder's page
                folder = stem.removesuffix("index")
                spellings += [folder, folder.rstrip("/")]
        else:
            spellings += [f"{url}/", f"{url}.html", f"{url}.md"]
        for spelling in spellings:
            aliases.setdefault(spelling, url)
    for url in pages:
        aliases[url] = url  # a page's own url always names that page
    return aliases


# ---------------------------------------------------------------------------------------------
# Finding and preparing the index


@dataclasses.dataclass(frozen=True, slots=True)
class IndexFiles:
    """The files one server answers from.

    `made` says where the SQLite index came from: `found` (built with the site), `beside`
    (made now from chunks.jsonl, written beside it) or `cache` (made now, written into the
    cache folder because the site folder cannot be written).
    """

    site: Path
    sqlite: Path
    jsonl: Path | None
    made: Literal["found", "beside", "cache"]


def prepare_index(target: Path, cache_dir: Path | None = None) -> IndexFiles:
    """The SQLite index of `target` (a built site's folder, its chunks.jsonl or a
    chunks.sqlite), made from chunks.jsonl where it is missing or out of date.

    Raises:
        DocsError: where `target` holds no index, or the index cannot be read or made.
    """
    target = target.absolute()
    if target.is_dir():
        site, jsonl, sqlite = target, target / NATIVE_INDEX, target / SQLITE_INDEX
        if not jsonl.is_file() and not sqlite.is_file():
            raise DocsError(_no_index_message(target))
    elif target.suffix in _SQLITE_SUFFIXES:
        return IndexFiles(target.parent, target, None, "found")
    elif target.suffix in (".jsonl", ".json"):
        site, jsonl, sqlite = target.parent, target, target.with_suffix(".sqlite")
    else:
        raise DocsError(f"{target} is not a chunk index: give the built site folder, its "
                        f"{NATIVE_INDEX} or a {SQLITE_INDEX}")
    if not jsonl.is_file():
        return IndexFiles(site, sqlite, None, "found")
    if _holds_current(sqlite, jsonl):
        return IndexFiles(site, sqlite, jsonl, "found")
    cached = _cache_file(jsonl, cache_dir)
    if cached.is_file():
        return IndexFiles(site, cached, jsonl, "cache")
    records = _read_records(jsonl)
    try:
        write_sqlite(sqlite, records)
        return IndexFiles(site, sqlite, jsonl, "beside")
    except OSError as error:
        log.info("cannot write %s (%s): writing the index into %s", sqlite, error, cached)
    try:
        write_sqlite(cached, records)
    except OSError as error:
        raise DocsError(f"cannot write the SQLite index beside {jsonl} nor into {cached}: "
                        f"{error}; give a writable --cache-dir") from error
    _remove_older_cache_files(cached)
    return IndexFiles(site, cached, jsonl, "cache")


def _no_index_message(folder: Path) -> str:
    built = [candidate for candidate in (folder / "site", folder / "_build" / "html")
             if (candidate / NATIVE_INDEX).is_file()]
    hint = (f"; the built site seems to be {built[0]}" if built
            else "; build the site with the mdchunk plugin first")
    return f"{folder} holds no {NATIVE_INDEX} nor {SQLITE_INDEX}{hint}"


def _holds_current(sqlite: Path, jsonl: Path) -> bool:
    """Whether `sqlite` holds the records of `jsonl`: a file written after it (the same
    build, or made from it), or an older one whose records are the same."""
    try:
        if not sqlite.is_file():
            return False
        if sqlite.stat().st_mtime_ns >= jsonl.stat().st_mtime_ns:
            return True
        return read_sqlite(sqlite) == read_index(jsonl)
    except (OSError, ValueError, sqlite3.Error):
        return False


def _cache_file(jsonl: Path, cache_dir: Path | None) -> Path:
    """Where the SQLite index of a read-only site goes: the cache folder, under a name made
    of the real path of its chunks.jsonl and that file's size and modification time, so that
    a file of that name holds the index of this very chunks.jsonl."""
    folder = cache_dir
    if folder is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = Path(base) / _CACHE_SUBFOLDER
    key = hashlib.sha256(str(jsonl.resolve()).encode("utf-8")).hexdigest()[:16]
    status = jsonl.stat()
    return folder / f"{jsonl.stem}-{key}-{status.st_size}-{status.st_mtime_ns}.sqlite"


def _remove_older_cache_files(current: Path) -> None:
    """Remove the cache files of earlier versions of the same chunks.jsonl: the same name
    but for the size and modification time."""
    same_site = current.name.rsplit("-", 2)[0]
    for other in current.parent.glob(f"{same_site}-*.sqlite"):
        if other != current and other.name.rsplit("-", 2)[0] == same_site:
            with contextlib.suppress(OSError):
                other.unlink()


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        records = read_index(path)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise DocsError(f"{path}: cannot read the chunk index: {error}") from error
    if not all(isinstance(record, dict) and "id" in record for record in records):
        raise DocsError(f"{path}: not a native chunk index (records without an 'id')")
    return records


def load_docs(target: Path, cache_dir: Path | None = None) -> tuple[Docs, IndexFiles]:
    """The Docs of `target` (see `prepare_index`), with the files they come from."""
    files = prepare_index(target, cache_dir)
    records = _read_records(files.sqlite)
    if not records:
        raise DocsError(f"{files.jsonl or files.sqlite} holds no chunk: nothing to serve")
    options = next(((r.get("metadata") or {}).get("chunkingOptions") or {} for r in records),
                   {})
    encoding = str(options.get("encoding") or "cl100k_base")
    try:
        count = token_counter(encoding)
    except Exception as error:
        raise DocsError(f"cannot count {encoding} tokens: {error}") from error
    return Docs(records, site=files.site, sqlite=files.sqlite, count=count,
                encoding=encoding), files


class LiveDocs:
    """The Docs of a target, loaded again at the next call after its index files change (the
    site was built again); while the new files cannot be read, the last loaded Docs answer."""

    def __init__(self, target: Path, cache_dir: Path | None = None) -> None:
        self.target = target
        self.cache_dir = cache_dir
        self.docs, self.files = load_docs(target, cache_dir)
        self._stamp = self._stamp_now()
        self._lock = threading.Lock()

    def __call__(self) -> Docs:
        if self._stamp_now() != self._stamp:
            with self._lock:
                stamp = self._stamp_now()
                if stamp != self._stamp:
                    self._reload()
        return self.docs

    def _reload(self) -> None:
        try:
            docs, files = load_docs(self.target, self.cache_dir)
        except DocsError as error:
            log.warning("the index changed but cannot be loaded (%s): answering from the "
                        "previous one", error)
            return
        self.docs, self.files = docs, files
        self._stamp = self._stamp_now()
        log.info("index loaded again: %d chunks", len(docs.chunks))

    def _stamp_now(self) -> tuple[tuple[str, int, int] | None, ...]:
        files = getattr(self, "files", None)
        watched = [self.target] if files is None else [
            path for path in (files.jsonl, files.sqlite) if path is not None]
        return tuple(_file_stamp(path) for path in watched)


def _file_stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return str(path), status.st_mtime_ns, status.st_size


def describe(live: LiveDocs) -> str:
    """One line on what is served and where its SQLite index is."""
    docs, files = live.docs, live.files
    made = {"found": "", "beside": f", made from {files.jsonl} and written beside it",
            "cache": f", made from {files.jsonl} and written into the cache folder (the site "
                     "folder cannot be written)"}[files.made]
    return (f"{len(docs.chunks)} chunks of {len(docs.pages)} pages from {files.sqlite}{made}; "
            f"pages' Markdown from {files.site}")


# ---------------------------------------------------------------------------------------------
# The MCP server


_INSTRUCTIONS = """\
Documentation of {title}: {pages} pages, {chunks} chunks. Start with search_docs to find the \
sections that answer a question; read_section gives a whole section (pass the id or url of a \
result), list_sections a page's outline, read_page a page's Markdown. Every id and url a tool \
returns is accepted by the others. max_tokens bounds the text returned (tokens: {encoding})."""


def _sdk() -> tuple[Any, type[Exception], int]:
    """The SDK's server class, its ToolError and its major version: `MCPServer` (mcp 2) or
    `FastMCP` (mcp 1.x), which take the same tool functions."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError, 2
    except ImportError:
        from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined, unused-ignore]
        from mcp.server.fastmcp.exceptions import ToolError as FastToolError
        return FastMCP, FastToolError, 1


def _require_sdk() -> None:
    try:
        _sdk()
    except ImportError as error:
        raise DocsError(f"the MCP SDK is not installed ({error}): pip install "
                        "'mdchunk[mcp]'") from error


def build_server(docs: Callable[[], Docs], *, title: str = "this site",
                 host: str = "127.0.0.1", port: int = 8000) -> Any:
    """An MCP server with the four tools over `docs()` (called for each tool call).

    `host` and `port` are used by `run_server` with streamable HTTP; mcp 1.x takes them here.
    """
    from mcp.types import ToolAnnotations
    from pydantic import Field

    server_class, tool_error, major = _sdk()
    current = docs()
    instructions = _INSTRUCTIONS.format(title=title, pages=len(current.pages),
                                        chunks=len(current.chunks),
                                        encoding=current.encoding)
    settings: dict[str, Any] = {"name": "mdchunk", "instructions": instructions,
                                "log_level": "WARNING"}
    if major == 1:
        settings.update(host=host, port=port)
    else:
        settings["version"] = __version__
    server = server_class(**settings)
    read_only = ToolAnnotations.model_validate(
        {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})

    def tool(function: _F) -> _F:
        """Register `function` as a read-only tool described by its docstring, on one line
        (the indentation of a docstring would cost the assistant tokens)."""
        description = " ".join((function.__doc__ or "").split())
        registered: _F = server.tool(annotations=read_only, description=description)(function)
        return registered

    def answer(ask: Callable[[Docs], _T]) -> _T:
        try:
            return ask(docs())
        except DocsError as error:
            raise tool_error(str(error)) from None

    reference = Annotated[str, Field(description=(
        "A chunk id (doc:guide/install::ch1), a page id (doc:guide/install) or a url: "
        "guide/install/#linux, /guide/install/, or the site's absolute url."))]

    @tool
    def search_docs(
        query: Annotated[str, Field(description="What to look for, in words.")],
        limit: Annotated[int, Field(description=(
            f"How many sections at most (1 to {MAX_SEARCH_LIMIT})."))] = SEARCH_LIMIT,
        max_tokens: Annotated[int, Field(description=(
            "Most tokens of text in all results together."))] = SEARCH_TOKENS,
    ) -> SearchAnswer:
        """Search the documentation: the sections that best match the query, best first, at
        most one result per section (a section is a page and an anchor). Each result has the
        section's url (page#anchor), breadcrumb, the text of its best-matching chunk and that
        text's token count; sectionChunks > 1 means read_section(id) has more. The texts
        together stay within max_tokens: a result that does not fit what is left is not
        returned but listed in `omitted` with its tokens (read it with read_section)."""
        return answer(lambda d: d.search(query, limit=limit, max_tokens=max_tokens))

    @tool
    def read_section(
        id_or_url: reference,
        max_tokens: Annotated[int, Field(description=(
            "Most tokens of text to return."))] = SECTION_TOKENS,
    ) -> SectionAnswer:
        """Read one whole section of the documentation (all its chunks, in order, exactly as
        the page's Markdown has them) with its breadcrumb and its subsections' urls. Give a
        search result's id or url (a page url reads the page's first section). A section
        longer than max_tokens is cut after its last chunk that fits (truncated: true; the
        chunks left out are in omittedChunkIds, sectionTokens is what the whole needs)."""
        return answer(lambda d: d.read_section(id_or_url, max_tokens=max_tokens))

    @tool
    def read_page(
        url: reference,
        max_tokens: Annotated[int, Field(description=(
            "Most tokens of text to return."))] = PAGE_TOKENS,
    ) -> PageAnswer:
        """Read a whole page of the documentation as Markdown (any url or id on the page names
        it). A page longer than max_tokens is cut after its last section that fits (cut:
        'section boundary'), or after its last chunk that fits when not even the first section
        does ('chunk boundary'); `omitted` is the outline of the sections left out (read them
        with read_section), partlyOmitted the url of a section cut in the middle."""
        return answer(lambda d: d.read_page(url, max_tokens=max_tokens))

    @tool
    def list_sections(url: reference) -> OutlineAnswer:
        """The outline of a page (any url or id on it names it): each section's title,
        breadcrumb, depth (1 for the page title), url#anchor, chunk id and token count (what
        read_section needs to return it whole), with the page's total tokens."""
        return answer(lambda d: d.list_sections(url))

    return server


def run_server(server: Any, *, http: bool, host: str, port: int) -> None:
    """Serve over stdio, or streamable HTTP at http://HOST:PORT/mcp."""
    _, _, major = _sdk()
    if not http:
        server.run("stdio")
    elif major == 1:
        server.run("streamable-http")
    else:
        server.run("streamable-http", host=host, port=port)


def site_title(docs: Docs) -> str:
    """The home page's first heading (its nav title is often just "Home"), else its title,
    else the site folder's name."""
    home = docs.home_page()
    if home is None:
        return docs.site.name
    first = home.chunks[0]
    return (first.header_path[0] if first.header_path else "") or home.title


def serve(target: Path, *, http: bool = False, host: str = "127.0.0.1", port: int = 8000,
          cache_dir: Path | None = None, say: Callable[[str], None] | None = None) -> None:
    """Serve `target`'s index until the client hangs up (stdio) or the process is stopped.

    `say` prints a line for the person who started the server (stderr: stdout is the
    protocol's under stdio).

    Raises:
        DocsError: where the index cannot be found, read or made.
    """
    tell = say or (lambda line: print(line, file=sys.stderr))
    _require_sdk()
    live = LiveDocs(target, cache_dir)
    server = build_server(live, title=site_title(live.docs), host=host, port=port)
    where = f"http://{_url_host(host)}:{port}/mcp" if http else "stdio"
    tell(f"mdchunk mcp: {describe(live)}; serving on {where}")
    if http and not _is_loopback(host):
        tell(f"mdchunk mcp: warning: listening on {host}, not on this machine only: anyone who "
             "can reach it can read these docs (there is no authentication)")
    run_server(server, http=http, host=host, port=port)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")
