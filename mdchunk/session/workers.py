"""Worker processes that chunk pages for a build session while the engine renders the next ones.

MkDocs renders pages one after the other on one core; `mdchunk site` and `mdchunk chunk` read
pages faster than one core chunks them. Handing each page to a worker process puts the chunking
(HTML walk, packing, token counts, records in every format, and loading the tokenizer) on
another core. A worker keeps each page it chunked in the build's page cache and returns only its
counts: the build's own process reads the records back while it writes the index.

The workers are started with `spawn` (no fork of a process that may run threads, such as `mkdocs
serve`), load the tokenizer themselves, and chunk each page as the build's own process does: they
only call the build's one way of chunking a page (`mdchunk.session.page_job.PageJob.run`) with
the caller's settings.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import logging
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from mdchunk.chunking import PageInput
from mdchunk.outputs.duplicates import Duplicate, DuplicateFinder, find_duplicates_in
from mdchunk.outputs.pages import PageOutput
from mdchunk.session.cache import PageCache
from mdchunk.session.page_job import JobSettings, PageJob

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

WORKER_AFTER_SECONDS = 0.25
"""Seconds of chunking in the build's own process after which a worker process is started,
when the number of workers is left to mdchunk and the engine did not say how much it will
render: starting one (a process that imports mdchunk and loads the tokenizer) costs about that
much, more than a small site's whole chunking."""

WORKER_FOR_BYTES = 256 * 1024
"""Bytes of page sources from which a worker is started at the first page to chunk, when the
engine said how much it will render (`WorkerStart.expect`): the worker loads while the engine
renders, and no page is chunked in the engine's process. Below that, chunking every page in the
engine's process costs less than waiting, at the end, for a worker still loading."""


class WorkerStart:
    """When a build starts its workers, and how many: the number a user set (`workers`: 0 for
    none), else one once it pays for itself."""

    def __init__(self, workers: int | None) -> None:
        self.workers = workers
        self.inline_seconds = 0.0
        """Seconds spent chunking in the build's own process (see `WORKER_AFTER_SECONDS`)."""
        self.expected_bytes: int | None = None
        """Bytes of page sources the engine said it will render (see `expect`)."""

    def expect(self, source_bytes: int) -> None:
        """Say, before the first page, how many bytes of page sources the engine will render.
        Where that repays a worker (`WORKER_FOR_BYTES`) and mdchunk chooses the workers, the
        first page to chunk starts one, and every page to chunk goes to it while it loads:
        none is chunked in the engine's process."""
        self.expected_bytes = source_bytes

    def now(self) -> int:
        """How many workers to start before the next page (0: chunk it in this process)."""
        if self.workers is not None:
            return self.workers
        return 1 if self._pays() else 0

    def _pays(self) -> bool:
        """Whether a worker pays for itself: a second core is free, and the engine said it
        renders enough (`expect`) or, where it did not, chunking here has taken longer than
        starting a worker would."""
        if available_cores() < 2:
            return False
        if self.expected_bytes is not None and self.expected_bytes >= WORKER_FOR_BYTES:
            return True
        return self.inline_seconds > WORKER_AFTER_SECONDS


def available_cores() -> int:
    """The cores this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1


@dataclasses.dataclass(frozen=True, slots=True)
class SentPage:
    """A page as it goes to a worker process: the fields of its `PageInput`, its HTML as UTF-8.

    Pickling a non-ASCII str leaves a UTF-8 copy of it cached inside the str for as long as the
    str lives, and engines keep every page's HTML to the end of the build: the HTML is encoded
    into bytes of their own, gone once the page is sent, and the engine's str is never pickled.
    The other fields are those of `PageInput`.
    """

    html: bytes
    """The page body HTML, UTF-8 (lone surrogates kept: `surrogatepass`)."""
    source_path: str
    url: str
    title: str
    meta: Mapping[str, Any]

    @classmethod
    def of(cls, page: PageInput) -> SentPage:
        """`page` as it is sent."""
        return cls(html=page.html.encode("utf-8", "surrogatepass"), source_path=page.source_path,
                   url=page.url, title=page.title, meta=page.meta)

    def page(self) -> PageInput:
        """The page as the build's process gave it."""
        return PageInput(html=self.html.decode("utf-8", "surrogatepass"),
                         source_path=self.source_path, url=self.url, title=self.title,
                         meta=self.meta)


class WorkerPool:
    """Chunks pages in worker processes; results come back as futures of `PageOutput`s."""

    def __init__(self, settings: JobSettings, *, workers: int = 1) -> None:
        self.settings = settings
        self.workers = workers
        self.max_in_flight = 16 * workers
        """How many pages may wait for a worker: `submit` waits for the oldest beyond that, so
        a worker slower than the engine does not leave every waiting page's HTML queued here."""
        self._in_flight: collections.deque[Future[PageOutput]] = collections.deque()
        self._pool: ProcessPoolExecutor | None = None
        self._ready: Future[str] | None = None
        self._stopping: threading.Thread | None = None
        """The thread that waits for the workers of a `close(wait=False)` to exit."""

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # Imported here: a build that starts no worker (an unchanged site, a small one
            # chunked inline) loads none of multiprocessing.
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_initialize, initargs=(self.settings,))
        return self._pool

    @property
    def ready(self) -> Future[str]:
        """Done when a worker has loaded the tokenizer, with the name of its token counter; its
        exception says why it cannot be (asking starts the workers)."""
        if self._ready is None:
            with _main_module_hidden():
                self._ready = self._executor().submit(_load)
        return self._ready

    @property
    def counter(self) -> str | None:
        """The name of the workers' token counter once they loaded it, else None (asking starts
        nothing)."""
        ready = self._ready
        if ready is None or not ready.done() or ready.exception() is not None:
            return None
        return ready.result()

    def submit(self, page: PageInput, key: str, site_url: str, *,
               markdown_path: str | None = None) -> Future[PageOutput]:
        """Chunk `page` in a worker (`PageJob.run`), which keeps it in the cache under `key`;
        the result holds its counts (`PageOutput.without_content`), or the whole page where the
        cache could not keep it."""
        self.ready  # noqa: B018 - asking for it starts the workers
        self._wait_for_room()
        with _main_module_hidden():  # a worker may be started by this submit
            future = self._executor().submit(_chunk, SentPage.of(page), key, site_url,
                                             markdown_path)
        self._in_flight.append(future)
        return future

    def notice(self, prints: list[list[str]]) -> None:
        """Add the prints of pages chunked elsewhere (`ChunkPrint.as_json`) to the worker's
        duplicate search, after those of the pages submitted before (one worker only)."""
        with _main_module_hidden():
            self._executor().submit(_notice, prints)

    def take_marks(self) -> Future[dict[str, Duplicate]]:
        """The marks of the worker's duplicate search over every print it was given since the
        last call, in order (one worker only), which starts afresh."""
        with _main_module_hidden():
            return self._executor().submit(_take_marks)

    def find_duplicates(self, prints: list[list[str]]) -> Future[dict[str, Duplicate]]:
        """Find the duplicate chunks among `prints` (`ChunkPrint.as_json`, in the index's
        order) in a worker (`mdchunk.outputs.duplicates.find_duplicates`)."""
        with _main_module_hidden():
            return self._executor().submit(find_duplicates_in, prints)

    def _wait_for_room(self) -> None:
        in_flight = self._in_flight
        while in_flight and in_flight[0].done():
            in_flight.popleft()
        while len(in_flight) >= self.max_in_flight:
            concurrent.futures.wait([in_flight.popleft()])

    def close(self, *, wait: bool = True) -> None:
        """Stop the workers (pages already submitted are still chunked). Without `wait`, return
        at once while they finish and exit; a later `close` waits for them. A page submitted
        after it starts new workers."""
        pool, self._pool, self._ready = self._pool, None, None
        if pool is not None:
            self._stopping = threading.Thread(target=pool.shutdown, name="mdchunk-workers-exit")
            self._stopping.start()
        if wait and self._stopping is not None:
            self._stopping.join()
            self._stopping = None


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start workers without re-running the caller's main script.

    `spawn` re-imports the parent's `__main__` in each worker, so a build script without an
    `if __name__ == "__main__":` guard would build again in the worker. The workers need
    nothing from it: while they start, `__main__` names no file or module.
    """
    main = sys.modules.get("__main__")
    saved: dict[str, object] = {name: main.__dict__[name] for name in ("__file__", "__spec__")
                                if main is not None and name in main.__dict__}
    try:
        for name in saved:
            if name == "__file__":
                del main.__dict__[name]
            else:
                main.__dict__[name] = None
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


@dataclasses.dataclass
class _Worker:
    """What a worker process holds: its job, and the duplicate search over the prints of the
    pages it was given, in the order it was given them (one worker is given every page)."""

    job: PageJob
    finder: DuplicateFinder = dataclasses.field(default_factory=DuplicateFinder)

    def notice(self, prints: Iterable[Sequence[str]]) -> None:
        """Add the prints (`ChunkPrint.as_json`) to the search, in order."""
        for value in prints:
            self.finder.add_json(value)


_worker: _Worker | None = None
"""The worker process's own state (set by `_initialize`, in the worker only)."""


def _initialize(settings: JobSettings) -> None:
    global _worker  # noqa: PLW0603 - the worker process's own state
    # Quiet: a folder that cannot be written is reported once, by the build's process.
    _worker = _Worker(PageJob(settings, PageCache(settings.cache, settings.fingerprint,
                                                  log=_quiet_log())))
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """End this worker when the build that started it is gone (killed, not shut down): a
    worker waiting on its queue would otherwise wait forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _state() -> _Worker:
    assert _worker is not None, "the worker was not initialized"
    return _worker


def _load() -> str:
    """Load the tokenizer (raises `TokenizerError` with the fix when it cannot); return the
    name of the counter that counts."""
    return _state().job.load()


def _chunk(sent: SentPage, key: str, site_url: str, markdown_path: str | None) -> PageOutput:
    worker = _state()
    output = worker.job.run(sent.page(), key, site_url, markdown_path=markdown_path)
    worker.notice(output.prints)
    return output


def _notice(prints: list[list[str]]) -> None:
    _state().notice(prints)


def _take_marks() -> dict[str, Duplicate]:
    worker = _state()
    marks, worker.finder = worker.finder.marks, DuplicateFinder()
    return marks


def _quiet_log() -> logging.Logger:
    log = logging.getLogger("mdchunk.session.workers.quiet")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log
