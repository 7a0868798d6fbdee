"""Save everything mdchunk writes for a set of real builds, and compare two such saves.

A refactoring that must not change the output is checked by saving before and after:

    python benchmarks/outputs.py save /tmp/before
    ... change the code ...
    python benchmarks/outputs.py save /tmp/after
    python benchmarks/outputs.py compare /tmp/before /tmp/after

The builds (every output format, the inspector, `SOURCE_DATE_EPOCH` fixed so timestamps agree):

- the example MkDocs site, a first build and a cached rebuild, a build chunking inline, and
  builds with overlap in each mode;
- the example Sphinx project, with `-j 1` and with `-j 2`;
- the Node.js API docs as an MkDocs site (skipped where the corpus is absent);
- `mdchunk site` over the built example and Node.js sites, and `mdchunk chunk` over the example
  docs folder (the post-build paths).

SQLite files are compared by their SQL dump (the rows, not the file's page layout). This is a
tool, not a test: later work changes the output on purpose.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.corpus import nodejs_site  # noqa: E402

FORMATS = ["native", "files", "hepilot", "semantic", "flat", "markdown_chunker", "adr",
           "docsearch", "sqlite"]
#: What mdchunk writes into a site, by path relative to it; the engine's own files are left out.
OUTPUT_PATTERNS = ("chunks.jsonl", "chunks.*.jsonl", "chunks/**/*", "docsearch.json",
                   "chunks.sqlite", "_mdchunk/**/*", "**/*.md")
ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}


def _run(*command: str | Path, cwd: Path | None = None) -> None:
    subprocess.run([str(part) for part in command], check=True, cwd=cwd, env=ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _mkdocs_project(work: Path, source: Path, **plugin: object) -> Path:
    """A copy of the MkDocs project of `source` (its mkdocs.yml) with mdchunk's options set."""
    project = work / "project"
    shutil.copytree(source.parent, project, ignore=shutil.ignore_patterns("site", ".cache"))
    config_file = project / source.name
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config["plugins"] = [entry for entry in config["plugins"]
                         if entry != "mdchunk" and not (isinstance(entry, dict)
                                                        and "mdchunk" in entry)]
    config["plugins"].append({"mdchunk": {"max_tokens": 512, "formats": FORMATS,
                                          "inspector": True} | plugin})
    config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
    return config_file


def _keep(site: Path, target: Path) -> None:
    """Copy what mdchunk wrote in `site` to `target`."""
    for pattern in OUTPUT_PATTERNS:
        for path in site.glob(pattern):
            if path.is_file():
                destination = target / path.relative_to(site)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination)


def _mkdocs(name: str, config_file: Path, out: Path, *extra: str) -> Path:
    _run(_bin("mkdocs"), "build", "-q", "-f", config_file, *extra)
    site = config_file.parent / "site"
    _keep(site, out / name)
    return site


def save(out: Path) -> None:
    """Build every case and keep its outputs under `out/<case>`."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="mdchunk-outputs-") as folder:
        work = Path(folder)
        example = _mkdocs_project(work / "example", ROOT / "example-site/mkdocs/mkdocs.yml")
        site = _mkdocs("mkdocs-example", example, out)
        _mkdocs("mkdocs-example-cached", example, out)
        inline = _mkdocs_project(work / "inline", ROOT / "example-site/mkdocs/mkdocs.yml",
                                 workers=0, cache=False)
        _mkdocs("mkdocs-example-inline", inline, out)
        for mode in ("text", "metadata"):
            overlap = _mkdocs_project(work / f"overlap-{mode}",
                                      ROOT / "example-site/mkdocs/mkdocs.yml",
                                      overlap_tokens=48, overlap_mode=mode, max_tokens=256)
            _mkdocs(f"mkdocs-example-overlap-{mode}", overlap, out)
        _post_build("site-example", site, example.parent / "docs", out)
        _run(_bin("mdchunk"), "chunk", example.parent / "docs", "-o", work / "chunked",
             "--max-tokens", "512", *[f"-f{name}" for name in FORMATS])
        _keep(work / "chunked", out / "chunk-example")
        for jobs in ("1", "2"):
            sphinx = work / f"sphinx{jobs}"
            shutil.copytree(ROOT / "example-site/sphinx", sphinx,
                            ignore=shutil.ignore_patterns("_build"))
            _run(_bin("sphinx-build"), "-q", "-b", "html", "-j", jobs, "-D",
                 f"mdchunk_formats={','.join(FORMATS)}", "-D", "mdchunk_inspector=1",
                 sphinx, sphinx / "_build")
            _keep(sphinx / "_build", out / f"sphinx-example-j{jobs}")
        nodejs = nodejs_site(work / "nodejs-source")
        if nodejs is not None:
            config_file = _mkdocs_project(work / "nodejs", nodejs)
            site = _mkdocs("mkdocs-nodejs", config_file, out)
            _post_build("site-nodejs", site, config_file.parent / "docs", out)
    print(f"saved {sum(1 for path in out.rglob('*') if path.is_file())} files in {out}")


def _post_build(name: str, site: Path, docs: Path, out: Path) -> None:
    """`mdchunk site` over a copy of a built site (the plugin's outputs removed first)."""
    copy = out.parent / f".{out.name}-{name}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    try:
        for pattern in OUTPUT_PATTERNS:
            for path in list(copy.glob(pattern)):
                if path.is_file():
                    path.unlink()
        _run(_bin("mdchunk"), "site", copy, "--docs", docs, "--max-tokens", "512",
             *[f"-f{fmt}" for fmt in FORMATS])
        _keep(copy, out / name)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _dump(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return "\n".join(connection.iterdump())


def compare(before: Path, after: Path) -> int:
    """Print every file that differs, is missing or is new; return how many."""
    names = {path.relative_to(before) for path in before.rglob("*") if path.is_file()}
    names |= {path.relative_to(after) for path in after.rglob("*") if path.is_file()}
    problems = 0
    for name in sorted(names):
        old, new = before / name, after / name
        if not old.is_file() or not new.is_file():
            print(f"{'only after' if new.is_file() else 'only before'}: {name}")
            problems += 1
        elif name.suffix == ".sqlite":
            if _dump(old) != _dump(new):
                print(f"differs: {name}")
                problems += 1
        elif not filecmp.cmp(old, new, shallow=False):
            print(f"differs: {name}")
            problems += 1
    print(f"{len(names)} files compared, {problems} differ")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("save").add_argument("out", type=Path)
    pair = commands.add_parser("compare")
    pair.add_argument("before", type=Path)
    pair.add_argument("after", type=Path)
    arguments = parser.parse_args()
    if arguments.command == "save":
        save(arguments.out.absolute())
    else:
        sys.exit(1 if compare(arguments.before, arguments.after) else 0)


if __name__ == "__main__":
    main()
