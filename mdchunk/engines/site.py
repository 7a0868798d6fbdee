"""Chunking an already built site: every engine's HTML, read after the build.

This is the path for engines that run no Python plugins (Zensical, MkDocs 2) and for any site
built elsewhere: `mdchunk site SITE_DIR`. Each page's main content is found with a selector that
knows the common themes (or one the user gives), and goes through the same core as in the
plugins, so the chunks, anchors and breadcrumbs are the plugin's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import lxml.etree
import lxml.html
from cssselect import ExpressionError, SelectorError
from lxml.cssselect import CSSSelector

from mdchunk.chunking import PageInput
from mdchunk.chunking.html.text import title_text
from mdchunk.engines.site_languages import html_language, in_language, language_builds
from mdchunk.engines.site_nav import PageNav, SiteNav, site_name
from mdchunk.engines.sources import split_front_matter
from mdchunk.errors import MdChunkError, OptionError, PageError
from mdchunk.outputs.outline import SiteOutline, folder_outline
from mdchunk.outputs.pages import PageOutput
from mdchunk.outputs.twins import markdown_beside
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.exclusion import metadata_exclusion
from mdchunk.settings import BuildSettings

log = logging.getLogger(__name__)

#: Where the page content is, theme by theme; the first that matches wins.
THEME_SELECTORS: tuple[tuple[str, str], ...] = (
    ("sphinx_rtd_theme, mkdocs readthedocs", "[itemprop=articleBody]"),
    ("material, zensical", "article.md-content__inner"),
    ("pydata-sphinx-theme, sphinx-book-theme", "article.bd-article"),
    ("furo", "article[role=main]"),
    ("sphinx basic, alabaster", "div.body[role=main]"),
    ("mkdocs default theme", "div[role=main]"),
    ("any", "main"),
    ("any", "article"),
)
#: Pages that are no documentation (error pages, search, generated indexes), by name with
#: `.html` or `/index.html` removed, and folders that hold none (sources, assets).
SKIPPED_PAGES = ("404", "search", "genindex", "*-modindex", "modindex")
SKIPPED_FOLDERS = ("_modules", "_sources", "_static", "_images", "assets", "_mdchunk")
_CHROME = CSSSelector(".md-content__button, .md-source-file, nav, .headerlink-container, "
                      "a.md-content__button, .md-feedback, .rst-footer-buttons, .prev-next-area")
_TITLE_SEPARATORS = re.compile(r"\s+(?:-|\u2014|\u2013|\|)\s+")  # - em dash, en dash, |
_DOCINFO_FIELD = re.compile(r"^:([\w-]+):\s*(.*)$")


@dataclasses.dataclass(frozen=True, slots=True)
class SiteSummary:
    """What `chunk_site` did."""

    pages: tuple[PageOutput, ...]
    """The pages in the index (their counts and warnings), in path order."""
    written: Mapping[str, Path]
    """The file written for each format."""
    skipped: tuple[str, ...]
    """Pages left out, with why (`path: reason`)."""
    warnings: tuple[str, ...]
    """Problems a user should fix (`path: message`)."""
    search_page: Path | None = None
    """The search page over the Pagefind bundle, when it was asked for."""
    languages: tuple[tuple[str, SiteSummary], ...] = ()
    """What was done to the builds of the site's other languages, each in its folder
    (`mdchunk.engines.site_languages`), by language."""
    from_cache: int = 0
    """How many of the pages were taken from the page cache (`chunk_site`'s `cache`)."""


def chunk_site(site_dir: Path, settings: BuildSettings, *, docs_dir: Path | None = None,
               content_selector: str | None = None, cache: Path | None = None) -> SiteSummary:
    """Chunk every page of a built site and write the index (and formats) into it.

    Arguments:
        site_dir: The built site.
        settings: The build's settings (`mdchunk.session.config.build_settings`); their
            `exclude` patterns match page paths relative to `site_dir`, their `site_url`, when
            "", is read from each page's canonical link, and their `workers` chunk pages beside
            this process (0: in it; the output is the same for every number). The site's
            language, when they name none, is its home page's; the subfolders that hold
            other languages' builds are chunked each as a site of its own, first.
            `llms.txt` follows the navigation the site's pages show (its folders, for a theme
            whose navigation mdchunk cannot read).
        docs_dir: The sources: pages then get their source path and front matter.
        content_selector: CSS selector of the page content, for themes mdchunk does not know.
        cache: The page cache's folder, kept across runs, so that a page whose HTML and
            settings did not change is not chunked again (None: every page is chunked); the
            builds of the other languages keep theirs in its subfolders of their names.

    Raises:
        MdChunkError: a bad selector or site folder; page problems are reported, not raised.
    """
    if not site_dir.is_dir():
        raise MdChunkError(f"{site_dir}: not a folder (build the site first)")
    selectors = _selectors(content_selector)
    if settings.output.language is None:
        settings = dataclasses.replace(settings, output=dataclasses.replace(
            settings.output, language=html_language(site_dir)))
    others = [] if settings.output.language_folder else language_builds(
        site_dir, settings.output.language)
    languages = tuple((tag, chunk_site(folder, in_language(settings, tag, folder.name),
                                       content_selector=content_selector,
                                       cache=None if cache is None else cache / folder.name))
                      for tag, folder in others)  # (first: the default's llms.txt lists them)
    html_files = [path for path in sorted(site_dir.rglob("*.html"))
                  if not any(path.is_relative_to(folder) for _, folder in others)]
    sources: dict[str, str] = {}  # source path -> the page's file, which warnings name
    warnings: list[str] = []
    builder = IndexBuilder(settings, site_dir=site_dir, cache=cache,
                           report=lambda source, message: (
                               warnings.append(f"{sources.get(source, source)}: {message}")))
    nav = SiteNav()
    try:
        skipped = _add_pages(builder, site_dir, html_files, sources, warnings, nav=nav,
                             selectors=selectors, docs_dir=docs_dir,
                             site_url=settings.site_url or None)
        if not sources and all(reason.endswith(_NOT_PAGES) for reason in skipped):
            raise MdChunkError(_no_pages_message(site_dir, html_files, skipped))
        summary = builder.finish(list(sources), site_outline(site_dir, sources, nav))
    finally:
        builder.close()
    return SiteSummary(summary.pages, summary.written, tuple(skipped), tuple(warnings),
                       summary.search_page, languages, summary.from_cache)


_NO_CONTENT = "no content element (pass --content-selector for this theme)"
_NOT_PAGES = ("not a documentation page", _NO_CONTENT)


def site_outline(site_dir: Path, pages: Mapping[str, str], nav: SiteNav) -> SiteOutline:
    """What `llms.txt` follows for the site's `pages` in the index (source path -> file in the
    site, in the site's order), whose navigation `nav` holds: the navigation the site's pages
    show (its folders where they show none mdchunk can read), its name as the theme shows it on
    the home page, or on the first page without one (else from the home page's `<title>`, the
    part after the page title, where themes put the site name) and its description from the
    home page's `<meta name="description">`."""
    home = next((source for source, relative in pages.items() if relative == "index.html"), None)
    shown = "index.html" if home is not None else next(iter(pages.values()), None)
    document = _read_page(site_dir / shown) if shown is not None else None
    name = site_name(document) if document is not None else ""
    description = ""
    if home is not None and document is not None:
        titles = document.xpath("//title/text()")
        if not name and titles:
            name = _TITLE_SEPARATORS.split(titles[0].strip())[-1]
        descriptions = document.xpath("//meta[@name='description']/@content")
        description = descriptions[0].strip() if descriptions else ""
        # (the mkdocs theme writes an unset site_description as "None")
        description = "" if description == "None" else description
    items = nav.items({relative: source for source, relative in pages.items()}, home)
    return SiteOutline(name.strip(), description, items or folder_outline(pages), home=home)


def _read_page(path: Path) -> lxml.html.HtmlElement | None:
    """The tree of a page of the site that was chunked (None where it cannot be read now)."""
    with contextlib.suppress(OSError, lxml.etree.ParserError):
        return lxml.html.fromstring(path.read_bytes())
    return None


def _no_pages_message(site_dir: Path, html_files: Sequence[Path], skipped: Sequence[str]) -> str:
    """Why nothing can be chunked in `site_dir`, and what mdchunk expected to find there."""
    found = (f"none of its {len(html_files)} HTML files holds a page's content"
             if html_files else "it holds no HTML file")
    return (f"{site_dir}: no built documentation page found ({found}). mdchunk site expects the "
            "folder a build wrote (site/ after mkdocs build, _build/html after sphinx-build), "
            "not the docs' sources; for a theme mdchunk does not know, pass "
            "--content-selector" + (f". Skipped: {'; '.join(skipped[:3])}" if skipped else ""))


def _add_pages(builder: IndexBuilder, site_dir: Path, html_files: Sequence[Path],
               sources: dict[str, str], warnings: list[str], *, nav: SiteNav,
               selectors: list[CSSSelector], docs_dir: Path | None, site_url: str | None
               ) -> list[str]:
    """Hand every documentation page of the site to the build (which leaves out those the
    settings' `exclude` patterns, matching a page's path in the site, or its front matter
    leave out; their HTML then points to `llms.txt`, as in the plugins); merge the navigation
    each shows into `nav`; return the pages skipped, with why (`path: reason`)."""
    skipped: list[tuple[str, str]] = []  # (page path, why)
    for relative, page in _site_pages(site_dir, html_files, skipped, warnings, nav,
                                      selectors=selectors, docs_dir=docs_dir, site_url=site_url):
        reason = builder.add_page(page.input, markdown_path=markdown_beside(relative),
                                  site_url=page.site_url, paths=[relative])
        if reason:
            skipped.append((relative, reason))
        else:
            sources[page.input.source_path] = relative
    order = _site_order(site_dir, html_files)
    in_order = sorted(sources.items(), key=lambda item: order[item[1]])
    sources.clear()
    sources.update(in_order)
    return [f"{relative}: {reason}" for relative, reason in sorted(
        skipped, key=lambda item: order[item[0]])]


def site_pages(site_dir: Path, *, docs_dir: Path | None = None,
               content_selector: str | None = None) -> list[PageInput]:
    """The documentation pages of a built site as the engine gave them (for `Chunker`)."""
    pages = documentation_pages(site_dir, docs_dir=docs_dir, content_selector=content_selector)
    return [page.input for page in pages if not metadata_exclusion(page.input.meta)]


@dataclasses.dataclass(frozen=True, slots=True)
class SitePage:
    """A documentation page of a built site, read as `mdchunk site` reads it."""

    relative: str
    """Its file's path in the site folder (what `exclude` patterns match)."""
    input: PageInput
    site_url: str
    """The site url its canonical link gives (or the one given), before a version's folder
    (`mdchunk.settings.build_site_url`)."""


def documentation_pages(site_dir: Path, *, docs_dir: Path | None = None,
                        content_selector: str | None = None, site_url: str | None = None,
                        warnings: list[str] | None = None, required: bool = False,
                        nav: SiteNav | None = None) -> list[SitePage]:
    """The documentation pages of a built site in the site's order, as `mdchunk site` hands
    them to its build; the pages that cannot be read are named in `warnings` (`path:
    message`), and the navigation the pages show is merged into `nav` (for `site_outline`).
    `site_url`: the site's url (None: each page's canonical link gives it).

    Raises:
        OptionError: for a `content_selector` that is no CSS selector.
        MdChunkError: when `required` and the folder holds no documentation page (the docs'
            sources given by mistake, a theme mdchunk does not know), saying what was expected.
    """
    html_files = sorted(site_dir.rglob("*.html"))
    order = _site_order(site_dir, html_files)
    skipped: list[tuple[str, str]] = []
    found = sorted(_site_pages(site_dir, html_files, skipped, [] if warnings is None
                               else warnings, SiteNav() if nav is None else nav,
                               selectors=_selectors(content_selector),
                               docs_dir=docs_dir, site_url=site_url),
                   key=lambda item: order[item[0]])
    if required and not found and all(reason.endswith(_NOT_PAGES) for _, reason in skipped):
        raise MdChunkError(_no_pages_message(site_dir, html_files, [
            f"{relative}: {reason}" for relative, reason in skipped]))
    return [SitePage(relative, page.input, page.site_url) for relative, page in found]


def _site_pages(site_dir: Path, html_files: Sequence[Path], skipped: list[tuple[str, str]],
                warnings: list[str], nav: SiteNav, *, selectors: list[CSSSelector],
                docs_dir: Path | None, site_url: str | None) -> Iterator[tuple[str, _Page]]:
    """Each documentation page of the site with its path, as soon as it is read; those
    skipped (no documentation page) are noted in `skipped`, with why, and those that cannot be
    read in `warnings`; the navigation each shows is merged into `nav`. The pages come in an
    order of their own (`_site_order` gives the site's).

    The url style comes from the documentation pages alone (those with the theme's content
    element): a stray file a build copied (a theme override, an included snippet) does not
    make a site of directory urls look like one of `.html` urls. The files other than
    `index.html` are read first, so the style is known from the first page on: one of them
    is a documentation page, or none is."""
    directory_urls: bool | None = None
    for path in sorted(html_files, key=lambda path: path.name == "index.html"):
        relative = path.relative_to(site_dir).as_posix()
        if directory_urls is None and _is_index(relative):
            directory_urls = True  # no file read before this one is a documentation page
        try:
            document = _skip_reason(relative) or _read_document(path, relative, selectors, nav)
        except PageError as error:
            warnings.append(str(error))
            continue
        if isinstance(document, str):
            skipped.append((relative, document))
            continue
        if directory_urls is None:
            directory_urls = False
        yield relative, _page(document, relative, docs_dir=docs_dir,
                              directory_urls=directory_urls, site_url=site_url)


def _site_order(site_dir: Path, html_files: Sequence[Path]) -> dict[str, int]:
    """Each file's place in the site's order, by its path relative to `site_dir`."""
    return {path.relative_to(site_dir).as_posix(): number
            for number, path in enumerate(html_files)}


def _is_index(relative: str) -> bool:
    return relative == "index.html" or relative.endswith("/index.html")


@dataclasses.dataclass(frozen=True, slots=True)
class _Page:
    input: PageInput
    site_url: str


def _selectors(content_selector: str | None) -> list[CSSSelector]:
    if content_selector is None:
        return [CSSSelector(css) for _, css in THEME_SELECTORS]
    try:
        return [CSSSelector(content_selector)]
    except (SelectorError, ExpressionError) as error:
        raise OptionError("content_selector", f"{content_selector!r} is not a CSS selector: "
                          f"{error}") from error


def _skip_reason(relative: str) -> str:
    name = "index" if relative == "index.html" else relative.removesuffix("/index.html")
    name = name.removesuffix(".html")
    if relative.split("/", 1)[0] in SKIPPED_FOLDERS or any(
        fnmatch.fnmatchcase(name, pattern) for pattern in SKIPPED_PAGES
    ):
        return "not a documentation page"
    return ""


@dataclasses.dataclass(frozen=True, slots=True)
class _Document:
    """What a documentation page's HTML says of it, before its url is known."""

    body: str
    title: str
    canonical: str
    nav: PageNav


def _read_document(path: Path, relative: str, selectors: list[CSSSelector], site_nav: SiteNav
                   ) -> _Document | str:
    """The page's content, title, canonical link and navigation (merged into `site_nav`), or
    why it is skipped."""
    try:
        document = lxml.html.fromstring(path.read_bytes())
    except (OSError, lxml.etree.ParserError) as error:
        raise PageError(relative, f"cannot be read: {error}") from error
    robots = document.xpath("//meta[@name='robots']/@content")
    if any("noindex" in value.lower() for value in robots):
        return "marked noindex"
    content = next((found[0] for selector in selectors if (found := selector(document))), None)
    if content is None:
        return _NO_CONTENT
    for chrome in _CHROME(content):
        chrome.drop_tree()
    theme_title = ""
    if "md-content__inner" in (content.get("class") or ""):
        # Material and Zensical add the page title as an <h1> (without id) to pages that
        # have none: theme chrome, not content (the core adds the title as the plugin's does).
        first = next(iter(content.xpath(".//h1")), None)
        if first is not None and not first.get("id"):
            theme_title = _heading_text(first)
            first.drop_tree()
    body = (content.text or "") + "".join(
        lxml.html.tostring(child, encoding="unicode") for child in content
    )
    canonical = document.xpath("//link[@rel='canonical']/@href")
    nav = site_nav.read(document, content, relative)
    return _Document(body, _title(document, content, nav, theme_title),
                     canonical[0] if canonical else "", nav)


def _page(document: _Document, relative: str, *, docs_dir: Path | None, directory_urls: bool,
          site_url: str | None) -> _Page:
    """The page as the engine gave it (url, source, front matter)."""
    url = _page_url(relative, directory_urls)
    doc_name = _doc_name(url, relative)
    source, meta = _source(docs_dir, doc_name)
    source = source or f"{doc_name}.html"
    base = site_url if site_url is not None else _site_url(document.canonical, url, doc_name)
    page = PageInput(html=document.body, source_path=source, url=url, title=document.title,
                     meta=meta)
    return _Page(page, base)


def _page_url(relative: str, directory_urls: bool) -> str:
    """The page's url as its engine gives it: `guide/install/` or `guide/install.html`."""
    if directory_urls and _is_index(relative):
        return relative.removesuffix("index.html")
    return relative


def _doc_name(url: str, relative: str) -> str:
    """The docName the plugins give: the source path without extension (`guide/install`)."""
    if not url:
        return "index"
    if url.endswith("/"):
        return url.rstrip("/")
    return relative.removesuffix(".html")


def _source(docs_dir: Path | None, doc_name: str) -> tuple[str, dict[str, Any]]:
    """The page's source path (relative to `docs_dir`) and front matter, when known."""
    if docs_dir is None:
        return "", {}
    for candidate in _source_candidates(doc_name):
        path = docs_dir / candidate
        if path.is_file():
            return candidate, _front_matter(path)
    return "", {}


def _source_candidates(doc_name: str) -> Iterator[str]:
    stems = [doc_name]
    if doc_name == "index" or doc_name.endswith("/index"):
        stems.append(doc_name.removesuffix("index") + "README")
    else:
        stems.append(f"{doc_name}/index")
    for stem in stems:
        for extension in (".md", ".markdown", ".rst", ".txt", ".ipynb"):
            yield stem + extension


def _front_matter(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return {}
    if path.suffix == ".rst":  # docinfo: the field list that opens the document
        fields = {}
        for line in text.lstrip("\n").splitlines():
            field = _DOCINFO_FIELD.match(line)
            if not field:
                break
            fields[field.group(1)] = field.group(2).strip()
        return fields
    return split_front_matter(text)[0]


def _site_url(canonical: str, url: str, doc_name: str) -> str:
    """The site url, from a page's canonical link minus the page's own part: its url, or its
    `.html` path, which Sphinx before 8.1 links as canonical on `dirhtml` pages (`guide.html`
    for `guide/`, `index.html` for the home page)."""
    if not canonical:
        return ""
    for own in (url, f"{doc_name}.html"):
        if own and canonical.endswith(own):
            return canonical[: len(canonical) - len(own)]
    return canonical if not url else ""


def _title(document: lxml.html.HtmlElement, content: lxml.html.HtmlElement, nav: PageNav,
           theme_title: str) -> str:
    """The page title its engine gives. Sphinx's is the page's first heading (none without
    one). MkDocs' may come from the navigation, so it is the text of the navigation's entry
    for the page; for a page the navigation does not name, the page part of `<title>`, else
    the heading the theme added (Material), else the page's first heading."""
    heading = content.xpath(".//h1")
    first = _heading_text(heading[0]) if heading else ""
    if nav.sphinx:
        return first
    return nav.title or _title_part(document, site_name(document)) or theme_title or first


def _title_part(document: lxml.html.HtmlElement, site_name: str) -> str:
    """The `<title>` without the site name ("" when it holds only the site name)."""
    titles = document.xpath("//head/title/text()") or document.xpath("//title/text()")
    title = " ".join(titles[0].split()) if titles else ""
    if not title or title == site_name:
        return ""
    if site_name:
        for separator in _TITLE_SEPARATORS.findall(title):
            if title.endswith(separator + site_name):
                return title[: -len(separator + site_name)].strip()
    return _TITLE_SEPARATORS.split(title, maxsplit=1)[0].strip()


def _heading_text(heading: lxml.html.HtmlElement) -> str:
    """A heading's text as the core reads it: one line, without its permalink."""
    anchor = heading.get("id") or ""
    return " ".join(title_text(heading, itself=f"#{anchor}" if anchor else "").split())
