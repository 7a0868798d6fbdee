"""Chunking one page for a build: the one function, wherever it runs.

A build chunks a page in its own process or in a worker process (`mdchunk.session.workers`);
both only call `PageJob.run`, which chunks the page with the build's options and counter, makes
what it contributes to every output (`mdchunk.outputs.pages.page_output`) and keeps it in the
page cache, so that the process that writes the index holds only its counts.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from mdchunk.chunking.model import PageInput
from mdchunk.chunking.tokens import counter_name, token_counter
from mdchunk.options import ChunkOptions
from mdchunk.session.cache import PageCache
from mdchunk.settings import OutputSettings

if TYPE_CHECKING:
    from mdchunk.chunking.chunker import Chunker
    from mdchunk.outputs.pages import PageOutput


@dataclasses.dataclass(frozen=True, slots=True)
class JobSettings:
    """Everything a process needs to chunk pages as every other process of the build does."""

    options: ChunkOptions
    processed_at: str
    """The build's time, in every record (`mdchunk.chunking.build_time`)."""
    output: OutputSettings
    """What to make of each page (`BuildSettings.page_settings`)."""
    cache: Path
    """The page cache's folder."""
    fingerprint: str
    """The settings the cache's entries are named with (`BuildSettings.fingerprint`)."""
    tokenizer: str | None = None
    site_dir: Path | None = None
    """Where each page's own files are written as it is chunked (`write_page_files`; None:
    they are not)."""
    version: str | None = None
    """The version of the docs (`BuildSettings.version`)."""


class PageJob:
    """Chunks pages with one `Chunker` (made, with its token counter, at the first page) and
    keeps each in `cache`."""

    def __init__(self, settings: JobSettings, cache: PageCache) -> None:
        self.settings = settings
        self.cache = cache
        self._chunker: Chunker | None = None

    @property
    def chunker(self) -> Chunker:
        """The chunker, loaded (its token counter too) when first asked for.

        Raises:
            TokenizerError: when the counter cannot be loaded, with the fix.
        """
        if self._chunker is None:
            settings = self.settings
            self._chunker = new_chunker(settings.options, settings.output,
                                        processed_at=settings.processed_at,
                                        tokenizer=settings.tokenizer, version=settings.version)
        return self._chunker

    @property
    def loaded(self) -> bool:
        """Whether a page was chunked (or the counter loaded) by this job."""
        return self._chunker is not None

    def load(self) -> str:
        """Load the chunker and its token counter; return the counter's name.

        Raises:
            TokenizerError: when the counter cannot be loaded, with the fix.
        """
        self.chunker  # noqa: B018 - loads it, or raises why it cannot be
        return counter_name(self.settings.options.encoding, tokenizer=self.settings.tokenizer)

    def run(self, page: PageInput, key: str, site_url: str, *,
            markdown_path: str | None = None) -> PageOutput:
        """Chunk `page` (whose url is under `site_url`), write its own files into the site
        (its Markdown at `markdown_path`, None: not written; its twin), and keep it in the
        cache under `key`; return its counts (`PageOutput.without_content`), or the whole page
        where the cache cannot keep it."""
        from mdchunk.outputs.pages import write_page_files

        settings = self.settings
        output = chunked_page(self.chunker, page, settings.output, site_url=site_url)
        kept = self.kept(key, output)
        if settings.site_dir is None:
            return kept
        write_page_files(settings.site_dir, output, settings.output, markdown_path=markdown_path)
        return dataclasses.replace(kept, in_site=True)

    def kept(self, key: str, output: PageOutput) -> PageOutput:
        """`output` kept in the cache under `key` (unless it is already), as a build then holds
        it: its counts; the whole page where the cache cannot keep it."""
        if not output.stored and not self.cache.known(key):
            self.cache.put(key, output)
        return output.without_content() if self.cache.known(key) else output


def new_chunker(options: ChunkOptions, output: OutputSettings, *, processed_at: str,
                tokenizer: str | None = None, version: str | None = None,
                site_prefix: str | None = None) -> Chunker:
    """The chunker of a build with these settings (`JobSettings`), its token counter loaded;
    `site_prefix` prefixes its doc names (`DescribeSettings.site_prefix`).

    Raises:
        TokenizerError: when the counter cannot be loaded, with the fix.
    """
    # Imported here: a build whose pages all go to workers never loads the chunking.
    from mdchunk.chunking.chunker import Chunker

    return Chunker(options, processed_at=processed_at, language=output.language,
                   language_folder=output.language_folder,
                   counter=token_counter(options.encoding, tokenizer=tokenizer),
                   docs_version=version, site_prefix=site_prefix)


def chunked_page(chunker: Chunker, page: PageInput, output: OutputSettings, *,
                 site_url: str) -> PageOutput:
    """Chunk `page` (whose url is under `site_url`) and make what it contributes to every
    output `output` selects: the one function that turns a page into its records, wherever
    a build runs it (this process, a worker process, a Ray task)."""
    from mdchunk.outputs.page_output import page_output

    chunker.site_url = site_url
    return page_output(chunker.chunk_page(page), output, count=chunker.count, site_url=site_url)
