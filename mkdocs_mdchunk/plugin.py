"""The MkDocs plugin: pages in through `on_page_content`, the chunk index out in `on_post_build`.

Hooks:
    on_config: check the options, load the tokenizer; forget every page when the options changed.
    on_files: note the site's pages; forget those whose source is gone.
    on_page_content: chunk each page's rendered body (late, after other plugins changed it).
    on_post_build: take the pages MkDocs did not render from the page cache, then write each
        page's Markdown beside its HTML and the chunk index, atomically.

Pages are chunked in a worker process (`workers`, one by default where a second core is free)
while MkDocs renders the next ones; their records are collected in `on_post_build`. At debug
level (`mkdocs build -v`) the plugin logs the time each stage took and the slowest pages.

Under `mkdocs serve` the plugin object lives across rebuilds: a page whose rendered HTML and
facts did not change keeps its chunks (no parsing, no token counting), and with `--dirty` the
pages MkDocs did not rebuild keep theirs, so the index stays complete.

Across `mkdocs build` runs (CI) the chunked pages are kept on disk (`cache`, in `cache_dir`,
see `mdchunk.build.store`): a page found there is kept as under `mkdocs serve`. A `mkdocs build
--dirty` renders only the pages whose source changed: the others are taken from the cache through
its manifest (source path -> page key), so the index stays complete; those not found there are
named in one warning (the index of that build lacks them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Literal, TypeVar

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, PrefixedLogger, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from mdchunk._version import __version__
from mdchunk.build.store import Listed, PageCache
from mdchunk.build.workers import BackgroundChunker, default_workers
from mdchunk.chunking import Chunker, PageInput
from mdchunk.errors import MdChunkError
from mdchunk.exclusion import metadata_exclusion, pattern_exclusion
from mdchunk.outputs.inspector import write_inspector
from mdchunk.outputs.pages import (
    OutputSettings,
    PageOutput,
    index_summary,
    page_output,
    write_outputs,
)
from mdchunk.outputs.writers import write_text
from mdchunk.profiles import check_formats
from mdchunk.timing import StageTimer, add_timings, describe_timings
from mdchunk.tokens import counter_name, token_counter, tokenizer_choice
from mkdocs_mdchunk.config import MdChunkConfig

log = PrefixedLogger("mdchunk", logging.getLogger("mkdocs.plugins.mdchunk"))
_Read = TypeVar("_Read")


class MdChunkPlugin(BasePlugin[MdChunkConfig]):
    """Chunks every rendered page and writes a RAG-ready chunk index next to the site."""

    def __init__(self) -> None:
        self.chunker: Chunker | None = None
        self.output = OutputSettings()
        self.pages: dict[str, PageOutput] = {}
        self.markdown_files: dict[str, str] = {}
        self.page_keys: dict[str, str] = {}  # source -> hash of what its chunks depend on
        self.settings = ""  # the options and site url the kept pages were chunked with
        self.serving = False
        self.background: BackgroundChunker | None = None
        self.pending: dict[str, tuple[Future[PageOutput], str]] = {}  # source -> (result, key)
        self.cache: PageCache | None = None
        self.files: dict[str, File] = {}  # the site's pages by source, in MkDocs' order
        self.excluded: set[str] = set()  # the pages left out of the index by their metadata
        self.this_build = _ThisBuild()

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        """Keep one plugin object across `mkdocs serve` rebuilds."""
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        """Check the options and load the tokenizer before any page is built."""
        self.chunker = None
        self.pending = {}
        self.this_build = _ThisBuild()
        if not self.config.enabled:
            self._forget_all()
            self._stop_workers()
            return config
        options = self.config.chunk_options()
        try:
            tokenizer_choice()
        except MdChunkError as error:
            raise PluginError(f"mdchunk: {error}") from error
        inspector = self.config.inspector
        self.output = OutputSettings(
            formats=tuple(check_formats(self.config.formats)),
            language=_site_language(config),
            inspector=bool(inspector or (inspector is None and self.serving)),
        )
        settings = json.dumps(
            [__version__, options.as_dict(), config.site_url or "",
             os.environ.get("SOURCE_DATE_EPOCH"), dataclasses.astuple(self.output)],
            sort_keys=True,
        )
        if settings != self.settings:
            self._forget_all()
            self._stop_workers()
            self.settings = settings
        self._open_cache(config)
        workers = default_workers() if self.config.workers is None else self.config.workers
        if workers:  # the workers load the tokenizer, on the other core
            self.chunker = Chunker(options, counter=_unused_counter,
                                   site_url=config.site_url or "")
            if self.background is None:
                self.background = BackgroundChunker(
                    options, site_url=config.site_url or "",
                    processed_at=self.chunker.processed_at, output=self.output, workers=workers,
                )
                if self.cache is None or not self.cache.holds_pages():
                    # Every page will be chunked: load the tokenizer while MkDocs reads the
                    # site. With a filled cache, the first page that changed starts them.
                    self.background.start()
            return config
        self._stop_workers()
        try:
            counter = token_counter(options.encoding)
        except MdChunkError as error:
            raise PluginError(f"mdchunk option 'encoding': {error}") from error
        self.chunker = Chunker(options, counter=counter, site_url=config.site_url or "")
        return config

    def _open_cache(self, config: MkDocsConfig) -> None:
        """The page cache of these settings (the same object across `mkdocs serve` rebuilds)."""
        if not self.config.cache:
            self._forget_stored()
            self.cache = None
            return
        base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        folder = base.absolute() / self.config.cache_dir
        if self.cache is None or (self.cache.folder, self.cache.settings) != (folder,
                                                                              self.settings):
            self._forget_stored()
            self.cache = PageCache(folder, self.settings, log=log)

    def on_shutdown(self) -> None:
        """Stop the worker processes when `mkdocs serve` (or a build) ends."""
        self._stop_workers()

    @event_priority(-100)
    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files | None:
        """Note the site's pages (after other plugins added theirs), in MkDocs' order; forget
        those whose source file is gone (a page deleted under `mkdocs serve`)."""
        self.files = {file.src_uri: file for file in files.documentation_pages()}
        for source in [source for source in [*self.pages, *self.excluded]
                       if source not in self.files]:
            self._forget(source)
        return files

    @event_priority(-100)
    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str | None:
        """Chunk the page's final body HTML (after every other plugin changed it)."""
        if self.chunker is None:
            return html
        source = page.file.src_uri
        self.this_build.seen.add(source)
        reason = self._exclusion(page)
        if reason:
            log.debug("%s: left out of the chunk index (%s)", source, reason)
            self._forget(source)
            if metadata_exclusion(page.meta or {}):  # changes only with the page's source
                self.excluded.add(source)
            return html
        page_input = PageInput(
            html=html,
            source_path=source,
            url=page.url,
            title=page.title or "",
            meta=page.meta or {},
        )
        key = _page_key(page_input)
        self.markdown_files[source] = _markdown_path(page.file)
        if self.page_keys.get(source) == key and self._still_held(source):
            self._keep(source, self.pages[source], key)  # unchanged since the last build
        elif (cached := self._from_cache(key)) is not None:  # chunked by an earlier build
            self._keep(source, cached, key)
            self.this_build.cached.add(source)
        elif self.background is not None:
            slot = None if self.cache is None or not self.cache.enabled else (
                self.cache.folder, self.cache.settings, key)
            self.pending[source] = (self.background.submit(page_input, slot), key)
        else:
            try:
                result = self.chunker.chunk_page(page_input)
                output = page_output(result, self.output, self.chunker.timer)
            except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
                log.warning("%s: cannot be chunked, left out of the index: %s", source, error)
                self._forget(source)
                return html
            self._keep(source, output, key)
            self.this_build.fresh.add(source)
        return html

    def _from_cache(self, key: str) -> PageOutput | None:
        if self.cache is None:
            return None
        began = time.perf_counter()
        try:
            return self.cache.summary(key)
        finally:
            self.this_build.cache_seconds += time.perf_counter() - began

    def _still_held(self, source: str) -> bool:
        """Whether the content of a page kept from the last build is still at hand (its cache
        entry may have been removed since, by hand or by another build)."""
        page = self.pages[source]
        return not page.stored or (self.cache is not None
                                   and self.cache.holds(self.page_keys[source]))

    def _keep(self, source: str, result: PageOutput, key: str) -> None:
        """Keep the page in the index; with the cache on, its content stays in its cache entry
        only (see `_content`), so that this process never holds every page's records."""
        for warning in result.warnings:  # every build, so --strict sees them every time
            log.warning("%s: %s", source, warning)
        cache = self.cache
        if not result.stored and cache is not None:
            if not cache.known(key):
                cache.put(key, result)
                self.this_build.cache_written += cache.known(key)
            if cache.known(key):
                result = result.without_content()
        self.pages[source] = result
        self.page_keys[source] = key
        self.excluded.discard(source)

    def _collect(self) -> None:
        """Wait for the pages chunked in the workers (in the order MkDocs rendered them)."""
        if self.pending and self.background is not None:
            try:
                self.background.ready.result()
            except MdChunkError as error:
                raise PluginError(f"mdchunk option 'encoding': {error}") from error
        pending, self.pending = self.pending, {}
        for source, (future, key) in pending.items():
            try:
                result = future.result()
                if result.stored and self.cache is not None:  # the worker kept it in the cache
                    self.cache.adopt(key)
                    self.this_build.cache_written += 1
                self._keep(source, result, key)
                self.this_build.fresh.add(source)
            except Exception as error:  # noqa: BLE001 - one bad page must not stop the site
                log.warning("%s: cannot be chunked, left out of the index: %s", source, error)
                self._forget(source)

    def _stop_workers(self) -> None:
        if self.background is not None:
            self.background.close()
            self.background = None

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Write the pages' Markdown and the chunk index (each file atomically)."""
        if self.chunker is None:
            return
        in_workers = self.background is not None
        waited = time.perf_counter()
        self._collect()
        waited = time.perf_counter() - waited
        counter = self.background.counter if self.background is not None else None
        if not self.serving:
            self._stop_workers()
        site = Path(config.site_dir)
        self._restore(site)
        order = {source: position for position, source in enumerate(self.files)}
        sources = sorted(self.pages, key=lambda source: order.get(source, len(order)))
        pages = [self.pages[source] for source in sources]  # in the order MkDocs renders them
        writing = StageTimer()
        with writing.stage("write"):
            if self.config.write_markdown:
                self._write_markdown(site, sources)
            index = site / self.config.output
            try:
                written = write_outputs(site, pages, self.output.formats,
                                        output=self.config.output, content=self._content)
            except (OSError, MdChunkError) as error:
                message = f"mdchunk: cannot write the chunk index {index}: {error}"
                raise PluginError(message) from error
            if self.output.inspector:
                inspected = (self._content(page).inspector for page in pages)
                path = write_inspector(site, [data for data in inspected if data],
                                       max_tokens=self.chunker.options.max_tokens)
                log.info("chunk inspector: %s", path)
        log.info("%s", index_summary(pages, written))
        self._log_timings(in_workers, counter, waited, writing.seconds)
        self._update_cache(site)

    def _restore(self, site: Path) -> None:
        """Take the pages MkDocs did not render in this build (`mkdocs build --dirty`), and that
        this process did not keep, from the page cache through its manifest; name those not
        found there in one warning.

        A page is taken when the manifest of the last complete build of this site (same
        settings) lists it with the same source file and Markdown path, and its entry is
        still there; a page listed as left out by its own metadata stays out. A page the
        `exclude` patterns leave out stays out whatever the manifest says.
        """
        missing = [source for source in self.files if source not in self.this_build.seen
                   and source not in self.pages and source not in self.excluded]
        if not missing:
            return
        began = time.perf_counter()
        cache = self.cache
        listed = cache.manifest(site) if cache is not None else {}
        for source in missing:
            if pattern_exclusion([source], self.config.exclude):
                continue
            file, entry = self.files[source], listed.get(source)
            if cache is None or entry is None or entry.source != _source_digest(file):
                self.this_build.lacking.append(source)
            elif entry.key is None:
                self.excluded.add(source)
            elif (entry.markdown != _markdown_path(file)
                  or (page := cache.summary(entry.key)) is None):
                self.this_build.lacking.append(source)
            else:
                self.markdown_files[source] = entry.markdown
                self._keep(source, page, entry.key)
                self.this_build.cached.add(source)
                self.this_build.restored.add(source)
        self.this_build.cache_seconds += time.perf_counter() - began
        lacking = self.this_build.lacking
        if lacking:
            count = len(lacking)
            names = ", ".join(lacking[:3]) + (f" and {count - 3} more" if count > 3 else "")
            log.warning(
                "the chunk index of this --dirty build lacks %d page%s that MkDocs did not "
                "render: %s (%s); a full build puts %s back%s", count, "" if count == 1 else "s",
                names, "the page cache is off" if cache is None
                else f"not found in the page cache {cache.folder}", "it" if count == 1 else "them",
                ", and with `cache: true` later --dirty builds keep every page" if cache is None
                else "")

    def _update_cache(self, site: Path) -> None:
        """When the index has every page, name them in the manifest and remove the entries no
        current page uses (the pages themselves went into the cache as they were kept, `_keep`).

        A build has every page when each one was rendered, kept from an earlier build of this
        process (`mkdocs serve`, also with `--dirty`) or taken through the manifest (`mkdocs
        build --dirty`). When some were not found, nothing is pruned and the manifest is left
        as it was (the entries of those pages may still be there for a later build).
        """
        cache = self.cache
        if cache is None:
            return
        began = time.perf_counter()
        written = self.this_build.cache_written  # as the pages were kept
        complete = not self.this_build.lacking
        removed = 0
        if complete:
            listed: dict[str, Listed] = {}
            for source, file in self.files.items():
                indexed, excluded = source in self.pages, source in self.excluded
                digest = _source_digest(file) if indexed or excluded else None
                if digest is None:  # a page whose source cannot be read is not listed
                    continue
                listed[source] = (Listed(digest, self.page_keys[source],
                                         self.markdown_files[source])
                                  if indexed else Listed(digest, None))
            cache.write_manifest(site, listed)
            removed = cache.prune(set(self.page_keys.values()))
        build = self.this_build
        log.debug("page cache %s: %d pages read in %.3f s; %d written, %d unused removed%s "
                  "in %.3f s", cache.folder, len(build.cached), build.cache_seconds, written,
                  removed, "" if complete else " (pages missing: none pruned)",
                  time.perf_counter() - began)

    def _log_timings(self, in_workers: bool, workers_counter: str | None, waited: float,
                     writing: dict[str, float]) -> None:
        """At debug level: the time per stage of the pages chunked in this build, the slowest
        pages, and how long the build waited for the workers at its end."""
        if not log.isEnabledFor(logging.DEBUG):
            return
        fresh = [self.pages[source] for source in self.this_build.fresh if source in self.pages]
        where = "in the worker process" if in_workers else "inline"
        counter = workers_counter
        if not in_workers and self.chunker is not None:  # loaded by on_config: naming loads nothing
            counter = counter_name(self.chunker.options.encoding)
        counted = f"; counted by {counter}" if fresh and counter else ""
        log.debug("%d pages chunked %s (%d kept from the last build) in %s%s",
                  len(fresh), where, len(self.pages) - len(fresh),
                  describe_timings(add_timings(page.timings for page in fresh)), counted)
        slowest = sorted(fresh, key=lambda page: -sum(page.timings.values()))[:3]
        if slowest:
            log.debug("slowest pages: %s", ", ".join(
                f"{page.source_path} {sum(page.timings.values()):.3f} s" for page in slowest))
        log.debug("waited %.3f s for the workers after the last page; wrote the index in %s",
                  waited, describe_timings(writing))

    def _forget(self, source: str) -> None:
        self.pages.pop(source, None)
        self.page_keys.pop(source, None)
        self.markdown_files.pop(source, None)
        self.excluded.discard(source)

    def _write_markdown(self, site: Path, sources: list[str]) -> None:
        """Write each page's Markdown beside its HTML, four files at a time: creating a file
        waits on the file system (0.4 to 1.2 ms a file here). With the Node.js docs the pages
        and the index are written in 0.13 s instead of 0.16 s (medians of 8 builds)."""

        def write(source: str) -> None:
            # fsync'ed 64 page files cost 0.4 s of a Node.js-docs build; the index is the
            # durable record, the pages' Markdown is rebuilt with the site.
            write_text(site / self.markdown_files[source], self._markdown(self.pages[source]),
                       durable=False)

        todo = [source for source in sources
                if source not in self.this_build.restored
                or not (site / self.markdown_files[source]).is_file()]
        # (a restored page's file was written by the build that rendered it, as its HTML)
        with ThreadPoolExecutor(max_workers=4, thread_name_prefix="mdchunk-md") as pool:
            for _ in pool.map(write, todo):
                pass

    def _content(self, page: PageOutput) -> PageOutput:
        """The page with its Markdown, records and inspector data, read from its cache entry when
        this process holds only its counts (one page at a time, while the index is written).

        Raises:
            PluginError: naming the page and its entry when that cannot be read.
        """
        if not page.stored:
            return page
        return self._read_entry(page, PageCache.read)

    def _markdown(self, page: PageOutput) -> str:
        """The page's Markdown, read from its cache entry when this process holds only its
        counts (only the entry's first lines, not its records).

        Raises:
            PluginError: naming the page and its entry when that cannot be read.
        """
        if not page.stored:
            return page.markdown
        return self._read_entry(page, PageCache.markdown)

    def _read_entry(self, page: PageOutput, read: Callable[[PageCache, str], _Read]) -> _Read:
        """What `read` gives of the cache entry of `page`; a `PluginError` naming the page and
        its entry when that cannot be read."""
        assert self.cache is not None, "pages are kept without content only in a page cache"
        key = self.page_keys[page.source_path]
        try:
            return read(self.cache, key)
        except (OSError, ValueError) as error:
            raise PluginError(
                f"mdchunk: cannot write the chunk index: the page cache entry of "
                f"{page.source_path} ({self.cache.path(key)}) cannot be read: {error}; "
                f"build again") from error

    def _forget_stored(self) -> None:
        """Forget the pages kept only in the page cache (it is turned off or moved): they are
        chunked again, or found in the new cache."""
        for source in [source for source, page in self.pages.items() if page.stored]:
            self._forget(source)

    def _forget_all(self) -> None:
        self.pages, self.page_keys, self.markdown_files = {}, {}, {}
        self.excluded = set()

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build: drop what the workers were doing for it."""
        self.pending = {}

    def _exclusion(self, page: Page) -> str:
        """Why the page is left out of the index ("" when it is not)."""
        reason = metadata_exclusion(page.meta or {}) or pattern_exclusion(
            [page.file.src_uri], self.config.exclude)
        if not reason and page.file.inclusion.is_excluded():
            reason = "draft page"
        return reason


@dataclasses.dataclass
class _ThisBuild:
    """What the plugin notes of the build under way (reset by `on_config`)."""

    seen: set[str] = dataclasses.field(default_factory=set)
    """The pages MkDocs rendered."""
    fresh: set[str] = dataclasses.field(default_factory=set)
    """The pages chunked (not kept from an earlier build)."""
    cached: set[str] = dataclasses.field(default_factory=set)
    """The pages found in the page cache."""
    restored: set[str] = dataclasses.field(default_factory=set)
    """The pages not rendered, taken through the cache's manifest (`--dirty`)."""
    lacking: list[str] = dataclasses.field(default_factory=list)
    """The pages neither rendered nor found."""
    cache_seconds: float = 0.0
    """Spent reading the page cache."""
    cache_written: int = 0
    """Cache entries written (by the workers or this process)."""


def _site_language(config: MkDocsConfig) -> str | None:
    """The site's natural language: the theme's `language` (Material) or `locale`."""
    theme = config.theme
    language = theme.get("language") or getattr(theme, "locale", None)
    return str(language) if language else None


def _markdown_path(file: File) -> str:
    """Where the page's Markdown is written in the site: beside its HTML."""
    return str(Path(file.dest_uri).with_suffix(".md"))


def _source_digest(file: File) -> str | None:
    """The sha256 of the page's source (None when it cannot be read)."""
    try:
        return hashlib.sha256(file.content_bytes).hexdigest()
    except OSError:
        return None


def _page_key(page: PageInput) -> str:
    """A hash of everything a page's chunks depend on, besides the options."""
    facts = json.dumps([page.source_path, page.url, page.title, page.meta], sort_keys=True,
                       default=str)
    digest = hashlib.sha256(facts.encode("utf-8", "surrogatepass"))
    digest.update(page.html.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _unused_counter(text: str) -> int:
    """The main process's Chunker only names the options: its workers count the tokens."""
    raise AssertionError("pages are chunked in the worker processes")
