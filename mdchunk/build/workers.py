"""Chunking in a worker process while the engine renders the next pages.

MkDocs renders pages one after the other on one core. Handing each rendered page to a worker
process puts the chunking (HTML walk, packing, token counts, and loading the tokenizer) on
another core: the build waits only for what is left when the last page is rendered. The
workers also make each page's records in every output format (`mdchunk.outputs.pages`) and keep
them in the page cache, so the build's own process only reads them back while it writes the
index. On one core there is nothing to gain, and pages are chunked inline.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from mdchunk.options import ChunkOptions
from mdchunk.build.store import PageCache
from mdchunk.outputs.pages import OutputSettings, PageOutput, page_output
from mdchunk.chunking import Chunker, PageInput
from mdchunk.tokens import counter_name, token_counter

_Settings = tuple[ChunkOptions, str, str, OutputSettings]

CacheSlot = tuple[Path, str, str]
"""Where a worker keeps a chunked page: page cache folder, its settings, the page's key."""

# The worker's own state: set by the initializer, in the worker process only.
_settings: _Settings | None = None
_chunker: Chunker | None = None
_caches: dict[tuple[Path, str], PageCache] = {}
_QUIET = logging.getLogger("mdchunk.build.workers.quiet")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def default_workers() -> int:
    """One worker where a second core is free, else none (chunk inline)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 1 if (cores or 1) > 1 else 0


class BackgroundChunker:
    """Chunks pages in worker processes; results come back as futures.

    The workers are started with `spawn` (no fork of a process that may run threads, such as
    `mkdocs serve`), load the tokenizer themselves, and give the same chunks as `Chunker`
    would inline: the options, site url and build time are the caller's.
    """

    def __init__(self, options: ChunkOptions, *, site_url: str = "", processed_at: str,
                 output: OutputSettings, workers: int = 1, max_in_flight: int = 16) -> None:
        self.options = options
        self.max_in_flight = max_in_flight
        """How many pages may wait for a worker: `submit` waits for the oldest beyond that."""
        self._in_flight: collections.deque[Future[PageOutput]] = collections.deque()
        self._settings: _Settings = (options, site_url, processed_at, output)
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._ready: Future[str] | None = None

    def _executor(self) -> ProcessPoolExecutor:
        """The worker pool, made with the first page: making one starts multiprocessing's
        resource tracker (a process of 13 MiB), which a build whose pages all come from a
        cache does not need."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_initialize,
                initargs=(self._settings,),
            )
        return self._pool

    @property
    def ready(self) -> Future[str]:
        """Done when the workers' tokenizer is loaded, with the name of their token counter
        (`tokens.counter_name`); its exception says why it cannot be.

        The workers start with the first page to chunk, not before: a build whose pages all
        come from a cache starts no process and loads no tokenizer.
        """
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

    def start(self) -> None:
        """Start the workers now (loading the tokenizer) rather than with the first page."""
        self.ready  # noqa: B018 - asking for it starts the workers

    def submit(self, page: PageInput, cache: CacheSlot | None = None) -> Future[PageOutput]:
        """Chunk `page` in a worker; the result holds its records. With `cache`, the worker
        keeps the page in that page cache and the result holds only its counts and warnings
        (`PageOutput.without_content`): the build's own process reads the rest back when it
        writes the index, and never holds every page's records at once."""
        self.start()
        self._wait_for_room()
        # Sent as bytes: pickling a non-ASCII str leaves a UTF-8 copy of it cached inside the
        # str for as long as it lives, and MkDocs keeps every page's HTML to the end of the
        # build (7 MiB more for two copies of the Node.js docs with Material, 129 pages).
        html = page.html.encode("utf-8", "surrogatepass")
        with _main_module_hidden():  # a worker may be started by this submit
            future = self._executor().submit(
                _chunk, dataclasses.replace(page, html=""), html, cache)
        self._in_flight.append(future)
        return future

    def _wait_for_room(self) -> None:
        """Wait while `max_in_flight` pages are waiting: a worker slower than the engine (its
        core busy with other work) would otherwise leave the HTML of every waiting page queued
        in this process (70 KB a page on average in the Node.js docs). When the worker keeps up,
        nothing waits here: none of the 64 submits of a Node.js-docs build waited 1 ms."""
        in_flight = self._in_flight
        while in_flight and in_flight[0].done():
            in_flight.popleft()
        while len(in_flight) >= self.max_in_flight:
            concurrent.futures.wait([in_flight.popleft()])

    def close(self) -> None:
        """Stop the workers (pending pages are still chunked)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=False)


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start workers without re-running the caller's main script.

    `spawn` re-imports the parent's `__main__` in each worker, so a build script without an
    `if __name__ == "__main__":` guard would build again in the worker. The workers need
    nothing from it: while they start, `__main__` names no file or module.
    """
    main = sys.modules.get("__main__")
    saved = {name: main.__dict__[name] for name in ("__file__", "__spec__")
             if main is not None and name in main.__dict__}
    try:
        for name in saved:
            if name == "__file__":
                del main.__dict__[name]  # type: ignore[union-attr]
            else:
                main.__dict__[name] = None  # type: ignore[union-attr]
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


def _initialize(settings: _Settings) -> None:
    global _settings  # noqa: PLW0603 - the worker process's own state
    _settings = settings
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """End this worker when the build that started it is gone (killed, not shut down): a
    worker waiting on its queue would otherwise wait forever."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _worker_chunker() -> Chunker:
    global _chunker  # noqa: PLW0603 - the worker process's own state
    if _chunker is None:
        assert _settings is not None, "the worker was not initialized"
        options, site_url, processed_at, _ = _settings
        _chunker = Chunker(options, counter=token_counter(options.encoding),
                           site_url=site_url, processed_at=processed_at)
    return _chunker


def _load() -> str:
    """Load the tokenizer (raises `TokenizerError` with the fix when it cannot); return the
    name of the counter that counts."""
    chunker = _worker_chunker()
    return counter_name(chunker.options.encoding)


def _chunk(page: PageInput, html: bytes, cache: CacheSlot | None) -> PageOutput:
    page = dataclasses.replace(page, html=html.decode("utf-8", "surrogatepass"))
    chunker = _worker_chunker()
    assert _settings is not None
    output = page_output(chunker.chunk_page(page), _settings[3], chunker.timer)
    if cache is None:
        return output
    began = time.perf_counter()
    folder, settings, key = cache
    if (folder, settings) not in _caches:
        # Quiet: a folder that cannot be written is reported once, by the build's process.
        _caches[folder, settings] = PageCache(folder, settings, log=_QUIET)
    page_cache = _caches[folder, settings]
    page_cache.put(key, output)
    if page_cache.known(key):  # kept: the build's process reads it back when writing the index
        output = output.without_content()
    timings = {**output.timings, "write": time.perf_counter() - began}
    return dataclasses.replace(output, timings=timings)
