"""The Node.js API docs (3.5 MB of real Markdown, many repeated headings), built for real."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import build_mkdocs
from tests.corpus import NODEJS_API, nodejs_site
from tests.invariants import Index, check_index

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not any(NODEJS_API.glob("*.md")),
                       reason=f"the Node.js API docs are not installed at {NODEJS_API}"),
]


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_nodejs_api_site_keeps_every_invariant(tmp_path: Path, theme: str) -> None:
    config = nodejs_site(tmp_path, theme=theme)
    assert config is not None
    index = Index.load(build_mkdocs(config))
    check_index(index, max_tokens=512)
    pages = index.pages()
    assert len(pages) >= 60
    # Repeated headings ("Event: 'close'", "Class: ...") must each link to their own section.
    urls = [r["url"] for r in index.records if r["sectionSlug"]]
    assert len(set(urls)) > 0.8 * len(urls)
    oversize = [r for r in index.records if r["flags"]["allowOversize"]]
    assert all(r["flags"]["oversizeReason"] for r in oversize)
