"""Does chunking cost grow linearly with the site? One run, side by side (a ratio).

    python benchmarks/scaling.py [--copies 10] [--builds [--theme material]]

Builds the Node.js API docs once with MkDocs (see tests/corpus.py), takes every page's rendered
body, then chunks the pages once and `--copies` times over (as distinct pages) with one
`Chunker`, and prints the CPU time of each and their ratio: linear cost gives a ratio equal
to the number of copies (the issue's bar: at most 11 for 10 copies). Token counts are not
memoized across copies (a fresh counter per page set), so every copy is real work.

`--builds` also runs whole `mkdocs build`s of the site and of `--copies` copies of it, without
and with mdchunk (first builds: empty page cache), and prints what mdchunk adds to each in time
and in peak memory: the memory of the build's own process should not grow with the site (the
records stream from the page cache), nor the worker's much (one page at a time). For scale, it
also prints what MkDocs' own `search` plugin costs the same build.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.build_overhead import rendered_pages, timed_build
from benchmarks.measure import Run, run
from tests.corpus import NODEJS_API, nodejs_site

if TYPE_CHECKING:
    from mdchunk import PageInput


def unmemoized_counter() -> Callable[[str], int]:
    """The default counter (rs-bpe where installed), without a memo: the copies' texts are the
    same, and a memo would count each of them once (fastokens keeps a cache of pieces inside:
    it would too)."""
    from mdchunk.chunking.tokens import _rs_bpe_count, load_encoding, surrogate_safe

    fast = _rs_bpe_count("cl100k_base")
    if fast is not None:
        return surrogate_safe(fast)
    encode = load_encoding("cl100k_base").encode_ordinary
    return lambda text: len(encode(text))


def chunk_all(pages: list[PageInput], copies: int) -> tuple[float, int]:
    """CPU seconds and chunks for chunking `pages` `copies` times (as distinct pages)."""
    from mdchunk import Chunker, ChunkOptions
    chunker = Chunker(ChunkOptions(), counter=unmemoized_counter())
    started = time.process_time()
    chunks = 0
    for copy in range(copies):
        for page in pages:
            copied = dataclasses.replace(page, source_path=f"copy{copy}/{page.source_path}",
                                         url=f"copy{copy}/{page.url}")
            chunks += len(chunker.chunk_page(copied).chunks)
    return time.process_time() - started, chunks


def whole_builds(folder: Path, copies: int, theme: str) -> None:
    """Print the first builds of 1 and `copies` copies of the site, without and with mdchunk,
    and (for scale) what MkDocs' own `search` plugin costs the same builds."""
    plugins = {"bare": [], "search": ["search"], "mdchunk": ["search", "mdchunk"]}
    measured: dict[tuple[int, str], Run] = {}
    for count in (1, copies):
        for name, listed in plugins.items():
            config = nodejs_site(folder / f"{count}-{name}", copies=count, theme=theme,
                                 plugins=listed)
            assert config is not None
            measured[count, name] = run(
                [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)])
    print(f"whole first builds, {theme} theme (one run each), {copies} copies against 1:")
    for count in (1, copies):
        bare, base, with_ = (measured[count, name] for name in plugins)
        print(f"  {count:>2} cop{'y' if count == 1 else 'ies'}: {base.seconds:.1f} s -> "
              f"{with_.seconds:.1f} s (x{with_.seconds / base.seconds:.2f}); build process "
              f"{base.main_kib // 1024} -> {with_.main_kib // 1024} MiB "
              f"(x{with_.main_kib / base.main_kib:.2f}), all processes (PSS) "
              f"{base.tree_kib // 1024} -> {with_.tree_kib // 1024} MiB "
              f"(x{with_.tree_kib / base.tree_kib:.2f}); for scale, search costs "
              f"x{base.seconds / bare.seconds:.2f} ({bare.seconds:.1f} s without it)")
    added = [measured[count, "mdchunk"].seconds - measured[count, "search"].seconds
             for count in (1, copies)]
    print(f"  time mdchunk adds: {added[0]:.2f} s -> {added[1]:.2f} s "
          f"(x{added[1] / added[0]:.1f} for x{copies} the pages)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--builds", action="store_true",
                        help="also compare whole mkdocs builds of 1 and --copies copies")
    parser.add_argument("--theme", choices=["mkdocs", "material"], default="mkdocs",
                        help="theme of the --builds sites (material: with pymdownx)")
    args = parser.parse_args()
    if not any(NODEJS_API.glob("*.md")):
        raise SystemExit(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
    with tempfile.TemporaryDirectory() as folder:
        config = nodejs_site(Path(folder), plugins=["search"])
        assert config is not None
        timed_build(config)
        pages = rendered_pages(config.parent / "site")
    one, one_chunks = chunk_all(pages, 1)
    many, many_chunks = chunk_all(pages, args.copies)
    print(f"Node.js API docs: {len(pages)} pages")
    print(f"  1 copy:   {one:.2f} s CPU, {one_chunks} chunks")
    print(f"  {args.copies} copies: {many:.2f} s CPU, {many_chunks} chunks")
    print(f"  cost ratio {many / one:.2f} for {args.copies}x the pages "
          f"({many / one / args.copies:.3f} per copy)")
    if args.builds:
        with tempfile.TemporaryDirectory() as folder:
            whole_builds(Path(folder), args.copies, args.theme)


if __name__ == "__main__":
    main()
