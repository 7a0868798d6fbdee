"""An unchanged site's build takes the last build's index files, kept beside the page cache;
any other build writes its own, the same as a build without the cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

from mdchunk.session.kept_outputs import FOLDER
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
    kept = tmp_path / ".cache" / "mdchunk" / FOLDER
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
