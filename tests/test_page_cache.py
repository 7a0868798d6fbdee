"""The page cache: `mkdocs build` runs in fresh processes chunk only the pages that changed."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mdchunk.chunking import Chunker, PageInput
from mdchunk.options import ChunkOptions
from mdchunk.outputs.page_output import page_output
from mdchunk.outputs.pages import PageOutput
from mdchunk.session.cache import PageCache, PagePointer
from mdchunk.session.duplicate_search import MARKS_FILE
from mdchunk.settings import OutputSettings
from tests.conftest import SiteBuilder
from tests.helpers import CHILD_PIDS_SOURCE
from tests.invariants import Index

PAGES = {
    "index.md": "# Home\n\nWelcome to the cached site.\n\n## Next\n\nRead the guide.\n",
    "guide.md": "# Guide\n\nInstall it.\n\n## Linux\n\nUse the package manager.\n",
    "faq.md": "# FAQ\n\nQuestions people ask.\n\n## Why\n\nBecause it is quick.\n",
}
ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "DISABLE_MKDOCS_2_WARNING": "true"}
_CHUNKED = re.compile(r"mdchunk: (\d+) pages chunked ")


def _project(root: Path, pages: dict[str, str] | None = None, **plugin: Any) -> Path:
    """Write a project in `root` (docs, mkdocs.yml); return its mkdocs.yml."""
    for name, text in (pages or PAGES).items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, encoding="utf-8")
    return _config(root, "mkdocs.yml", "site", **{"workers": 0, **plugin})


def _config(root: Path, name: str, site: str, **plugin: Any) -> Path:
    config = root / name
    config.write_text(yaml.safe_dump({"site_name": "Cached", "docs_dir": "docs",
                                      "site_dir": site, "plugins": [{"mdchunk": plugin}]}))
    return config


def _build(config: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`mkdocs build -v` in a fresh process, in the project's folder (where `-m` finds no
    package of the repository's): how many pages it chunked, and its log."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-v", *args, "-f", str(config)],
        capture_output=True, text=True, check=False, env=env or ENV, cwd=config.parent,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output, output
    [chunked] = _CHUNKED.findall(output)
    return int(chunked), output


def _index(root: Path, site: str = "site") -> bytes:
    return (root / site / "chunks.jsonl").read_bytes()


def _entries(root: Path) -> dict[str, Path]:
    """The cache's entries by the source path of their page."""
    entries = {}
    for path in sorted((root / ".cache" / "mdchunk").glob("*.json")):
        if path.name not in ("manifest.json", MARKS_FILE):
            header = path.read_bytes().split(b"\n", 1)[0]
            entries[json.loads(header)["page"]["source_path"]] = path
    return entries


def _warnings(output: str) -> list[str]:
    """mdchunk's warnings (MkDocs warns of every --dirty build)."""
    return [line for line in output.splitlines() if "WARNING" in line and "mdchunk:" in line]


def _outputs(site: Path) -> dict[str, bytes]:
    """Every file of a built site but MkDocs' pages (whose nav a --dirty build leaves stale)."""
    files = {path.relative_to(site).as_posix(): path for path in sorted(site.rglob("*"))}
    return {name: path.read_bytes() for name, path in files.items() if path.is_file() and (
        not name.endswith(".html") or name.startswith("_mdchunk/"))}


def test_a_second_build_chunks_nothing_and_writes_the_same_index(tmp_path: Path) -> None:
    config = _project(tmp_path, workers=1)  # chunked in the worker process
    assert _build(config)[0] == 3
    first = _index(tmp_path)
    markdown = (tmp_path / "site" / "guide" / "index.html.md").read_bytes()
    assert sorted(_entries(tmp_path)) == ["faq.md", "guide.md", "index.md"]
    (tmp_path / "site" / "chunks.jsonl").unlink()
    chunked, output = _build(config)
    assert chunked == 0 and "(3 kept from the last build)" in output
    assert _index(tmp_path) == first and first.count(b"\n") >= 3
    assert (tmp_path / "site" / "guide" / "index.html.md").read_bytes() == markdown


@pytest.mark.parametrize("workers", [0, 1])
def test_the_worker_writes_the_entries_it_chunked(tmp_path: Path, workers: int) -> None:
    """Chunked in a worker or inline, each page's entry is written as it is chunked: the same
    entries either way, and the debug log says where the pages were chunked."""
    config = _project(tmp_path, workers=workers)
    _, output = _build(config)
    [chunked] = [line for line in output.splitlines() if " pages chunked " in line]
    assert ("in the worker process" in chunked) == bool(workers), chunked
    assert "3 written" in output
    assert sorted(_entries(tmp_path)) == ["faq.md", "guide.md", "index.md"]
    assert _build(config)[0] == 0


@pytest.mark.parametrize("workers", [0, 1])
def test_an_edited_page_is_the_only_one_chunked_again(tmp_path: Path, workers: int) -> None:
    """Also in the worker process: the index keeps MkDocs' page order (index, faq, guide) though
    the edited page's records come after the others'."""
    config = _project(tmp_path, workers=workers)
    _build(config)
    old_entry = _entries(tmp_path)["faq.md"]
    (tmp_path / "docs" / "faq.md").write_text(
        "# FAQ\n\nInstall it with care.\n\n## Why\n\nBecause it is quick.\n")
    assert _build(config)[0] == 1
    uncached = _config(tmp_path, "uncached.yml", "site-uncached", workers=workers, cache=False)
    assert _build(uncached)[0] == 3
    assert _index(tmp_path) == _index(tmp_path, "site-uncached")
    assert b"Install it with care." in _index(tmp_path)
    entries = _entries(tmp_path)
    assert sorted(entries) == ["faq.md", "guide.md", "index.md"]
    assert not old_entry.exists()  # the edited page's old entry was pruned


def test_a_deleted_page_leaves_the_index_and_the_cache(tmp_path: Path) -> None:
    config = _project(tmp_path)
    _build(config)
    (tmp_path / "docs" / "faq.md").unlink()
    assert _build(config)[0] == 0
    assert sorted(_entries(tmp_path)) == ["guide.md", "index.md"]
    assert set(Index.load(tmp_path / "site").pages()) == {"doc:guide", "doc:index"}


def test_changed_options_reuse_nothing(tmp_path: Path) -> None:
    config = _project(tmp_path)
    _build(config)
    before = set(_entries(tmp_path).values())
    config = _project(tmp_path, max_tokens=100)
    assert _build(config)[0] == 3
    after = set(_entries(tmp_path).values())
    assert len(after) == 3 and not before & after  # the other options' entries are gone
    record = Index.load(tmp_path / "site").records[0]
    assert record["metadata"]["chunkingOptions"]["max_tokens"] == 100


def test_other_code_under_the_same_version_reuses_nothing(tmp_path: Path) -> None:
    """A development checkout edited between two builds keeps mdchunk's version: the second
    build chunks every page again instead of reading records the code before it wrote."""
    code = tmp_path / "code"
    root = Path(__file__).resolve().parent.parent
    for package in ("mdchunk", "mkdocs_mdchunk"):
        shutil.copytree(root / package, code / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    config = _project(tmp_path / "site-project")
    env = {**ENV, "PYTHONPATH": str(code)}
    assert _build(config, env=env)[0] == 3
    assert _build(config, env=env)[0] == 0
    edited = code / "mdchunk" / "chunking" / "packing.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _build(config, env=env)[0] == 3


@pytest.mark.parametrize("workers", [0, 1])
def test_an_entry_gives_the_size_of_each_part_where_it_lies(tmp_path: Path, workers: int
                                                            ) -> None:
    """A built site's entries: the header gives the size of every part, and each part lies
    where the sizes say (a part is read alone: the page Markdown the build wrote, each
    format's records as the index holds them); the entry is exactly that long."""
    config = _project(tmp_path, workers=workers, formats=["native", "flat"])
    _build(config)
    index = _index(tmp_path).splitlines(keepends=True)
    for source, path in _entries(tmp_path).items():
        data = path.read_bytes()
        line, rest = data.split(b"\n", 1)
        prints, markdown, inspector, blocks = json.loads(line)["sizes"]
        assert json.loads(rest[:prints]) and rest[prints:prints + 1] == b"\n"
        rest = rest[prints + 1:]
        written = tmp_path / "site" / source.replace("index.md", "").removesuffix(".md")
        assert rest[:markdown] == (written / "index.html.md").read_bytes()
        rest = rest[markdown + 1:]
        assert json.loads(rest[:inspector]) is None
        rest = rest[inspector + 1:]
        assert list(blocks) == ["native", "flat"] and len(rest) == sum(blocks.values())
        native = rest[:blocks["native"]].splitlines(keepends=True)
        assert native and all(line in index for line in native)


def test_two_site_folders_sharing_the_cache_keep_each_others_entries(tmp_path: Path) -> None:
    """A build prunes the entries no pointer names, those of another site folder's pages
    kept: each site's next build chunks nothing, and an edited page is the only one chunked."""
    one = _project(tmp_path)
    other = _config(tmp_path, "other.yml", "site-other", workers=0)
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nQuestions.\n", encoding="utf-8")
    assert _build(other)[0] == 3
    (tmp_path / "docs" / "faq.md").write_text(PAGES["faq.md"], encoding="utf-8")
    assert _build(one)[0] == 1  # faq.md differs; the others are the other site's entries
    entries = len([path for path in (tmp_path / ".cache" / "mdchunk").glob("*.json")
                   if path.name != MARKS_FILE])
    assert entries == 4
    assert _build(one)[0] == 0
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nQuestions.\n", encoding="utf-8")
    assert _build(other)[0] == 0  # its faq.md entry outlived the first site's prunes


def test_an_entry_shortened_inside_a_record_is_chunked_again(tmp_path: Path) -> None:
    """An entry a byte short in the middle of a record (its lines all there) is a miss: the
    page is chunked again, and the index is the one a whole entry gives."""
    config = _project(tmp_path)
    _build(config)
    first = _index(tmp_path)
    entry = _entries(tmp_path)["guide.md"]
    whole = entry.read_bytes()
    cut = whole.rindex(b'"', 0, len(whole) - 2)  # inside the last record
    entry.write_bytes(whole[:cut] + whole[cut + 1:])
    chunked, output = _build(config)
    assert chunked == 1 and "cannot be used, its page is chunked again" in output
    assert _index(tmp_path) == first and entry.read_bytes() == whole


def test_a_corrupt_entry_is_chunked_again(tmp_path: Path) -> None:
    config = _project(tmp_path)
    _build(config)
    first = _index(tmp_path)
    entries = _entries(tmp_path)
    truncated = entries["guide.md"].read_bytes()
    entries["guide.md"].write_bytes(truncated[: len(truncated) // 2])
    entries["faq.md"].write_text('{"version": "0.1.0", "page": []}')  # valid JSON, wrong shape
    chunked, output = _build(config)
    assert chunked == 2
    assert "cannot be used, its page is chunked again" in output
    assert _index(tmp_path) == first
    assert entries["guide.md"].read_bytes() == truncated  # written again, whole
    assert _build(config)[0] == 0


def test_an_unwritable_cache_folder_warns_once_and_builds(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder")
    config = _project(tmp_path, cache_dir="blocker/cache")
    chunked, output = _build(config)
    assert chunked == 3
    warnings = [line for line in output.splitlines() if "WARNING" in line]
    assert len(warnings) == 1, warnings
    assert "cannot write the page cache folder" in warnings[0]
    assert str(tmp_path / "blocker" / "cache") in warnings[0]
    assert len(Index.load(tmp_path / "site").pages()) == 3


def test_an_absolute_cache_dir_is_used_as_is(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere" / "cache"
    config = _project(tmp_path / "project", cache_dir=str(folder))
    assert _build(config)[0] == 3
    assert len(list(folder.glob("?" * 64 + ".json"))) == 3
    assert any((folder / "pages").glob("*.json"))
    assert not (tmp_path / "project" / ".cache").exists()
    assert _build(config)[0] == 0


@pytest.mark.parametrize("workers", [0, 1])
def test_a_dirty_build_writes_the_site_of_a_full_build(tmp_path: Path, workers: int) -> None:
    """`mkdocs build --dirty` in a new process renders only the edited page: the others are
    taken from the cache through its manifest, and every output is that of a full build."""
    plugin: dict[str, Any] = {"workers": workers, "formats": list(ALL_FORMATS), "inspector": True}
    config = _project(tmp_path, **plugin)
    _build(config)
    before = _entries(tmp_path)
    guide = tmp_path / "site" / "guide" / "index.html.md"
    written = guide.stat().st_mtime_ns
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nNew questions.\n\n## Why\n\nNo idea.\n")
    chunked, output = _build(config, "--dirty")
    assert chunked == 1 and "(2 kept from the last build)" in output
    assert not _warnings(output), output
    assert guide.stat().st_mtime_ns == written  # the Markdown of a page not rendered: as it was
    full = _config(tmp_path, "full.yml", "site-full", **plugin, cache=False)
    _build(full)
    assert b"No idea." in _index(tmp_path)
    assert _index(tmp_path) == _index(tmp_path, "site-full")
    assert _outputs(tmp_path / "site") == _outputs(tmp_path / "site-full")
    # every page was there: the manifest names the new entry, the edited page's old one is gone
    entries = _entries(tmp_path)
    assert sorted(entries) == ["faq.md", "guide.md", "index.md"]
    assert not before["faq.md"].exists() and entries["guide.md"] == before["guide.md"]
    chunked, output = _build(config, "--dirty")  # nothing changed: nothing rendered
    assert chunked == 0 and "(3 kept from the last build)" in output
    assert not _warnings(output), output
    assert _outputs(tmp_path / "site") == _outputs(tmp_path / "site-full")


def test_a_dirty_build_without_the_cache_names_the_pages_it_lacks(tmp_path: Path) -> None:
    config = _project(tmp_path, cache=False)
    _build(config)
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nNew questions.\n")
    chunked, output = _build(config, "--dirty")
    assert chunked == 1
    [warning] = _warnings(output)
    assert "lacks 2 pages that MkDocs did not render: index.md, guide.md" in warning, warning
    assert "the page cache is off" in warning and "a full build puts them back" in warning
    assert "cache: true" in warning
    assert set(Index.load(tmp_path / "site").pages()) == {"doc:faq"}
    assert not (tmp_path / ".cache").exists()


def test_a_dirty_build_after_the_cache_folder_was_deleted_warns(tmp_path: Path) -> None:
    config = _project(tmp_path)
    _build(config)
    shutil.rmtree(tmp_path / ".cache")
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nNew questions.\n")
    chunked, output = _build(config, "--dirty")
    assert chunked == 1
    [warning] = _warnings(output)
    assert "lacks 2 pages that MkDocs did not render: index.md, guide.md" in warning, warning
    assert f"not found in the page cache {tmp_path / '.cache' / 'mdchunk'}" in warning
    assert "(pages missing: none pruned)" in output
    # the next --dirty build renders nothing: the page chunked by the last one is kept from
    # the cache (its source unchanged), the two missing pages are named again
    chunked, output = _build(config, "--dirty")
    [warning] = _warnings(output)
    assert chunked == 0 and "lacks 2 pages" in warning, warning
    assert [record["pageUrl"] for record in Index.load(tmp_path / "site").records] == ["faq/"]
    _build(config)  # a full build puts every page back, and the manifest
    assert _build(config, "--dirty")[0] == 0
    assert len(Index.load(tmp_path / "site").pages()) == 3


def test_a_page_added_before_a_dirty_build_is_indexed_with_the_others(tmp_path: Path) -> None:
    config = _project(tmp_path)
    _build(config)
    (tmp_path / "docs" / "cli.md").write_text("# CLI\n\nRun it.\n\n## Flags\n\nNone.\n")
    chunked, output = _build(config, "--dirty")
    assert chunked == 1 and "(3 kept from the last build)" in output
    assert not _warnings(output), output
    _build(_config(tmp_path, "full.yml", "site-full", workers=0, cache=False))
    assert _index(tmp_path) == _index(tmp_path, "site-full")
    assert set(Index.load(tmp_path / "site").pages()) == {
        "doc:index", "doc:cli", "doc:faq", "doc:guide"}


def test_a_dirty_build_never_takes_a_page_whose_source_changed_since_the_manifest(
        tmp_path: Path) -> None:
    """A page rendered by a build that did not write the manifest (`cache: false` here) is not
    taken through it: its entry is of the page's older source."""
    config = _project(tmp_path)
    _build(config)
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nNew questions.\n")
    _build(_config(tmp_path, "uncached.yml", "site", workers=0, cache=False))
    chunked, output = _build(config, "--dirty")  # MkDocs renders no page: each HTML is newer
    [warning] = _warnings(output)
    assert chunked == 0 and "lacks 1 page that MkDocs did not render: faq.md" in warning
    assert "a full build puts it back" in warning
    assert set(Index.load(tmp_path / "site").pages()) == {"doc:index", "doc:guide"}


def test_a_dirty_build_leaves_excluded_pages_out_without_a_warning(tmp_path: Path) -> None:
    pages = {**PAGES, "secret.md": "---\nmdchunk:\n  exclude: true\n---\n# Secret\n\nHush.\n",
             "notes/todo.md": "# To do\n\nLater.\n"}
    config = _project(tmp_path, pages, exclude=["notes/*"])
    _build(config)
    (tmp_path / "docs" / "faq.md").write_text("# FAQ\n\nNew questions.\n")
    chunked, output = _build(config, "--dirty")
    assert chunked == 1 and not _warnings(output), output
    assert set(Index.load(tmp_path / "site").pages()) == {"doc:index", "doc:faq", "doc:guide"}
    # no pattern now: the page it left out was never chunked, and MkDocs does not render it
    config = _config(tmp_path, "mkdocs.yml", "site", workers=0)
    chunked, output = _build(config, "--dirty")
    [warning] = _warnings(output)
    assert chunked == 0 and "lacks 1 page that MkDocs did not render: notes/todo.md" in warning


def test_serve_dirty_rebuild_prunes_the_edited_pages_old_entry(
        make_site: SiteBuilder, tmp_path: Path) -> None:
    """One plugin object across rebuilds (as under `mkdocs serve --dirty`): it has every page."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    pages = {name: text.replace("# ", "# Served ", 1) for name, text in PAGES.items()}
    make_site(pages, plugin={"workers": 0})
    before = _entries(tmp_path)
    assert sorted(before) == ["faq.md", "guide.md", "index.md"]
    (tmp_path / "docs" / "faq.md").write_text("# Served FAQ\n\nNew questions.\n")
    build(load_config(config_file=str(tmp_path / "mkdocs.yml")), dirty=True)
    after = _entries(tmp_path)
    assert sorted(after) == ["faq.md", "guide.md", "index.md"]
    assert not before["faq.md"].exists() and after["guide.md"] == before["guide.md"]


def test_pages_kept_in_memory_fill_a_new_cache(make_site: SiteBuilder, tmp_path: Path) -> None:
    """`cache` turned on under `mkdocs serve`: the pages it keeps are written to the cache."""
    pages = {name: text.replace("# ", "# Kept ", 1) for name, text in PAGES.items()}
    make_site(pages, plugin={"workers": 0, "cache": False})
    assert not (tmp_path / ".cache").exists()
    make_site(pages, plugin={"workers": 0})
    assert sorted(_entries(tmp_path)) == ["faq.md", "guide.md", "index.md"]


def test_cache_false_writes_no_cache_folder(make_site: SiteBuilder, tmp_path: Path) -> None:
    site = make_site(PAGES, plugin={"cache": False})
    assert (site / "chunks.jsonl").is_file()
    assert not (tmp_path / ".cache").exists()


@pytest.mark.parametrize(
    ("options", "option", "fragment"),
    [
        ({"cache": 3}, "cache", "must be a bool (true or false), got 3"),
        ({"cache_dir": 5}, "cache_dir", "must be a str (text), got 5"),
        ({"cache_dir": " "}, "cache_dir", "must name a folder, got ' '"),
    ],
)
def test_bad_cache_options_stop_the_build_naming_the_option(
        tmp_path: Path, options: dict[str, object], option: str, fragment: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(
        {"site_name": "x", "plugins": [{"mdchunk": options}]}))
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(tmp_path / "mkdocs.yml")],
        capture_output=True, text=True, check=False, env=ENV,
    )
    message = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"option '{option}'" in message and fragment in message, message
    assert not (tmp_path / "site").exists() and not (tmp_path / ".cache").exists()


ALL_FORMATS = ("native", "files", "hepilot", "semantic", "flat", "markdown_chunker", "adr",
               "docsearch")


def _page(text: str) -> PageOutput:
    chunker = Chunker(ChunkOptions.validated({}), processed_at="2024-01-01T00:00:00Z")
    page = PageInput(html=text, source_path="p.md", url="p/", title="P", meta={})
    settings = OutputSettings(formats=ALL_FORMATS, inspector=True, duplicates=True)
    return page_output(chunker.chunk_page(page), settings)


def _whole(cache: PageCache, key: str) -> PageOutput | None:
    """The page kept for `key` with its content, or None where the cache misses."""
    return cache.read(key) if cache.summary(key) is not None else None


def test_put_read_prune_round_trip(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    first = _page("<h1>P</h1><p>One \u00e9t\u00e9.</p><h2 id='a'>A</h2>"
                  "<pre><code>x = 1</code></pre>")
    second = _page("<h1>P</h1><p>Two.</p>")
    cache = PageCache(tmp_path / "cache", "settings")
    assert _whole(cache, "k1") is None and not cache.known("k1")
    cache.put("k1", first)
    cache.put("k2", second)
    again = PageCache(tmp_path / "cache", "settings")
    restored = _whole(again, "k1")
    assert restored == first and again.known("k1")
    assert all(isinstance(record, str) for records in restored.records.values()
               for record in records)  # every format's records: JSON text, kept as it is
    assert restored.records["files"] == first.records["files"]
    assert _whole(PageCache(tmp_path / "cache", "other settings"), "k1") is None
    monkeypatch.setattr("mdchunk.session.cache.__version__", "9.9.9")
    assert _whole(again, "k1") is None  # another version's file name
    monkeypatch.undo()
    (tmp_path / "cache" / "notes.json").write_text("{}")  # not named as an entry: kept
    (tmp_path / "cache" / ("0" * 64 + ".json")).write_text("{}")  # an unused entry
    assert again.prune({"k1"}) == 2
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(
        [again.path("k1").name, "notes.json"])
    assert _whole(again, "k1") == first and _whole(again, "k2") is None
    assert cache.known("k2") and cache.prune({"k1"}) == 0 and not cache.known("k2")
    header, *rest = again.path("k1").read_bytes().split(b"\n")
    again.path("k1").write_bytes(b"\n".join(
        [json.dumps({**json.loads(header), "version": "0.0.1"}).encode(), *rest]))
    assert _whole(again, "k1") is None  # another version's entry under this name
    again.path("k1").write_bytes(b"\x00\xff not json")
    with caplog.at_level("DEBUG", logger="mdchunk.session.cache"):
        assert _whole(again, "k1") is None
    assert again.path("k1").name in caplog.text


def test_an_entry_is_read_whole_or_not_at_all(tmp_path: Path) -> None:
    """`summary` gives the page's counts only; `read` its content; a cut entry is a miss."""
    page = _page("<h1>P</h1><p>Text.</p><h2 id='a'>A</h2><p>More text.</p>")
    cache = PageCache(tmp_path / "cache", "settings")
    cache.put("k1", page)
    summary = cache.summary("k1")
    assert summary is not None and summary.stored
    assert (summary.chunks, summary.markdown, summary.records) == (page.chunks, "", {})
    assert summary == page.without_content() and cache.read("k1") == page
    with pytest.raises(ValueError, match=r"p\.md: a page without its content"):
        cache.put("k2", summary)
    lines = cache.path("k1").read_bytes().split(b"\n")
    markdown = page.markdown.encode()  # kept as it is (not as JSON), after the header
    assert page.prints and json.loads(lines[1]) == list(page.prints)  # and the prints
    rest = cache.path("k1").read_bytes().split(b"\n", 2)[2]
    assert b"\n" in markdown and rest.startswith(markdown + b"\n")
    assert cache.read("k1", prints=False) == dataclasses.replace(page, prints=())
    assert rest[len(markdown) + 1:].count(b"\n") == 1 + sum(map(len, page.records.values()))
    for cut in (lines[:-2], [*lines[:-2], b""]):  # a record missing
        cache.path("k1").write_bytes(b"\n".join(cut))
        assert cache.summary("k1") is None and _whole(cache, "k1") is None
        with pytest.raises(ValueError, match="truncated"):
            cache.read("k1")
    cache.path("k1").unlink()
    with pytest.raises(FileNotFoundError):
        cache.read("k1")


def test_the_markdown_alone_is_read_from_the_first_lines_of_an_entry(tmp_path: Path) -> None:
    page = _page("<h1>P</h1><p>Text é.</p><h2 id='a'>A</h2><p>More text.</p>")
    cache = PageCache(tmp_path / "cache", "settings")
    cache.put("k1", page)
    assert cache.markdown("k1") == page.markdown
    lines = cache.path("k1").read_bytes().split(b"\n")
    cache.path("k1").write_bytes(b"\n".join(lines[:2]) + b"\n" + page.markdown.encode()[:-3])
    with pytest.raises(ValueError, match="truncated"):
        cache.markdown("k1")
    header = lines[0].replace(b'"settings":"settings"', b'"settings":"another build"', 1)
    assert header != lines[0]
    cache.path("k1").write_bytes(b"\n".join([header, *lines[1:3]]) + b"\n")
    with pytest.raises(ValueError, match="another version, settings or page"):
        cache.markdown("k1")
    cache.path("k1").write_bytes(b"[]\n")
    with pytest.raises(ValueError, match="another version, settings or page"):
        cache.markdown("k1")
    cache.path("k1").unlink()
    with pytest.raises(FileNotFoundError):
        cache.markdown("k1")


def test_the_build_process_keeps_only_the_counts_of_cached_pages(
        make_site: SiteBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache on, the plugin holds no page's records: the index is streamed from the
    entries, and is the same as the index of a build without the cache."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("SOURCE_DATE_EPOCH", ENV["SOURCE_DATE_EPOCH"])  # reproducible records
    pages = {name: text.replace("# ", "# Streamed ", 1) for name, text in PAGES.items()}
    site = make_site(pages, plugin={"workers": 0, "formats": ["native", "flat"],
                                    "inspector": True})
    names = ("chunks.jsonl", "chunks.flat.jsonl", "_mdchunk/data.js")
    streamed = {name: (site / name).read_bytes() for name in names}
    config = load_config(config_file=str(tmp_path / "mkdocs.yml"))
    build(config)
    pages = [page.output for page in config.plugins["mdchunk"].builder.index.pages.values()]
    assert len(pages) == 3
    assert all(page.stored and not page.records and not page.markdown for page in pages)
    (tmp_path / "mkdocs.yml").write_text((tmp_path / "mkdocs.yml").read_text().replace(
        "workers: 0", "workers: 0\n    cache: false"))
    config = load_config(config_file=str(tmp_path / "mkdocs.yml"))
    build(config)
    # without the cache, the pages go through a cache of the build's own all the same
    held = config.plugins["mdchunk"].builder.index.pages.values()
    assert all(page.output.stored for page in held)
    assert streamed == {name: (site / name).read_bytes() for name in streamed}
    assert b"Streamed Guide" in streamed["chunks.jsonl"]


def test_entries_removed_under_serve_are_chunked_again(
        make_site: SiteBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One plugin object across rebuilds (`mkdocs serve`): a page it kept whose entry is gone
    is chunked again, and the index stays whole."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("SOURCE_DATE_EPOCH", ENV["SOURCE_DATE_EPOCH"])  # reproducible records
    pages = {name: text.replace("# ", "# Served again ", 1) for name, text in PAGES.items()}
    site = make_site(pages, plugin={"workers": 0})
    index = (site / "chunks.jsonl").read_bytes()
    shutil.rmtree(tmp_path / ".cache")
    build(load_config(config_file=str(tmp_path / "mkdocs.yml")))
    assert (site / "chunks.jsonl").read_bytes() == index
    assert sorted(_entries(tmp_path)) == ["faq.md", "guide.md", "index.md"]


def test_an_entry_lost_before_the_index_is_written_fails_the_build_naming_it(
        tmp_path: Path) -> None:
    """The cache folder removed by someone else between chunking and writing: the build stops
    naming the page and its entry, and writes no index. (Inline: a worker may still be writing
    the entries when the hook runs.)"""
    config = _project(tmp_path, workers=0)
    (tmp_path / "hook.py").write_text(
        "import shutil\nfrom mkdocs.plugins import event_priority\n\n\n"
        "@event_priority(100)\ndef on_post_build(config):\n"
        "    shutil.rmtree(config.config_file_path.rsplit('/', 1)[0] + '/.cache')\n")
    with config.open("a") as handle:
        handle.write("hooks: [hook.py]\n")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
        capture_output=True, text=True, check=False, env=ENV,
    )
    message = result.stdout + result.stderr
    assert result.returncode != 0
    assert "cannot write the chunk index: the page cache entry of index.md" in message, message
    assert "build again" in message and "Traceback" not in message
    assert not (tmp_path / "site" / "chunks.jsonl").exists()
    assert not list((tmp_path / "site").glob(".chunks.jsonl.*"))


def test_a_fully_cached_build_starts_no_process(tmp_path: Path) -> None:
    """With every page in the cache, the build starts no worker (no tokenizer is loaded), nor
    loads multiprocessing, lxml or the chunking; the first build chunks its pages in a worker
    (a plain child process) and loads none of them either."""
    config = _project(tmp_path, workers=1)
    (tmp_path / "hook.py").write_text(
        "import sys\nfrom mkdocs.plugins import event_priority\n\n" + CHILD_PIDS_SOURCE +
        "\n\n@event_priority(-200)\ndef on_post_build(config):\n"
        "    print(f'children: {len(child_pids())}')\n"
        "    loaded = [name for name in ('multiprocessing', 'lxml', 'mdchunk.chunking.chunker')\n"
        "              if name in sys.modules]\n"
        "    print(f'loaded: {loaded}')\n")
    with config.open("a") as handle:
        handle.write("hooks: [hook.py]\n")
    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("needs /proc")
    first, again = _build(config)[1], _build(config)[1]
    assert "pages chunked in the worker process" in first, first
    assert "loaded: []" in first, first
    assert "children: 0" in again and "loaded: []" in again, again


def test_manifest_round_trip(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page("<h1>P</h1><p>Text.</p>")
    cache = PageCache(tmp_path / "project" / ".cache", "settings")
    site = tmp_path / "project" / "site"
    assert cache.manifest(site) == {}
    listed = {"p.md": PagePointer("s1", "k1", "p/index.md"), "q.md": PagePointer("s2", None)}
    cache.put("k1", page)
    cache.put("k2", page)
    cache.write_manifest(site, listed)
    assert PageCache(tmp_path / "project" / ".cache", "settings").manifest(site) == listed
    [pointer] = [json.loads(path.read_bytes())
                 for path in (tmp_path / "project" / ".cache" / "pages").glob("*.json")
                 if json.loads(path.read_bytes())["page"] == "p.md"]
    assert pointer["site"] == "../site"
    assert cache.manifest(tmp_path / "project" / "other-site") == {}
    assert PageCache(tmp_path / "project" / ".cache", "other settings").manifest(site) == {}
    monkeypatch.setattr("mdchunk.session.cache.__version__", "9.9.9")
    assert cache.manifest(site) == {}
    monkeypatch.undo()
    assert cache.prune(set()) == 1  # k2; k1 is named by the manifest
    assert _whole(cache, "k1") == page and _whole(cache, "k2") is None
    moved = tmp_path / "moved"
    shutil.move(tmp_path / "project", moved)  # a project moved whole keeps its manifest
    assert PageCache(moved / ".cache", "settings").manifest(moved / "site") == listed
    pointers = sorted((moved / ".cache" / "pages").glob("*.json"))
    for bad in (b"{", b"[]", json.dumps({"version": "x"}).encode()):
        for path in pointers:
            path.write_bytes(bad)
        with caplog.at_level("DEBUG", logger="mdchunk.session.cache"):
            assert PageCache(moved / ".cache", "settings").manifest(moved / "site") == {}
    pointer = {"version": "", "settings": "settings", "site": "../site", "page": "p.md",
               "listed": {"source": 1, "key": "k1", "markdown": None}}
    monkeypatch.setattr("mdchunk.session.cache.__version__", "")
    pointers[0].write_text(json.dumps(pointer))
    assert PageCache(moved / ".cache", "settings").manifest(moved / "site") == {}
    assert "cannot be used" in caplog.text


def test_a_folder_that_turns_unwritable_disables_the_cache(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "cache"
    cache = PageCache(folder, "settings")
    assert cache.enabled
    folder.rmdir()
    folder.write_text("now a file")
    page = _page("<h1>P</h1><p>Text.</p>")
    with caplog.at_level("WARNING", logger="mdchunk.session.cache"):
        cache.put("k1", page)
        cache.put("k2", page)
    assert not cache.enabled and _whole(cache, "k1") is None and cache.prune(set()) == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and str(folder) in warnings[0], warnings


def test_each_formats_records_are_read_as_the_bytes_of_their_lines(tmp_path: Path) -> None:
    """The finish joins a page's records into the index from its entry without decoding them:
    each format's block is that format's records, each a line, and nothing else."""
    page = _page("<h1>P</h1><p>Text \u00e9t\u00e9.</p><h2 id='a'>A</h2><p>More text.</p>"
                 "<h2 id='b'>B</h2><pre><code>x = 1\ny = 2</code></pre>")
    cache = PageCache(tmp_path / "cache", "settings")
    cache.put("k1", page)
    assert len(page.records) > 2 and sum(map(len, page.records.values())) > len(page.records)
    for name, records in page.records.items():
        block = cache.records_block("k1", name)
        assert block == "".join(f"{record}\n" for record in records).encode("utf-8")
    with pytest.raises(ValueError, match="no records of the format"):
        cache.records_block("k1", "not-a-format")
    lines = cache.path("k1").read_bytes().split(b"\n")
    cache.path("k1").write_bytes(b"\n".join(lines[:-2]) + b"\n")  # a record missing
    with pytest.raises(ValueError, match="truncated"):
        cache.records_block("k1", "native")


def test_a_build_sweeps_what_killed_writers_left_in_the_cache(tmp_path: Path) -> None:
    """Entries and pointers are written without reading their folder each time (a site of
    thousands of pages would read it thousands of times): a full build sweeps both folders
    once, removing the temporary files of writers that were killed, and nothing else."""
    config = _project(tmp_path)
    _build(config)
    cache = tmp_path / ".cache" / "mdchunk"
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    stale = [folder / f".{'a' * 64}.json.{dead}.x1.tmp" for folder in (cache, cache / "pages")]
    live = cache / "pages" / f".{'b' * 64}.json.{os.getpid()}.x2.tmp"  # a writer at work
    for path in [*stale, live]:
        path.write_text("partial")
    kept = sorted(path.name for path in cache.rglob("*.json"))
    _build(config)
    assert not any(path.exists() for path in stale) and live.exists()
    assert sorted(path.name for path in cache.rglob("*.json")) == kept


def test_an_entry_read_once_is_read_again_without_its_header_and_still_checked(
        tmp_path: Path) -> None:
    """The finish reads a kept page's records and Markdown after the build read its counts:
    it seeks to them by the header read then; an entry replaced since by one of another size
    has its header read again, and one cut short is still refused."""
    cache = PageCache(tmp_path / "cache", "settings")
    first = _page("<h1>P</h1><p>One.</p><h2 id='a'>A</h2><p>Two.</p>")
    second = _page("<h1>P</h1><p>Another text, longer than the first.</p>"
                   "<h2 id='a'>A</h2><p>Two.</p><h2 id='b'>B</h2><p>Three.</p>")
    cache.put("k1", first)
    assert cache.summary_and_markdown("k1") is not None
    assert cache.markdown("k1") == first.markdown
    assert cache.records_block("k1", "native") == "".join(
        f"{record}\n" for record in first.records["native"]).encode("utf-8")
    cache.put("k1", second)  # (a page chunked again by another process, say)
    assert cache.markdown("k1") == second.markdown
    assert cache.read("k1").records == second.records
    data = cache.path("k1").read_bytes()
    cache.path("k1").write_bytes(data[:-3])
    with pytest.raises(ValueError, match="truncated"):
        cache.records_block("k1", "native")
    with pytest.raises(ValueError, match="truncated"):
        cache.markdown("k1")
