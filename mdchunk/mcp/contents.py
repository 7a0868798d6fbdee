"""The index in memory, as the MCP tools read it: its chunks (`IndexChunk`, the fields of a
native record the tools use), the sections they make up (`IndexSection`: the chunks of one url)
and its pages (`IndexPage`); a page's text (`PageText`) and every spelling of its url
(`page_aliases`)."""

import dataclasses
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from mdchunk.outputs.twins import page_markdown_path, twin_path


@dataclasses.dataclass(frozen=True, slots=True)
class IndexChunk:
    """The fields of a native chunk record the tools use."""

    id: str
    page_id: str
    number: int
    url: str
    page_url: str
    absolute_url: str | None
    title: str
    page_title: str
    breadcrumb: str
    header_path: tuple[str, ...]
    sub_headers: tuple[str, ...]
    start: int
    end: int
    text: str

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "IndexChunk":
        """The chunk of a native record (`chunks.jsonl` line or `chunks.sqlite` row)."""
        offsets = record.get("charOffsets") or {}
        text = str(record.get("originalText") or "")
        start = offsets.get("charStart")
        end = offsets.get("charEnd")
        if not (isinstance(start, int) and isinstance(end, int) and end - start == len(text)):
            start, end = -1, -1  # no usable offsets: joined from chunk texts
        header_path = tuple(str(part) for part in record.get("headerPath") or ())
        return cls(
            id=str(record["id"]), page_id=str(record.get("parentId") or ""),
            number=int(record.get("chunkNumber") or 0),
            url=str(record.get("url") or ""), page_url=str(record.get("pageUrl") or ""),
            absolute_url=record.get("absoluteUrl") or None,
            title=str(record.get("sectionTitle") or ""),
            page_title=str(record.get("fileTitle") or ""),
            breadcrumb=str(record.get("headerBreadcrumb") or " > ".join(header_path)),
            header_path=header_path,
            sub_headers=tuple(str(h) for h in record.get("subHeaders") or ()),
            start=start, end=end, text=text,
        )


@dataclasses.dataclass(slots=True)
class IndexSection:
    """The chunks that share one url (a page and an anchor), in page order."""

    url: str
    page_url: str
    chunks: list[IndexChunk]

    @property
    def first(self) -> IndexChunk:
        return self.chunks[0]

    @property
    def title(self) -> str:
        """The heading's text; the page title for the text before a page's first heading."""
        return self.first.title or self.first.page_title or "(start of the page)"

    @property
    def depth(self) -> int:
        """Nesting in the page's outline: 1 for the page title, 0 before any heading."""
        return len(self.first.header_path)


@dataclasses.dataclass(slots=True)
class IndexPage:
    """A page of the index: its chunks in order and its sections in order."""

    url: str
    chunks: list[IndexChunk]
    sections: list[IndexSection]

    @property
    def title(self) -> str:
        first = self.chunks[0]
        return first.page_title or (first.header_path[0] if first.header_path else self.url)


@dataclasses.dataclass(frozen=True, slots=True)
class PageText:
    """A page's text and where each of its chunks is in it.

    `source` is `page markdown` when the text is the page's Markdown file (the chunks' offsets
    index into it), `chunk text` when it was joined from the chunks' texts (no Markdown file,
    or one that does not match the index): overlapping chunks are then joined once, and chunks
    that did not touch are separated by a blank line.
    """

    text: str
    spans: dict[str, tuple[int, int]]
    source: str


def markdown_files(page_url: str) -> list[str]:
    """Where the builds write a page's Markdown, relative to the site: beside its HTML file,
    named after it + `.md` (`guide/install/index.html.md`, `install.html.md`)."""
    return [page_markdown_path(page_url)]


def is_site_relative(url: str) -> bool:
    """Whether `url` stays inside the site: no scheme, no leading slash, no `..`, no backslash."""
    return not (url.startswith("/") or "\\" in url or ":" in url.split("/", 1)[0]
                or ".." in url.split("/"))


def join_spans(texts: PageText, chunks: Sequence[IndexChunk]) -> str:
    """The page text the chunks cover: one slice per run of consecutive chunks (overlapping
    chunks are taken once), runs separated by a blank line."""
    runs: list[list[int]] = []
    previous: IndexChunk | None = None
    for chunk in chunks:
        start, end = texts.spans[chunk.id]
        if previous is not None and chunk.number == previous.number + 1:
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
        previous = chunk
    return "\n\n".join(texts.text[start:end] for start, end in runs)


def joined_chunk_texts(chunks: Sequence[IndexChunk]) -> PageText:
    """A page's text rebuilt from its chunks: a chunk that overlaps the previous one (by its
    offsets) adds only what follows the overlap; chunks that do not touch are separated by a
    blank line."""
    parts: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    position = 0
    previous: IndexChunk | None = None
    for chunk in chunks:
        overlap = (previous.end - chunk.start
                   if previous is not None and previous.end >= 0 and chunk.start >= 0 else 0)
        overlap = min(max(overlap, 0), len(chunk.text), position)
        if previous is not None and overlap == 0:
            parts.append("\n\n")
            position += 2
        parts.append(chunk.text[overlap:])
        spans[chunk.id] = (position - overlap, position - overlap + len(chunk.text))
        position = spans[chunk.id][1]
        previous = chunk
    return PageText("".join(parts), spans, "chunk text")


def subsections(page: IndexPage, section: IndexSection) -> list[IndexSection]:
    """The sections right below `section` in its page's outline (those whose header path
    extends its own by one heading)."""
    path = section.first.header_path
    return [s for s in page.sections
            if len(s.first.header_path) == len(path) + 1 and s.first.header_path[:len(path)]
            == path and s.url != section.url]


def site_url_of(chunks: Any) -> str | None:
    """The site's url (`https://example.com/docs/`), from a chunk's absolute and relative
    urls; None where the site was built without one."""
    for chunk in chunks:
        if chunk.absolute_url and chunk.absolute_url.endswith(chunk.url):
            return str(chunk.absolute_url[:len(chunk.absolute_url) - len(chunk.url)])
    return None


def page_aliases(pages: dict[str, IndexPage]) -> dict[str, str]:
    """Every spelling of a page url that names it: `guide/install/`, `guide/install`,
    `guide/install/index.html`, `guide/install/index.md`; `guide/api.html`, `guide/api`,
    `guide/api.md`; the home page as `` and `index.html` (Sphinx's `index.html` as ``
    too); and the urls of its Markdown twin and page Markdown."""
    aliases: dict[str, str] = {}
    for url in pages:
        spellings = [url, twin_path(url), page_markdown_path(url)]
        if not url or url.endswith("/"):
            spellings += [url.rstrip("/"), f"{url}index.html", f"{url}index.md"]
        elif PurePosixPath(url).suffix in (".html", ".htm"):
            stem = str(PurePosixPath(url).with_suffix(""))
            spellings += [stem, f"{stem}/", f"{stem}.md"]
            if PurePosixPath(stem).name == "index":  # Sphinx's index.html: its folder's page
                folder = stem.removesuffix("index")
                spellings += [folder, folder.rstrip("/")]
        else:
            spellings += [f"{url}/", f"{url}.html", f"{url}.md"]
        for spelling in spellings:
            aliases.setdefault(spelling, url)
    for url in pages:
        aliases[url] = url  # a page's own url always names that page
    return aliases
