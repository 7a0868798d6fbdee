"""The compiled chunking path (mypyc, see setup.py) against its Python source.

The compiled modules must give byte for byte what their sources give, and an edited source must
never hide behind a stale compiled module (those tests are skipped where mdchunk was built
without compiling). Page data too deep for a compiled walk must raise, not crash.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mdchunk
from mdchunk import _native
from tests.conftest import EXAMPLE_SITE, REPO
from tests.hostile.pages import PAGES

compiled_only = pytest.mark.skipif(
    not _native.COMPILED, reason="mdchunk runs uncompiled here (MDCHUNK_COMPILE=0, or no compiler)")

#: Chunks every page with each option set, in every format, and prints them all as JSON.
CHUNK_ALL = """
import json, sys
from mdchunk import Chunker, ChunkOptions, PageInput, _native
from mdchunk.page_output import OutputSettings, page_output
from mdchunk.profiles import PROFILES

pages, option_sets = json.load(sys.stdin)
settings = OutputSettings(formats=tuple(name for name in PROFILES if name != "sqlite"),
                          inspector=True)
out = {"compiled": _native.COMPILED, "pages": []}
for values in option_sets:
    chunker = Chunker(ChunkOptions.validated(values), site_url="https://example.org/docs/")
    for source, html in pages:
        page = PageInput(html=html, source_path=source, url=source[:-3] + "/", title=source)
        output = page_output(chunker.chunk_page(page), settings)
        out["pages"].append([source, values, output.markdown, output.records, output.inspector,
                             list(output.warnings)])
json.dump(out, sys.stdout)
"""

OPTION_SETS = [{}, {"max_tokens": 128, "min_tokens": 0}, {"split_level": 1},
               {"preset": "structured"}, {"overlap_tokens": 64},
               {"overlap_tokens": 32, "overlap_mode": "text"}, {"adaptive_sizing": True}]


def rendered_pages() -> list[tuple[str, str]]:
    """The example site's and the hostile pages' Markdown, rendered by Python-Markdown with the
    extensions MkDocs sites use."""
    import markdown

    extensions = ["toc", "tables", "footnotes", "def_list", "attr_list", "md_in_html",
                  "admonition", "abbr", "pymdownx.superfences", "pymdownx.highlight",
                  "pymdownx.details", "pymdownx.tabbed", "pymdownx.arithmatex"]
    sources = {str(path.relative_to(EXAMPLE_SITE / "docs")): path.read_text(encoding="utf-8")
               for path in sorted((EXAMPLE_SITE / "docs").rglob("*.md"))}
    sources |= {f"hostile/{name}.md": text for name, text in PAGES.items()}
    return [(source, markdown.markdown(text, extensions=extensions))
            for source, text in sources.items()]


def chunk_all(pages: list[tuple[str, str]], *, pure: bool) -> dict[str, object]:
    environment = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000",
                   "MDCHUNK_PURE_PYTHON": "1" if pure else "0"}
    result = subprocess.run(
        [sys.executable, "-c", CHUNK_ALL], input=json.dumps([pages, OPTION_SETS]),
        capture_output=True, text=True, env=environment, check=True, timeout=600)
    return json.loads(result.stdout)


@compiled_only
def test_compiled_modules_chunk_as_their_sources_do() -> None:
    pages = rendered_pages()
    compiled, pure = chunk_all(pages, pure=False), chunk_all(pages, pure=True)
    assert (compiled["compiled"], pure["compiled"]) == (True, False)
    assert len(compiled["pages"]) == len(pages) * len(OPTION_SETS)
    assert sum(len(page[3]["native"]) for page in compiled["pages"]) > 500
    for ours, theirs in zip(compiled["pages"], pure["pages"], strict=True):
        assert ours == theirs, f"{ours[0]} with {ours[1]}: compiled and source differ"


def installed_copy(target: Path) -> Path:
    """The package as it runs here (sources and compiled modules) copied under `target`."""
    package = Path(mdchunk.__file__).parent
    shutil.copytree(package, target / "mdchunk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for library in Path(_native.__file__).parent.parent.glob("mdchunk__mypyc*"):
        shutil.copy2(library, target)
    return target


def loaded_from(folder: Path) -> list[str]:
    """`COMPILED` and the file of each compiled module, as a fresh Python imports them."""
    script = ("import importlib, mdchunk, mdchunk._native as n\n"
              "print(n.COMPILED, *(importlib.import_module(f'mdchunk.{name}').__file__ "
              "for name in n.MODULES))")
    environment = {**os.environ, "PYTHONPATH": str(folder)}
    environment.pop("MDCHUNK_PURE_PYTHON", None)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=environment, cwd=folder, check=True, timeout=60)
    return result.stdout.split()


@compiled_only
def test_an_edited_source_runs_instead_of_its_stale_compiled_module(tmp_path: Path) -> None:
    folder = installed_copy(tmp_path)
    compiled, *files = loaded_from(folder)
    assert compiled == "True"
    assert all(file.startswith(str(folder)) and not file.endswith(".py") for file in files)

    source = folder / "mdchunk" / "packing.py"
    source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    compiled, *files = loaded_from(folder)
    assert compiled == "False"
    # They go together: compiled, they call each other without going through imports.
    assert files == [str(folder / "mdchunk" / f"{name}.py") for name in _native.MODULES]


@compiled_only
def test_an_extension_module_left_by_an_older_build_is_not_run(tmp_path: Path) -> None:
    folder = installed_copy(tmp_path)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (folder / "mdchunk" / f"chunk{suffix}").write_bytes(b"not a module this build made")
    compiled, *files = loaded_from(folder)
    assert compiled == "False"
    assert files == [str(folder / "mdchunk" / f"{name}.py") for name in _native.MODULES]


def test_the_compiled_modules_are_the_ones_setup_py_compiles() -> None:
    setup = (REPO / "setup.py").read_text(encoding="utf-8")
    named = [f"mdchunk/{name}.py" for name in _native.MODULES]
    listed = setup[setup.index("COMPILED = ("):]
    assert " ".join(listed[: listed.index(")") + 1].split()) == (
        f"COMPILED = {tuple(named)!r}".replace("'", '"'))


def test_too_deep_a_front_matter_is_an_error_not_a_crash() -> None:
    """Compiled code recurses on the C stack, where too deep an input kills the process: what
    recurses over page data (the front matter) stays in Python, which raises instead."""
    script = """
from mdchunk import Chunker, ChunkOptions, PageInput
meta = {}
for _ in range(200_000):
    meta = {"nested": [meta]}
page = PageInput(html="<h1 id='t'>T</h1><p>Body.</p>", source_path="a.md", url="a/", title="T",
                 meta=meta)
try:
    Chunker(ChunkOptions()).chunk_page(page)
except RecursionError:
    print("RecursionError")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, check=False)
    assert (result.returncode, result.stdout.strip()) == (0, "RecursionError"), result.stderr
