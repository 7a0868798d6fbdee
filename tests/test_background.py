"""The worker processes: pages chunked there match inline chunking, and the queue is bounded."""

from __future__ import annotations

import pytest

from mdchunk.build.workers import BackgroundChunker
from mdchunk.chunking import Chunker, PageInput
from mdchunk.options import ChunkOptions
from mdchunk.outputs.pages import OutputSettings, page_output

PROCESSED_AT = "2024-01-01T00:00:00Z"


def _pages(count: int) -> list[PageInput]:
    return [PageInput(html=f"<h1>Page {number}</h1><p>{'Some words. ' * 200}</p>"
                           f"<h2 id='more'>More</h2><pre><code>x = {number}</code></pre>",
                      source_path=f"p{number}.md", url=f"p{number}/", title=f"Page {number}")
            for number in range(count)]


def test_pages_wait_for_room_and_match_inline_chunking(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `max_in_flight=2`, submitting a page first waits for all but the last page sent:
    a worker slower than the engine never leaves every page's HTML queued in its process."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # records without timings
    options = ChunkOptions.validated({})
    settings = OutputSettings(formats=("native", "flat"))
    background = BackgroundChunker(options, processed_at=PROCESSED_AT, output=settings,
                                   max_in_flight=2)
    try:
        futures = []
        for page in _pages(6):
            futures.append(background.submit(page))
            assert all(future.done() for future in futures[:-2])
        results = [future.result() for future in futures]
    finally:
        background.close()
    inline = Chunker(options, processed_at=PROCESSED_AT)
    expected = [page_output(inline.chunk_page(page), settings) for page in _pages(6)]
    assert results == expected
    assert all(result.chunks >= 2 and not result.stored for result in results)


def test_a_page_sent_to_a_worker_keeps_its_html_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine keeps every page's HTML to the end of its build: sending a page must not
    attach a UTF-8 copy to that text (pickling a non-ASCII str does), and the worker must see
    the same text, lone surrogates included."""
    import sys

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pages = [PageInput(html=f"<h1>Été</h1><p>{'Ünïcödé wörds. ' * 2000}{odd}</p>",
                       source_path=f"u{number}.md", url=f"u{number}/", title="Été")
             for number, odd in enumerate(["", "A lone \ud800 surrogate."])]
    sizes = [sys.getsizeof(page.html) for page in pages]
    options = ChunkOptions.validated({})
    background = BackgroundChunker(options, processed_at=PROCESSED_AT, output=OutputSettings())
    try:
        results = [background.submit(page).result() for page in pages]
    finally:
        background.close()
    assert [sys.getsizeof(page.html) for page in pages] == sizes
    inline = Chunker(options, processed_at=PROCESSED_AT)
    assert results == [page_output(inline.chunk_page(page), OutputSettings()) for page in pages]


def test_the_workers_name_their_counter_once_loaded_and_asking_starts_nothing() -> None:
    from mdchunk.tokens import counter_name

    options = ChunkOptions.validated({})
    background = BackgroundChunker(options, processed_at=PROCESSED_AT, output=OutputSettings())
    try:
        assert background.counter is None
        assert background._pool is None  # no process started for the question
        background.submit(_pages(1)[0]).result()
        assert background.counter == counter_name(options.encoding)
    finally:
        background.close()
