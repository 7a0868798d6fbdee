"""The last build's index files, kept beside the page cache for a build of the same index.

A JSON Lines or JSON file of the index is its pages' records joined in the index's order, with
the duplicate marks applied: the same pages (page keys), in the same order, with the same
settings, make the same bytes. An unchanged site's build is such a build, and `mkdocs build`
empties the site folder first: rather than read every page's records back from its entry and
write them again, it takes the last build's file, which the cache keeps as a second name of it
(a hard link: no copy is written).

The cache's name of a file is used only while the file is as it was written: its size and time
of last change are noted with the index's key (`outputs.json`), and a file changed since (an
in-place edit through the site's name) is written again from the entries. Where the cache
cannot link to the site (another file system, or one without links), every build writes its
files, as without this.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mdchunk._version import __version__
from mdchunk.outputs.writers import dumps, loads, write_text

FOLDER = "outputs"
"""The cache's names of the last build's index files, in the page cache's folder."""
MANIFEST = "outputs.json"
"""The key of the index those files hold, and each file's size and time of last change."""


def index_key(settings: str, page_keys: Iterable[str]) -> str:
    """The key of an index: the mdchunk version, the build's settings and its pages' keys, in
    order (what its files' bytes, and its duplicate marks, follow from)."""
    digest = hashlib.sha256(f"{__version__}\n{settings}".encode())
    for key in page_keys:
        digest.update(f"\n{key}".encode())
    return digest.hexdigest()


class KeptOutputs:
    """The index files kept by the last build in `folder` (the page cache's), for the index of
    `key`: `place` puts one in the site, `keep` keeps one a build wrote, `save` notes them."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder / FOLDER
        self.manifest = folder / MANIFEST
        self.key = key
        self._noted = self._last()
        self._changed = False

    def place(self, name: str, target: Path) -> bool:
        """Put the kept file of format `name` at `target` (atomically: a new name, then a
        rename over the target) when it holds this index and is as it was written; returns
        whether it did (never an exception)."""
        kept = self.folder / name
        noted = self._noted.get(name)
        if noted is None or noted != _stamp(kept):
            return False
        return _link(kept, target)

    def keep(self, name: str, written: Path) -> None:
        """Keep the file of format `name` that this build wrote at `written`, as another name
        of it in the cache (nothing is kept where no link can be made)."""
        kept = self.folder / name
        self._noted.pop(name, None)
        self._changed = True
        stamp = _stamp(kept) if _link(written, kept) else None
        if stamp is not None:
            self._noted[name] = stamp

    def save(self) -> None:
        """Note the files kept for this index (a cache: a folder that cannot be written only
        means the next build writes its files)."""
        if self._changed:
            with contextlib.suppress(OSError):
                write_text(self.manifest, dumps({"key": self.key, "files": self._noted}),
                           durable=False)
            self._changed = False

    def _last(self) -> dict[str, list[int]]:
        """The files the last build kept, when they hold the index of this key."""
        try:
            saved: Any = loads(self.manifest.read_bytes())
            if saved["key"] != self.key:
                return {}
            return {str(name): [int(value) for value in stamp]
                    for name, stamp in saved["files"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}


def _link(source: Path, target: Path) -> bool:
    """Give the file `source` the name `target` too, atomically (a new name beside `target`,
    then a rename over it); returns whether it did (never an exception)."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.link.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.link(source, temporary)
        os.replace(temporary, target)
        with contextlib.suppress(FileNotFoundError):  # (a rename onto another name of the
            os.unlink(temporary)  # same file leaves both names: a build of an unemptied site)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    return True


def _stamp(path: Path) -> list[int] | None:
    """The size and time of last change (ns) of the file at `path` (None: not there)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns]
