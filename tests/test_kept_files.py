"""An unchanged site's build takes the last build's index files and pages' own files (their
Markdown, their twins), kept beside the page cache; any other build writes its own, the same as
a build without the cache."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

from mdchunk.session.kept_files import INDEX_FOLDER, PAGE_FOLDER
from tests.conftest import build_mkdocs

SHARED = ("The same paragraph on both pages, long enough to be a chunk of its own and to be "
          "marked as a duplicate of the first: it tells how the cache keeps each page.\n")
PAGES = {
    "index.md": "# Home\n\nWelcome.\n\n## Next\n\nRead the guide and the FAQ.\n",
    "guide.md": f"# Guide\n\nInstall it.\n\n## Cache\n\n{SHARED}\n## Linux\n\nUse apt.\n",
    "faq.md": f"# FAQ\n\nQuestions.\n\n## Cache\n\n{SHARED}\n## Why\n\nIt is quick.\n",
}
FORMATS = ["native", "flat", "docsearch"]  # (JSON Lines, JSON Lines with marked chunks left
# out by `duplicates: drop`, JSON)
FILES = ("chunks.jsonl", "chunks.flat.jsonl", "docsearch.json")


def _config(root: Path, site: str, **plugin: Any) -> Path:
    config = root / f"{site}.yml"
    config.write_text(yaml.safe_dump({
        "site_name": "Kept", "docs_dir": "docs", "site_dir": site,
        "plugins": [{"mdchunk": {"workers": 0, "formats": FORMATS, **plugin}}]}))
    return config


def _index(config: Path) -> dict[str, bytes]:
    """Build the site of `config`; return its index files."""
    site = build_mkdocs(config)
    return {name: (site / name).read_bytes() for name in FILES}


def _same_as_a_clean_build(root: Path, **plugin: Any) -> None:
    """Build with the cache, then without it into another folder: the same index files."""
    cached = _index(_config(root, "site", **plugin))
    assert cached == _index(_config(root, "clean", cache=False, **plugin))


@pytest.mark.usefixtures("reproducible")
def test_an_unchanged_site_takes_the_last_index_files(tmp_path: Path) -> None:
    for name, text in PAGES.items():
        (tmp_path / "docs").mkdir(exist_ok=True)
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    config = _config(tmp_path, "site")
    first = _index(config)
    assert b"duplicateOf" in first["chunks.jsonl"]
    kept = tmp_path / ".cache" / "mdchunk" / INDEX_FOLDER
    site = tmp_path / "site"
    assert os.path.samefile(kept / "native", site / "chunks.jsonl")
    os.unlink(kept / "flat")  # (a kept file lost: that one is written again)
    os.unlink(site / "chunks.jsonl")  # (MkDocs empties the site folder)
    assert _index(config) == first
    assert os.path.samefile(kept / "native", site / "chunks.jsonl")
    assert os.path.samefile(kept / "docsearch", site / "docsearch.json")
    assert os.path.samefile(kept / "flat", site / "chunks.flat.jsonl")
    with (site / "chunks.jsonl").open("r+b") as handle:  # changed in place: the kept one too
        handle.write(b"[]")
    assert (kept / "native").read_bytes().startswith(b"[]")
    assert _index(config) == first


@pytest.mark.usefixtures("reproducible")
def test_a_changed_site_writes_the_index_files_of_a_clean_build(tmp_path: Path) -> None:
    """A changed page, a removed page, other settings: each build's index files are those of
    a build without the cache, not the last build's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    first = _index(_config(tmp_path, "site"))
    (docs / "faq.md").write_text(PAGES["faq.md"].replace("It is quick.", "It is fast."))
    _same_as_a_clean_build(tmp_path)
    _same_as_a_clean_build(tmp_path, duplicates="drop")  # (the same pages, and marks)
    (docs / "guide.md").unlink()
    _same_as_a_clean_build(tmp_path)
    (docs / "guide.md").write_text(PAGES["guide.md"], encoding="utf-8")
    (docs / "faq.md").write_text(PAGES["faq.md"], encoding="utf-8")
    assert _index(_config(tmp_path, "site")) == first


@pytest.mark.usefixtures("reproducible")
def test_a_site_folder_not_emptied_keeps_no_temporary_name(tmp_path: Path) -> None:
    """`mkdocs build --dirty` leaves the last index file in the site folder, which is the
    cache's file: the build's new name of it does not stay beside it."""
    (tmp_path / "docs").mkdir()
    for name, text in PAGES.items():
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    config = _config(tmp_path, "site")
    first = _index(config)
    build(load_config(str(config)), dirty=True)
    site = tmp_path / "site"
    assert {name: (site / name).read_bytes() for name in FILES} == first
    assert sorted(path.name for path in site.iterdir() if path.name.startswith(".")) == []


def _page_files(site: Path) -> dict[str, bytes]:
    """The site's pages' own files (Markdown and twins: every `.md` file) by their path."""
    return {path.relative_to(site).as_posix(): path.read_bytes()
            for path in sorted(site.rglob("*.md"))}


def _write_pages(docs: Path) -> None:
    docs.mkdir(exist_ok=True)
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")


def _kept_names(kept: Path, site: Path) -> dict[str, Path]:
    """Each page file of `site` that is a file kept in `kept`, by its path in the site."""
    inodes = {path.stat().st_ino: path for path in kept.iterdir() if path.suffix == ".md"}
    return {path: inodes[(site / path).stat().st_ino] for path in _page_files(site)
            if (site / path).stat().st_ino in inodes}


@pytest.mark.usefixtures("reproducible")
def test_an_unchanged_site_takes_the_last_page_files(tmp_path: Path) -> None:
    """Every page's Markdown and twin is the file the first build kept; one changed in place
    through the site's name is written again, as a build without the cache writes it."""
    _write_pages(tmp_path / "docs")
    config = _config(tmp_path, "site", formats=["native"])
    site, kept = build_mkdocs(config), tmp_path / ".cache" / "mdchunk" / PAGE_FOLDER
    first = _page_files(site)
    assert {"guide/index.html.md", "guide.md", "index.md", "faq.md"} <= set(first)
    assert set(_kept_names(kept, site)) == set(first)  # (every one kept)
    clean = _page_files(build_mkdocs(_config(tmp_path, "clean", cache=False,
                                             formats=["native"])))
    assert first == clean
    inodes = _inodes(site)
    again = build_mkdocs(config)
    assert _page_files(again) == first
    assert _inodes(site) == inodes  # (the same files: none written again)
    with (site / "guide.md").open("r+b") as handle:  # (the kept file changes with it)
        handle.write(b"Edited")
    assert _page_files(build_mkdocs(config)) == first
    assert set(_kept_names(kept, site)) == set(first)
    rewritten = _inodes(site)
    assert {path for path in first if rewritten[path] != inodes[path]} == {
        "guide.md", "guide/index.html.md"}  # (that page's files are written again)


def _inodes(site: Path) -> dict[str, int]:
    return {path: (site / path).stat().st_ino for path in _page_files(site)}


@pytest.mark.usefixtures("reproducible")
def test_a_changed_page_has_its_files_written_and_the_old_ones_go(tmp_path: Path) -> None:
    _write_pages(tmp_path / "docs")
    config = _config(tmp_path, "site", formats=["native"])
    site, kept = build_mkdocs(config), tmp_path / ".cache" / "mdchunk" / PAGE_FOLDER
    before = {path.name for path in kept.iterdir()}
    (tmp_path / "docs" / "faq.md").write_text(PAGES["faq.md"].replace("quick", "fast"))
    files = _page_files(build_mkdocs(config))
    assert b"It is fast." in files["faq.md"] and b"It is fast." in files["faq/index.html.md"]
    assert files == _page_files(build_mkdocs(_config(tmp_path, "clean", cache=False,
                                                     formats=["native"])))
    after = {path.name for path in kept.iterdir()}
    assert len(before - after) == 2 and len(after - before) == 2  # (faq's Markdown and twin)
    assert set(_kept_names(kept, site)) == set(files)


@pytest.fixture
def other_file_system(tmp_path: Path) -> Iterator[Path]:
    """A folder on another file system than `tmp_path` (a tmpfs), where links cannot reach."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no tmpfs at /dev/shm on another file system than the tests' folder")
    folder = Path(tempfile.mkdtemp(dir=shm, prefix="mdchunk-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.usefixtures("reproducible")
def test_a_cache_on_another_file_system_writes_every_file(tmp_path: Path,
                                                         other_file_system: Path) -> None:
    """Where the cache cannot link to the site, every build writes the files it would have
    taken from the cache: the same bytes, nothing kept, nothing left over."""
    _write_pages(tmp_path / "docs")
    config = _config(tmp_path, "site", formats=FORMATS, cache_dir=str(other_file_system))
    first = build_mkdocs(config)
    files, index = _page_files(first), {name: (first / name).read_bytes() for name in FILES}
    again = build_mkdocs(config)
    assert _page_files(again) == files
    assert {name: (again / name).read_bytes() for name in FILES} == index
    assert all(path.stat().st_nlink == 1 for path in again.rglob("*") if path.is_file())
    assert [path for path in again.rglob(".*") if path.name.endswith(".tmp")] == []


@pytest.mark.usefixtures("reproducible")
@pytest.mark.parametrize("damage", ["manifest", "file", "folder"])
def test_a_damaged_kept_folder_only_means_files_written_again(tmp_path: Path,
                                                              damage: str) -> None:
    """A manifest that is no JSON, a kept file gone, a folder where a kept file was: the build
    writes what it cannot take, with the bytes of a build without the cache, and keeps every
    file it can (a name it cannot keep is that file's loss alone)."""
    _write_pages(tmp_path / "docs")
    config = _config(tmp_path, "site", formats=FORMATS)
    first = build_mkdocs(config)
    files, index = _page_files(first), {name: (first / name).read_bytes() for name in FILES}
    cache = tmp_path / ".cache" / "mdchunk"
    for folder in (cache / PAGE_FOLDER, cache / INDEX_FOLDER):
        kept = sorted(path for path in folder.iterdir() if path.name != "manifest.json")
        if damage == "manifest":
            (folder / "manifest.json").write_bytes(b"\x00{not json")
        elif damage == "file":
            kept[0].unlink()
        else:
            kept[0].unlink()
            kept[0].mkdir()
    again = build_mkdocs(config)
    assert _page_files(again) == files
    assert {name: (again / name).read_bytes() for name in FILES} == index
    assert [path for path in again.rglob(".*") if path.name.endswith(".tmp")] == []
    assert len(_kept_names(cache / PAGE_FOLDER, again)) == len(files) - (damage == "folder")
