"""Sphinx configuration of the Beacon example site, used to exercise sphinx_mdchunk.

Its MyST pages need MyST-Parser, which mdchunk does not install (`pip install myst-parser`).
Build from the repository root:

    .venv/bin/sphinx-build -W -b html example-site/sphinx example-site/sphinx/_build/html
"""

import sys
from pathlib import Path

# autodoc imports beacon_api.py, which lives beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))

project = "Beacon"
author = "The Beacon authors"
copyright = "2024, The Beacon authors"
version = "2.4"
release = "2.4.0"

extensions = [
    "sphinx_mdchunk",
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
]

source_suffix = {
    ".rst": "restructuredtext",
    ".md": "markdown",
}
root_doc = "index"
exclude_patterns = ["_build"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"

html_theme = "alabaster"
html_title = "Beacon 2.4 documentation"
html_baseurl = "https://example.com/sphinx/"

mdchunk_max_tokens = 512
mdchunk_llms_optional = ["empty.rst"]
