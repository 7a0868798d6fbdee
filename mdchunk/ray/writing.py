"""What a Ray task writes for one site: its folder of site-level outputs, the files `mdchunk
site` writes into a built site, made by the same writers; and its records file."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mdchunk.errors import MdChunkError
from mdchunk.outputs.catalog import check_formats
from mdchunk.outputs.duplicates import Duplicate
from mdchunk.outputs.formats import records_block, write_records
from mdchunk.outputs.llms import ListedPage, write_agent_outputs
from mdchunk.outputs.marks import marked_records
from mdchunk.outputs.outline import SiteOutline
from mdchunk.outputs.pages import PageOutput, write_page_files
from mdchunk.outputs.twins import markdown_beside
from mdchunk.outputs.writers import atomic_write, dumps, staged_folder, write_jsonl
from mdchunk.settings import BuildSettings, OutputSettings

if TYPE_CHECKING:
    import pyarrow

log = logging.getLogger("mdchunk.ray")

RECORD_COLUMNS = ("site", "source", "url", "id", "record")
"""The columns of the records' rows, each a string."""
RECORDS_FORMATS = ("parquet", "jsonl")
"""The formats of a site's records file: Parquet (one table, a column per field of the rows)
or JSON Lines (one row a line)."""


def write_site_folder(folder: Path, pages: Sequence[PageOutput], relatives: Sequence[str], *,
                      outline: SiteOutline, marks: Mapping[str, Duplicate],
                      settings: BuildSettings, output: OutputSettings) -> Path:
    """Write into `folder`, which it replaces atomically, what `mdchunk site` writes into the
    site it chunks with `settings`, by the same writers and with the same bytes, but for the
    site's HTML (which `mdchunk site` marks for agents, and which stays where it is): each
    page's Markdown and twin, `llms.txt` and `llms-full` (`llms_txt`), and the index in each
    format. `pages`: the site's chunked pages in its order, each from its file `relatives`.

    Raises:
        MdChunkError: an output that cannot be written, naming the folder.
    """
    try:
        with staged_folder(folder, durable=False) as staging:
            for page, relative in zip(pages, relatives, strict=True):
                write_page_files(staging, page, output, markdown_path=markdown_beside(
                    relative) if settings.write_markdown else None)
            if settings.llms is not None:
                markdowns = {page.source_path: page.markdown for page in pages}
                write_agent_outputs(
                    staging, [ListedPage(page.source_path, page.url, page.agent, in_site=True)
                              for page in pages], outline, settings.llms,
                    markdown_of=markdowns.__getitem__, site_url=settings.site_url,
                    encoding=settings.options.encoding, log=log)
            drop = settings.duplicates == "drop"
            write_records(staging, {name: _marked(pages, name, marks, drop=drop)
                                    for name in check_formats(settings.output.formats)},
                          output=settings.index, pagefind_output=settings.pagefind.folder,
                          page_kinds=settings.page_kinds)
    except OSError as error:
        raise MdChunkError(f"cannot write the site's outputs in {folder}: {error}") from error
    return folder


def _marked(pages: Sequence[PageOutput], name: str, marks: Mapping[str, Duplicate], *,
            drop: bool) -> Iterator[bytes]:
    """The records of format `name` of the pages, a block each (`write_records`), with the
    duplicate marks, as the finish of `mdchunk site` writes them."""
    for page in pages:
        ids = [chunk[0] for chunk in page.prints]
        yield records_block(marked_records(name, page.records[name], ids, marks, drop=drop))


def records_table(rows: Mapping[str, Sequence[str]]) -> pyarrow.Table:
    """The rows (columns of strings of the same length) as an Arrow table of string columns,
    which holds its columns' type when it has no rows."""
    import pyarrow

    return pyarrow.table({column: pyarrow.array(values, pyarrow.string())
                          for column, values in rows.items()})


def write_records_file(folder: Path, name: str, rows: Mapping[str, Sequence[str]],
                       records_format: str) -> Path:
    """Write a site's rows (columns of the same length) into `folder`/`name`.parquet or
    `.jsonl`, atomically (a site's file is replaced whole, never half-written or written
    twice).

    Raises:
        MdChunkError: a file that cannot be written, naming it.
    """
    path = folder / f"{name}.{records_format}"
    try:
        if records_format == "parquet":
            import pyarrow.parquet

            table = records_table(rows)
            atomic_write(path, lambda handle: pyarrow.parquet.write_table(table, handle),
                         durable=False)
        else:
            columns = list(rows)
            count = len(rows[columns[0]]) if columns else 0
            write_jsonl(path, (dumps({column: rows[column][at] for column in columns})
                               for at in range(count)))
    except OSError as error:
        raise MdChunkError(f"cannot write the records of {name} to {path}: {error}") from error
    return path
