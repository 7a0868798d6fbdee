"""What a build asks of mdchunk: one settings object (`BuildSettings`) and its parts.

The types and their own checks live here, below chunking and the outputs, so that every layer
reads the same object; `mdchunk.session.config.build_settings` makes one from the options a user
set, through the one schema (`SITE_OPTIONS`), for every front end (the MkDocs plugin, the Sphinx
extension, the `mdchunk` command and its `--config` files).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Literal, cast

from mdchunk._version import code_identity
from mdchunk.errors import OptionError
from mdchunk.options import ChunkOptions, check_output_path


def user_cache_folder(name: str) -> Path:
    """mdchunk's folder `name` in the user's cache: `$XDG_CACHE_HOME/mdchunk/NAME`
    (`~/.cache/mdchunk/NAME` without it), for what outlives one build and one site (the MCP
    server's indexes of read-only sites, `mdchunk embed`'s vectors)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mdchunk" / name


# -- duplicates -----------------------------------------------------------------------------------

DuplicateMode = Literal["mark", "drop", "off"]
DUPLICATE_MODES: tuple[str, ...] = ("mark", "drop", "off")
"""The `duplicates` option's values: mark duplicate chunks in the native index, also leave them
out of the embedding formats, or look for none."""


def checked_mode(value: object) -> DuplicateMode:
    """The `duplicates` option's value, checked.

    Raises:
        OptionError: when it is not one of `DUPLICATE_MODES`.
    """
    if value not in DUPLICATE_MODES:
        raise OptionError("duplicates", f"must be one of {', '.join(DUPLICATE_MODES)}, got "
                          f"{value!r}")
    return cast("DuplicateMode", value)



# -- the agent outputs -------------------------------------------------------------------------

DEFAULT_FULL_MAX_TOKENS = 100_000
"""`llms_full_max_tokens` by default: a file that fits the context window of the models coding
agents commonly run on, with room left for the question and the answer."""

LLMS_OPTIONS: Mapping[str, Any] = {
    "llms_txt": True,
    "llms_full": True,
    "llms_full_max_tokens": DEFAULT_FULL_MAX_TOKENS,
    "llms_optional": [],
    "llms_directive": True,
}
"""The agent outputs' options with their defaults, as users write them (MkDocs plugin options;
`mdchunk_<name>` in Sphinx; `mdchunk site` flags)."""

@dataclasses.dataclass(frozen=True, slots=True)
class LlmsOptions:
    """What to write for agents besides the index (`LLMS_OPTIONS`, validated)."""

    full: bool = True
    """Write `llms-full.txt` (split into files within `full_max_tokens` where needed)."""
    full_max_tokens: int = DEFAULT_FULL_MAX_TOKENS
    """Most tokens in one `llms-full` file, unless one page alone holds more."""
    optional: tuple[str, ...] = ()
    """Glob patterns of source paths whose pages go under `## Optional`."""
    directive: bool = True
    """Open each twin with a note, and each HTML page with a hidden element, that point to
    `llms.txt`."""

    @classmethod
    def validated(cls, values: Mapping[str, Any]) -> LlmsOptions | None:
        """The options from user values named as in `LLMS_OPTIONS` (missing or None: the
        default); None when `llms_txt` is off.

        Raises:
            OptionError: naming the first bad value.
        """
        unknown = sorted(set(values) - set(LLMS_OPTIONS))
        if unknown:
            raise OptionError(unknown[0], f"unknown option; known: {', '.join(LLMS_OPTIONS)}")
        given = {name: values.get(name) for name in LLMS_OPTIONS}
        merged = {name: LLMS_OPTIONS[name] if value is None else value
                  for name, value in given.items()}
        for name in ("llms_txt", "llms_full", "llms_directive"):
            if not isinstance(merged[name], bool):
                raise OptionError(name, f"must be a bool (true or false), got {merged[name]!r}")
        budget = merged["llms_full_max_tokens"]
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise OptionError("llms_full_max_tokens", f"must be an integer of 1 or more "
                              f"(tokens), got {budget!r}")
        optional = merged["llms_optional"]
        if not isinstance(optional, list | tuple) or not all(
                isinstance(pattern, str) for pattern in optional):
            raise OptionError("llms_optional", f"must be a list of glob patterns (str), got "
                              f"{optional!r}")
        if not merged["llms_txt"]:
            return None
        return cls(full=merged["llms_full"], full_max_tokens=budget, optional=tuple(optional),
                   directive=merged["llms_directive"])


# -- the Pagefind bundle ------------------------------------------------------------------------

DEFAULT_FOLDER = "pagefind"
"""The bundle's folder in the site: where Pagefind's search looks for it by default."""
SEARCH_PAGE = "_mdchunk/search.html"
"""Where the search page goes in the site (beside the chunk inspector)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PagefindSettings:
    """Where the bundle goes, and whether a search page goes with it."""

    folder: str = DEFAULT_FOLDER
    """The bundle's folder, relative to the site folder."""
    search_page: bool = False
    """Write `SEARCH_PAGE`, Pagefind's UI over the bundle."""
    site_name: str = ""
    """The site's name, in the search page's title."""

    @classmethod
    def validated(cls, *, folder: object = DEFAULT_FOLDER, search_page: object = False,
                  formats: Sequence[str] = (), site_name: str = "") -> PagefindSettings:
        """The settings from the user's options (`pagefind_output`, `pagefind_search_page`).

        Raises:
            OptionError: a folder outside the site or in mdchunk's own folder, a search page
                without the `pagefind` format.
        """
        if not isinstance(search_page, bool):
            raise OptionError("pagefind_search_page", f"must be true or false, got "
                              f"{search_page!r}")
        if search_page and "pagefind" not in formats:
            raise OptionError("pagefind_search_page", f"must be false without the pagefind "
                              f"format, got {search_page!r}: the search page searches the "
                              "Pagefind bundle; add pagefind to formats")
        return cls(check_bundle_folder(folder), search_page, site_name)


def check_bundle_folder(value: object) -> str:
    """A folder inside the site, other than the site folder itself and mdchunk's `_mdchunk`
    (which the chunk inspector replaces whole); raises `OptionError` naming
    `pagefind_output`."""
    folder = check_output_path(value, "pagefind_output").replace("\\", "/").rstrip("/")
    parts = folder.split("/")
    if any(part in ("", ".") for part in parts):
        raise OptionError("pagefind_output", f"must name a folder inside the site, got "
                          f"{value!r}")
    if parts[0] == PurePosixPath(SEARCH_PAGE).parts[0]:
        raise OptionError("pagefind_output", f"must not be in {parts[0]}/, which mdchunk "
                          f"replaces whole; got {value!r}")
    return folder


# -- the version of the docs ---------------------------------------------------------------------

VERSION_VARIABLES: tuple[str, ...] = ("MIKE_DOCS_VERSION", "READTHEDOCS_VERSION")
"""Where a build finds its version when the `version` option names none, in this order: mike
sets the first when it runs the build (`mike deploy`), Read the Docs the second."""


def names_version_folder(name: str) -> bool:
    """Whether `name` can name a version's folder in a tree, as mike checks a version: not
    empty, not `.` or `..`, no `/` or `\\`."""
    return bool(name.strip()) and name not in (".", "..") and not any(
        separator in name for separator in ("/", "\\"))


def check_version(value: str, origin: str = "version") -> str:
    """A version, checked (`names_version_folder`, and no spaces at its ends nor control
    characters); raises `OptionError` naming `origin` (the option, or the environment
    variable it came from)."""
    if not names_version_folder(value):
        raise OptionError(origin, f"must name a version folder (no /, \\, . or ..; e.g. "
                          f"'1.0'), got {value!r}")
    if value != value.strip() or any(not character.isprintable() for character in value):
        raise OptionError(origin, f"must be a version without spaces at its ends or control "
                          f"characters, got {value!r}")
    return value


def build_version(option: str | None, environ: Mapping[str, str]) -> str | None:
    """The build's version: the `version` option, else the first of `VERSION_VARIABLES` set
    in `environ`, else None (an unversioned build).

    Raises:
        OptionError: naming the option or the variable whose value names no version folder.
    """
    if option is not None:
        return check_version(option)
    for name in VERSION_VARIABLES:
        value = environ.get(name)
        if value:
            return check_version(value, name)
    return None


def version_site_url(site_url: str, version: str | None) -> str:
    """The url of the version's own folder: `site_url` when it names it already (its last
    path segment is the version: mike's plugin appends it when it runs first, Read the Docs'
    canonical url ends with it), else `site_url` + `version/`, where mike deploys the build
    ("" stays "")."""
    if not site_url or version is None:
        return site_url
    base = site_url.rstrip("/")
    if base.rsplit("/", 1)[-1] == version:
        return base + "/"
    return f"{base}/{version}/"


def folder_url(site_url: str, folder: str) -> str:
    """The public url of a build that sits in `folder` of the site at `site_url` (a language's
    folder of a site built once per language), unless `site_url` names that folder already
    (a language's own `site_url`); "" stays "" (no public url)."""
    if not site_url or not folder:
        return site_url
    base = site_url.rstrip("/") + "/"
    return base if base.endswith(f"/{folder}/") else f"{base}{folder}/"


def build_site_url(site_url: str, version: str | None, folder: str) -> str:
    """The public url of the build of `version` in the language folder `folder`
    (`ROOT/<version>/<folder>/`, as mike deploys a site that mkdocs-static-i18n builds), from
    the url of the site or of that build itself: the folder is set aside while the version
    folder is found (`version_site_url`), then put back (`folder_url`)."""
    base = site_url.rstrip("/") + "/" if site_url else site_url
    if folder and base.endswith(f"/{folder}/"):
        base = base[:-len(folder) - 1]
    return folder_url(version_site_url(base, version), folder)


# -- the build ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class OutputSettings:
    """What to make of each chunked page besides its chunks."""

    formats: tuple[str, ...] = ("native",)
    """The output formats (names from `mdchunk.outputs.profiles.PROFILES`)."""
    language: str | None = None
    """The site's natural language (see `ProfileSettings`): each chunk's `language`, unless
    its page's front matter names one."""
    language_folder: str = ""
    """Where this build sits in a site built once per language: the folder of its language
    (`fr` for the `fr/` of mkdocs-static-i18n), whose name prefixes its doc names so that ids
    stay unique across the languages; "" for a site's default language or a single build."""
    inspector: bool = False
    """Whether to keep the chunk inspector's data of the page."""
    pagefind_filters: tuple[str, ...] = ()
    """Front matter keys that become Pagefind filters, besides `tags` (see `ProfileSettings`)."""
    agents: bool = False
    """Whether to keep what `llms.txt` needs of the page (`mdchunk.outputs.page_facts`)."""
    directive: bool = False
    """Whether the page's Markdown twin opens with the note that points to `llms.txt`."""
    duplicates: bool = False
    """Whether to keep each chunk's print, for the duplicate marks
    (`mdchunk.outputs.duplicates`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class BuildSettings:
    """What a build asks of mdchunk: the chunking options and what to write."""

    options: ChunkOptions = dataclasses.field(default_factory=ChunkOptions)
    output: OutputSettings = dataclasses.field(default_factory=OutputSettings)
    """The formats, the site's language and whether to keep the inspector's data."""
    index: str = "chunks.jsonl"
    """Where the native index is written, relative to the site folder."""
    site_url: str = ""
    """The site's public url ("" when it has none; `mdchunk site` then reads each page's from
    its canonical link)."""
    exclude: tuple[str, ...] = ()
    """Glob patterns of the paths of pages left out of the index (see
    `mdchunk.session.exclusion`)."""
    write_markdown: bool = True
    """Write each page's Markdown beside its HTML."""
    page_kinds: tuple[tuple[str, str], ...] = ()
    """Glob patterns over page urls and the kind of the pages they match, kept in
    `chunks.sqlite` for search's priors (`mdchunk.search.kinds`)."""
    workers: int | None = None
    """Worker processes that chunk pages; 0 chunks in the build's own process; None lets mdchunk
    start one where a second core is free and the site proves large enough to repay it."""
    tokenizer: str | None = None
    """The token counter a user named (`mdchunk --tokenizer`; else `MDCHUNK_TOKENIZER`, else
    the default): `mdchunk.chunking.tokens.tokenizer_choice`."""
    pagefind: PagefindSettings = dataclasses.field(default_factory=PagefindSettings)
    """Where the Pagefind bundle goes (format `pagefind`), and whether a search page does."""
    llms: LlmsOptions | None = None
    """The agent outputs to write (`llms.txt`, `llms-full`, Markdown twins); None: none."""
    duplicates: DuplicateMode = "mark"
    """Duplicate chunks: marked in the native index (`mark`), also left out of the embedding
    formats (`drop`), or not looked for (`off`)."""
    embed_model: str | None = None
    """The model whose vectors of the chunks go into `chunks.sqlite` (`mdchunk.search.vectors`);
    None: none."""
    version: str | None = None
    """The version of the docs this build makes (`build_version`), in every record and at the
    head of every id; None: an unversioned build. `site_url` is then that version's folder's
    url (`version_site_url`)."""

    def page_settings(self) -> OutputSettings:
        """What to make of each page: `output`, and what the agent outputs and the duplicate
        marks need of it."""
        return dataclasses.replace(self.output, agents=self.llms is not None,
                                   directive=self.llms is not None and self.llms.directive,
                                   duplicates=self.duplicates != "off")

    def fingerprint(self) -> str:
        """Everything besides the page that its records depend on (the code that makes them
        included): two builds with the same fingerprint give the same records for the same
        page."""
        return json.dumps(
            [code_identity(), self.options.as_dict(), self.site_url,
             os.environ.get("SOURCE_DATE_EPOCH"), dataclasses.astuple(self.page_settings()),
             self.version],
            sort_keys=True)
