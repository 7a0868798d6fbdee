"""A build's search for duplicate chunks, kept off the build's own path where it can be.

The duplicate marks need every chunk of the index in its order (`mdchunk.outputs.duplicates`).
Three things keep that search out of the engine's way:

- a build with one worker process searches there as the pages arrive: the worker adds the
  prints of each page it chunks, and is sent those of the pages chunked or found elsewhere, in
  the order the pages were added; when that is the index's order (MkDocs renders its pages in
  the index's order), the finish takes the worker's marks, found already;
- an index of the same pages, in the same order and with the same settings as the last build's
  (an unchanged site) takes that build's marks, kept beside the page cache: the search would
  find the same ones;
- otherwise a worker, where there is one, searches the whole index at the finish while the
  build's own process writes the outputs that do not need the marks (`llms.txt`, `llms-full`,
  the inspector).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from mdchunk.outputs.duplicates import Duplicate, find_duplicates_in
from mdchunk.outputs.writers import dumps, loads, write_text
from mdchunk.session.index_pages import IndexedPage
from mdchunk.session.kept_files import index_key
from mdchunk.session.workers import WorkerEndedError, WorkerPool

MARKS_FILE = "duplicate-marks.json"
"""The last build's marks, in the page cache's folder, with the key of the index they mark."""


class DuplicateSearch:
    """The duplicate marks of one build's index: `start` them, then ask for `marks`.

    Arguments:
        folder: The page cache's folder, where the last build's marks are kept.
        settings: The build's settings fingerprint (the prints depend on them).
    """

    def __init__(self, folder: Path, settings: str) -> None:
        self.path = folder / MARKS_FILE
        self.settings = settings
        self._key = ""
        self._found: dict[str, Duplicate] | None = None
        self._pages: Sequence[IndexedPage] = ()
        """The index's pages, from `start` to `marks`."""
        self._future: Future[dict[str, Duplicate]] | None = None
        self._order: list[str] = []
        """The pages whose prints the worker has or is sent, by source path, in that order."""
        self._unsent: list[list[str]] = []
        """Prints of pages in `_order` not sent to the worker yet (none was running)."""

    def held(self, source: str, prints: Sequence[list[str]], pool: WorkerPool | None) -> None:
        """Note a page whose prints this process holds (found in the cache, or chunked here):
        they go to the worker's search after those of the pages added before it."""
        self._order.append(source)
        self._unsent.extend(prints)
        self._send(pool)

    def sending(self, source: str, pool: WorkerPool) -> None:
        """Note a page about to be chunked in `pool`'s worker, which adds its prints."""
        self._send(pool)
        self._order.append(source)

    def _send(self, pool: WorkerPool | None) -> None:
        if pool is not None and pool.workers == 1 and self._unsent:
            pool.notice(self._unsent)
            self._unsent = []

    def start(self, pages: Sequence[IndexedPage], pool: WorkerPool | None) -> None:
        """Begin finding the marks of `pages` (the index, in its order): the worker's, found
        as the pages came, when they came in this order; the last build's when they mark the
        same index; else a search in `pool`'s worker (None: in `marks`)."""
        self._key = index_key(self.settings, [page.key for page in pages])
        self._pages = pages
        in_order = self._order == [page.output.source_path for page in pages]
        self._found, self._future = None, None
        if pool is not None and pool.workers == 1:
            self._send(pool)
            taken = pool.take_marks()  # the worker's search starts afresh either way
            self._future = taken if in_order and not self._unsent else None
        self._order, self._unsent = [], []
        if self._future is None:
            self._found = self._last_marks()
        if self._future is None and self._found is None:
            self._future = pool.find_duplicates(_prints(pages)) if pool is not None else None

    def abandon(self, pool: WorkerPool | None) -> None:
        """Forget the pages of a build that failed (the worker's search starts afresh)."""
        if pool is not None and pool.workers == 1:
            pool.take_marks()
        self._order, self._unsent = [], []

    def marks(self) -> dict[str, Duplicate]:
        """The marks, by chunk id: those started, found here when no worker searches (or the
        one that did is gone); kept for the next build."""
        if self._found is not None:
            return self._found
        found = None
        if self._future is not None:
            try:
                found = self._future.result()
            except WorkerEndedError:  # the worker died: the search runs here
                found = None
        if found is None:
            found = find_duplicates_in(_prints(self._pages))
        self._found, self._pages, self._future = found, (), None
        self._keep(found)
        return found

    def _last_marks(self) -> dict[str, Duplicate] | None:
        """The last build's marks, when they mark the index of this key (None otherwise, or
        when they cannot be read: the search then runs)."""
        try:
            saved: Any = loads(self.path.read_bytes())
            if saved["key"] != self._key:
                return None
            return {chunk: Duplicate(of, kind, similarity)
                    for chunk, (of, kind, similarity) in saved["marks"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _keep(self, marks: dict[str, Duplicate]) -> None:
        """Keep `marks` for the next build (a cache: a folder that cannot be written only
        means the next build searches again)."""
        saved = {"key": self._key, "marks": {chunk: [mark.of, mark.kind, mark.similarity]
                                             for chunk, mark in marks.items()}}
        with contextlib.suppress(OSError):
            write_text(self.path, dumps(saved), durable=False)


def _prints(pages: Sequence[IndexedPage]) -> list[list[str]]:
    """The prints of `pages`' chunks, in order."""
    return [value for page in pages for value in page.output.prints]
