"""The chunk inspector: its files and data (Python) and the page itself (headless Chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

import mdchunk.outputs.writers
from mdchunk.chunking import Chunker, PageChunks, PageInput
from mdchunk.engines.site import site_pages
from mdchunk.errors import MdChunkError
from mdchunk.options import ChunkOptions
from mdchunk.outputs import inspector
from mdchunk.outputs.inspector import write_inspector
from tests.conftest import EXAMPLE_SITE, browser_test, build_mkdocs

HOSTILE = "</script><script>alert(1)</script>"
#: HOSTILE as the page Markdown has it: a `<` before a tag name is escaped (else it is HTML).
HOSTILE_MARKDOWN = "\\</script>\\<script>alert(1)\\</script>"
HOSTILE_HTML = (
    '<h1 id="top">Hostile</h1>'
    "<p>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; and a\u2028line\u2029break, "
    "&lt;!-- a comment, &amp;amp; an entity, &lt;img src=x onerror=alert(2)&gt;.</p>"
    '<h2 id="emoji">Emoji \U0001f600 here</h2>'
    "<p>Astral \U0001d11e characters shift UTF-16 offsets \U0001f680 by one each.</p>"
    '<h2 id="last">Last</h2><p>The last chunk, after the astral characters.</p>'
)


def chunk_pages(html_by_url: dict[str, str]) -> list[PageChunks]:
    """Chunk small hand-written pages (a word counter: no tokenizer needed)."""
    chunker = Chunker(ChunkOptions(max_tokens=16, min_tokens=0),
                      counter=lambda text: len(text.split()), site_url="https://example.org/")
    return [
        chunker.chunk_page(PageInput(html=html, source_path=(url.rstrip("/") or "index") + ".md",
                                     url=url, title=url or "Home"))
        for url, html in html_by_url.items()
    ]


def read_data(folder: Path) -> dict[str, Any]:
    """Parse `data.js` as JSON: strip the assignment and the final semicolon."""
    script = (folder / "data.js").read_text(encoding="utf-8")
    prefix = f"window.{inspector.DATA_GLOBAL} = "
    assert script.startswith(prefix) and script.endswith(";\n")
    data: dict[str, Any] = json.loads(script[len(prefix):-2])
    return data


def full_record(page: dict[str, Any], chunk: dict[str, Any]) -> dict[str, Any]:
    """The record as the page rebuilds it (inspector.js `fullRecord`), in Python."""
    units = page["markdown"].encode("utf-16-le", "surrogatepass")
    start, end = chunk["span"]
    text = units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")
    record = dict(chunk["record"], originalText=text)
    if chunk["embedPrefix"] is not None:
        record["embedText"] = chunk["embedPrefix"] + text
    return record


def native(chunk: Any) -> Any:
    """A chunk's native record as JSON would give it back."""
    return json.loads(json.dumps(chunk.as_native()))


# ---- files and data ----


def test_writes_a_self_contained_inspector(tmp_path: Path) -> None:
    pages = chunk_pages({"": "<h1 id='home'>Home</h1><p>Welcome.</p>"})
    index = write_inspector(tmp_path / "site", pages, max_tokens=16)
    assert index == tmp_path / "site" / "_mdchunk" / "index.html"
    names = sorted(path.name for path in index.parent.iterdir())
    assert names == ["data.js", "index.html", "inspector.css", "inspector.js"]
    html = index.read_text(encoding="utf-8")
    for name in ("data.js", "inspector.js", "inspector.css"):
        assert f'"{name}"' in html
    for name in ("index.html", "inspector.js", "inspector.css"):  # no CDN, no network
        text = (index.parent / name).read_text(encoding="utf-8")
        assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//|url\(", text)
    assert "innerHTML" not in (index.parent / "inspector.js").read_text()


def test_data_round_trips_to_the_native_records(tmp_path: Path) -> None:
    pages = chunk_pages({"": "<h1 id='home'>Home</h1><p>Welcome home.</p>",
                         "guide/": HOSTILE_HTML})
    pages[0] = PageChunks(**{**{f: getattr(pages[0], f) for f in pages[0].__slots__},
                             "warnings": ("index.md: a warning",)})
    write_inspector(tmp_path, pages, max_tokens=16)
    data = read_data(tmp_path / "_mdchunk")
    assert (data["version"], data["maxTokens"], data["siteRoot"]) == (1, 16, "../")
    assert [p["sourcePath"] for p in data["pages"]] == ["index.md", "guide.md"]
    assert data["pages"][0]["warnings"] == ["index.md: a warning"]
    assert sum(len(page.chunks) for page in pages) >= 4
    for page, stored in zip(pages, data["pages"], strict=True):
        assert stored["markdown"] == page.markdown
        assert stored["url"] == page.url
        rebuilt = [full_record(stored, chunk) for chunk in stored["chunks"]]
        assert rebuilt == [native(chunk) for chunk in page.chunks]
        # the page text is stored once: no record carries the chunk's text
        assert all(chunk["record"]["originalText"] is None for chunk in stored["chunks"])


def test_hostile_text_cannot_break_out_of_the_script(tmp_path: Path) -> None:
    pages = chunk_pages({"guide/": HOSTILE_HTML})
    assert HOSTILE_MARKDOWN in pages[0].markdown and "\u2028" in pages[0].markdown
    write_inspector(tmp_path, pages, max_tokens=16)
    script = (tmp_path / "_mdchunk" / "data.js").read_text(encoding="utf-8")
    body = script.split("=", 1)[1]
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in body
    assert "</script" not in script.lower() and "<!--" not in script
    assert read_data(tmp_path / "_mdchunk")["pages"][0]["markdown"] == pages[0].markdown


def test_spans_count_utf16_units_past_astral_characters(tmp_path: Path) -> None:
    pages = chunk_pages({"guide/": HOSTILE_HTML})
    last = pages[0].chunks[-1]
    assert "\U0001f680" in pages[0].markdown[: last.char_start]
    write_inspector(tmp_path, pages, max_tokens=16)
    stored = read_data(tmp_path / "_mdchunk")["pages"][0]
    assert stored["chunks"][-1]["span"][0] > last.char_start
    assert [full_record(stored, c)["originalText"] for c in stored["chunks"]] == [
        chunk.text for chunk in pages[0].chunks
    ]


def test_folder_is_replaced_whole_and_leaves_no_temporary_folders(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_inspector(site, chunk_pages({"": "<h1 id='a'>First</h1><p>One.</p>"}), max_tokens=16)
    (site / "_mdchunk" / "stale.txt").write_text("from an older build")
    write_inspector(site, chunk_pages({"": "<h1 id='b'>Second</h1><p>Two.</p>"}), max_tokens=16)
    assert not (site / "_mdchunk" / "stale.txt").exists()
    assert "Second" in read_data(site / "_mdchunk")["pages"][0]["markdown"]
    assert sorted(path.name for path in site.iterdir()) == ["_mdchunk"]


def test_a_failed_write_keeps_the_old_folder(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    write_inspector(site, chunk_pages({"": "<h1 id='a'>Old</h1><p>Kept.</p>"}), max_tokens=16)
    before = {p.name: p.read_bytes() for p in (site / "_mdchunk").iterdir()}
    real_replace = os.replace

    def failing_replace(source: Any, target: Any) -> None:
        if str(source).endswith(".tmp"):  # the swap of the new folder into place
            raise OSError("disk full")
        real_replace(source, target)

    monkeypatch.setattr(mdchunk.outputs.writers.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_inspector(site, chunk_pages({"": "<h1 id='b'>New</h1><p>Lost.</p>"}), max_tokens=16)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in (site / "_mdchunk").iterdir()} == before
    assert sorted(path.name for path in site.iterdir()) == ["_mdchunk"]


def test_nested_folder_links_back_to_the_site_root(tmp_path: Path) -> None:
    index = write_inspector(tmp_path, chunk_pages({"": "<h1 id='a'>A</h1>"}), max_tokens=16,
                            folder="tools/chunks")
    assert index == tmp_path / "tools" / "chunks" / "index.html"
    assert read_data(index.parent)["siteRoot"] == "../../"


@pytest.mark.parametrize("folder", ["", ".", "..", "../out", "/tmp/out", "a/../b", "a\\b"])
def test_folder_must_stay_inside_the_site(tmp_path: Path, folder: str) -> None:
    with pytest.raises(MdChunkError, match="inspector folder"):
        write_inspector(tmp_path / "site", [], max_tokens=16, folder=folder)
    assert not (tmp_path / "site").exists()


# ---- the page in headless Chromium ----


def expected_site_href(url: str) -> str:
    """`../` + url, naming index.html for folders (file:// does not open them)."""
    path, hash_, anchor = url.partition("#")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return "../" + path + hash_ + anchor


def shown_record(tab: Any) -> Any:
    return json.loads(tab.locator("#record").text_content())


def keep_screenshot(tab: Any, tmp_path: Path) -> Path:
    """Save a screenshot under tmp_path, and a copy in $MDCHUNK_ARTIFACTS when set."""
    shot = tmp_path / "inspector.png"
    tab.screenshot(path=str(shot))
    if os.environ.get("MDCHUNK_ARTIFACTS"):
        artifacts = Path(os.environ["MDCHUNK_ARTIFACTS"])
        artifacts.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, artifacts / shot.name)
    return shot


@pytest.fixture(scope="module")
def example_inspector(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[PageChunks]]:
    """The example site built once, chunked, with its inspector: (index.html, pages)."""
    example = tmp_path_factory.mktemp("inspector") / "example"
    shutil.copytree(EXAMPLE_SITE, example, ignore=shutil.ignore_patterns("site", "site-material"))
    site = build_mkdocs(example / "mkdocs.yml")
    chunker = Chunker(ChunkOptions.validated({"max_tokens": 512}),
                      site_url="https://example.com/docs/")  # (example-site's site_url)
    pages = [chunker.chunk_page(page) for page in site_pages(site, docs_dir=example / "docs")]
    return write_inspector(site, pages, max_tokens=512), pages


def open_chunk(tab: Any, chunk: Any) -> None:
    """Click a chunk of the shown page and wait for its record."""
    from playwright.sync_api import expect

    tab.locator(f"#chunk-{chunk.chunk_number}").click()
    expect(tab.locator("#record")).to_contain_text(f'"id": "{chunk.id}"')


def open_page_entry(tab: Any, page: PageChunks) -> None:
    """Click a page in the page list and wait for it to be shown."""
    from playwright.sync_api import expect

    tab.locator(f'#page-list li[data-path="{page.source_path}"] a').click()
    expect(tab.locator("#page-view .page-head code")).to_have_text(page.source_path)


def configuration(pages: list[PageChunks]) -> PageChunks:
    page = next(p for p in pages if p.source_path == "guide/configuration.md")
    assert len(page.chunks) >= 3
    return page


@browser_test
def test_page_list_page_and_chunk_record(example_inspector: tuple[Path, list[PageChunks]],
                                         open_page: Any) -> None:
    index, pages = example_inspector
    tab = open_page
    tab.goto(index.as_uri())
    assert tab.locator("#page-list li").count() == len(pages)
    page = configuration(pages)
    entry = tab.locator(f'#page-list li[data-path="{page.source_path}"]')
    assert f"{len(page.chunks)} chunks" in entry.text_content()

    open_page_entry(tab, page)
    assert tab.locator("#page-view .chunk").count() == len(page.chunks)
    assert tab.locator("#page-view .page-head h2").text_content() == page.chunks[0].file_title
    tints = [tab.locator(f"#chunk-{n}").get_attribute("class").split()[1] for n in range(3)]
    assert tints == ["tint-0", "tint-1", "tint-0"]
    chosen = page.chunks[1]
    open_chunk(tab, chosen)
    assert shown_record(tab) == native(chosen)
    assert "selected" in tab.locator("#chunk-1").get_attribute("class").split()
    assert tab.locator("#page-view .chunk.selected").count() == 1


@browser_test
def test_counts_read_as_the_builds_and_ids_open_their_page(
        example_inspector: tuple[Path, list[PageChunks]], open_page: Any) -> None:
    """The summary counts pages as the build does (an empty page has no chunk), counts read
    in the singular where there is one, and an id from the index in the address opens it."""
    index, pages = example_inspector
    tab = open_page
    tab.goto(index.as_uri())
    with_chunks = sum(bool(page.chunks) for page in pages)
    assert with_chunks < len(pages)  # the example site has an empty page
    summary = tab.locator("#summary").text_content()
    assert summary.startswith(f"{with_chunks} pages · "), summary
    single = next(page for page in pages if len(page.chunks) == 1)
    entry = tab.locator(f'#page-list li[data-path="{single.source_path}"]')
    assert "1 chunk" in entry.text_content() and "1 chunks" not in entry.text_content()
    page = configuration(pages)
    tab.goto(f"{index.as_uri()}#{page.chunks[0].parent_id}")
    assert tab.locator("#page-view .page-head h2").text_content() == page.chunks[0].file_title
    chosen = page.chunks[1]
    tab.goto(f"{index.as_uri()}#{chosen.id}")
    assert shown_record(tab) == native(chosen)


@browser_test
def test_chunk_links_open_the_site(example_inspector: tuple[Path, list[PageChunks]],
                                   open_page: Any) -> None:
    index, pages = example_inspector
    tab = open_page
    chosen = configuration(pages).chunks[1]
    tab.goto(f"{index.as_uri()}#chunk={chosen.id}")
    link = tab.locator("#record-site-link")
    assert link.get_attribute("href") == expected_site_href(chosen.url)
    target = urlsplit(link.evaluate("a => a.href"))
    opened = Path(unquote(target.path))
    assert opened.is_file() and f'id="{target.fragment}"' in opened.read_text(encoding="utf-8")

    # absoluteUrl only when asked
    tab.locator("#record-links input[type=checkbox]").check()
    assert link.get_attribute("href") == chosen.absolute_url
    assert chosen.absolute_url.startswith("https://example.com/docs/")
    tab.locator("#record-links input[type=checkbox]").uncheck()
    assert link.get_attribute("href") == expected_site_href(chosen.url)

    # the home page ("" url) links to ../index.html
    home = next(p for p in pages if p.url == "").chunks[0]
    tab.goto(f"{index.as_uri()}#chunk={home.id}")
    assert shown_record(tab)["id"] == home.id
    assert tab.locator("#record-site-link").get_attribute("href") == expected_site_href(home.url)
    assert expected_site_href(home.url).startswith("../index.html")


@browser_test
def test_histogram_counts_every_chunk_and_draws_the_limit(
        example_inspector: tuple[Path, list[PageChunks]], open_page: Any) -> None:
    index, pages = example_inspector
    tab = open_page
    tab.goto(index.as_uri())
    bars = tab.locator("#histogram svg rect.bar")
    assert bars.count() > 16
    titles = tab.locator("#histogram svg rect.bar title").all_text_contents()
    total = sum(len(p.chunks) for p in pages)
    assert sum(int(re.search(r": (\d+) chunks", t).group(1)) for t in titles) == total
    ranges = [re.match(r"(\d+)\u2013(\d+) tokens", t) for t in titles]
    for bar, found in zip(bars.all(), ranges, strict=True):
        low = int(found.group(1)) if found else 10**9  # the last bin, `> N`, is over
        assert ("over" in bar.get_attribute("class").split()) == (low > 512)
    assert sum(1 for found in ranges if found and int(found.group(2)) <= 512) == 16
    assert tab.locator("#histogram svg line.max-line").count() == 1
    max_x = float(tab.locator("#histogram svg line.max-line").get_attribute("x1"))
    assert max_x == pytest.approx(float(bars.nth(16).get_attribute("x")) - 0.5, abs=0.02)
    assert tab.locator("#histogram svg .max-label").text_content() == "max_tokens 512"


@browser_test
def test_oversize_list_leads_to_the_chunk(example_inspector: tuple[Path, list[PageChunks]],
                                          open_page: Any) -> None:
    from playwright.sync_api import expect

    index, pages = example_inspector
    tab = open_page
    tab.goto(index.as_uri())
    oversize = [c for p in pages for c in p.chunks if c.flags.allow_oversize]
    assert oversize
    assert tab.locator("#oversize-list li").count() == len(oversize)
    site_link = tab.locator("#oversize-list a.site-link").first
    assert site_link.get_attribute("href") == expected_site_href(oversize[0].url)
    tab.locator("#oversize-list a.chunk-link").first.click()
    expect(tab.locator("#record")).to_contain_text(f'"id": "{oversize[0].id}"')
    assert shown_record(tab)["flags"]["allowOversize"] is True
    assert tab.locator("#page-view .chunk.selected .flag-oversize").count() == 1


@browser_test
def test_filter_shows_fewer_chunks_and_pages(example_inspector: tuple[Path, list[PageChunks]],
                                             open_page: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    index, pages = example_inspector
    tab = open_page
    tab.goto(index.as_uri())
    page = configuration(pages)
    open_page_entry(tab, page)
    chosen = page.chunks[1]
    query = chosen.section_title.lower()
    expected = [c for c in page.chunks if query in (c.text + "\n" + c.breadcrumb).lower()]
    assert 0 < len(expected) < len(page.chunks)
    visible = tab.locator("#page-view .chunk:visible")
    assert visible.count() == len(page.chunks)
    tab.locator("#filter").fill(chosen.section_title)
    expect(tab.locator("#filter-count")).not_to_have_text("")
    assert visible.count() == len(expected)
    assert 0 < tab.locator("#page-list li").count() < len(pages)
    open_chunk(tab, chosen)
    keep_screenshot(tab, tmp_path)
    assert (tmp_path / "inspector.png").stat().st_size > 10_000
    tab.locator("#filter").fill("")
    expect(tab.locator("#filter-count")).to_have_text("")
    assert visible.count() == len(page.chunks)


@browser_test
def test_hostile_page_text_stays_text(tmp_path: Path, open_page: Any) -> None:
    pages = chunk_pages({"": "<h1 id='home'>Home</h1><p>Welcome.</p>", "guide/": HOSTILE_HTML})
    index = write_inspector(tmp_path / "site", pages, max_tokens=16)
    tab = open_page
    tab.goto(f"{index.as_uri()}#page=guide.md")
    markdown = tab.locator("#page-view .markdown")
    assert HOSTILE_MARKDOWN in markdown.text_content()
    assert tab.locator("#page-view script, #page-view img").count() == 0
    last = pages[1].chunks[-1]
    tab.locator(f"#chunk-{last.chunk_number}").click()
    tab.locator("#record-section").wait_for(state="visible")
    assert shown_record(tab) == native(last)  # offsets right past astral characters
