"""Fixtures that build real MkDocs sites in tmp_path."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_SITE = REPO / "example-site" / "mkdocs"


def build_mkdocs(config_file: Path, **overrides: Any) -> Path:
    """Run a real `mkdocs build` of `config_file`; return the site folder."""
    config = load_config(config_file=str(config_file), **overrides)
    build(config)
    return Path(config.site_dir)


SiteBuilder = Callable[..., Path]


@pytest.fixture
def make_site(tmp_path: Path) -> SiteBuilder:
    """Write a site from `{path: markdown}` and build it; return its site folder.

    Keyword arguments: `plugin` (the mdchunk options), `config` (extra mkdocs.yml keys).
    """

    def make(pages: dict[str, str], *, plugin: dict[str, Any] | None = None,
             config: dict[str, Any] | None = None, strict: bool = False) -> Path:
        docs = tmp_path / "docs"
        for name, text in pages.items():
            path = docs / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        settings: dict[str, Any] = {
            "site_name": "Test site",
            "docs_dir": str(docs),
            "site_dir": str(tmp_path / "site"),
            "markdown_extensions": [{"toc": {"permalink": True}}, "tables", "admonition",
                                    "attr_list", "md_in_html", "footnotes", "def_list"],
            "plugins": [{"mdchunk": plugin or {}}],
            "strict": strict,
        }
        settings.update(config or {})
        config_file = tmp_path / "mkdocs.yml"
        config_file.write_text(yaml.safe_dump(settings), encoding="utf-8")
        return build_mkdocs(config_file)

    return make


@pytest.fixture
def example_site(tmp_path: Path) -> Path:
    """A copy of example-site/mkdocs in tmp_path (so builds never write into the repo)."""
    target = tmp_path / "example"
    shutil.copytree(EXAMPLE_SITE, target, ignore=shutil.ignore_patterns("site", "site-material"))
    return target
