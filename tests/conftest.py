"""Fixtures that build real MkDocs sites in tmp_path, and drive headless Chromium."""

from __future__ import annotations

import importlib.util
import shutil
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

from tests import helpers

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_SITE = REPO / "example-site" / "mkdocs"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def child_pids(pid: int) -> set[int]:
    """The processes `pid` started that have not been reaped (`tests.helpers.child_pids`); the
    test is skipped without `/proc`."""
    if not Path(f"/proc/{pid}/task").is_dir():
        pytest.skip("needs /proc")
    return set(helpers.child_pids(pid))


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
def reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    """Builds whose records do not depend on the time they ran (SOURCE_DATE_EPOCH)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


@pytest.fixture
def example_site(tmp_path: Path) -> Path:
    """A copy of example-site/mkdocs in tmp_path (so builds never write into the repo)."""
    target = tmp_path / "example"
    shutil.copytree(EXAMPLE_SITE, target, ignore=shutil.ignore_patterns("site", "site-material"))
    return target


#: Marks the tests that drive Chromium: they skip, saying why, where it cannot run.
needs_browser = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason=f"{CHROMIUM} not installed (apt-get install chromium)"),
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                       reason="playwright not installed (pip install playwright; "
                              "its browser download, `playwright install`, is not needed)"),
]


def browser_test(test: Callable[..., None]) -> Callable[..., None]:
    """Skip `test` where Chromium or Playwright is missing."""
    for mark in needs_browser:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """A fresh tab that records script errors and dialogs; the test fails on either."""
    context = browser.new_context(viewport={"width": 1500, "height": 950})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    tab.on("console", lambda message: problems.append(f"console: {message.text}")
           if message.type == "error" else None)

    def on_dialog(dialog: Any) -> None:
        problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    yield tab
    context.close()
    assert problems == []
