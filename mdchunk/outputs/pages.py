"""What an engine keeps of a chunked page: its records in every selected format, ready to write.

The records are made where the page was chunked (a worker process, a Sphinx worker), and those
of the JSON Lines and JSON formats arrive encoded: the process that writes the index only joins
them. In a Node.js-docs build (64 pages, 3,280 chunks) that moves about 0.25 s of record
building and JSON encoding off the process that renders the site.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mdchunk.chunking import PageChunks
from mdchunk.outputs.formats import encoded_page_records, write_records
from mdchunk.outputs.inspector import page_data
from mdchunk.profiles import Record, check_formats
from mdchunk.timing import StageTimer


@dataclasses.dataclass(frozen=True, slots=True)
class OutputSettings:
    """What to make of each chunked page besides its chunks."""

    formats: tuple[str, ...] = ("native",)
    """The output formats (names from `mdchunk.profiles.PROFILES`)."""
    language: str | None = None
    """The site's natural language (see `ProfileSettings`)."""
    inspector: bool = False
    """Whether to keep the chunk inspector's data of the page."""


@dataclasses.dataclass(frozen=True, slots=True)
class PageOutput:
    """One chunked page as the writers need it: no `Chunk` objects, only their records."""

    source_path: str
    url: str
    markdown: str
    """The page Markdown (written beside the page's HTML)."""
    records: Mapping[str, list[Any]]
    """The page's records for each selected format, in chunk order (already JSON text, `dumps`,
    for the formats of `ENCODED_LAYOUTS`)."""
    chunks: int
    oversize: int
    small: int
    warnings: tuple[str, ...]
    inspector: Mapping[str, Any] | None
    """The inspector's data of the page (`mdchunk.outputs.inspector.page_data`), when asked for."""
    timings: Mapping[str, float] = dataclasses.field(default_factory=dict, compare=False)
    """Seconds per stage spent on the page (see `mdchunk.timing`)."""
    stored: bool = False
    """True when `markdown`, `records` and `inspector` are not held here (left empty) but on disk
    (the page's entry of a page cache, `mdchunk.build.store`; a Sphinx shard), read back when
    the index is written."""

    def without_content(self) -> PageOutput:
        """This page as a build holds it once its content is on disk: its counts, warnings and
        timings, not its Markdown, records or inspector data."""
        return dataclasses.replace(self, markdown="", records={}, inspector=None, stored=True)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON values (a Sphinx shard); `from_json` restores the object."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageOutput:
        """The object `as_json` gave `data` of."""
        return cls(**{**data, "warnings": tuple(data["warnings"])})


def page_output(result: PageChunks, settings: OutputSettings,
                timer: StageTimer | None = None) -> PageOutput:
    """The records of every selected format of one chunked page (timed as `records`)."""
    timer = timer or StageTimer()
    before = timer.snapshot()
    with timer.stage("records"):
        records = encoded_page_records(result, settings.formats, language=settings.language)
        inspector = page_data(result) if settings.inspector else None
    timings = dict(result.timings)
    timings["records"] = timer.since(before)["records"]
    return PageOutput(
        source_path=result.source_path,
        url=result.url,
        markdown=result.markdown,
        records=records,
        chunks=len(result.chunks),
        oversize=sum(chunk.flags.allow_oversize for chunk in result.chunks),
        small=sum(chunk.flags.small_chunk for chunk in result.chunks),
        warnings=result.warnings,
        inspector=inspector,
        timings=timings,
    )


PageContent = Callable[[PageOutput], PageOutput]
"""Gives the whole page (Markdown, records, inspector data) of a `stored` one."""


def write_outputs(site_dir: Path, pages: Sequence[PageOutput], formats: Sequence[str], *,
                  output: str = "chunks.jsonl", content: PageContent | None = None,
                  ) -> dict[str, Path]:
    """Write the records of `pages` (in their order) for each format, each file atomically.

    The records of a `stored` page are read through `content` while its format's file is
    written, one page at a time: the process writing the index never holds all of them (13 MB
    of records for the Node.js docs, 64 pages; ten times that for a site ten times larger).
    """

    def records_of(name: str) -> Iterator[Record]:
        for page in pages:
            if page.stored:
                if content is None:
                    raise ValueError(f"{page.source_path}: its records are not held in memory")
                page = content(page)  # noqa: PLW2901 - the same page, with its records
            yield from page.records[name]

    merged = {name: records_of(name) for name in check_formats(formats)}
    return write_records(site_dir, merged, output=output, encoded=True)


def index_summary(pages: Sequence[PageOutput], written: Mapping[str, Path]) -> str:
    """`64 pages, 3283 chunks (27 oversize, 3 small) written to ...`: what a build reports."""
    return (f"{sum(bool(page.chunks) for page in pages)} pages, "
            f"{sum(page.chunks for page in pages)} chunks "
            f"({sum(page.oversize for page in pages)} oversize, "
            f"{sum(page.small for page in pages)} small) written to "
            + ", ".join(str(path) for path in written.values()))
