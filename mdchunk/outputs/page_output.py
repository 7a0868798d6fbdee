"""What a chunked page contributes to every output (`page_output`), made where the page is
chunked: its records in every selected format, encoded once, its chunks' prints, the facts
`llms.txt` needs and the inspector's data. The process that writes the index only joins them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from mdchunk.chunking.chunk import PageChunks
from mdchunk.chunking.tokens import TokenCounter
from mdchunk.outputs.catalog import Record, check_formats
from mdchunk.outputs.duplicates import chunk_print
from mdchunk.outputs.inspector import page_data
from mdchunk.outputs.page_facts import page_facts
from mdchunk.outputs.pages import PageOutput
from mdchunk.outputs.profiles import PROFILES, ChunksLike, ProfileSettings, chunks_of
from mdchunk.outputs.writers import record_encoder
from mdchunk.settings import OutputSettings


def page_output(result: PageChunks, settings: OutputSettings, *,
                count: TokenCounter | None = None, site_url: str = "") -> PageOutput:
    """The records of every selected format of one chunked page and its chunks' prints.

    `count` (the chunker's counter) and `site_url` (the page's) serve the agent outputs'
    facts, when `settings.agents` asks for them."""
    return PageOutput(
        source_path=result.source_path,
        url=result.url,
        markdown=result.markdown,
        records=page_records(result, settings.formats, language=settings.language,
                             pagefind_filters=settings.pagefind_filters),
        chunks=len(result.chunks),
        oversize=sum(chunk.flags.allow_oversize for chunk in result.chunks),
        small=sum(chunk.flags.small_chunk for chunk in result.chunks),
        warnings=result.warnings,
        notes=result.notes,
        inspector=page_data(result) if settings.inspector else None,
        agent=page_facts(result, count=count, site_url=site_url, directive=settings.directive
                         ) if settings.agents and count is not None else None,
        prints=tuple(chunk_print(chunk.id, chunk.text).as_json() for chunk in result.chunks
                     ) if settings.duplicates else (),
    )


def page_records(page: ChunksLike, formats: Sequence[str], *, language: str | None = None,
                 pagefind_filters: Sequence[str] = ()) -> dict[str, list[str]]:
    """One page's records for each selected format, in chunk order, each as its JSON text (for
    `files`: `{"path", "record"}` pairs).

    A page's records are encoded here, once, where the page is chunked (a worker process, a
    Sphinx worker): the process that writes the index joins them (`write_records`), and the
    page cache keeps them as they are. Every profile makes its records one at a time, and each
    is encoded as it comes, so that a record's objects are freed before the next is made; the
    formats whose records are the same (`native`, `sqlite`) share one list. The text is that of
    `writers.dumps`, written by orjson where it writes the same (`record_encoder`). `language`
    and `pagefind_filters`: see `ProfileSettings`.
    """
    settings = ProfileSettings(language=language, pagefind_filters=tuple(pagefind_filters))
    chunks = chunks_of(page)
    encode = record_encoder([chunks[0].front_matter, chunks[0].chunking_options] if chunks
                            else [])
    encoded: dict[Callable[[ChunksLike, ProfileSettings], Iterator[Record]], list[str]] = {}
    records: dict[str, list[str]] = {}
    for name in check_formats(formats):
        make = PROFILES[name].records
        if make not in encoded:
            encoded[make] = [encode(record) for record in make(page, settings)]
        records[name] = encoded[make]
    return records
