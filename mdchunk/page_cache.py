"""Chunked pages kept on disk across builds: a build chunks only the pages that changed.

One JSON file per page (`PageOutput.as_json()` and what it was made from), named by the sha256
of the mdchunk version, the build's settings and the page's key (a hash of its rendered HTML and
facts). A page whose HTML, facts or settings changed has another name, so an entry is never
stale, only unused: `prune` removes those no current page uses.

A cache only saves time: an entry that cannot be read (missing, truncated, corrupt, written by
another version) is a miss, and a folder that cannot be written turns the cache off with one
warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path

from mdchunk._version import __version__
from mdchunk.page_output import PageOutput
from mdchunk.writers import dumps, sweep_stale_temporaries, write_text

_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_TEMPORARY = re.compile(r"\.([0-9a-f]{64}\.json)\..*\.tmp")

Logger = logging.Logger | logging.LoggerAdapter  # type: ignore[type-arg]

_log = logging.getLogger(__name__)


class PageCache:
    """The chunked pages of earlier builds made with `settings`, one file each in `folder`."""

    def __init__(self, folder: Path, settings: str, *, log: Logger | None = None) -> None:
        self.folder = folder
        self.settings = settings
        """What every page's chunks depend on besides the page (options, site url, ...)."""
        self.enabled = True
        """False once the folder proved unwritable (then every `get` misses)."""
        self._log = log or _log  # warnings go to the engine's log (e.g. "mdchunk: ...")
        self._known: set[str] = set()  # page keys whose entry this object read or wrote
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            self._disable(error)

    def path(self, page_key: str) -> Path:
        """The file of the page whose key is `page_key`."""
        name = json.dumps([__version__, self.settings, page_key])
        return self.folder / f"{hashlib.sha256(name.encode()).hexdigest()}.json"

    def get(self, page_key: str) -> PageOutput | None:
        """The page kept for `page_key`, or None (never an exception)."""
        if not self.enabled:
            return None
        path = self.path(page_key)
        try:
            entry = json.loads(path.read_bytes())
            if [entry["version"], entry["settings"], entry["key"]] != [
                    __version__, self.settings, page_key]:
                raise ValueError("written for another version, settings or page")
            page = PageOutput.from_json(entry["page"])
        except FileNotFoundError:
            self._known.discard(page_key)
            return None
        except Exception as error:  # noqa: BLE001 - a bad entry is a miss, whatever is wrong
            self._log.debug("page cache: %s cannot be used, its page is chunked again: %s",
                            path, error)
            return None
        self._known.add(page_key)
        return page

    def put(self, page_key: str, page: PageOutput) -> None:
        """Keep `page` for `page_key` (atomically; not flushed to disk: it is a cache)."""
        if not self.enabled:
            return
        entry = {"version": __version__, "settings": self.settings, "key": page_key,
                 "page": {**page.as_json(), "timings": {}}}  # the same bytes for the same page
        try:
            write_text(self.path(page_key), dumps(entry), durable=False)
        except OSError as error:
            self._disable(error)
            return
        self._known.add(page_key)

    def known(self, page_key: str) -> bool:
        """Whether this object read or wrote the entry of `page_key` (no disk access)."""
        return page_key in self._known

    def prune(self, keep: Iterable[str]) -> int:
        """Remove the entries of every page key not in `keep`; return how many were removed.

        Only files named as entries are removed (never anything else in the folder), and the
        temporary files of writers that were killed.
        """
        if not self.enabled:
            return 0
        keep = set(keep)
        names = {self.path(key).name for key in keep}
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            return 0
        removed = 0
        for entry in entries:
            if _ENTRY.fullmatch(entry.name) and entry.name not in names:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed += 1
            elif match := _TEMPORARY.fullmatch(entry.name):
                sweep_stale_temporaries(self.folder / match[1])
        self._known &= keep
        return removed

    def _disable(self, error: OSError) -> None:
        if self.enabled:
            self._log.warning("cannot write the page cache folder %s, building without it: %s",
                              self.folder, error)
        self.enabled = False
