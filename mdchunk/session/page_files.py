"""The own files of the pages a build did not chunk: their Markdown and their twins, written in a
thread beside the engine.

A page chunked in this build has its files written where it was chunked
(`mdchunk.outputs.pages.write_page_files`, in the worker or inline). A page found in the page
cache (an unchanged page, a page `mkdocs build --dirty` did not render) has them written from
its cache entry. Those writes are file-system calls, during which Python lets the engine's
thread run: done in a thread of their own, they run beside the engine's rendering, on a free
core, instead of one after the other in its way. The finish waits for them (`wait`).
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.pages import write_page_files
from mdchunk.session.cache import PageCache
from mdchunk.session.index_pages import IndexedPage
from mdchunk.settings import BuildSettings


class PageFiles:
    """Writes the own files of pages held from the cache, in a thread; `wait` for them."""

    def __init__(self, settings: BuildSettings, site_dir: Path, cache: PageCache) -> None:
        self.settings = settings
        self.site_dir = site_dir
        self.cache = cache
        self._thread: ThreadPoolExecutor | None = None
        self._writing: list[tuple[str, str, Future[None]]] = []

    def write(self, source: str, page: IndexedPage) -> IndexedPage:
        """Start writing the files of `page` (its Markdown unless the page was kept without
        being rendered and its file is there, written by the build that rendered it); return
        the page, which says its files are in the site (`PageOutput.in_site`)."""
        markdown_path = page.markdown_path if self.settings.write_markdown and (
            not page.kept or not (self.site_dir / page.markdown_path).is_file()) else None
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mdchunk-files")
        self._writing.append((source, page.key, self._thread.submit(
            self._write, page, markdown_path)))
        return dataclasses.replace(page, output=dataclasses.replace(page.output, in_site=True))

    def _write(self, page: IndexedPage, markdown_path: str | None) -> None:
        output = page.output
        if output.stored:
            output = dataclasses.replace(output, markdown=self.cache.markdown(page.key))
        write_page_files(self.site_dir, output, self.settings.page_settings(),
                         markdown_path=markdown_path)

    def wait(self) -> None:
        """Wait for the files started; the first that could not be written stops the build.

        Raises:
            MdChunkError: naming the page whose files, or whose cache entry, failed.
        """
        writing, self._writing = self._writing, []
        failed = None
        for source, key, future in writing:
            error = future.exception()
            if error is not None and failed is None:
                failed = MdChunkError(
                    f"cannot write the Markdown of {source} (from its page cache entry "
                    f"{self.cache.path(key)}): {error}")
        if failed is not None:
            raise failed

    def close(self) -> None:
        """Wait for the files started, then stop the thread."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        self._writing = []
