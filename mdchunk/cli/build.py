"""`mdchunk chunk` and `mdchunk site`: the commands that build an index, and their settings.

Both take their settings from a `--config` file (`config_file.py`) and their flags (`flags.py`),
later ones winning; a bad value names the file and key that set it, or the flag. `chunk`
renders Markdown files and hands them to an `IndexBuilder`; `site` reads a built site
(`mdchunk.engines.site`).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mdchunk.cli.config_file import FILE_KEYS, PLUGIN_ONLY, options_of_file, plugin_options
from mdchunk.cli.flags import chunking_flags, jobs_flags, llms_flags
from mdchunk.errors import MdChunkError, OptionError

if TYPE_CHECKING:
    from mdchunk.engines.site import SiteSummary
    from mdchunk.settings import BuildSettings

#: The flags of options whose name is not the flag's.
_FLAGS = {"formats": "'-f' / '--format'", "output": "'--output'",
          "pagefind_filters": "'--pagefind-filter'"}


def click_error(error: Exception, origins: Mapping[str, str] | None = None) -> click.ClickException:
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
class CommandSettings:
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


@click.command()
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
    from mdchunk.engines.sources import MarkdownConfig, Renderer, SourceError, load_mkdocs_config

    settings = CommandSettings()
    try:
        markdown_config = MarkdownConfig.default()
        if mkdocs_config is not None:
            site = load_mkdocs_config(mkdocs_config)
            markdown_config = site.markdown
            settings.update(plugin_options(mkdocs_config, site, "--mkdocs-config"),
                            f"'--mkdocs-config' ({mkdocs_config})")
        if config_file is not None:
            settings.update(options_of_file(config_file, "chunk"), f"'--config' ({config_file})")
        settings.update(flag_settings(formats, flags, jobs=jobs, tokenizer=tokenizer))
        build = command_settings(settings.values, "chunk")
    except (MdChunkError, OSError) as error:
        raise click_error(error, settings.origins) from error
    from mdchunk.engines.sources import find_sources

    try:
        sources = find_sources(paths, exclude=list(build.exclude))
    except SourceError as error:
        raise click_error(error) from error
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


def flag_settings(formats: Sequence[str], flags: Mapping[str, Any], *, jobs: int,
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


def command_settings(values: Mapping[str, Any], command: str) -> BuildSettings:
    """The build's settings from a command's options (files and flags), through the one
    schema (`mdchunk.session.config.build_settings`). What the command has no use for is left
    out: the MkDocs plugin's own options (their flags set `workers`), and for `chunk`, whose
    output is an index and not a site, the agent outputs.

    Raises:
        OptionError: naming the first bad value.
    """
    from mdchunk.session.config import SiteFacts, build_settings
    from mdchunk.settings import LLMS_OPTIONS

    unused = {*PLUGIN_ONLY, *FILE_KEYS} - {"workers"}
    if command == "chunk":
        unused |= set(LLMS_OPTIONS)
    given = {name: value for name, value in values.items() if name not in unused}
    if command == "chunk":
        given["llms_txt"] = False
    language = values.get("language")
    if language is not None and not (isinstance(language, str) and language.strip()):
        raise OptionError("language", f"must be a language tag such as fr, got {language!r}")
    return build_settings(given, SiteFacts(site_url=str(values.get("site_url") or ""),
                                            language=language.strip() if language else None))


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
        raise click_error(error) from error
    try:
        with click.progressbar(sources, label="Chunking", file=sys.stderr,
                               show_pos=True) if show else _nullbar(sources) as bar:
            for source in bar:
                page = renderer.render(source)
                if not builder.add_page(page, markdown_path=page_markdown_path(page.url)):
                    order.append(page.source_path)
        summary = builder.finish(order)
    except (OSError, MdChunkError) as error:
        raise click_error(error) from error
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


@click.command()
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
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep each chunked page in this folder, so that the next run chunks only "
                   "the pages whose HTML (or whose settings) changed; each version and "
                   "language of a site keeps its own subfolder.")
@click.option("-v", "--verbose", is_flag=True, help="Name every file skipped, and why.")
@jobs_flags
@chunking_flags
@llms_flags
def site(site_dir: Path, *, docs_dir: Path | None, content_selector: str | None,
         formats: tuple[str, ...], config_file: Path | None, cache_dir: Path | None, jobs: int,
         tokenizer: str | None, verbose: bool, **flags: Any) -> None:
    """Chunk an already built site (SITE_DIR) and write the index into it.

    For engines that run no Python plugins (Zensical, MkDocs 2) and sites built elsewhere:
    `zensical build && mdchunk site site/`. The page content is found with selectors for the
    MkDocs, readthedocs, Material/Zensical and Sphinx (basic, alabaster, furo, pydata, book,
    rtd) themes; 404, search and generated index pages are skipped. Page titles and the
    sections of llms.txt come from the navigation the pages show. Where a plugin sees the
    same site, the chunks are the plugin's. A tree of versions (mike's gh-pages: SITE_DIR holds
    versions.json) is chunked version by version, each in its own folder with its version
    (aliases are not chunked), and SITE_DIR/llms.txt lists the versions (docs/versions.md).
    """
    from mdchunk.engines.site import chunk_site
    from mdchunk.engines.site_tree import chunk_version_tree, is_version_tree

    settings = CommandSettings()
    try:
        if config_file is not None:
            settings.update(options_of_file(config_file, "site"), f"'--config' ({config_file})")
        settings.update(flag_settings(formats, flags, jobs=jobs, tokenizer=tokenizer))
        build = command_settings(settings.values, "site")

        def chunk(folder: Path, build: BuildSettings) -> SiteSummary:
            cache = None if cache_dir is None else cache_dir / folder.relative_to(site_dir)
            return chunk_site(folder, build, docs_dir=docs_dir, content_selector=content_selector,
                              cache=cache)

        if not is_version_tree(site_dir):
            _say_site(chunk(site_dir, build), verbose=verbose)
            return
        done = chunk_version_tree(site_dir, build, chunk)
        for entry, summary in done:
            click.echo(f"version {entry.version}:")
            _say_site(summary, verbose=verbose)
        if build.llms is not None:
            click.echo(f"llms.txt of the tree: the {len(done)} versions listed")
    except (MdChunkError, OSError) as error:
        raise click_error(error, settings.origins) from error


def _say_site(summary: SiteSummary, *, verbose: bool) -> None:
    """What `mdchunk site` did to one built site: its warnings, what it skipped (`verbose`),
    its index."""
    from mdchunk.outputs.pages import counted, index_summary

    for warning in summary.warnings:
        click.echo(f"warning: {warning}", err=True)
    if verbose:
        for skipped in summary.skipped:
            click.echo(f"skipped: {skipped}", err=True)
    skipped = f"; {counted(len(summary.skipped), 'page')} skipped" if summary.skipped else ""
    click.echo(index_summary(summary.pages, summary.written) + skipped)
    if summary.from_cache:
        click.echo(f"{counted(summary.from_cache, 'page')} unchanged, taken from the page cache")
    if summary.search_page is not None:
        click.echo(f"search page: {summary.search_page}")
    for language, built in summary.languages:  # (the builds of the site's other languages)
        for warning in built.warnings:
            click.echo(f"warning: {warning}", err=True)
        click.echo(f"language {language}: {index_summary(built.pages, built.written)}")
