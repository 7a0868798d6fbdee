"""The build session's worker processes: the same index whoever chunks, a bounded queue, and no
process for a site too small to repay one."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest

from mdchunk.chunking import PageInput
from mdchunk.errors import MdChunkError
from mdchunk.options import ChunkOptions
from mdchunk.session import workers as session
from mdchunk.session.builder import IndexBuilder
from mdchunk.session.page_job import JobSettings
from mdchunk.session.workers import WorkerPool
from mdchunk.settings import BuildSettings, LlmsOptions, OutputSettings
from tests.conftest import child_pids

PROCESSED_AT = "2024-01-01T00:00:00Z"


def _children() -> set[int]:
    """The processes this one started that have not been reaped (its workers)."""
    return child_pids(os.getpid())


def _pages(count: int, words: int = 200) -> list[PageInput]:
    return [PageInput(html=f"<h1>Page {number}</h1><p>{'Some words. ' * words}</p>"
                           f"<h2 id='more'>More</h2><pre><code>x = {number}</code></pre>",
                      source_path=f"p{number}.md", url=f"p{number}/", title=f"Page {number}")
            for number in range(count)]


def _index(tmp_path: Path, name: str, pages: list[PageInput], **settings: object) -> bytes:
    """Build an index of `pages` with these settings; return the native index and flat file."""
    site = tmp_path / name
    builder = IndexBuilder(BuildSettings(output=OutputSettings(formats=("native", "flat")),
                                         **settings),  # type: ignore[arg-type]
                           site_dir=site)
    try:
        for page in pages:
            builder.add_page(page, markdown_path=f"{page.url}index.md")
        builder.finish([page.source_path for page in pages])
    finally:
        builder.close()
    return (site / "chunks.jsonl").read_bytes() + (site / "chunks.flat.jsonl").read_bytes()


def test_workers_write_the_index_chunking_inline_writes(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # records without timings
    pages = _pages(6)
    inline = _index(tmp_path, "inline", pages, workers=0)
    assert inline.count(b"\n") >= 12
    assert _index(tmp_path, "one", pages, workers=1) == inline
    assert _index(tmp_path, "two", pages, workers=2) == inline


def _site(tmp_path: Path, name: str, pages: list[PageInput], *, cache: Path | None = None,
          **settings: object) -> dict[str, bytes]:
    """Build `pages` into the site folder `name` (with the agent outputs); return its files."""
    site = tmp_path / name
    builder = IndexBuilder(BuildSettings(llms=LlmsOptions(), **settings),  # type: ignore[arg-type]
                           site_dir=site, cache=cache)
    try:
        for page in pages:
            builder.add_page(page, markdown_path=f"{page.url}index.html.md")
        builder.finish([page.source_path for page in pages])
    finally:
        builder.close()
    return {str(path.relative_to(site)): path.read_bytes()
            for path in sorted(site.rglob("*")) if path.is_file()}


def test_a_page_s_own_files_are_the_same_wherever_it_is_chunked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's Markdown and its twin, written where the page is chunked (a worker, or the
    build's own process), are those a build writes of a page it finds in the page cache."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = [*_pages(3), PageInput(html="<h1>Empty</h1>", source_path="empty.md",
                                   url="empty/", title="Empty")]
    inline = _site(tmp_path, "inline", pages, workers=0)
    assert {"p0/index.html.md", "p0.md", "empty.md", "llms.txt"} <= set(inline)
    assert inline["p0.md"].startswith(b"> Markdown of [Page 0]")
    assert _site(tmp_path, "worker", pages, workers=1) == inline
    cache = tmp_path / "cache"
    assert _site(tmp_path, "filled", pages, workers=1, cache=cache) == inline
    assert _site(tmp_path, "from-cache", pages, workers=1, cache=cache) == inline


def test_a_small_site_starts_no_process_and_a_large_one_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left to mdchunk, a worker starts only once the site proved large enough to repay it."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(session, "available_cores", lambda: 2)
    before = _children()
    small = _pages(3)
    builder = IndexBuilder(BuildSettings(), site_dir=tmp_path / "small")
    for page in small:
        builder.add_page(page, markdown_path=f"{page.url}index.md")
    assert _children() == before
    builder.finish([page.source_path for page in small])
    monkeypatch.setattr(session, "WORKER_AFTER_SECONDS", 0.0)
    for page in _pages(3, words=201):
        builder.add_page(page, markdown_path=f"{page.url}index.md")
    assert _children() - before  # past the time: a worker chunks
    summary = builder.finish([page.source_path for page in small])
    builder.close()
    assert len(summary.pages) == 3 and all(page.chunks >= 2 for page in summary.pages)


def test_a_site_said_to_be_large_sends_every_page_to_a_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The engine says how much it will render: a site that repays a worker gets one at its
    first page to chunk, which chunks every page; a smaller one is chunked in the engine's
    process; a site whose pages the cache holds starts none."""
    caplog.set_level(logging.DEBUG, logger="mdchunk")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(session, "available_cores", lambda: 2)
    before = _children()
    pages = _pages(3)
    small = IndexBuilder(BuildSettings(), site_dir=tmp_path / "small")
    small.expect(session.WORKER_FOR_BYTES - 1)
    for page in pages:
        small.add_page(page, markdown_path=f"{page.url}index.html.md")
    small.finish([page.source_path for page in pages])
    assert _children() == before
    assert "3 pages chunked inline" in caplog.text
    small.close()
    cache = tmp_path / "cache"
    large = IndexBuilder(BuildSettings(), site_dir=tmp_path / "large", cache=cache)
    large.expect(session.WORKER_FOR_BYTES)
    assert _children() == before  # (no page yet)
    for page in pages:
        large.add_page(page, markdown_path=f"{page.url}index.html.md")
    assert _children() - before
    summary = large.finish([page.source_path for page in pages])
    large.close()
    assert all(page.chunks >= 2 for page in summary.pages)
    assert "3 pages chunked in the worker process" in caplog.text
    again = IndexBuilder(BuildSettings(), site_dir=tmp_path / "large", cache=cache)
    again.expect(session.WORKER_FOR_BYTES)
    for page in pages:
        again.add_page(page, markdown_path=f"{page.url}index.html.md")
    assert _children() == before  # every page from the cache
    again.finish([page.source_path for page in pages])
    again.close()


def test_on_one_core_every_page_is_chunked_in_the_engine_s_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On a machine of one core no worker starts, for a site said to be large nor for one whose
    chunking takes long: a worker would take turns with the engine on that core."""
    caplog.set_level(logging.DEBUG, logger="mdchunk")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(session, "available_cores", lambda: 1)
    monkeypatch.setattr(session, "WORKER_AFTER_SECONDS", 0.0)
    before = _children()
    pages = _pages(3)
    for name, expected in (("unsaid", None), ("large", session.WORKER_FOR_BYTES)):
        builder = IndexBuilder(BuildSettings(), site_dir=tmp_path / name)
        if expected is not None:
            builder.expect(expected)
        for page in pages:
            builder.add_page(page, markdown_path=f"{page.url}index.html.md")
        assert _children() == before, name
        summary = builder.finish([page.source_path for page in pages])
        builder.close()
        assert all(page.chunks >= 2 for page in summary.pages)
    assert caplog.text.count("3 pages chunked inline") == 2


def test_pages_wait_for_room_in_the_queue(tmp_path: Path) -> None:
    """Submitting a page first waits for all but the last `max_in_flight` pages sent: a worker
    slower than the engine never leaves every page's HTML queued in the build's process."""
    pool = WorkerPool(JobSettings(ChunkOptions(), PROCESSED_AT, OutputSettings(),
                                  tmp_path / "cache", "settings"))
    pool.max_in_flight = 2
    try:
        futures = []
        for number, page in enumerate(_pages(6)):
            futures.append(pool.submit(page, f"key{number}", ""))
            assert all(future.done() for future in futures[:-2])
        results = [future.result() for future in futures]
    finally:
        pool.close()
    assert all(result.chunks >= 2 and result.stored for result in results)


def test_a_page_sent_to_a_worker_keeps_its_html_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine keeps every page's HTML to the end of its build: sending a page must not
    attach a UTF-8 copy to that text (pickling a non-ASCII str does), and the worker must see
    the same text, lone surrogates included."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = [PageInput(html=f"<h1>Été</h1><p>{'Ünïcödé wörds. ' * 2000}{odd}</p>",
                       source_path=f"u{number}.md", url=f"u{number}/", title="Été")
             for number, odd in enumerate(["", "A lone \ud800 surrogate."])]
    sizes = [sys.getsizeof(page.html) for page in pages]
    inline = _index(tmp_path, "inline", pages, workers=0)
    assert _index(tmp_path, "worker", pages, workers=1) == inline
    assert [sys.getsizeof(page.html) for page in pages] == sizes


def test_the_workers_name_their_counter_once_loaded_and_asking_starts_nothing(
        tmp_path: Path) -> None:
    from mdchunk.chunking.tokens import counter_name

    pool = WorkerPool(JobSettings(ChunkOptions(), PROCESSED_AT, OutputSettings(),
                                  tmp_path / "cache", "settings"))
    before = _children()
    try:
        assert pool.counter is None
        assert _children() == before  # no process started for the question
        pool.submit(_pages(1)[0], "key", "").result()
        assert pool.counter == counter_name("cl100k_base")
    finally:
        pool.close()


def test_a_page_whose_files_cannot_be_written_from_the_cache_stops_the_build_naming_it(
        tmp_path: Path) -> None:
    """The files of a page found in the cache are written from its entry; one that cannot be
    written stops the build with a message naming the page, not a traceback."""
    pages = _pages(3)
    cache = tmp_path / "cache"
    _site(tmp_path, "site", pages, workers=0, cache=cache)
    site = tmp_path / "again"
    (site / "p1" / "index.html.md").mkdir(parents=True)  # where p1's Markdown goes
    builder = IndexBuilder(BuildSettings(llms=LlmsOptions(), workers=0), site_dir=site,
                           cache=cache)
    try:
        with pytest.raises(MdChunkError, match=r"cannot write the Markdown of p1\.md"):
            for page in pages:
                builder.add_page(page, markdown_path=f"{page.url}index.html.md")
    finally:
        builder.close()
