"""The mdchunk Sphinx extension: `extensions = ["sphinx_mdchunk"]` in conf.py.

Every option of the MkDocs plugin is a config value named `mdchunk_<option>`; `sphinx-build -b
html` (or `dirhtml`) then writes `chunks.jsonl` in the output folder and each page's Markdown
beside its HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mdchunk._version import __version__
from sphinx_mdchunk._config import register_config_values
from sphinx_mdchunk._events import MdChunkBuild

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__all__ = ["setup"]


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the `mdchunk_*` config values and the build events."""
    register_config_values(app)
    build = MdChunkBuild()
    app.connect("config-inited", build.config_inited)
    app.connect("builder-inited", build.builder_inited)
    app.connect("env-before-read-docs", build.before_read_docs)
    app.connect("html-page-context", build.html_page_context)
    app.connect("build-finished", build.build_finished)
    return {
        "version": __version__,
        # Pages written by parallel workers reach the index through per-document shards,
        # merged in the main process at build-finished.
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
