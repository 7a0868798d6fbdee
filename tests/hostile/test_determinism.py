"""Byte-identical output under different PYTHONHASHSEEDs and Sphinx worker counts
(SOURCE_DATE_EPOCH set), from real subprocess builds."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.hostile.conftest import SPHINX_CONF

FORMATS = ["native", "files", "hepilot", "semantic", "flat", "markdown_chunker", "adr",
           "docsearch"]
PAGES = {
    "index.md": """\
        ---
        zeta: 1
        alpha: [b, a]
        owner: docs
        tags: {x: 1, y: 2}
        ---
        # Home

        Intro with ünïcödé, 日本語。 and emoji 🎉.

        ## Part

        Some text. More text! Questions?
        """,
    **{f"page{n}.md": f"# Page {n}\n\n" + "Words of the page. " * 60 + f"\n\n## Sub {n}\n\n"
       + "```python\nprint({n})\n```\n" for n in range(12)},
}


def outputs(site: Path) -> dict[str, bytes]:
    """Every file mdchunk wrote: the formats and the pages' Markdown."""
    files = {}
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site).as_posix()
        if path.is_file() and (relative.startswith(("chunks", "docsearch"))
                               or path.suffix == ".md"):
            files[relative] = path.read_bytes()
    return files


def run(command: list[str], seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": seed, "SOURCE_DATE_EPOCH": "1700000000"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.limit(60)
def test_mkdocs_hash_seeds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(textwrap.dedent(text), encoding="utf-8")
    sites = []
    for seed in ("1", "4242"):
        site = tmp_path / f"site-{seed}"
        config = tmp_path / f"mkdocs-{seed}.yml"
        config.write_text(yaml.safe_dump({
            "site_name": "Seeds", "docs_dir": str(docs), "site_dir": str(site),
            "site_url": "https://example.org/", "plugins": [{"mdchunk": {"formats": FORMATS}}],
        }), encoding="utf-8")
        run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)], seed)
        sites.append(outputs(site))
    assert sites[0] and "chunks.jsonl" in sites[0]
    assert sites[0] == sites[1]


@pytest.mark.limit(60)
def test_sphinx_hash_seeds_and_workers(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(SPHINX_CONF + f"mdchunk_formats = {FORMATS!r}\n",
                                    encoding="utf-8")
    for name, page in PAGES.items():
        text = textwrap.dedent(page)
        if name == "index.md":
            text += "\n```{toctree}\n" + "\n".join(f"page{n}" for n in range(12)) + "\n```\n"
        (source / name).write_text(text, encoding="utf-8")
    sites = []
    for seed, workers in (("1", "1"), ("4242", "2")):
        out = tmp_path / f"out-{seed}"
        run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-j", workers, str(source),
             str(out)], seed)
        sites.append(outputs(out))
    assert sites[0] and "chunks.jsonl" in sites[0]
    assert sites[0] == sites[1]
