"""Sphinx events handed to mdchunk's build session (`IndexBuilder`).

`html-page-context` runs in worker processes under `sphinx-build -j N`: each page is chunked
there and kept in the page cache (in the doctree folder, which persists across incremental
builds). `build-finished` runs in the main process: it keeps every current document from the
cache (those Sphinx did not rewrite, and those its workers wrote) and writes the index.
"""

from __future__ import annotations

import contextlib
import json
import logging as logging_lib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from docutils import nodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.errors import ExtensionError
from sphinx.util import logging

from mdchunk.chunking import PageInput
from mdchunk.errors import MdChunkError, TokenizerError
from mdchunk.outputs.outline import language_folder_name
from mdchunk.outputs.twins import markdown_beside
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.config import SiteFacts
from sphinx_mdchunk._config import settings, unknown_names
from sphinx_mdchunk._outline import site_outline

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

_BUILDERS = ("html", "dirhtml")


class MdChunkBuild:
    """The extension's state for one Sphinx application (no module globals)."""

    def __init__(self) -> None:
        self.builder: IndexBuilder | None = None
        self.documents: dict[str, str] = {}  # source path -> document name (for locations)

    def config_inited(self, app: Sphinx, config: Config) -> None:
        """Check every `mdchunk_*` value before anything is read: a name mdchunk does not know
        is a warning (fatal under -W) with a suggestion; a bad value stops the build with one
        line that names it (Sphinx's crash report would bury it under a traceback)."""
        for message in unknown_names(config, Path(app.confdir)):
            logger.warning("mdchunk: %s", message, type="mdchunk", subtype="config")
        if not config.mdchunk_enabled:
            return
        try:
            settings(config, SiteFacts())
        except ExtensionError as error:
            _stop(error)

    def builder_inited(self, app: Sphinx) -> None:
        """Make the build session for HTML builders; say once that others write nothing."""
        self.builder = None
        if not app.config.mdchunk_enabled:
            return
        if app.builder.name not in _BUILDERS:
            logger.info("mdchunk: the %r builder is not html or dirhtml; no chunk index is "
                        "written", app.builder.name)
            return
        build = settings(app.config, SiteFacts(
            site_url=app.config.html_baseurl or "", site_name=str(app.config.project or ""),
            language=app.config.language,
            language_folder=language_folder_name(Path(app.outdir), app.config.language)),
            parallel=app.parallel > 1)
        try:
            self.builder = IndexBuilder(build, site_dir=Path(app.outdir),
                                        cache=Path(app.doctreedir) / "mdchunk-store",
                                        report=self._report, log=_Prefixed(logger))
        except MdChunkError as error:
            _stop(error)

    def before_read_docs(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]
                         ) -> None:
        """Say how much the build will render: the sources of the documents it reads (which
        it writes), so a large build hands its first page to a worker already."""
        if self.builder is not None:
            paths = [Path(env.doc2path(name)) for name in docnames]
            self.builder.expect(sum(path.stat().st_size for path in paths if path.is_file()))

    def html_page_context(self, app: Sphinx, pagename: str, templatename: str,
                          context: dict[str, Any], doctree: nodes.document | None) -> None:
        """Hand one written document to the build session (in a worker under -j N)."""
        if self.builder is None or doctree is None or "body" not in context:
            return
        source = _source_path(app, pagename)
        self.documents[source] = pagename
        page = PageInput(html=context["body"], source_path=source,
                         url=app.builder.get_target_uri(pagename),
                         title=_title(app, pagename, doctree),
                         meta=_metadata(app.env.metadata.get(pagename, {})))
        assert isinstance(app.builder, StandaloneHTMLBuilder)  # (html and dirhtml only)
        html_file = Path(app.builder.get_outfilename(pagename)).relative_to(app.outdir)
        try:
            self.builder.add_page(page, markdown_path=markdown_beside(html_file.as_posix()),
                                  paths=[source, pagename])
        except TokenizerError as error:
            raise ExtensionError(f"mdchunk_encoding: {error}") from error
        except MdChunkError as error:
            raise ExtensionError(f"mdchunk: {error}") from error

    def build_finished(self, app: Sphinx, exception: Exception | None) -> None:
        """Keep every current document from the cache and write the index (main process)."""
        builder = self.builder
        if builder is None:
            return
        try:
            if exception is None:
                self._write_index(app, builder)
        finally:
            builder.close()  # stops its worker process

    def _write_index(self, app: Sphinx, builder: IndexBuilder) -> None:
        found = {_source_path(app, name): name for name in sorted(app.env.found_docs)}
        self.documents.update(found)
        try:
            for source, name in found.items():  # written by a worker (it warned), or not at all
                builder.keep_page(source, paths=[source, name], report=False)
            summary = builder.finish(list(found), site_outline(app, lambda name: _source_path(
                app, name)))
        except MdChunkError as error:
            raise ExtensionError(f"mdchunk: {error}") from error
        for source in summary.lacking:
            logger.warning("mdchunk: not found in the page cache; rebuild with -E",
                           location=self.documents[source], type="mdchunk", subtype="store")
        for line in summary.lines():
            logger.info("mdchunk: %s", line)

    def _report(self, source: str, message: str) -> None:
        subtype = "page" if message.startswith("cannot be chunked") else "anchor"
        logger.warning("mdchunk: %s", message, location=self.documents.get(source, source),
                       type="mdchunk", subtype=subtype)


def _stop(error: Exception) -> NoReturn:
    """Stop the build with one line that says why (Sphinx's crash report would bury it under a
    traceback)."""
    logger.error("mdchunk: %s", str(error).removeprefix("mdchunk: "))
    raise SystemExit(2) from None


class _Prefixed(logging_lib.LoggerAdapter):  # type: ignore[type-arg]
    """The session's own messages in Sphinx's log, prefixed `mdchunk: `; its warnings are of
    type `mdchunk.store` (for `suppress_warnings`)."""

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        kwargs.setdefault("type", "mdchunk")
        kwargs.setdefault("subtype", "store")
        return f"mdchunk: {msg}", kwargs


def _title(app: Sphinx, pagename: str, doctree: nodes.document) -> str:
    """The document's title: its first section's, as Sphinx has it; "" for a document without
    a section (Sphinx's `<no title>` stands in for none), which no heading titles."""
    title = app.env.titles.get(pagename)
    if title is None or next(iter(doctree.findall(nodes.section)), None) is None:
        return ""
    return title.astext()


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
