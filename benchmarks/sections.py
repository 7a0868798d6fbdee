"""Queries and gold sections of the retrieval benchmark, read from a site mdchunk built.

A site's authors link from one page to a section of another whenever a reader needs that
section: each such link is a question ("where is this explained?") with a known answer. This
module turns a built site into those questions:

- `load_site` reads every page's Markdown (the `.md` file mdchunk writes beside each page's HTML,
  which every chunker of the benchmark receives) and mdchunk's chunk records.
- `anchor_map` finds, for each heading of a page's Markdown, the anchor the browser scrolls to,
  through the chunks' `headerSlugs` and `headerDepths`.
- `extract_queries` finds every link of a page's Markdown to a section of another page, and
  makes the sentence that holds it a query in two variants: as written, and with the link text
  removed (skipped when fewer than 4 words remain). The gold answer is the linked section, from
  its heading to the next heading of the same or a higher level, as a span of the linked page.

Nothing here imports a chunker or a model: the tests run it on a site they build.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from mdchunk.outputs.twins import page_markdown_path

WRITTEN = "written"
"""Query variant: the sentence as its author wrote it (link text kept, URLs dropped)."""
LINK_REMOVED = "link-removed"
"""Query variant: the sentence without the link's text, so that a heading's own words in the
link text cannot give the answer away."""
VARIANTS = (WRITTEN, LINK_REMOVED)
MIN_WORDS = 4
"""A link-removed query with fewer words than this says too little to be asked."""

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_LINK = re.compile(
    r"(?<!!)\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?P<href><[^>]*>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SENTENCE_END = re.compile(r"[.!?][\"')\]*_]*\s+")
_BLOCK_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?|:\s+)?")
_WORD = re.compile(r"\w[\w'\u2019-]*")


@dataclasses.dataclass(frozen=True)
class Heading:
    """A heading line of a page's Markdown."""

    start: int
    """Offset of the heading line's first character."""
    level: int
    """1 for `#`, ... 6 for `######`."""
    title: str


@dataclasses.dataclass(frozen=True)
class Page:
    """One page of a built site: its url, its Markdown and where its sections are."""

    url: str
    """The page's url relative to the site root, as in the records' `pageUrl` (`fs/`,
    `api.html`, `` for the home page)."""
    markdown: str
    headings: tuple[Heading, ...]
    anchors: Mapping[str, Heading]
    """Heading of each anchor (the id the browser scrolls to) that mdchunk's records name."""

    def section(self, heading: Heading) -> tuple[int, int]:
        """Span of the section under `heading`: from its line to the next heading of the same or
        a higher level (the end of the page when none), trailing blank space excluded."""
        end = len(self.markdown)
        for other in self.headings:
            if other.start > heading.start and other.level <= heading.level:
                end = other.start
                break
        return heading.start, len(self.markdown[:end].rstrip())


@dataclasses.dataclass(frozen=True)
class Site:
    """A built site: its pages by url and mdchunk's chunk records, page by page."""

    root_url: str
    """The absolute url of the site's root (`site_url`), or `` when the site has none."""
    pages: Mapping[str, Page]
    records: Mapping[str, Sequence[Mapping[str, Any]]]


@dataclasses.dataclass(frozen=True)
class Query:
    """A question a site's author asked by linking to a section of another page."""

    page: str
    """Url of the page that holds the link (left out of the retrieval: the sentence is there)."""
    variant: str
    """`written` or `link-removed`."""
    text: str
    target_page: str
    anchor: str
    gold: tuple[int, int]
    """The linked section, as a span of the target page's Markdown."""


# --- Reading a built site ------------------------------------------------------------------------


def read_records(site_dir: Path, index: str = "chunks.jsonl") -> dict[str, list[dict[str, Any]]]:
    """mdchunk's records of `site_dir`, grouped by `pageUrl`, each group in chunk order."""
    pages: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (site_dir / index).open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            pages[record["pageUrl"]].append(record)
    for records in pages.values():
        records.sort(key=lambda record: record["chunkNumber"])
    return dict(pages)


def read_chunk_sections(site_dir: Path, name: str = "sections.jsonl"
                        ) -> dict[str, Mapping[str, Any]]:
    """The section record (mdchunk's `sections` output) of each chunk id: the section the chunk
    starts in. Empty when the build wrote no sections."""
    path = site_dir / name
    if not path.is_file():
        return {}
    owners: dict[str, Mapping[str, Any]] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            section = json.loads(line)
            for chunk in section["ownChunkIds"]:
                owners[chunk] = section
    return owners


def markdown_path(site_dir: Path, page_url: str) -> Path:
    """Where mdchunk writes the Markdown of the page at `page_url` that the offsets index:
    beside its HTML file, named after it + `.md` (`guide/index.html.md`, `name.html.md`)."""
    return site_dir / page_markdown_path(page_url)


def load_site(site_dir: Path, index: str = "chunks.jsonl") -> Site:
    """Read a site mdchunk built: each page's Markdown, headings and anchors, and its records.

    Raises ValueError when a record's `originalText` is not its span of the page's Markdown:
    every span of this benchmark is measured in that text."""
    records = read_records(site_dir, index)
    pages = {}
    for url, page_records in records.items():
        markdown = markdown_path(site_dir, url).read_text(encoding="utf-8")
        check_offsets(url, markdown, page_records)
        headings = find_headings(markdown)
        pages[url] = Page(url, markdown, headings, anchor_map(headings, page_records))
    return Site(root_url(records), pages, records)


def check_offsets(url: str, markdown: str, records: Iterable[Mapping[str, Any]]) -> None:
    """Raise ValueError unless each record's originalText is markdown[charStart:charEnd]."""
    for record in records:
        offsets = record["charOffsets"]
        if markdown[offsets["charStart"]:offsets["charEnd"]] != record["originalText"]:
            raise ValueError(f"{url}: chunk {record['id']} is not its span of the page Markdown")


def root_url(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The site's absolute root url, from any record's `absoluteUrl` and `url`."""
    for page_records in records.values():
        for record in page_records:
            absolute, relative = record.get("absoluteUrl") or "", record["url"]
            if absolute and absolute.endswith(relative):
                return absolute[: len(absolute) - len(relative)]
    return ""


# --- Headings and anchors ------------------------------------------------------------------------


def find_headings(markdown: str) -> tuple[Heading, ...]:
    """The ATX headings of `markdown` (`#` at the start of a line), outside fenced code."""
    headings = []
    fence: str | None = None
    offset = 0
    for line in markdown.splitlines(keepends=True):
        fenced = _FENCE.match(line)
        if fenced:
            marker, rest = fenced.groups()
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                fence = None
        elif fence is None:
            atx = _ATX.match(line.rstrip("\r\n"))
            if atx:
                headings.append(Heading(offset, len(atx.group(1)), atx.group(2)))
        offset += len(line)
    return tuple(headings)


def anchor_map(headings: Sequence[Heading],
               records: Iterable[Mapping[str, Any]]) -> dict[str, Heading]:
    """The heading of each anchor that mdchunk's records name.

    A record's `headerSlugs[i]` is the anchor of its ancestor heading at level
    `headerDepths[i]`: the last heading of that level at or before the chunk's start, or, when
    there is none, the first one inside the chunk (a page title with a short body shares its
    chunk with the first section). An anchor that two records place at different headings is
    left out rather than guessed. The benchmark reads anchors from a build in which every
    heading starts a chunk of its own, where no such doubt arises."""
    found: dict[str, Heading] = {}
    conflicting: set[str] = set()
    for record in records:
        offsets = record["charOffsets"]
        for slug, level in zip(record["headerSlugs"], record["headerDepths"], strict=True):
            heading = ancestor_heading(headings, level, offsets["charStart"],
                                       offsets["charEnd"])
            if not slug or heading is None:
                continue
            if found.setdefault(slug, heading) != heading:
                conflicting.add(slug)
    for slug in conflicting:
        del found[slug]
    return found


def ancestor_heading(headings: Sequence[Heading], level: int, start: int,
                     end: int) -> Heading | None:
    """The heading of `level` whose section holds a chunk spanning `start`..`end`: the last
    one at or before `start`, else the first one before `end`."""
    before = [heading for heading in headings
              if heading.level == level and heading.start <= start]
    if before:
        return before[-1]
    inside = [heading for heading in headings
              if heading.level == level and start < heading.start < end]
    return inside[0] if inside else None


# --- Links and the sentences that hold them ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Link:
    """A Markdown link in a page."""

    start: int
    """Offset of the link's `[` in its text (its line, or its sentence)."""
    end: int
    text: str
    href: str


def content_lines(markdown: str) -> Iterator[str]:
    """The lines of `markdown` that hold prose: outside fenced code, and not headings."""
    fence: str | None = None
    for line in markdown.splitlines():
        fenced = _FENCE.match(line)
        if fenced:
            marker, rest = fenced.groups()
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                fence = None
            continue
        if fence is None and not _ATX.match(line):
            yield line


def find_links(text: str) -> list[Link]:
    """The links of `text` (not images), outside inline code."""
    code = [match.span() for match in _CODE_SPAN.finditer(text)]
    links = []
    for match in _LINK.finditer(text):
        if any(start <= match.start() < end for start, end in code):
            continue
        href = match.group("href").strip("<>")
        links.append(Link(match.start(), match.end(), match.group("text"), href))
    return links


def sentences(line: str) -> list[tuple[int, int]]:
    """Spans of the sentences of a prose line: cut after `.`, `!` or `?` and a space, never
    inside a link or inline code (a table row's cells are sentences of their own)."""
    if line.lstrip().startswith("|"):
        return cells(line)
    protected = [link_span for link in find_links(line) for link_span in [(link.start, link.end)]]
    protected += [match.span() for match in _CODE_SPAN.finditer(line)]
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(line):
        if any(begin < match.start() < end for begin, end in protected):
            continue
        spans.append((start, match.end()))
        start = match.end()
    if start < len(line):
        spans.append((start, len(line)))
    return spans


def cells(row: str) -> list[tuple[int, int]]:
    """Spans of the cells of a Markdown table row (between unescaped `|` outside code)."""
    code = [match.span() for match in _CODE_SPAN.finditer(row)]
    cuts = [index for index, char in enumerate(row)
            if char == "|" and (index == 0 or row[index - 1] != "\\")
            and not any(start <= index < end for start, end in code)]
    return [(a + 1, b) for a, b in itertools.pairwise(cuts)]


def plain(text: str, *, drop: tuple[int, int] | None = None) -> str:
    """`text` as a reader sees it: links replaced by their text, inline code and emphasis marks
    and list or quote markers removed, spaces collapsed. `drop` removes one span (a link)
    whole first."""
    if drop is not None:
        text = text[: drop[0]] + " " + text[drop[1]:]
    text = _BLOCK_PREFIX.sub("", text, count=1)
    pieces, last = [], 0
    for link in find_links(text):
        pieces += [text[last:link.start], link.text]
        last = link.end
    pieces.append(text[last:])
    text = "".join(pieces)
    text = re.sub(r"`+|\*\*|__|(?<!\w)[*_]|[*_](?!\w)", "", text)
    return " ".join(text.split())


def word_count(text: str) -> int:
    """Words of `text` (runs of letters or digits)."""
    return len(_WORD.findall(text))


# --- Queries -------------------------------------------------------------------------------------


def resolve(href: str, page_url: str, site: Site) -> tuple[str, str] | None:
    """The (page url, anchor) a link of page `page_url` points at, when it is a page of `site`
    and has an anchor; None for external links, links without an anchor and unknown pages."""
    if "#" not in href:
        return None
    if urlsplit(href).scheme or href.startswith("//"):
        if not site.root_url or not href.startswith(site.root_url):
            return None
        relative = href[len(site.root_url):]
    else:
        relative = urljoin("/" + page_url, href).lstrip("/")
    path, anchor = relative.split("#", 1)
    for candidate in (path, path.removesuffix("index.html"), path + "/"):
        if candidate in site.pages and anchor:
            return candidate, anchor
    return None


def extract_queries(site: Site) -> tuple[list[Query], dict[str, int]]:
    """Every query of `site`: each link in a page's content to a section of another page, the
    sentence that holds it, in both variants. Also returns counts of what was seen and left out
    (links to the same page, to anchors that are not headings, short link-removed sentences).

    Identical queries (same page, sentence, variant and target) count once."""
    queries: dict[tuple[str, str, str, str, str], Query] = {}
    counts: dict[str, int] = defaultdict(int)
    for url, page in site.pages.items():
        for line in content_lines(page.markdown):
            for start, end in sentences(line):
                sentence = line[start:end]
                for link in find_links(sentence):
                    for query in sentence_queries(site, url, sentence, link, counts):
                        key = (query.page, query.variant, query.text, query.target_page,
                               query.anchor)
                        queries.setdefault(key, query)
    return list(queries.values()), dict(counts)


def sentence_queries(site: Site, url: str, sentence: str, link: Link,
                     counts: dict[str, int]) -> list[Query]:
    """The queries one link of a sentence makes (none when it is not a link to a section of
    another page)."""
    target = resolve(link.href, url, site)
    if target is None:
        return []
    target_url, anchor = target
    if target_url == url:
        counts["links to a section of the same page"] += 1
        return []
    heading = site.pages[target_url].anchors.get(anchor)
    if heading is None:
        counts["links to an anchor that is not a heading"] += 1
        return []
    counts["links to a section of another page"] += 1
    gold = site.pages[target_url].section(heading)
    made = [Query(url, WRITTEN, plain(sentence), target_url, anchor, gold)]
    removed = plain(sentence, drop=(link.start, link.end))
    if word_count(removed) >= MIN_WORDS:
        made.append(Query(url, LINK_REMOVED, removed, target_url, anchor, gold))
    else:
        counts["link-removed sentences under 4 words (skipped)"] += 1
    return made
