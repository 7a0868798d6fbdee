"""The `mdchunk` command: chunk Markdown without a site build, search, inspect and sync indexes.

`main` is a click group; a new command is one `@main.command()` function (lazy imports inside
keep `mdchunk --help` fast).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mdchunk._version import __version__
from mdchunk.errors import MdChunkError, OptionError
from mdchunk.settings import DUPLICATE_MODES

if TYPE_CHECKING:
    from mdchunk.settings import BuildSettings
    from mdchunk.sources import SiteConfig

#: The flags of options whose name is not the flag's.
_FLAGS = {"formats": "'-f' / '--format'", "output": "'--output'",
          "pagefind_filters": "'--pagefind-filter'"}

#: Keys of a `--config` file besides the MkDocs plugin's options: the site's url, which the
#: plugin takes from mkdocs.yml.
_FILE_KEYS = ("site_url",)

#: The MkDocs plugin's options that the `mdchunk` command has no use for, and why. A `--config`
#: file may set them (it may hold the plugin's options, copied): each gets a note.
_PLUGIN_ONLY = {
    "enabled": "the command chunks whenever it is run",
    "inspector": "the plugin and the Sphinx extension write the inspector",
    "workers": "-j/--jobs sets the processes that chunk pages",
    "cache": "the command chunks every page on each run",
    "cache_dir": "the command chunks every page on each run",
}


def _fail(error: Exception, origins: Mapping[str, str] | None = None) -> click.ClickException:
    """A click error for a core error: a bad option names the file that set it (`origins`:
    an option's name -> the file option that named that file), else its flag."""
    if isinstance(error, OptionError):
        option = error.option.split(".")[0]
        if origins and option in origins:
            return click.BadParameter(f"{error.option}: {error.message}",
                                      param_hint=origins[option])
        flag = _FLAGS.get(option, "'--" + option.replace("_", "-") + "'")
        return click.BadParameter(error.message, param_hint=f"{flag} ({error.option})")
    return click.ClickException(str(error))


@dataclasses.dataclass
class _Settings:
    """A command's options from its files and flags (later ones win), with the file that set
    each (so that a bad value names the file and the key, not a flag nobody gave)."""

    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    origins: dict[str, str] = dataclasses.field(default_factory=dict)
    """An option's name -> the file option and file it came from (`'--config' (FILE)`)."""

    def update(self, values: Mapping[str, Any], origin: str | None = None) -> None:
        """Add `values`, read from the file `origin` names (None: from flags)."""
        self.values.update(values)
        for key in values:
            if origin is None:
                self.origins.pop(key, None)
            else:
                self.origins[key] = origin


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mdchunk")
def main() -> None:
    """Chunk documentation into RAG-ready chunks, search and check chunk indexes."""


_CHUNKING_FLAGS = (
    click.option("--max-tokens", type=int, help="Largest chunk in tokens (512)."),
    click.option("--min-tokens", type=int, help="Chunks under this merge with a neighbour (50)."),
    click.option("--split-level", type=int,
                 help="Headings at or above this level start a chunk (3)."),
    click.option("--overlap-tokens", type=int, help="Context shared with neighbours (0)."),
    click.option("--overlap-mode", type=click.Choice(["metadata", "text"]),
                 help="Where overlap goes (metadata)."),
    click.option("--encoding", help="tiktoken encoding of every token count (cl100k_base)."),
    click.option("--embed-template", help="Template of embedText ('{context}\\n\\n{text}')."),
    click.option("--embed-links", type=click.Choice(["text", "markdown"]),
                 help="Links in embedText: as their text, or as Markdown links (text)."),
    click.option("--max-tokens-bounds", type=click.Choice(["embedText", "originalText"]),
                 help="The text max_tokens bounds (embedText: the context line counts)."),
    click.option("--preset", help="code-heavy, structured, minimal or adr."),
    click.option("--adaptive-base-size", type=int, help="Turn on adaptive sizing with this base."),
    click.option("--adaptive-min-scale", type=float,
                 help="Adaptive sizing: smallest scale (0.5)."),
    click.option("--adaptive-max-scale", type=float,
                 help="Adaptive sizing: largest scale (1.5)."),
    click.option("--output", "output_name", help="File name of the native index (chunks.jsonl)."),
    click.option("--exclude", multiple=True, metavar="GLOB",
                 help="Leave out pages whose path matches this glob (repeatable)."),
    click.option("--site-url", help="The site's url: absoluteUrl and absolute links."),
    click.option("--markdown/--no-markdown", "write_markdown", default=None,
                 help="Write each page's Markdown beside its HTML (default on)."),
    click.option("--pagefind-output", metavar="DIR",
                 help="Folder of the Pagefind bundle (-f pagefind) in the site (pagefind)."),
    click.option("--pagefind-filter", "pagefind_filters", multiple=True, metavar="KEY",
                 help="A front matter key whose values become Pagefind filters, besides tags "
                      "(repeatable)."),
    click.option("--pagefind-search-page/--no-pagefind-search-page", default=None,
                 help="Write _mdchunk/search.html: Pagefind's search UI over the sections."),
    click.option("--duplicates", type=click.Choice(DUPLICATE_MODES),
                 help="Duplicate chunks: marked in the native index (mark), also left out of "
                      "the embedding formats (drop), or not looked for (off)."),
)


_LLMS_FLAGS = (
    click.option("--llms-txt/--no-llms-txt", "llms_txt", default=None,
                 help="Write llms.txt, llms-full.txt and each page's Markdown twin at its url "
                      "with .md for its / or .html (default on)."),
    click.option("--llms-full/--no-llms-full", "llms_full", default=None,
                 help="Write llms-full.txt (default on)."),
    click.option("--llms-full-max-tokens", type=int, metavar="N",
                 help="Most tokens in one llms-full file (100000); a larger text is split along "
                      "the top-level sections."),
    click.option("--llms-optional", multiple=True, metavar="GLOB",
                 help="Pages whose path matches go under '## Optional' in llms.txt "
                      "(repeatable)."),
    click.option("--llms-directive/--no-llms-directive", "llms_directive", default=None,
                 help="Point to llms.txt from each page's Markdown and, hidden, from its HTML "
                      "(default on)."),
)


def llms_flags(command: Any) -> Any:
    """Add the agent outputs' options as flags (`site`)."""
    for option in reversed(_LLMS_FLAGS):
        command = option(command)
    return command


def jobs_flags(command: Any) -> Any:
    """Add `-j/--jobs` and `--tokenizer` (shared by `chunk` and `site`)."""
    from mdchunk.session.workers import available_cores
    from mdchunk.tokens import COUNTERS

    command = click.option(
        "--tokenizer", type=click.Choice(["auto", *COUNTERS]), default=None,
        help="Token counter (all give tiktoken's counts): rs-bpe by default where installed; "
             "fastokens is fastest on large jobs once loaded (about a second).")(command)
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=1), default=available_cores(), show_default=True,
        help="Processes that chunk pages (the output is the same for every number).")(command)


def chunking_flags(command: Any) -> Any:
    """Add every chunking and output option as a flag (shared by `chunk` and `site`)."""
    for option in reversed(_CHUNKING_FLAGS):
        command = option(command)
    return command


def _index_file(path: Path, name: str) -> Path:
    """`path` itself, or `name` inside it when it is a folder."""
    return path / name if path.is_dir() else path


# ---------------------------------------------------------------------------------------------
# mdchunk chunk


@main.command()
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output-dir", "out", required=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the index (and the pages' Markdown) into.")
@click.option("-f", "--format", "formats", multiple=True, metavar="NAME",
              help="Output format, repeatable: native, files, hepilot, semantic, flat, "
                   "markdown_chunker, adr, docsearch, sqlite, pagefind (default: native).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
              help="YAML file with the MkDocs plugin's option names (and site_url); flags "
                   "win over it. An mkdocs.yml goes to --mkdocs-config.")
@click.option("--mkdocs-config", type=click.Path(dir_okay=False, path_type=Path),
              help="An mkdocs.yml: its markdown_extensions, site_url and mdchunk options.")
@jobs_flags
@chunking_flags
def chunk(paths: tuple[Path, ...], out: Path, *, formats: tuple[str, ...],
          config_file: Path | None, mkdocs_config: Path | None, jobs: int,
          tokenizer: str | None, **flags: Any) -> None:
    """Chunk Markdown files or folders (no site build) into OUT.

    Each file is rendered with Python-Markdown (toc with permalinks, tables, fences,
    admonition, attr_list, def_list, footnotes, md_in_html; or the extensions of
    --mkdocs-config), then chunked by the same core as the MkDocs plugin. Page urls follow
    MkDocs's directory urls: guide/install.md -> guide/install/, index.md -> the root.
    OUT is an index, not a site: no llms.txt is written (build the site with the plugin, or
    run `mdchunk site` on it).
    """
    from mdchunk.sources import MarkdownConfig, Renderer, SourceError, load_mkdocs_config

    settings = _Settings()
    try:
        markdown_config = MarkdownConfig.default()
        if mkdocs_config is not None:
            site = load_mkdocs_config(mkdocs_config)
            markdown_config = site.markdown
            settings.update(_plugin_options(mkdocs_config, site, "--mkdocs-config"),
                            f"'--mkdocs-config' ({mkdocs_config})")
        if config_file is not None:
            settings.update(_config_file(config_file, "chunk"), f"'--config' ({config_file})")
        settings.update(_flag_settings(formats, flags, jobs=jobs, tokenizer=tokenizer))
        build = _split_settings(settings.values, "chunk")
    except (MdChunkError, OSError) as error:
        raise _fail(error, settings.origins) from error
    from mdchunk.sources import find_sources

    try:
        sources = find_sources(paths, exclude=list(build.exclude))
    except SourceError as error:
        raise _fail(error) from error
    renderer = Renderer(markdown_config,
                        files=[s.source_path for s in sources] + _all_files(paths))
    _run_chunk(sources, renderer, build, out, progress=any(path.is_dir() for path in paths))


def _all_files(paths: Sequence[Path]) -> list[str]:
    """Source paths of every file under the folders (targets of links to rewrite)."""
    names: list[str] = []
    for path in paths:
        if path.is_dir():
            names.extend(file.relative_to(path).as_posix()
                         for file in path.rglob("*") if file.is_file())
    return names


def _config_file(path: Path, command: str) -> dict[str, Any]:
    """The options of `--config FILE`: a YAML mapping of the MkDocs plugin's option names and
    `site_url`; for `mdchunk site`, also a site's mkdocs.yml, whose `mdchunk` plugin options
    (and site_url) it takes. The plugin's options that `command` has no use for get a note.

    Raises:
        click.BadParameter: naming the file and its first key that is no option (with the
            closest option and every option a file may hold), or an mkdocs.yml given to
            `mdchunk chunk`, which reads one with --mkdocs-config.
        SourceError: when the file cannot be read.
    """
    from mdchunk.sources import is_mkdocs_config, load_mkdocs_config, load_yaml

    data = load_yaml(path)
    hint = f"'--config' ({path})"
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise click.BadParameter(f"expected a mapping of mdchunk options, got {data!r}",
                                 param_hint=hint)
    if not is_mkdocs_config(data):
        _check_keys(data, hint, also=_FILE_KEYS)
        _note_unused(data, path, command)
        return dict(data)
    if command != "site":
        raise click.BadParameter(
            "this is a site's mkdocs.yml, not mdchunk's options: give it as --mkdocs-config, "
            "which reads its Markdown extensions, site_url and mdchunk plugin options",
            param_hint=hint)
    site = load_mkdocs_config(path)
    if site.plugin_options is None:
        click.echo(f"note: {path}: its plugins list no mdchunk, so mdchunk's defaults apply",
                   err=True)
    return _plugin_options(path, site, "--config")


def _plugin_options(path: Path, site: SiteConfig, flag: str) -> dict[str, Any]:
    """The `mdchunk` plugin's options of the mkdocs.yml at `path` (`site`, read), checked, and
    its site_url."""
    options = dict(site.plugin_options or {})
    _check_keys(options, f"'{flag}' ({path})", where="plugins: mdchunk: ")
    if site.site_url:
        options["site_url"] = site.site_url
    return options


def _check_keys(values: Mapping[Any, Any], hint: str, *, where: str = "",
                also: Sequence[str] = ()) -> None:
    """Raise `click.BadParameter` for the first key of `values` that is no option of the
    MkDocs plugin (nor one of `also`), with the closest one and every one; `hint` names the
    file, `where` the place in it."""
    from mdchunk.session.config import MKDOCS, options_of, suggestion

    known = {option.name for option in options_of(MKDOCS)} | set(also)
    for key in values:
        if key not in known:
            raise click.BadParameter(
                f"{where}{key}: no such option; {suggestion(str(key), MKDOCS, also=also)}",
                param_hint=hint)


def _note_unused(values: Mapping[str, Any], path: Path, command: str) -> None:
    """Say which options of a `--config` file do nothing in `command`: the MkDocs plugin's own,
    and for `chunk` the agent outputs' (it writes an index of files; llms.txt, Markdown twins
    and the hidden directive belong to a site, whose pages they link to)."""
    from mdchunk.settings import LLMS_OPTIONS

    for key in values:
        if key in _PLUGIN_ONLY:
            click.echo(f"note: {path}: {key}: an option of the MkDocs plugin that mdchunk "
                       f"{command} has no use for ({_PLUGIN_ONLY[key]})", err=True)
    named = [name for name in LLMS_OPTIONS if name in values]
    if named and command == "chunk":
        click.echo(f"note: {', '.join(named)}: mdchunk chunk writes no llms.txt (its output is "
                   "an index, not a site); build the site with the plugin, or run mdchunk site "
                   "on the built site", err=True)


def _flag_settings(formats: Sequence[str], flags: Mapping[str, Any], *, jobs: int,
                   tokenizer: str | None) -> dict[str, Any]:
    """The settings given as flags (those not given are left out), named as the options
    (`SITE_OPTIONS`): `-j/--jobs` sets `workers` (1: none), `--tokenizer` the `tokenizer`."""
    settings = {
        name: value for name, value in flags.items()
        if value is not None and value != () and not name.startswith("adaptive_")
        and name != "output_name"
    }
    if flags.get("output_name"):
        settings["output"] = flags["output_name"]
    if formats:
        settings["formats"] = list(formats)
    for name in ("exclude", "pagefind_filters", "llms_optional"):
        if settings.get(name) is not None:
            settings[name] = list(settings[name])
    adaptive = {
        key: flags[f"adaptive_{key}"] for key in ("base_size", "min_scale", "max_scale")
        if flags.get(f"adaptive_{key}") is not None
    }
    if adaptive:
        settings["adaptive_sizing"] = adaptive
    settings["workers"] = 0 if jobs <= 1 else jobs
    if tokenizer is not None:
        settings["tokenizer"] = tokenizer
    return settings


def _split_settings(values: Mapping[str, Any], command: str) -> BuildSettings:
    """The build's settings from a command's options (files and flags), through the one
    schema (`mdchunk.session.config.build_settings`). What the command has no use for is left
    out: the MkDocs plugin's own options (their flags set `workers`), and for `chunk`, whose
    output is an index and not a site, the agent outputs.

    Raises:
        OptionError: naming the first bad value.
    """
    from mdchunk.session.config import SiteFacts, build_settings
    from mdchunk.settings import LLMS_OPTIONS

    unused = {*_PLUGIN_ONLY, *_FILE_KEYS} - {"workers"}
    if command == "chunk":
        unused |= set(LLMS_OPTIONS)
    given = {name: value for name, value in values.items() if name not in unused}
    if command == "chunk":
        given["llms_txt"] = False
    return build_settings(given, SiteFacts(site_url=str(values.get("site_url") or "")))


def _run_chunk(sources: Sequence[Any], renderer: Any, settings: BuildSettings, out: Path, *,
               progress: bool) -> None:
    from mdchunk.outputs.twins import page_markdown_path
    from mdchunk.session.builder import IndexBuilder

    order: list[str] = []
    show = progress and sys.stderr.isatty()
    try:
        builder = IndexBuilder(settings, site_dir=out, report=lambda source, message: (
            click.echo(f"warning: {source}: {message}", err=True)))
    except MdChunkError as error:
        raise _fail(error) from error
    try:
        with click.progressbar(sources, label="Chunking", file=sys.stderr,
                               show_pos=True) if show else _nullbar(sources) as bar:
            for source in bar:
                page = renderer.render(source)
                if not builder.add_page(page, markdown_path=page_markdown_path(page.url)):
                    order.append(page.source_path)
        summary = builder.finish(order)
    except (OSError, MdChunkError) as error:
        raise _fail(error) from error
    finally:
        builder.close()
    click.echo(summary.describe(), err=True)


class _nullbar:  # noqa: N801 - stands in for click.progressbar
    """A context manager that yields the items unchanged (no progress bar)."""

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items

    def __enter__(self) -> Sequence[Any]:
        return self.items

    def __exit__(self, *_: object) -> None:
        return None


# ---------------------------------------------------------------------------------------------
# mdchunk query / stats


def _searchable(index: Path) -> Path:
    """The index file to search: `index`, or in a folder its chunks.sqlite, else chunks.jsonl."""
    if not index.is_dir():
        return index
    sqlite = index / "chunks.sqlite"
    return sqlite if sqlite.is_file() or not (index / "chunks.jsonl").is_file() else (
        index / "chunks.jsonl")


def _search(path: Path, question: str, k: int) -> list[Any]:
    """`search` over an SQLite index, or over one made for the occasion from JSON records."""
    import tempfile

    from mdchunk.outputs.sqlite import read_index, search, write_sqlite

    if path.suffix in (".sqlite", ".db", ".sqlite3"):
        return search(path, question, k)
    with tempfile.TemporaryDirectory(prefix="mdchunk-query-") as folder:
        database = Path(folder) / "chunks.sqlite"
        write_sqlite(database, read_index(path))
        return search(database, question, k)


# ---------------------------------------------------------------------------------------------
# mdchunk site


@main.command()
@click.argument("site_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--docs", "docs_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The sources: pages get their source path and front matter from them.")
@click.option("--content-selector", metavar="CSS",
              help="CSS selector of the page content, for a theme mdchunk does not know.")
@click.option("-f", "--format", "formats", multiple=True, metavar="NAME",
              help="Output format, repeatable (default: native).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
              help="YAML file with the MkDocs plugin's option names (and site_url), or the "
                   "site's mkdocs.yml (its mdchunk plugin options and site_url); flags win "
                   "over it.")
@click.option("-v", "--verbose", is_flag=True, help="Name every file skipped, and why.")
@jobs_flags
@chunking_flags
@llms_flags
def site(site_dir: Path, *, docs_dir: Path | None, content_selector: str | None,
         formats: tuple[str, ...], config_file: Path | None, jobs: int, tokenizer: str | None,
         verbose: bool, **flags: Any) -> None:
    """Chunk an already built site (SITE_DIR) and write the index into it.

    For engines that run no Python plugins (Zensical, MkDocs 2) and sites built elsewhere:
    `zensical build && mdchunk site site/`. The page content is found with selectors for the
    MkDocs, readthedocs, Material/Zensical and Sphinx (basic, alabaster, furo, pydata, book,
    rtd) themes; 404, search and generated index pages are skipped. Page titles and the
    sections of llms.txt come from the navigation the pages show. Where a plugin sees the
    same site, the chunks are the plugin's.
    """
    from mdchunk.outputs.pages import counted, index_summary
    from mdchunk.sites import chunk_site

    settings = _Settings()
    try:
        if config_file is not None:
            settings.update(_config_file(config_file, "site"), f"'--config' ({config_file})")
        settings.update(_flag_settings(formats, flags, jobs=jobs, tokenizer=tokenizer))
        summary = chunk_site(site_dir, _split_settings(settings.values, "site"),
                             docs_dir=docs_dir, content_selector=content_selector)
    except (MdChunkError, OSError) as error:
        raise _fail(error, settings.origins) from error
    for warning in summary.warnings:
        click.echo(f"warning: {warning}", err=True)
    if verbose:
        for skipped in summary.skipped:
            click.echo(f"skipped: {skipped}", err=True)
    skipped = f"; {counted(len(summary.skipped), 'page')} skipped" if summary.skipped else ""
    click.echo(index_summary(summary.pages, summary.written) + skipped)
    if summary.search_page is not None:
        click.echo(f"search page: {summary.search_page}")


@main.command()
@click.argument("index", type=click.Path(exists=True, path_type=Path))
@click.argument("question")
@click.option("-k", "--top", "k", default=5, show_default=True, type=click.IntRange(min=1),
              help="How many chunks to show.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def query(index: Path, question: str, k: int, as_json: bool) -> None:
    """Search INDEX (a chunks.sqlite or chunks.jsonl, or the folder holding it) for QUESTION.

    Every word of the question is searched for (FTS5, bm25 ranking; matches in breadcrumbs
    and titles weigh more than in body text). A chunks.jsonl is indexed on the fly; for
    repeated searches, write chunks.sqlite at build time (`formats: [native, sqlite]`).
    """
    import sqlite3

    path = _searchable(index)
    try:
        hits = _search(path, question, k)
    except (sqlite3.Error, OSError, ValueError) as error:
        raise click.ClickException(
            f"{path}: cannot search: {error}; give a chunks.sqlite (formats: [native, sqlite]) "
            "or a native chunks.jsonl") from error
    if as_json:
        click.echo(json.dumps([hit.as_dict() for hit in hits], ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo("no match", err=True)
        return
    for rank, hit in enumerate(hits, start=1):
        click.echo(f"{rank}. {hit.breadcrumb or hit.title}  (score {hit.score:.2f})")
        click.echo(f"   {hit.url or '/'}")
        excerpt = " ".join(hit.text.split())
        click.echo(f"   {excerpt[:160]}{'...' if len(excerpt) > 160 else ''}")


@main.command()
@click.argument("index", type=click.Path(exists=True, path_type=Path))
def stats(index: Path) -> None:
    """Pages, chunks, a token histogram, oversize and small chunks of INDEX.

    INDEX is a native chunks.jsonl or a chunks.sqlite (or a folder holding chunks.jsonl).
    """
    from mdchunk.stats import render_stats

    path = _index_file(index, "chunks.jsonl")
    records = _read(path)
    click.echo(render_stats(records))


def _read(path: Path) -> list[dict[str, Any]]:
    import sqlite3

    from mdchunk.outputs.sqlite import read_index

    try:
        return read_index(path)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise click.ClickException(f"{path}: cannot read the index: {error}") from error


# ---------------------------------------------------------------------------------------------
# mdchunk validate / diff


@main.command()
@click.argument("index", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--profile", help="The index's format (default: from the file name).")
@click.option("--tokens", "check_tokens", is_flag=True,
              help="Also check that every token count is exact (native).")
@click.option("--pages", "pages_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the pages' .md files (default: the index's folder).")
def validate(index: Path, profile: str | None, check_tokens: bool, pages_dir: Path | None
             ) -> None:
    """Check INDEX against its profile's schema and the invariants.

    Native indexes: required fields, unique ids, prev/next chains, chunkNumber/totalChunks,
    sha256, and offsets against the pages' .md files when they sit beside the index. Exits
    with status 1 and one line per problem when anything is wrong.
    """
    from mdchunk.profiles import PROFILES
    from mdchunk.validate import infer_profile, validate_records

    name = profile or infer_profile(index)
    if name not in PROFILES:
        raise click.BadParameter(f"unknown profile {name!r}; known: {', '.join(PROFILES)}",
                                 param_hint="'--profile'")
    records = _read(index)
    counter = None
    if check_tokens:
        # tiktoken itself, the reference, even where a fast counter counted while chunking.
        from mdchunk.tokens import tiktoken_counter

        options = ((records[0].get("metadata") or {}).get("chunkingOptions") or {}
                   if records and isinstance(records[0], dict) else {})
        try:
            counter = tiktoken_counter(str(options.get("encoding") or "cl100k_base"))
        except MdChunkError as error:
            raise _fail(error) from error
    problems = validate_records(records, name, markdown_dir=pages_dir or index.parent,
                                counter=counter)
    for problem in problems:
        click.echo(str(problem))
    if problems:
        click.echo(f"{index}: {len(problems)} problem(s) in {len(records)} records "
                   f"(profile {name})", err=True)
        sys.exit(1)
    click.echo(f"{index}: {len(records)} records, valid ({name})", err=True)


@main.command()
@click.argument("old", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def diff(old: Path, new: Path, as_json: bool) -> None:
    """Added, changed and removed chunks from OLD to NEW (native indexes).

    Chunks are matched by page, section anchor path and ordinal within the section, so a
    section that did not change keeps its key when others move; changed means the SHA-256
    of its text differs.
    """
    from mdchunk.diff import diff_indexes

    result = diff_indexes(_read(old), _read(new))
    if as_json:
        click.echo(json.dumps(result.as_dict(), ensure_ascii=False, indent=2))
        return
    for mark, entries in (("+", result.added), ("~", result.changed), ("-", result.removed)):
        for entry in entries:
            click.echo(f"{mark} {entry.id}  {entry.url or '/'}  [{entry.key}]")
    click.echo(f"{len(result.added)} added, {len(result.changed)} changed, "
               f"{len(result.removed)} removed, {result.unchanged} unchanged "
               f"({len(result.moved)} with a new id)", err=True)


# ---------------------------------------------------------------------------------------------
# mdchunk sync chroma


@main.group()
def sync() -> None:
    """Keep a vector store in step with a chunk index."""


@sync.command("chroma")
@click.argument("index", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--path", "store", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the persistent Chroma database.")
@click.option("--collection", required=True, help="Collection name (3-512 chars).")
@click.option("--model", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Local sentence-transformers model folder (nothing is downloaded).")
@click.option("--no-embedding", is_flag=True,
              help="Use the vectors the records carry in an 'embedding' field.")
def sync_chroma_command(index: Path, store: Path, collection: str, model: Path | None,
                        no_embedding: bool) -> None:
    """Upsert INDEX's chunks into a local Chroma collection and delete those gone.

    Only new chunks and chunks whose text changed (sha256) are embedded. Needs
    pip install 'mdchunk[chroma]'.
    """
    from mdchunk.chroma import (
        ChromaError,
        open_collection,
        sentence_transformers_embedder,
        sync_chroma,
    )

    if (model is None) == (not no_embedding):
        raise click.UsageError("give exactly one of --model PATH and --no-embedding")
    try:
        embed = sentence_transformers_embedder(model) if model is not None else None
        target = open_collection(store, collection)
        report = sync_chroma(_read(index), target, embed)
    except ChromaError as error:
        raise click.ClickException(str(error)) from error
    except Exception as error:
        raise click.ClickException(f"chroma: {error}") from error
    click.echo(f"{report.embedded} embedded, {report.updated} metadata updated, "
               f"{report.deleted} deleted, {report.unchanged} unchanged; {report.total} chunks "
               f"in {collection}", err=True)


# ---------------------------------------------------------------------------------------------
# mdchunk mcp


@main.command("mcp")
@click.argument("site_or_index", type=click.Path(exists=True, path_type=Path))
@click.option("--http", is_flag=True,
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on with --http. Any address but 127.0.0.1, ::1 or "
                   "localhost exposes the docs to every machine that reaches it, with no "
                   "authentication.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              help="Port to listen on with --http.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the SQLite index made from chunks.jsonl goes when the site folder "
                   "cannot be written (default: $XDG_CACHE_HOME/mdchunk/mcp).")
def mcp_command(site_or_index: Path, http: bool, host: str, port: int,
                cache_dir: Path | None) -> None:
    """Serve a built site's chunk index to AI assistants over MCP (stdio by default).

    SITE_OR_INDEX is the built site folder (holding chunks.jsonl and the pages' Markdown), its
    chunks.jsonl or a chunks.sqlite. Tools: search_docs, read_section, read_page,
    list_sections. Without chunks.sqlite (formats: [native]) the SQLite index is made from
    chunks.jsonl, beside it. Needs pip install 'mdchunk[mcp]'.
    """
    try:
        from mdchunk.mcp import DocsError, serve
    except ImportError as error:
        raise click.ClickException(f"the MCP SDK is not installed ({error}): "
                                   "pip install 'mdchunk[mcp]'") from error
    try:
        serve(site_or_index, http=http, host=host, port=port, cache_dir=cache_dir,
              say=lambda line: click.echo(line, err=True))
    except DocsError as error:
        raise click.ClickException(str(error)) from error


if __name__ == "__main__":  # pragma: no cover
    main()
