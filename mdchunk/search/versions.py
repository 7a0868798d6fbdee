"""Which build of a tree a search reads: the folder of a version.

`mdchunk query` and `mdchunk mcp` are given a folder: a single build, or the root of a tree of
versions (mike's `versions.json`, `mdchunk.outputs.version_tree`). `version_folder` maps it and
the version a user named (or none) to the folder whose index answers; the language step
(`mdchunk.search.languages`) then runs on that folder.
"""

from __future__ import annotations

from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.version_tree import (
    default_version,
    described_versions,
    find_tree,
    named_version,
)
from mdchunk.settings import names_version_folder


class VersionError(MdChunkError):
    """A version the tree does not have; the message lists those it has."""


def version_folder(root: Path, version: str | None) -> Path:
    """The folder of `version` under `root`.

    - A tree (`root/versions.json`, or `root/PREFIX/versions.json` for a tree deployed with
      mike's `--deploy-prefix PREFIX`): the folder of the version so named, or of which it is
      an alias (`latest`); without a version, the one aliased `latest`, else the newest.
    - A single build: itself without a version; with one, its subfolder of that name (Read
      the Docs' `ROOT/<language>/<version>/`), or itself when it is that version's folder.

    Raises:
        VersionError: a version the tree or folder does not have.
        MdChunkError: a `versions.json` that cannot be read.
    """
    tree = find_tree(root)
    if tree is None:
        if version is None:
            return root
        if names_version_folder(version) and (root / version).is_dir():
            return root / version
        if root.absolute().name == version:
            return root
        raise VersionError(f"{root} holds no version {version!r}: it has no versions.json "
                           f"(mike) nor a folder {version!r}")
    if version is None:
        return tree.root / default_version(tree.versions).version
    named = named_version(tree.versions, version)
    if named is not None:
        return tree.root / named.version
    raise VersionError(f"{tree.root} holds no version {version!r}; its versions: "
                       f"{described_versions(tree.versions)}")


__all__ = ["VersionError", "version_folder"]
