"""Every option a user sets, in one schema, and how a build's settings are made from them.

The MkDocs plugin declares each entry of `SITE_OPTIONS` as a plugin option and the Sphinx
extension as `mdchunk_<name>`; the `mdchunk` command reads them from its flags and `--config`
files. All hand the values to `build_settings`, which checks them all (types, ranges and how
they fit together) and raises `OptionError` naming the first bad one, and makes the one
`BuildSettings` of the build. So every front end accepts the same values, says the same things
about bad ones, and the README documents one list.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from mdchunk.chunking.tokens import COUNTERS
from mdchunk.errors import OptionError
from mdchunk.options import (
    BOUNDED_FIELDS,
    EMBED_LINKS,
    OVERLAP_MODES,
    PRESETS,
    ChunkOptions,
    check_output_path,
)
from mdchunk.outputs.catalog import check_formats
from mdchunk.search.kinds import KINDS, check_kind
from mdchunk.settings import (
    DEFAULT_FOLDER,
    DUPLICATE_MODES,
    LLMS_OPTIONS,
    VERSION_VARIABLES,
    BuildSettings,
    LlmsOptions,
    OutputSettings,
    PagefindSettings,
    build_site_url,
    build_version,
    checked_mode,
)

_KINDS = {bool: "a bool (true or false)", int: "an integer", str: "a str (text)",
          dict: "a mapping", list: "a list of str"}

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

MKDOCS = "mkdocs"
"""An option of the MkDocs plugin alone (`SiteOption.engines`)."""
BOTH = frozenset({MKDOCS, "sphinx"})
COMMAND = "command"
"""A setting of the `mdchunk` command alone, given as a flag (`SiteOption.engines`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class SiteOption:
    """One option: its name as users write it, its default, the kinds of value it takes."""

    name: str
    default: Any
    kinds: tuple[type, ...]
    """`list` means a list of str; None is always accepted where the default is None."""
    summary: str
    """What it does, in a line (the README's table says it at length)."""
    engines: frozenset[str] = BOTH
    why_not: str = ""
    """Why the engines that lack the option have no use for it (said when one sets it)."""

    def check(self, value: object) -> None:
        """Raise `OptionError` unless `value` is of one of the option's kinds."""
        if value is None and self.default is None:
            return
        if any(_is_kind(value, kind) for kind in self.kinds):
            return
        allowed = " or ".join(_KINDS.get(kind, kind.__name__) for kind in self.kinds)
        shown = f"{value!r}"
        if list in self.kinds and isinstance(value, list | tuple):
            shown = next(f"{item!r} in {value!r}" for item in value if not isinstance(item, str))
        raise OptionError(self.name, f"must be {allowed}, got {shown}")

    def from_text(self, text: str) -> Any:
        """The value of `text` given on a command line (`sphinx-build -D`), read as the
        option's kind: `300`, `true`/`0`, `native,flat`. Text that is no such value stays text,
        for `check` to name."""
        if str in self.kinds:
            return text
        word = text.strip().lower()
        if bool in self.kinds and word in _TRUE + _FALSE:
            return word in _TRUE
        if int in self.kinds and word.lstrip("-").isdigit():
            return int(word)
        if list in self.kinds:
            return [item.strip() for item in text.split(",") if item.strip()]
        return text


def _is_kind(value: object, kind: type) -> bool:
    if kind is list:
        return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _chunking(name: str, kinds: tuple[type, ...], summary: str) -> SiteOption:
    """A chunking option: None when not set, so that a preset can fill it (then the core's
    default, `ChunkOptions`, applies)."""
    return SiteOption(name, None, kinds, summary)


SITE_OPTIONS: tuple[SiteOption, ...] = (
    SiteOption("enabled", True, (bool,),
               "Turn mdchunk off without removing it (e.g. `enabled: !ENV [MDCHUNK, true]`)."),
    _chunking("max_tokens", (int,), "Largest chunk in tokens (512); only a code block, table "
              "or equation may exceed it."),
    _chunking("min_tokens", (int,), "Chunks smaller than this (50) merge with a neighbour of "
              "the same section when it fits."),
    _chunking("split_level", (int,), "Headings at this level or above (3; 1 = H1) always "
              "start a new chunk."),
    _chunking("overlap_tokens", (int,), "Context shared with neighbouring chunks, in tokens "
              "(0: none)."),
    _chunking("overlap_mode", (str,), f"One of {', '.join(OVERLAP_MODES)}: neighbour context "
              "in previousContent/nextContent, or chunks that start with the last tail of "
              "their section."),
    _chunking("encoding", (str,), "tiktoken encoding of every token count (cl100k_base)."),
    _chunking("embed_template", (str,), "Template of embedText: {context}, {text}, {title}, "
              "{breadcrumb}, {section}, {url}."),
    _chunking("embed_links", (str,), f"One of {', '.join(EMBED_LINKS)}: links in embedText "
              "read as their text (images as their alt text), or as Markdown links."),
    _chunking("max_tokens_bounds", (str,), f"One of {', '.join(BOUNDED_FIELDS)}: the text "
              "max_tokens bounds (embedText: the context line counts in the budget)."),
    _chunking("preset", (str,), f"One of {', '.join(PRESETS)}: defaults for the chunking "
              "options."),
    _chunking("adaptive_sizing", (dict, bool), "`{base_size, min_scale, max_scale}` or true: "
              "scale each section's budget with its complexity."),
    SiteOption("version", None, (str,),
               f"The version of the docs this build makes (`1.0`), in every record and at the "
               f"head of every id; default: {', then '.join(VERSION_VARIABLES)} (set by mike "
               "and Read the Docs), else none (see docs/versions.md)."),
    SiteOption("output", "chunks.jsonl", (str,),
               "Where the native chunk index is written, relative to the site folder."),
    SiteOption("formats", ["native"], (list,), "Output formats to write (see docs/formats.md)."),
    SiteOption("write_markdown", True, (bool,),
               "Write each page's Markdown beside its HTML (`index.html.md` next to "
               "`index.html`): the text the chunks' offsets index."),
    SiteOption("duplicates", "mark", (str,),
               f"One of {', '.join(DUPLICATE_MODES)}: duplicate chunks (the same or nearly the "
               "same text as an earlier chunk) are marked in the native index, also left out "
               "of the embedding formats, or not looked for."),
    SiteOption("exclude", [], (list,),
               "Glob patterns of source paths whose pages are left out."),
    SiteOption("inspector", None, (bool,),
               "Write the chunk inspector (`_mdchunk/index.html`); default: under mkdocs serve."),
    SiteOption("page_kinds", {}, (dict,),
               f"Glob patterns over page urls and the kind of the pages they match (one of "
               f"{', '.join(KINDS)}), for the priors of `mdchunk query` and `mdchunk mcp`; "
               "kept in chunks.sqlite."),
    SiteOption("pagefind_output", DEFAULT_FOLDER, (str,),
               "Folder of the Pagefind bundle (format `pagefind`), relative to the site folder."),
    SiteOption("pagefind_filters", [], (list,),
               "Front matter keys whose values become Pagefind filters, besides `tags`."),
    SiteOption("pagefind_search_page", False, (bool,),
               "Write `_mdchunk/search.html`: Pagefind's search UI over the section bundle."),
    SiteOption("embed_model", None, (str,),
               "Store a vector of each chunk in chunks.sqlite (needs the sqlite format), made "
               "by this model: wordllama, model2vec:NAME_OR_PATH, sentence-transformers:NAME "
               "or fastembed:NAME (see docs/query.md)."),
    SiteOption("llms_txt", LLMS_OPTIONS["llms_txt"], (bool,),
               "Write llms.txt, llms-full.txt and each page's Markdown twin at its url with "
               "`.md` for its `/` or `.html` (`guide/install.md`, `install.md`)."),
    SiteOption("llms_full", LLMS_OPTIONS["llms_full"], (bool,),
               "Write llms-full.txt: every page's Markdown, in files within "
               "llms_full_max_tokens."),
    SiteOption("llms_full_max_tokens", LLMS_OPTIONS["llms_full_max_tokens"], (int,),
               "Most tokens in one llms-full file (unless one page alone holds more)."),
    SiteOption("llms_optional", LLMS_OPTIONS["llms_optional"], (list,),
               "Glob patterns of source paths whose pages go under `## Optional` in llms.txt."),
    SiteOption("llms_directive", LLMS_OPTIONS["llms_directive"], (bool,),
               "Point to llms.txt from each page's Markdown twin and, hidden, from its HTML."),
    SiteOption("workers", None, (int,),
               "Worker processes that chunk pages while MkDocs renders the next ones; 0 chunks "
               "inline. Default: one, once the site proves large enough to repay it.",
               frozenset({MKDOCS}), "a serial Sphinx build starts one where a core is free, "
               "and under -j N Sphinx's own writer processes chunk the pages"),
    SiteOption("cache", True, (bool,),
               "Keep each chunked page in `cache_dir`, so that the next build chunks only the "
               "pages that changed and `mkdocs build --dirty` keeps the others.",
               frozenset({MKDOCS}), "Sphinx's incremental builds keep unchanged pages"),
    SiteOption("cache_dir", ".cache/mdchunk", (str,),
               "Folder of the page cache, relative to the folder of mkdocs.yml.",
               frozenset({MKDOCS}), "mdchunk keeps its page cache in Sphinx's doctree folder"),
    SiteOption("tokenizer", None, (str,),
               f"The token counter, one of auto, {', '.join(COUNTERS)} (all give tiktoken's "
               "counts); default: MDCHUNK_TOKENIZER, else auto.",
               frozenset({COMMAND}), "the environment variable MDCHUNK_TOKENIZER names it"),
)


def options_of(engine: str) -> tuple[SiteOption, ...]:
    """The options an engine offers."""
    return tuple(option for option in SITE_OPTIONS if engine in option.engines)


def option_elsewhere(name: str, engine: str) -> SiteOption | None:
    """The option `name` when another engine has it and `engine` does not."""
    return next((option for option in SITE_OPTIONS
                 if option.name == name and engine not in option.engines), None)


def suggestion(name: str, engine: str, prefix: str = "", *, also: Sequence[str] = ()) -> str:
    """What to tell a user who set `name`, which is no option of `engine`: the closest name,
    then every name (each written with the engine's `prefix`); `also`: names a user may write
    there besides the options (`site_url` in a `--config` file)."""
    import difflib  # (only for a misspelt option)

    names = [*(option.name for option in options_of(engine)), *also]
    known = [prefix + option for option in names]
    close = difflib.get_close_matches(prefix + name, known, n=1)
    return (f"did you mean '{close[0]}'? " if close else "") + f"options: {', '.join(known)}"


def _checked_page_kinds(value: Mapping[Any, Any]) -> tuple[tuple[str, str], ...]:
    """The `page_kinds` option as (glob, kind) pairs, in the order given.

    Raises:
        OptionError: naming a pattern that is no text or a kind that is no page kind.
    """
    for pattern, kind in value.items():
        if not isinstance(pattern, str) or not pattern.strip():
            raise OptionError("page_kinds", f"a pattern must be a glob over page urls such as "
                              f"'changelog/*', got {pattern!r}")
        problem = check_kind(kind)
        if problem:
            raise OptionError("page_kinds", f"{pattern!r}: {problem}")
    return tuple((pattern, kind) for pattern, kind in value.items())


@dataclasses.dataclass(frozen=True, slots=True)
class SiteFacts:
    """What the engine knows of the site that the settings depend on."""

    site_url: str = ""
    site_name: str = ""
    language: str | None = None
    """The build's natural language (MkDocs' theme or its i18n plugin, Sphinx's `language`)."""
    language_folder: str = ""
    """The folder of the build's language in a site built once per language
    (`OutputSettings.language_folder`); "" for the default language or a single build."""
    serving: bool = False
    """Whether a development server runs the build (the inspector's default)."""


def build_settings(values: Mapping[str, Any], site: SiteFacts) -> BuildSettings:
    """The settings of a build from the options a user set (missing: the default).

    Raises:
        OptionError: naming the first bad value.
    """
    given = {option.name: values.get(option.name, option.default) for option in SITE_OPTIONS}
    for option in SITE_OPTIONS:
        option.check(given[option.name])
    if given["workers"] is not None and given["workers"] < 0:
        raise OptionError("workers", f"must be 0 (chunk inline) or more, got {given['workers']}")
    checked_mode(given["duplicates"])
    tokenizer = given["tokenizer"]
    if tokenizer is not None and tokenizer not in ("auto", *COUNTERS):
        raise OptionError("tokenizer", f"must be one of auto, {', '.join(COUNTERS)}, got "
                          f"{tokenizer!r}")
    if not given["cache_dir"].strip():
        raise OptionError("cache_dir", f"must name a folder, got {given['cache_dir']!r}")
    page_kinds = _checked_page_kinds(given["page_kinds"])
    chunking = {field.name: given[field.name] for field in dataclasses.fields(ChunkOptions)}
    inspector = given["inspector"]
    version = build_version(given["version"], os.environ)
    return BuildSettings(
        options=ChunkOptions.validated(chunking),
        output=OutputSettings(formats=tuple(check_formats(given["formats"])),
                              language=site.language,
                              language_folder=site.language_folder,
                              inspector=bool(inspector or (inspector is None and site.serving)),
                              pagefind_filters=tuple(given["pagefind_filters"])),
        index=check_output_path(given["output"]),
        site_url=build_site_url(site.site_url, version, site.language_folder),
        version=version,
        exclude=tuple(given["exclude"]), page_kinds=page_kinds,
        write_markdown=given["write_markdown"],
        workers=given["workers"], tokenizer=given["tokenizer"],
        pagefind=PagefindSettings.validated(
            folder=given["pagefind_output"], search_page=given["pagefind_search_page"],
            formats=given["formats"], site_name=site.site_name),
        llms=LlmsOptions.validated({name: given[name] for name in LLMS_OPTIONS}),
        duplicates=given["duplicates"],
        embed_model=_embed_model(given["embed_model"], given["formats"]))


def _embed_model(name: str | None, formats: Sequence[str]) -> str | None:
    """The `embed_model` option, checked (its model is loaded when the build starts).

    Raises:
        OptionError: an unknown kind of model, or no sqlite format to hold the vectors.
    """
    if name is None:
        return None
    from mdchunk.search.embedders import EmbedderError, check_model_name

    try:
        check_model_name(name)
    except EmbedderError as error:
        raise OptionError("embed_model", str(error)) from error
    if "sqlite" not in formats:
        raise OptionError("embed_model", f"needs the sqlite format, which holds the vectors; "
                          f"got {name!r} with formats {list(formats)}: add sqlite to formats")
    return name
