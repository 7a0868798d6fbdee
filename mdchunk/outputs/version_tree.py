"""A tree of several builds of one site, one per version, as mike deploys them: the versions
its `versions.json` lists, and the `llms.txt` at its root that lists them.

mike (`mike deploy 2.0 latest`) puts each version's build in its own folder (`ROOT/2.0/`), each
alias (`latest`) beside it as a symbolic link, a copy or redirect pages, and the list of
versions in `ROOT/versions.json`, newest first:

    [{"version": "2.0", "title": "2.0", "aliases": ["latest"]},
     {"version": "1.0", "title": "1.0", "aliases": []}]

Each version's folder holds its own index, `llms.txt` and `llms-full`; an alias names a version
and is never indexed itself. The root's `llms.txt` (`root_llms_txt`) links to each version's.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.twins import index_link, link_text
from mdchunk.settings import names_version_folder

VERSIONS_FILE = "versions.json"
"""The list of the versions of a tree, at its root (mike's name)."""

LATEST = "latest"
"""The alias a tree's default version goes by, where one has it."""


@dataclasses.dataclass(frozen=True, slots=True)
class DeployedVersion:
    """One version of a tree, as `versions.json` lists it."""

    version: str
    """Its name, which is also its folder's name under the root."""
    title: str
    """What the version menu shows (the name unless `mike deploy --title` gave another)."""
    aliases: tuple[str, ...] = ()
    """Other names that lead to it (`latest`, `stable`)."""

    def named(self, name: str) -> bool:
        """Whether `name` is this version's name or one of its aliases."""
        return name == self.version or name in self.aliases


def read_versions(root: Path) -> tuple[DeployedVersion, ...] | None:
    """The versions of the tree at `root`, newest first as mike orders them; None where `root`
    holds no `versions.json` (a single build).

    Raises:
        MdChunkError: a `versions.json` that cannot be read, or is not mike's list.
    """
    path = root / VERSIONS_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MdChunkError(f"{path}: cannot read the list of versions: {error}") from error
    if not isinstance(data, list) or not data:
        raise MdChunkError(f"{path}: expected mike's list of versions (a JSON array of "
                           "{\"version\", \"title\", \"aliases\"}), got no version")
    return tuple(_deployed(path, entry) for entry in data)


@dataclasses.dataclass(frozen=True, slots=True)
class VersionTree:
    """A tree of versions: its root folder and its versions, newest first."""

    root: Path
    """The folder of `versions.json`."""
    versions: tuple[DeployedVersion, ...]
    prefix: str = ""
    """The folder of the tree under the folder it was found from ("" when it is that folder;
    the `--deploy-prefix` mike deployed it with, e.g. `docs`)."""


def find_tree(folder: Path) -> VersionTree | None:
    """The tree of versions at `folder`: `folder` itself where it holds `versions.json`, else
    its one subfolder that does (mike deployed with `--deploy-prefix`); None: a single build.

    Raises:
        MdChunkError: a `versions.json` that cannot be read, or several subfolders that hold
            one (name the tree's folder instead).
    """
    versions = read_versions(folder)
    if versions is not None:
        return VersionTree(folder, versions)
    try:
        below = sorted(child for child in folder.iterdir()
                       if child.is_dir() and not child.is_symlink()
                       and (child / VERSIONS_FILE).is_file())
    except OSError:
        return None
    if len(below) > 1:
        raise MdChunkError(f"{folder}: {', '.join(child.name for child in below)} each hold a "
                           f"{VERSIONS_FILE}; give the folder of one tree of versions")
    if not below:
        return None
    found = read_versions(below[0])
    return VersionTree(below[0], found, below[0].name) if found is not None else None


def _deployed(path: Path, entry: object) -> DeployedVersion:
    """One entry of `versions.json`, checked: a version that names a folder of the tree."""
    if not isinstance(entry, dict) or not isinstance(entry.get("version"), str):
        raise MdChunkError(f"{path}: each entry must be an object with a \"version\", got "
                           f"{entry!r}")
    version = entry["version"]
    if not names_version_folder(version):
        raise MdChunkError(f"{path}: {version!r} names no version folder")
    aliases = entry.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(alias, str) for alias in aliases):
        raise MdChunkError(f"{path}: the aliases of {version!r} must be a list of names, got "
                           f"{aliases!r}")
    title = entry.get("title")
    return DeployedVersion(version, title if isinstance(title, str) and title else version,
                           tuple(sorted(aliases)))


def default_version(versions: Sequence[DeployedVersion]) -> DeployedVersion:
    """The version a reader gets without naming one: the one aliased `latest`, else the
    newest (the first of `versions.json`)."""
    return next((entry for entry in versions if LATEST in entry.aliases), versions[0])


def named_version(versions: Sequence[DeployedVersion], name: str) -> DeployedVersion | None:
    """The version `name` names (its own name or an alias), None where none does."""
    return next((entry for entry in versions if entry.named(name)), None)


def described_versions(versions: Sequence[DeployedVersion]) -> str:
    """The versions in a message: each name with its aliases (`2.0 (latest), 1.0`)."""
    return ", ".join(entry.version + "".join(f" ({alias})" for alias in entry.aliases)
                     for entry in versions)


def root_llms_txt(name: str, versions: Sequence[DeployedVersion], site_url: str) -> str:
    """The root `llms.txt` of a tree: the site's name, which version is the default, and a
    link to each version's own `llms.txt` with its title and aliases (llmstxt.org's format;
    links absolute under `site_url`, the root's url, else relative to the root)."""
    default = default_version(versions)
    lines = [f"# {' '.join(name.split())}", "",
             f"> The documentation in {len(versions)} versions; each has its own llms.txt. "
             f"Without a version named, read {default.version}.", "",
             "## Versions", ""]
    for entry in versions:
        link = index_link(f"{entry.version}/llms.txt", site_url)
        details = [entry.title] if entry.title != entry.version else []
        if entry.aliases:
            details.append(f"aliases: {', '.join(entry.aliases)}")
        said = f": {'; '.join(details)}" if details else ""
        lines.append(f"- [{link_text(entry.version)}]({link}){said}")
    lines.append("")
    return "\n".join(lines)


__all__ = ["LATEST", "VERSIONS_FILE", "DeployedVersion", "VersionTree", "default_version",
           "described_versions", "find_tree", "named_version", "read_versions", "root_llms_txt"]
