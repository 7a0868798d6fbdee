"""The Node.js API docs as an MkDocs site: a large real corpus (3.5 MB of Markdown, 64 pages).

Debian's `nodejs-doc` package installs it under /usr/share/doc/nodejs/api; where it is absent,
`nodejs_site` returns None and callers skip.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

NODEJS_API = Path("/usr/share/doc/nodejs/api")

MATERIAL_EXTENSIONS: list[Any] = [
    {"toc": {"permalink": True}}, "tables", "admonition", "attr_list", "md_in_html",
    "footnotes", "def_list", "pymdownx.details", "pymdownx.superfences",
    {"pymdownx.highlight": {"pygments_lang_class": True}}, "pymdownx.inlinehilite",
    {"pymdownx.tabbed": {"alternate_style": True}},
    {"pymdownx.tasklist": {"custom_checkbox": True}},
]


def nodejs_site(target: Path, *, copies: int = 1, theme: str = "mkdocs",
                plugins: list[Any] | None = None, pages: int | None = None,
                sources: Sequence[Path] | None = None) -> Path | None:
    """Write an MkDocs project of the Node.js API docs under `target`; return its mkdocs.yml.

    Arguments:
        copies: How many times the corpus is copied (in folders `copy0`, `copy1`, ...).
        theme: `mkdocs` (default theme, plain extensions) or `material` (pymdownx extensions).
        plugins: The `plugins` list of mkdocs.yml (default: search and mdchunk).
        pages: Only the first this many pages (a small site), and a home page.
        sources: Only these pages of the corpus (instead of `pages`), and a home page.
    """
    sources = sorted(NODEJS_API.glob("*.md"))[:pages] if sources is None else list(sources)
    if not sources:
        return None
    docs = target / "docs"
    for copy in range(copies):
        folder = docs / f"copy{copy}" if copies > 1 else docs
        folder.mkdir(parents=True, exist_ok=True)
        for source in sources:
            shutil.copyfile(source, folder / source.name)
    if not (docs / "index.md").exists():
        (docs / "index.md").write_text("# Node.js API\n\nThe Node.js API documentation.\n")
    config: dict[str, Any] = {
        "site_name": "Node.js API",
        "site_url": "https://nodejs.example/api/",
        "docs_dir": "docs",
        "site_dir": "site",
        "theme": {"name": theme},
        "plugins": ["search", "mdchunk"] if plugins is None else plugins,
        "markdown_extensions": MATERIAL_EXTENSIONS if theme == "material"
        else [{"toc": {"permalink": True}}, "tables", "fenced_code", "admonition"],
        "validation": {"links": {"not_found": "ignore", "anchors": "ignore",
                                 "unrecognized_links": "ignore"},
                       "omitted_files": "ignore"},
    }
    config_file = target / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
    return config_file


def nodejs_sphinx_project(target: Path, *, mdchunk: bool = True) -> Path | None:
    """Write a Sphinx project (MyST) of the Node.js API docs under `target`; return its source
    folder, or None when the corpus is absent."""
    sources = sorted(NODEJS_API.glob("*.md"))
    if not sources:
        return None
    folder = target / "src"
    folder.mkdir(parents=True, exist_ok=True)
    for source in sources:
        if source.name != "index.md":
            shutil.copyfile(source, folder / source.name)
    (folder / "index.md").write_text(
        "# Node.js API\n\n```{toctree}\n:glob:\n\n*\n```\n", encoding="utf-8")
    extensions = ["myst_parser"] + (["sphinx_mdchunk"] if mdchunk else [])
    (folder / "conf.py").write_text(
        f"project = 'Node.js API'\nextensions = {extensions!r}\n"
        "html_baseurl = 'https://nodejs.example/api/'\n"
        "myst_heading_anchors = 6\nsuppress_warnings = ['myst', 'toc', 'ref', 'misc']\n",
        encoding="utf-8")
    return folder
