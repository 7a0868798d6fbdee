"""The built sites a Ray run reads: where each is (a local folder, or a url that fsspec
opens), its name among the others, and its pages' HTML where a Ray task reads it."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import posixpath
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from mdchunk.errors import MdChunkError, OptionError
from mdchunk.settings import names_version_folder

PAGE_FILES = ".html"
"""The files of a built site that mdchunk reads (`mdchunk.engines.site.documentation_pages`):
all a site on another file system is copied of, and what a site's state hashes."""


@dataclasses.dataclass(frozen=True, slots=True)
class RaySite:
    """A built site to chunk, and the prefix of its ids."""

    path: Path | str
    """The built site's folder (what `mdchunk site` is given), where the Ray workers see it:
    a local path (relative: to the folder the run is started in), or the url of a folder that
    fsspec opens (`s3://bucket/docs/beacon`, `file:///srv/beacon`, `gs://...`; its file system's
    fsspec package installed where the workers run)."""
    prefix: str | None = None
    """What its ids start with (`doc:PREFIX/guide::ch0`) and its rows' `site`, unique among
    the sites; None: the folder's name; "": none (its ids are those of `mdchunk site`, and its
    rows' `site` is the folder's name)."""

    @property
    def name(self) -> str:
        """The site's name in its rows, and of its folder among the per-site outputs."""
        return self.prefix or folder_name(self.path)


def is_url(path: Path | str) -> bool:
    """Whether `path` is the url of a folder on a file system fsspec opens (`s3://...`)."""
    return isinstance(path, str) and "://" in path


def folder_name(path: Path | str) -> str:
    """The last part of a site's path or url (`beacon` for `s3://bucket/docs/beacon/`)."""
    return str(path).rstrip("/").rsplit("/", 1)[-1] if is_url(path) else Path(path).name


def checked_sites(sites: Iterable[RaySite | Path | str]) -> list[RaySite]:
    """`sites` as `RaySite`s with their prefixes, each a folder that exists, checked.

    Raises:
        OptionError: a prefix that is no folder name, or that two sites share.
        MdChunkError: a site that is no folder.
    """
    checked: list[RaySite] = []
    seen: dict[str, Path | str] = {}
    for given in sites:
        site = given if isinstance(given, RaySite) else RaySite(
            given if is_url(given) else Path(given))
        if site.prefix is None:
            site = dataclasses.replace(site, prefix=folder_name(site.path))
        if not _is_folder(site.path):
            raise MdChunkError(f"{site.path}: not a folder (build the site first)")
        if site.prefix and not names_version_folder(site.prefix):
            raise OptionError("prefix", f"{site.prefix!r} (of the site {site.path}) must name "
                              "a folder (no /, \\, . or ..)")
        if site.name in seen:
            raise OptionError("prefix", f"the sites {seen[site.name]} and {site.path} are both "
                              f"named {site.name!r}: give each a prefix of its own")
        seen[site.name] = site.path
        checked.append(site)
    return checked


def location(site: RaySite) -> str:
    """Where a Ray task finds the site: its url, or its local folder's absolute path."""
    return str(site.path) if is_url(site.path) else str(Path(site.path).resolve())


def _is_folder(path: Path | str) -> bool:
    if not is_url(path):
        return Path(path).is_dir()
    import fsspec.core

    try:
        system, root = fsspec.core.url_to_fs(str(path))
        return bool(system.isdir(root))
    except (OSError, ValueError, ImportError) as error:
        raise MdChunkError(f"{path}: cannot be opened: {error}") from error


@contextlib.contextmanager
def local_site(where: str) -> Iterator[Path]:
    """The site at `where` (`location`) as a local folder: itself, or, for a url, a temporary
    copy of its pages' HTML (`PAGE_FILES`, all mdchunk reads of a built site), removed after.

    Raises:
        MdChunkError: a url that cannot be read, naming it.
    """
    if not is_url(where):
        yield Path(where)
        return
    import fsspec.core

    with tempfile.TemporaryDirectory(prefix="mdchunk-ray-site-") as folder:
        try:
            system, root = fsspec.core.url_to_fs(where)
            root = root.rstrip("/")
            for path in system.find(root):
                if path.endswith(PAGE_FILES):
                    target = Path(folder, posixpath.relpath(path, root))
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(system.cat_file(path))
        except (OSError, ValueError) as error:
            raise MdChunkError(f"{where}: cannot be read: {error}") from error
        yield Path(folder)


def page_hashes(site_dir: Path) -> dict[str, str]:
    """The sha256 of each HTML file of the site, by its path in the site: what a later run
    compares to tell an unchanged site."""
    return {path.relative_to(site_dir).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(site_dir.rglob(f"*{PAGE_FILES}")) if path.is_file()}
