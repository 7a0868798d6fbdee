"""The garbage collector is paused while a page is chunked, and left as it was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from mdchunk import Chunker, ChunkOptions, PageInput
from mdchunk.collector import collector_paused
from mdchunk.page_output import OutputSettings, page_output

PAGE = PageInput(
    html="<h1 id='t'>Title</h1><p>Some text.</p><h2 id='s'>Section</h2><p>More text here.</p>",
    source_path="page.md", url="page/", title="Title",
)


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def chunker_recording(seen: list[bool], *, fail: bool = False) -> Chunker:
    """A chunker whose counter notes whether the collector was on at each count."""

    def count(text: str) -> int:
        seen.append(gc.isenabled())
        if fail:
            raise RuntimeError("tokenizer broke")
        return len(text.split())

    return Chunker(ChunkOptions(), counter=count)


def test_chunking_a_page_pauses_the_collector_and_turns_it_back_on(collector_on: None) -> None:
    seen: list[bool] = []
    result = chunker_recording(seen).chunk_page(PAGE)
    assert result.chunks
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_page_that_fails_turns_the_collector_back_on(collector_on: None) -> None:
    seen: list[bool] = []
    with pytest.raises(RuntimeError, match="tokenizer broke"):
        chunker_recording(seen, fail=True).chunk_page(PAGE)
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off(collector_on: None) -> None:
    gc.disable()
    seen: list[bool] = []
    chunker = chunker_recording(seen)
    page_output(chunker.chunk_page(PAGE), OutputSettings(formats=("native", "flat")))
    assert not gc.isenabled()
    gc.enable()


def test_records_are_made_with_the_collector_paused(collector_on: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import mdchunk.page_output as module

    seen: list[bool] = []
    real = module.encoded_page_records

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "encoded_page_records", recording)
    chunker = Chunker(ChunkOptions())
    output = page_output(chunker.chunk_page(PAGE), OutputSettings())
    assert output.records["native"]
    assert seen == [False]
    assert gc.isenabled()


def test_a_pause_inside_a_pause_leaves_it_to_the_outer_one(collector_on: None) -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


@pytest.mark.parametrize("values", [{}, {"overlap_tokens": 32, "overlap_mode": "text"},
                                    {"adaptive_sizing": True, "max_tokens": 96}])
def test_chunked_pages_leave_no_cycles_behind(collector_on: None, values: dict[str, object]
                                              ) -> None:
    # Everything a page makes is freed by reference counting once dropped: the collector,
    # paused while the page is chunked, finds nothing to do after it.
    from tests.test_native import rendered_pages

    pages = [PageInput(html=html, source_path=source, url=source.removesuffix(".md") + "/",
                       title=source) for source, html in rendered_pages()]
    chunker = Chunker(ChunkOptions.validated(values))
    settings = OutputSettings(formats=("native", "flat", "files"), inspector=True)
    page_output(chunker.chunk_page(pages[0]), settings)  # (lazy imports, memos)
    gc.collect()
    gc.disable()
    try:
        outputs = [page_output(chunker.chunk_page(page), settings) for page in pages]
        assert sum(output.chunks for output in outputs) > len(pages)
        assert gc.collect() == 0
    finally:
        gc.enable()
