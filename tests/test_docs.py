"""The README and docs/ pages: their links lead somewhere, and every option is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mkdocs_mdchunk.plugin_config import MdChunkConfig
from tests.conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    targets = [link.split("#", 1)[0] for link in _LINK.findall(page.read_text(encoding="utf-8"))
               if "://" not in link and not link.startswith(("#", "mailto:"))]
    missing = [target for target in targets if not (page.parent / target).exists()]
    assert not missing, missing


def test_the_readme_documents_every_plugin_option() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    options = [name for name, _ in MdChunkConfig._schema]
    assert options
    undocumented = [name for name in options if f"| `{name}` |" not in readme]
    assert not undocumented, undocumented
