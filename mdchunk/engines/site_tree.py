"""`mdchunk site` on a tree of versions (mike's `gh-pages`): each version chunked once, in its
own folder, and the root's `llms.txt` that lists them (`mdchunk.outputs.version_tree`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from mdchunk.engines.site import SiteSummary, chunk_site
from mdchunk.errors import MdChunkError
from mdchunk.outputs.twins import LLMS_TXT
from mdchunk.outputs.version_tree import (
    DeployedVersion,
    default_version,
    find_tree,
    root_llms_txt,
)
from mdchunk.outputs.writers import write_text
from mdchunk.settings import BuildSettings, version_site_url

ChunkSite = Callable[[Path, BuildSettings], SiteSummary]
"""How one built site is chunked (`chunk_site` with the command's other arguments)."""


def is_version_tree(folder: Path) -> bool:
    """Whether `folder` is (or holds, under mike's deploy prefix) a tree of versions."""
    return find_tree(folder) is not None


def chunk_version_tree(folder: Path, settings: BuildSettings, chunk: ChunkSite = chunk_site
                       ) -> list[tuple[DeployedVersion, SiteSummary]]:
    """Chunk each version of the tree at `folder` (`find_tree`) in its own folder, with that
    version, then write the tree's root `llms.txt` (when `settings` write `llms.txt`).

    Aliases are not chunked: `versions.json` names each version once, and an alias (a link,
    a copy or redirect pages) leads to its version's folder. `settings.site_url` is the url of
    `folder`; the tree's is under it (with a deploy prefix), each version's under the tree's.

    Raises:
        MdChunkError: no `versions.json`, a version folder that is missing, or a version
            given besides the tree's own (each folder's version is the tree's).
    """
    tree = find_tree(folder)
    if tree is None:
        raise MdChunkError(f"{folder}: no versions.json, not a tree of versions")
    root, versions = tree.root, tree.versions
    site_url = version_site_url(settings.site_url, tree.prefix or None)
    if settings.version is not None:
        raise MdChunkError(f"{root} is a tree of versions (versions.json): each version folder "
                           f"is chunked as its own version, not as {settings.version!r}; unset "
                           "the version option (and MIKE_DOCS_VERSION, READTHEDOCS_VERSION)")
    missing = [entry.version for entry in versions if not (root / entry.version).is_dir()]
    if missing:
        raise MdChunkError(f"{root}: versions.json lists {', '.join(missing)}, which have no "
                           "folder in the tree")
    done = [(entry, chunk(root / entry.version, dataclasses.replace(
        settings, version=entry.version,
        site_url=version_site_url(site_url, entry.version)))) for entry in versions]
    if settings.llms is not None:
        name = _site_name(root / default_version(versions).version) or root.absolute().name
        write_text(root / LLMS_TXT, root_llms_txt(name, versions, site_url))
    return done


def _site_name(folder: Path) -> str:
    """The site's name as a version's `llms.txt` gives it (its first line, `# Name`)."""
    try:
        with (folder / LLMS_TXT).open(encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return ""
    return first.removeprefix("# ").strip() if first.startswith("# ") else ""


__all__ = ["chunk_version_tree", "is_version_tree"]
