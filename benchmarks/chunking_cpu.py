"""CPU time to chunk the Node.js API docs into what a build keeps of each page, for two copies of
mdchunk side by side in one run.

    python benchmarks/chunking_cpu.py /tmp/mdchunk-before .            # before / after
    python benchmarks/chunking_cpu.py . --profile 30                   # where the time goes

Each copy is a folder holding an `mdchunk/` package (a `git worktree` or `git archive` of a
commit). The pages are rendered once by MkDocs (the Node.js docs as `tests/corpus.py`
writes them); each measurement then runs in a fresh process that imports the copy's mdchunk and
takes the CPU time (`time.process_time`) of chunking every page with a new chunker (so no token
count is cached) and making its output as a build with the default settings does: the native
records (encoded), the prints for duplicate marks and the agent outputs' facts. The copies take
turns, and the medians are compared: on a shared machine only the ratio means something. What
the copies made is compared too (a digest of every page's output).
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: Runs in the measuring process: sys.argv = [pages, copy, runs, profile lines].
MEASURE = r"""
import cProfile, hashlib, json, pickle, pstats, sys, time
pages_file, copy, runs, profile = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, copy)
from mdchunk import Chunker, ChunkOptions, PageInput
try:  # a page's outputs are made in their own module since the build process stopped loading them
    from mdchunk.outputs.page_output import page_output
except ImportError:
    from mdchunk.outputs.pages import page_output
try:  # the layout since the settings got one module and the counters moved into chunking/
    from mdchunk.chunking.tokens import token_counter
    from mdchunk.settings import OutputSettings
except ImportError:  # a copy from before
    from mdchunk.outputs.pages import OutputSettings
    from mdchunk.tokens import token_counter
assert Chunker.__module__.startswith("mdchunk") and copy in sys.modules["mdchunk"].__file__
pages = [PageInput(**page) for page in pickle.loads(open(pages_file, "rb").read())]
settings = OutputSettings(agents=True, duplicates=True)

def chunk_all(outputs=None):
    chunker = Chunker(ChunkOptions(), counter=token_counter("cl100k_base"),
                      processed_at="2026-01-01T00:00:00Z")
    chunker.reproducible = True
    chunks = 0
    for page in pages:
        output = page_output(chunker.chunk_page(page), settings, count=chunker.count,
                             site_url="https://nodejs.example/api/")
        chunks += output.chunks
        if outputs is not None:
            outputs.append([output.markdown, dict(output.records), output.agent, output.prints])
    return chunks

made = []
chunk_all(made)  # load the encoding, warm the imports, and keep what was made to compare
digest = hashlib.sha256(json.dumps(made, ensure_ascii=False).encode("utf-8", "replace"))

seconds = []
for _ in range(runs):
    started = time.process_time()
    chunks = chunk_all()
    seconds.append(time.process_time() - started)
if profile:
    profiler = cProfile.Profile()
    profiler.runcall(chunk_all)
    stats = pstats.Stats(profiler, stream=sys.stderr)
    stats.sort_stats("tottime").print_stats(profile)
    stats.sort_stats("cumulative").print_stats(profile)
print(json.dumps({"seconds": seconds, "chunks": chunks, "digest": digest.hexdigest()}))
"""


def rendered_pages(folder: Path) -> Path:
    """The Node.js docs rendered by MkDocs, as pickled `PageInput` fields (made once)."""
    pages_file = folder / "pages.pickle"
    if pages_file.exists():
        return pages_file
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from benchmarks.build_overhead import rendered_pages as pages_of
    from tests.corpus import nodejs_site

    config_file = nodejs_site(folder / "site", plugins=[])
    if config_file is None:
        sys.exit("The Node.js API docs are not installed (Debian's nodejs-doc).")
    build(load_config(str(config_file)))
    pages = [{"html": page.html, "source_path": page.source_path, "url": page.url,
              "title": page.title} for page in pages_of(folder / "site" / "site")]
    pages_file.write_bytes(pickle.dumps(pages))
    return pages_file


def measure(pages_file: Path, copy: Path, runs: int, profile: int = 0) -> dict[str, Any]:
    """CPU seconds of each run of chunking the pages with `copy`'s mdchunk, and the chunks."""
    done = subprocess.run([sys.executable, "-c", MEASURE, str(pages_file), str(copy.resolve()),
                           str(runs), str(profile)], check=True, capture_output=True, text=True)
    if profile:
        print(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("copies", nargs="+", type=Path, help="folders holding an mdchunk/")
    parser.add_argument("--rounds", type=int, default=5, help="turns of each copy")
    parser.add_argument("--runs", type=int, default=3, help="runs in each turn")
    parser.add_argument("--profile", type=int, default=0, help="print this many lines of a "
                        "profile of the first copy instead")
    parser.add_argument("--pages", type=Path, default=Path(tempfile.gettempdir()) / "mdchunk-cpu",
                        help="where the rendered pages are kept between runs")
    arguments = parser.parse_args()
    arguments.pages.mkdir(parents=True, exist_ok=True)
    pages_file = rendered_pages(arguments.pages)
    if arguments.profile:
        measure(pages_file, arguments.copies[0], 1, arguments.profile)
        return
    seconds: dict[Path, list[float]] = {copy: [] for copy in arguments.copies}
    digests: set[str] = set()
    for _ in range(arguments.rounds):
        for copy in arguments.copies:
            measured = measure(pages_file, copy, arguments.runs)
            seconds[copy].append(statistics.median(measured["seconds"]))
            digests.add(measured["digest"])
            print(f"{copy}: {measured['chunks']} chunks, "
                  f"{statistics.median(measured['seconds']):.3f} s", file=sys.stderr)
    first = statistics.median(seconds[arguments.copies[0]])
    for copy in arguments.copies:
        median = statistics.median(seconds[copy])
        print(f"{copy}: median {median:.3f} s CPU, ratio {median / first:.3f}")
    print("the copies made the same output" if len(digests) == 1 else
          "THE COPIES MADE DIFFERENT OUTPUT")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
