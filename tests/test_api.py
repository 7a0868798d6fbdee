"""The public API: what `mdchunk` exports, and the core's independence from the engines."""

from __future__ import annotations

import subprocess
import sys

import mdchunk
import mkdocs_mdchunk
import sphinx_mdchunk


def test_every_exported_name_exists_once() -> None:
    for module in (mdchunk, mkdocs_mdchunk, sphinx_mdchunk):
        assert len(module.__all__) == len(set(module.__all__)), module.__name__
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"


def test_the_core_never_imports_an_engine() -> None:
    modules = ["mdchunk", "mdchunk.cli", "mdchunk.engines.site", "mdchunk.outputs.profiles",
               "mdchunk.outputs.sqlite", "mdchunk.tools.diff", "mdchunk.tools.validate",
               "mdchunk.tools.stats", "mdchunk.tools.chroma", "mdchunk.engines.sources",
               "mdchunk.ray"]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "engines = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'mkdocs', 'properdocs', 'sphinx', 'docutils'})\n"
        "print(engines)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


def test_loading_the_plugins_loads_no_chunking_search_or_pagefind() -> None:
    """An engine loads the plugin in the build's own process, which hands pages to a worker:
    what only chunking, search or Pagefind need is loaded where and when they run."""
    heavy = ["lxml", "numpy", "mdchunk.chunking.html", "mdchunk.chunking.chunk",
             "mdchunk.search.ranking", "mdchunk.search.dense", "mdchunk.outputs.sqlite",
             "mdchunk.outputs.pagefind_bundle"]
    code = (
        "import sys\n"
        "import mkdocs_mdchunk.plugin, sphinx_mdchunk\n"
        "from mdchunk.search.kinds import KINDS\n"
        f"print(sorted(name for name in {heavy!r} if name in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
