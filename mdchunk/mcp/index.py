"""Finding the index a server answers from, making its SQLite file where needed, and loading it
again when the site is built again."""

import contextlib
import dataclasses
import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from mdchunk.chunking.tokens import token_counter
from mdchunk.errors import MdChunkError
from mdchunk.mcp.docs import Docs, DocsError
from mdchunk.outputs.sqlite import SQLITE_SUFFIXES, read_index, read_sqlite, write_sqlite
from mdchunk.outputs.version_tree import (
    DeployedVersion,
    default_version,
    described_versions,
    find_tree,
    named_version,
)
from mdchunk.search.languages import LanguageError, language_folder
from mdchunk.settings import user_cache_folder

log = logging.getLogger(__name__)


#: File names of the indexes found in a site folder.
NATIVE_INDEX = "chunks.jsonl"
SQLITE_INDEX = "chunks.sqlite"


@dataclasses.dataclass(frozen=True, slots=True)
class IndexFiles:
    """The files one server answers from.

    `made` says where the SQLite index came from: `found` (built with the site), `beside`
    (made now from chunks.jsonl, written beside it) or `cache` (made now, written into the
    cache folder because the site folder cannot be written).
    """

    site: Path
    sqlite: Path
    jsonl: Path | None
    made: Literal["found", "beside", "cache"]


def prepare_index(target: Path, cache_dir: Path | None = None) -> IndexFiles:
    """The SQLite index of `target` (a built site's folder, its chunks.jsonl or a
    chunks.sqlite), made from chunks.jsonl where it is missing or out of date.

    Raises:
        DocsError: where `target` holds no index, or the index cannot be read or made.
    """
    target = target.absolute()
    if target.is_dir():
        site, jsonl, sqlite = target, target / NATIVE_INDEX, target / SQLITE_INDEX
        if not jsonl.is_file() and not sqlite.is_file():
            raise DocsError(_no_index_message(target))
    elif target.suffix in SQLITE_SUFFIXES:
        return IndexFiles(target.parent, target, None, "found")
    elif target.suffix in (".jsonl", ".json"):
        site, jsonl, sqlite = target.parent, target, target.with_suffix(".sqlite")
    else:
        raise DocsError(f"{target} is not a chunk index: give the built site folder, its "
                        f"{NATIVE_INDEX} or a {SQLITE_INDEX}")
    if not jsonl.is_file():
        return IndexFiles(site, sqlite, None, "found")
    if _holds_current(sqlite, jsonl):
        return IndexFiles(site, sqlite, jsonl, "found")
    cached = _cache_file(jsonl, cache_dir)
    if cached.is_file():
        return IndexFiles(site, cached, jsonl, "cache")
    records = _read_records(jsonl)
    try:
        write_sqlite(sqlite, records)
        return IndexFiles(site, sqlite, jsonl, "beside")
    except OSError as error:
        log.info("cannot write %s (%s): writing the index into %s", sqlite, error, cached)
    try:
        write_sqlite(cached, records)
    except OSError as error:
        raise DocsError(f"cannot write the SQLite index beside {jsonl} nor into {cached}: "
                        f"{error}; give a writable --cache-dir") from error
    _remove_older_cache_files(cached)
    return IndexFiles(site, cached, jsonl, "cache")


def _no_index_message(folder: Path) -> str:
    built = [candidate for candidate in (folder / "site", folder / "_build" / "html")
             if (candidate / NATIVE_INDEX).is_file()]
    hint = (f"; the built site seems to be {built[0]}" if built
            else "; build the site with the mdchunk plugin first")
    return f"{folder} holds no {NATIVE_INDEX} nor {SQLITE_INDEX}{hint}"


def _holds_current(sqlite: Path, jsonl: Path) -> bool:
    """Whether `sqlite` holds the records of `jsonl`: a file written after it (the same
    build, or made from it), or an older one whose records are the same."""
    try:
        if not sqlite.is_file():
            return False
        if sqlite.stat().st_mtime_ns >= jsonl.stat().st_mtime_ns:
            return True
        return read_sqlite(sqlite) == read_index(jsonl)
    except (OSError, ValueError, sqlite3.Error):
        return False


def _cache_file(jsonl: Path, cache_dir: Path | None) -> Path:
    """Where the SQLite index of a read-only site goes: the cache folder, under a name made
    of the real path of its chunks.jsonl and that file's size and modification time, so that
    a file of that name holds the index of this very chunks.jsonl."""
    folder = cache_dir if cache_dir is not None else user_cache_folder("mcp")
    key = hashlib.sha256(str(jsonl.resolve()).encode("utf-8")).hexdigest()[:16]
    status = jsonl.stat()
    return folder / f"{jsonl.stem}-{key}-{status.st_size}-{status.st_mtime_ns}.sqlite"


def _remove_older_cache_files(current: Path) -> None:
    """Remove the cache files of earlier versions of the same chunks.jsonl: the same name
    but for the size and modification time."""
    same_site = current.name.rsplit("-", 2)[0]
    for other in current.parent.glob(f"{same_site}-*.sqlite"):
        if other != current and other.name.rsplit("-", 2)[0] == same_site:
            with contextlib.suppress(OSError):
                other.unlink()


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        records = read_index(path)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise DocsError(f"{path}: cannot read the chunk index: {error}") from error
    if not all(isinstance(record, dict) and "id" in record for record in records):
        raise DocsError(f"{path}: not a native chunk index (records without an 'id')")
    return records


def load_docs(target: Path, cache_dir: Path | None = None) -> tuple[Docs, IndexFiles]:
    """The Docs of `target` (see `prepare_index`), with the files they come from."""
    files = prepare_index(target, cache_dir)
    records = _read_records(files.sqlite)
    if not records:
        raise DocsError(f"{files.jsonl or files.sqlite} holds no chunk: nothing to serve")
    options = next(((r.get("metadata") or {}).get("chunkingOptions") or {} for r in records),
                   {})
    encoding = str(options.get("encoding") or "cl100k_base")
    try:
        count = token_counter(encoding)
    except Exception as error:
        raise DocsError(f"cannot count {encoding} tokens: {error}") from error
    return Docs(records, site=files.site, sqlite=files.sqlite, count=count,
                encoding=encoding), files


class LiveDocs:
    """The Docs of a target, loaded again at the next call after its index files change (the
    site was built again); while the new files cannot be read, the last loaded Docs answer."""

    def __init__(self, target: Path, cache_dir: Path | None = None) -> None:
        self.target = target
        self.cache_dir = cache_dir
        self.docs, self.files = load_docs(target, cache_dir)
        self._stamp = self._stamp_now()
        self._lock = threading.Lock()
        self._languages: dict[Path, LiveDocs] = {}  # the builds of the site's other languages

    @property
    def versions(self) -> tuple[DeployedVersion, ...]:
        """None: one build, whatever its version."""
        return ()

    def __call__(self, version: str | None = None, reference: str | None = None,
                 language: str | None = None) -> Docs:
        """The Docs, loaded again where the index changed; `version`, where named, must be
        the index's own (`reference` chooses nothing in a single build); with a `language`,
        those of the site's build in that language (`in_language`)."""
        docs = self.current() if language is None else self.in_language(language)
        if version is not None and version != docs.version:
            held = f"version {docs.version}" if docs.version else "an unversioned build"
            raise DocsError(f"version {version!r} is not served: this index holds {held} "
                            "only; search without a version")
        return docs

    def current(self) -> Docs:
        """The Docs, loaded again at this call where the index files changed."""
        if self._stamp_now() != self._stamp:
            with self._lock:
                stamp = self._stamp_now()
                if stamp != self._stamp:
                    self._reload()
        return self.docs

    def in_language(self, language: str) -> Docs:
        """The Docs of the site's build in `language` (`mdchunk.search.languages`): this
        target's, or another language's folder beside it, loaded at the first call for it
        and again when its files change.

        Raises:
            DocsError: naming the languages the site has, when none is `language`.
        """
        try:
            folder = language_folder(self.files.site, language).absolute()
        except LanguageError as error:
            raise DocsError(str(error)) from error
        if folder == self.files.site:
            return self.current()
        with self._lock:
            live = self._languages.get(folder)
            if live is None:
                live = self._languages[folder] = LiveDocs(folder, self.cache_dir)
        return live()

    def _reload(self) -> None:
        try:
            docs, files = load_docs(self.target, self.cache_dir)
        except DocsError as error:
            log.warning("the index changed but cannot be loaded (%s): answering from the "
                        "previous one", error)
            return
        self.docs, self.files = docs, files
        self._stamp = self._stamp_now()
        log.info("index loaded again: %d chunks", len(docs.chunks))

    def _stamp_now(self) -> tuple[tuple[str, int, int] | None, ...]:
        files = getattr(self, "files", None)
        watched = [self.target] if files is None else [
            path for path in (files.jsonl, files.sqlite) if path is not None]
        return tuple(_file_stamp(path) for path in watched)


def _file_stamp(path: Path) -> tuple[str, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return str(path), status.st_mtime_ns, status.st_size


class DocsTree:
    """The Docs of every version of a tree (mike's `versions.json`), each loaded again when its
    index changes; a tool's call is answered by the version it names, else by the version its
    id or absolute url belongs to, else by the default version (`latest`, else the newest)."""

    def __init__(self, root: Path, versions: Sequence[DeployedVersion],
                 cache_dir: Path | None = None) -> None:
        self.root = root
        self._versions = tuple(versions)
        self.default = default_version(versions).version
        self.live = {entry.version: LiveDocs(root / entry.version, cache_dir)
                     for entry in versions}

    @property
    def versions(self) -> tuple[DeployedVersion, ...]:
        """The versions of the tree, newest first."""
        return self._versions

    @property
    def docs(self) -> Docs:
        """The default version's Docs (the server's title and instructions are its)."""
        return self.live[self.default].docs

    def __call__(self, version: str | None = None, reference: str | None = None,
                 language: str | None = None) -> Docs:
        """The Docs of `version` (a name or an alias), else of the version `reference` names
        (an id starts with its version's folder: `doc:1.0/...`; an absolute url lies under its
        version's url), else of the default version; with a `language`, that version's build
        in that language."""
        if version is not None:
            named = named_version(self.versions, version)
            if named is None:
                raise DocsError(f"no version {version!r} in these docs; versions: "
                                f"{described_versions(self.versions)}")
            live = self.live[named.version]
        else:
            live = self.live[self._version_of(reference or "")]
        return live.current() if language is None else live.in_language(language)

    def _version_of(self, reference: str) -> str:
        """The version an id or absolute url belongs to; the default one for another
        reference."""
        reference = reference.strip()
        if reference.startswith("doc:"):
            head = reference.removeprefix("doc:").split("/", 1)[0]
            return head if head in self.live else self.default
        for version, live in self.live.items():
            base = live.docs.site_url
            if base and reference.startswith(base):
                return version
        return self.default


def open_docs(target: Path, cache_dir: Path | None = None) -> LiveDocs | DocsTree:
    """What a server answers from: the Docs of every version where `target` is a tree of
    versions (`find_tree`), else the one index of `target` (see `prepare_index`).

    Raises:
        DocsError: where an index cannot be found, read or made.
    """
    try:
        tree = find_tree(target) if target.is_dir() else None
    except MdChunkError as error:
        raise DocsError(str(error)) from error
    if tree is None:
        return LiveDocs(target, cache_dir)
    return DocsTree(tree.root, tree.versions, cache_dir)


def describe(served: LiveDocs | DocsTree) -> str:
    """One line on what is served and where its SQLite index is (each version's, for a
    tree)."""
    if isinstance(served, DocsTree):
        return "; ".join(f"version {version}: {describe(live)}"
                         for version, live in served.live.items())
    live = served
    docs, files = live.docs, live.files
    made = {"found": "", "beside": f", made from {files.jsonl} and written beside it",
            "cache": f", made from {files.jsonl} and written into the cache folder (the site "
                     "folder cannot be written)"}[files.made]
    return (f"{len(docs.chunks)} chunks of {len(docs.pages)} pages from {files.sqlite}{made}; "
            f"pages' Markdown from {files.site}")
