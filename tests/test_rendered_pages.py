"""Every page an engine renders is in the index.

Material for MkDocs' blog plugin moves its posts to dated urls and generates views (archive,
categories, further pages of a paginated view, each a file of its own copied or written by the
plugin), and keeps them all out of the site's pages until its `on_nav`: they are pages like any
other, in the chunk index, in llms.txt under the blog and with their twins, also when a
`--dirty` build renders only some of them. The build session keeps every page it was given,
and says when two share the source path that names their chunks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from mdchunk.chunking import PageInput
from mdchunk.session.builder import IndexBuilder
from mdchunk.settings import BuildSettings
from tests.conftest import SiteBuilder
from tests.invariants import Index
from tests.test_llms import check_llms_site, entries, expected_twin

SITE_URL = "https://example.com/blog-site/"

POSTS = {
    "blog/posts/first.md": ("2024-01-15", ["News"], "First post"),
    "blog/posts/second.md": ("2024-02-20", ["News"], "Second post"),
    "blog/posts/third.md": ("2023-12-05", ["News", "Releases"], "Third post"),
}


def blog_pages() -> dict[str, str]:
    """A home page, the blog's index and three dated posts in two categories."""
    pages = {
        "index.md": "# Home\n\nWelcome to the site.\n\n## About\n\nWhat this site is for.\n",
        "blog/index.md": "# Blog\n\nNews from the team.\n",
    }
    for source, (date, categories, title) in POSTS.items():
        listed = "".join(f"  - {name}\n" for name in categories)
        pages[source] = (f"---\ndate: {date}\ncategories:\n{listed}---\n\n# {title}\n\n"
                         f"What the {title.lower()} is about.\n\n<!-- more -->\n\n"
                         f"## Details\n\nThe rest of the {title.lower()}.\n")
    return pages


CONFIG: dict[str, Any] = {
    "site_url": SITE_URL,
    "theme": {"name": "material"},
    # three posts, two to a page: the blog and the News category get a second page each
    "plugins": [{"blog": {"pagination_per_page": 2}}, {"mdchunk": {}}],
    "nav": ["index.md", {"Blog": ["blog/index.md"]}],
}


def written_pages(site: Path) -> set[Path]:
    """Every content page MkDocs wrote (each HTML file but the theme's 404 page)."""
    return {path for path in site.rglob("*.html") if path.name != "404.html"}


def indexed_pages(site: Path) -> set[Path]:
    index = Index.load(site)
    return {index.html_path(records[0]["pageUrl"]) for records in index.pages().values()}


@pytest.fixture
def blog_site(make_site: SiteBuilder) -> Path:
    return make_site(blog_pages(), config=CONFIG)


def test_every_page_of_the_blog_is_in_the_index(blog_site: Path) -> None:
    written = written_pages(blog_site)
    generated = {path.relative_to(blog_site).parent.as_posix() for path in written}
    assert {"blog/page/2", "blog/archive/2024", "blog/category/news",
            "blog/category/news/page/2"} <= generated  # the views the test is about
    assert indexed_pages(blog_site) == written
    check_llms_site(blog_site, SITE_URL)  # llms.txt, twins and every chunk's invariants


def test_posts_keep_the_ids_of_their_sources(blog_site: Path) -> None:
    """A post's chunk ids come from its source path, wherever the blog moved its url."""
    index = Index.load(blog_site)
    urls = {records[0]["parentId"]: records[0]["pageUrl"] for records in index.pages().values()}
    for source, (date, _, _) in POSTS.items():
        doc_id = "doc:" + source.removesuffix(".md")
        assert urls[doc_id].startswith("blog/" + date.replace("-", "/") + "/"), doc_id


def test_a_dirty_build_keeps_the_posts_it_does_not_render(blog_site: Path) -> None:
    """`mkdocs build --dirty` renders only what changed (the blog's views, which it writes
    anew each build); the posts, not rendered, come from the page cache as they were."""
    before = posts_records(blog_site)
    config = load_config(config_file=str(blog_site.parent / "mkdocs.yml"))
    build(config, dirty=True)
    assert indexed_pages(blog_site) == written_pages(blog_site)
    assert posts_records(blog_site) == before


def posts_records(site: Path) -> list[dict[str, Any]]:
    """The records of the posts in the index."""
    posts = {"doc:" + source.removesuffix(".md") for source in POSTS}
    return [record for record in Index.load(site).records if record["parentId"] in posts]


def test_llms_txt_lists_the_posts_and_views_under_the_blog(blog_site: Path) -> None:
    """The blog's pages outside the navigation are listed where the blog plugin placed them:
    under the blog's entry, not after the navigation."""
    index = Index.load(blog_site)
    blog_urls = {records[0]["pageUrl"] for records in index.pages().values()
                 if records[0]["pageUrl"].startswith("blog/")}
    listed = {entry["url"] for entry in entries(blog_site)["Blog"]}
    assert listed == {SITE_URL + expected_twin(url) for url in blog_urls}


# -- the build session -------------------------------------------------------------------------


def _page(source: str, url: str, title: str) -> PageInput:
    return PageInput(html=f"<h1 id='top'>{title}</h1><p>The {title.lower()} page.</p>",
                     source_path=source, url=url, title=title)


def test_a_rendered_page_the_listing_misses_is_indexed_after_the_others(tmp_path: Path) -> None:
    """`finish` gets the site's pages from the engine; a page the engine rendered in this build
    but left out of that list is indexed all the same, after the listed ones."""
    site = tmp_path / "site"
    builder = IndexBuilder(BuildSettings(), site_dir=site)
    try:
        for page in (_page("late.md", "late/", "Late"), _page("index.md", "", "Home")):
            builder.add_page(page, markdown_path=f"{page.url}index.html.md")
        summary = builder.finish(["index.md"])
    finally:
        builder.close()
    assert [page.source_path for page in summary.pages] == ["index.md", "late.md"]
    assert [record["parentId"] for record in Index.load(site).records] == [
        "doc:index", "doc:late"]


def test_two_rendered_pages_of_one_source_path_are_reported(tmp_path: Path) -> None:
    """A page's source path names its chunks: the second page of the same source path replaces
    the first, and the build says so, naming both urls."""
    reported: list[tuple[str, str]] = []
    builder = IndexBuilder(BuildSettings(), site_dir=tmp_path / "site",
                           report=lambda source, message: reported.append((source, message)))
    try:
        for page in (_page("blog/index.md", "blog/", "Blog"),
                     _page("blog/index.md", "blog/page/2/", "Blog")):
            builder.add_page(page, markdown_path=f"{page.url}index.html.md")
        builder.add_page(_page("blog/index.md", "blog/page/2/", "Blog"),
                         markdown_path="blog/page/2/index.html.md")  # the same page again
        summary = builder.finish(["blog/index.md"])
    finally:
        builder.close()
    assert [page.url for page in summary.pages] == ["blog/page/2/"]
    assert len(reported) == 1
    source, message = reported[0]
    assert source == "blog/index.md" and "'blog/'" in message and "'blog/page/2/'" in message
