"""The `pagefind` output: a Pagefind search bundle with one record per section, in the site.

Pagefind indexes pages; mdchunk gives it sections. The records (`mdchunk.outputs.profiles.pagefind`,
made where each page is chunked) are fed at the end of the build to Pagefind's binary, run as
a service (`_PagefindService`; `pip install 'mdchunk[pagefind]'` brings the binary as a wheel
and Pagefind's Python package, which finds it), which indexes them and hands back the bundle's
files: its index, `pagefind.js` (the search API) and `pagefind-ui.js` / `.css` (its search UI).

- **Atomic.** Pagefind hands the bundle's files over, and mdchunk writes them into a
  temporary folder beside the target, then swaps it in (`replace_folder`): a failed Pagefind
  run leaves the previous bundle in place.
- **Checked at startup.** `require_pagefind` imports the package and runs the binary's
  `--version` once per process, so that a missing package or a binary that cannot run stops a
  build before any page is chunked, naming the extra to install.
- **Inside the site.** The bundle's folder (`pagefind` by default) is a path inside the site,
  and a folder that holds anything but a Pagefind bundle (a theme's `assets/`) is never
  replaced.
- **A search page.** `write_search_page` writes `_mdchunk/search.html`: Pagefind's own UI over
  the bundle, for sites without a search of their own (or whose search finds pages, not
  sections); `?q=words` opens it with a search.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import html
import itertools
import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

from mdchunk.errors import PagefindError
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.writers import replace_folder, write_text
from mdchunk.settings import SEARCH_PAGE, PagefindSettings

EXTRA = "mdchunk[pagefind]"
"""What to install for this output."""
BUNDLE_ENTRY = "pagefind-entry.json"
"""The file every Pagefind bundle holds: a folder without it is no bundle."""
RECORDS_PER_BATCH = 512
"""Records sent to Pagefind before waiting for its answers (bounds what waits in memory)."""
_SAID_AT_MOST = 2000
"""Characters of the binary's own output kept for an error message."""
_READ_SIZE = 1 << 20
"""Bytes read from the binary at a time."""


UNKNOWN_LANGUAGE = "unknown"
"""The language of a record whose page and site name none (Pagefind's own word)."""


def record_language(front_matter: Mapping[str, Any], site_language: str | None) -> str:
    """The page's language as Pagefind names its indexes: lower case, `-` between the parts
    (`pt_BR` becomes `pt-br`); `unknown` when neither the page nor the site says."""
    for value in (front_matter.get("language"), front_matter.get("lang"), site_language):
        if isinstance(value, str) and value.strip():
            return value.strip().lower().replace("_", "-")
    return UNKNOWN_LANGUAGE


def require_pagefind() -> Path:
    """Pagefind's binary, once its `--version` ran (checked once per process and binary).

    Raises:
        PagefindError: the package is not installed, it finds no binary, or the binary
            cannot run; the message names the extra to install.
    """
    try:
        from pagefind.service import get_executable
    except ImportError as error:
        raise PagefindError(f"the pagefind format needs Pagefind's Python package, which is "
                            f"not installed ({error}): pip install '{EXTRA}'") from error
    binary = get_executable()
    if binary is None:
        raise PagefindError(
            "the pagefind format needs Pagefind's binary, which the pagefind package cannot "
            f"find (no pagefind_bin package, no pagefind on PATH): pip install '{EXTRA}' "
            "installs it, or set PAGEFIND_BINARY_PATH")
    return _checked_binary(str(binary))


@functools.lru_cache(maxsize=8)
def _checked_binary(binary: str) -> Path:
    """`binary`, once `binary --version` succeeded."""
    try:
        subprocess.run([binary, "--version"], capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise PagefindError(
            f"Pagefind's binary {binary} cannot run ({_reason(error)}): pip install '{EXTRA}' "
            "installs one for this machine, or set PAGEFIND_BINARY_PATH to one that runs"
        ) from error
    return Path(binary)


def _reason(error: BaseException) -> str:
    """What went wrong, in one line (with the program's own words when it said any)."""
    said = getattr(error, "stderr", None) or getattr(error, "stdout", None) or b""
    text = said.decode(errors="replace").strip() if isinstance(said, bytes) else str(said)
    return f"{error}: {text.splitlines()[-1]}" if text else str(error)


# -- the bundle -------------------------------------------------------------------------------


def write_bundle(folder: Path, records: Iterable[Record]) -> int:
    """Index `records` (`mdchunk.outputs.profiles.pagefind`) with Pagefind and put the bundle in
    `folder`, atomically; return the number of records.

    Pagefind hands the bundle's files over (`GetFiles`) and mdchunk writes them: the
    service's own `WriteFiles` answers before its last writes reach the disk, so that a
    bundle it wrote, its binary stopped at once, may hold empty files.

    Raises:
        PagefindError: Pagefind cannot run or failed, or `folder` holds something else than a
            Pagefind bundle (left as it is in each case).
    """
    binary = require_pagefind()
    check_replaceable(folder)
    files, indexed = _bundle_files(binary, records)
    replace_folder(folder, files)
    return indexed


def check_replaceable(folder: Path) -> None:
    """Raise `PagefindError` when `folder` exists and holds files but no Pagefind bundle: a
    folder of the site that the `pagefind_output` option names by mistake."""
    if folder.is_dir() and any(folder.iterdir()) and not (folder / BUNDLE_ENTRY).is_file():
        raise PagefindError(
            f"{folder} holds files that are not a Pagefind bundle, and the bundle would "
            "replace them: set pagefind_output to a folder of its own")
    if folder.exists() and not folder.is_dir():
        raise PagefindError(f"{folder} is a file, not a folder for the Pagefind bundle")


def _bundle_files(binary: Path, records: Iterable[Record]) -> tuple[dict[str, bytes], int]:
    """Feed `records` to Pagefind's service; return its bundle's files (path inside the
    bundle -> content) and the number of records."""
    count = 0
    try:
        with _PagefindService(binary) as service:
            index = service.ask([{"type": "NewIndex", "config": {}}])[0]["index_id"]
            iterator = iter(records)
            while batch := list(itertools.islice(iterator, RECORDS_PER_BATCH)):
                service.ask([_record_request(index, record) for record in batch])
                count += len(batch)
            answer = service.ask([{"type": "GetFiles", "index_id": index}])[0]
            files = {_inside_bundle(file["path"]): base64.b64decode(file["content"])
                     for file in answer["files"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise PagefindError(f"Pagefind could not make the search bundle: {error}") from error
    if BUNDLE_ENTRY not in files:
        raise PagefindError(f"Pagefind made no search bundle (no {BUNDLE_ENTRY})")
    return files, count


def _record_request(index: object, record: Record) -> dict[str, Any]:
    """The service's request that adds `record` (a custom record) to the index `index`."""
    return {"type": "AddRecord", "index_id": index, "url": record["url"],
            "content": record["content"], "language": record["language"],
            "meta": record.get("meta"), "filters": record.get("filters"),
            "sort": record.get("sort")}


def _inside_bundle(path: object) -> str:
    """A file's path as Pagefind gives it, once it is known to stay inside the bundle."""
    parts = PurePosixPath(str(path).replace("\\", "/")).parts
    if not parts or parts[0] == "/" or any(part in ("", ".", "..") for part in parts):
        raise PagefindError(f"Pagefind gave a file outside its bundle: {path!r}")
    return "/".join(parts)


# -- Pagefind's service -----------------------------------------------------------------------


class _PagefindService:
    """Pagefind's binary run as a service (`pagefind --service`), as Pagefind's own Python and
    Node.js packages run it: each request is a base64 JSON message `{"message_id", "payload"}`
    ended by a comma on its stdin, each answer one such message on its stdout, naming the
    request it answers (the payloads are those of `pagefind.service.types`).

    A thread of its own reads each answer as soon as it is written (the Python package's reader
    waits a tenth of a second before each one, Pagefind issue #976: minutes for a large site's
    sections, and waits forever when the binary stops), so that requests go out while earlier
    ones are answered without either pipe filling up. When the binary stops, the requests that
    wait, and every later one, raise `PagefindError` with what the binary said.
    """

    def __init__(self, binary: Path) -> None:
        try:
            self._process = subprocess.Popen(
                [str(binary), "--service"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT)
        except OSError as error:
            raise PagefindError(f"Pagefind's binary {binary} cannot start: {error}") from error
        self._binary = binary
        self._answers: queue.Queue[tuple[object, dict[str, Any]] | None] = queue.Queue()
        self._stopped: PagefindError | None = None
        self._said = ""
        self._sent = 0
        self._reader = threading.Thread(target=self._read_answers, name="pagefind-answers",
                                         daemon=True)
        self._reader.start()

    def __enter__(self) -> _PagefindService:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def ask(self, payloads: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send `payloads` at once; return their answers, in the same order.

        Raises:
            PagefindError: Pagefind answered one with an error, or its binary stopped.
        """
        ids = [self._send(payload) for payload in payloads]
        self._flush()
        waiting = set(ids)
        answers: dict[object, dict[str, Any]] = {}
        while waiting:
            message_id, payload = self._next_answer()
            if payload.get("type") == "Error":
                raise PagefindError(f"Pagefind: {payload.get('message')}")
            if message_id in waiting:
                waiting.discard(message_id)
                answers[message_id] = payload
        return [answers[message_id] for message_id in ids]

    def _send(self, payload: dict[str, Any]) -> int:
        """Write one request (not flushed); return its id."""
        if self._stopped is not None:
            raise self._stopped
        self._sent += 1
        message = json.dumps({"message_id": self._sent, "payload": payload})
        try:
            self._stdin().write(base64.b64encode(message.encode("utf-8")) + b",")
        except (BrokenPipeError, ConnectionResetError) as error:
            raise self._gone(error) from error
        return self._sent

    def _flush(self) -> None:
        try:
            self._stdin().flush()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise self._gone(error) from error

    def _stdin(self) -> IO[bytes]:
        stdin = self._process.stdin
        assert stdin is not None  # (Popen with stdin=PIPE)
        return stdin

    def _gone(self, error: OSError) -> PagefindError:
        """The error of a binary that stopped reading: its last words reach the reader after
        the broken pipe."""
        self._reader.join(timeout=5)
        return self._stopped or PagefindError(
            f"Pagefind's binary {self._binary} stopped reading ({error})")

    def _next_answer(self) -> tuple[object, dict[str, Any]]:
        """The next answer the reader took: its request's id and its payload."""
        answer = self._answers.get()
        if answer is None:
            self._answers.put(None)  # (for a later request)
            assert self._stopped is not None
            raise self._stopped
        return answer

    def _read_answers(self) -> None:
        """Take each answer as it comes, until the binary stops (the reader thread). Answers
        are read in pieces: the bundle's files come in one answer of many megabytes."""
        stdout = self._process.stdout
        assert stdout is not None
        unfinished: list[bytes] = []
        try:
            while data := os.read(stdout.fileno(), _READ_SIZE):
                *ends, rest = data.split(b",")
                for end in ends:
                    self._answer(b"".join([*unfinished, end]))
                    unfinished = []
                unfinished.append(rest)
        except (OSError, ValueError) as error:
            self._stop(f"cannot be read ({error})")
            return
        self._note(b"".join(unfinished))
        self._stop("stopped")

    def _answer(self, message: bytes) -> None:
        """Hand over the answer `message`. Anything before the message on its line is the
        binary's own output (its stderr shares the pipe), kept for an error message."""
        said, _, encoded = message.rpartition(b"\n")
        self._note(said)
        try:
            response = json.loads(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            self._note(encoded)
            return
        payload = response.get("payload") if isinstance(response, dict) else None
        if not isinstance(payload, dict):
            self._note(encoded)
            return
        message_id = _message_id(response, payload)
        if message_id is not None or payload.get("type") == "Error":
            self._answers.put((message_id, payload))

    def _note(self, said: bytes) -> None:
        if said.strip():
            text = self._said + said.decode(errors="replace")
            self._said = text[-_SAID_AT_MOST:]

    def _stop(self, how: str) -> None:
        """Fail every request that waits, and every later one."""
        said = self._said.strip()
        self._stopped = PagefindError(
            f"Pagefind's binary {self._binary} {how}" + (f": {said}" if said else ""))
        self._answers.put(None)

    def close(self) -> None:
        """Stop the binary and the reader (the requests were all answered: nothing waits)."""
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()
        with contextlib.suppress(OSError):
            self._stdin().close()
        self._process.wait()
        self._reader.join()
        if self._process.stdout is not None:
            self._process.stdout.close()


def _message_id(response: dict[str, Any], payload: dict[str, Any]) -> object:
    """The id of the request `response` answers: its own, or, for a request the binary could
    not parse (it then answers with an error and no id), the id inside the request it quotes."""
    if response.get("message_id") is not None:
        return response["message_id"]
    try:
        return json.loads(payload.get("original_message") or "null")["message_id"]
    except (ValueError, TypeError, KeyError):
        return None


# -- the search page --------------------------------------------------------------------------


def write_search_page(site_dir: Path, settings: PagefindSettings, *,
                      language: str | None = None) -> Path:
    """Write the search page (`SEARCH_PAGE`) into `site_dir`, atomically; return its path."""
    path = site_dir.joinpath(*PurePosixPath(SEARCH_PAGE).parts)
    write_text(path, search_page_html(settings, language=language), durable=False)
    return path


def search_page_html(settings: PagefindSettings, *, language: str | None = None) -> str:
    """The search page: Pagefind's UI, loaded from the bundle, with links relative to the
    page, so that it works wherever the site is served from."""
    depth = len(PurePosixPath(SEARCH_PAGE).parts) - 1
    root = "../" * depth
    bundle = html.escape(f"{root}{settings.folder}/")
    name = html.escape(settings.site_name)
    lang = f' lang="{html.escape(language)}"' if language and language != UNKNOWN_LANGUAGE \
        else ""
    return _SEARCH_PAGE.format(lang=lang, title=f"Search · {name}" if name else "Search",
                               name=name or "Home", bundle=bundle, root=html.escape(root))


_SEARCH_PAGE = """\
<!DOCTYPE html>
<html{lang}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="generator" content="mdchunk">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{bundle}pagefind-ui.css">
<style>
  body {{ max-width: 50rem; margin: 2rem auto; padding: 0 1rem; font-family: system-ui,
         sans-serif; }}
  header a {{ color: inherit; }}
</style>
<script src="{bundle}pagefind-ui.js"></script>
</head>
<body>
<header><a href="{root}">{name}</a></header>
<main>
<h1>Search</h1>
<div id="search" data-bundle="{bundle}" data-site-root="{root}"></div>
</main>
<script>
  window.addEventListener("DOMContentLoaded", function () {{
    var element = document.getElementById("search");
    var here = window.location.href;
    var ui = new PagefindUI({{
      element: element,
      bundlePath: new URL(element.dataset.bundle, here).pathname,
      baseUrl: new URL(element.dataset.siteRoot || "./", here).pathname,
      showSubResults: false,
      showImages: false,
      autofocus: true
    }});
    var query = new URLSearchParams(window.location.search).get("q");
    if (query) {{ ui.triggerSearch(query); }}
  }});
</script>
</body>
</html>
"""
