"""How many duplicate chunks real sites have: each corpus built with mdchunk's defaults, the
marks of its index counted.

    python benchmarks/duplicates.py [--corpus NAME ...] [--option KEY=VALUE ...]

The corpora are the retrieval benchmark's (the Node.js API docs as an MkDocs site and as a
Sphinx project, the example sites, the handbook) and `snippets`, the site the tests build with
one section included on three pages (tests/test_sections.py). For each: its pages and chunks,
the exact and near duplicates, each split by whether the first occurrence is on the same page
or another one, and the tokens of the marked chunks (what `duplicates: drop` leaves out of the
embedding formats).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.retrieval import CORPORA, build_mkdocs, build_sphinx, write_project

SNIPPETS = "snippets"


def write_snippet_site(target: Path) -> Path:
    """The tests' site with a section included on three pages (and one near copy); return its
    mkdocs.yml."""
    from tests.test_duplicates import NEAR_COPY
    from tests.test_sections import PAGES, SNIPPET

    docs, includes = target / "docs", target / "includes"
    for folder in (docs, includes):
        folder.mkdir(parents=True, exist_ok=True)
    (includes / "proxy.md").write_text(SNIPPET, encoding="utf-8")
    pages = {**PAGES, "zos.md": "# z/OS\n\nNo package yet.\n\n" + NEAR_COPY}
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    config = {"site_name": "Snippets", "docs_dir": "docs", "plugins": ["mdchunk"],
              "markdown_extensions": [{"toc": {"permalink": True}},
                                      {"pymdownx.snippets": {"base_path": [str(includes)]}}]}
    (target / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return target / "mkdocs.yml"


def build(name: str, folder: Path, options: Mapping[str, Any]) -> Path | None:
    """Build corpus `name` under `folder` with mdchunk's `options`; return the site folder."""
    if name == SNIPPETS:
        return build_mkdocs(write_snippet_site(folder), options, "dups")
    project = write_project(name, folder)
    if project is None:
        return None
    engine, path = project
    return (build_mkdocs if engine == "mkdocs" else build_sphinx)(path, options, "dups")


def count(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The marks of an index's records, by kind and by where the first occurrence is."""
    page_of = {record["id"]: record["parentId"] for record in records}
    counts: Counter[str] = Counter(pages=len(set(page_of.values())), chunks=len(records))
    for record in records:
        mark = record.get("duplicateOf")
        if not mark:
            continue
        where = "same page" if page_of[mark["id"]] == record["parentId"] else "other pages"
        counts[f"{mark['kind']}, {where}"] += 1
        counts["marked tokens"] += record["tokenStats"]["tokens"]
    counts["tokens"] = sum(record["tokenStats"]["tokens"] for record in records)
    return dict(counts)


COLUMNS = ("pages", "chunks", "exact, other pages", "exact, same page", "near, other pages",
           "near, same page", "marked tokens", "tokens")


def table(rows: Mapping[str, Mapping[str, int]]) -> str:
    """A Markdown table of the counts, with the marked share of chunks and tokens."""
    header = ["corpus", *COLUMNS, "marked chunks", "marked tokens (share)"]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for name, counts in rows.items():
        marked = sum(counts.get(column, 0) for column in COLUMNS[2:6])
        cells = [name, *(f"{counts.get(column, 0):,}" for column in COLUMNS),
                 f"{marked} ({100 * marked / max(counts['chunks'], 1):.1f}%)",
                 f"{100 * counts.get('marked tokens', 0) / max(counts['tokens'], 1):.1f}%"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_option(text: str) -> tuple[str, Any]:
    """`KEY=VALUE`, the value read as YAML (`max_tokens=256`, `split_level=3`)."""
    key, _, value = text.partition("=")
    return key, yaml.safe_load(value)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", nargs="+", choices=[*CORPORA, SNIPPETS],
                        default=[*CORPORA, SNIPPETS])
    parser.add_argument("--option", nargs="*", default=[], type=parse_option,
                        help="mdchunk options of the builds (KEY=VALUE)")
    args = parser.parse_args(argv)
    options = dict(args.option)
    rows: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.corpus:
            site = build(name, Path(folder) / name, options)
            if site is None:
                print(f"note: {name} is not on this machine, left out", file=sys.stderr)
                continue
            lines = (site / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
            rows[name] = count([json.loads(line) for line in lines])
    print(f"options: {json.dumps(options) if options else 'the defaults'}\n")
    print(table(rows))


if __name__ == "__main__":
    main()
