"""What a build keeps of a chunked page: its records in every selected format, ready to write.

The records are made where the page was chunked (a worker process, a Sphinx worker) and encoded
there, once, as JSON text: the process that writes the index only joins them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mdchunk.outputs.twins import twin_text, write_twin
from mdchunk.outputs.writers import write_text
from mdchunk.settings import OutputSettings


@dataclasses.dataclass(frozen=True, slots=True)
class PageOutput:
    """One chunked page as the writers need it: no `Chunk` objects, only their records."""

    source_path: str
    url: str
    markdown: str
    """The page Markdown (written beside the page's HTML)."""
    records: Mapping[str, list[str]]
    """The page's records for each selected format, in chunk order, each as its JSON text
    (`mdchunk.outputs.formats.page_records`)."""
    chunks: int
    oversize: int
    small: int
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    """Facts about the page that mdchunk copes with (see `PageChunks.notes`)."""
    inspector: Mapping[str, Any] | None
    """The inspector's data of the page (`mdchunk.outputs.inspector.page_data`), when asked for."""
    stored: bool = False
    """True when `markdown`, `records` and `inspector` are not held here (left empty) but in the
    page's entry of the page cache (`mdchunk.session.cache`), read back when the index is
    written."""
    agent: Mapping[str, Any] | None = None
    """What `llms.txt` needs of the page, when asked for and the page has text (see
    `mdchunk.outputs.page_facts.page_facts`); kept with the counts."""
    prints: tuple[list[str], ...] = ()
    """Each chunk's print for duplicate detection (`ChunkPrint.as_json`), in chunk order, when
    asked for; kept with the counts, so that a build's finish finds duplicates without reading
    the pages back."""
    in_site: bool = False
    """Whether the page's own files (its Markdown, its twin) are in the site folder already,
    written where it was chunked (`write_page_files`); not kept in the page cache."""

    def without_content(self) -> PageOutput:
        """This page as a build holds it once its content is on disk: its counts and warnings,
        not its Markdown, records or inspector data."""
        return dataclasses.replace(self, markdown="", records={}, inspector=None, stored=True)


def index_summary(pages: Sequence[PageOutput], written: Mapping[str, Path], *,
                  duplicates: int = 0) -> str:
    """`64 pages, 3283 chunks (27 oversize, 3 small, 12 duplicates) written to ...`: what a
    build reports (duplicates when there are any)."""
    marked = f", {counted(duplicates, 'duplicate')}" if duplicates else ""
    return (f"{counted(sum(bool(page.chunks) for page in pages), 'page')}, "
            f"{counted(sum(page.chunks for page in pages), 'chunk')} "
            f"({sum(page.oversize for page in pages)} oversize, "
            f"{sum(page.small for page in pages)} small{marked}) written to "
            + ", ".join(str(path) for path in written.values()))


def counted(number: int, noun: str) -> str:
    """`1 page`, `2 pages`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def write_page_files(site_dir: Path, page: PageOutput, settings: OutputSettings, *,
                     markdown_path: str | None) -> None:
    """Write the page's own files into the site folder: its Markdown at `markdown_path` (None:
    not written) and, where the agent outputs are made (`settings.agents`) and it has text,
    its Markdown twin.

    Where the page is chunked, the page's Markdown is at hand; written there, the build's own
    process neither reads it back nor writes it."""
    if markdown_path is not None:
        write_text(site_dir / markdown_path, page.markdown, durable=False)
    if settings.agents and page.agent is not None:
        write_twin(site_dir, page.url, twin_text(
            page.markdown, str(page.agent["title"]), page.url, str(page.agent["siteUrl"]),
            directive=settings.directive))
