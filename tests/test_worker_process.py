"""The worker process as a plain child of the build: it imports the build's mdchunk, keeps its
answers apart from what libraries print, re-runs no build script, and a worker that is killed
stops the build with a message naming it, not a hang nor a half-written index."""

from __future__ import annotations

import json
import logging
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from mkdocs.exceptions import Abort

import mdchunk
from mdchunk.chunking import PageInput
from mdchunk.errors import PageError
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.worker_process import failure
from mdchunk.session.workers import WorkerEndedError, _raised
from mdchunk.settings import BuildSettings
from tests.conftest import build_mkdocs, child_pids
from tests.helpers import CHILD_PIDS_SOURCE

PAGES = {"index.md": "# Home\n\nWelcome to the site.\n\n## Start\n\nHow to start.\n",
         "guide.md": "# Guide\n\nThe guide's text.\n\n## Steps\n\nOne, two, three.\n",
         "faq.md": "# FAQ\n\nQuestions and answers.\n"}


def _project(tmp_path: Path, **plugin: object) -> Path:
    """A MkDocs project of `PAGES` with mdchunk (`plugin`, its options); its mkdocs.yml."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(yaml.safe_dump({"site_name": "x", "docs_dir": str(docs),
                                      "site_dir": str(tmp_path / "site"),
                                      "plugins": [{"mdchunk": {"workers": 1, **plugin}}]}))
    return config


def _workers() -> list[int]:
    """The worker processes this process started and that run."""
    return [pid for pid in sorted(child_pids(os.getpid())) if _is_worker(pid)]


def _is_worker(pid: int) -> bool:
    try:
        return b"mdchunk.session.worker_process" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False  # (reaped meanwhile)


def _records(site: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (site / "chunks.jsonl").read_text().splitlines()]


KILLING_HOOK = """\
import os, signal
from pathlib import Path
from mkdocs.plugins import event_priority

MARKER = Path({marker!r})


def workers():
    return [pid for pid in child_pids() if b"mdchunk.session.worker_process"
            in Path(f"/proc/{{pid}}/cmdline").read_bytes()]


@event_priority(-200)  # after mdchunk has sent the page to its worker
def on_page_content(html, page, config, files):
    if not MARKER.exists():
        for pid in workers():
            os.kill(pid, signal.SIGKILL)
            MARKER.write_text(str(pid))
    return html
"""
"""A MkDocs hook (written after `CHILD_PIDS_SOURCE`) that kills the build's worker processes at
the first page (once: it leaves the marker file, with the pid killed)."""


def test_a_worker_killed_mid_build_stops_it_naming_what_happened(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A worker killed (the out-of-memory killer, by hand) while it has pages: the build stops
    with a message naming the worker, the signal and the pages lost; no index, llms.txt or
    temporary file is left in the site. The next build of the same project is whole."""
    _workers()  # (skips without /proc)
    config = _project(tmp_path, llms_txt=True)
    killed = tmp_path / "killed"
    (tmp_path / "hook.py").write_text(CHILD_PIDS_SOURCE + KILLING_HOOK.format(marker=str(killed)))
    with config.open("a") as handle:
        handle.write("hooks: [hook.py]\n")
    caplog.set_level(logging.ERROR)
    with pytest.raises(Abort):
        build_mkdocs(config)
    pid = int(killed.read_text())
    message = caplog.text
    assert re.search(rf"the worker process that chunks pages \(pid {pid}\) was killed "
                     r"\(SIGKILL: out of memory, or killed by hand\) while loading the "
                     r"tokenizer; pages? index\.md(, \w+\.md)* not chunked\. Build again",
                     message), message
    assert "Traceback" not in message
    site = tmp_path / "site"
    assert not (site / "chunks.jsonl").exists() and not (site / "llms.txt").exists()
    assert not [path for path in site.rglob(".*") if path.is_file()]
    build_mkdocs(config)  # (the marker is there: the hook kills no more)
    assert {record["metadata"]["sourceFile"]  # type: ignore[index]
            for record in _records(site)} == set(PAGES)


def _pages(tag: str) -> list[PageInput]:
    return [PageInput(html=f"<h1>Page {number}</h1><p>{tag} {'Some words. ' * 80}</p>",
                      source_path=f"p{number}.md", url=f"p{number}/", title=f"Page {number}")
            for number in range(3)]


def _build(builder: IndexBuilder, pages: list[PageInput]) -> None:
    for page in pages:
        builder.add_page(page, markdown_path=f"{page.url}index.md")
    builder.finish([page.source_path for page in pages])


def test_a_builder_whose_worker_was_killed_builds_again_with_a_new_one(tmp_path: Path) -> None:
    """`mkdocs serve` keeps its builder: after a build whose worker was killed fails, the next
    build starts a new worker and writes the whole index; so does a build after one whose
    workers were told to stop at its finish."""
    site = tmp_path / "site"
    builder = IndexBuilder(BuildSettings(workers=1), site_dir=site)
    try:
        for page in _pages("first"):
            builder.add_page(page, markdown_path=f"{page.url}index.md")
        [worker] = _workers()
        os.kill(worker, signal.SIGKILL)
        with pytest.raises(WorkerEndedError, match=rf"\(pid {worker}\) was killed \(SIGKILL"):
            builder.finish([page.source_path for page in _pages("first")])
        builder.abandon()
        assert not (site / "chunks.jsonl").exists()
        _build(builder, _pages("second"))
        assert all("second" in record["embedText"] for record in _records(site))  # type: ignore[operator]
        _build(builder, _pages("third"))  # (the last finish stopped its worker)
        assert all("third" in record["embedText"] for record in _records(site))  # type: ignore[operator]
        assert len(_records(site)) == 3
    finally:
        builder.close()
    assert _workers() == []


def test_an_error_that_does_not_pickle_keeps_its_message() -> None:
    """An error raised in a worker whose constructor takes other arguments than its message
    (`PageError`) comes back as an `MdChunkError` with that message, its traceback in the
    worker as its cause."""
    try:
        raise PageError("guide.md", "its chunk file is also written for faq.md")
    except PageError as error:
        answer = failure(error)
    _, *rest = pickle.loads(answer)
    raised = _raised(*rest)
    assert str(raised) == "guide.md: its chunk file is also written for faq.md"
    assert "Traceback" in str(raised.__cause__) and "PageError" in str(raised.__cause__)


NO_MAIN_GUARD = """\
import sys
import time
from mkdocs.commands.build import build
from mkdocs.config import load_config

print("building", flush=True)
build(load_config(config_file=sys.argv[1]))
"""
"""A build script without an `if __name__ == "__main__":` guard."""


def test_a_build_script_without_a_main_guard_builds_once(tmp_path: Path) -> None:
    config = _project(tmp_path)
    script = tmp_path / "build_site.py"
    script.write_text(NO_MAIN_GUARD)
    result = subprocess.run([sys.executable, str(script), str(config)], capture_output=True,
                            text=True, check=False, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("building") == 1, result.stdout
    assert {record["metadata"]["sourceFile"]  # type: ignore[index]
            for record in _records(tmp_path / "site")} == set(PAGES)



PATH_SCRIPT = """\
import os, sys
sys.path.insert(0, sys.argv[2])
from mkdocs.commands.build import build
from mkdocs.config import load_config
import mdchunk
print(os.getpid(), mdchunk.__file__, flush=True)
build(load_config(config_file=sys.argv[1]))
"""
"""A build script that puts a folder of its own first in `sys.path` (as a Sphinx conf.py
may), where the mdchunk it builds with is."""

PRINTING_IMPORT = """
import os as _os
print("a library prints this", flush=True)
with open(_os.environ["MDCHUNK_TEST_MARK"], "a") as _mark:
    _mark.write(f"{_os.getpid()} {__file__}\\n")
"""
"""What a copy of mdchunk's chunker does on import: print to stdout, and say which process
imported which file."""


def test_the_worker_imports_the_build_s_mdchunk_and_keeps_prints_off_its_answers(
        tmp_path: Path) -> None:
    """A build whose mdchunk is found through a folder its script put into `sys.path`: the
    worker chunks with that mdchunk (it is handed the build's path), and what its imports
    print goes to stderr, not into the answers read from its stdout."""
    copy = tmp_path / "vendored"
    shutil.copytree(Path(mdchunk.__file__).parent, copy / "mdchunk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "mdchunk" / "chunking" / "chunker.py").open("a") as handle:
        handle.write(PRINTING_IMPORT)
    config = _project(tmp_path)
    script = tmp_path / "build_site.py"
    script.write_text(PATH_SCRIPT)
    mark = tmp_path / "imported"
    result = subprocess.run([sys.executable, str(script), str(config), str(copy)],
                            capture_output=True, text=True, check=False, cwd=tmp_path,
                            timeout=120, env={**os.environ, "MDCHUNK_TEST_MARK": str(mark)})
    assert result.returncode == 0, result.stderr
    build_pid, build_mdchunk = result.stdout.split()[:2]
    assert build_mdchunk == str(copy / "mdchunk" / "__init__.py")
    [(pid, chunker)] = [line.split() for line in mark.read_text().splitlines()]
    assert pid != build_pid and chunker == str(copy / "mdchunk" / "chunking" / "chunker.py")
    assert "a library prints this" in result.stderr
    assert "a library prints this" not in result.stdout
    assert {record["metadata"]["sourceFile"]  # type: ignore[index]
            for record in _records(tmp_path / "site")} == set(PAGES)


def _shared_pages() -> list[PageInput]:
    """Pages that share a section word for word (duplicate marks)."""
    shared = "<h2 id='install'>Install</h2><p>" + "Run the installer and follow it. " * 30 + "</p>"
    return [PageInput(html=f"<h1>Page {number}</h1><p>{'Own words. ' * 20}{number}</p>{shared}",
                      source_path=f"p{number}.md", url=f"p{number}/", title=f"Page {number}")
            for number in range(3)]


def test_a_worker_that_dies_after_its_pages_leaves_the_duplicate_marks_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed once it has answered every page, before the finish takes its duplicate
    search: no page is lost, and the marks are searched again in the build's process, the
    index the same as one chunked inline."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = _shared_pages()
    inline = IndexBuilder(BuildSettings(workers=0), site_dir=tmp_path / "inline")
    _build(inline, pages)
    inline.close()
    expected = (tmp_path / "inline" / "chunks.jsonl").read_bytes()
    assert expected.count(b'"duplicateOf":{"id":"doc:p0::ch1"') == 2
    builder = IndexBuilder(BuildSettings(workers=1), site_dir=tmp_path / "killed")
    try:
        for page in pages:
            builder.add_page(page, markdown_path=f"{page.url}index.md")
        for waiting in builder.index.build.waiting.values():
            waiting.future.result()
        [worker] = _workers()
        os.kill(worker, signal.SIGKILL)
        while _workers():  # (reaped once its answers' reader has read the end)
            time.sleep(0.01)
        builder.finish([page.source_path for page in pages])
    finally:
        builder.close()
    assert (tmp_path / "killed" / "chunks.jsonl").read_bytes() == expected


def test_what_the_worker_s_interpreter_prints_as_it_starts_goes_to_stderr(
        tmp_path: Path) -> None:
    """A `sitecustomize` module that prints to stdout runs in the worker's interpreter before
    anything of mdchunk: what it prints reaches the build's stderr, and the build is whole."""
    folder = tmp_path / "custom"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text('print("hello from sitecustomize")\n')
    config = _project(tmp_path)
    script = tmp_path / "build_site.py"
    script.write_text(NO_MAIN_GUARD)
    result = subprocess.run([sys.executable, str(script), str(config)], capture_output=True,
                            text=True, check=False, cwd=tmp_path, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(folder)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("hello from sitecustomize") == 1  # (the build's own start)
    assert "hello from sitecustomize" in result.stderr  # (the worker's)
    assert {record["metadata"]["sourceFile"]  # type: ignore[index]
            for record in _records(tmp_path / "site")} == set(PAGES)
