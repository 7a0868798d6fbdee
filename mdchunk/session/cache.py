"""The page cache: chunked pages kept on disk, within a build and across builds.

Every build keeps each chunked page here, whatever the engine: the MkDocs cache across `mkdocs
build` runs, `--dirty` and `serve`, Sphinx's parallel writers and incremental builds, and the
worker processes of any build all go through it. A page's records are encoded once, where it is
chunked, and the build's own process reads them back while it writes the index, one page at a
time.

An entry is one file per page, named by the sha256 of the mdchunk version, the entry layout, the
build's settings (which name the code that made it: `mdchunk._version.code_identity`) and the
page's key (a hash of its rendered HTML and facts). A page whose HTML, facts or settings
changed, or whose code did, has another name, so an entry is never stale, only unused: `prune`
removes those no current page uses. An entry is a line of JSON (a header: what the entry was
made for, the page's counts and warnings, the length in bytes of each part that follows), a line
of its chunks' prints (`PageOutput.prints`), the page Markdown as it is (UTF-8, and a line
break), a line of the inspector's data, then the records of each format in turn, a line each,
as they are written in the index. A part is read where it is, alone: the build's own process
reads a kept page's header, prints and Markdown, and at the finish each format's records as
bytes.

A pointer (`pages/<sha256>.json`, one per page of a site) names the entry that holds a page:
an engine that does not render every page (`mkdocs build --dirty`, an incremental Sphinx build,
Sphinx's parallel writers, whose results reach the main process only through files) finds the
others through it, by source path. It holds the site folder (relative to the cache), the
page's source path, a fingerprint of its source (the sha256 of the file, where the engine gives
one), its page key and where its Markdown is written:

    {"version": "0.4.0", "settings": "...", "site": "../../site", "page": "guide.md",
     "listed": {"source": "<sha256>", "key": "<page key>", "markdown": "guide/index.html.md"}}

(`key` null: the page's metadata leaves it out of the index.) A pointer of another version,
settings or site folder is not used, nor one whose source fingerprint differs.

Beside the entries, the folders `outputs/` and `page-files/` keep the last build's index files
and pages' own files as second names, for a build that would write them again
(`mdchunk.session.kept_files`).

The cache only saves work: an entry that cannot be read (missing, truncated, corrupt, written by
another version) is a miss, and a folder that cannot be written turns the cache off with one
warning.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from mdchunk._version import __version__
from mdchunk.outputs.pages import PageOutput
from mdchunk.outputs.writers import (
    atomic_write,
    dumps,
    loads,
    sweep_stale_temporaries,
    write_text,
)

_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_TEMPORARY = re.compile(r"\.([0-9a-f]{64}\.json)\..*\.tmp")
POINTERS = "pages"
_FORMAT = 8
"""The layout of an entry (part of its file name): a line per part and per record, since 2; the
page's notes in its header, since 3; what llms.txt needs of it (`agent`), since 4; its chunks'
prints for duplicate detection (`prints`), since 5; the page Markdown as it is (not JSON), its
length in bytes in the header, since 6; the prints on a line of their own after the header
(reading the Markdown or the records parses no prints), since 7; the length in bytes of every
part in the header (`sizes`: a part is read where it is, and a cut entry is told by its size),
since 8."""

Logger = logging.Logger | logging.LoggerAdapter  # type: ignore[type-arg]

_log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class PagePointer:
    """One page in the manifest: what its entry was made from."""

    source: str | None
    """A fingerprint of the page's source (the sha256 of its file), where the engine gives one;
    None where the engine itself knows which pages changed (Sphinx)."""
    key: str | None
    """Its page key (None: left out of the index by its own metadata)."""
    markdown: str | None = None
    """Where its Markdown is written, relative to the site folder."""


class PageCache:
    """The chunked pages of earlier builds made with `settings`, one file each in `folder`."""

    def __init__(self, folder: Path, settings: str, *, log: Logger | None = None) -> None:
        self.folder = folder
        self.settings = settings
        """What every page's chunks depend on besides the page (options, site url, ...)."""
        self.enabled = True
        """False once the folder proved unwritable (then every `summary` misses)."""
        self._log = log or _log  # warnings go to the engine's log (e.g. "mdchunk: ...")
        self._known: set[str] = set()  # page keys whose entry this object read or wrote
        self._layouts: dict[str, tuple[int, dict[str, Any]]] = {}
        """The length of the header line and the header of entries read already, by page key:
        a later read of another part of an entry (the finish's) seeks to it without parsing
        and checking the header again (an entry's name says what it holds, and it is never
        rewritten in place; its size is still checked)."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            self._disable(error)

    def path(self, page_key: str) -> Path:
        """The file of the page whose key is `page_key`."""
        return self.folder / f"{self.entry_name(page_key)}.json"

    def entry_name(self, page_key: str) -> str:
        """The name of the entry of `page_key` (what its file is named by): it says what the
        entry holds, the mdchunk version, the layout, the settings and the page key."""
        name = json.dumps([__version__, _FORMAT, self.settings, page_key])
        return hashlib.sha256(name.encode()).hexdigest()

    def holds_entry(self, name: str) -> bool:
        """Whether the entry named `name` (`entry_name`) is there (one `stat`)."""
        return _ENTRY.fullmatch(f"{name}.json") is not None and (
            self.folder / f"{name}.json").is_file()

    def summary(self, page_key: str) -> PageOutput | None:
        """The page kept for `page_key` without its content (`PageOutput.without_content`), or
        None (never an exception); `read` gives its content. Only the entry's header and prints
        are read."""
        held = self._summary(page_key, markdown=False)
        return None if held is None else held[0]

    def summary_and_markdown(self, page_key: str) -> tuple[PageOutput, str] | None:
        """`summary`, and the page Markdown, from one read of the entry's first parts (the
        build writes a page's own files from it); None where `summary` is."""
        return self._summary(page_key, markdown=True)

    def _summary(self, page_key: str, *, markdown: bool) -> tuple[PageOutput, str] | None:
        if not self.enabled:
            return None
        try:
            with self.path(page_key).open("rb") as handle:
                header, sizes = self._header(handle, page_key)
                prints = _part(handle, sizes[0])
                text = _part(handle, sizes[1]).decode("utf-8", "surrogatepass") if (
                    markdown) else ""
        except FileNotFoundError:
            self._known.discard(page_key)
            self._layouts.pop(page_key, None)
            return None
        except Exception as error:  # noqa: BLE001 - a bad entry is a miss, whatever is wrong
            self._log.debug("page cache: %s cannot be used, its page is chunked again: %s",
                            self.path(page_key), error)
            return None
        self._known.add(page_key)
        return _summary_of(header, loads(prints)), text

    def read(self, page_key: str, *, prints: bool = True) -> PageOutput:
        """The page kept for `page_key` with its content (also when the cache was turned off
        after it was written); `prints`: with its chunks' prints (the build holds them with the
        page's counts already, so the finish reads the rest alone).

        Raises:
            OSError: when its entry cannot be read.
            ValueError: when its entry is not one of this version, settings and page key.
        """
        with self.path(page_key).open("rb") as handle:
            header, sizes = self._header(handle, page_key)
            parts = [_part(handle, size) for size in sizes]
            blocks = {name: _part(handle, size, line=False)
                      for name, size in header["sizes"][3].items()}
        return dataclasses.replace(
            _summary_of(header, loads(parts[0]) if prints else ()),
            markdown=parts[1].decode("utf-8", "surrogatepass"), inspector=json.loads(parts[2]),
            records={name: block.decode("utf-8").split("\n")[:-1]
                     for name, block in blocks.items()}, stored=False)

    def records_block(self, page_key: str, name: str) -> bytes:
        """The records of format `name` kept for `page_key` as the bytes of their lines, each
        ending with a line break: the finish joins them into the index as they are, without
        decoding the page (only that block of the entry is read).

        Raises:
            OSError, ValueError: as `read` (ValueError too when the entry holds no records of
                `name`).
        """
        with self.path(page_key).open("rb") as handle:
            header, sizes = self._header(handle, page_key)
            blocks: dict[str, int] = header["sizes"][3]
            if name not in blocks:
                raise ValueError(f"no records of the format {name}")
            before = list(blocks).index(name)
            handle.seek(sum(size + 1 for size in sizes) + sum(list(blocks.values())[:before]),
                        os.SEEK_CUR)
            return _part(handle, blocks[name], line=False)

    def holds(self, page_key: str) -> bool:
        """Whether the entry of `page_key` is there (one `stat`; its content is not checked)."""
        return self.enabled and self.path(page_key).is_file()

    def put(self, page_key: str, page: PageOutput) -> None:
        """Keep `page` for `page_key` (atomically; not flushed to disk: it is a cache)."""
        if not self.enabled:
            return
        if page.stored:
            raise ValueError(f"{page.source_path}: a page without its content cannot be kept")
        prints = dumps(page.prints).encode("utf-8", "replace")
        markdown = page.markdown.encode("utf-8", "surrogatepass")
        inspector = dumps(page.inspector).encode("utf-8", "replace")
        blocks = {name: "\n".join(records).encode("utf-8", "replace") + b"\n" * bool(records)
                  for name, records in page.records.items()}
        header = {"version": __version__, "settings": self.settings, "key": page_key,
                  "page": {name: getattr(page, name) for name in _SUMMARY},
                  "sizes": [len(prints), len(markdown), len(inspector),
                            {name: len(block) for name, block in blocks.items()}]}
        parts = [dumps(header).encode("utf-8", "replace"), b"\n", prints, b"\n", markdown,
                 b"\n", inspector, b"\n", *blocks.values()]

        def write(handle: IO[bytes]) -> None:
            handle.writelines(parts)

        try:
            atomic_write(self.path(page_key), write, durable=False, sweep=False)
        except OSError as error:
            self._disable(error)
            return
        self._known.add(page_key)

    def adopt(self, page_key: str) -> None:
        """Count the entry of `page_key` as written by this object when another process (a
        worker) wrote it, so that it is not written again."""
        if self.enabled and self.path(page_key).is_file():
            self._known.add(page_key)

    def markdown(self, page_key: str) -> str:
        """The page Markdown kept for `page_key`: only the entry's header and Markdown are
        read.

        Raises:
            OSError, ValueError: as `read`.
        """
        with self.path(page_key).open("rb") as handle:
            _, sizes = self._header(handle, page_key)
            handle.seek(sizes[0] + 1, os.SEEK_CUR)  # the prints
            return _part(handle, sizes[1]).decode("utf-8", "surrogatepass")

    def _header(self, handle: IO[bytes], page_key: str) -> tuple[dict[str, Any], list[int]]:
        """The header of the entry of `page_key` open in `handle` (read up to its end), and the
        sizes of its prints, Markdown and inspector parts. Raises `ValueError` where the entry
        is not one of this version, settings and page, or is not of the size its header gives
        (cut short). An entry read before in this build is not parsed again (`_layouts`)."""
        size = os.fstat(handle.fileno()).st_size
        known = self._layouts.get(page_key)
        if known is not None and _whole_size(*known) == size:
            handle.seek(known[0])
            return known[1], known[1]["sizes"][:3]
        line = handle.readline()
        header = loads(line)
        self._check(header, page_key)
        if _whole_size(len(line), header) != size or not line.endswith(b"\n"):
            raise ValueError("truncated")
        self._layouts[page_key] = len(line), {"page": header["page"], "sizes": header["sizes"]}
        return header, header["sizes"][:3]

    def _check(self, header: Any, page_key: str) -> None:
        """Raise `ValueError` unless `header` is that of an entry of `page_key` written by this
        version with these settings."""
        if not isinstance(header, dict) or [header.get("version"), header.get("settings"),
                                            header.get("key")] != [__version__, self.settings,
                                                                   page_key]:
            raise ValueError("written for another version, settings or page")
        sizes = header.get("sizes")
        if not (isinstance(sizes, list) and len(sizes) == 4 and isinstance(sizes[3], dict)
                and all(map(_is_size, [*sizes[:3], *sizes[3].values()]))):
            raise ValueError("no sizes of the entry's parts in the header")

    def known(self, page_key: str) -> bool:
        """Whether this object read or wrote the entry of `page_key` (no disk access)."""
        return page_key in self._known

    def prune(self, keep: Iterable[str], *, named: Iterable[str] | None = None) -> int:
        """Remove the entries of every page key neither in `keep` nor named by a pointer
        (`named`: the keys the pointers name, where the caller has just read them all); return
        how many were removed.

        Only files named as entries are removed (never anything else in the folder), and the
        temporary files of writers that were killed.
        """
        if not self.enabled:
            return 0
        if named is None:
            named = [listed.key for _, _, listed in self._pointers() if listed.key is not None]
        keep = set(keep) | set(named)
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
        _sweep_folder(self.folder)
        _sweep_folder(self.folder / POINTERS)
        self._known &= keep
        self._layouts = {key: layout for key, layout in self._layouts.items()
                         if key in keep}
        return removed

    def manifest(self, site: Path) -> dict[str, PagePointer]:
        """The pages of the site folder `site` (source path -> `PagePointer`) that pointers of these
        settings name; empty when there are none (never an exception)."""
        if not self.enabled:
            return {}
        wanted = self._site(site)
        return {source: listed for written_for, source, listed in self._pointers()
                if written_for == wanted}

    def pointer(self, site: Path, source: str) -> PagePointer | None:
        """What the pointer of page `source` of the site folder `site` names, when one of these
        settings is there (never an exception)."""
        if not self.enabled:
            return None
        found = self._read_pointer(self._pointer_path(site, source))
        return found[2] if found is not None and found[:2] == (self._site(site), source) else None

    def point(self, site: Path, source: str, listed: PagePointer) -> None:
        """Name the entry of page `source` of the site folder `site`, atomically (not flushed to
        disk: it is a cache)."""
        if not self.enabled:
            return
        path = self._pointer_path(site, source)
        pointer = dumps({"version": __version__, "settings": self.settings,
                         "site": self._site(site), "page": source,
                         "listed": dataclasses.asdict(listed)})
        try:  # (the folder of pointers is swept as a whole when the cache prunes)
            write_text(path, pointer, durable=False, sweep=False)
        except OSError as error:
            self._disable(error)

    def write_manifest(self, site: Path, pages: Mapping[str, PagePointer]) -> set[str]:
        """Make the pointers of the site folder `site` name exactly `pages` (source path ->
        `PagePointer`): those of other pages of that site are removed. Returns the page keys
        every pointer then names, those of other site folders too (for `prune`)."""
        if not self.enabled:
            return set()
        wanted, known = self._site(site), {}
        named = {listed.key for listed in pages.values() if listed.key is not None}
        for written_for, source, listed in self._pointers():
            if written_for == wanted:
                known[source] = listed
            elif listed.key is not None:
                named.add(listed.key)
        for source, listed in pages.items():
            if known.get(source) != listed:
                self.point(site, source, listed)
        for source in known.keys() - pages.keys():
            with contextlib.suppress(OSError):
                self._pointer_path(site, source).unlink()
        return named

    def _pointer_path(self, site: Path, source: str) -> Path:
        name = json.dumps([self._site(site), source])
        return self.folder / POINTERS / f"{hashlib.sha256(name.encode()).hexdigest()}.json"

    def _pointers(self) -> list[tuple[str, str, PagePointer]]:
        """(site, source path, `PagePointer`) of every pointer written by this version with these
        settings."""
        try:
            paths = sorted((self.folder / POINTERS).glob("*.json"))
        except OSError:
            return []
        return [found for path in paths if (found := self._read_pointer(path)) is not None]

    def _read_pointer(self, path: Path) -> tuple[str, str, PagePointer] | None:
        """(site, source path, `PagePointer`) of the pointer in `path` when it was written by this
        version with these settings; None otherwise (a bad pointer is said at debug level)."""
        try:
            pointer = json.loads(path.read_bytes())
            if [pointer["version"], pointer["settings"]] != [__version__, self.settings]:
                return None
            listed = PagePointer(**pointer["listed"])
            if not all(isinstance(value, str) for value in (pointer["site"], pointer["page"])
                       ) or not (isinstance(listed.source, str | None)
                                 and isinstance(listed.key, str | None)
                                 and isinstance(listed.markdown, str | None)):
                raise TypeError("a value is not text")
        except FileNotFoundError:
            return None
        except Exception as error:  # noqa: BLE001 - a bad pointer is none, whatever is wrong
            self._log.debug("page cache: %s cannot be used: %s", path, error)
            return None
        return pointer["site"], pointer["page"], listed

    def _site(self, site: Path) -> str:
        """`site` relative to the cache folder (a project moved whole keeps its pointers), or
        absolute when there is no relative path (another drive)."""
        try:
            return os.path.relpath(site.absolute(), self.folder.absolute())
        except ValueError:
            return str(site.absolute())

    def _disable(self, error: OSError) -> None:
        if self.enabled:
            self._log.warning("cannot write the page cache folder %s, building without it: %s",
                              self.folder, error)
        self.enabled = False


_SUMMARY = ("source_path", "url", "chunks", "oversize", "small", "warnings", "notes", "agent")
"""The fields of `PageOutput` in an entry's header (the prints have a line of their own)."""


def _summary_of(header: Mapping[str, Any], prints: Sequence[list[str]]) -> PageOutput:
    """The page of an entry without its content (`PageOutput.without_content`), from its header
    and its `prints` (empty: without them)."""
    facts = header["page"]
    return PageOutput(**{name: facts[name] for name in _SUMMARY[:-3]},
                      warnings=tuple(facts["warnings"]), notes=tuple(facts["notes"]),
                      agent=facts["agent"], markdown="", records={}, inspector=None,
                      stored=True, prints=tuple(prints))


def _part(handle: IO[bytes], size: int, *, line: bool = True) -> bytes:
    """The next `size` bytes of an entry, and (`line`) the line break after them; raises
    `ValueError` when they are not there."""
    data = handle.read(size + line)
    if len(data) != size + line or (line and data[-1:] != b"\n"):
        raise ValueError("truncated")
    return data[:size] if line else data


def _whole_size(header_length: int, header: Mapping[str, Any]) -> int:
    """The size in bytes of an entry whose header line is `header_length` bytes long."""
    sizes: list[Any] = header["sizes"]
    parts: list[int] = [*sizes[:3], *sizes[3].values()]
    return header_length + sum(parts) + 3


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _sweep_folder(folder: Path) -> None:
    """Remove the temporary files that killed writers left in `folder` (entries and pointers
    are written without a sweep each: `atomic_write`'s `sweep`)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if match := _TEMPORARY.fullmatch(entry.name):
                sweep_stale_temporaries(folder / match[1])
