"""The own files of the pages a build did not chunk: their Markdown and their twins, given from
the last build's or written from the page cache.

A page chunked in this build has its files written where it was chunked
(`mdchunk.outputs.pages.write_page_files`, in the worker or inline); the build keeps them beside
the page cache (`mdchunk.session.kept_files`). A page found in the page cache (an unchanged page,
a page `mkdocs build --dirty` did not render) gets the files kept for its entry, when they are
there as they were written, else has them written from its entry by the same function.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mdchunk.errors import MdChunkError
from mdchunk.outputs.pages import write_page_files
from mdchunk.outputs.twins import twin_path
from mdchunk.session.cache import PageCache
from mdchunk.session.index_pages import IndexedPage
from mdchunk.session.kept_files import page_files
from mdchunk.settings import BuildSettings

_MARKDOWN, _TWIN = ".md", ".twin.md"
"""How a kept file's name ends after its entry's name: the page Markdown, the twin."""


class PageFiles:
    """Writes the own files of pages held from the cache, and keeps every page's."""

    def __init__(self, settings: BuildSettings, site_dir: Path, cache: PageCache) -> None:
        self.settings = settings
        self.site_dir = site_dir
        self.cache = cache
        self._kept = page_files(cache.folder)

    @property
    def wanted(self) -> bool:
        """Whether the build writes pages' own files (their Markdown, or their twins)."""
        return self.settings.write_markdown or self.settings.llms is not None

    def kept(self, page_key: str) -> bool:
        """Whether files are kept for the page of `page_key` (then its Markdown need not be
        read to write them)."""
        entry = self.cache.entry_name(page_key)
        return all(self._kept.noted(entry + ending) for ending, wanted in (
            (_MARKDOWN, self.settings.write_markdown), (_TWIN, self.settings.llms is not None))
            if wanted)

    def write(self, source: str, page: IndexedPage, *, markdown: str | None = None
              ) -> IndexedPage:
        """Put the files of `page` in the site (its Markdown unless the page was kept without
        being rendered and its file is there, written by the build that rendered it): those
        kept for its entry, else written from `markdown` where it was read already, else from
        its cache entry; return the page, which says its files are in the site
        (`PageOutput.in_site`).

        Raises:
            MdChunkError: naming the page whose files, or whose cache entry, failed.
        """
        markdown_path = page.markdown_path if self.settings.write_markdown and (
            not page.kept or not (self.site_dir / page.markdown_path).is_file()) else None
        files = self._files(page, markdown=markdown_path is not None)
        output = page.output
        if not all(self._kept.place(name, self.site_dir / path) for name, path in files):
            try:
                if output.stored:
                    output = dataclasses.replace(output, markdown=self.cache.markdown(page.key)
                                                 if markdown is None else markdown)
                write_page_files(self.site_dir, output, self.settings.page_settings(),
                                 markdown_path=markdown_path)
            except (OSError, ValueError) as error:
                raise MdChunkError(f"cannot write the Markdown of {source} (from its page "
                                   f"cache entry {self.cache.path(page.key)}): {error}"
                                   ) from error
            self._keep(files)
        return dataclasses.replace(page, output=dataclasses.replace(output, markdown="",
                                                                    in_site=True))

    def keep(self, page: IndexedPage) -> None:
        """Keep the files of `page`, which were written where it was chunked, for the next
        build that holds it."""
        self._keep(self._files(page, markdown=self.settings.write_markdown))

    def save(self, *, pruned: bool) -> None:
        """Note the files kept in this build; `pruned`: the cache removed entries, whose files
        go too."""
        if pruned:
            self._kept.forget(lambda name: not self.cache.holds_entry(name.partition(".")[0]))
        self._kept.save()

    def _files(self, page: IndexedPage, *, markdown: bool) -> list[tuple[str, str]]:
        """The page's own files this build writes: the name each is kept by, and its path in
        the site folder."""
        entry = self.cache.entry_name(page.key)
        files = [(entry + _MARKDOWN, page.markdown_path)] if markdown else []
        if self.settings.llms is not None and page.output.agent is not None:
            files.append((entry + _TWIN, twin_path(page.output.url)))
        return files

    def _keep(self, files: list[tuple[str, str]]) -> None:
        for name, path in files:
            self._kept.keep(name, self.site_dir / path)
