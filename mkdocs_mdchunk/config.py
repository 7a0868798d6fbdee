"""The plugin's options: a MkDocs `Config` whose chunking part is checked by the core schema."""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c

from mdchunk.errors import OptionError
from mdchunk.options import OVERLAP_MODES, PRESETS, ChunkOptions, check_output_path
from mdchunk.outputs.llms import OPTIONS as LLMS
from mdchunk.outputs.llms import LlmsOptions
from mdchunk.outputs.pagefind import DEFAULT_FOLDER, PagefindSettings
from mdchunk.profiles import check_formats

_KINDS = {bool: "a bool (true or false)", int: "an integer", str: "a str (text)",
          dict: "a mapping"}


def _allowed(types: type | tuple[type, ...]) -> str:
    kinds = types if isinstance(types, tuple) else (types,)
    return " or ".join(_KINDS.get(kind, kind.__name__) for kind in kinds)


class _Typed(c.Type[Any]):
    """`config_options.Type` whose message shows the bad value (MkDocs' shows only its type)."""

    def run_validation(self, value: object) -> Any:
        try:
            return super().run_validation(value)
        except c.ValidationError as error:
            raise c.ValidationError(
                f"{error} (must be {_allowed(self._type)}, got {value!r})") from None


class _ListOf(c.ListOfItems[str]):
    """A list of strings; the message shows the bad value."""

    def __init__(self, default: list[str]) -> None:
        super().__init__(_Typed(str), default=default)

    def run_validation(self, value: object) -> list[str]:
        if not isinstance(value, list):
            raise c.ValidationError(f"must be a list of str, got {value!r}")
        for item in value:
            if not isinstance(item, str):
                raise c.ValidationError(f"must be a list of str, got {item!r} in {value!r}")
        return super().run_validation(value)


class _RelativePath(_Typed):
    """A path inside the site folder: relative, without `..`."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        path: str = super().run_validation(value)
        try:
            return check_output_path(path)
        except OptionError as error:
            raise c.ValidationError(error.message) from None


class MdChunkConfig(base.Config):
    """Options of the `mdchunk` plugin (`plugins: - mdchunk: {...}` in mkdocs.yml)."""

    enabled = _Typed(bool, default=True)
    """Turn the plugin off without removing it (e.g. `enabled: !ENV [MDCHUNK, true]`)."""
    # Chunking options are None when not set, so that a preset can fill them; the core's
    # defaults (ChunkOptions) apply otherwise.
    max_tokens = c.Optional(_Typed(int))
    """Largest chunk in tokens (512); only a code block, table or equation may exceed it."""
    min_tokens = c.Optional(_Typed(int))
    """Chunks smaller than this (50) merge with a neighbour of the same section when it fits."""
    split_level = c.Optional(_Typed(int))
    """Headings at this level or above (2; 1 = H1) always start a new chunk."""
    overlap_tokens = c.Optional(_Typed(int))
    """Context shared with neighbouring chunks, in tokens (0: none)."""
    overlap_mode = c.Optional(c.Choice(OVERLAP_MODES))
    """`metadata` (default): previousContent/nextContent; `text`: chunks start with the last
    tail of their section."""
    encoding = c.Optional(_Typed(str))
    """tiktoken encoding of every token count (cl100k_base)."""
    embed_template = c.Optional(_Typed(str))
    """Template of embedText: {context}, {text}, {title}, {breadcrumb}, {section}, {url}."""
    preset = c.Optional(c.Choice(tuple(PRESETS)))
    """code-heavy, structured, minimal or adr: defaults for the options above."""
    adaptive_sizing = c.Optional(_Typed((dict, bool)))
    """`{base_size, min_scale, max_scale}` or true: scale each section's budget with its
    complexity (seed 000)."""
    output = _RelativePath(default="chunks.jsonl")
    """Where the native chunk index is written, relative to the site folder."""
    formats = _ListOf(default=["native"])
    """Output formats to write: native, files, hepilot, semantic, flat, markdown_chunker, adr,
    docsearch, sqlite, pagefind (see `mdchunk.profiles`)."""
    pagefind_output = _Typed(str, default=DEFAULT_FOLDER)
    """Folder of the Pagefind bundle (format `pagefind`), relative to the site folder."""
    pagefind_filters = _ListOf(default=[])
    """Front matter keys whose values become Pagefind filters, besides `tags`."""
    pagefind_search_page = _Typed(bool, default=False)
    """Write `_mdchunk/search.html`: Pagefind's search UI over the section bundle."""
    workers = c.Optional(_Typed(int))
    """Worker processes that chunk pages while MkDocs renders the next ones; 0 chunks inline.
    Default: one, started once the site proves large enough to repay it, where a second core is
    free."""
    cache = _Typed(bool, default=True)
    """Keep each chunked page in `cache_dir`: the next `mkdocs build` chunks only the pages whose
    HTML, title or metadata changed (all of them when an option, the mdchunk version, site_url
    or SOURCE_DATE_EPOCH changed), and `mkdocs build --dirty` takes the pages it does not render
    from it. A kept page keeps the `processedAt` of the build that chunked it."""
    cache_dir = _Typed(str, default=".cache/mdchunk")
    """Folder of the page cache, relative to the folder of mkdocs.yml (an absolute path is used
    as is)."""
    inspector = c.Optional(_Typed(bool))
    """Write the chunk inspector (`_mdchunk/index.html` in the site); default: under serve."""
    write_markdown = _Typed(bool, default=True)
    """Write each page's Markdown beside its HTML (`index.md` next to `index.html`)."""
    exclude = _ListOf(default=[])
    """Glob patterns of source paths (relative to docs_dir) whose pages are left out."""
    llms_txt = _Typed(bool, default=LLMS["llms_txt"])
    """Write llms.txt, llms-full.txt and each page's Markdown at its url + .md."""
    llms_full = _Typed(bool, default=LLMS["llms_full"])
    """Write llms-full.txt: every page's Markdown, in files within llms_full_max_tokens."""
    llms_full_max_tokens = _Typed(int, default=LLMS["llms_full_max_tokens"])
    """Most tokens in one llms-full file (unless one page alone holds more)."""
    llms_optional = _ListOf(default=LLMS["llms_optional"])
    """Glob patterns of source paths whose pages go under `## Optional` in llms.txt."""
    llms_directive = _Typed(bool, default=LLMS["llms_directive"])
    """Point to llms.txt from each page's Markdown twin and, hidden, from its HTML."""

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
        if not failed and not self.cache_dir.strip():
            failed.append(("cache_dir", c.ValidationError(
                f"must name a folder, got {self.cache_dir!r}")))
        if not failed and self.workers is not None and self.workers < 0:
            failed.append(("workers", c.ValidationError(
                f"must be 0 (chunk inline) or more, got {self.workers!r}")))
        if not failed:
            try:
                self.chunk_options()
                self.llms_options()
                check_formats(self.formats)
                self.pagefind_settings()
            except OptionError as error:
                failed.append((error.option, c.ValidationError(error.message)))
        return failed, warnings

    def pagefind_settings(self, site_name: str = "") -> PagefindSettings:
        """Where the Pagefind bundle goes and whether a search page does (raises
        `OptionError` on a bad value)."""
        return PagefindSettings.validated(folder=self.pagefind_output,
                                          search_page=self.pagefind_search_page,
                                          formats=self.formats, site_name=site_name)

    def chunk_options(self) -> ChunkOptions:
        """The core's options from this config (raises `OptionError` on a bad combination)."""
        fields = {field.name for field in dataclasses.fields(ChunkOptions)}
        values: dict[str, Any] = {name: self[name] for name in fields}
        return ChunkOptions.validated(values)

    def llms_options(self) -> LlmsOptions | None:
        """The agent outputs' options (None: off); raises `OptionError` on a bad value."""
        return LlmsOptions.validated({name: self[name] for name in LLMS})
