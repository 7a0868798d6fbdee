"""The Sphinx extension on real sphinx-build runs: reST and MyST, html and dirhtml, -j 2,
incremental builds, config errors and warnings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from mdchunk.session.workers import available_cores
from tests.conftest import REPO
from tests.corpus import nodejs_sphinx_project
from tests.invariants import Index, check_index

EXAMPLE = REPO / "example-site" / "sphinx"

CONF = """\
project = "Mini"
extensions = ["sphinx_mdchunk", "myst_parser"]
html_baseurl = "https://example.org/docs/"
exclude_patterns = ["_build"]
"""

PAGES = {
    "index.rst": """\
        Mini
        ====

        Intro paragraph of the mini project, long enough to be a real introduction.

        .. toctree::
           :glob:

           *

        Install
        -------

        .. code-block:: python
           :caption: setup.py

           print("hello")

        .. note:: A note about the install.
        """,
    "guide.md": """\
        ---
        owner: docs-team
        tags: [a, b]
        ---
        # Guide

        Some *MyST* text.

        ## Part

        More text.
        """,
    "other.rst": """\
        Other
        =====

        Text of the other page.

        Section
        -------

        Body of the section.
        """,
}


def sphinx_build(source: Path, out: Path, *args: str) -> tuple[int, str]:
    """Run sphinx-build in-process; return its exit code and its warnings (a configuration
    that mdchunk refuses ends the run with an exit code, as on the command line). With -W,
    --keep-going makes every Sphinx write every warning and fail at the end (before 8.1, -W
    alone stops at the first warning without writing it to the -w file)."""
    warnings = out.parent / f"{out.name}-warnings.txt"
    strict = ["--keep-going"] if "-W" in args else []
    try:
        code = build_main(["-q", "-w", str(warnings), *strict, *args, str(source), str(out)])
    except SystemExit as exit:
        code = int(exit.code or 0)
    return code, warnings.read_text(encoding="utf-8") if warnings.exists() else ""


def make_project(root: Path, pages: dict[str, str] | None = None, conf: str = CONF) -> Path:
    source = root / "src"
    source.mkdir(parents=True)
    (source / "conf.py").write_text(conf, encoding="utf-8")
    for name, text in (PAGES if pages is None else pages).items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return source


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_mini_project_keeps_every_invariant(tmp_path: Path, builder: str) -> None:
    source = make_project(tmp_path)
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", builder, "-W")
    assert code == 0, warnings
    index = Index.load(tmp_path / "out")
    check_index(index, max_tokens=512)
    urls = {r["pageUrl"] for r in index.records}
    expected = {"index.html", "guide.html", "other.html"} if builder == "html" else {
        "", "guide/", "other/"}
    assert urls == expected
    guide = next(r for r in index.records if r["parentId"] == "doc:guide")
    assert guide["metadata"]["sourceFile"] == "guide.md"
    assert guide["metadata"]["frontMatter"]["owner"] == "docs-team"
    assert guide["metadata"]["frontMatter"]["tags"] == ["a", "b"]
    assert set(guide["metadata"]["frontMatter"]) == {"owner", "tags"}  # not MyST's own keys
    assert guide["absoluteUrl"].startswith("https://example.org/docs/guide")


def test_parallel_build_equals_serial(tmp_path: Path, reproducible: None) -> None:
    many = {f"page{i}.rst": f"Page {i}\n{'=' * (5 + len(str(i)))}\n\nBody {i}.\n\nSection\n"
            f"-------\n\n{'Words of the section. ' * 40}\n" for i in range(30)}
    source = make_project(tmp_path, {**PAGES, **many})
    assert sphinx_build(source, tmp_path / "serial", "-b", "html", "-j", "1")[0] == 0
    assert sphinx_build(source, tmp_path / "parallel", "-b", "html", "-j", "2")[0] == 0
    serial = (tmp_path / "serial" / "chunks.jsonl").read_bytes()
    assert serial == (tmp_path / "parallel" / "chunks.jsonl").read_bytes()
    assert serial.count(b"\n") >= 33


def test_every_format_parallel_equals_serial(tmp_path: Path, reproducible: None) -> None:
    many = {f"p{i}.rst": f"P {i}\n{'=' * (2 + len(str(i)))}\n\n{'Text here. ' * 30}\n"
            for i in range(20)}
    formats = ["native", "files", "hepilot", "semantic", "flat", "markdown_chunker", "adr",
               "docsearch", "sections"]
    source = make_project(tmp_path, {**PAGES, **many},
                          CONF + f"mdchunk_formats = {formats!r}\n")
    assert sphinx_build(source, tmp_path / "one", "-b", "html", "-j", "1")[0] == 0
    assert sphinx_build(source, tmp_path / "two", "-b", "html", "-j", "2")[0] == 0
    names = ["chunks.jsonl", "chunks.hepilot.jsonl", "chunks.semantic.jsonl",
             "chunks.flat.jsonl", "chunks.markdown_chunker.jsonl", "chunks.adr.jsonl",
             "docsearch.json", "sections.jsonl"]
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    one = sorted(p.name for p in (tmp_path / "one" / "chunks").iterdir())
    assert one == sorted(p.name for p in (tmp_path / "two" / "chunks").iterdir())
    assert len(one) == len((tmp_path / "one" / "chunks.jsonl").read_text().splitlines())


def test_incremental_build_equals_clean_build(tmp_path: Path, reproducible: None) -> None:
    source = make_project(tmp_path)
    out = tmp_path / "out"
    assert sphinx_build(source, out, "-b", "html")[0] == 0
    (source / "other.rst").write_text("Other\n=====\n\nRewritten text.\n\nNew\n---\n\nNew body.\n")
    (source / "guide.md").unlink()
    assert sphinx_build(source, out, "-b", "html")[0] == 0
    clean = tmp_path / "clean"
    shutil.copytree(source, tmp_path / "clean-src")
    assert sphinx_build(tmp_path / "clean-src", clean, "-b", "html")[0] == 0
    incremental = (out / "chunks.jsonl").read_text()
    assert incremental == (clean / "chunks.jsonl").read_text()
    assert "doc:guide" not in incremental and "Rewritten text." in incremental


def test_excluded_documents_are_left_out(tmp_path: Path) -> None:
    pages = {**PAGES,
             "secret.rst": ":mdchunk-exclude: true\n\nSecret\n======\n\nHidden.\n",
             "drafts.rst": "Drafts\n======\n\nNot ready.\n"}
    source = make_project(tmp_path, pages, CONF + 'mdchunk_exclude = ["drafts.rst"]\n')
    assert sphinx_build(source, tmp_path / "out", "-b", "html")[0] == 0
    parents = {r["parentId"] for r in Index.load(tmp_path / "out").records}
    assert parents == {"doc:index", "doc:guide", "doc:other"}


def test_preset_from_conf_py(tmp_path: Path) -> None:
    source = make_project(tmp_path, conf=CONF + "mdchunk_preset = 'minimal'\n"
                          "mdchunk_min_tokens = 4\n")
    assert sphinx_build(source, tmp_path / "out", "-b", "html", "-W")[0] == 0
    options = Index.load(tmp_path / "out").records[0]["metadata"]["chunkingOptions"]
    assert (options["max_tokens"], options["min_tokens"]) == (128, 4)


def test_inspector_from_conf_py_with_parallel_workers(tmp_path: Path) -> None:
    many = {f"p{i}.rst": f"P {i}\n{'=' * (2 + len(str(i)))}\n\nText {i}.\n" for i in range(12)}
    source = make_project(tmp_path, {**PAGES, **many}, CONF + "mdchunk_inspector = True\n")
    assert sphinx_build(source, tmp_path / "out", "-b", "html", "-j", "2")[0] == 0
    script = (tmp_path / "out" / "_mdchunk" / "data.js").read_text(encoding="utf-8")
    data = json.loads(script[script.index("=") + 1 :].strip().rstrip(";"))
    index = Index.load(tmp_path / "out")
    assert [p["url"] for p in data["pages"]] == sorted(
        {r["pageUrl"] for r in index.records}, key=lambda url: url.removesuffix(".html"))
    assert sum(len(p["chunks"]) for p in data["pages"]) == len(index.records)
    assert (tmp_path / "out" / "_mdchunk" / "index.html").is_file()


def test_other_builders_write_nothing(tmp_path: Path) -> None:
    source = make_project(tmp_path)
    code, _ = sphinx_build(source, tmp_path / "out", "-b", "text")
    assert code == 0
    assert not (tmp_path / "out" / "chunks.jsonl").exists()


@pytest.mark.parametrize(
    ("setting", "fragment"),
    [
        ("mdchunk_max_tokens = 'big'", "mdchunk_max_tokens = 'big': must be an integer"),
        ("mdchunk_min_tokens = 900", "mdchunk_min_tokens = 900: must be smaller than max_tokens"),
        ("mdchunk_overlap_mode = 'both'", "mdchunk_overlap_mode = 'both': must be one of"),
        ("mdchunk_output = '../x.jsonl'", "mdchunk_output = '../x.jsonl': must be a relative"),
        ("mdchunk_encoding = 'nope'", "mdchunk_encoding = 'nope': unknown tiktoken encoding"),
        ("mdchunk_formats = ['csv']", "mdchunk_formats = ['csv']: unknown format(s) 'csv'"),
        ("mdchunk_preset = 'huge'", "mdchunk_preset = 'huge': must be one of"),
    ],
)
def test_bad_config_values_stop_the_build(tmp_path: Path, setting: str, fragment: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = make_project(tmp_path, conf=CONF + setting + "\n")
    code, _ = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code != 0
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "out" / "chunks.jsonl").exists()


def test_an_unknown_tokenizer_in_the_environment_stops_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "rsbpe")
    source = make_project(tmp_path)
    code, _ = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code != 0
    assert "MDCHUNK_TOKENIZER='rsbpe' is not a counter mdchunk knows" in capsys.readouterr().err
    assert not (tmp_path / "out" / "chunks.jsonl").exists()


MISSPELT = """\
mdchunk_max_token = 100
try:
    mdchunk_encodings = "cl100k_base"
except ImportError:
    pass


def helper():
    mdchunk_local_name = 1
"""


def _did_you_mean(name: str, option: str) -> str:
    return f"{name} is not an mdchunk option and is ignored; did you mean '{option}'?"


def test_misspelt_options_warn_from_conf_py_and_from_the_command_line(tmp_path: Path) -> None:
    """Names set in conf.py (at any depth of its blocks) and given with -D warn with a
    suggestion on every supported Sphinx; known options given with -D apply."""
    source = make_project(tmp_path, conf=CONF + MISSPELT)
    overrides = ["-D", "mdchunk_min_token=4", "-D", "mdchunk_max_tokens=300",
                 "-D", "mdchunk_formats=native,flat", "-D", "mdchunk_write_markdown=0"]
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html", *overrides)
    assert code == 0, warnings
    assert _did_you_mean("mdchunk_max_token", "mdchunk_max_tokens") in warnings, warnings
    assert _did_you_mean("mdchunk_encodings", "mdchunk_encoding") in warnings, warnings
    assert _did_you_mean("mdchunk_min_token", "mdchunk_min_tokens") in warnings, warnings
    assert "mdchunk_local_name" not in warnings  # a function's own name, not conf.py's
    options = Index.load(tmp_path / "out").records[0]["metadata"]["chunkingOptions"]
    assert options["max_tokens"] == 300  # known options given with -D apply, as their kind
    assert (tmp_path / "out" / "chunks.flat.jsonl").is_file()
    assert not list((tmp_path / "out").rglob("*.html.md"))
    code, warnings = sphinx_build(source, tmp_path / "strict", "-b", "html", "-W", *overrides)
    assert code != 0 and "mdchunk_min_token" in warnings and "mdchunk_max_token " in warnings


def test_no_config_file_and_an_unreadable_one_are_no_error(tmp_path: Path) -> None:
    """`sphinx-build -C` ignores the source folder's conf.py (here one Python cannot parse):
    the -D names are still checked, and the build writes its index."""
    source = make_project(tmp_path, conf="this is not Python (\n")
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html", "-C",
                                  "-D", "extensions=sphinx_mdchunk,myst_parser",
                                  "-D", "mdchunk_max_token=100")
    assert code == 0, warnings
    assert _did_you_mean("mdchunk_max_token", "mdchunk_max_tokens") in warnings, warnings
    assert {r["parentId"] for r in Index.load(tmp_path / "out").records} == {
        "doc:index", "doc:guide", "doc:other"}


DUPLICATE = """\
Dup
===

.. raw:: html

   <h2 id="same">First</h2><p>One.</p><h2 id="same">Second</h2><p>Two.</p>
"""


def test_page_warnings_have_a_location_and_fail_a_strict_build(tmp_path: Path) -> None:
    source = make_project(tmp_path, {**PAGES, "dup.rst": DUPLICATE})
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code == 0
    assert "dup" in warnings and "share the id 'same'" in warnings
    code, _ = sphinx_build(source, tmp_path / "strict", "-b", "html", "-W")
    assert code != 0
    (source / "conf.py").write_text(CONF + "suppress_warnings = ['mdchunk.anchor']\n")
    code, warnings = sphinx_build(source, tmp_path / "suppressed", "-b", "html", "-W")
    assert code == 0 and "share the id" not in warnings, warnings


@pytest.mark.skipif(not (EXAMPLE / "conf.py").exists(), reason="no Sphinx example project")
@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_example_project_keeps_every_invariant(tmp_path: Path, builder: str) -> None:
    source = tmp_path / "example"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", builder, "-W")
    assert code == 0, warnings
    index = Index.load(tmp_path / "out")
    check_index(index, max_tokens=512)
    assert not any(r["parentId"] == "doc:excluded" for r in index.records)
    assert any(r["flags"]["oversizeReason"] == "code_block_integrity" for r in index.records)
    for record in index.records:
        assert "¶" not in record["originalText"]
    json.dumps(index.records)


def test_api_objects_are_anchors_below_their_section(tmp_path: Path) -> None:
    if not (EXAMPLE / "conf.py").exists():
        pytest.skip("no Sphinx example project")
    source = tmp_path / "example"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    conf = source / "conf.py"
    conf.write_text(conf.read_text() + "\nmdchunk_max_tokens = 160\nmdchunk_min_tokens = 10\n")
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html", "-W")
    assert code == 0, warnings
    index = Index.load(tmp_path / "out")
    check_index(index, max_tokens=160)
    api: dict[str, dict[str, object]] = {}
    for record in index.records:  # the first chunk of each section
        if record["parentId"] == "doc:api":
            api.setdefault(record["sectionSlug"], record)
    parse = api["beacon_api.parse"]
    assert parse["headerPath"][-1] == "beacon_api.parse"
    assert parse["url"] == "api.html#beacon_api.parse"
    assert parse["headerDepths"][-1] == parse["headerDepths"][-2] + 1
    assert parse["originalText"].startswith("### `beacon_api.parse(")
    assert "c.beacon_parse" in api
    methods = [r for r in api.values() if r["sectionSlug"].startswith("beacon_api.Client.")]
    assert methods and all(r["headerPath"][-2] == "beacon_api.Client" for r in methods)


def test_example_project_parallel_equals_serial(tmp_path: Path, reproducible: None) -> None:
    if not (EXAMPLE / "conf.py").exists():
        pytest.skip("no Sphinx example project")
    source = tmp_path / "example"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    assert sphinx_build(source, tmp_path / "one", "-b", "html", "-j", "1")[0] == 0
    assert sphinx_build(source, tmp_path / "two", "-b", "html", "-j", "2")[0] == 0
    one = (tmp_path / "one" / "chunks.jsonl").read_bytes()
    assert one == (tmp_path / "two" / "chunks.jsonl").read_bytes()
    assert os.path.getsize(tmp_path / "one" / "chunks.jsonl") > 1000


def test_debug_log_says_what_was_chunked_and_how_long_it_took(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = make_project(tmp_path)
    out = tmp_path / "out"
    assert build_main(["-vv", "-b", "html", str(source), str(out)]) == 0
    first = [line for line in capsys.readouterr().out.splitlines() if "pages chunked" in line]
    assert len(first) == 1 and "(0 kept from the last build)" in first[0], first
    assert re.search(r"pages chunked inline \(0 kept from the last build\) in \d+\.\d{3} s",
                     first[0]), first
    (source / "other.rst").write_text("Other\n=====\n\nRewritten.\n", encoding="utf-8")
    assert build_main(["-vv", "-b", "html", str(source), str(out)]) == 0
    second = [line for line in capsys.readouterr().out.splitlines()
              if "pages chunked" in line]
    # Only what Sphinx rewrote (the edited document, and those whose toctree shows its title).
    chunked, kept = map(int, re.findall(r"(\d+) pages chunked \w+ \((\d+) kept", second[0])[0])
    assert chunked + kept == 3 and kept >= 1, second


@pytest.mark.slow
def test_a_serial_build_chunks_in_a_worker_and_writes_what_a_parallel_build_does(
        tmp_path: Path) -> None:
    """Sphinx without -j hands its pages to a worker process of mdchunk's, where a core is
    free, from the first (it said how much it reads); under -j N its own writer processes
    chunk them. The index is the same."""
    source = nodejs_sphinx_project(tmp_path / "node")
    if source is None:
        pytest.skip("the Node.js API docs are not installed")
    if available_cores() < 2:
        pytest.skip("one core: a serial build chunks inline")
    environment = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}

    def build(out: str, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "sphinx", *args, "-b", "html", "-E",
                               str(source), str(tmp_path / out)], capture_output=True,
                              text=True, env=environment, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout + done.stderr

    log = build("serial", "-vv")
    assert re.search(r"mdchunk: \d+ pages chunked in the worker process", log), log[-2000:]
    assert "slowest pages" not in log  # (of those chunked in Sphinx's process: none)
    build("parallel", "-q", "-j", "2")
    serial, parallel = (tmp_path / name / "chunks.jsonl" for name in ("serial", "parallel"))
    assert serial.read_bytes() == parallel.read_bytes()
    assert len(serial.read_bytes().splitlines()) > 1000
