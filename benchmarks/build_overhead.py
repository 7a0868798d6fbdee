"""What mdchunk costs a build, side by side in one run (ratios, not absolute times).

    python benchmarks/build_overhead.py [--runs 5] [--engine mkdocs material mkdocs-inline
                                         mkdocs-tiktoken sphinx sphinx-j2]

Builds the Node.js API docs (see tests/corpus.py) without and with mdchunk, alternating the two so
that machine noise hits both alike, and prints a Markdown table of the median wall time and
peak memory of each, and the median of the pairwise ratios. MkDocs is measured twice: a first
build (mdchunk's page cache emptied before each run) and a rebuild of the unchanged site (every
page found in the cache). Engines: `mkdocs` (default theme, plain extensions), `material`
(Material with pymdownx extensions), `mkdocs-small` (a first build of the first 18 pages and a
home page: a small site), `mkdocs-inline` (a first build with `workers: 0`: chunking in the
build's own process), `mkdocs-one-core` (a first build with the default settings, both
builds on one core, as on a machine that has one), `mkdocs-index` (a first build that writes
the chunk index and the page Markdown alone: no llms.txt, llms-full or twins, no duplicate
marks), `mkdocs-tiktoken` (a first build counting with tiktoken where a fast counter is
installed: `MDCHUNK_TOKENIZER=tiktoken`), `sphinx` (MyST, serial), `sphinx-j2` (MyST, `-j 2`) and
`sphinx-docs` (Sphinx's own documentation, serial, from the `doc/` folder of a Sphinx source
release given by `--sphinx-docs`: `pip download --no-deps --no-binary :all: sphinx` holds one;
intersphinx is turned off in both builds, which would otherwise reach the network).
Memory is given twice: the largest process (the build's own, or mdchunk's MkDocs worker) and
all processes together (summed PSS: the pages they share are counted once). The times come from
runs that sample nothing; the summed PSS from two more pairs of runs that sample it (see
`benchmarks/measure.py`: sampling takes CPU from the builds it measures).

mdchunk's own modules are compiled to bytecode first, as installing a wheel does: MkDocs' and
Sphinx's modules load from the bytecode their install wrote, and a checkout run with
`PYTHONDONTWRITEBYTECODE` set would otherwise compile mdchunk's sources again in every build
process and every worker (about 30 ms of CPU in each).

With `--cpu`, each MkDocs build runs under a small wrapper that, at the build's exit, notes
the CPU seconds of the build's own process and of the child processes it waited for (mdchunk's
worker), and a row of their medians
follows each comparison (the same wrapper runs on both sides).

Then it times the chunking step alone on one core (rendered HTML to final records with exact
token counts, tokenizer loaded, no cache) and prints its throughput in MB of source Markdown
per second (total chunking CPU, `time.process_time`), with each token counter installed
(fastokens and rs-bpe, `mdchunk[fast]`, and tiktoken).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import TABLE_HEADER, Comparison, compare, machine, run
from tests.corpus import NODEJS_API, nodejs_site, nodejs_sphinx_project

ENGINES = ("mkdocs", "material", "mkdocs-small", "mkdocs-inline", "mkdocs-one-core",
           "mkdocs-index", "mkdocs-tiktoken", "sphinx", "sphinx-j2", "sphinx-docs")
INDEX_ALONE = {"llms_txt": False, "llms_full": False, "llms_directive": False,
               "duplicates": "off"}
"""mdchunk's options for a build that writes the chunk index and the page Markdown alone."""


def compile_bytecode() -> list[str]:
    """Compile mdchunk's packages to bytecode (written even under `PYTHONDONTWRITEBYTECODE`,
    which only stops the interpreter from writing it while it imports); return their names."""
    import mdchunk
    import mkdocs_mdchunk
    import sphinx_mdchunk

    packages = (mdchunk, mkdocs_mdchunk, sphinx_mdchunk)
    for package in packages:
        for folder in package.__path__:
            compileall.compile_dir(folder, quiet=1)
    return [package.__name__ for package in packages]


CPU_PROBE = """\
import atexit, json, resource, sys
from mkdocs.__main__ import cli

notes = sys.argv.pop(1)

def note():
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    with open(notes, "a", encoding="utf-8") as out:
        out.write(json.dumps([own.ru_utime + own.ru_stime,
                              children.ru_utime + children.ru_stime]) + "\\n")

atexit.register(note)
cli()
"""
"""`--cpu`'s wrapper of `mkdocs` (`python wrapper.py NOTES build ...`): the CPU seconds of the
build's process and of its waited-for children, a JSON line appended to the file NOTES."""


class Builds:
    """The shell commands that run `mkdocs build` on each side of a comparison, through the
    `--cpu` wrapper (`CPU_PROBE`) when `probe` names its file."""

    def __init__(self, folder: Path, probe: Path | None) -> None:
        self.folder = folder
        self.probe = probe

    def command(self, side: str) -> str:
        """`mkdocs build -q -f` for the side `without` or `with` (its config follows)."""
        python = shlex.quote(sys.executable)
        if self.probe is None:
            return f"{python} -m mkdocs build -q -f"
        notes = shlex.quote(str(self.folder / f"cpu-{side}.jsonl"))
        return f"{python} {shlex.quote(str(self.probe))} {notes} build -q -f"

    def cpu_row(self, label: str) -> list[str]:
        """The medians of the CPU the wrapper noted since the last call (warm-ups left out),
        as a line under the comparison's row; none without `--cpu`."""
        if self.probe is None:
            return []
        cells = []
        for side in ("without", "with"):
            path = self.folder / f"cpu-{side}.jsonl"
            noted = [json.loads(line) for line in path.read_text().splitlines()[1:]]
            path.unlink()
            cells.append(f"{side}: build process {statistics.median(n[0] for n in noted):.3f} s,"
                         f" children {statistics.median(n[1] for n in noted):.3f} s")
        return [f"CPU ({label}, medians): " + "; ".join(cells)]


def timed_build(config: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one `mkdocs build` in a fresh process."""
    measured = run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)])
    return measured.seconds, measured.main_kib


def mkdocs_comparisons(folder: Path, theme: str, runs: int, builds: Builds
                       ) -> Iterator[tuple[str, Comparison]]:
    """The build without mdchunk against a first build with it (its page cache emptied before
    each run) and against a rebuild of the unchanged site (the page cache filled)."""
    base = nodejs_site(folder / "without", theme=theme, plugins=["search"])
    with_ = nodejs_site(folder / "with", theme=theme)
    assert base is not None and with_ is not None
    empty_cache = f"rm -rf {shlex.quote(str(with_.parent / '.cache'))}"
    # Both sides run under the same shell, so the shell's own cost cancels out.
    without = ["sh", "-c", f"true && exec {builds.command('without')} {shlex.quote(str(base))}"]
    first = ["sh", "-c", f"{empty_cache} && exec {builds.command('with')} "
                         f"{shlex.quote(str(with_))}"]
    again = ["sh", "-c", f"true && exec {builds.command('with')} {shlex.quote(str(with_))}"]
    yield "first build", compare(without, first, runs=runs)
    yield "unchanged site, page cache filled", compare(without, again, runs=runs)


def first_build_comparison(folder: Path, runs: int, builds: Builds, *,
                           settings: dict[str, Any] | None = None, environment: str = "true",
                           pages: int | None = None, one_core: bool = False) -> Comparison:
    """The build without mdchunk against a first build with mdchunk's `settings`, run after
    the shell command `environment` (which may export variables); `pages`: only the first this
    many pages of the corpus; `one_core`: both builds may run on the first core alone, as on a
    machine of one core (`taskset`)."""
    base = nodejs_site(folder / "without", plugins=["search"], pages=pages)
    with_ = nodejs_site(folder / "with", plugins=["search", {"mdchunk": settings or {}}],
                        pages=pages)
    assert base is not None and with_ is not None
    empty_cache = f"rm -rf {shlex.quote(str(with_.parent / '.cache'))}"
    pin = f"{shlex.quote(one_core_runner())} -c 0 " if one_core else ""
    return compare(["sh", "-c", f"{environment} && exec {pin}{builds.command('without')} "
                                f"{shlex.quote(str(base))}"],
                   ["sh", "-c", f"{environment} && {empty_cache} && exec "
                                f"{pin}{builds.command('with')} {shlex.quote(str(with_))}"],
                   runs=runs)


def one_core_runner() -> str:
    """util-linux's `taskset`, which runs a command on the cores it is given."""
    found = shutil.which("taskset")
    if found is None:
        raise SystemExit("the engine mkdocs-one-core needs taskset (util-linux)")
    return found


def sphinx_comparison(folder: Path, jobs: int, runs: int) -> Comparison:
    base = nodejs_sphinx_project(folder / "without", mdchunk=False)
    with_ = nodejs_sphinx_project(folder / "with")
    assert base is not None and with_ is not None
    command = [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-j", str(jobs)]
    return compare([*command, str(base), str(base.parent / "out")],
                   [*command, str(with_), str(with_.parent / "out")], runs=runs)


def sphinx_docs_comparison(folder: Path, docs: Path, runs: int) -> Comparison:
    """Sphinx's own documentation (`docs`: the `doc/` folder of a Sphinx source release) built
    without and with mdchunk, serially, each from a copy of its own."""
    projects = []
    for name, added in (("without", ""), ("with", "extensions.append('sphinx_mdchunk')\n")):
        project = folder / name
        shutil.copytree(docs, project, ignore=shutil.ignore_patterns("_build"))
        with (project / "conf.py").open("a", encoding="utf-8") as conf:
            conf.write(f"\nintersphinx_mapping = {{}}\n{added}")
        projects.append(project)
    command = [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-j", "1"]
    return compare(*[[*command, str(project), str(project / "_build")] for project in projects],
                   runs=runs)


def rendered_pages(site: Path) -> list[Any]:
    """Every page of a built MkDocs site as the plugin would get it (its body HTML)."""
    import lxml.html

    from mdchunk import PageInput

    pages = []
    for path in sorted(site.rglob("index.html")):
        root = lxml.html.parse(str(path)).getroot()
        main = root.xpath("//div[@role='main'] | //article[contains(@class, 'md-content')]")
        if not main:
            continue
        body = "".join(lxml.html.tostring(child, encoding="unicode") for child in main[0])
        url = path.parent.relative_to(site).as_posix().strip(".") + "/"
        pages.append(PageInput(html=body, source_path=url.strip("/") + ".md", url=url,
                               title=url))
    return pages


def chunking_throughput(pages: list[Any], runs: int = 3) -> tuple[float, int]:
    """Median CPU seconds to chunk `pages` into their native records (a new chunker each
    run, so no token count is cached), and the chunks."""
    from mdchunk import Chunker, ChunkOptions, PageInput
    from mdchunk.chunking.tokens import load_encoding
    from mdchunk.outputs.page_output import page_output
    from mdchunk.settings import OutputSettings

    load_encoding("cl100k_base")  # loading the encoding is not chunking
    settings = OutputSettings()
    measured: list[tuple[float, int]] = []
    for _ in range(runs):
        chunker = Chunker(ChunkOptions())
        chunker.chunk_page(PageInput(html="<p>warm</p>", source_path="w.md", url="w/", title="w"))
        started = time.process_time()
        chunks = sum(page_output(chunker.chunk_page(page), settings).chunks for page in pages)
        measured.append((time.process_time() - started, chunks))
    median = statistics.median(seconds for seconds, _ in measured)
    return next(entry for entry in measured if entry[0] == median)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", nargs="+", choices=ENGINES, default=["mkdocs"])
    parser.add_argument("--sphinx-docs", type=Path, help="the doc/ folder of a Sphinx source "
                        "release, for the engine sphinx-docs")
    parser.add_argument("--theme", choices=["mkdocs", "material"],
                        help="the same as --engine mkdocs or --engine material")
    parser.add_argument("--cpu", action="store_true", help="also the CPU seconds of each "
                        "MkDocs build's own process and of its children")
    args = parser.parse_args()
    engines = [args.theme] if args.theme else args.engine
    if not any(NODEJS_API.glob("*.md")):
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    print(f"machine: {machine()}")
    print(f"bytecode compiled: {', '.join(compile_bytecode())}")
    print(f"Node.js API docs; {args.runs} runs of each build, in turn after one warm-up each; "
          "medians (ratios: median of the pairwise ratios)\n")
    print("\n".join(TABLE_HEADER), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "mkdocs_cpu.py" if args.cpu else None
        if probe is not None:
            probe.write_text(CPU_PROBE, encoding="utf-8")
        for engine in engines:
            builds = Builds(Path(folder), probe)
            for line in engine_rows(engine, Path(folder) / engine, args, builds):
                print(line, flush=True)
        site = nodejs_site(Path(folder) / "throughput", plugins=["search"])
        assert site is not None
        run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(site)])
        pages = rendered_pages(site.parent / "site")
    source_bytes = sum(path.stat().st_size for path in NODEJS_API.glob("*.md"))
    for counter in token_counters():
        with counted_by(counter):
            seconds, chunks = chunking_throughput(pages)
        print(f"\nchunking alone, one core, counted by {counter}: {len(pages)} pages, {chunks} "
              f"chunks in {seconds:.2f} s CPU: {source_bytes / seconds / 1e6:.2f} MB/s of source "
              "Markdown")


FIRST_BUILDS: dict[str, tuple[str, dict[str, Any]]] = {
    "mkdocs-inline": ("first build, workers: 0", {"settings": {"workers": 0}}),
    "mkdocs-one-core": ("first build on one core", {"one_core": True}),
    "mkdocs-index": ("first build, the index alone", {"settings": INDEX_ALONE}),
    "mkdocs-small": ("first build of 19 pages", {"pages": 18}),
    "mkdocs-tiktoken": ("first build, counted by tiktoken",
                        {"environment": "export MDCHUNK_TOKENIZER=tiktoken"}),
}
"""The engines that compare one first build of the default theme: their label and the
arguments of `first_build_comparison`."""


def engine_rows(engine: str, place: Path, args: argparse.Namespace, builds: Builds
                ) -> Iterator[str]:
    """The table rows of `engine`'s comparisons, each as it is measured (with `--cpu`, the
    CPU line of each MkDocs comparison after its row)."""
    if engine in ("mkdocs", "material"):
        name = f"MkDocs, {'default theme' if engine == 'mkdocs' else 'Material'}"
        for case, comparison in mkdocs_comparisons(place, engine, args.runs, builds):
            yield from comparison.rows(f"{name}: {case}")
            yield from builds.cpu_row(case)
    elif engine in FIRST_BUILDS:
        label, options = FIRST_BUILDS[engine]
        comparison = first_build_comparison(place, args.runs, builds, **options)
        yield from comparison.rows(f"MkDocs, default theme: {label}")
        yield from builds.cpu_row(label)
    elif engine == "sphinx-docs":
        if args.sphinx_docs is None or not (args.sphinx_docs / "conf.py").is_file():
            yield "skipped sphinx-docs: --sphinx-docs names no Sphinx doc/ folder"
            return
        comparison = sphinx_docs_comparison(place, args.sphinx_docs, args.runs)
        yield from comparison.rows("Sphinx's own docs, -j 1: clean build (-E)")
    else:
        jobs = 2 if engine == "sphinx-j2" else 1
        yield from sphinx_comparison(place, jobs, args.runs).rows(
            f"Sphinx (MyST), -j {jobs}: clean build (-E)")


def token_counters() -> list[str]:
    """The token counters this machine has: fastokens and rs-bpe (`mdchunk[fast]`) where
    installed, tiktoken."""
    from mdchunk.chunking.tokens import installed_counters

    return [*installed_counters(), "tiktoken"]


@contextlib.contextmanager
def counted_by(counter: str) -> Iterator[None]:
    """Chunkers made inside count with `counter` (`MDCHUNK_TOKENIZER`)."""
    before = os.environ.get("MDCHUNK_TOKENIZER")
    os.environ["MDCHUNK_TOKENIZER"] = counter
    try:
        yield
    finally:
        if before is None:
            del os.environ["MDCHUNK_TOKENIZER"]
        else:
            os.environ["MDCHUNK_TOKENIZER"] = before


if __name__ == "__main__":
    main()
