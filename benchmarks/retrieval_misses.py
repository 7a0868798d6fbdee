"""Why larger chunks win the first five with the link text removed: the queries that fixed
windows or Chonkie find and mdchunk does not (BM25, mdchunk's default setting).

    pip install -e '.[bench]'
    python benchmarks/retrieval_misses.py [--corpus nodejs nodejs-sphinx] [--sample 8]

For each corpus (built as benchmarks/retrieval.py builds it) and query variant it prints:

- how many queries each chunker hits in its first five, and how many fixed windows or Chonkie
  hit that mdchunk misses;
- for those, where mdchunk's first five were (on the gold page, next to the gold section) and
  the rank of mdchunk's first hit, and how the window that hit meets the gold section: the
  window holds the whole section and its neighbours, crosses one of its edges, or lies inside
  a section larger than itself;
- a sample of them: the query, the gold section, mdchunk's first five, the window that hit;
- what other context lines in `embedText` would have done, on the same chunks (the page title
  and breadcrumb, plus: the titles of the section's own subsections; of its sibling sections;
  of every section under its H2; the first or last 64 tokens of the neighbouring chunks, their
  links as text), and what fixed windows and Chonkie score when their chunks too are retrieved
  with links as text (`embed_links: text` is a preprocessing any pipeline could apply).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.retrieval import (
    RECIPES,
    Bm25,
    Chunks,
    Corpus,
    build_corpus,
    located_chunks,
    mdchunk_chunks,
    memoized_counter,
    score_chunks,
)
from benchmarks.scoring import Retrieved, is_hit, overlap
from benchmarks.sections import VARIANTS, Heading, Page, Query
from mdchunk.chunking.markdown_text import links_as_text
from mdchunk.chunking.tokens import load_encoding

METRICS = ("Hit@1", "Hit@5", "MRR@10", "R@5", "Hit@1k", "R@1k")
NEAR = 3000
"""Characters between a chunk and the gold section within which the chunk is its neighbour."""


def meets(item: Retrieved, gold: tuple[int, int]) -> str:
    """How a chunk that hits meets the gold section."""
    if gold[0] <= item.start and item.end <= gold[1]:
        return "inside the section"
    if item.start <= gold[0] and gold[1] <= item.end:
        return "holds the section and more"
    return "crosses an edge"


def first_hit(chunks: Chunks, order: Sequence[int], query: Query, depth: int) -> int | None:
    """Rank of the first chunk among the first `depth` that hits the query's gold section."""
    return next((rank for rank, index in enumerate(order[:depth])
                 if is_hit(chunks.items[index], query.target_page, query.gold)), None)


# --- Other context lines, on the same chunks ----------------------------------------------------


def heading_at(page: Page, offset: int) -> Heading | None:
    """The last heading at or before `offset`."""
    found = [heading for heading in page.headings if heading.start <= offset]
    return found[-1] if found else None


def below(page: Page, heading: Heading, *, direct: bool) -> list[Heading]:
    """The headings under `heading` (its direct subsections only, with `direct`)."""
    out = []
    for other in page.headings[page.headings.index(heading) + 1:]:
        if other.level <= heading.level:
            break
        if not direct or other.level == heading.level + 1:
            out.append(other)
    return out


def parent(page: Page, heading: Heading) -> Heading | None:
    """The heading whose section holds `heading`'s."""
    for other in reversed(page.headings[:page.headings.index(heading)]):
        if other.level < heading.level:
            return other
    return None


def titles(headings: Sequence[Heading]) -> list[str]:
    """Heading titles without Markdown emphasis or code marks."""
    return [re.sub(r"[`*]", "", heading.title) for heading in headings]


def context_variants(corpus: Corpus, encoding: Any) -> dict[str, list[str]]:
    """Per variant, the text each default chunk is retrieved by (in `mdchunk_chunks` order)."""
    def head(text: str, tokens: int) -> str:
        return encoding.decode(encoding.encode_ordinary(text)[:tokens])

    def tail(text: str, tokens: int) -> str:
        return encoding.decode(encoding.encode_ordinary(text)[-tokens:]) if tokens else ""

    out: dict[str, list[str]] = {name: [] for name in (
        "page title > breadcrumb (default)", "+ its subsections' titles",
        "+ its sibling sections' titles", "+ every title under its H2",
        "+ 64 tokens of the next chunk", "+ 64 tokens of the previous chunk")}
    for url, records in corpus.records["default"].items():
        page = corpus.site.pages[url]
        for index, record in enumerate(records):
            embed = record["embedText"]
            context, _, text = embed.partition("\n\n")
            heading = heading_at(page, record["charOffsets"]["charStart"])
            lines: list[list[str]] = [[], [], []]
            if heading is not None:
                lines[0] = titles(below(page, heading, direct=True))
                up = parent(page, heading)
                lines[1] = titles(below(page, up, direct=True)) if up else []
                top = heading
                while top.level > 2 and (up := parent(page, top)) is not None:
                    top = up
                lines[2] = titles(below(page, top, direct=False))
            following = links_as_text(records[index + 1]["originalText"]) if index + 1 < len(
                records) else ""
            before = links_as_text(records[index - 1]["originalText"]) if index else ""
            texts = [embed, *(context + ("\n" + "; ".join(line) if line else "") + "\n\n" + text
                              for line in lines),
                     embed + "\n\n" + head(following, 64), tail(before, 64) + "\n\n" + embed]
            for name, value in zip(out, texts, strict=True):
                out[name].append(value)
    return out


# --- Running it ----------------------------------------------------------------------------------


def report(corpus: Corpus, encoding: Any, sample: int, log: Callable[[str], None]) -> dict[
        str, dict[str, dict[str, list[float]]]]:
    """Print the misses of `corpus`; return the scores of the context-line variants."""
    count = memoized_counter(encoding)
    pages = {url: page.markdown for url, page in corpus.site.pages.items()}
    mdchunk = mdchunk_chunks("mdchunk", corpus.records["default"], "embedText", count)
    others = {name: located_chunks(name, pages, RECIPES[name](pages, 512, encoding), count)
              for name in ("fixed", "Chonkie")}
    bm25 = Bm25()
    variants = context_variants(corpus, encoding)
    scores: dict[str, dict[str, dict[str, list[float]]]] = {}
    for variant in VARIANTS:
        queries = [query for query in corpus.queries if query.variant == variant]
        ranked = {"mdchunk": bm25.rank(mdchunk, queries),
                  **{name: bm25.rank(chunks, queries) for name, chunks in others.items()}}
        sets = {"mdchunk": mdchunk, **others}
        hits = {name: [first_hit(sets[name], order, query, 5)
                       for query, order in zip(queries, ranked[name], strict=True)]
                for name in sets}
        missed = [index for index in range(len(queries)) if hits["mdchunk"][index] is None
                  and any(hits[name][index] is not None for name in others)]
        print(f"\n## {corpus.name}, queries {variant} ({len(queries)})\n")
        print("Hit@5: " + ", ".join(f"{name} {sum(h is not None for h in found)}"
                                    for name, found in hits.items()))
        only = Counter()
        for index in range(len(queries)):
            mine = hits["mdchunk"][index] is not None
            for name in others:
                theirs = hits[name][index] is not None
                only[f"{name} only"] += theirs and not mine
                only[f"mdchunk only (against {name})"] += mine and not theirs
        print("; ".join(f"{what}: {n}" for what, n in only.items()))
        where: Counter[str] = Counter()
        ranks = []
        for index in missed:
            query = queries[index]
            top = [mdchunk.items[i] for i in ranked["mdchunk"][index][:5]]
            on_page = [item for item in top if item.page == query.target_page]
            where["mdchunk's five: one on the gold page"] += bool(on_page)
            where[f"one within {NEAR} characters of the section"] += any(
                min(abs(item.start - query.gold[1]), abs(query.gold[0] - item.end)) < NEAR
                or overlap((item.start, item.end), query.gold) for item in on_page)
            rank = first_hit(mdchunk, ranked["mdchunk"][index], query, 100)
            ranks.append(rank + 1 if rank is not None else 101)
            name = "fixed" if hits["fixed"][index] is not None else "Chonkie"
            window = others[name].items[ranked[name][index][hits[name][index]]]
            where[f"the {name} chunk that hit {meets(window, query.gold)}"] += 1
        print(f"found by fixed windows or Chonkie, missed by mdchunk: {len(missed)}; "
              + "; ".join(f"{what}: {n}" for what, n in sorted(where.items())))
        if ranks:
            print(f"rank of mdchunk's first hit there: median {statistics.median(ranks):.0f}, "
                  f"quartiles {statistics.quantiles(ranks, n=4)} (101: not in the first 100)")
        for index in random.Random(0).sample(missed, min(sample, len(missed))):
            query = queries[index]
            gold = pages[query.target_page][query.gold[0]:query.gold[1]]
            print(f"\n- query: {query.text!r}\n  gold: {query.target_page}#{query.anchor} "
                  f"({count(gold)} tokens): {gold.splitlines()[0]}")
            for rank, i in enumerate(ranked["mdchunk"][index][:5], 1):
                item = mdchunk.items[i]
                print(f"  mdchunk {rank}: {item.page} ({item.tokens} tokens) "
                      f"{mdchunk.texts[i].splitlines()[0]}")
            rank = first_hit(mdchunk, ranked["mdchunk"][index], query, 100)
            print(f"  mdchunk's first hit: rank {rank + 1 if rank is not None else '>100'}")
            for name in others:
                if hits[name][index] is not None:
                    item = others[name].items[ranked[name][index][hits[name][index]]]
                    words = " ".join(pages[item.page][item.start:item.end].split()[:16])
                    print(f"  {name} {hits[name][index] + 1}: {item.tokens} tokens, "
                          f"{meets(item, query.gold)}: {words} ...")
        scores[variant] = {name: score_chunks(Chunks(name, texts, mdchunk.items), queries,
                                              bm25.rank(Chunks(name, texts, mdchunk.items),
                                                        queries))
                           for name, texts in variants.items()}
        scores[variant].update(others_with_links_as_text(others, queries, ranked))
        log(f"{corpus.name} {variant}: done")
    return scores


def others_with_links_as_text(others: dict[str, Chunks], queries: Sequence[Query],
                              ranked: dict[str, list[list[int]]]
                              ) -> dict[str, dict[str, list[float]]]:
    """The scores of the other chunkers as chunked, and with their chunks retrieved by their
    text with links as text (the preprocessing of `embed_links: text`, given to them too)."""
    scores = {}
    for name, chunks in others.items():
        bare = Chunks(name, [links_as_text(text) for text in chunks.texts], chunks.items)
        scores[f"{name} (not mdchunk), as chunked"] = score_chunks(chunks, queries,
                                                                   ranked[name])
        scores[f"{name} (not mdchunk), links as text"] = score_chunks(
            bare, queries, Bm25().rank(bare, queries))
    return scores


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", nargs="+", default=["nodejs", "nodejs-sphinx"])
    parser.add_argument("--sample", type=int, default=8, help="misses shown per query set")
    args = parser.parse_args(argv)
    socket.setdefaulttimeout(10)  # no part of the benchmark may wait on the network
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    encoding = load_encoding("cl100k_base")
    every: dict[str, dict[str, dict[str, dict[str, list[float]]]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.corpus:
            corpus = build_corpus(name, Path(folder) / name, {"default": {}}, 512)
            if corpus is None:
                print(f"{name}: not on this machine, left out")
                continue
            every[name] = report(corpus, encoding, args.sample,
                                 lambda message: print(message, file=sys.stderr))
    for variant in VARIANTS:
        print(f"\n## Context lines, BM25, queries {variant}: mean over "
              + ", ".join(every) + " (mdchunk's chunks; last rows: fixed windows and "
              "Chonkie as chunked, and with their links as text too)\n")
        print("| embedText | " + " | ".join(METRICS) + " |")
        print("|---" * (len(METRICS) + 1) + "|")
        names = next(iter(every.values()))[variant]
        for name in names:
            means = [statistics.fmean(statistics.fmean(every[corpus][variant][name][metric])
                                      for corpus in every) for metric in METRICS]
            print(f"| {name} | " + " | ".join(f"{mean:.3f}" for mean in means) + " |")


if __name__ == "__main__":
    main()
