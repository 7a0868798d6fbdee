"""Helpers the tests share: Markdown rendered by the real Python-Markdown, a page of it chunked
by the core, and index files read back.

Fixtures (sites built for real, reproducible builds) are in tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import markdown

from mdchunk import Chunker, ChunkOptions, PageChunks, PageInput

#: The Markdown extensions pages are rendered with (`render`), as MkDocs sites use them.
EXTENSIONS = ["toc", "tables", "admonition", "attr_list", "def_list", "footnotes",
              "pymdownx.superfences", "pymdownx.arithmatex"]
CONFIGS: dict[str, dict[str, Any]] = {"toc": {"permalink": True},
                                      "pymdownx.arithmatex": {"generic": True}}
#: pymdownx.highlight as `chunk_page(languages=True)` adds it: code blocks name their language.
HIGHLIGHT: dict[str, dict[str, Any]] = {"pymdownx.highlight": {"pygments_lang_class": True}}


def child_pids(pid: int | None = None) -> list[int]:
    """The pids of the unreaped children of process `pid` (this one by default), read from
    `/proc`. A thread that ends while its children are read has none, rather than failing the
    code under test. Imports nothing from outside, for `CHILD_PIDS_SOURCE`."""
    import os
    from pathlib import Path

    found: list[int] = []
    for task in list(Path(f"/proc/{pid or os.getpid()}/task").iterdir()):
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return found


#: `child_pids` as source, for code a test runs inside a build's own process (a MkDocs hook, a
#: script), where the tests cannot be imported.
CHILD_PIDS_SOURCE = inspect.getsource(child_pids)


def render(text: str, extensions: Sequence[str] = EXTENSIONS,
           configs: Mapping[str, Mapping[str, Any]] = CONFIGS) -> str:
    """`text` rendered by Python-Markdown with `extensions`, configured by `configs`."""
    return markdown.markdown(text, extensions=list(extensions), extension_configs=configs)


def chunk_page(text: str, *, source: str = "guide/page.md", title: str = "Page",
               meta: dict[str, Any] | None = None, site_url: str = "https://example.org/",
               languages: bool = False, **options: object) -> PageChunks:
    """Chunk the Markdown `text`, rendered (`render`), as the page `source` (its url the
    source's path as a folder) with the chunking `options`; with `languages`, code blocks are
    highlighted by pymdownx.highlight, which names their language."""
    chunker = Chunker(ChunkOptions.validated(options), site_url=site_url)
    url = source.rpartition(".")[0] + "/"
    html = (render(text, [*EXTENSIONS, *HIGHLIGHT], {**CONFIGS, **HIGHLIGHT}) if languages
            else render(text))
    page = PageInput(html=html, source_path=source, url=url, title=title, meta=meta or {})
    return chunker.chunk_page(page)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, one a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- servers the tests start ------------------------------------------------------------------


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """Return once `process` listens on 127.0.0.1:`port`; fail if it stops or never does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server stopped"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def server_env(cache: Path) -> dict[str, str]:
    """The tests' environment, with a cache folder of their own."""
    return {**os.environ, "XDG_CACHE_HOME": str(cache)}
