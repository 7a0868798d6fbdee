"""What a build's finish writes, and what it says of it.

The finish runs what needs the whole site (the duplicate marks, `llms.txt`, the search bundle)
and writes every output of the index into the site folder, each file atomically, reading each
page's records back from the page cache one page at a time.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mdchunk.errors import MdChunkError
from mdchunk.outputs.catalog import FORMATS, check_formats
from mdchunk.outputs.duplicates import Duplicate
from mdchunk.outputs.formats import format_target, records_block, write_records
from mdchunk.outputs.inspector import write_inspector
from mdchunk.outputs.llms import ListedPage, write_agent_outputs
from mdchunk.outputs.marks import marked_records, marks_touch
from mdchunk.outputs.outline import SiteOutline
from mdchunk.outputs.pages import PageOutput, counted, index_summary
from mdchunk.session.index_pages import IndexPages
from mdchunk.session.kept_files import KeptFiles, index_files, index_key
from mdchunk.settings import BuildSettings

if TYPE_CHECKING:
    from mdchunk.search.embedders import Embedder
    from mdchunk.search.vectors import EmbedCounts

_T = TypeVar("_T")
_JOINED = ("jsonl", "json")
"""The layouts of the index files joined from the pages' records alone, which the last build's
files of the same index give as they are (`mdchunk.session.kept_files`)."""


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
    """The duplicate chunks of the index, by id (see `mdchunk.outputs.duplicates`)."""
    cache: Path | None = None
    """The page cache's folder, when it is kept across builds."""
    vectors: EmbedCounts | None = None
    """What the embedding of the chunks did (`embed_model`), when it was asked for."""
    from_cache: int = 0
    """How many of the pages were taken from the page cache, not chunked again."""

    def describe(self) -> str:
        """`64 pages, 3283 chunks (27 oversize, 3 small, 12 duplicates) written to ...`."""
        return index_summary(self.pages, self.written, duplicates=len(self.duplicates))

    def lines(self) -> list[str]:
        """What the engine logs of the build (at info level): `describe`, then where the chunk
        inspector and the search page are, when they were written."""
        lines = [self.describe()]
        if self.vectors is not None:
            lines.append(self.vectors.describe())
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



class IndexWriter:
    """Writes the outputs of a build's index: the pages of `index` (by source path, in the
    order given to each method) with `settings`, into `site_dir`."""

    def __init__(self, settings: BuildSettings, site_dir: Path, index: IndexPages,
                 log: logging.Logger | logging.LoggerAdapter[Any],
                 embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.site_dir = site_dir
        self.index = index
        self.log = log
        self.embedder = embedder
        """The model of `embed_model` (None: no vectors)."""
        self.vectors: EmbedCounts | None = None
        """What the last `outputs` did to embed the chunks (None: it embedded nothing)."""

    def outputs(self, sources: Sequence[str], marks: Mapping[str, Duplicate]
                ) -> dict[str, Path]:
        """Write every format of the index, each file atomically. Where `embed_model` asks for
        vectors, the chunks' vectors go into the SQLite file before it replaces the last one
        (what the embedding did: `vectors`)."""
        self.vectors = None
        formats = check_formats(self.settings.output.formats)
        drop = self.settings.duplicates == "drop"

        def records_of(name: str) -> Iterator[bytes]:
            for source in sources:
                ids = [value[0] for value in self.index.pages[source].output.prints]
                if not marks_touch(name, ids, marks, drop=drop):
                    yield self._records_block(source, name)
                    continue
                yield records_block(marked_records(name, self._records(source, name), ids,
                                                   marks, drop=drop))

        index = self.site_dir / self.settings.index
        kept = self._kept_outputs(sources)
        placed: dict[str, Path] = {}
        for name in formats:
            target = format_target(self.site_dir, name, output=self.settings.index,
                                   pagefind_output=self.settings.pagefind.folder)
            if FORMATS[name].layout in _JOINED and kept.place(name, target):
                placed[name] = target
        try:
            written = write_records(self.site_dir, {name: records_of(name) for name in formats
                                                    if name not in placed},
                                    output=self.settings.index,
                                    pagefind_output=self.settings.pagefind.folder,
                                    page_kinds=self.settings.page_kinds,
                                    complete_sqlite=None if self.embedder is None
                                    else self._embed)
        except OSError as error:
            raise MdChunkError(f"cannot write the chunk index {index}: {error}") from error
        for name, path in written.items():
            if FORMATS[name].layout in _JOINED:
                kept.keep(name, path)
        kept.save()
        return {name: placed.get(name) or written[name] for name in formats}

    def _kept_outputs(self, sources: Sequence[str]) -> KeptFiles:
        """The index files the last build kept, for an index of these pages in this order with
        these settings (`mdchunk.session.kept_files`)."""
        cache = self.index.cache
        key = index_key(f"{self.settings.duplicates}\n{cache.settings}",
                        [self.index.pages[source].key for source in sources])
        return index_files(cache.folder, key)

    def _embed(self, sqlite: Path) -> None:
        """Store the vectors of the chunks in the SQLite file `sqlite` by the build's model,
        through an embedding cache beside the page cache's entries, which keeps the vectors of
        this index only."""
        from mdchunk.search.vectors import CACHE_FILE, EmbedCache, embed_index

        assert self.embedder is not None
        cache = EmbedCache(self.index.cache.folder / CACHE_FILE, log=self.log)
        self.vectors = embed_index(sqlite, self.embedder, cache, prune_cache=True)

    def agent_outputs(self, sources: Sequence[str], outline: SiteOutline
                             ) -> dict[str, Path]:
        """`llms.txt`, `llms-full` and the Markdown twins, when asked for."""
        if self.settings.llms is None:
            return {}
        marked = self.index.build.marked
        held = [self.index.pages[source].output for source in sources]
        pages = [ListedPage(page.source_path, page.url, page.agent, in_site=page.in_site,
                            marked=marked.get(page.source_path) is True) for page in held]
        pages += [ListedPage(source, url, None, indexed=False,
                             marked=marked.get(source) is False)
                  for source, url in self.index.build.left_out.items()
                  if source not in self.index.pages]
        pages += [ListedPage(source, self.index.build.added[source], None, indexed=False)
                  for source in marked if source not in self.index.pages
                  and source not in self.index.build.left_out]  # could not be chunked
        try:
            return write_agent_outputs(
                self.site_dir, pages, outline, self.settings.llms, markdown_of=self.markdown,
                site_url=self.settings.site_url, encoding=self.settings.options.encoding,
                log=self.log)
        except OSError as error:
            raise MdChunkError(f"cannot write the agent outputs (llms.txt, llms-full, Markdown "
                               f"twins) in {self.site_dir}: {error}") from error

    def inspector(self, sources: Sequence[str]) -> Path | None:
        if not self.settings.output.inspector:
            return None
        inspected = (self._content(source).inspector for source in sources)
        return write_inspector(self.site_dir, [data for data in inspected if data],
                               max_tokens=self.settings.options.max_tokens)

    def search_page(self) -> Path | None:
        """The search page over the Pagefind bundle, after the inspector (which replaces the
        folder they share)."""
        if not self.settings.pagefind.search_page:
            return None
        from mdchunk.outputs.pagefind_bundle import record_language, write_search_page

        return write_search_page(self.site_dir, self.settings.pagefind,
                                 language=record_language({}, self.settings.output.language))

    def _content(self, source: str) -> PageOutput:
        """The whole page (Markdown, records, inspector data), read from its entry when this
        process holds only its counts."""
        page = self.index.pages[source]
        if not page.output.stored:
            return page.output
        return self._read(source, lambda key: self.index.cache.read(key, prints=False))

    def _records_block(self, source: str, name: str) -> bytes:
        """The page's records of format `name` as the bytes of their lines, read from its
        entry as they are when this process holds only its counts."""
        page = self.index.pages[source]
        if not page.output.stored:
            return records_block(page.output.records[name])
        return self._read(source, lambda key: self.index.cache.records_block(key, name))

    def _records(self, source: str, name: str) -> list[str]:
        """The page's records of format `name`, each its JSON text (only that format's block of
        its entry is read when this process holds only its counts)."""
        page = self.index.pages[source]
        if not page.output.stored:
            return page.output.records[name]
        return self._records_block(source, name).decode("utf-8").split("\n")[:-1]

    def markdown(self, source: str) -> str:
        """The page's Markdown, read from its entry when this process holds only its counts."""
        page = self.index.pages[source]
        if not page.output.stored:
            return page.output.markdown
        return self._read(source, self.index.cache.markdown)

    def _read(self, source: str, read: Callable[[str], _T]) -> _T:
        key = self.index.pages[source].key
        try:
            return read(key)
        except (OSError, ValueError) as error:
            raise MdChunkError(
                f"cannot write the chunk index: the page cache entry of {source} "
                f"({self.index.cache.path(key)}) cannot be read: {error}; build again") from error


def log_build_times(log: logging.Logger | logging.LoggerAdapter[Any], index: IndexPages, *,
                    where: str, counter: str | None, seconds: tuple[float, float, float]
                    ) -> None:
    """At debug level: the pages chunked in this build and `where`, the slowest of those
    chunked in the build's own process, and how long the finish waited for the workers and
    for the duplicate marks, and wrote (`seconds`)."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    build = index.build
    chunked = [source for source in build.chunked if source in index.pages]
    here = f" in {sum(build.seconds.values()):.3f} s" if build.seconds else ""
    counted = f"; counted by {counter}" if chunked and counter else ""
    log.debug("%d pages chunked %s (%d kept from the last build)%s%s", len(chunked), where,
              len(index.pages) - len(chunked), here, counted)
    slowest = sorted(build.seconds.items(), key=lambda item: -item[1])[:3]
    if slowest:
        log.debug("slowest pages: %s", ", ".join(
            f"{source} {took:.3f} s" for source, took in slowest))
    log.debug("waited %.3f s for the workers after the last page, %.3f s for the duplicate "
              "marks; wrote the index in %.3f s", *seconds)
