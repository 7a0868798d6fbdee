"""What mdchunk's Pagefind bundle of sections costs a build, next to Pagefind's own bundle.

    python benchmarks/pagefind.py [--runs 5]

Builds the Node.js API docs (see tests/corpus.py) with MkDocs three ways, in turn (A B C A B C ...,
after one warm-up run of each) so that machine noise hits all three alike:

- A: mdchunk writes its native index (the baseline);
- B: mdchunk writes the native index and the `pagefind` format: a Pagefind bundle with one
  record per section, made at the end of the build by Pagefind's binary run as a service;
- C: as A, then Pagefind's own command on the built HTML, `pagefind --site site`, with its
  default indexing: one record per page.

Twice: first builds (mdchunk's page cache emptied before each run, so every page is chunked)
and builds of the unchanged site (the cache filled: what is left is the bundle's own cost).
Prints the median wall time and peak memory of each, the median of the pairwise ratios to A.
A build cleans the site folder first, so each also removes the bundle of the build before;
every command ends with `sync`, so that what it removes is on disk (see `commands`).

Then the indexing step alone, each in a fresh process, in turn: mdchunk's `write_bundle` of
the site's section records (read from a JSON file) against `pagefind --site site`; and the two
bundles side by side: records, files and bytes.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import Run, machine, run
from tests.corpus import NODEJS_API, nodejs_site


def find_pagefind_package() -> None:
    """Take this file's folder off the path: run as a script, it comes first there, and
    `import pagefind` would find this file instead of Pagefind's package."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]


def pagefind_binary() -> str:
    """The binary that `pip install 'mdchunk[pagefind]'` brings (checked to run)."""
    from mdchunk.outputs.pagefind_bundle import require_pagefind

    return str(require_pagefind())


def projects(folder: Path) -> dict[str, Path]:
    """The mkdocs.yml of each way of building: `native`, `sections`, `pages`."""
    settings = {"native": {"formats": ["native"]},
                "sections": {"formats": ["native", "pagefind"]},
                "pages": {"formats": ["native"]}}
    configs = {}
    for name, mdchunk in settings.items():
        config = nodejs_site(folder / name, plugins=["search", {"mdchunk": mdchunk}])
        assert config is not None
        configs[name] = config
    return configs


def commands(configs: Mapping[str, Path], *, empty_cache: bool) -> dict[str, list[str]]:
    """The shell command of each way; all run under the same shell, so its cost cancels.

    Each ends with `sync`: the next build then removes files that reached the disk, as a build
    does some minutes after the last one (removing a file only in the page cache costs
    nothing, one on disk does; the two bundles differ most in their number of files)."""
    build = f"{shlex.quote(sys.executable)} -m mkdocs build -q -f"
    shell = {}
    for name, config in configs.items():
        before = (f"rm -rf {shlex.quote(str(config.parent / '.cache'))}" if empty_cache
                  else "true")
        steps = [before, f"{build} {shlex.quote(str(config))}"]
        if name == "pages":
            steps.append(f"{shlex.quote(pagefind_binary())} --site "
                         f"{shlex.quote(str(config.parent / 'site'))}")
        shell[name] = ["sh", "-c", " && ".join([*steps, "sync"])]
    return shell


def alternate(commands: Mapping[str, Sequence[str]], runs: int) -> dict[str, list[Run]]:
    """Run the commands in turn, `runs` rounds after one warm-up round."""
    for argv in commands.values():
        run(argv)  # warm the file cache and bytecode
    measured: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            measured[name].append(run(argv))
    return measured


def ratio(runs: Sequence[Run], base: Sequence[Run], field: str) -> float:
    """Median of the ratios of the runs of each round (robust to drift between rounds)."""
    return statistics.median(getattr(b, field) / getattr(a, field)
                             for a, b in zip(base, runs, strict=True))


LABELS = {"native": "A: mdchunk, native index",
          "sections": "B: mdchunk, native index + `pagefind` (one record per section)",
          "pages": "C: A, then `pagefind --site site` (one record per page)"}


def time_rows(case: str, measured: Mapping[str, list[Run]]) -> list[str]:
    """Table rows: the median time and memory of each way and its ratios to A."""
    base = measured["native"]
    rows = []
    for name, runs in measured.items():
        seconds = statistics.median(r.seconds for r in runs)
        main = statistics.median(r.main_kib for r in runs) / 1024
        tree = statistics.median(r.tree_kib for r in runs) / 1024
        rows.append(f"| {case} | {LABELS[name]} | {seconds:.2f} s | "
                    f"**{ratio(runs, base, 'seconds'):.3f}** | "
                    f"{main:.0f} MiB: {ratio(runs, base, 'main_kib'):.3f} | "
                    f"{tree:.0f} MiB: {ratio(runs, base, 'tree_kib'):.3f} |")
    return rows


TIME_HEADER = [
    "| build | way | median time | time ratio to A | peak RSS, build process (ratio to A) "
    "| peak PSS, all processes (ratio to A) |",
    "|---|---|---|---|---|---|",
]


def bundle_row(label: str, folder: Path) -> str:
    """Records, files and bytes of a Pagefind bundle; and of its index and fragments, what a
    search downloads from."""
    entry = json.loads((folder / "pagefind-entry.json").read_text(encoding="utf-8"))
    records = sum(language["page_count"] for language in entry["languages"].values())
    files = [path for path in folder.rglob("*") if path.is_file()]
    total = sum(path.stat().st_size for path in files)
    parts = {part: sum(path.stat().st_size for path in (folder / part).glob("*"))
             for part in ("index", "fragment", "filter")}
    return (f"| {label} | {records} | {len(files)} | {total / 1e6:.2f} MB | "
            f"{parts['index'] / 1e6:.2f} MB | {parts['fragment'] / 1e6:.2f} MB | "
            f"{len(list((folder / 'fragment').glob('*')))} |")


BUNDLE_HEADER = [
    "| bundle | records | files | bytes | of which index/ | of which fragment/ "
    "| fragment files |",
    "|---|---|---|---|---|---|---|",
]


def step_commands(site: Path, folder: Path) -> dict[str, list[str]]:
    """The indexing step alone: mdchunk's bundle of the site's sections (their records made
    beforehand, as the build makes them where it chunks each page) against Pagefind's own
    indexing of the site's HTML, each into a bundle folder of its own."""
    from mdchunk.chunking import Chunker
    from mdchunk.engines.site import site_pages
    from mdchunk.options import ChunkOptions
    from mdchunk.outputs.profiles import ProfileSettings, pagefind_records

    chunker = Chunker(ChunkOptions())
    records = [record for page in site_pages(site)
               for record in pagefind_records(chunker.chunk_page(page),
                                              ProfileSettings(language="en"))]
    saved = folder / "records.json"
    saved.write_text(json.dumps(records), encoding="utf-8")
    write = ("import json, sys; from pathlib import Path; "
             "from mdchunk.outputs.pagefind_bundle import write_bundle; "
             "write_bundle(Path(sys.argv[2]), json.loads(Path(sys.argv[1]).read_text()))")
    sections, pages = (shlex.quote(str(folder / f"bundle-{name}"))
                       for name in ("sections", "pages"))
    # Each removes the bundle of its last run first (Pagefind skips the files of its bundle
    # that exist already), and ends with its bundle on disk (mdchunk's writer syncs).
    return {"sections": ["sh", "-c", f"rm -rf {sections} && {shlex.quote(sys.executable)} "
                                     f"-c {shlex.quote(write)} {shlex.quote(str(saved))} "
                                     f"{sections} && sync"],
            "pages": ["sh", "-c", f"rm -rf {pages} && {shlex.quote(pagefind_binary())} "
                                  f"--site {shlex.quote(str(site))} --output-path {pages} "
                                  "&& sync"]}


STEP_LABELS = {"sections": "mdchunk's `write_bundle`: one record per section",
               "pages": "`pagefind --site site`: one record per page"}


def step_rows(measured: Mapping[str, list[Run]]) -> list[str]:
    """Table rows of the indexing step alone: median time and memory, ratio to Pagefind's."""
    base = measured["pages"]
    rows = []
    for name, runs in measured.items():
        seconds = statistics.median(r.seconds for r in runs)
        main = statistics.median(r.main_kib for r in runs) / 1024
        rows.append(f"| {STEP_LABELS[name]} | {seconds:.2f} s | "
                    f"**{ratio(runs, base, 'seconds'):.3f}** | "
                    f"{main:.0f} MiB: {ratio(runs, base, 'main_kib'):.3f} |")
    return rows


STEP_HEADER = [
    "| indexing step alone | median time | time ratio to `pagefind --site` "
    "| peak RSS, largest process (ratio) |",
    "|---|---|---|---|",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    find_pagefind_package()
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    print(f"machine: {machine()}")
    print(f"pagefind binary: {pagefind_binary()}")
    print(f"Node.js API docs, MkDocs default theme; {args.runs} rounds of A B C after one "
          "warm-up round; medians (ratios: median of the ratios of each round)\n")
    print("\n".join(TIME_HEADER), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        configs = projects(Path(folder))
        for case, empty_cache in (("first build", True), ("unchanged site", False)):
            measured = alternate(commands(configs, empty_cache=empty_cache), args.runs)
            print("\n".join(time_rows(case, measured)), flush=True)
        steps = step_commands(configs["pages"].parent / "site", Path(folder))
        print("\n" + "\n".join(STEP_HEADER))
        print("\n".join(step_rows(alternate(steps, args.runs))), flush=True)
        print("\n" + "\n".join(BUNDLE_HEADER))
        print(bundle_row("B: mdchunk's sections", configs["sections"].parent / "site/pagefind"))
        print(bundle_row("C: Pagefind's pages", configs["pages"].parent / "site/pagefind"))


if __name__ == "__main__":
    main()
