"""What compiling the chunking path with mypyc buys: chunking alone, compiled and from its Python
sources, in turn in one run (a ratio).

    python benchmarks/compiled.py [--runs 7]

Builds the Node.js API docs once with MkDocs (see corpus.py), takes every page's rendered body,
then chunks them in fresh processes, compiled and with `MDCHUNK_PURE_PYTHON=1` in turn, and
prints the median CPU seconds of each, their stages and the ratio. Where mdchunk was built
without compiling (`MDCHUNK_COMPILE=0`, no compiler), both sides run the sources.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.build_overhead import rendered_pages
from benchmarks.corpus import NODEJS_API, nodejs_site
from benchmarks.measure import machine, run

#: Chunks the pickled pages once (after loading the tokenizer) and prints what it measured.
CHILD = """
import json, pickle, sys
sys.path.insert(0, sys.argv[2])
from benchmarks.build_overhead import chunking_throughput
from mdchunk import _native
with open(sys.argv[1], "rb") as handle:
    pages = pickle.load(handle)
seconds, chunks, stages = chunking_throughput(pages, runs=1)
print(json.dumps({"compiled": _native.COMPILED, "seconds": seconds, "chunks": chunks,
                  "stages": stages}))
"""


def chunk_once(pages_file: Path, *, pure: bool) -> dict[str, object]:
    environment = {**os.environ, "MDCHUNK_PURE_PYTHON": "1" if pure else "0"}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(pages_file), str(Path(__file__).parent.parent)],
        capture_output=True, text=True, env=environment, check=True)
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    from mdchunk.timing import describe_timings

    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as folder:
        site = nodejs_site(Path(folder) / "site", plugins=["search"])
        assert site is not None
        run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(site)])
        pages_file = Path(folder) / "pages.pickle"
        pages_file.write_bytes(pickle.dumps(rendered_pages(site.parent / "site")))
        pairs = [(chunk_once(pages_file, pure=False), chunk_once(pages_file, pure=True))
                 for _ in range(args.runs)]
    source_bytes = sum(path.stat().st_size for path in NODEJS_API.glob("*.md"))
    print(f"Node.js API docs, chunked {args.runs} times each way in turn (fresh processes); "
          "medians of CPU seconds\n")
    for side, name in ((0, "compiled"), (1, "Python sources (MDCHUNK_PURE_PYTHON=1)")):
        measured = sorted((pair[side] for pair in pairs), key=lambda entry: entry["seconds"])
        middle = measured[len(measured) // 2]
        label = name if side or middle["compiled"] else "not compiled (this build)"
        print(f"{label}: {middle['seconds']:.3f} s, "
              f"{source_bytes / middle['seconds'] / 1e6:.2f} MB/s of source Markdown, "
              f"{middle['chunks']} chunks")
        print(f"  stages: {describe_timings(middle['stages'])}")
    ratio = statistics.median(a["seconds"] / b["seconds"] for a, b in pairs)
    print(f"\ncompiled / sources: {ratio:.3f} (median of the pairwise ratios)")


if __name__ == "__main__":
    main()
