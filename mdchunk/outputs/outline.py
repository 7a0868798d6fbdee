"""The site as the agent outputs see it: its name, its description and its navigation.

Each engine has its own navigation (MkDocs' `nav`, Sphinx's toctree, the folders of a built
site); the adapters translate it into a `SiteOutline`, and everything after that is the core's:
which pages make a section of `llms.txt`, in which order, under which title.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path


@dataclasses.dataclass(frozen=True, slots=True)
class NavItem:
    """An entry of the site's navigation: a page, a section, or a page with pages under it."""

    title: str | None = None
    """The title the navigation gives it (None: the page's own title)."""
    source: str | None = None
    """The page's source path (None: a section without a page of its own)."""
    children: tuple[NavItem, ...] = ()
    """The entries under it, in the navigation's order."""


@dataclasses.dataclass(frozen=True, slots=True)
class SiteOutline:
    """What an engine knows of its site beyond its pages (every field may be left empty)."""

    name: str = ""
    """The site's name (MkDocs' `site_name`, Sphinx's `project`)."""
    description: str = ""
    """One line about the site (MkDocs' `site_description`); the home page's description
    stands in for it when empty."""
    nav: tuple[NavItem, ...] = ()
    """The navigation's top-level entries, in order; pages of the index it does not name are
    listed after them."""
    home: str | None = None
    """The home page's source path (None: the navigation's first page)."""
    languages: tuple[SiteLanguage, ...] = ()
    """The site's other languages, each built in a folder of its own: the `llms.txt` of the
    default language lists theirs (mkdocs-static-i18n's `site/fr/`)."""


LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
"""A language tag as sites name their language folders (`fr`, `pt-BR`, `zh_Hant`)."""


def normal_tag(tag: str) -> str:
    """`tag` as BCP 47 compares tags: case-insensitive, `_` as `-`."""
    return tag.strip().replace("_", "-").lower()


def is_language_tag(name: str) -> bool:
    """Whether `name` (a folder's) has the shape of a language tag."""
    return LANGUAGE_TAG.fullmatch(name) is not None


def language_folder_name(site_dir: Path, language: str | None) -> str:
    """The name of `site_dir` when it is named after the build's `language` (Sphinx's
    `-D language=fr` into `_build/html/fr`): the build is then that language's in a site
    built once per language; else ""."""
    if language and normal_tag(site_dir.name) == normal_tag(language):
        return site_dir.name
    return ""


def built_languages(site_dir: Path) -> tuple[SiteLanguage, ...]:
    """The other languages built inside `site_dir`: its subfolders named after a language tag
    that hold an `llms.txt` (the builds of those languages, made before this one)."""
    children = sorted(site_dir.iterdir()) if site_dir.is_dir() else []
    return tuple(SiteLanguage(child.name, "", child.name) for child in children
                 if is_language_tag(child.name) and (child / "llms.txt").is_file())


@dataclasses.dataclass(frozen=True, slots=True)
class SiteLanguage:
    """Another language of the site, built in a folder of its own."""

    tag: str
    """Its language tag (`fr`, `pt-BR`)."""
    name: str
    """Its name, as the site's language switcher shows it ("" when it has none)."""
    folder: str
    """Its folder, relative to this build's site folder (`fr`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class NavSection:
    """One `##` section of `llms.txt`: a title and its pages (source, navigation title)."""

    title: str
    pages: tuple[tuple[str, str | None], ...]


LEADING_PAGES = "Docs"
"""The first section: the navigation's top-level pages, those in no section (llmstxt.org's
example names its first section so)."""
OPTIONAL = "Optional"
"""The section of `llms.txt` that readers may skip (llmstxt.org), last; it holds, among
others, the pages the navigation does not name."""


def nav_sections(outline: SiteOutline, listed: Collection[str],
                 title_of: Callable[[str], str]) -> list[NavSection]:
    """The sections of `llms.txt` in the navigation's order, with the pages of `listed` only.

    The top-level pages (in no section of the navigation) make the first section,
    `LEADING_PAGES`, wherever the navigation puts them. Then each top-level entry with entries
    under it is a section: its own page first, then every page under it, flattened in order.
    A page named twice is listed where it comes first. The pages of `listed` the navigation
    does not name close the list, under `OPTIONAL` (the author left them out of the
    navigation); without a navigation, every page is in the first section. Titles are made
    unique (`Guide (2)`).

    Arguments:
        outline: The site's navigation.
        listed: The source paths of the pages to list (the others are left out).
        title_of: The page's own title, for a section whose entry has none.
    """
    seen: set[str] = set()
    top = [item for item in outline.nav if not item.children]
    leading = tuple(_pages(top, listed, seen))
    sections = [NavSection(LEADING_PAGES, leading)] if leading else []
    for item in outline.nav:
        pages = tuple(_pages([item], listed, seen)) if item.children else ()
        if pages:
            title = item.title or (title_of(item.source) if item.source else "")
            sections.append(NavSection(title or LEADING_PAGES, pages))
    omitted = tuple((source, None) for source in listed if source not in seen)
    if omitted and sections:
        sections.append(NavSection(OPTIONAL, omitted))
    elif omitted:
        sections.append(NavSection(LEADING_PAGES, omitted))
    return _unique_titles(sections)


def _pages(items: Sequence[NavItem], listed: Collection[str], seen: set[str]
           ) -> Iterator[tuple[str, str | None]]:
    """The listed pages of `items` and of every entry under them, depth first, once each."""
    for item in items:
        if item.source is not None and item.source in listed and item.source not in seen:
            seen.add(item.source)
            yield item.source, item.title
        yield from _pages(item.children, listed, seen)


def _unique_titles(sections: list[NavSection]) -> list[NavSection]:
    """`sections` with a title seen before followed by its rank (`Guide (2)`); sections
    titled `OPTIONAL` keep their title (they make one section of `llms.txt`)."""
    counts: dict[str, int] = {}
    unique = []
    for section in sections:
        title = " ".join(section.title.split()).lstrip("#").strip() or LEADING_PAGES
        counts[title] = counts.get(title, 0) + (title != OPTIONAL)
        rank = counts[title]
        unique.append(dataclasses.replace(section, title=title if rank <= 1
                                          else f"{title} ({rank})"))
    return unique


def folder_outline(pages: Mapping[str, str]) -> tuple[NavItem, ...]:
    """The navigation of a site that has none to give: its folders, as MkDocs makes it when
    mkdocs.yml has no `nav` (a folder's index page first, then pages and folders by name; a
    folder is a section titled after its name, `getting-started` -> `Getting started`).

    Arguments:
        pages: Each page's source path -> its url (`guide/install/` or `guide/install.html`).
    """
    root = _Folder()
    for source, url in pages.items():
        folder = root
        for part in _url_parts(url):
            folder = folder.folders.setdefault(part, _Folder())
        if folder.page is None:
            folder.page = source
    return tuple(root.items(top=True))


@dataclasses.dataclass
class _Folder:
    """A node of the url tree: the page at it (if any) and the nodes under it by name."""

    page: str | None = None
    folders: dict[str, _Folder] = dataclasses.field(default_factory=dict)

    def items(self, *, top: bool = False) -> Iterator[NavItem]:
        """This node's page (at the top: the home page), then its children by name."""
        if top and self.page is not None:
            yield NavItem(source=self.page)
        for name in sorted(self.folders):
            child = self.folders[name]
            under = tuple(child.items())
            title = None if child.page is not None else _folder_title(name)
            yield NavItem(title=title, source=child.page, children=under)


def _url_parts(url: str) -> list[str]:
    """The path of a page url without its file name: `guide/install/`, `guide/install.html`
    and `guide/install/index.html` give `["guide", "install"]`; the home page gives `[]`."""
    path = url.split("#", 1)[0].split("?", 1)[0]
    for suffix in (".html", ".htm"):
        path = path.removesuffix(suffix)
    path = path.strip("/")
    if path == "index" or path.endswith("/index"):
        path = path[: -len("index")].rstrip("/")
    return [part for part in path.split("/") if part]


def _folder_title(name: str) -> str:
    """A folder's name as a title, as MkDocs makes it: `getting-started` -> `Getting started`."""
    title = name.replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title
