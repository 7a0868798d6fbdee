"""The own files of the pages a build did not chunk: their Markdown and their twins, written
from the page cache.

A page chunked in this build has its files written where it was chunked
(`mdchunk.outputs.pages.write_page_files`, in the worker or inline). A page found in the page
cache (an unchanged page, a page `mkdocs build --dirty` did not render) has them written from
its cache entry by the same function, when the build holds it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.pages import write_page_files
from mdchunk.session.cache import PageCache
from mdchunk.session.index_pages import IndexedPage
from mdchunk.settings import BuildSettings


class PageFiles:
    """Writes the own files of pages held from the cache."""

    def __init__(self, settings: BuildSettings, site_dir: Path, cache: PageCache) -> None:
        self.settings = settings
        self.site_dir = site_dir
        self.cache = cache

    @property
    def wanted(self) -> bool:
        """Whether the build writes pages' own files (their Markdown, or their twins)."""
        return self.settings.write_markdown or self.settings.llms is not None

    def write(self, source: str, page: IndexedPage, *, markdown: str | None = None
              ) -> IndexedPage:
        """Write the files of `page` (its Markdown unless the page was kept without being
        rendered and its file is there, written by the build that rendered it), from
        `markdown` where it was read already, else from its cache entry; return the page,
        which says its files are in the site (`PageOutput.in_site`).

        Raises:
            MdChunkError: naming the page whose files, or whose cache entry, failed.
        """
        markdown_path = page.markdown_path if self.settings.write_markdown and (
            not page.kept or not (self.site_dir / page.markdown_path).is_file()) else None
        output = page.output
        try:
            if output.stored:
                output = dataclasses.replace(output, markdown=self.cache.markdown(page.key)
                                             if markdown is None else markdown)
            write_page_files(self.site_dir, output, self.settings.page_settings(),
                             markdown_path=markdown_path)
        except (OSError, ValueError) as error:
            raise MdChunkError(f"cannot write the Markdown of {source} (from its page cache "
                               f"entry {self.cache.path(page.key)}): {error}") from error
        return dataclasses.replace(page, output=dataclasses.replace(output, markdown="",
                                                                    in_site=True))
