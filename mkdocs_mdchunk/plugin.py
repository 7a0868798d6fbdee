"""The MkDocs plugin: MkDocs' events handed to mdchunk's build session (`IndexBuilder`).

Hooks:
    on_config: check the options; make the build session (kept across `mkdocs serve` rebuilds
        while the options stay the same), after mkdocs-static-i18n chose the build's language.
    on_nav: note the site's pages MkDocs will render, in its order (the order of the index),
        with their size, and the navigation, which llms.txt follows.
    on_page_content: hand each page's final body HTML to the session (late, after other
        plugins changed it), or tell it the page is left out.
    on_post_page: put what the session adds to each page's HTML in it (the directive for
        agents) before MkDocs writes it.
    on_post_build: keep the pages MkDocs did not render (`--dirty`), then write the index.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Literal

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, PrefixedLogger, event_priority
from mkdocs.structure import StructureItem
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from mdchunk.chunking import PageInput
from mdchunk.errors import MdChunkError, TokenizerError
from mdchunk.outputs.outline import NavItem, SiteLanguage, SiteOutline
from mdchunk.outputs.twins import markdown_beside
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.config import SiteFacts
from mkdocs_mdchunk.i18n import LanguageBuild, file_language, language_build
from mkdocs_mdchunk.plugin_config import MdChunkConfig

log = PrefixedLogger("mdchunk", logging.getLogger("mkdocs.plugins.mdchunk"))


class MdChunkPlugin(BasePlugin[MdChunkConfig]):
    """Chunks every rendered page and writes a RAG-ready chunk index next to the site."""

    def __init__(self) -> None:
        self.builder: IndexBuilder | None = None
        self.serving = False
        self.files: dict[str, File] = {}  # the site's pages by source, in MkDocs' order
        self.rendered: set[str] = set()  # the pages MkDocs rendered in this build
        self.nav: Navigation | None = None
        self.language = LanguageBuild("")  # the language of an i18n site this build renders

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        """Keep one build session across `mkdocs serve` rebuilds."""
        self.serving = command == "serve"

    @event_priority(-110)
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        """Check the options and make the build session before any page is built: after the
        other plugins' changes to the config (mkdocs-static-i18n's language, at -100); a
        language of an i18n site other than its default is a site of its own in its folder."""
        if not self.config["enabled"]:
            self._close()
            return config
        self.language = language_build(config) or LanguageBuild(_site_language(config) or "")
        settings = self.config.settings(SiteFacts(
            site_url=config.site_url or "",
            site_name=config.site_name or "", language=self.language.language or None,
            language_folder=self.language.folder, serving=self.serving))
        base = Path(config.config_file_path).parent if config.config_file_path else Path.cwd()
        cache = base.absolute() / self.config["cache_dir"] if self.config["cache"] else None
        site = Path(config.site_dir) / self.language.folder
        if self.builder is None or not self.builder.fits(settings, site_dir=site, cache=cache):
            self._close()
            try:
                self.builder = IndexBuilder(settings, site_dir=site, cache=cache, log=log)
            except MdChunkError as error:
                raise PluginError(f"mdchunk: {error}") from error
        return config

    @event_priority(-100)
    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> None:
        """Note the site's pages and its navigation (MkDocs makes one from the files when there
        is no nav), which llms.txt follows, after other plugins changed them; tell the build
        session how much it will chunk (it decides from that whether a worker pays for itself).

        The pages are those MkDocs renders: it picks them right after this event, by each
        file's inclusion level, which plugins may change until then (Material's blog marks its
        posts and generated views excluded in `on_files` and includes them again here)."""
        self.files = {file.src_uri: file for file in files.documentation_pages()}
        self.rendered = set()
        self.nav = nav
        if self.builder is not None:
            self.builder.expect(sum(_source_size(file) for file in self.files.values()))

    @event_priority(-100)
    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str | None:
        """Hand the page's final body HTML (after every other plugin changed it) to the build."""
        if self.builder is None:
            return html
        page_input = PageInput(html=html, source_path=page.file.src_uri,
                               url=self.language.within(page.url),
                               title=page.title or "", meta=page.meta or {},
                               language=file_language(page.file))
        self.rendered.add(page.file.src_uri)
        try:
            self.builder.add_page(page_input, markdown_path=self._markdown_path(page.file),
                                  fingerprint=_source_digest(page.file),
                                  draft=page.file.inclusion.is_excluded())
        except TokenizerError as error:
            raise PluginError(f"mdchunk option 'encoding': {error}") from error
        except MdChunkError as error:
            raise PluginError(f"mdchunk: {error}") from error
        return html

    @event_priority(-100)
    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str | None:
        """The page's HTML with what the build session puts in it, so that MkDocs writes it
        once."""
        if self.builder is None:
            return output
        return self.builder.page_html(page.file.src_uri, output)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Keep the pages MkDocs did not render, then write the chunk index (atomically)."""
        builder = self.builder
        if builder is None:
            return
        try:
            for source, file in self.files.items():
                if source not in self.rendered:
                    builder.keep_page(source, fingerprint=_source_digest(file),
                                      markdown_path=self._markdown_path(file))
            summary = builder.finish(list(self.files), _outline(
                config, self.nav, self.files.values(), self.language.others),
                keep_workers=self.serving)
        except TokenizerError as error:
            raise PluginError(f"mdchunk option 'encoding': {error}") from error
        except MdChunkError as error:
            raise PluginError(f"mdchunk: {error}") from error
        if summary.lacking:
            log.warning("%s", summary.lacking_warning("MkDocs"))
        for line in summary.lines():
            log.info("%s", line)

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build: drop what the session was doing for it."""
        if self.builder is not None:
            self.builder.abandon()

    def on_shutdown(self) -> None:
        """Stop the worker processes when `mkdocs serve` (or a build) ends."""
        self._close()

    def _markdown_path(self, file: File) -> str:
        """Where the page's Markdown is written in the build's site folder: beside its HTML."""
        return markdown_beside(self.language.within(file.dest_uri))

    def _close(self) -> None:
        if self.builder is not None:
            self.builder.close()
            self.builder = None


def _site_language(config: MkDocsConfig) -> str | None:
    """The site's natural language: the theme's `language` (Material) or `locale`."""
    theme = config.theme
    language = theme.get("language") or getattr(theme, "locale", None)
    return str(language) if language else None


def _outline(config: MkDocsConfig, nav: Navigation | None, files: Iterable[File],
             languages: tuple[SiteLanguage, ...] = ()) -> SiteOutline:
    """The site's name, description, navigation and other languages, for llms.txt."""
    items = tuple(_nav_items(nav.items, _attached(nav, files))) if nav is not None else ()
    return SiteOutline(config.site_name, config.site_description or "", items,
                       languages=languages)


def _nav_items(items: Sequence[StructureItem], attached: Mapping[int, list[Page]]
               ) -> Iterator[NavItem]:
    """MkDocs' navigation as the core's: pages and sections (links lead out of the site), each
    with the pages `attached` to it after its own entries."""
    for item in items:
        under = tuple(_nav_items(attached.get(id(item), []), attached))
        if isinstance(item, Page):
            yield NavItem(item.title, item.file.src_uri, under)
        elif isinstance(item, Section):
            yield NavItem(item.title, None, tuple(_nav_items(item.children, attached)) + under)


def _attached(nav: Navigation, files: Iterable[File]) -> dict[int, list[Page]]:
    """The pages outside the navigation that a plugin placed under an entry of it (their
    `parent`), by the entry's identity: Material's blog gives each post the blog's page as its
    parent, and each further page of a paginated view the view's section."""
    in_nav = {id(page) for page in nav.pages}
    attached: dict[int, list[Page]] = {}
    for file in files:
        page = file.page
        if page is not None and page.parent is not None and id(page) not in in_nav:
            attached.setdefault(id(page.parent), []).append(page)
    return attached


def _source_size(file: File) -> int:
    """Bytes of the page's source, from the file system where it is a file (no read), else
    of the content a plugin gave it (0 when neither can be had)."""
    try:
        return os.path.getsize(file.abs_src_path) if file.abs_src_path else len(
            file.content_bytes)
    except OSError:
        return 0


def _source_digest(file: File) -> str | None:
    """The sha256 of the page's source (None when it cannot be read)."""
    try:
        return hashlib.sha256(_source_bytes(file)).hexdigest()
    except OSError:
        return None


def _source_bytes(file: File) -> bytes:
    """The page's source: its file where it has one (every MkDocs), else the content a plugin
    gave it (`content_bytes`, which MkDocs 1.6 added; it clears `abs_src_path` when set)."""
    if file.abs_src_path:
        return Path(file.abs_src_path).read_bytes()
    return file.content_bytes
