"""Files of the last build, kept beside the page cache as second names, for a build that would
write the same bytes again.

`mkdocs build` empties the site folder first, so an unchanged site's build would write every
file of the last one again: each page's Markdown and twin, and the index files. Each of those
files follows from what names it in the cache:

- a page's Markdown and twin from its page cache entry, whose name holds the mdchunk version,
  the settings and the page key (`page_files`: kept by the entry's name);
- a JSON Lines or JSON file of the index from its pages' keys in the index's order, with the
  duplicate marks applied, and the settings (`index_files`: kept under the index's key,
  `index_key`).

Rather than make such a file again, a build gives the site the last build's file, which the
cache keeps as a second name of it (a hard link: no copy is written). The cache's name is used
only while the file is as it was written: its size and time of last change are noted in the
folder's manifest, and a file changed since (an in-place edit through the site's name) is
written again. Where the cache cannot link to the site (another file system, or one without
links), every build writes its files, as without this.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from mdchunk._version import __version__
from mdchunk.outputs.writers import dumps, loads, write_text

_NO_LINKS = frozenset({errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP})
"""What a failed link says when no link to the cache can be made (another file system, or one
without links): the build stops trying; any other failure is that one file's."""

INDEX_FOLDER = "outputs"
"""The folder of the kept index files (by format name), in the page cache's folder."""
PAGE_FOLDER = "page-files"
"""The folder of the kept page files (by entry name), in the page cache's folder."""
MANIFEST = "manifest.json"
"""In each folder: the key its files are kept for, and each file's size and time of last
change."""


def index_key(settings: str, page_keys: Iterable[str]) -> str:
    """The key of an index: the mdchunk version, the build's settings and its pages' keys, in
    order (what its files' bytes, and its duplicate marks, follow from)."""
    digest = hashlib.sha256(f"{__version__}\n{settings}".encode())
    for key in page_keys:
        digest.update(f"\n{key}".encode())
    return digest.hexdigest()


def index_files(cache_folder: Path, key: str) -> KeptFiles:
    """The index files kept in the page cache's folder for the index of `key`."""
    return KeptFiles(cache_folder / INDEX_FOLDER, key)


def page_files(cache_folder: Path) -> KeptFiles:
    """The pages' own files kept in the page cache's folder (each name says its entry, which
    says what the file holds: one key serves them all)."""
    return KeptFiles(cache_folder / PAGE_FOLDER, __version__)


class KeptFiles:
    """The files kept in `folder` for `key`: `place` puts one in the site, `keep` keeps one a
    build wrote, `save` notes them (the manifest is read at the first need)."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.key = key
        self._noted: dict[str, list[int]] | None = None
        self._changed = False
        self._linkable = True
        """False once a link to the cache failed: no other is tried (another file system)."""

    def noted(self, name: str) -> bool:
        """Whether a file is kept as `name` (as noted: `place` checks it is as written)."""
        return name in self._files()

    def place(self, name: str, target: Path) -> bool:
        """Put the kept file `name` at `target` (`_link`: readers see the old file or this
        one) when it is there as it was written; returns whether it did (never an
        exception)."""
        noted = self._files().get(name)
        if noted is None or not self._linkable or noted != _stamp(self.folder / name):
            return False
        try:
            _link(self.folder / name, target)
        except OSError:
            return False
        return True

    def keep(self, name: str, written: Path) -> None:
        """Keep the file that this build wrote at `written` as `name`, another name of it in
        the cache (nothing is kept where no link can be made)."""
        files, kept = self._files(), self.folder / name
        self._changed |= files.pop(name, None) is not None
        if not self._linkable:
            return
        try:
            _link(written, kept)
        except OSError as error:
            self._linkable = error.errno not in _NO_LINKS
            return
        stamp = _stamp(kept)
        if stamp is not None:
            files[name] = stamp
            self._changed = True

    def forget(self, unused: Callable[[str], bool]) -> None:
        """Remove the kept files whose names `unused` says no build needs any more."""
        files = self._files()
        for name in [name for name in files if unused(name)]:
            del files[name]
            self._changed = True
            with contextlib.suppress(OSError):
                os.unlink(self.folder / name)

    def save(self) -> None:
        """Note the files kept for this key (a cache: a folder that cannot be written only
        means the next build writes its files)."""
        if self._changed:
            with contextlib.suppress(OSError):
                write_text(self.folder / MANIFEST, dumps({"key": self.key,
                                                          "files": self._files()}),
                           durable=False)
            self._changed = False

    def _files(self) -> dict[str, list[int]]:
        """The files noted for this key: those the last build kept, and this build's since."""
        if self._noted is None:
            self._noted = self._last()
        return self._noted

    def _last(self) -> dict[str, list[int]]:
        """The files the last build kept, when they were kept for this key."""
        try:
            saved: Any = loads((self.folder / MANIFEST).read_bytes())
            if saved["key"] != self.key:
                return {}
            return {str(name): [int(value) for value in stamp]
                    for name, stamp in saved["files"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}


def _link(source: Path, target: Path) -> None:
    """Give the file `source` the name `target` too, atomically (where `target` is there: a
    new name beside it, then a rename over it). Raises `OSError` where it cannot, leaving
    nothing of its own behind."""
    if _new_name(source, target):
        return
    temporary = target.with_name(f".{target.name}.{os.getpid()}.link.tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.link(source, temporary)
        os.replace(temporary, target)
    finally:  # (a rename onto another name of the same file leaves both names: a build of an
        with contextlib.suppress(OSError):  # unemptied site; an error leaves the new name)
            os.unlink(temporary)


def _new_name(source: Path, target: Path) -> bool:
    """Link `source` as `target` where nothing is at `target` (its folder made if missing);
    returns False where something is. Raises `OSError` where `source` cannot be linked."""
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    except FileNotFoundError:
        if target.parent.is_dir():
            raise  # (the source is missing)
        target.parent.mkdir(parents=True, exist_ok=True)
        return _new_name(source, target)
    return True


def _stamp(path: Path) -> list[int] | None:
    """The size and time of last change (ns) of the file at `path` (None: not there)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns]
