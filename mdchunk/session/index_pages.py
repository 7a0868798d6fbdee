"""The pages of a site's index as a build session holds them, and the page cache's pointers.

A page of the index is held by its counts (`PageOutput.without_content`) and the key of its
entry in the page cache, which holds the rest. Each page also has a pointer in the cache (see
`mdchunk.session.cache`) that later builds, and Sphinx's parallel writers, find it by. Under
`mkdocs serve` the pages stay from one build to the next; what a build noted of itself (the
pages it saw, added, left out, could not find) starts afresh with each build.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

from mdchunk.outputs.pages import PageOutput
from mdchunk.session.cache import PageCache, PagePointer


@dataclasses.dataclass
class IndexedPage:
    """A page of the index, as the build's process holds it: its counts, and where the rest
    is."""

    output: PageOutput
    key: str
    """Its entry's key in the page cache."""
    markdown_path: str
    """Where its Markdown is written, relative to the site folder."""
    fingerprint: str | None
    """A fingerprint of its source file, where the engine gives one."""
    kept: bool = False
    """Taken from the cache without being rendered in this build (`IndexBuilder.keep_page`)."""

    def pointer(self) -> PagePointer:
        """The cache's pointer to this page."""
        return PagePointer(self.fingerprint, self.key, self.markdown_path)


@dataclasses.dataclass
class WaitingPage:
    """A page sent to a worker process: the page it will be, once its output is back."""

    future: Future[PageOutput]
    page: IndexedPage


@dataclasses.dataclass
class ThisBuild:
    """What a build session notes of the build under way."""

    seen: set[str] = dataclasses.field(default_factory=set)
    """The pages added, left out or kept, by source path."""
    added: dict[str, str] = dataclasses.field(default_factory=dict)
    """The urls of the pages added (rendered) in this build, by source path, in their order."""
    chunked: list[str] = dataclasses.field(default_factory=list)
    """The pages chunked in this build (not found in the cache)."""
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    """The seconds each page chunked in the build's own process took (for the debug log)."""
    from_cache: int = 0
    written: int = 0
    """Entries written to the cache."""
    lacking: list[str] = dataclasses.field(default_factory=list)
    """Pages neither rendered nor found in the cache."""
    waiting: dict[str, WaitingPage] = dataclasses.field(default_factory=dict)
    """The pages in the workers, by source path, in the order they were added."""
    left_out: dict[str, str] = dataclasses.field(default_factory=dict)
    """The urls of the pages left out of the index in this build, by source path."""
    marked: dict[str, bool] = dataclasses.field(default_factory=dict)
    """The pages whose HTML the engine writes with the directive for agents already in it
    (`IndexBuilder.page_html`), by source path: whether it links to the page's twin."""


class IndexPages:
    """The pages of a site's index (by source path), the pages its metadata leaves out, the
    cache's pointers to them, and what the build under way noted (`build`)."""

    def __init__(self, cache: PageCache, site_dir: Path) -> None:
        self.cache = cache
        self.site_dir = site_dir
        self.pages: dict[str, IndexedPage] = {}
        self.excluded: set[str] = set()
        """Pages left out of the index by their own metadata (they stay out when kept)."""
        self.build = ThisBuild()
        self._pointers: dict[str, PagePointer] | None = None

    def new_build(self) -> None:
        """Forget what the build under way noted (the pages stay)."""
        self.build = ThisBuild()

    def hold(self, source: str, page: IndexedPage) -> None:
        """Hold `page` in the index and point the cache at it."""
        self.pages[source] = page
        self.point_at(source, page.pointer())

    def leave_out(self, source: str, url: str, *, by_metadata: bool,
                  fingerprint: str | None) -> None:
        """Leave a rendered page out of the index; left out by its own metadata, it stays out
        when a later build keeps it without rendering it."""
        self.build.seen.add(source)
        self.build.left_out[source] = url
        self.pages.pop(source, None)
        self.build.waiting.pop(source, None)
        if by_metadata:
            self.excluded.add(source)
            self.point_at(source, PagePointer(fingerprint, None))

    def point_at(self, source: str, pointer: PagePointer) -> None:
        """Make the cache's pointer of `source` name `pointer` (written when it changed)."""
        pointers = self._pointed()
        if pointers.get(source) != pointer:
            self.cache.point(self.site_dir, source, pointer)
            pointers[source] = pointer

    def in_order(self, order: Sequence[str]) -> list[str]:
        """The pages of the index in its order: those of `order` (the site's pages), then
        those added in this build that it does not name; pages no longer in the site are
        dropped."""
        in_site, added = set(order), self.build.added
        for source in [source for source in self.pages
                       if source not in in_site and source not in added]:
            del self.pages[source]  # removed from the site
        return ([source for source in order if source in self.pages]
                + [source for source in added if source not in in_site and source in self.pages])

    def forget_the_rest(self, order: Sequence[str]) -> int:
        """With every page of the site accounted for: point the cache at exactly these pages
        and remove the entries no page uses; return how many were removed."""
        pointers = {source: page.pointer() for source, page in self.pages.items()}
        pointers.update({source: PagePointer(self._pointed().get(
            source, PagePointer(None, None)).source, None)
            for source in self.excluded if source in order})
        named = self.cache.write_manifest(self.site_dir, pointers)
        self._pointers = dict(pointers)
        return self.cache.prune({page.key for page in self.pages.values()}, named=named)

    def _pointed(self) -> dict[str, PagePointer]:
        """The cache's pointers for this site (read once, then kept up to date here)."""
        if self._pointers is None:
            self._pointers = self.cache.manifest(self.site_dir)
        return self._pointers
