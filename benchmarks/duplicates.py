"""How many duplicate chunks real sites have: each corpus built with mdchunk's defaults, the
marks of its index counted.

    python benchmarks/duplicates.py [--corpus NAME ...] [--option KEY=VALUE ...]
    python benchmarks/duplicates.py --finder /tmp/mdchunk-before .    # the finder's cost

The corpora are the retrieval benchmark's (the Node.js API docs as an MkDocs site and as a
Sphinx project, the example sites, the handbook) and `snippets`, the site the tests build with
one section included on three pages (tests/test_sections.py). For each: its pages and chunks,
the exact and near duplicates, each split by whether the first occurrence is on the same page
or another one, and the tokens of the marked chunks (what `duplicates: drop` leaves out of the
embedding formats).

With `--finder`, the duplicate finder's own cost instead, for copies of mdchunk side by side
(folders holding an `mdchunk/`: a `git worktree` or `git archive` of a commit): each chunk of
the Node.js docs (rendered once by MkDocs, chunked with the defaults) gets its print in its JSON
form, as the worker is sent it; a fresh process for each copy and measure adds them all to a
finder, as the worker does, and notes what the finder holds then (the growth of the process's
resident memory, and what tracemalloc counts), the CPU time (`time.process_time`) of the search,
and that of making the prints. The copies take turns; on a shared machine only the ratios of
the CPU times mean something. The copies' marks are compared too.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import subprocess
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


#: Runs in the measuring process: sys.argv = [texts file, copy, what, runs].
FINDER = r"""
import gc, hashlib, json, pickle, sys, time, tracemalloc
texts_file, copy, what, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, copy)
from mdchunk.outputs import duplicates
assert copy in duplicates.__file__
texts = pickle.loads(open(texts_file, "rb").read())
prints = [duplicates.chunk_print(chunk, text).as_json() for chunk, text in texts]

def search():
    finder = duplicates.DuplicateFinder()
    if hasattr(finder, "add_json"):
        for value in prints:
            finder.add_json(value)
    else:  # a copy from before: its worker added each print as a ChunkPrint
        for value in prints:
            finder.add(duplicates.ChunkPrint.from_json(value))
    return finder

def resident():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

if what == "memory":
    gc.collect()
    before = resident()
    finder = search()
    gc.collect()
    grown = (resident() - before) * 1024
    del finder
    gc.collect()
    tracemalloc.start()
    finder = search()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    marks = sorted((chunk, mark.of, mark.kind, mark.similarity)
                   for chunk, mark in finder.marks.items())
    digest = hashlib.sha256(json.dumps(marks).encode()).hexdigest()
    result = {"chunks": len(prints), "marks": len(marks), "digest": digest, "resident": grown,
              "traced": held}
else:
    def make_prints():
        return [duplicates.chunk_print(chunk, text).as_json() for chunk, text in texts]
    work = search if what == "search" else make_prints
    seconds = []
    for _ in range(runs):
        started = time.process_time()
        work()
        seconds.append(time.process_time() - started)
    result = {"seconds": seconds}
print(json.dumps(result))
"""


def chunk_texts(folder: Path) -> Path:
    """Each chunk's id and text of the Node.js docs chunked with the defaults (made once)."""
    texts_file = folder / "chunk-texts.pickle"
    if texts_file.exists():
        return texts_file
    from benchmarks.chunking_cpu import rendered_pages
    from mdchunk import Chunker, ChunkOptions, PageInput
    from mdchunk.chunking.tokens import token_counter

    fields = pickle.loads(rendered_pages(folder).read_bytes())
    chunker = Chunker(ChunkOptions(), counter=token_counter("cl100k_base"),
                      processed_at="2026-01-01T00:00:00Z")
    texts = [(chunk.id, chunk.text) for page in fields
             for chunk in chunker.chunk_page(PageInput(**page)).chunks]
    texts_file.write_bytes(pickle.dumps(texts))
    return texts_file


def in_copy(texts_file: Path, copy: Path, what: str, runs: int = 1) -> dict[str, Any]:
    """What `FINDER` measures of `copy`'s finder (`what`: memory, search or prints)."""
    done = subprocess.run([sys.executable, "-c", FINDER, str(texts_file), str(copy.resolve()),
                           what, str(runs)], check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def compare_finders(copies: Sequence[Path], folder: Path, rounds: int) -> None:
    """Print each copy's finder memory, and its CPU times as medians and ratios to the
    first copy's (the copies taking turns, `rounds` times)."""
    folder.mkdir(parents=True, exist_ok=True)
    texts_file = chunk_texts(folder)
    seconds: dict[tuple[Path, str], list[float]] = {}
    for _ in range(rounds):
        for copy in copies:
            for what in ("search", "prints"):
                measured = in_copy(texts_file, copy, what, runs=3)["seconds"]
                seconds.setdefault((copy, what), []).append(statistics.median(measured))
    digests = set()
    for copy in copies:
        memory = in_copy(texts_file, copy, "memory")
        digests.add(memory["digest"])
        cpu = {what: statistics.median(seconds[copy, what]) for what in ("search", "prints")}
        ratios = {what: cpu[what] / statistics.median(seconds[copies[0], what])
                  for what in cpu}
        print(f"{copy}: {memory['chunks']} chunks, {memory['marks']} marked; the finder holds "
              f"{memory['resident'] / 2**20:.1f} MiB resident ({memory['traced'] / 2**20:.2f} "
              f"MiB traced); search {cpu['search']:.3f} s CPU (ratio {ratios['search']:.3f}), "
              f"prints {cpu['prints']:.3f} s (ratio {ratios['prints']:.3f})")
    print("the copies found the same marks" if len(digests) == 1 else
          "THE COPIES FOUND DIFFERENT MARKS")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", nargs="+", choices=[*CORPORA, SNIPPETS],
                        default=[*CORPORA, SNIPPETS])
    parser.add_argument("--option", nargs="*", default=[], type=parse_option,
                        help="mdchunk options of the builds (KEY=VALUE)")
    parser.add_argument("--finder", nargs="+", type=Path, metavar="COPY",
                        help="measure the duplicate finder of these copies of mdchunk instead")
    parser.add_argument("--rounds", type=int, default=5, help="turns of each copy (--finder)")
    parser.add_argument("--pages", type=Path, default=Path(tempfile.gettempdir()) / "mdchunk-cpu",
                        help="where the rendered pages are kept between runs (--finder)")
    args = parser.parse_args(argv)
    if args.finder:
        compare_finders(args.finder, args.pages, args.rounds)
        return
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
