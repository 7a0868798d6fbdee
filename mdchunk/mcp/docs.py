"""`Docs`: the tools' answers over the index in memory (`mdchunk.mcp.contents`)."""

import collections
import functools
import logging
import re
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from mdchunk.chunking.tokens import TokenCounter
from mdchunk.mcp.answers import (
    OmittedResult,
    OmittedSection,
    OutlineAnswer,
    OutlineEntry,
    PageAnswer,
    SearchAnswer,
    SearchResult,
    SectionAnswer,
    SectionsAnswer,
)
from mdchunk.mcp.contents import (
    IndexChunk,
    IndexPage,
    IndexSection,
    PageText,
    is_site_relative,
    join_spans,
    joined_chunk_texts,
    markdown_files,
    page_aliases,
    site_url_of,
    subsections,
)
from mdchunk.search import Hit, search
from mdchunk.search.lexical import fts_query

log = logging.getLogger(__name__)

#: Defaults and bounds of the tools' arguments.
SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 50
SEARCH_TOKENS = 2000
SECTION_TOKENS = 4000
SECTIONS_TOKENS = 8000
MAX_SECTIONS = 20
PAGE_TOKENS = 8000


#: Anchors an error about an unknown anchor names (list_sections gives them all).
_ANCHORS_NAMED = 20

#: Page texts kept in memory (read from disk again past that).
_PAGE_TEXT_CACHE = 32


class DocsError(Exception):
    """A request the docs cannot answer (unknown url, empty query, too small a budget, a url
    that leaves the site); its message is what the assistant reads, so it says what to do."""


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
        self.chunks: dict[str, IndexChunk] = {}
        self.sections: dict[str, IndexSection] = {}
        self.pages: dict[str, IndexPage] = {}
        for record in records:
            self._add(IndexChunk.from_record(record))
        for page in self.pages.values():
            page.chunks.sort(key=lambda chunk: chunk.number)
        self.site_url = site_url_of(self.chunks.values())
        self.version: str | None = next((record.get("version") for record in records), None)
        """The version of the docs the index holds (None: an unversioned build)."""
        self._aliases = page_aliases(self.pages)
        self._page_ids = {c.page_id: c.page_url for c in self.chunks.values() if c.page_id}
        self._texts: collections.OrderedDict[str, PageText] = collections.OrderedDict()
        self._lock = threading.Lock()

    def _add(self, chunk: IndexChunk) -> None:
        self.chunks[chunk.id] = chunk
        page = self.pages.setdefault(chunk.page_url, IndexPage(chunk.page_url, [], []))
        page.chunks.append(chunk)
        section = self.sections.get(chunk.url)
        if section is None:
            section = self.sections[chunk.url] = IndexSection(chunk.url, chunk.page_url, [])
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
                text=chunk.text, sectionChunks=len(self.sections[chunk.url].chunks),
                parentId=self._parent_id(self.sections[chunk.url]), version=hit.version,
                language=hit.language))
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
        return self._section_answer(self._section(id_or_url), max_tokens)

    def read_sections(self, ids_or_urls: Sequence[str],
                      max_tokens: int = SECTIONS_TOKENS) -> SectionsAnswer:
        """The whole sections named by `ids_or_urls`, in order (a section named twice once),
        under one budget: a section that does not fit the tokens left is named in `omitted`
        instead, whole sections only."""
        _check_budget(max_tokens)
        if not 1 <= len(ids_or_urls) <= MAX_SECTIONS:
            raise DocsError(f"give 1 to {MAX_SECTIONS} ids or urls, not {len(ids_or_urls)}")
        sections = list({s.url: s for s in map(self._section, ids_or_urls)}.values())
        answers: list[SectionAnswer] = []
        omitted: list[OmittedSection] = []
        left = max_tokens
        for section in sections:
            answer = self._section_answer(section, None)
            if answer["tokens"] > left:
                omitted.append(OmittedSection(id=answer["id"], url=answer["url"],
                                              breadcrumb=answer["breadcrumb"],
                                              tokens=answer["tokens"]))
                continue
            left -= answer["tokens"]
            answers.append(answer)
        if omitted and not answers:
            smallest = min(entry["tokens"] for entry in omitted)
            raise DocsError(f"max_tokens={max_tokens} is below every section asked for: the "
                            f"smallest has {smallest} tokens; ask again with max_tokens="
                            f"{smallest} or more, or read_section one with a max_tokens to "
                            "read it cut")
        return SectionsAnswer(maxTokens=max_tokens, tokens=max_tokens - left,
                              sections=answers, omitted=omitted)

    def _section_answer(self, section: IndexSection, max_tokens: int | None) -> SectionAnswer:
        """`section` whole, or cut after its last chunk that fits `max_tokens` (None: no
        bound)."""
        page = self.pages[section.page_url]
        texts = self._page_text(page)
        whole = join_spans(texts, section.chunks)
        whole_tokens = self.count(whole)
        kept = len(section.chunks)
        text, tokens = whole, whole_tokens
        if max_tokens is not None and whole_tokens > max_tokens:
            kept, tokens = self._longest_prefix(
                lambda n: join_spans(texts, section.chunks[:n]), kept - 1, max_tokens)
            text = join_spans(texts, section.chunks[:kept])
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
            subsections=[self._outline_entry(texts, s) for s in subsections(page, section)],
            parentId=self._parent_id(section), source=texts.source)

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

    def _cut_page(self, page: IndexPage, texts: PageText, max_tokens: int
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
        """The best hit of each of the `limit` best sections of this index."""
        try:
            hits = search(self.sqlite, query, limit)
        except (sqlite3.Error, OSError) as error:
            raise DocsError(f"the index {self.sqlite} cannot be searched: {error}") from error
        return [hit for hit in hits if hit.id in self.chunks]

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

    def _parent_id(self, section: IndexSection) -> str | None:
        """The id of the section one heading up from `section`: the nearest section before it
        on its page whose header path its own extends (the longest such path); None for a
        page's title or preamble."""
        path = section.first.header_path
        parent: IndexSection | None = None
        for candidate in self.pages[section.page_url].sections:
            if candidate is section:
                break
            above = candidate.first.header_path
            if 0 < len(above) < len(path) and path[:len(above)] == above and (
                    parent is None or len(above) >= len(parent.first.header_path)):
                parent = candidate
        return None if parent is None else parent.first.id

    def _outline_entry(self, texts: PageText, section: IndexSection) -> OutlineEntry:
        return OutlineEntry(
            id=section.first.id, url=section.url, absoluteUrl=section.first.absolute_url,
            title=section.title, breadcrumb=section.first.breadcrumb, depth=section.depth,
            tokens=self.count(join_spans(texts, section.chunks)), chunks=len(section.chunks),
            subHeaders=[h for chunk in section.chunks for h in chunk.sub_headers])

    def home_page(self) -> IndexPage | None:
        """The site's home page (url `` or, from Sphinx, `index.html`), if it is indexed."""
        url = self._aliases.get("")
        return None if url is None else self.pages[url]

    def _absolute(self, url: str) -> str | None:
        return None if self.site_url is None else self.site_url + url

    # --- resolving ids and urls --------------------------------------------------------------

    def _section(self, reference: str) -> IndexSection:
        """The section a chunk id or section url names; a page url or id names its first
        section."""
        found = self._resolve(reference)
        if isinstance(found, IndexChunk):
            return self.sections[found.url]
        if isinstance(found, IndexPage):
            return self.sections.get(found.url) or found.sections[0]
        return found

    def _page(self, reference: str) -> IndexPage:
        """The page any id or url on it names."""
        found = self._resolve(reference)
        return found if isinstance(found, IndexPage) else self.pages[found.page_url]

    def _resolve(self, reference: str) -> IndexChunk | IndexSection | IndexPage:
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

    def _page_text(self, page: IndexPage) -> PageText:
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
                 if markdown is not None else joined_chunk_texts(page.chunks))
        with self._lock:
            self._texts[page.url] = texts
            while len(self._texts) > _PAGE_TEXT_CACHE:
                self._texts.popitem(last=False)
        return texts

    def _read_markdown(self, page: IndexPage) -> str | None:
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
        if not is_site_relative(page_url):
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
