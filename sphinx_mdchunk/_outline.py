"""The site's toctree as the core's outline, which llms.txt follows.

The root document is the home page; each toctree of it is a section, named by its caption or
else by the heading of the part of the page it sits in (`The User Guide`), and its entries are
top-level pages when it has neither (a toctree right under the page's title); the documents a
page's own toctrees include are the pages under it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

from mdchunk.outputs.outline import NavItem, SiteOutline

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


def site_outline(app: Sphinx, source_of: Callable[[str], str]) -> SiteOutline:
    """The project's name and its toctree from the root document (`source_of` gives a
    document's source path)."""
    env, root = app.env, app.config.root_doc
    seen = {root}
    nav = [NavItem(None, source_of(root))]
    for toctree in env.get_doctree(root).findall(addnodes.toctree):
        pages = tuple(_pages(env, toctree["entries"], seen, source_of))
        caption = _caption(toctree)
        if not caption:
            nav.extend(pages)
        elif nav[-1].title == caption and nav[-1].source is None:  # the part's next toctree
            nav[-1] = NavItem(caption, None, nav[-1].children + pages)
        else:
            nav.append(NavItem(caption, None, pages))
    return SiteOutline(app.config.project or "", "", tuple(nav), home=source_of(root))


def _caption(toctree: addnodes.toctree) -> str:
    """The toctree's caption; else the title of the section of the page it sits in, unless
    that is the page's own title ("")."""
    caption = toctree.get("caption")
    if caption:
        return str(caption)
    section = toctree.parent
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    if section is None or not isinstance(section.parent, nodes.section):
        return ""
    first = section.children[0] if section.children else None
    return first.astext() if isinstance(first, nodes.title) else ""


def _pages(env: BuildEnvironment, entries: Sequence[tuple[str | None, str]], seen: set[str],
           source_of: Callable[[str], str]) -> Iterator[NavItem]:
    """The documents of toctree `entries` (title, name) with those they include, once each."""
    for title, name in entries:
        if name not in env.found_docs or name in seen:
            continue  # an external link, `self`, or a document listed before
        seen.add(name)
        children = [(None, child) for child in env.toctree_includes.get(name, ())]
        yield NavItem(title, source_of(name), tuple(_pages(env, children, seen, source_of)))
