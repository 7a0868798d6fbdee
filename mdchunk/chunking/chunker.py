"""The one entry point of the core: a rendered page in, its chunks out.

Both engine adapters and the CLI call `Chunker.chunk_page` for each page and hand the results to
the writers; every rule of chunking lives behind this call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

from mdchunk.chunking.chunk import PageChunks
from mdchunk.chunking.describe import ChunkBuilder, DescribeSettings, clean_page
from mdchunk.chunking.embed import EmbedTemplate
from mdchunk.chunking.model import PageInput, build_time
from mdchunk.chunking.overlap import text_overlap_starts
from mdchunk.chunking.packing import Packer
from mdchunk.chunking.page_sections import page_sections
from mdchunk.chunking.summary import page_summary
from mdchunk.chunking.tokens import TokenCounter, token_counter
from mdchunk.chunking.tree import Section, build_tree
from mdchunk.options import ChunkOptions


class Chunker:
    """Chunks pages with one set of options and one token counter."""

    def __init__(
        self,
        options: ChunkOptions,
        *,
        counter: TokenCounter | None = None,
        site_url: str = "",
        processed_at: str | None = None,
        docs_version: str | None = None,
        language: str | None = None,
        language_folder: str = "",
        site_prefix: str | None = None,
    ) -> None:
        self.options = options
        self.docs_version = docs_version
        self.site_prefix = site_prefix  # (`DescribeSettings.site_prefix`)
        self.count = counter or token_counter(options.encoding)
        self.site_url = site_url
        self.language = language  # each chunk's, unless its page's front matter names one
        self.language_folder = language_folder  # (`OutputSettings.language_folder`)
        self.processed_at = processed_at or build_time()
        self.reproducible = "SOURCE_DATE_EPOCH" in os.environ
        self._options_dict = options.as_dict()

    def chunk_page(self, page: PageInput) -> PageChunks:
        """Parse, pack and describe one page."""
        began = time.perf_counter()
        # Imported with the first page chunked: a process that only hands pages to workers and
        # writes their records never loads lxml.
        from mdchunk.chunking.html import convert_tree, parse_tree

        described = clean_page(page)
        parsed = convert_tree(parse_tree(page.html), page_url=page.url, site_url=self.site_url,
                              title=described.title)
        embed = EmbedTemplate(self.options.embed_template, title=described.title,
                              page_url=described.url, count=self.count,
                              links=self.options.embed_links)
        root = build_tree(parsed)
        packer = Packer(parsed.markdown, self.count, self.options, parsed.blocks, embed)
        pieces = packer.pack(root)
        spans = [piece.start for piece in pieces]
        if self.options.overlap_mode == "text" and self.options.overlap_tokens:
            spans = text_overlap_starts(parsed, pieces, self.count, self.options.overlap_tokens)
        elapsed = 0.0 if self.reproducible else round((time.perf_counter() - began) * 1000, 3)
        settings = DescribeSettings(self.options, self.count, self.site_url, self.processed_at,
                                    self._options_dict, self.language, self.language_folder,
                                    self.docs_version, self.site_prefix)
        # (`_plain` recurses: in Python, too deep a front matter raises RecursionError, where
        # compiled code would overflow the C stack)
        builder = ChunkBuilder(settings, described, parsed, elapsed, packer.tokens, embed=embed,
                               meta=_plain(dict(page.meta)))
        chunks = tuple(builder.chunk(number, len(pieces), piece, spans, pieces)
                       for number, piece in enumerate(pieces))
        result = PageChunks(
            source_path=page.source_path,
            url=page.url,
            markdown=parsed.markdown,
            chunks=chunks,
            warnings=_warnings(root),
            notes=_notes(root, title_added=parsed.title_added),
            sections=page_sections(root, pieces, packer.tokens) if pieces else (),
            summary=page_summary(parsed),
        )
        _unlink(root)
        return result


def _plain(value: Any) -> Any:
    """Front matter as JSON values (dates become ISO strings, unknown objects their str)."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_plain(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _unlink(root: Section) -> None:
    """Drop the links of the page's heading tree to the parent sections, once the page is
    chunked. A section and its parent refer to each other: a reference cycle, which only the
    cycle collector frees. Without the links the tree, and every block of the page it holds, is
    freed as soon as the page is done, instead of staying in memory for each collection to
    walk until one finds the cycles."""
    for section in root.walk():
        section.parent = None


def _warnings(root: Section) -> tuple[str, ...]:
    """Anchor problems a user should fix: ids used twice."""
    warnings: list[str] = []
    seen: dict[str, str] = {}
    for section in root.walk():
        heading = section.heading
        if heading is None or not heading.anchor:
            continue
        if heading.anchor in seen:
            warnings.append(
                f"headings '{seen[heading.anchor]}' and '{heading.title}' share the id "
                f"'{heading.anchor}': links to the second open the first"
            )
        else:
            seen[heading.anchor] = heading.title
    return tuple(warnings)


def _notes(root: Section, *, title_added: bool) -> tuple[str, ...]:
    """Facts about the page's HTML that mdchunk copes with: headings without an id, whose
    chunks link to the nearest heading above that has one (or to the page). The page title
    mdchunk added (`title_added`, the first heading) has none on purpose: it is the page."""
    headings = [section.heading for section in root.walk() if section.heading is not None]
    headings = headings[1:] if title_added else headings
    missing = [heading.title for heading in headings if not heading.anchor]
    if not missing:
        return ()
    shown = ", ".join(f"'{title}'" for title in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    hint = ("no heading of the page has an id: are heading ids (MkDocs' toc extension) on?"
            if len(missing) == len(headings) else "give a heading an id to link to it")
    return (f"{len(missing)} heading(s) without an id in the page's HTML ({shown}{more}): their "
            f"chunks link to the nearest heading above that has one, or to the page; {hint}",)
