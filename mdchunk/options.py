"""The one schema of chunking options, shared by both engine adapters and the CLI."""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Mapping
from typing import Any, Literal

from mdchunk.errors import OptionError

OverlapMode = Literal["metadata", "text"]
OVERLAP_MODES: tuple[str, ...] = ("metadata", "text")
BoundedField = Literal["embedText", "originalText"]
BOUNDED_FIELDS: tuple[str, ...] = ("embedText", "originalText")
"""The record fields `max_tokens` may bound (`max_tokens_bounds`)."""
EmbedLinks = Literal["text", "markdown"]
EMBED_LINKS: tuple[str, ...] = ("text", "markdown")
"""How links read in embedText (`embed_links`): as their text, or as Markdown links."""

#: Placeholders the embed template may use, with what they stand for.
EMBED_FIELDS: Mapping[str, str] = {
    "text": "the chunk's originalText (with `embed_links: text`, each link as its text)",
    "context": "the page title and the breadcrumb, joined with ' > ' (no repeats)",
    "title": "the page title (fileTitle)",
    "breadcrumb": "the headerBreadcrumb ('A > B > C')",
    "section": "the section title",
    "url": "the chunk's url",
}
DEFAULT_EMBED_TEMPLATE = "{context}\n\n{text}"

#: Named sets of options (seed 000's configuration profiles, seed 004's decision). Options the
#: user sets explicitly win over the preset's.
PRESETS: Mapping[str, Mapping[str, Any]] = {
    # Code documentation: room for whole examples, fewer tiny chunks.
    "code-heavy": {"max_tokens": 1024, "min_tokens": 100, "split_level": 2},
    # Deeply structured pages: H3 sections start chunks too.
    "structured": {"max_tokens": 512, "min_tokens": 50, "split_level": 3},
    # Fine-grained retrieval: small chunks.
    "minimal": {"max_tokens": 128, "min_tokens": 16, "split_level": 3},
    # Seed 004 (ADR-0184): split at ##, 1024 / 50 tokens, no overlap between sections, and an
    # oversized section split by sentences with 100 tokens of overlap between its parts.
    "adr": {"max_tokens": 1024, "min_tokens": 50, "split_level": 2, "overlap_tokens": 100,
            "overlap_mode": "text"},
}


@dataclasses.dataclass(frozen=True, slots=True)
class AdaptiveSizing:
    """Seed 000's adaptive sizing: each section's budget scales with its complexity.

    complexity = min(1, code_ratio * 1.0 + table_ratio * 0.8 + list_ratio * 0.5
                        + sentence_length_norm * 0.3)               (0.0 simple .. 1.0 complex)

    The ratios are shares of the section's characters; sentence_length_norm is the mean words
    per sentence of its prose over 40, capped at 1. The weights reproduce seed 000's table of
    typical values (short plain text 0.0-0.2, text with lists 0.4-0.6, code 0.8-1.0).
    scale_factor = min_scale + complexity * (max_scale - min_scale)
    adaptive_size = base_size * scale_factor                        (tokens, not characters)
    """

    base_size: int = 512
    """Budget of a section of average complexity, in tokens."""
    min_scale: float = 0.5
    """Scale of the simplest text."""
    max_scale: float = 1.5
    """Scale of the most complex text (code, tables)."""

    @classmethod
    def from_value(cls, value: object) -> AdaptiveSizing | None:
        """From a mapping (`{base_size, min_scale, max_scale}`), an instance, True or None."""
        if value is None or value is False or isinstance(value, AdaptiveSizing):
            return value or None
        if value is True:
            return cls()
        if not isinstance(value, Mapping):
            raise OptionError("adaptive_sizing", f"must be a mapping or true, got {value!r}")
        known = {f.name for f in dataclasses.fields(cls)}
        for key in value:
            if key not in known:
                raise OptionError("adaptive_sizing", f"unknown key {key!r}; keys: "
                                  + ", ".join(sorted(known)))
        sizing = cls(**value)
        _check_int("adaptive_sizing.base_size", sizing.base_size, minimum=16)
        for name in ("min_scale", "max_scale"):
            scale = getattr(sizing, name)
            if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0 < scale <= 4:
                raise OptionError(f"adaptive_sizing.{name}", f"must be a number in (0, 4], "
                                  f"got {scale!r}")
        if sizing.min_scale > sizing.max_scale:
            raise OptionError("adaptive_sizing.min_scale",
                              f"must not exceed max_scale ({sizing.max_scale}), "
                              f"got {sizing.min_scale}")
        return sizing

    def size(self, complexity: float) -> tuple[float, int]:
        """The scale factor (3 decimals, as recorded) and the adaptive size it gives, for a
        complexity in [0, 1]: a chunk's `adaptiveSize` is `base_size * sizeScaleFactor`."""
        scale = round(self.min_scale + complexity * (self.max_scale - self.min_scale), 3)
        return scale, max(16, round(self.base_size * scale))


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkOptions:
    """How pages are cut into chunks. Every field is an option of both engines.

    Validate with [`ChunkOptions.validated`][]; a bad value raises `OptionError` naming the option.
    """

    max_tokens: int = 512
    """Largest chunk in tokens; only an atomic block (code, table, math) may exceed it."""
    min_tokens: int = 50
    """Chunks under this merge with a neighbour of the same section when the result fits."""
    split_level: int = 3
    """Headings at this level or above (1 = H1) always start a new chunk. H3 by default: the
    retrieval benchmark (benchmarks/RESULTS.md) finds the linked section more often, and more of
    it within a token budget, than with H2, on both query variants."""
    overlap_tokens: int = 0
    """Context shared with neighbours, in tokens; 0 turns overlap off."""
    overlap_mode: OverlapMode = "metadata"
    """`metadata`: neighbour context in previousContent/nextContent, text never duplicated.
    `text`: each chunk starts with the tail of the previous chunk of its section."""
    encoding: str = "cl100k_base"
    """tiktoken encoding used for every token count."""
    embed_template: str = DEFAULT_EMBED_TEMPLATE
    """Template of embedText: {text}, {context}, {title}, {breadcrumb}, {section}, {url}."""
    embed_links: EmbedLinks = "text"
    """How links read in embedText: `text`, each Markdown link as its text and each image as
    its alt text (a link's destination is a url, which tells an embedding model or a keyword
    index next to nothing and takes room in its window; the retrieval benchmark finds the
    linked section more often without them, benchmarks/RESULTS.md); `markdown`, as in
    originalText."""
    max_tokens_bounds: BoundedField = "embedText"
    """The text `max_tokens` bounds: `embedText` (what an embedding model reads: the context
    line counts in the budget) or `originalText` (the chunk's text alone, the context line on
    top), for pipelines that embed originalText."""
    preset: str | None = None
    """A name from `PRESETS`; the options it sets are defaults that explicit options override."""
    adaptive_sizing: AdaptiveSizing | None = None
    """Scale each section's budget with its complexity (seed 000); None turns it off."""

    @classmethod
    def validated(cls, values: Mapping[str, Any]) -> ChunkOptions:
        """Build options from user values, checking each one and how they fit together.

        A value of None means "not set": the preset's value, else the default, applies.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        for name in values:
            if name not in known:
                choices = ", ".join(sorted(known))
                raise OptionError(name, f"unknown option; known options: {choices}")
        explicit = {name: value for name, value in values.items() if value is not None}
        preset = explicit.get("preset")
        if preset is not None and preset not in PRESETS:
            raise OptionError("preset", f"must be one of {', '.join(PRESETS)}, got {preset!r}")
        merged = {**(PRESETS[preset] if preset else {}), **explicit}
        if "adaptive_sizing" in merged:
            merged["adaptive_sizing"] = AdaptiveSizing.from_value(merged["adaptive_sizing"])
        options = cls(**merged)
        options.check()
        return options

    def check(self) -> None:
        """Raise `OptionError` for the first bad value."""
        _check_int("max_tokens", self.max_tokens, minimum=16)
        _check_int("min_tokens", self.min_tokens, minimum=0)
        _check_int("split_level", self.split_level, minimum=1, maximum=6)
        _check_int("overlap_tokens", self.overlap_tokens, minimum=0)
        if self.min_tokens >= self.max_tokens:
            raise OptionError(
                "min_tokens",
                f"must be smaller than max_tokens ({self.max_tokens}), got {self.min_tokens}",
            )
        smallest, what = self.max_tokens, "max_tokens"
        if self.adaptive_sizing is not None:
            smallest, what = self.adaptive_sizing.size(0.0)[1], "the smallest adaptive size"
        if self.overlap_tokens * 2 > smallest:
            raise OptionError(
                "overlap_tokens",
                f"must be at most half of {what} ({smallest // 2}), got {self.overlap_tokens}",
            )
        if self.overlap_mode not in OVERLAP_MODES:
            raise OptionError(
                "overlap_mode",
                f"must be one of {', '.join(OVERLAP_MODES)}, got {self.overlap_mode!r}",
            )
        if self.embed_links not in EMBED_LINKS:
            raise OptionError(
                "embed_links",
                f"must be one of {', '.join(EMBED_LINKS)}, got {self.embed_links!r}",
            )
        if self.max_tokens_bounds not in BOUNDED_FIELDS:
            raise OptionError(
                "max_tokens_bounds",
                f"must be one of {', '.join(BOUNDED_FIELDS)}, got {self.max_tokens_bounds!r}",
            )
        check_encoding_name(self.encoding)
        check_embed_template(self.embed_template)

    def packing_budget(self, size: int | None = None) -> int:
        """Tokens a chunk of budget `size` (default max_tokens) may hold before any text overlap
        is prefixed."""
        size = self.max_tokens if size is None else size
        if self.overlap_mode == "text":
            return size - self.overlap_tokens
        return size

    def as_dict(self) -> dict[str, Any]:
        """The options as plain JSON values (recorded in every chunk's metadata)."""
        return dataclasses.asdict(self)


def _check_int(name: str, value: object, *, minimum: int, maximum: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(name, f"must be an integer, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        allowed = f"{minimum}..{maximum}" if maximum is not None else f">= {minimum}"
        raise OptionError(name, f"must be {allowed}, got {value}")


def check_embed_template(template: object) -> None:
    """Raise `OptionError` unless `template` is a format string over `EMBED_FIELDS`."""
    if not isinstance(template, str):
        raise OptionError("embed_template", f"must be a string, got {template!r}")
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise OptionError("embed_template",
                          f"is not a valid template ({error}), got {template!r}") from error
    for name in fields:
        if name not in EMBED_FIELDS:
            allowed = ", ".join("{" + key + "}" for key in EMBED_FIELDS)
            raise OptionError(
                "embed_template",
                f"unknown placeholder {{{name}}} in {template!r}; allowed: {allowed}"
            )
    if "text" not in fields:
        raise OptionError("embed_template", f"must contain {{text}}, got {template!r}")


TIKTOKEN_ENCODINGS = frozenset({"gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base",
                                "o200k_base"})
"""The encodings every tiktoken mdchunk supports defines (the oldest, 0.7, included): one of
them is known without importing tiktoken and reading its plugins' registry, which would cost
every build process tens of milliseconds of CPU, where an unchanged site never loads a
tokenizer. A newer one (`o200k_harmony`) is looked up in the registry of the tiktoken
installed."""


def check_encoding_name(name: object) -> None:
    """Raise `OptionError` unless tiktoken knows the encoding `name` (nothing is downloaded):
    one of its own (`TIKTOKEN_ENCODINGS`) or one a tiktoken plugin registers."""
    if isinstance(name, str) and name in TIKTOKEN_ENCODINGS:
        return
    import tiktoken

    known = tiktoken.list_encoding_names()
    if not isinstance(name, str) or (name not in known and f"{name}_offline" not in known):
        choices = ", ".join(sorted(n for n in known if not n.endswith("_offline")))
        raise OptionError("encoding", f"unknown tiktoken encoding {name!r}; known: {choices}")


def check_output_path(value: object, option: str = "output") -> str:
    """A path inside the site (output) folder: relative, without `..`, no drive or UNC prefix.

    Backslashes count as separators too, so a Windows path cannot slip through on POSIX.
    Raises `OptionError` naming `option` and the value.
    """
    if not isinstance(value, str):
        raise OptionError(option, f"must be a relative path (text), got {value!r}")
    parts = value.replace("\\", "/").split("/")
    if not value or value.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
        raise OptionError(option, "must be a relative path inside the site folder, without "
                          f"'..', got {value!r}")
    return value
