"""The navigation of a built site, read from the HTML of its pages (`mdchunk site`).

Themes render the engine's navigation on every page: MkDocs' `nav` (the mkdocs and readthedocs
themes, Material, Zensical) and Sphinx's toctree (alabaster, furo, the Read the Docs theme, and
the themes that share its markup). A page shows the part it needs (a collapsed sidebar opens
only the branch of the page itself), so the site's navigation is every page's merged in order.
The entry that links to the page itself is how the theme marks it: on an MkDocs site its text is
the page's title, as the plugin sees it (`page.title`, which the navigation may set). A Sphinx
toctree without a caption is named, as the Sphinx extension names it, by the part of the home
page it sits in, which the home page's content shows.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Iterator, Mapping
from urllib.parse import unquote, urlsplit

from lxml.cssselect import CSSSelector
from lxml.etree import XPath
from lxml.html import HtmlElement

from mdchunk.chunking.html.text import title_text
from mdchunk.outputs.outline import NavItem

#: The list of an MkDocs theme's navigation: Material and Zensical, the mkdocs theme (whose
#: second list holds search, previous and next).
_MKDOCS_NAV = CSSSelector("nav.md-nav--primary > ul.md-nav__list, #navbar-collapse > "
                          "ul.navbar-nav:not(.ms-md-auto):not(.ml-auto)")
#: Entries of a Sphinx toctree as themes render it (also the readthedocs theme of MkDocs).
_TOCTREE_ENTRY = CSSSelector("li.toctree-l1")
#: A toctree in a page's content, and the links of its entries.
_TOCTREE = CSSSelector("div.toctree-wrapper")
_TOCTREE_LINK = CSSSelector("li.toctree-l1 > a")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Parts of a navigation that are no pages of it: Material's table of contents of the page.
_NOT_NAV = CSSSelector("nav.md-nav--secondary")
#: The class of the element that holds a section's title and its index page's link (Material's
#: and Zensical's `navigation.indexes`): the link shows the section's title, not the page's.
_SECTION_INDEX = "md-nav__container"
#: The class of a section that Material's `navigation.prune` renders as a link to its first
#: page, titled by the section: its pages are in the navigation of the pages inside it.
_PRUNED = "md-nav__item--pruned"
#: Where themes show the site's name: Material and Zensical, the mkdocs theme, the Read the
#: Docs themes (Sphinx's and MkDocs'), alabaster.
_SITE_NAME = CSSSelector(".md-header__topic:first-child > .md-ellipsis, a.navbar-brand, "
                         ".wy-side-nav-search > a, .sphinxsidebarwrapper > .logo > a")
#: A page written by Sphinx: its builder's script of options, which themes load in the `<head>`
#: or at the end of the `<body>` (furo). Searched there alone: a few elements of thousands.
_SPHINX_PAGE = XPath("(/html/head | /html/body)/script[@id = 'documentation_options' or "
                     "contains(@src, 'documentation_options.js')]")


@dataclasses.dataclass
class NavEntry:
    """An entry of a rendered navigation: a page (the site path of its HTML file) or a
    section, with the entries under it."""

    title: str
    path: str | None = None
    children: list[NavEntry] = dataclasses.field(default_factory=list)
    section_index: bool = False
    """Whether the page is its section's index, linked by the section's title (which is then
    not the page's)."""

    @property
    def key(self) -> tuple[str, str]:
        """What makes two entries one when navigations merge: the page, or a section's title
        (a section whose index page it links to too)."""
        if self.path is None or self.section_index:
            return ("section", self.title)
        return ("page", self.path)


@dataclasses.dataclass(frozen=True, slots=True)
class PageNav:
    """What a page's HTML says of the site's navigation and of the page's place in it."""

    entries: tuple[NavEntry, ...]
    """The navigation the page shows (empty when its theme shows none mdchunk knows)."""
    toctree: bool
    """Whether it is a Sphinx toctree, which does not name the home page."""
    title: str | None
    """The text of the entry that links to the page itself (None: the page is not in it)."""
    sphinx: bool
    """Whether Sphinx wrote the page."""
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The toctrees without a caption in a part of the home page (a section under its title),
    each as the part's title and the pages it lists: the sidebar shows them without a name."""


def page_nav(document: HtmlElement, content: HtmlElement, relative: str,
             walked: dict[tuple[object, ...], tuple[NavEntry, ...]] | None = None) -> PageNav:
    """The navigation of the page whose tree is `document`, `content` its main content (which
    may hold a toctree of its own, not the site's), `relative` its path in the site.

    `walked` holds the navigations already read, by the pages they link to: most themes render
    the whole navigation on every page, and one that links to the same pages in the same order
    as one read before is that one, not walked again (reading every entry of every page would
    grow with pages times entries)."""
    for part in _NOT_NAV(document):
        part.drop_tree()
    found = next((nav for nav in _MKDOCS_NAV(document) if not _inside(nav, content)), None)
    toctree = found is None
    lists = [found] if found is not None else _toctree_lists(document, content)
    key = _nav_key(lists, relative, toctree=toctree)
    entries = walked.get(key) if walked is not None else None
    if entries is None:
        entries = tuple(_list_entries(found, relative) if found is not None
                        else _toctree_entries(lists, relative))
        if walked is not None:
            walked[key] = entries
    home = toctree and relative == "index.html"
    parts = tuple(_toctree_parts(content, relative)) if home else ()
    return PageNav(entries, toctree and bool(entries), _title_of(list(entries), relative),
                   bool(_SPHINX_PAGE(document)), parts)


def _nav_key(lists: list[HtmlElement], relative: str, *, toctree: bool) -> tuple[object, ...]:
    """What a navigation's entries follow from: the pages its links lead to (as site paths,
    the same from every page), in order, its number of items and the text of its captions."""
    targets = tuple(_target(link.get("href") or "", relative) for listing in lists
                    for link in listing.iter("a") if _is_link(link))
    captions = tuple(" ".join(part.text_content().split()) for part in lists
                     if part.tag not in {"ul", "ol"})
    items = sum(1 for listing in lists for _ in listing.iter("li"))
    return (toctree, targets, items, captions)


def site_name(document: HtmlElement) -> str:
    """The site's name as the theme shows it on the page whose tree is `document` ("" when it
    shows none mdchunk knows). Read only where it is needed: it searches the whole page."""
    names = (" ".join(name.text_content().split()) for name in _SITE_NAME(document))
    return next((name for name in names if name), "")


def _inside(element: HtmlElement, container: HtmlElement) -> bool:
    return any(ancestor is container for ancestor in element.iterancestors())


def _toctree_lists(document: HtmlElement, content: HtmlElement) -> list[HtmlElement]:
    """The lists of the sidebar's toctree, with the captions before them: the children of the
    element that holds the first list of toctree entries outside the content."""
    entry = next((found for found in _TOCTREE_ENTRY(document)
                  if found is not content and not _inside(found, content)), None)
    parent = entry.getparent() if entry is not None else None
    holder = parent.getparent() if parent is not None else None
    return list(holder) if holder is not None else []


def _toctree_entries(parts: list[HtmlElement], relative: str) -> Iterator[NavEntry]:
    """A toctree as a theme renders it: lists of entries, each after its caption (a section
    of the navigation) or after none (top-level pages)."""
    caption = None
    for part in parts:
        classes = (part.get("class") or "").split()
        if part.tag == "p" and "caption" in classes:
            caption = " ".join(part.text_content().split())
        elif part.tag == "ul" and any(
                "toctree-l1" in (item.get("class") or "").split() for item in part):
            entries = list(_list_entries(part, relative))
            if caption:
                yield NavEntry(caption, None, entries)
            else:
                yield from entries
            caption = None


def _toctree_parts(content: HtmlElement, relative: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The toctrees without a caption of the page's content that sit in a part of it (a
    section under the page's title, its heading an H2 or deeper), each as the part's title
    and the pages it lists, as the Sphinx extension names such a toctree's section."""
    for toctree in _TOCTREE(content):
        if any(child.tag == "p" for child in toctree):  # (a caption)
            continue
        heading = _part_heading(toctree)
        if heading is None or heading.tag == "h1":
            continue
        paths = (_target(link.get("href") or "", relative) for link in _TOCTREE_LINK(toctree))
        yield " ".join(title_text(heading).split()), tuple(
            path for path, fragment in paths if path is not None and not fragment)


def _part_heading(element: HtmlElement) -> HtmlElement | None:
    """The heading of the section `element` sits in (None outside any)."""
    for ancestor in element.iterancestors():
        classes = (ancestor.get("class") or "").split()
        if ancestor.tag == "section" or (ancestor.tag == "div" and "section" in classes):
            return next((child for child in ancestor if child.tag in _HEADINGS), None)
    return None


def _in_parts(entries: list[NavEntry], parts: tuple[tuple[str, tuple[str, ...]], ...]
              ) -> list[NavEntry]:
    """Top-level `entries` with the pages of a part's toctree (`PageNav.parts`) in a section
    titled after the part, where the pages come first; as in the Sphinx extension, a section
    right after one of the same title joins it (two toctrees in one part make one)."""
    part_of = {path: title for title, paths in parts for path in paths}
    grouped: list[NavEntry] = []
    for entry in entries:
        part = part_of.get(entry.path) if entry.path is not None else None
        if part is None:
            grouped.append(entry)
        elif grouped and grouped[-1].title == part and grouped[-1].path is None:
            grouped[-1] = NavEntry(part, None, [*grouped[-1].children, entry])
        else:
            grouped.append(NavEntry(part, None, [entry]))
    return grouped


def _list_entries(listing: HtmlElement, relative: str) -> Iterator[NavEntry]:
    """The entries of a navigation list: each item's own link (a page) or label (a section),
    and the entries of the list under it. An entry that links into a page (a heading of its
    table of contents) is no page: the entries under it take its place."""
    for item in listing.iterchildren("li"):
        link, label, sublist = _item_parts(item)
        if _PRUNED in (item.get("class") or "").split():
            yield NavEntry(" ".join(title_text(link).split()) if link is not None else label)
            continue
        children = list(_list_entries(sublist, relative)) if sublist is not None else []
        if link is not None:
            href = link.get("href") or ""
            path, fragment = _target(href, relative)
            text = " ".join(title_text(link).split())
            if path is None:
                continue  # a link out of the site
            if fragment:
                yield from children
                continue
            holder = link.getparent()
            index = holder is not None and _SECTION_INDEX in (holder.get("class") or "").split()
            yield NavEntry(text, path, children, section_index=index)
        elif label:
            yield NavEntry(label, None, children)


def _item_parts(item: HtmlElement) -> tuple[HtmlElement | None, str, HtmlElement | None]:
    """A navigation item's own link (None for a section's label, or a toggle), its label, and
    the list of the entries under it (None when it has none)."""
    link = sublist = None
    label = ""
    stack = list(reversed(item))
    while stack:
        element = stack.pop()
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if tag in {"ul", "ol"}:
            sublist = element if sublist is None else sublist
            continue
        if tag == "a" and link is None and _is_link(element):
            link = element
            continue
        if tag in {"a", "label", "span", "p"} and not label:
            label = " ".join(element.text_content().split())
            if label:
                continue
        if tag not in {"input", "svg", "button"}:
            stack.extend(reversed(element))
    return link, label, sublist


def _is_link(link: HtmlElement) -> bool:
    """Whether a navigation item's `<a>` links to a page: not when it only opens a menu (the
    mkdocs theme's), nor when it leads nowhere (`#`) but to the page itself marked current
    (the Read the Docs themes' and Sphinx's `current` entry)."""
    if link.get("role") == "button" or any(
            name in link.attrib for name in ("data-bs-toggle", "data-toggle")):
        return False
    if (link.get("href") or "#") != "#":
        return True
    return "current" in (link.get("class") or "").split() or link.get("aria-current") == "page"


def _target(href: str, relative: str) -> tuple[str | None, str]:
    """The site path of the HTML file `href` (on the page at `relative`) links to, and its
    fragment; None for a link out of the site."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith("/"):
        return None, ""
    folder = posixpath.dirname(relative)
    path = unquote(parts.path)
    if not path:
        return relative, parts.fragment
    joined = posixpath.normpath(posixpath.join(folder, path))
    if joined.startswith(".."):
        return None, ""
    joined = "" if joined == "." else joined
    if path.endswith("/") or joined == "":
        joined = posixpath.join(joined, "index.html")
    elif not posixpath.splitext(joined)[1]:
        joined += "/index.html"
    return joined, parts.fragment


def _title_of(entries: list[NavEntry], relative: str) -> str | None:
    """The text of the entry that links to the page `relative` (the first, depth first)."""
    stack = list(reversed(entries))
    while stack:
        entry = stack.pop()
        if entry.path == relative and not entry.section_index:
            return entry.title
        stack.extend(reversed(entry.children))
    return None


def merge_entries(merged: list[NavEntry], entries: list[NavEntry]) -> None:
    """Merge a page's navigation into `merged` (every page's so far): an entry already there
    gains the entries under it that this page shows; a new one goes after the entry before it.
    """
    known = {entry.key: entry for entry in merged}
    position = 0
    for entry in entries:
        found = known.get(entry.key)
        if found is None:
            found = known[entry.key] = NavEntry(entry.title, entry.path,
                                                section_index=entry.section_index)
            merged.insert(position, found)
        elif found.path is None and entry.path is not None:  # (a pruned section's index)
            found.path, found.section_index = entry.path, entry.section_index
        elif position >= len(merged) or merged[position] is not found:
            position = merged.index(found)  # (pages show their navigation in one order)
        position += 1
        merge_entries(found.children, entry.children)


class SiteNav:
    """The site's navigation, merged from its pages' as they are read (`read`)."""

    def __init__(self) -> None:
        self.entries: list[NavEntry] = []
        self.toctree = False
        """Whether the navigation is a Sphinx toctree (which does not name the home page)."""
        self.parts: tuple[tuple[str, tuple[str, ...]], ...] = ()
        """The home page's toctrees in parts (`PageNav.parts`)."""
        self._walked: dict[tuple[object, ...], tuple[NavEntry, ...]] = {}
        """The navigations read so far (`page_nav`), each merged in once."""

    def read(self, document: HtmlElement, content: HtmlElement, relative: str) -> PageNav:
        """The navigation of a page (`page_nav`), merged in."""
        known = len(self._walked)
        page = page_nav(document, content, relative, self._walked)
        if len(self._walked) > known:
            merge_entries(self.entries, list(page.entries))
        self.toctree = self.toctree or page.toctree
        self.parts = self.parts or page.parts
        return page

    def items(self, sources: Mapping[str, str], home: str | None) -> tuple[NavItem, ...]:
        """The navigation as the core's (empty when no page showed one): `sources` gives the
        source path of each page of the index by its site path; `home` is the home page's
        source path, first in a toctree's navigation, as in the Sphinx extension's."""
        items = _nav_items(_in_parts(self.entries, self.parts), sources)
        if self.toctree and items and home is not None and home not in _sources(items):
            items = (NavItem(None, home), *items)
        return items


def _nav_items(entries: list[NavEntry], sources: Mapping[str, str]) -> tuple[NavItem, ...]:
    """Navigation entries as the core's (as MkDocs' nav has them: a section's index page is
    its first page); a page that is not in the index keeps its place only as the section of
    the entries under it."""
    items = []
    for entry in entries:
        children = _nav_items(entry.children, sources)
        source = sources.get(entry.path) if entry.path is not None else None
        if entry.section_index:
            children = (NavItem(None, source), *children) if source is not None else children
            source = None
        if source is None and not children:
            continue
        items.append(NavItem(entry.title or None, source, children))
    return tuple(items)


def _sources(items: tuple[NavItem, ...]) -> Iterator[str]:
    for item in items:
        if item.source is not None:
            yield item.source
        yield from _sources(item.children)
