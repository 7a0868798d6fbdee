"""The plugin's options: a MkDocs `Config` whose chunking part is checked by the core schema."""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c

from mdchunk.errors import OptionError
from mdchunk.options import DEFAULT_EMBED_TEMPLATE, ChunkOptions
from mdchunk.profiles import check_formats

_DEFAULTS = ChunkOptions()


class _RelativePath(c.Type[str]):
    """A path inside the site folder: relative, without `..`."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        path = super().run_validation(value)
        parts = path.replace("\\", "/").split("/")
        if not path or path.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
            raise c.ValidationError(
                f"must be a relative path inside the site folder, without '..', got {path!r}"
            )
        return path


class MdChunkConfig(base.Config):
    """Options of the `mdchunk` plugin (`plugins: - mdchunk: {...}` in mkdocs.yml)."""

    enabled = c.Type(bool, default=True)
    """Turn the plugin off without removing it (e.g. `enabled: !ENV [MDCHUNK, true]`)."""
    max_tokens = c.Type(int, default=_DEFAULTS.max_tokens)
    """Largest chunk in tokens; only a code block, table or equation may exceed it."""
    min_tokens = c.Type(int, default=_DEFAULTS.min_tokens)
    """Chunks smaller than this merge with a neighbour of the same section when it fits."""
    split_level = c.Type(int, default=_DEFAULTS.split_level)
    """Headings at this level or above (1 = H1) always start a new chunk."""
    overlap_tokens = c.Type(int, default=_DEFAULTS.overlap_tokens)
    """Context shared with neighbouring chunks, in tokens (0: none)."""
    overlap_mode = c.Choice(("metadata", "text"), default=_DEFAULTS.overlap_mode)
    """`metadata`: previousContent/nextContent fields; `text`: chunks start with the last tail."""
    encoding = c.Type(str, default=_DEFAULTS.encoding)
    """tiktoken encoding of every token count."""
    embed_template = c.Type(str, default=DEFAULT_EMBED_TEMPLATE)
    """Template of embedText: {context}, {text}, {title}, {breadcrumb}, {section}, {url}."""
    output = _RelativePath(default="chunks.jsonl")
    """Where the native chunk index is written, relative to the site folder."""
    formats = c.ListOfItems(c.Type(str), default=["native"])
    """Output formats to write: native, files, hepilot, semantic, flat, markdown_chunker, adr,
    docsearch (see `mdchunk.profiles`)."""
    write_markdown = c.Type(bool, default=True)
    """Write each page's Markdown beside its HTML (`index.md` next to `index.html`)."""
    exclude = c.ListOfItems(c.Type(str), default=[])
    """Glob patterns of source paths (relative to docs_dir) whose pages are left out."""

    def validate(self) -> tuple[list[tuple[str, Exception]], list[tuple[str, str]]]:
        """Check each option, then the chunking options together (through the core schema)."""
        failed, warnings = super().validate()
        known = sorted(name for name, _ in self._schema)
        for key, message in list(warnings):
            if message.startswith("Unrecognised configuration name"):  # a typo must not pass
                warnings.remove((key, message))
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"did you mean '{close[0]}'? " if close else ""
                failed.append((key, c.ValidationError(
                    f"Unrecognised configuration name: {key}; {hint}options: {', '.join(known)}"
                )))
        if not failed:
            try:
                self.chunk_options()
                check_formats(self.formats)
            except OptionError as error:
                failed.append((error.option, c.ValidationError(error.message)))
        return failed, warnings

    def chunk_options(self) -> ChunkOptions:
        """The core's options from this config (raises `OptionError` on a bad combination)."""
        fields = {field.name for field in dataclasses.fields(ChunkOptions)}
        values: dict[str, Any] = {name: self[name] for name in fields}
        return ChunkOptions.validated(values)
