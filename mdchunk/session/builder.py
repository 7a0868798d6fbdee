"""One build: the object an engine talks to while a site builds.

`IndexBuilder` has three verbs: `add_page` (a page the engine rendered), `keep_page` (a page the
engine did not render again, taken from the page cache), and `finish` (write every requested
output, atomically, and say what was written). It owns everything a build needs beyond chunking
one page: page keys, the page cache, the worker processes and the warnings. The MkDocs plugin,
the Sphinx extension, `mdchunk site` and `mdchunk chunk` all drive it the same way, so they
write the same files.

A page goes through the cache whatever the engine: chunked here or in a worker, its records are
encoded once and kept in its entry, and `finish` reads them back one page at a time. Under
`mkdocs serve` one builder lives across rebuilds; `finish` leaves it ready for the next build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdchunk.chunking.model import PageInput, build_time
from mdchunk.chunking.tokens import tokenizer_choice
from mdchunk.errors import MdChunkError
from mdchunk.outputs.catalog import check_formats
from mdchunk.outputs.outline import SiteOutline
from mdchunk.outputs.pages import PageOutput
from mdchunk.outputs.twins import page_directive, with_directive
from mdchunk.search.kinds import front_matter_kind_problem
from mdchunk.session.cache import PageCache
from mdchunk.session.duplicate_search import DuplicateSearch
from mdchunk.session.exclusion import page_exclusion, pattern_exclusion
from mdchunk.session.finish import BuildSummary, IndexWriter, log_build_times
from mdchunk.session.index_pages import IndexedPage, IndexPages, WaitingPage
from mdchunk.session.page_files import PageFiles
from mdchunk.session.page_job import JobSettings, PageJob
from mdchunk.session.workers import WorkerEndedError, WorkerPool, WorkerStart
from mdchunk.settings import BuildSettings, build_site_url

if TYPE_CHECKING:
    from mdchunk.search.embedders import Embedder

Report = Callable[[str, str], None]
"""Receives a warning about one page: its source path, then the message (the engine logs it)."""


class IndexBuilder:
    """The build session of one site: add pages, keep pages, finish.

    Arguments:
        settings: The options and outputs of the build.
        site_dir: The built site's folder, where the outputs are written.
        cache: The page cache's folder (kept across builds); None for a cache of this object's
            own that is removed by `close`.
        report: Receives each warning about a page (default: this module's logger).
        log: Where the builder's own messages go (the engine's logger).

    Raises:
        MdChunkError: for a token counter or an output that cannot be had (checked here, not
            at the first page).
    """

    def __init__(self, settings: BuildSettings, *, site_dir: Path, cache: Path | None = None,
                 report: Report | None = None, log: logging.Logger | logging.LoggerAdapter[Any]
                 | None = None) -> None:
        self.settings = settings
        self.site_dir = site_dir
        self.log = log or logging.getLogger(__name__)
        self.report = report or (lambda source, message: self.log.warning("%s: %s", source,
                                                                          message))
        check_formats(settings.output.formats)
        tokenizer_choice(settings.tokenizer)
        if "pagefind" in settings.output.formats:  # (its writer is loaded when it is asked for)
            from mdchunk.outputs.pagefind_bundle import require_pagefind

            require_pagefind()
        embedder = _embedder(settings)
        self._temporary = None if cache is not None else tempfile.TemporaryDirectory(
            prefix="mdchunk-cache-")
        self.kept_cache = cache
        """The cache's folder when it is kept across builds (None: this object's own)."""
        folder = cache if cache is not None else Path(self._temporary.name)  # type: ignore[union-attr]
        self.cache = PageCache(folder, settings.fingerprint(), log=self.log)
        self.index = IndexPages(self.cache, site_dir)
        self.writer = IndexWriter(settings, site_dir, self.index, self.log, embedder)
        self._files = PageFiles(settings, site_dir, self.cache)
        self._job = PageJob(JobSettings(
            settings.options, build_time(), settings.page_settings(), self.cache.folder,
            self.cache.settings, settings.tokenizer, site_dir, settings.version), self.cache)
        """Chunks the pages chunked in this process (and says how workers chunk theirs)."""
        self._duplicates = DuplicateSearch(self.cache.folder, self.cache.settings)
        self._start = WorkerStart(settings.workers)
        self._pool: WorkerPool | None = None

    # -- the three verbs ------------------------------------------------------------------------

    def add_page(self, page: PageInput, *, markdown_path: str, fingerprint: str | None = None,
                 site_url: str | None = None, paths: Sequence[str] | None = None,
                 draft: bool = False) -> str:
        """Take a page the engine rendered: leave it out of the index where the settings or
        its metadata say so, else chunk it (here or in a worker) unless the cache holds it
        already. Returns why it is left out ("" when it is in the index).

        Arguments:
            page: The rendered page.
            markdown_path: Where its Markdown is written, relative to the site folder.
            fingerprint: A fingerprint of its source file (see `keep_page`).
            site_url: The site url of this page, where it is not the build's (post-build
                chunking reads it from each page).
            paths: The paths of the page that `exclude` patterns match (default: its source
                path).
            draft: Whether the engine calls the page a draft (left out).
        """
        source, build = page.source_path, self.index.build
        exclusion = page_exclusion(page.meta, paths or [source], self.settings.exclude,
                                   draft=draft)
        if exclusion:
            self.log.debug("%s: left out of the chunk index (%s)", source, exclusion.reason)
            self.index.leave_out(source, page.url, fingerprint=fingerprint,
                                 by_metadata=exclusion.by_metadata)
            return exclusion.reason
        earlier = build.added.get(source)  # (the source path makes a page's chunk ids)
        if earlier not in (None, page.url):
            self.report(source, f"the pages at {earlier!r} and {page.url!r} were both rendered "
                        f"from this source path: only {page.url!r} is in the index")
        if (problem := front_matter_kind_problem(page.meta)) is not None:
            self.report(source, problem)
        build.added[source] = page.url
        build.seen.add(source)
        self.index.excluded.discard(source)
        url = self.settings.site_url if site_url is None else build_site_url(
            site_url, self.settings.version, self.settings.output.language_folder)
        indexed = IndexedPage(_EMPTY, page_key(page, url), markdown_path, fingerprint)
        found = self._held(indexed.key)
        if found is not None:
            build.from_cache += 1
            self._keep(source, dataclasses.replace(indexed, output=found[0]), markdown=found[1])
            self._duplicates.held(source, found[0].prints, self._pool)
        elif not self._in_workers():
            self._chunk_here(page, url, indexed)
        else:
            assert self._pool is not None
            self._duplicates.sending(source, self._pool)
            build.waiting[source] = WaitingPage(self._pool.submit(
                page, indexed.key, url, markdown_path=self._markdown_path(indexed)), indexed)
        return ""

    def page_html(self, source: str, html: str) -> str:
        """The final HTML of a page added in this build, with what the build puts in pages:
        the hidden directive for agents (`llms_directive`). An engine that asks writes each page
        once, and the finish leaves its file alone; a page not added is returned as it is."""
        build, llms = self.index.build, self.settings.llms
        url = build.added.get(source, build.left_out.get(source))
        if llms is None or url is None:
            return html
        indexed = source not in build.left_out
        marks = page_directive(url, twin=indexed) if llms.directive else None
        marked = with_directive(html, marks)
        if marked is None:
            return html
        build.marked[source] = indexed
        return marked

    def expect(self, source_bytes: int) -> None:
        """Say, before the first page, how many bytes of page sources the engine will render
        (see `WorkerStart.expect`)."""
        self._start.expect(source_bytes)

    def keep_page(self, source: str, *, fingerprint: str | None = None,
                  markdown_path: str | None = None, paths: Sequence[str] | None = None,
                  report: bool = True) -> bool:
        """Keep a page the engine did not render in this build, from the cache: the one a
        pointer names for it, unless `fingerprint` (its source's) or `markdown_path` differ
        from the pointer's. Returns whether the page is accounted for (kept, or left out by its
        metadata); a page that is not is named among `BuildSummary.lacking`.

        `report`: report the page's warnings again (not where the engine reported them while
        it rendered the page in another process: Sphinx's parallel writers).

        A page added or left out in this build, or whose `paths` (default: its source path)
        an `exclude` pattern matches, is accounted for as it is."""
        index, build = self.index, self.index.build
        if source in build.seen or pattern_exclusion(paths or [source], self.settings.exclude):
            return True
        build.seen.add(source)
        indexed = index.pages.get(source)
        if indexed is not None and self.cache.holds(indexed.key):
            return True  # kept from the last build of this object (`mkdocs serve`)
        if source in index.excluded:
            return True
        pointer = self.cache.pointer(self.site_dir, source)  # (a parallel writer's, maybe)
        if pointer is not None and pointer.source == fingerprint:
            if pointer.key is None:
                index.excluded.add(source)
                return True
            found = self._held(pointer.key)
            if found is not None and pointer.markdown is not None and (
                    markdown_path in (None, pointer.markdown)):
                build.from_cache += 1
                self._keep(source, IndexedPage(found[0], pointer.key, pointer.markdown,
                                               fingerprint, kept=True), report=report,
                           markdown=found[1])
                self._duplicates.held(source, found[0].prints, self._pool)
                return True
        index.pages.pop(source, None)
        build.lacking.append(source)
        return False

    def finish(self, order: Sequence[str], outline: SiteOutline | None = None, *,
               keep_workers: bool = False) -> BuildSummary:
        """Write the index and every requested output into the site folder, each file atomically;
        `order` lists the site's pages (source paths) in the order of the index, and `outline`
        the site's name, description and navigation, which `llms.txt` follows (without it,
        the pages in `order`). A page added in this build is in the index even where `order`
        does not name it, after the pages it names: a page the engine rendered is never
        dropped for want of a listing.

        When every page of `order` is accounted for, the cache forgets the pages and entries no
        longer in the site. The builder is then ready for another build of the same site.

        The worker processes are told to stop as soon as the finish has no more work for them,
        so that they exit while the files are written, unless `keep_workers` (`mkdocs serve`
        keeps them for the next build).

        Raises:
            MdChunkError: when the tokenizer cannot be loaded, an output cannot be written or a
                stored page cannot be read (naming it).
        """
        waited = time.perf_counter()
        self._collect()
        waited = time.perf_counter() - waited
        build, writer = self.index.build, self.writer
        sources = self.index.in_order(order)
        began = time.perf_counter()
        searching = self.settings.duplicates != "off"
        if searching:  # (in a worker while this process writes what needs no marks)
            self._duplicates.start([self.index.pages[source] for source in sources], self._pool)
        inspector = writer.inspector(sources)
        search_page = writer.search_page()
        agent = writer.agent_outputs(sources, outline or SiteOutline())
        marked = time.perf_counter()
        marks = self._duplicates.marks() if searching else {}
        duplicates = time.perf_counter() - marked
        counter, where = self.counter, "in the worker process" if self._pool else "inline"
        if not keep_workers and self._pool is not None:  # (`stop_workers` waits for them)
            self._pool.close(wait=False)
        written = writer.outputs(sources, marks)
        written.update(agent)
        pages = tuple(self.index.pages[source].output for source in sources)
        log_build_times(self.log, self.index, where=where, counter=counter,
                        seconds=(waited, duplicates, time.perf_counter() - began - duplicates))
        began = time.perf_counter()
        removed = 0 if build.lacking else self.index.forget_the_rest(order)
        self._files.save(pruned=removed > 0)
        self.log.debug("page cache %s: %d pages read; %d written, %d unused removed%s in %.3f s",
                       self.cache.folder, build.from_cache, build.written, removed,
                       " (pages missing: none pruned)" if build.lacking else "",
                       time.perf_counter() - began)
        self.index.new_build()
        return BuildSummary(pages, written, inspector, search_page, tuple(build.lacking),
                            marks, self.kept_cache, writer.vectors, build.from_cache)

    def abandon(self) -> None:
        """Drop what the build under way was doing (the engine's build failed)."""
        self.index.new_build()
        self._duplicates.abandon(self._pool)

    def stop_workers(self) -> None:
        """Stop the worker processes (a later page starts them again when it needs them)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def close(self) -> None:
        """Stop the workers and remove a cache of this object's own."""
        self.stop_workers()
        if self._temporary is not None:
            self._temporary.cleanup()
            self._temporary = None

    def fits(self, settings: BuildSettings, *, site_dir: Path, cache: Path | None) -> bool:
        """Whether this builder serves a build with these settings, site folder and page cache
        folder (`mkdocs serve` keeps one across rebuilds while they stay the same)."""
        return (self.settings, self.site_dir, self.kept_cache) == (settings, site_dir, cache)

    @property
    def counter(self) -> str | None:
        """The name of the token counter that counted the pages chunked so far (None before
        any was)."""
        if self._pool is not None and self._pool.counter is not None:
            return self._pool.counter
        return self._job.load() if self._job.loaded else None

    # -- chunking ------------------------------------------------------------------------------

    def _in_workers(self) -> bool:
        """Whether the next page goes to a worker process, starting them when the time has
        come (`WorkerStart`)."""
        if self._pool is None and (workers := self._start.now()):
            self._pool = WorkerPool(self._job.settings, workers=workers)
        return self._pool is not None

    def _chunk_here(self, page: PageInput, site_url: str, indexed: IndexedPage) -> None:
        began = time.perf_counter()
        self._job.load()  # a counter that cannot be loaded stops the build, with its fix
        try:
            output = self._job.run(page, indexed.key, site_url,
                                   markdown_path=self._markdown_path(indexed))
        except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
            self._cannot_chunk(page.source_path, error)
            return
        finally:
            seconds = time.perf_counter() - began
            self._start.inline_seconds += seconds
        self.index.build.seconds[page.source_path] = seconds
        self.index.build.written += output.stored
        self.index.build.chunked.append(page.source_path)
        self._keep(page.source_path, dataclasses.replace(indexed, output=output))
        self._duplicates.held(page.source_path, output.prints, self._pool)

    def _collect(self) -> None:
        """Wait for the pages chunked in the workers (in the order they were added)."""
        build = self.index.build
        waiting, build.waiting = build.waiting, {}
        if waiting and self._pool is not None:
            self._pool.ready.result()  # raises TokenizerError, with its fix, when it cannot load
        for source, sent in waiting.items():
            try:
                output = sent.future.result()
            except WorkerEndedError:
                raise  # not the page's doing: the build stops, naming what happened
            except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
                self._cannot_chunk(source, error)
                continue
            if output.stored:
                self.cache.adopt(sent.page.key)
            else:  # the worker could not keep it: this process tries (and says why it cannot)
                output = self._job.kept(sent.page.key, output)
            build.written += output.stored
            build.chunked.append(source)
            self._keep(source, dataclasses.replace(sent.page, output=output))

    def _markdown_path(self, page: IndexedPage) -> str | None:
        """Where the page's Markdown is written (None: it is not)."""
        return page.markdown_path if self.settings.write_markdown else None

    def _cannot_chunk(self, source: str, error: Exception) -> None:
        self.report(source, f"cannot be chunked, left out of the index: {error}")
        self.index.pages.pop(source, None)

    def _held(self, key: str) -> tuple[PageOutput, str | None] | None:
        """The page the cache holds for `key` (its counts), with its Markdown where the build
        writes the page's own files and none are kept for it (read with the counts, in one
        read of its entry)."""
        if not self._files.wanted or self._files.kept(key):
            found = self.cache.summary(key)
            return None if found is None else (found, None)
        return self.cache.summary_and_markdown(key)

    def _keep(self, source: str, page: IndexedPage, *, report: bool = True,
              markdown: str | None = None) -> None:
        """Keep `page` in the index, its own files put in the site (`PageFiles`: the kept
        ones, or written from `markdown` when it is at hand) unless they were where it was
        chunked, and kept for the next build; report its warnings (every build, so that a
        strict build sees them every time)."""
        if report:
            for warning in page.output.warnings:
                self.report(source, warning)
            for note in page.output.notes:
                self.log.info("%s: %s", source, note)
        if self._files.wanted:
            if page.output.in_site:
                self._files.keep(page)
            else:
                page = self._files.write(source, page, markdown=markdown)
        self.index.hold(source, page)


_EMPTY = PageOutput(source_path="", url="", markdown="", records={}, chunks=0, oversize=0,
                    small=0, warnings=(), notes=(), inspector=None)


def _embedder(settings: BuildSettings) -> Embedder | None:
    """The model of `embed_model`, loaded when the build starts (so that a model that cannot
    be had stops it before any page is chunked)."""
    if settings.embed_model is None:
        return None
    if "sqlite" not in settings.output.formats:
        raise MdChunkError("embed_model needs the sqlite format, which holds the vectors")
    from mdchunk.search.embedders import load_embedder

    return load_embedder(settings.embed_model)


def page_key(page: PageInput, site_url: str) -> str:
    """A hash of everything a page's chunks depend on, besides the build's settings: what its
    entry in the page cache is named by."""
    facts = json.dumps([page.source_path, page.url, page.title, page.meta, site_url],
                       sort_keys=True, default=str)
    digest = hashlib.sha256(facts.encode("utf-8", "surrogatepass"))
    digest.update(page.html.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()

