"""What mdchunk costs a build, side by side in one run (ratios, not absolute times).

    python benchmarks/build_overhead.py [--runs 5] [--theme mkdocs|material]

Builds the Node.js API docs (see corpus.py) with MkDocs, with and without the mdchunk plugin,
alternating the two so that machine noise hits both alike, and prints the median wall time and
peak memory (max RSS) of each and their ratios. Then it times the chunking step alone (rendered
HTML to final records with exact token counts) and prints its throughput in MB of source
Markdown per second on one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import NODEJS_API, nodejs_site


def timed_build(config: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one `mkdocs build` in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)],
        stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"mkdocs build failed for {config}")
    return elapsed, usage.ru_maxrss


def chunking_throughput(site_config: Path) -> tuple[float, int, int]:
    """Seconds to chunk every page of a built site from its rendered body HTML, pages, chunks."""
    import lxml.html

    from mdchunk import Chunker, ChunkOptions, PageInput

    site = site_config.parent / "site"
    pages = []
    for path in sorted(site.rglob("index.html")):
        root = lxml.html.parse(str(path)).getroot()
        main = root.xpath("//div[@role='main'] | //article[contains(@class, 'md-content')]")
        if not main:
            continue
        body = "".join(lxml.html.tostring(child, encoding="unicode") for child in main[0])
        url = str(path.parent.relative_to(site)).replace(".", "") + "/"
        pages.append(PageInput(html=body, source_path=url.strip("/") + ".md", url=url,
                               title=url))
    chunker = Chunker(ChunkOptions())
    chunker.chunk_page(pages[0])  # load the encoding outside the timing
    started = time.process_time()
    chunks = sum(len(chunker.chunk_page(page).chunks) for page in pages)
    return time.process_time() - started, len(pages), chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--theme", choices=["mkdocs", "material"], default="mkdocs")
    args = parser.parse_args()
    if not any(NODEJS_API.glob("*.md")):
        raise SystemExit(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
    with tempfile.TemporaryDirectory() as folder:
        base = nodejs_site(Path(folder) / "without", theme=args.theme, plugins=["search"])
        mdchunk = nodejs_site(Path(folder) / "with", theme=args.theme)
        assert base is not None and mdchunk is not None
        timed_build(base), timed_build(mdchunk)  # warm the file cache and bytecode
        runs: dict[str, list[tuple[float, int]]] = {"without": [], "with": []}
        for _ in range(args.runs):
            runs["without"].append(timed_build(base))
            runs["with"].append(timed_build(mdchunk))
        seconds = {k: statistics.median(t for t, _ in v) for k, v in runs.items()}
        memory = {k: statistics.median(m for _, m in v) for k, v in runs.items()}
        print(f"Node.js API docs, theme {args.theme}, {args.runs} runs each (medians)")
        for name in ("without", "with"):
            print(f"  build {name} mdchunk: {seconds[name]:.2f} s, "
                  f"{memory[name] / 1024:.0f} MiB peak")
        print(f"  time ratio   {seconds['with'] / seconds['without']:.3f}")
        print(f"  memory ratio {memory['with'] / memory['without']:.3f}")
        source_bytes = sum(p.stat().st_size for p in NODEJS_API.glob("*.md"))
        elapsed, pages, chunks = chunking_throughput(base)
        print(f"  chunking alone: {pages} pages, {chunks} chunks in {elapsed:.2f} s CPU: "
              f"{source_bytes / elapsed / 1e6:.2f} MB/s of source Markdown")


if __name__ == "__main__":
    main()
