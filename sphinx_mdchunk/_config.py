"""The `mdchunk_*` config values: the core's chunking options plus the writer's, one schema."""

from __future__ import annotations

import dataclasses
import difflib
from types import NoneType
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from mdchunk.errors import OptionError
from mdchunk.options import ChunkOptions, check_output_path
from mdchunk.outputs.llms import OPTIONS as LLMS
from mdchunk.outputs.llms import LlmsOptions
from mdchunk.outputs.pagefind import DEFAULT_FOLDER, PagefindSettings
from mdchunk.profiles import check_formats

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

_DEFAULTS = ChunkOptions()

#: Options beyond chunking, with their defaults and types.
WRITER_OPTIONS: dict[str, tuple[Any, tuple[type, ...]]] = {
    "enabled": (True, (bool,)),
    "output": ("chunks.jsonl", (str,)),
    "write_markdown": (True, (bool,)),
    "exclude": ([], (list, tuple)),
    "formats": (["native"], (list, tuple)),
    "inspector": (False, (bool,)),
    "pagefind_output": (DEFAULT_FOLDER, (str,)),
    "pagefind_filters": ([], (list, tuple)),
    "pagefind_search_page": (False, (bool,)),
}


def chunk_option_names() -> list[str]:
    """Names of the core's chunking options (without the `mdchunk_` prefix)."""
    return [field.name for field in dataclasses.fields(ChunkOptions)]


def register_config_values(app: Sphinx) -> None:
    """Add `mdchunk_<name>` for every option; a change rewrites the HTML (and so the chunks).

    Chunking options default to None ("not set"), so that `mdchunk_preset` can fill them; the
    core's defaults apply otherwise.
    """
    for name in chunk_option_names():
        default = getattr(_DEFAULTS, name)
        types = (dict, bool, NoneType) if name == "adaptive_sizing" else (
            type(default) if default is not None else str, NoneType)
        app.add_config_value(f"mdchunk_{name}", None, "html", types=types)
    for name, (default, types) in WRITER_OPTIONS.items():
        app.add_config_value(f"mdchunk_{name}", default, "html", types=types)
    for name, default in LLMS.items():
        app.add_config_value(f"mdchunk_{name}", default, "html")


#: Options of the MkDocs plugin that Sphinx builds have no use for, with why.
MKDOCS_ONLY = {
    "workers": "Sphinx's own -j N chunks pages in parallel",
    "cache": "Sphinx's incremental builds keep unchanged pages",
    "cache_dir": "mdchunk keeps its page store in Sphinx's doctree folder",
}


def unknown_names(config: Config) -> list[str]:
    """A message for each `mdchunk_*` name set in conf.py (or with -D) that is no option."""
    known = {f"mdchunk_{name}" for name in [*chunk_option_names(), *WRITER_OPTIONS, *LLMS]}
    given = [*config._raw_config, *config._overrides]
    messages = []
    for name in dict.fromkeys(given):
        if not name.startswith("mdchunk_") or name in known:
            continue
        option = name.removeprefix("mdchunk_")
        if option in MKDOCS_ONLY:
            messages.append(f"{name} is an option of the MkDocs plugin only and is ignored "
                            f"here: {MKDOCS_ONLY[option]}")
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        messages.append(f"{name} is not an mdchunk option and is ignored; {hint}"
                        f"options: {', '.join(sorted(known))}")
    return messages


def chunk_options(config: Config) -> ChunkOptions:
    """The core options from `conf.py`; a bad value raises `ExtensionError` naming it."""
    values = {name: getattr(config, f"mdchunk_{name}") for name in chunk_option_names()}
    try:
        options = ChunkOptions.validated(values)
    except OptionError as error:
        raise ExtensionError(
            f"mdchunk_{error.option} = {values.get(error.option)!r}: {error.message}"
        ) from error
    _check_writer_options(config)
    llms_options(config)
    return options


def llms_options(config: Config) -> LlmsOptions | None:
    """The agent outputs' options from `conf.py`; a bad value raises `ExtensionError`."""
    values = {name: getattr(config, f"mdchunk_{name}") for name in LLMS}
    try:
        return LlmsOptions.validated(values)
    except OptionError as error:
        raise ExtensionError(
            f"mdchunk_{error.option} = {values.get(error.option)!r}: {error.message}"
        ) from error


def _check_writer_options(config: Config) -> None:
    for name, (_, types) in WRITER_OPTIONS.items():
        value = getattr(config, f"mdchunk_{name}")
        if not isinstance(value, types):
            expected = " or ".join(t.__name__ for t in types)
            raise ExtensionError(f"mdchunk_{name} = {value!r}: must be a {expected}")
    try:
        check_output_path(config.mdchunk_output)
    except OptionError as error:
        raise ExtensionError(f"mdchunk_output = {config.mdchunk_output!r}: {error.message}"
                             ) from error
    try:
        check_formats(config.mdchunk_formats)
    except OptionError as error:
        raise ExtensionError(f"mdchunk_formats = {config.mdchunk_formats!r}: {error.message}"
                             ) from error
    for name in ("exclude", "pagefind_filters"):
        values = getattr(config, f"mdchunk_{name}")
        if not all(isinstance(value, str) for value in values):
            raise ExtensionError(f"mdchunk_{name} = {values!r}: must be a list of strings")
    pagefind_settings(config)


def pagefind_settings(config: Config, site_name: str = "") -> PagefindSettings:
    """Where the Pagefind bundle goes and whether a search page does (`site_name` in its
    title); a bad value raises `ExtensionError` naming it."""
    try:
        return PagefindSettings.validated(
            folder=config.mdchunk_pagefind_output, search_page=config.mdchunk_pagefind_search_page,
            formats=config.mdchunk_formats, site_name=site_name)
    except OptionError as error:
        raise ExtensionError(f"mdchunk_{error.option} = "
                             f"{getattr(config, f'mdchunk_{error.option}')!r}: {error.message}"
                             ) from error
