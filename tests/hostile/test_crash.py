"""Crash safety: a build SIGKILLed while it writes the index leaves the previous index intact,
and the next build leaves no temporary file behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, build_mkdocs
from tests.hostile.conftest import SPHINX_CONF
from tests.invariants import Index, check_index
from tests.test_sphinx import sphinx_build

#: Runs a real build in which writing the native index stalls after a few records: the parent
#: kills it there. `SLOW_AFTER` records are written, then a marker file appears and the writer
#: sleeps.
WRAPPER = """\
import sys, time
from pathlib import Path
import mdchunk.outputs.writers
from mkdocs.commands.build import build
from mkdocs.config import load_config

marker = Path(sys.argv[2])
real_atomic_write = mdchunk.outputs.writers.atomic_write

class SlowFile:
    # The index file: after ten records, say so and stall (to be killed mid-write).
    def __init__(self, handle):
        self.handle, self.lines = handle, 0

    def write(self, data):
        written = self.handle.write(data)
        self.lines += data.count(b"\\n")
        if self.lines >= 10:
            self.handle.flush()
            marker.write_text("writing")
            time.sleep(120)
        return written

def slow_atomic_write(path, write, **options):
    if path.name != "chunks.jsonl":
        return real_atomic_write(path, write, **options)
    return real_atomic_write(path, lambda handle: write(SlowFile(handle)), **options)

mdchunk.outputs.writers.atomic_write = slow_atomic_write
if sys.argv[1].endswith(".yml"):
    # --dirty: a clean `mkdocs build` empties the site folder first (MkDocs's own doing; it
    # leaves dot-files), so only a dirty build has a previous index to lose.
    build(load_config(config_file=sys.argv[1]), dirty=True)
else:
    from sphinx.cmd.build import build_main
    build_main(["-q", "-b", "html", sys.argv[1], sys.argv[3]])
"""


def write_project(root: Path, pages: int, edition: str) -> Path:
    source = root / "src"
    source.mkdir(parents=True, exist_ok=True)
    (source / "conf.py").write_text(SPHINX_CONF, encoding="utf-8")
    names = [f"page{number}" for number in range(pages)]
    (source / "index.md").write_text(
        "# Home\n\n```{toctree}\n" + "\n".join(names) + "\n```\n", encoding="utf-8")
    for number, name in enumerate(names):
        (source / f"{name}.md").write_text(
            f"# Page {number}\n\n{edition} text of page {number}.\n\n## Part\n\n"
            + "Words of the part. " * 30 + "\n", encoding="utf-8")
    return source


def write_site(root: Path, pages: int, edition: str) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for number in range(pages):
        (docs / f"page{number}.md").write_text(
            f"# Page {number}\n\n{edition} text of page {number}.\n\n## Part\n\n"
            + "Words of the part. " * 30 + "\n", encoding="utf-8")
    config = root / "mkdocs.yml"
    config.write_text(yaml.safe_dump({
        "site_name": "Crash", "docs_dir": str(docs), "site_dir": str(root / "site"),
        "plugins": [{"mdchunk": {}}],
    }), encoding="utf-8")
    return config


def first_build(engine: str, root: Path) -> tuple[Path, Path]:
    """Build the first edition; return the config (or source folder) and the site folder."""
    if engine == "mkdocs":
        config = write_site(root, 20, "First")
        return config, build_mkdocs(config)
    source = write_project(root, 20, "First")
    assert sphinx_build(source, root / "site", "-b", "html")[0] == 0
    return source, root / "site"


def next_build(engine: str, root: Path, config: Path) -> None:
    if engine == "mkdocs":
        build_mkdocs(config)
    else:
        assert sphinx_build(config, root / "site", "-b", "html")[0] == 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.limit(60)
@pytest.mark.parametrize("engine", ["mkdocs", "sphinx"])
def test_killed_while_writing_keeps_the_previous_index(tmp_path: Path, engine: str) -> None:
    config, site = first_build(engine, tmp_path)
    previous = (site / "chunks.jsonl").read_bytes()
    assert b"First text" in previous

    if engine == "mkdocs":
        write_site(tmp_path, 20, "Second")
    else:
        write_project(tmp_path, 20, "Second")
    marker = tmp_path / "writing"
    script = tmp_path / "slow_build.py"
    script.write_text(WRAPPER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, str(script), str(config), str(marker),
                                str(site)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 40
        while not marker.exists():
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the build never started writing the index"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        if process.stderr:
            process.stderr.close()
    assert process.returncode == -signal.SIGKILL

    # The killed writer left its partial temporary file; the index is the previous one.
    leftovers = sorted(site.glob(".chunks.jsonl.*.tmp"))
    assert leftovers, "the kill did not happen while the index was being written"
    assert (site / "chunks.jsonl").read_bytes() == previous

    next_build(engine, tmp_path, config)
    assert not [path for path in site.rglob("*.tmp")], "stray temporary files after a build"
    index = Index.load(site)
    check_index(index, max_tokens=512)
    assert b"Second text" in (site / "chunks.jsonl").read_bytes()


def test_sweep_keeps_temporary_files_of_live_writers(tmp_path: Path) -> None:
    from mdchunk.outputs.writers import sweep_stale_temporaries, write_text

    target = tmp_path / "chunks.jsonl"
    live = tmp_path / f".chunks.jsonl.{os.getppid()}.abc.tmp"  # the pytest runner's parent
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".chunks.jsonl.{dead}.xyz.tmp"
    other = tmp_path / f".other.jsonl.{dead}.xyz.tmp"
    unknown = tmp_path / ".chunks.jsonl.notapid.tmp"
    for path in (live, stale, other, unknown):
        path.write_text("partial")
    assert sweep_stale_temporaries(target) == [stale]
    write_text(target, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, other.name, unknown.name, "chunks.jsonl"])
