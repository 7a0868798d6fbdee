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
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mdchunk.chunking import PageInput, build_time
from mdchunk.duplicates import ChunkPrint, Duplicate, find_duplicates
from mdchunk.errors import MdChunkError
from mdchunk.exclusion import metadata_exclusion, page_exclusion, pattern_exclusion
from mdchunk.outputs.formats import write_records
from mdchunk.outputs.inspector import write_inspector
from mdchunk.outputs.llms import ListedPage, write_agent_outputs
from mdchunk.outputs.marks import marked_records
from mdchunk.outputs.outline import SiteOutline
from mdchunk.outputs.pagefind import pagefind_needed, write_search_page
from mdchunk.outputs.pages import PageOutput, counted, index_summary
from mdchunk.outputs.writers import write_text
from mdchunk.profiles import Record, check_formats
from mdchunk.profiles.pagefind import record_language
from mdchunk.session.cache import PageCache, PagePointer
from mdchunk.session.page_job import JobSettings, PageJob
from mdchunk.session.workers import WorkerPool, available_cores
from mdchunk.settings import BuildSettings
from mdchunk.timing import StageTimer, add_timings, describe_timings
from mdchunk.tokens import tokenizer_choice

Report = Callable[[str, str], None]
"""Receives a warning about one page: its source path, then the message (the engine logs it)."""

WORKER_AFTER_SECONDS = 0.25
"""Seconds of chunking in the build's own process after which a worker process is started,
when the number of workers is left to mdchunk and the engine did not say how much it will
render: starting one (a process that imports mdchunk and loads the tokenizer) costs about that
much, more than a small site's whole chunking."""

WORKER_FOR_BYTES = 256 * 1024
"""Bytes of page sources from which a worker is started at the first page to chunk, when the
engine said how much it will render (`IndexBuilder.expect`): the worker loads while the engine
renders, and no page is chunked in the engine's process. Below that, chunking every page in the
engine's process costs less than waiting, at the end, for a worker still loading."""


@dataclasses.dataclass(frozen=True, slots=True)
class BuildSummary:
    """What a finished build wrote, for the engine's log."""

    pages: tuple[PageOutput, ...]
    """The pages in the index (counts and warnings only), in the index's order."""
    written: Mapping[str, Path]
    """The file written for each format."""
    inspector: Path | None
    """The chunk inspector's page, when it was asked for."""
    search_page: Path | None
    """The search page over the Pagefind bundle, when it was asked for."""
    lacking: tuple[str, ...]
    """Pages of the site that are neither rendered nor found in the cache."""
    duplicates: Mapping[str, Duplicate] = dataclasses.field(default_factory=dict)
    """The duplicate chunks of the index, by id (see `mdchunk.duplicates`)."""
    cache: Path | None = None
    """The page cache's folder, when it is kept across builds."""

    def describe(self) -> str:
        """`64 pages, 3283 chunks (27 oversize, 3 small, 12 duplicates) written to ...`."""
        return index_summary(self.pages, self.written, duplicates=len(self.duplicates))

    def lines(self) -> list[str]:
        """What the engine logs of the build (at info level): `describe`, then where the chunk
        inspector and the search page are, when they were written."""
        lines = [self.describe()]
        if self.inspector is not None:
            lines.append(f"chunk inspector: {self.inspector}")
        if self.search_page is not None:
            lines.append(f"search page: {self.search_page}")
        return lines

    def lacking_warning(self, engine: str) -> str:
        """What to warn of the pages the index lacks ("" when it lacks none): pages `engine`
        did not render in this build (`mkdocs build --dirty`) that the cache does not hold."""
        count = len(self.lacking)
        if not count:
            return ""
        names = ", ".join(self.lacking[:3]) + (f" and {count - 3} more" if count > 3 else "")
        where = ("the page cache is off" if self.cache is None
                 else f"not found in the page cache {self.cache}")
        hint = (", and with `cache: true` later builds keep every page" if self.cache is None
                else "")
        return (f"the chunk index of this build lacks {counted(count, 'page')} that {engine} "
                f"did not render: {names} ({where}); a full build puts "
                f"{'it' if count == 1 else 'them'} back{hint}")


@dataclasses.dataclass
class _Page:
    """A page of the index, as this process holds it: its counts, and where the rest is."""

    output: PageOutput
    key: str
    markdown_path: str
    fingerprint: str | None
    kept: bool = False
    """Taken from the cache without being rendered in this build (`keep_page`)."""


@dataclasses.dataclass
class _Pending:
    future: Future[PageOutput]
    key: str
    markdown_path: str
    fingerprint: str | None


@dataclasses.dataclass
class _ThisBuild:
    """What the builder notes of the build under way (reset by `finish`)."""

    seen: set[str] = dataclasses.field(default_factory=set)
    added: dict[str, str] = dataclasses.field(default_factory=dict)
    """The urls of the pages added (rendered) in this build, by source path, in their order."""
    fresh: list[str] = dataclasses.field(default_factory=list)
    from_cache: int = 0
    written: int = 0
    lacking: list[str] = dataclasses.field(default_factory=list)
    pending: dict[str, _Pending] = dataclasses.field(default_factory=dict)
    left_out: dict[str, str] = dataclasses.field(default_factory=dict)
    """The urls of the pages left out of the index in this build, by source path."""


class IndexBuilder:
    """The build session of one site: add pages, keep pages, finish.

    Arguments:
        settings: The options and outputs of the build.
        site_dir: The built site's folder, where the outputs are written.
        cache: The page cache's folder (kept across builds); None for a cache of this object's
            own that is removed by `close`.
        report: Receives each warning about a page (default: this module's logger).
        log: Where the builder's own messages go (the engine's logger).
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
        tokenizer_choice(settings.tokenizer)  # at startup, not at the first page
        pagefind_needed(settings.output.formats)
        self._temporary = None if cache is not None else tempfile.TemporaryDirectory(
            prefix="mdchunk-cache-")
        self.kept_cache = cache
        """The cache's folder when it is kept across builds (None: this object's own)."""
        folder = cache if cache is not None else Path(self._temporary.name)  # type: ignore[union-attr]
        self.cache = PageCache(folder, settings.fingerprint(), log=self.log)
        self.processed_at = build_time()
        self.pages: dict[str, _Page] = {}
        self.excluded: set[str] = set()
        self.build = _ThisBuild()
        self._job = PageJob(JobSettings(
            settings.options, self.processed_at, settings.page_settings(), self.cache.folder,
            self.cache.settings, settings.tokenizer), self.cache)
        """Chunks the pages chunked in this process (and says how workers chunk theirs)."""
        self._pool: WorkerPool | None = None
        self._pointers: dict[str, PagePointer] | None = None
        self._inline_seconds = 0.0  # spent chunking in this process (see WORKER_AFTER_SECONDS)
        self._expected_bytes: int | None = None  # of page sources (see `expect`)

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
        source = page.source_path
        reason = page_exclusion(page.meta, paths or [source], self.settings.exclude, draft=draft)
        if reason:
            self.log.debug("%s: left out of the chunk index (%s)", source, reason)
            self._leave_out(source, by_metadata=bool(metadata_exclusion(page.meta)),
                            fingerprint=fingerprint, url=page.url)
            return reason
        self._check_unique(page)
        self.build.added[source] = page.url
        self.build.seen.add(source)
        self.excluded.discard(source)
        url = self.settings.site_url if site_url is None else site_url
        key = _page_key(page, url)
        found = self.cache.summary(key)
        if found is not None:
            self.build.from_cache += 1
            self._keep(source, _Page(found, key, markdown_path, fingerprint))
        elif self._in_workers(page):
            assert self._pool is not None
            self.build.pending[source] = _Pending(self._pool.submit(page, key, url), key,
                                                  markdown_path, fingerprint)
        else:
            self._chunk_here(page, url, _Page(_EMPTY, key, markdown_path, fingerprint))
        return ""

    def expect(self, source_bytes: int) -> None:
        """Say, before the first page, how many bytes of page sources the engine will render.
        Where that repays a worker (`WORKER_FOR_BYTES`) and mdchunk chooses the workers, the
        first page the cache does not hold starts one, and every page to chunk goes to it
        while it loads: none is chunked in the engine's process."""
        self._expected_bytes = source_bytes

    def _leave_out(self, source: str, *, by_metadata: bool, fingerprint: str | None,
                   url: str) -> None:
        """Leave a rendered page out of the index. Left out by its own metadata, it stays out
        when a later build keeps it without rendering it. Its `url` gets the hidden pointer to
        `llms.txt` in its HTML (the agent outputs)."""
        self.build.seen.add(source)
        self.build.left_out[source] = url
        self.pages.pop(source, None)
        self.build.pending.pop(source, None)
        if by_metadata:
            self.excluded.add(source)
            self._point(source, PagePointer(fingerprint, None))

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
        if source in self.build.seen or pattern_exclusion(paths or [source],
                                                          self.settings.exclude):
            return True
        self.build.seen.add(source)
        held = self.pages.get(source)
        if held is not None and self.cache.holds(held.key):
            return True  # kept from the last build of this object (`mkdocs serve`)
        if source in self.excluded:
            return True
        listed = self.cache.pointer(self.site_dir, source)  # (a parallel writer's, maybe)
        if listed is not None and listed.source == fingerprint:
            if listed.key is None:
                self.excluded.add(source)
                return True
            found = self.cache.summary(listed.key)
            if found is not None and listed.markdown is not None and (
                    markdown_path in (None, listed.markdown)):
                self.build.from_cache += 1
                self._keep(source, _Page(found, listed.key, listed.markdown, fingerprint,
                                         kept=True), report=report)
                return True
        self.pages.pop(source, None)
        self.build.lacking.append(source)
        return False

    def finish(self, order: Sequence[str], outline: SiteOutline | None = None) -> BuildSummary:
        """Write the index and every requested output into the site folder, each file atomically;
        `order` lists the site's pages (source paths) in the order of the index, and `outline`
        the site's name, description and navigation, which `llms.txt` follows (without it,
        the pages in `order`). A page added in this build is in the index even where `order`
        does not name it, after the pages it names: a page the engine rendered is never
        dropped for want of a listing.

        When every page of `order` is accounted for, the cache forgets the pages and entries no
        longer in the site. The builder is then ready for another build of the same site.

        Raises:
            MdChunkError: when the tokenizer cannot be loaded, an output cannot be written or a
                stored page cannot be read (naming it).
        """
        waited = time.perf_counter()
        self._collect()
        waited = time.perf_counter() - waited
        build = self.build
        in_site = set(order)
        for source in [source for source in self.pages
                       if source not in in_site and source not in build.added]:
            del self.pages[source]  # removed from the site
        sources = [source for source in order if source in self.pages]
        sources += [source for source in build.added
                    if source not in in_site and source in self.pages]
        writing = StageTimer()
        with writing.stage("duplicates"):
            marks = self._find_duplicates(sources)
        with writing.stage("write"):
            written = self._write_outputs(sources, marks)
            inspector = self._write_inspector(sources)
            search_page = self._write_search_page()
            written.update(self._write_agent_outputs(sources, outline or SiteOutline()))
        pages = tuple(self.pages[source].output for source in sources)
        self._log_timings(waited, writing.seconds)
        began = time.perf_counter()
        removed = 0 if build.lacking else self._forget_the_rest(order)
        self.log.debug("page cache %s: %d pages read; %d written, %d unused removed%s in %.3f s",
                       self.cache.folder, build.from_cache, build.written, removed,
                       " (pages missing: none pruned)" if build.lacking else "",
                       time.perf_counter() - began)
        summary = BuildSummary(pages, written, inspector, search_page, tuple(build.lacking),
                               marks, self.kept_cache)
        self.build = _ThisBuild()
        return summary

    def abandon(self) -> None:
        """Drop what the build under way was doing (the engine's build failed)."""
        self.build = _ThisBuild()

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

    def _in_workers(self, page: PageInput) -> bool:
        """Whether `page` goes to a worker process, starting them when the time has come."""
        if self._pool is not None:
            return True
        workers = self.settings.workers
        if workers is None:
            if not self._wants_worker():
                return False
            workers = 1
        if workers == 0:
            return False
        self._start_workers(workers)
        return True

    def _wants_worker(self) -> bool:
        """Whether a worker pays for itself, when mdchunk chooses: a second core is free, and
        the engine said it renders enough (`expect`) or, where it did not, chunking here has
        taken longer than starting a worker would."""
        if available_cores() < 2:
            return False
        if self._expected_bytes is not None and self._expected_bytes >= WORKER_FOR_BYTES:
            return True
        return self._inline_seconds > WORKER_AFTER_SECONDS

    def _start_workers(self, workers: int) -> WorkerPool:
        self._pool = WorkerPool(self._job.settings, workers=workers)
        return self._pool

    def _chunk_here(self, page: PageInput, site_url: str, held: _Page) -> None:
        began = time.perf_counter()
        self._job.load()  # a counter that cannot be loaded stops the build, with its fix
        try:
            output = self._job.run(page, held.key, site_url)
        except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
            self._cannot_chunk(page.source_path, error)
            return
        finally:
            self._inline_seconds += time.perf_counter() - began
        self.build.written += output.stored
        self.build.fresh.append(page.source_path)
        self._keep(page.source_path, dataclasses.replace(held, output=output))

    def _collect(self) -> None:
        """Wait for the pages chunked in the workers (in the order they were added)."""
        pending, self.build.pending = self.build.pending, {}
        if pending and self._pool is not None:
            self._pool.ready.result()  # raises TokenizerError, with its fix, when it cannot load
        for source, waiting in pending.items():
            try:
                output = waiting.future.result()
            except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
                self._cannot_chunk(source, error)
                continue
            if output.stored:
                self.cache.adopt(waiting.key)
            else:  # the worker could not keep it: this process tries (and says why it cannot)
                output = self._job.kept(waiting.key, output)
            self.build.written += output.stored
            self.build.fresh.append(source)
            self._keep(source, _Page(output, waiting.key, waiting.markdown_path,
                                     waiting.fingerprint))

    def _check_unique(self, page: PageInput) -> None:
        """Report a page with the source path of another page of this build: the source path
        is a page's key and makes its chunks' ids (`doc:{source without extension}::chN`), so
        the later page replaces the earlier in the index."""
        earlier = self.build.added.get(page.source_path)
        if earlier is not None and earlier != page.url:
            self.report(page.source_path, f"the pages at {earlier!r} and {page.url!r} were both "
                        "rendered from this source path, which makes a page's chunk ids: only "
                        f"{page.url!r} is in the index")

    def _cannot_chunk(self, source: str, error: Exception) -> None:
        self.report(source, f"cannot be chunked, left out of the index: {error}")
        self.pages.pop(source, None)

    def _keep(self, source: str, page: _Page, *, report: bool = True) -> None:
        """Keep `page` in the index, write its Markdown and point the cache at it; report its
        warnings (every build, so that a strict build sees them every time)."""
        if report:
            for warning in page.output.warnings:
                self.report(source, warning)
            for note in page.output.notes:
                self.log.info("%s: %s", source, note)
        self.pages[source] = page
        if self.settings.write_markdown:
            self._write_markdown(source)
        self._point(source, PagePointer(page.fingerprint, page.key, page.markdown_path))

    def _point(self, source: str, listed: PagePointer) -> None:
        pointers = self._pointed()
        if pointers.get(source) != listed:
            self.cache.point(self.site_dir, source, listed)
            pointers[source] = listed

    def _pointed(self) -> dict[str, PagePointer]:
        """The cache's pointers for this site (read once, then kept up to date here)."""
        if self._pointers is None:
            self._pointers = self.cache.manifest(self.site_dir)
        return self._pointers

    # -- writing -------------------------------------------------------------------------------

    def _write_markdown(self, source: str) -> None:
        """Write the page's Markdown beside its HTML; a page kept without being rendered keeps
        its file when it is there (the build that rendered it wrote it)."""
        page = self.pages[source]
        path = self.site_dir / page.markdown_path
        if not page.kept or not path.is_file():
            write_text(path, self._markdown(source), durable=False)

    def _find_duplicates(self, sources: Sequence[str]) -> dict[str, Duplicate]:
        """The duplicate chunks of the pages `sources`, in the index's order (none when the
        build does not look for them)."""
        if self.settings.duplicates == "off":
            return {}
        return find_duplicates(ChunkPrint.from_json(value) for source in sources
                               for value in self.pages[source].output.prints)

    def _write_outputs(self, sources: Sequence[str], marks: Mapping[str, Duplicate]
                       ) -> dict[str, Path]:
        formats = check_formats(self.settings.output.formats)
        drop = self.settings.duplicates == "drop"

        def records_of(name: str) -> Iterator[Record]:
            for source in sources:
                ids = [value[0] for value in self.pages[source].output.prints]
                yield from marked_records(name, self._content(source).records[name], ids,
                                          marks, drop=drop)

        index = self.site_dir / self.settings.index
        try:
            return write_records(self.site_dir, {name: records_of(name) for name in formats},
                                 output=self.settings.index, encoded=True,
                                 pagefind_output=self.settings.pagefind.folder)
        except OSError as error:
            raise MdChunkError(f"cannot write the chunk index {index}: {error}") from error

    def _write_agent_outputs(self, sources: Sequence[str], outline: SiteOutline
                             ) -> dict[str, Path]:
        """`llms.txt`, `llms-full` and the Markdown twins, when asked for."""
        if self.settings.llms is None:
            return {}
        pages = [ListedPage(source, self.pages[source].output.url,
                            self.pages[source].output.agent) for source in sources]
        pages += [ListedPage(source, url, None, indexed=False)
                  for source, url in self.build.left_out.items() if source not in self.pages]
        try:
            return write_agent_outputs(
                self.site_dir, pages, outline, self.settings.llms, markdown_of=self._markdown,
                site_url=self.settings.site_url, encoding=self.settings.options.encoding,
                log=self.log)
        except OSError as error:
            raise MdChunkError(f"cannot write the agent outputs (llms.txt, llms-full, Markdown "
                               f"twins) in {self.site_dir}: {error}") from error

    def _write_inspector(self, sources: Sequence[str]) -> Path | None:
        if not self.settings.output.inspector:
            return None
        inspected = (self._content(source).inspector for source in sources)
        return write_inspector(self.site_dir, [data for data in inspected if data],
                               max_tokens=self.settings.options.max_tokens)

    def _write_search_page(self) -> Path | None:
        """The search page over the Pagefind bundle, after the inspector (which replaces the
        folder they share)."""
        if not self.settings.pagefind.search_page:
            return None
        return write_search_page(self.site_dir, self.settings.pagefind,
                                 language=record_language({}, self.settings.output.language))

    def _content(self, source: str) -> PageOutput:
        """The whole page (Markdown, records, inspector data), read from its entry when this
        process holds only its counts."""
        page = self.pages[source]
        if not page.output.stored:
            return page.output
        return self._read(source, self.cache.read)

    def _markdown(self, source: str) -> str:
        page = self.pages[source]
        if not page.output.stored:
            return page.output.markdown
        return self._read(source, self.cache.markdown)

    def _read(self, source: str, read: Callable[[str], Any]) -> Any:
        key = self.pages[source].key
        try:
            return read(key)
        except (OSError, ValueError) as error:
            raise MdChunkError(
                f"cannot write the chunk index: the page cache entry of {source} "
                f"({self.cache.path(key)}) cannot be read: {error}; build again") from error

    def _forget_the_rest(self, order: Sequence[str]) -> int:
        """With every page of the site accounted for: point the cache at exactly these pages
        and remove the entries no page uses; return how many were removed."""
        listed = {source: PagePointer(page.fingerprint, page.key, page.markdown_path)
                  for source, page in self.pages.items()}
        listed.update({source: PagePointer(self._pointed().get(
            source, PagePointer(None, None)).source, None)
            for source in self.excluded if source in order})
        self.cache.write_manifest(self.site_dir, listed)
        self._pointers = dict(listed)
        return self.cache.prune({page.key for page in self.pages.values()})

    def _log_timings(self, waited: float, writing: Mapping[str, float]) -> None:
        """At debug level: the time per stage of the pages chunked in this build, the slowest
        pages, and how long the build waited for the workers at its end."""
        if not self.log.isEnabledFor(logging.DEBUG):
            return
        fresh = [self.pages[source].output for source in self.build.fresh
                 if source in self.pages]
        where = "in the worker process" if self._pool is not None else "inline"
        counted = f"; counted by {self.counter}" if fresh and self.counter else ""
        self.log.debug("%d pages chunked %s (%d kept from the last build) in %s%s",
                       len(fresh), where, len(self.pages) - len(fresh),
                       describe_timings(add_timings(page.timings for page in fresh)), counted)
        slowest = sorted(fresh, key=lambda page: -sum(page.timings.values()))[:3]
        if slowest:
            self.log.debug("slowest pages: %s", ", ".join(
                f"{page.source_path} {sum(page.timings.values()):.3f} s" for page in slowest))
        self.log.debug("waited %.3f s for the workers after the last page; wrote the index in "
                       "%s", waited, describe_timings(writing))


_EMPTY = PageOutput(source_path="", url="", markdown="", records={}, chunks=0, oversize=0,
                    small=0, warnings=(), notes=(), inspector=None)


def _page_key(page: PageInput, site_url: str) -> str:
    """A hash of everything a page's chunks depend on, besides the build's settings."""
    facts = json.dumps([page.source_path, page.url, page.title, page.meta, site_url],
                       sort_keys=True, default=str)
    digest = hashlib.sha256(facts.encode("utf-8", "surrogatepass"))
    digest.update(page.html.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()

