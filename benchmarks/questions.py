"""Natural questions: does a search over the built index answer what users and agents ask?

    pip install -e '.[bench]'
    python benchmarks/questions.py [--split dev|test|all] [--site NAME ...] [--quick]
                                   [--model NAME ...]

The questions (benchmarks/questions/*.yaml; how they were made, the kinds and the rules in the
README.md there) each name the sections that answer them as built page url + `#anchor`. `dev`
questions are for tuning the ranking; `test` questions are held out and give the reported figures.

Each site is built once with the plugin (formats native, sqlite, sections). Every gold url must be
an element id of its page's HTML and a section of the index, else the run stops naming the
question. Then each retriever ranks 10 results per question: mdchunk's search in each mode
(`mdchunk.search.search`; dense and hybrid need `mdchunk embed`, else their rows say why they are
unavailable; hybrid once more without the index's words nearest to the question's, the search
before they were added), BM25 over whole pages (a hit is the gold's page), and BM25 over mdchunk's,
LangChain's, LlamaIndex's and Chonkie's chunks of the same page Markdown (as retrieval.py makes
them). A search result hits by its section (`mdchunk_hit`), a chunk by its span (`span_hit`).
Hit@1, Hit@5 and MRR@10 per site and macro over sites come with bootstrap 95% intervals
(scoring.PairedBootstrap against zero); then the latency of `mdchunk query`'s search and of MCP
`search_docs` on the Node.js index after loading, and the time of `mdchunk embed` on it.

`--model NAME` names the embedding model that `mdchunk embed --model` makes the vectors with
(`wordllama`, `model2vec:PATH`, `sentence-transformers:PATH`...; mdchunk's default model when
none is named). Given more than once, each site is built once and embedded by each model in
turn: the dense and hybrid rows and the timings are given per model, the model's name in
brackets, so that one run puts models side by side on the same builds.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.question_files import KINDS, SITES, Question, load_questions
from benchmarks.retrieval import (
    RECIPES,
    Bm25,
    Chunks,
    build_mkdocs,
    build_sphinx,
    located_chunks,
    mdchunk_chunks,
    memoized_counter,
    write_project,
)
from benchmarks.scoring import MRR_K, TOP_K, PairedBootstrap, Retrieved, is_hit
from benchmarks.sections import Query, markdown_path, read_records
from mdchunk.search import Mode
from mdchunk.search.embedders import DEFAULT_MODEL
from tests.corpus import NODEJS_API

FORMATS = ["native", "sqlite", "sections"]
METRICS = ("Hit@1", "Hit@5", "MRR@10")
CHUNKERS = ("LangChain", "LlamaIndex", "Chonkie")
MAX_TOKENS = 512
ENCODING = "cl100k_base"
MODES: tuple[Mode, ...] = ("lexical", "dense", "hybrid")
LATENCY_SITE = "nodejs"
#: The row of a hybrid search without the index's words nearest to the question's.
UNEXPANDED = ", no word expansion"


# --- The built sites -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Section:
    """A section of a built page, from mdchunk's `sections` output."""

    url: str
    page: str
    level: int
    start: int
    end: int
    """Span of the section in its page's Markdown, its subsections included..."""
    own_end: int
    """...and where its own text ends (its first subsection's start)."""
    parent: str | None

    @property
    def span(self) -> tuple[int, int]:
        """The text that answers: the whole section, or a page title's own text alone."""
        return (self.start, self.own_end if self.level <= 1 else self.end)


@dataclasses.dataclass
class BuiltSite:
    """A site built once with the plugin: its index, sections, chunks and page Markdown."""

    name: str
    folder: Path
    sections: dict[str, Section]
    records: dict[str, list[dict[str, Any]]]
    """Native records by page url, in chunk order."""
    chunk_spans: dict[str, Retrieved]
    """Each chunk id's span of its page Markdown."""
    pages: dict[str, str]
    """Each page url's Markdown (what the chunk offsets index)."""

    @property
    def sqlite(self) -> Path:
        return self.folder / "chunks.sqlite"

    def ancestors(self, url: str) -> list[str]:
        """The urls of the sections that hold section `url`, nearest first."""
        found: list[str] = []
        parent = self.sections[url].parent if url in self.sections else None
        while parent is not None and parent not in found:
            found.append(parent)
            parent = self.sections[parent].parent
        return found


def build_site(name: str, target: Path) -> Path | None:
    """Build site `name` under `target` with the plugin (FORMATS); its output folder, or None
    when the site's sources are not on this machine."""
    project = write_project(name, target)
    if project is None:
        return None
    engine, path = project
    build = build_mkdocs if engine == "mkdocs" else build_sphinx
    return build(path, {"formats": FORMATS}, "questions")


def read_built(name: str, folder: Path) -> BuiltSite:
    """The sections, records and page Markdown that a build wrote to `folder`."""
    rows = [json.loads(line) for line in
            (folder / "sections.jsonl").read_text(encoding="utf-8").splitlines() if line]
    url_of = {row["id"]: row["url"] for row in rows}
    first_child: dict[str, int] = {}
    for row in rows:
        parent = row.get("parentId")
        if parent is not None:
            start = row["charOffsets"]["charStart"]
            first_child[parent] = min(first_child.get(parent, start), start)
    sections: dict[str, Section] = {}
    for row in rows:
        offsets = row["charOffsets"]
        sections.setdefault(row["url"], Section(
            row["url"], row["pageUrl"], row["level"], offsets["charStart"], offsets["charEnd"],
            first_child.get(row["id"], offsets["charEnd"]), url_of.get(row.get("parentId"))))
    records = read_records(folder)
    spans = {record["id"]: Retrieved(url, record["charOffsets"]["charStart"],
                                     record["charOffsets"]["charEnd"], 0, 0)
             for url, page in records.items() for record in page}
    pages = {url: markdown_path(folder, url).read_text(encoding="utf-8") for url in records}
    return BuiltSite(name, folder, sections, records, spans, pages)


def html_file(folder: Path, page_url: str) -> Path:
    """The built HTML file of a page url (`fs/` -> fs/index.html, `api.html`, `` -> index)."""
    return folder / page_url / "index.html" if not page_url or page_url.endswith("/") else (
        folder / page_url)


def gold_errors(questions: Sequence[Question], built: BuiltSite) -> list[str]:
    """What is wrong with each question's gold urls on this build (empty when all resolve): a
    page without HTML, an anchor that is no element id of it, or a url that is no section of
    the index."""
    import lxml.html

    ids: dict[str, set[str]] = {}
    errors = []
    for question in questions:
        for url in question.gold:
            page, _, anchor = url.partition("#")
            if page not in ids:
                path = html_file(built.folder, page)
                ids[page] = (set(lxml.html.parse(str(path)).getroot().xpath("//@id"))
                             if path.is_file() else set())
            if not ids[page]:
                errors.append(f"{question.id}: {url}: no built page {page or '(home)'}")
            elif anchor and anchor not in ids[page]:
                errors.append(f"{question.id}: {url}: no element id {anchor!r} in its HTML")
            elif url not in built.sections:
                errors.append(f"{question.id}: {url}: not a section of the index")
    return errors


# --- Hits and scores -----------------------------------------------------------------------------


def mdchunk_hit(url: str, chunk_id: str, gold: Section, built: BuiltSite) -> bool:
    """Whether a search result (its section `url` and chunk) hits the gold section: the same
    section, a subsection (not of a page title), or a chunk that holds the gold heading."""
    if url == gold.url or (gold.level >= 2 and gold.url in built.ancestors(url)):
        return True
    chunk = built.chunk_spans.get(chunk_id)
    return (chunk is not None and chunk.page == gold.page
            and chunk.start <= gold.start < chunk.end)


def span_hit(chunk: Retrieved, gold: Section) -> bool:
    """Whether a located chunk overlaps the gold section's answering text (scoring.is_hit)."""
    return is_hit(chunk, gold.page, gold.span)


def first_hit(hits: Sequence[bool]) -> int:
    """Rank (1-based) of the first hit within the first MRR_K results; 0 without one."""
    return next((rank for rank, hit in enumerate(hits[:MRR_K], start=1) if hit), 0)


def scores(rank: int) -> dict[str, float]:
    """Hit@1, Hit@5 and MRR@10 of one question from the rank of its first hit (0: none)."""
    return {"Hit@1": float(rank == 1), "Hit@5": float(0 < rank <= TOP_K),
            "MRR@10": 1.0 / rank if rank else 0.0}


def score_ranks(ranks: Sequence[int]) -> dict[str, list[float]]:
    """Each metric, one value per question."""
    per_question = [scores(rank) for rank in ranks]
    return {metric: [values[metric] for values in per_question] for metric in METRICS}


# --- The retrievers ------------------------------------------------------------------------------


class UnavailableError(Exception):
    """A retriever that cannot run here; its message says why."""


def mdchunk_ranks(built: BuiltSite, questions: Sequence[Question], mode: Mode,
                  expand: bool = True) -> list[int]:
    """The first-hit rank of each question under `mdchunk.search.search` in `mode` (`expand`:
    with the index's words nearest to the question's, as a hybrid search has them)."""
    from mdchunk.search import search

    ranks = []
    for question in questions:
        try:
            hits = search(built.sqlite, question.text, MRR_K, mode=mode, expand=expand)
        except Exception as error:  # any failure of a mode makes it unavailable
            raise UnavailableError(f"{type(error).__name__}: {error}") from error
        sections = [built.sections[url] for url in question.gold]
        ranks.append(first_hit([any(mdchunk_hit(hit.url, hit.id, gold, built)
                                    for gold in sections) for hit in hits]))
    return ranks


def as_queries(questions: Sequence[Question]) -> list[Query]:
    """The questions as the retrieval benchmark's queries (no page left out of the ranking)."""
    return [Query("", "natural", question.text, "", "", (0, 0)) for question in questions]


def chunk_ranks(chunks: Chunks, built: BuiltSite, questions: Sequence[Question],
                hit: Callable[[Retrieved, Section], bool] = span_hit) -> list[int]:
    """The first-hit rank of each question under BM25 (bm25s) over `chunks`."""
    ranked = Bm25().rank(chunks, as_queries(questions))
    ranks = []
    for question, order in zip(questions, ranked, strict=True):
        sections = [built.sections[url] for url in question.gold]
        ranks.append(first_hit([any(hit(chunks.items[index], gold) for gold in sections)
                                for index in order[:MRR_K]]))
    return ranks


def page_chunks(built: BuiltSite) -> Chunks:
    """Every page whole, as one chunk each."""
    return Chunks("pages", list(built.pages.values()),
                  [Retrieved(url, 0, len(text), 0, len(text)) for url, text in built.pages.items()])


def page_hit(page: Retrieved, gold: Section) -> bool:
    """A whole page hits when it is the gold section's page."""
    return page.page == gold.page


def chunker_chunks(name: str, built: BuiltSite, count: Callable[[str], int],
                   encoding: Any) -> Chunks:
    """Chunker `name`'s chunks of the site's page Markdown, located in it (spans.py); mdchunk's
    are its records, retrieved by embedText."""
    if name == "mdchunk":
        return mdchunk_chunks("mdchunk", built.records, "embedText", count)
    pieces = RECIPES[name](built.pages, MAX_TOKENS, encoding)
    return located_chunks(name, built.pages, pieces, count)


Ranks = dict[str, dict[str, list[int] | str]]
"""ranks[retriever][site]: each question's first-hit rank, or why the retriever is unavailable."""


def rank_searches(built: BuiltSite, questions: Sequence[Question], modes: Sequence[Mode],
                  dense: str, ranks: Ranks, *, model: str = "") -> None:
    """Rank the site's questions with mdchunk's search in each of `modes` into `ranks` (a
    hybrid search twice: with and without the word expansion). `dense`: empty when the index
    holds vectors, else why dense and hybrid search are unavailable; `model`: the label of the
    vectors' model in the rows of the modes that use them (none: rows as without `--model`)."""
    runs = [(mode, True) for mode in modes] + [("hybrid", False)] * ("hybrid" in modes)
    for mode, expand in runs:
        name = f"mdchunk {mode}" + ("" if expand else UNEXPANDED)
        row = ranks.setdefault(name + (f" ({model})" if model and mode != "lexical" else ""), {})
        if mode != "lexical" and dense:
            row[built.name] = dense
            continue
        try:
            row[built.name] = mdchunk_ranks(built, questions, mode, expand)
        except UnavailableError as error:
            row[built.name] = str(error)


def rank_bm25(built: BuiltSite, questions: Sequence[Question], chunkers: Sequence[str],
              ranks: Ranks) -> None:
    """Rank the site's questions with BM25 over whole pages and over each chunker's chunks
    into `ranks`."""
    from mdchunk.chunking.tokens import load_encoding

    ranks.setdefault("BM25 whole pages (page hit)", {})[built.name] = chunk_ranks(
        page_chunks(built), built, questions, page_hit)
    encoding = load_encoding(ENCODING)
    count = memoized_counter(encoding)
    for name in ("mdchunk", *chunkers):
        row = ranks.setdefault(f"BM25 {name} chunks", {})
        try:
            row[built.name] = chunk_ranks(chunker_chunks(name, built, count, encoding), built,
                                          questions)
        except ImportError as error:
            row[built.name] = f"not installed ({error.name or error})"


# --- Latency and embedding -----------------------------------------------------------------------


def timed(call: Callable[[str], Any], texts: Sequence[str], rounds: int) -> tuple[float, float]:
    """p50/p95 milliseconds of `call` on each text, `rounds` times, after one warm-up call."""
    call(texts[0])
    seconds = []
    for _ in range(rounds):
        for text in texts:
            started = time.perf_counter()
            call(text)
            seconds.append(time.perf_counter() - started)
    seconds.sort()
    return 1000 * statistics.median(seconds), 1000 * seconds[round(0.95 * (len(seconds) - 1))]


def latencies(built: BuiltSite, texts: Sequence[str], rounds: int, dense: str,
              modes: Sequence[Mode] = MODES, *, model: str = "") -> list[tuple[str, str]]:
    """(what, figure) lines: `mdchunk query`'s search in each of `modes` and `search_docs`,
    p50/p95 (`model`: the label of the vectors' model, in the lines that use them)."""
    from mdchunk.mcp.index import load_docs
    from mdchunk.search import search

    lines = []
    for mode in modes:
        of = f" [{model}]" if model and mode != "lexical" else ""
        if mode != "lexical" and dense:
            lines.append((f"mdchunk query --mode {mode}{of}", f"unavailable: {dense}"))
            continue
        p50, p95 = timed(functools.partial(search, built.sqlite, k=5, mode=mode), texts, rounds)
        lines.append((f"mdchunk query ({mode}){of}, k=5", f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"))
    with tempfile.TemporaryDirectory() as cache:
        docs, _ = load_docs(built.folder, Path(cache))
        p50, p95 = timed(docs.search, texts, rounds)
    lines.append((f"MCP search_docs (default mode){f' [{model}]' if model else ''}, limit 5",
                  f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"))
    return lines


def embed(built: BuiltSite, model: str | None = None) -> tuple[float | None, str]:
    """Run `mdchunk embed` on the site's index, with `model` (None: mdchunk's default): its
    seconds (model loading included), or None and why it cannot run. The index's vectors are
    replaced by the model's."""
    from mdchunk.cli import main as cli

    if "embed" not in cli.commands:
        return None, "this mdchunk has no `mdchunk embed` command"
    started = time.perf_counter()
    # (a cache folder of this run's own: the first embedding is not served from the user's
    # cache of an earlier run, and the user's cache is left alone)
    cache = built.folder.parent / f"{built.folder.name}-embedding-cache"
    command = [sys.executable, "-m", "mdchunk.cli", "embed", str(built.sqlite),
               "--cache-dir", str(cache), *(["--model", model] if model else [])]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"`mdchunk embed` failed: {last[:160]}"
    return time.perf_counter() - started, ""


# --- Tables --------------------------------------------------------------------------------------


def interval(bootstrap: PairedBootstrap, values: Mapping[str, Sequence[float]]) -> str:
    """`mean [low, high]`: the macro mean of `values` (by site) and its bootstrap 95% interval."""
    zeros = {site: [0.0] * len(site_values) for site, site_values in values.items()}
    point, low, high = bootstrap.interval(values, zeros)
    return f"{point:.3f} [{low:.2f}, {high:.2f}]"


def results_table(ranks: Ranks, sizes: Mapping[str, int], resamples: int) -> str:
    """A Markdown table: per retriever, each site's metrics and their macro mean over sites,
    each with its bootstrap 95% interval; one row says why a retriever is unavailable."""
    bootstrap = PairedBootstrap(sizes, resamples=resamples)
    lines = ["| retriever | site (questions) | " + " | ".join(METRICS) + " |",
             "|---|---|" + "---|" * len(METRICS)]
    for retriever, by_site in ranks.items():
        reasons = dict.fromkeys(f"unavailable: {outcome}" for outcome in by_site.values()
                                if isinstance(outcome, str))
        lines += [f"| {retriever} | | {reason} |" + " |" * (len(METRICS) - 1)
                  for reason in reasons]
        measured = {site: score_ranks(outcome) for site, outcome in by_site.items()
                    if not isinstance(outcome, str)}
        for site, values in measured.items():
            cells = [interval(bootstrap, {site: values[m]}) for m in METRICS]
            lines.append(f"| {retriever} | {site} ({sizes[site]}) | " + " | ".join(cells) + " |")
        if len(measured) > 1 and not reasons:
            cells = [interval(bootstrap, {s: measured[s][m] for s in measured}) for m in METRICS]
            lines.append(f"| {retriever} | **macro** ({len(measured)} sites) | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


def kinds_table(ranks: Ranks, asked: Mapping[str, Sequence[Question]]) -> str:
    """A Markdown table of Hit@5 by kind of question (all sites pooled), per retriever."""
    lines = ["| retriever | " + " | ".join(f"{kind} Hit@5" for kind in KINDS) + " |",
             "|---|" + "---|" * len(KINDS)]
    for retriever, by_site in ranks.items():
        pooled = [(question.kind, 0 < rank <= TOP_K) for site, outcome in by_site.items()
                  if not isinstance(outcome, str)
                  for question, rank in zip(asked[site], outcome, strict=True)]
        if pooled:
            cells = [f"{statistics.fmean(hit for k, hit in pooled if k == kind):.2f} "
                     f"({sum(k == kind for k, _ in pooled)})"
                     if any(k == kind for k, _ in pooled) else "" for kind in KINDS]
            lines.append(f"| {retriever} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def questions_table(questions: Mapping[str, Sequence[Question]]) -> str:
    """A Markdown table of the questions of each site, by kind."""
    lines = ["| site | questions | " + " | ".join(KINDS) + " | gold sections |",
             "|---|---|" + "---|" * (len(KINDS) + 1)]
    for site, asked in questions.items():
        kinds = [str(sum(q.kind == kind for q in asked)) for kind in KINDS]
        lines.append(f"| {site} | {len(asked)} | " + " | ".join(kinds)
                     + f" | {sum(len(q.gold) for q in asked)} |")
    return "\n".join(lines)


# --- Running it ----------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, with `--quick` filled in."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test",
                        help="which questions to score (default: test, the held-out part)")
    parser.add_argument("--site", nargs="+", choices=SITES, default=list(SITES),
                        help="sites (default: all)")
    parser.add_argument("--chunker", nargs="*", choices=CHUNKERS, default=None,
                        help="other chunkers ranked by BM25 (default: all; --quick: none)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--rounds", type=int, default=3,
                        help="latency: times each question is asked (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="no other chunkers, 500 resamples, latency over one round")
    parser.add_argument("--model", action="append", default=[], metavar="NAME",
                        help="embedding model of the dense and hybrid search, as `mdchunk embed "
                             "--model` takes it (default: mdchunk's default model); repeat it to "
                             "measure several models on the same builds")
    args = parser.parse_args(argv)
    if args.chunker is None:
        args.chunker = [] if args.quick else list(CHUNKERS)
    if args.quick:
        args.resamples = min(args.resamples, 500)
        args.rounds = 1
    return args


def log(message: str) -> None:
    """Progress, on stderr so that stdout holds the report alone."""
    print(message, file=sys.stderr, flush=True)


@dataclasses.dataclass
class Run:
    """What a run measured, for `report`."""

    asked: dict[str, list[Question]] = dataclasses.field(default_factory=dict)
    ranks: Ranks = dataclasses.field(default_factory=dict)
    timings: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


def main(argv: Sequence[str] | None = None) -> None:
    """Build each site, check the gold sections, rank and score every question, print the
    tables and the timings."""
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    every = load_questions()
    run = Run()
    with tempfile.TemporaryDirectory() as folder:
        for site in args.site:
            started = time.perf_counter()
            output = build_site(site, Path(folder) / site)
            if output is None:
                run.notes.append(f"{site}: not on this machine ({NODEJS_API} is absent), "
                                 "left out")
                continue
            built = read_built(site, output)
            errors = gold_errors(every.get(site, []), built)
            if errors:
                raise SystemExit(f"{site}: gold sections missing from the build:\n  "
                                 + "\n  ".join(errors))
            asked = [q for q in every.get(site, []) if args.split in ("all", q.split)]
            if not asked:
                continue
            run.asked[site] = asked
            measure_site(built, asked, args, run)
            log(f"{site}: {len(asked)} questions, {time.perf_counter() - started:.0f} s")
    report(args, run)


def model_label(name: str | None) -> str:
    """A model's name in a table: a local folder by its last two path parts (`model2vec:/tmp/
    x/minilm` -> `model2vec:x/minilm`), None as mdchunk's default model."""
    if name is None:
        return DEFAULT_MODEL
    kind, _, rest = name.partition(":")
    path = Path(rest).expanduser()
    return f"{kind}:{'/'.join(path.parts[-2:])}" if rest and path.is_dir() else name


def measure_site(built: BuiltSite, asked: Sequence[Question], args: argparse.Namespace,
                 run: Run) -> None:
    """Rank and score the questions: lexically, then, for each model asked for, with the
    index embedded by it where `mdchunk embed` can; on the latency site, time the searches
    and each model's embedding."""
    latency_site = built.name == LATENCY_SITE
    with_vectors = [mode for mode in MODES if mode != "lexical"]
    rank_searches(built, asked, ["lexical"], "", run.ranks)
    several = len(args.model) > 1
    for number, model in enumerate(args.model or [None]):
        label = model_label(model) if several else ""
        seconds, dense = embed(built, model)
        if seconds is not None and latency_site:
            again, _ = embed(built, model)
            run.timings.append((f"mdchunk embed{f' [{label}]' if label else ''}, Node.js index "
                                "(model load included)",
                                f"{seconds:.1f} s; again, unchanged: {again or 0:.1f} s"))
        rank_searches(built, asked, with_vectors, dense, run.ranks, model=label)
        if latency_site:  # (the lexical search once, beside the first model's)
            run.timings += latencies(built, [q.text for q in asked], args.rounds, dense,
                                     MODES if number == 0 else with_vectors, model=label)
            if dense:
                run.timings.append(("embedding time of a build", f"unavailable: {dense}"))
    rank_bm25(built, asked, args.chunker, run.ranks)


def report(args: argparse.Namespace, run: Run) -> None:
    """Print the questions, the scores and the timings as Markdown."""
    from benchmarks.measure import machine

    sizes = {site: len(asked) for site, asked in run.asked.items()}
    print(f"machine: {machine()}")
    print(f"questions: split {args.split}; {args.resamples} bootstrap resamples; BM25 over "
          f"chunks at {MAX_TOKENS} tokens ({ENCODING})")
    models = ", ".join(model or f"{DEFAULT_MODEL} (mdchunk's default)"
                       for model in args.model or [None])
    print(f"embedding model{'s' if len(args.model) > 1 else ''} (mdchunk embed --model): "
          f"{models}\n")
    print(questions_table(run.asked))
    print(f"\n## Hits within the first 10 results (split {args.split})\n")
    print(results_table(run.ranks, sizes, args.resamples))
    print("\n## Hit@5 by kind of question (sites pooled; questions in brackets)\n")
    print(kinds_table(run.ranks, run.asked))
    if run.timings:
        print("\n## Timings (rough where the machine is loaded)\n")
        print("\n".join(f"- {what}: {figure}" for what, figure in run.timings))
    if run.notes:
        print()
        print("\n".join(f"note: {note}" for note in run.notes))


if __name__ == "__main__":
    main()
