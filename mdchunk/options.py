"""The one schema of chunking options, shared by both engine adapters and the CLI."""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Mapping
from typing import Any, Literal

from mdchunk.errors import OptionError

OverlapMode = Literal["metadata", "text"]
OVERLAP_MODES: tuple[str, ...] = ("metadata", "text")

#: Placeholders the embed template may use, with what they stand for.
EMBED_FIELDS: Mapping[str, str] = {
    "text": "the chunk's originalText",
    "context": "the page title and the breadcrumb, joined with ' > ' (no repeats)",
    "title": "the page title (fileTitle)",
    "breadcrumb": "the headerBreadcrumb ('A > B > C')",
    "section": "the section title",
    "url": "the chunk's url",
}
DEFAULT_EMBED_TEMPLATE = "{context}\n\n{text}"


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkOptions:
    """How pages are cut into chunks. Every field is an option of both engines.

    Validate with [`ChunkOptions.validated`][]; a bad value raises `OptionError` naming the option.
    """

    max_tokens: int = 512
    """Largest chunk in tokens; only an atomic block (code, table, math) may exceed it."""
    min_tokens: int = 50
    """Chunks under this merge with a neighbour of the same section when the result fits."""
    split_level: int = 2
    """Headings at this level or above (1 = H1) always start a new chunk."""
    overlap_tokens: int = 0
    """Context shared with neighbours, in tokens; 0 turns overlap off."""
    overlap_mode: OverlapMode = "metadata"
    """`metadata`: neighbour context in previousContent/nextContent, text never duplicated.
    `text`: each chunk starts with the tail of the previous chunk of its section."""
    encoding: str = "cl100k_base"
    """tiktoken encoding used for every token count."""
    embed_template: str = DEFAULT_EMBED_TEMPLATE
    """Template of embedText: {text}, {context}, {title}, {breadcrumb}, {section}, {url}."""

    @classmethod
    def validated(cls, values: Mapping[str, Any]) -> ChunkOptions:
        """Build options from user values, checking each one and how they fit together."""
        known = {f.name for f in dataclasses.fields(cls)}
        for name in values:
            if name not in known:
                choices = ", ".join(sorted(known))
                raise OptionError(name, f"unknown option; known options: {choices}")
        options = cls(**values)
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
        if self.overlap_tokens * 2 > self.max_tokens:
            raise OptionError(
                "overlap_tokens",
                f"must be at most half of max_tokens ({self.max_tokens // 2}), "
                f"got {self.overlap_tokens}",
            )
        if self.overlap_mode not in OVERLAP_MODES:
            raise OptionError(
                "overlap_mode",
                f"must be one of {', '.join(OVERLAP_MODES)}, got {self.overlap_mode!r}",
            )
        check_encoding_name(self.encoding)
        check_embed_template(self.embed_template)

    @property
    def packing_budget(self) -> int:
        """Tokens a chunk may hold before any text overlap is prefixed."""
        if self.overlap_mode == "text":
            return self.max_tokens - self.overlap_tokens
        return self.max_tokens

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
        raise OptionError("embed_template", f"is not a valid template: {error}") from error
    for name in fields:
        if name not in EMBED_FIELDS:
            allowed = ", ".join("{" + key + "}" for key in EMBED_FIELDS)
            raise OptionError(
                "embed_template", f"unknown placeholder {{{name}}}; allowed: {allowed}"
            )
    if "text" not in fields:
        raise OptionError("embed_template", "must contain {text}")


def check_encoding_name(name: object) -> None:
    """Raise `OptionError` unless tiktoken knows the encoding `name` (nothing is downloaded)."""
    import tiktoken

    known = tiktoken.list_encoding_names()
    if not isinstance(name, str) or (name not in known and f"{name}_offline" not in known):
        choices = ", ".join(sorted(n for n in known if not n.endswith("_offline")))
        raise OptionError("encoding", f"unknown tiktoken encoding {name!r}; known: {choices}")
