"""Worker processes that chunk pages for a build session while the engine renders the next ones.

MkDocs renders pages one after the other on one core; `mdchunk site` and `mdchunk chunk` read
pages faster than one core chunks them. Handing each page to a worker process puts the chunking
(HTML walk, packing, token counts, records in every format, and loading the tokenizer) on
another core. A worker keeps each page it chunked in the build's page cache and returns only its
counts: the build's own process reads the records back while it writes the index.

A worker is a plain child process (`sys.executable`), not a fork of a process that may run
threads (`mkdocs serve`) nor a `multiprocessing` one: it re-runs no `__main__`, and needs no
third process (`multiprocessing`'s resource tracker) nor its machinery. It talks to the build
over its stdin and stdout (`mdchunk.session.worker_process`), imports the build's mdchunk (it
is handed the build's `sys.path` first), loads the tokenizer as soon as it starts, and chunks
each page as the build's own process does: it only calls the build's one way of chunking a
page (`mdchunk.session.page_job.PageJob.run`) with the caller's settings. It ends when the
build closes its stdin, or when the build is gone.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import os
import pickle
import signal
import sys
import threading
from concurrent.futures import Future
from typing import Any

from mdchunk.chunking import PageInput
from mdchunk.errors import MdChunkError
from mdchunk.outputs.duplicates import Duplicate
from mdchunk.outputs.pages import PageOutput
from mdchunk.session.page_job import JobSettings
from mdchunk.session.worker_process import BOOTSTRAP, SentPage, path_frame, read_frame, write_frame

WORKER_AFTER_SECONDS = 0.25
"""Seconds of chunking in the build's own process after which a worker process is started,
when the number of workers is left to mdchunk and the engine did not say how much it will
render: starting one (a process that imports mdchunk and loads the tokenizer) costs about that
much, more than a small site's whole chunking."""

WORKER_FOR_BYTES = 16 * 1024
"""Bytes of page sources from which a worker is started at the first page to chunk, when the
engine said how much it will render (`WorkerStart.expect`): the worker loads the chunking code
and the token counter while the engine renders, and no page is chunked in the engine's process.
Below that, the few pages cost the engine's process about what waiting, at the end, for a worker
still loading costs."""


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
        starting a worker would.

        On one core a worker would only take turns with the engine: the build takes longer,
        and the two processes together hold more memory than the engine's process chunking
        alone (though the engine's own process then holds less)."""
        if available_cores() < 2:
            return False
        if self.expected_bytes is not None and self.expected_bytes >= WORKER_FOR_BYTES:
            return True
        return self.inline_seconds > WORKER_AFTER_SECONDS


def available_cores() -> int:
    """The cores this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1



class WorkerEndedError(MdChunkError):
    """A worker process ended while it had pages to chunk (killed, out of memory, crashed):
    those pages were not chunked, and the build stops naming what happened."""


class WorkerError(Exception):
    """An error raised in a worker process, as its traceback there: the cause of that error
    as the build's process raises it."""


class WorkerPool:
    """Chunks pages in worker processes; results come back as futures of `PageOutput`s."""

    def __init__(self, settings: JobSettings, *, workers: int = 1) -> None:
        self.settings = settings
        self.workers = workers
        self.max_in_flight = 16 * workers
        """How many pages may wait for a worker: `submit` waits for the oldest beyond that, so
        a worker slower than the engine does not leave every waiting page's HTML queued here."""
        self._in_flight: collections.deque[Future[PageOutput]] = collections.deque()
        self._processes: list[WorkerProcess] = []
        self._closing: list[WorkerProcess] = []
        """Workers told to stop that a `close` has not waited for yet."""
        self._lost: WorkerEndedError | None = None
        """Why the worker that held the duplicate search ended, until `take_marks` says so."""

    def _started(self) -> list[WorkerProcess]:
        """The workers, started where there are none (or one of them ended: they start
        afresh, and the pages the one that ended had say so)."""
        gone = [process.gone for process in self._processes if process.gone is not None]
        if gone:
            self._lost = gone[0]
            self.close(wait=False)
        if not self._processes:
            self._processes = [WorkerProcess(self.settings) for _ in range(self.workers)]
        return self._processes

    @property
    def ready(self) -> Future[str]:
        """Done when a worker has loaded the tokenizer, with the name of its token counter; its
        exception says why it cannot be (asking starts the workers)."""
        return self._started()[0].loaded

    @property
    def counter(self) -> str | None:
        """The name of the workers' token counter once they loaded it, else None (asking starts
        nothing)."""
        if not self._processes:
            return None
        ready = self._processes[0].loaded
        if not ready.done() or ready.exception() is not None:
            return None
        return ready.result()

    def submit(self, page: PageInput, key: str, site_url: str, *,
               markdown_path: str | None = None) -> Future[PageOutput]:
        """Chunk `page` in a worker (`PageJob.run`), which keeps it in the cache under `key`;
        the result holds its counts (`PageOutput.without_content`), or the whole page where the
        cache could not keep it."""
        processes = self._started()
        self._wait_for_room()
        process = min(processes, key=WorkerProcess.waiting)
        future: Future[PageOutput] = process.ask(
            "chunk", (SentPage.of(page), key, site_url, markdown_path),
            doing=f"chunking {page.source_path}", page=page.source_path)
        self._in_flight.append(future)
        return future

    def notice(self, prints: list[list[str]]) -> None:
        """Add the prints of pages chunked elsewhere (`ChunkPrint.as_json`) to the worker's
        duplicate search, after those of the pages submitted before (one worker only)."""
        self._started()[0].ask("notice", (prints,), doing="adding prints to its search")

    def take_marks(self) -> Future[dict[str, Duplicate]]:
        """The marks of the worker's duplicate search over every print it was given since the
        last call, in order (one worker only), which starts afresh. Where the worker that was
        given them ended, the marks fail with why (`WorkerEndedError`)."""
        taken: Future[dict[str, Duplicate]] = self._started()[0].ask(
            "take_marks", (), doing="searching duplicates")
        if self._lost is None:
            return taken
        lost: Future[dict[str, Duplicate]] = Future()
        lost.set_exception(self._lost)
        self._lost = None
        return lost

    def find_duplicates(self, prints: list[list[str]]) -> Future[dict[str, Duplicate]]:
        """Find the duplicate chunks among `prints` (`ChunkPrint.as_json`, in the index's
        order) in a worker (`mdchunk.outputs.duplicates.find_duplicates`)."""
        process = min(self._started(), key=WorkerProcess.waiting)
        return process.ask("find_duplicates", (prints,), doing="searching duplicates")

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
        for process in self._processes:
            process.close()
        self._closing = [process for process in self._closing if not process.ended()]
        self._closing.extend(self._processes)
        self._processes = []
        if wait:
            for process in self._closing:
                process.join()
            self._closing = []


class WorkerProcess:
    """One worker process (`mdchunk.session.worker_process`), as the build's process sees it.

    It is a child process of the build's (`sys.executable`), sent frames over its stdin and
    answering each request over its stdout, in order. Two threads of the build's process serve
    it: one writes the requests (a page waits there while the worker chunks the one before,
    not the engine), one reads the answers into their futures. Where the worker ends, every
    request it had not answered fails with `WorkerEndedError`, naming what it was doing; a worker
    whose build is gone (killed) reads the end of its stdin and ends.
    """

    def __init__(self, settings: JobSettings) -> None:
        # Imported here: a build that starts no worker (an unchanged site, a small one
        # chunked inline) loads neither.
        import queue
        import subprocess

        self.process = subprocess.Popen([sys.executable, "-c", BOOTSTRAP],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.gone: WorkerEndedError | None = None
        """Why the worker ended (None while it runs)."""
        self._lock = threading.Lock()
        self._asked: collections.deque[tuple[Future[Any], str, str | None]] = (
            collections.deque())
        """The requests sent and not answered, with what the worker does for each and the
        page it chunks (None: not a page)."""
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._outbox.put(path_frame(sys.path))
        self.loaded: Future[str] = self._send(pickle.dumps(settings, pickle.HIGHEST_PROTOCOL),
                                              "loading the tokenizer")
        """Done when the worker loaded the tokenizer, with the name of its counter."""
        self._writer = threading.Thread(target=self._write, name="mdchunk-worker-requests",
                                        daemon=True)
        self._reader = threading.Thread(target=self._read, name="mdchunk-worker-answers",
                                        daemon=True)
        self._writer.start()
        self._reader.start()

    def waiting(self) -> int:
        """How many requests the worker has not answered yet."""
        return len(self._asked)

    def ask(self, name: str, arguments: tuple[Any, ...], *, doing: str,
            page: str | None = None) -> Future[Any]:
        """Call `WorkerState.<name>(*arguments)` in the worker; `doing` says what it does, and
        `page` which page it chunks, for the message where it ends before it answers."""
        try:
            request = pickle.dumps((name, arguments), pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # noqa: BLE001 - the future says why
            future: Future[Any] = Future()
            future.set_exception(error)
            return future
        return self._send(request, doing, page)

    def _send(self, request: bytes, doing: str, page: str | None = None) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()  # (an answer always comes: none is cancelled)
        with self._lock:
            if self.gone is None:
                self._asked.append((future, doing, page))
                self._outbox.put(request)
                return future
        future.set_exception(self.gone)
        return future

    def _write(self) -> None:
        """Write each request to the worker, in order, until `close`; then close its stdin."""
        stream = self.process.stdin
        assert stream is not None
        try:
            while (request := self._outbox.get()) is not None:
                write_frame(stream, request)
        except OSError:
            pass  # the worker is gone: its answers' reader says why
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def _read(self) -> None:
        """Settle each request's future with its answer, in order, until the worker ends."""
        stream = self.process.stdout
        assert stream is not None
        skip = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None
        stray = None
        try:  # (what the interpreter's start printed before the first answer goes to stderr)
            while (answer := read_frame(stream, skip=skip)) is not None:
                skip = None
                with self._lock:
                    future = self._asked.popleft()[0]
                _settle(future, answer)
        except ValueError as error:
            self.process.kill()
            stray = f"wrote {error} to the stream of its answers, and was stopped"
        stream.close()
        self._end(self.process.wait(), stray)

    def _end(self, status: int, stray: str | None = None) -> None:
        """Fail what the worker was asked and did not answer, saying why (`stray`: it wrote
        something else than answers)."""
        with self._lock:
            asked, self._asked = list(self._asked), collections.deque()
            self.gone = WorkerEndedError(_gone_message(self.process.pid, stray or _ending(status),
                                                       asked))
        for future, _, _ in asked:
            future.set_exception(self.gone)

    def close(self) -> None:
        """Tell the worker to end once it has answered what it was asked."""
        self._outbox.put(None)

    def ended(self) -> bool:
        """Whether the worker has ended and its answers are all read."""
        return not self._reader.is_alive()

    def join(self) -> None:
        """Wait for the worker to end (after `close`)."""
        self._reader.join()


def _settle(future: Future[Any], answer: bytes) -> None:
    """Set `future` from a worker's answer (see `mdchunk.session.worker_process`)."""
    try:
        done, *rest = pickle.loads(answer)
    except Exception as error:  # noqa: BLE001 - the future says why
        future.set_exception(error)
        return
    if done:
        future.set_result(rest[0])
    else:
        future.set_exception(_raised(*rest))


def _raised(pickled: bytes | None, message: str, text: str) -> BaseException:
    """The error a worker's call raised (see `mdchunk.session.worker_process.failure`), its
    traceback there as its cause: itself where it comes back from pickling, else an
    `MdChunkError` with its message."""
    raised: BaseException = MdChunkError(message)
    if pickled is not None:
        with contextlib.suppress(Exception):
            raised = pickle.loads(pickled)
    raised.__cause__ = WorkerError(text)
    return raised


def _gone_message(pid: int, ending: str,
                  asked: list[tuple[Future[Any], str, str | None]]) -> str:
    """What to say of a worker process that ended (`ending`: how) before answering `asked`."""
    doing = f" while {asked[0][1]}" if asked else ""
    pages = [page for _, _, page in asked if page is not None]
    lost = f"; {_listed(pages)} not chunked" if pages else ""
    return (f"the worker process that chunks pages (pid {pid}) {ending}{doing}"
            f"{lost}. Build again, or set the option 'workers' to 0 to chunk pages in the "
            "build's own process")


def _listed(pages: list[str], most: int = 3) -> str:
    """`pages` named, the first `most` of them."""
    named = ", ".join(pages[:most])
    more = f" and {len(pages) - most} more" if len(pages) > most else ""
    return f"{'page' if len(pages) == 1 else 'pages'} {named}{more}"


def _ending(status: int) -> str:
    """How a worker process ended, from its exit status (`Popen.returncode`)."""
    if status >= 0:
        return f"ended (exit status {status})"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = f"signal {-status}"
    if name == "SIGKILL":
        return f"was killed ({name}: out of memory, or killed by hand)"
    return f"was killed ({name})"
