"""The worker process's side of `mdchunk.session.workers`: a plain child process of the build
that chunks the pages the build sends it over its stdin and answers over its stdout.

The build starts it as `python -c BOOTSTRAP` and sends it, in order, frames (`write_frame`:
`FRAME_MARK`, an 8-byte big-endian length, then that many bytes):

1. the build's `sys.path`, UTF-8, entries separated by NUL, read before anything of mdchunk
   is imported: the worker imports the same mdchunk as the build, wherever the build found it
   (`PYTHONPATH`, a Sphinx conf.py that inserts a folder into the path);
2. the build's `JobSettings`, pickled: the worker loads its chunker and token counter at once
   and answers the counter's name, its first answer;
3. requests, each a pickled `(name, arguments)`: a method of `WorkerState` to call. Each gets
   one answer, in the order they came: a pickled `(True, result)`, or `(False, error,
   message, traceback)` where the call raised (`error` pickled, None where it does not come
   back from pickling).

The worker ends when its stdin ends: the build closed it (the requests before are answered),
or the build is gone, killed included. Nothing but answers goes to the build: the worker's fd 1
is pointed at its stderr before anything is imported, so that what a library prints goes there.
What the interpreter's own start printed before that (a `sitecustomize` module, a `.pth` file)
precedes the first answer: the build passes it on to its stderr (`read_frame`'s `skip`).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

from mdchunk.chunking.model import PageInput
from mdchunk.errors import MdChunkError
from mdchunk.outputs.duplicates import Duplicate, DuplicateFinder, find_duplicates_in
from mdchunk.outputs.pages import PageOutput
from mdchunk.session.cache import PageCache
from mdchunk.session.page_job import JobSettings, PageJob

BOOTSTRAP = """\
import os, sys
requests, replies = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
os.dup2(2, 1)
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
size = int.from_bytes(requests.read(12)[4:], "big")
if not size:
    sys.exit(0)
sys.path[:] = requests.read(size).decode("utf-8", "surrogateescape").split("\\0")
from mdchunk.session.worker_process import serve
serve(requests, replies)
"""
"""What the worker runs (`python -c`): it keeps its stdin and stdout for the build's frames,
points fd 1 at stderr and fd 0 at the null device, takes the build's `sys.path`, and serves.
Only `os` and `sys`, loaded at every interpreter's start, are imported before the path is set."""

FRAME_MARK = b"mdcf"
"""How every frame begins: a stream where something else comes is not only frames."""

FRAME_LENGTH = 8
"""Bytes of a frame's length, after its mark."""


def write_frame(stream: IO[bytes], data: bytes) -> None:
    """Write `data` as one frame (its mark and length first) and flush it."""
    stream.write(FRAME_MARK + len(data).to_bytes(FRAME_LENGTH, "big"))
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes], *, skip: IO[bytes] | None = None) -> bytes | None:
    """The next frame's bytes; None where the stream ends (within a frame too: the writer is
    gone). With `skip`, what comes before the frame's mark is copied there; without it, a
    stream that holds something else than a frame raises `ValueError`, naming it."""
    mark = stream.read(len(FRAME_MARK))
    if skip is not None:
        while mark != FRAME_MARK and (byte := stream.read(1)):
            skip.write(mark[:1])
            mark = mark[1:] + byte
        if mark != FRAME_MARK:
            skip.write(mark)
        skip.flush()
    if len(mark) < len(FRAME_MARK) or (skip is not None and mark != FRAME_MARK):
        return None
    if mark != FRAME_MARK:
        raise ValueError(f"{mark + stream.read(36)!r} (not a frame)")
    size = int.from_bytes(stream.read(FRAME_LENGTH), "big")
    data = stream.read(size)
    return data if len(data) == size else None


def path_frame(path: Iterable[object]) -> bytes:
    """The frame of `sys.path` the worker reads first (entries that are not paths left out)."""
    return "\0".join(os.fsdecode(entry) for entry in path
                     if isinstance(entry, (str, bytes, os.PathLike))).encode(
        "utf-8", "surrogateescape")


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


@dataclasses.dataclass
class WorkerState:
    """What a worker process holds: its job, and the duplicate search over the prints of the
    pages it was given, in the order it was given them (one worker is given every page). Its
    methods are what the build can ask of the worker."""

    job: PageJob
    finder: DuplicateFinder = dataclasses.field(default_factory=DuplicateFinder)

    @classmethod
    def of(cls, settings: JobSettings) -> WorkerState:
        """The state of a worker chunking with `settings`."""
        # Quiet: a folder that cannot be written is reported once, by the build's process.
        return cls(PageJob(settings, PageCache(settings.cache, settings.fingerprint,
                                               log=_quiet_log())))

    def load(self) -> str:
        """Load the tokenizer (raises `TokenizerError` with the fix when it cannot); return the
        name of the counter that counts."""
        return self.job.load()

    def chunk(self, sent: SentPage, key: str, site_url: str,
              markdown_path: str | None) -> PageOutput:
        """Chunk a page (`PageJob.run`) and add its prints to the duplicate search."""
        output = self.job.run(sent.page(), key, site_url, markdown_path=markdown_path)
        self.notice(output.prints)
        return output

    def notice(self, prints: Iterable[Sequence[str]]) -> None:
        """Add the prints (`ChunkPrint.as_json`) to the search, in order."""
        for value in prints:
            self.finder.add_json(value)

    def take_marks(self) -> dict[str, Duplicate]:
        """The marks of the search so far, which starts afresh."""
        marks, self.finder = self.finder.marks, DuplicateFinder()
        return marks

    def find_duplicates(self, prints: list[list[str]]) -> dict[str, Duplicate]:
        """The duplicate chunks among `prints` (`find_duplicates_in`), a search of its own."""
        return find_duplicates_in(prints)


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """Answer the build's frames until its stream ends, then end the process (see the module's
    docstring). Ctrl-C is the build's to handle: the worker ends when the build closes it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(requests, replies)
    except BrokenPipeError:
        pass  # the build is gone: nobody is left to answer
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        # Nothing is left to finalize: every page's files and cache entry are written.
        os._exit(0)


def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    settings = read_frame(requests)
    if settings is None:
        return
    try:
        state = WorkerState.of(pickle.loads(settings))
    except Exception as error:  # noqa: BLE001 - the build's first answer says why
        write_frame(replies, failure(error))
        return
    _answer(replies, state.load)
    while (request := read_frame(requests)) is not None:
        _answer(replies, functools.partial(_call, state, request))


def _call(state: WorkerState, request: bytes) -> Any:
    """Unpickle a request and run it."""
    name, arguments = pickle.loads(request)
    return getattr(state, name)(*arguments)


def _answer(replies: IO[bytes], call: Callable[[], Any]) -> None:
    """Run `call` and send what it returned, or the error it raised."""
    try:
        answer = pickle.dumps((True, call()), pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # noqa: BLE001 - every error goes to the build
        answer = failure(error)
    write_frame(replies, answer)


def failure(error: BaseException) -> bytes:
    """The answer that carries `error`: pickled where it comes back from pickling (an error
    whose constructor takes other arguments than its message does not), with its message
    and traceback in any case."""
    message = str(error) if isinstance(error, MdChunkError) else (
        f"{type(error).__name__}: {error}")
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return pickle.dumps((False, _pickled(error), message, text), pickle.HIGHEST_PROTOCOL)


def _pickled(error: BaseException) -> bytes | None:
    """`error` pickled, where it comes back from pickling (else None)."""
    try:
        pickled = pickle.dumps(error, pickle.HIGHEST_PROTOCOL)
        pickle.loads(pickled)
    except Exception:  # noqa: BLE001 - the message says it
        return None
    return pickled


def _quiet_log() -> logging.Logger:
    log = logging.getLogger("mdchunk.session.workers.quiet")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log
