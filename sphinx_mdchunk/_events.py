"""Sphinx events -> core calls: each written page becomes a shard, the shards become the index.

`html-page-context` runs in worker processes under `sphinx-build -j N`, so each page's chunks
are written to a per-document shard (in the doctree folder, which persists across incremental
builds); `build-finished` runs in the main process and merges the shards of every current
document into the index. Documents Sphinx did not rewrite keep their shard from the last build;
deleted documents lose theirs. A shard holds the page's records already encoded
(`mdchunk.outputs.pages`), so the merge only joins them. With `-v -v` (debug) the extension logs
the time each stage took.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError
from sphinx.util import logging

from mdchunk.chunking import Chunker, PageInput
from mdchunk.errors import MdChunkError
from mdchunk.exclusion import metadata_exclusion, pattern_exclusion
from mdchunk.outputs.inspector import write_inspector
from mdchunk.outputs.pages import (
    OutputSettings,
    PageOutput,
    index_summary,
    page_output,
    write_outputs,
)
from mdchunk.outputs.writers import dumps, write_text
from mdchunk.profiles import check_formats
from mdchunk.timing import StageTimer, add_timings, describe_timings
from mdchunk.tokens import token_counter, tokenizer_choice
from sphinx_mdchunk._config import chunk_options

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.config import Config

logger = logging.getLogger(__name__)

_BUILDERS = ("html", "dirhtml")
_SHARD_FOLDER = "mdchunk-shards"


class MdChunkBuild:
    """The extension's state for one Sphinx application (no module globals)."""

    def __init__(self) -> None:
        self.chunker: Chunker | None = None
        self.output = OutputSettings()
        self.fingerprint = ""
        self.build = ""  # tells the shards written by this build from older ones

    def config_inited(self, app: Sphinx, config: Config) -> None:
        """Check every `mdchunk_*` value before anything is read."""
        if config.mdchunk_enabled:
            chunk_options(config)
            try:
                tokenizer_choice()
            except MdChunkError as error:
                raise ExtensionError(f"mdchunk: {error}") from error

    def builder_inited(self, app: Sphinx) -> None:
        """Load the tokenizer for HTML builders; say once that other builders write nothing."""
        self.chunker = None
        if not app.config.mdchunk_enabled:
            return
        if app.builder.name not in _BUILDERS:
            logger.info(
                "mdchunk: the %r builder is not html or dirhtml; no chunk index is written",
                app.builder.name,
            )
            return
        options = chunk_options(app.config)
        try:
            counter = token_counter(options.encoding)
        except MdChunkError as error:
            raise ExtensionError(f"mdchunk_encoding = {options.encoding!r}: {error}") from error
        site_url = app.config.html_baseurl or ""
        self.chunker = Chunker(options, counter=counter, site_url=site_url)
        self.output = OutputSettings(formats=tuple(check_formats(app.config.mdchunk_formats)),
                                     language=app.config.language,
                                     inspector=bool(app.config.mdchunk_inspector))
        settings = {**options.as_dict(), "site_url": site_url,
                    "formats": sorted(app.config.mdchunk_formats),
                    "inspector": app.config.mdchunk_inspector,
                    "language": app.config.language}
        self.fingerprint = hashlib.sha256(
            json.dumps(settings, sort_keys=True).encode()
        ).hexdigest()[:16]
        self.build = os.urandom(8).hex()

    def html_page_context(self, app: Sphinx, pagename: str, templatename: str,
                          context: dict[str, Any], doctree: nodes.document | None) -> None:
        """Chunk one written document and store its shard (in a worker under -j N)."""
        if self.chunker is None or doctree is None or "body" not in context:
            return
        shard = _shard_path(app, pagename)
        source = _source_path(app, pagename)
        meta = _metadata(app.env.metadata.get(pagename, {}))
        reason = metadata_exclusion(meta) or pattern_exclusion([source, pagename],
                                                               app.config.mdchunk_exclude)
        if reason:
            logger.debug("mdchunk: %s left out of the chunk index (%s)", pagename, reason)
            shard.unlink(missing_ok=True)
            return
        title_node = app.env.titles.get(pagename)
        page = PageInput(
            html=context["body"],
            source_path=source,
            url=app.builder.get_target_uri(pagename),
            title=title_node.astext() if title_node is not None else pagename,
            meta=meta,
        )
        try:
            result = self.chunker.chunk_page(page)
            output = page_output(result, self.output, self.chunker.timer)
        except Exception as error:  # noqa: BLE001 - one bad page must not stop the build
            logger.warning("mdchunk: cannot be chunked, left out of the index: %s", error,
                           location=pagename, type="mdchunk", subtype="page")
            shard.unlink(missing_ok=True)
            return
        for warning in result.warnings:
            logger.warning("mdchunk: %s", warning, location=pagename, type="mdchunk",
                           subtype="anchor")
        writing = StageTimer()
        with writing.stage("write"):
            if app.config.mdchunk_write_markdown:
                html_file = Path(app.builder.get_outfilename(pagename))
                write_text(html_file.with_suffix(".md"), result.markdown, durable=False)
            # The page Markdown is in its .md file: the shard does not hold it twice.
            output = dataclasses.replace(
                output, markdown="", timings={**output.timings, "write": writing.seconds["write"]})
            write_text(shard, dumps({"fingerprint": self.fingerprint, "build": self.build,
                                     "page": output.as_json()}))

    def build_finished(self, app: Sphinx, exception: Exception | None) -> None:
        """Merge the shards of every current document into the index (main process)."""
        if self.chunker is None or exception is not None:
            return
        folder = Path(app.doctreedir) / _SHARD_FOLDER
        documents = sorted(app.env.found_docs)
        current = {_shard_path(app, name) for name in documents}
        for stale in folder.rglob("*.json") if folder.is_dir() else ():
            if stale not in current:  # the document was deleted
                stale.unlink()
        merging = StageTimer()
        pages: list[PageOutput] = []
        fresh: list[PageOutput] = []  # the pages chunked in this build
        shards: dict[str, Path] = {}  # source path -> shard of the pages kept
        with merging.stage("write"):
            for name in documents:
                shard = _shard_path(app, name)
                if not shard.is_file():
                    continue
                payload = json.loads(shard.read_text(encoding="utf-8"))
                if payload.get("fingerprint") != self.fingerprint:
                    logger.warning("mdchunk: chunked with other options; rebuild with -E",
                                   location=name, type="mdchunk", subtype="shard")
                    continue
                # Only the page's counts stay in memory; its records are read again from the
                # shard while the index is written (see `write_outputs`).
                pages.append(PageOutput.from_json(payload["page"]).without_content())
                shards[pages[-1].source_path] = shard
                if payload.get("build") == self.build:
                    fresh.append(pages[-1])

            def content(page: PageOutput) -> PageOutput:
                payload = json.loads(shards[page.source_path].read_text(encoding="utf-8"))
                return PageOutput.from_json(payload["page"])

            index = Path(app.outdir) / app.config.mdchunk_output
            try:
                written = write_outputs(Path(app.outdir), pages, self.output.formats,
                                        output=app.config.mdchunk_output, content=content)
            except (OSError, MdChunkError) as error:
                message = f"mdchunk: cannot write the chunk index {index}: {error}"
                raise ExtensionError(message) from error
        logger.info("mdchunk: %s", index_summary(pages, written))
        logger.debug("mdchunk: %d documents chunked (%d kept from the last build) in %s; "
                     "shards merged and the index written in %s", len(fresh),
                     len(pages) - len(fresh),
                     describe_timings(add_timings(page.timings for page in fresh)),
                     describe_timings(merging.seconds))
        if app.config.mdchunk_inspector:
            inspected = [data for data in (content(page).inspector for page in pages) if data]
            page = write_inspector(Path(app.outdir), inspected,
                                   max_tokens=self.chunker.options.max_tokens)
            logger.info("mdchunk: chunk inspector: %s", page)


def _shard_path(app: Sphinx, pagename: str) -> Path:
    return Path(app.doctreedir) / _SHARD_FOLDER / f"{pagename}.json"


def _source_path(app: Sphinx, pagename: str) -> str:
    """The document's source path relative to the source folder (`guide/install.rst`)."""
    path = Path(app.env.doc2path(pagename))
    try:
        return path.relative_to(app.srcdir).as_posix()
    except ValueError:
        return f"{pagename}{path.suffix}"


#: What MyST adds to a document's metadata besides its front matter: every heading's slug (a
#: large table, which would be copied into every chunk) and a computed word count.
_ENGINE_METADATA = frozenset({"myst_slugs", "wordcount"})


def _metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The document's own metadata (docinfo, front matter), without what MyST computes; MyST
    stores front matter lists and tables as JSON text, which is decoded."""
    plain = {key: value for key, value in metadata.items() if key not in _ENGINE_METADATA}
    for key, value in plain.items():
        if isinstance(value, str) and value[:1] in {"[", "{"}:
            with contextlib.suppress(ValueError):
                plain[key] = json.loads(value)
    return plain
