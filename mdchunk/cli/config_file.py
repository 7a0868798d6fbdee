"""The settings files of `mdchunk chunk` and `mdchunk site`: a `--config` file of the MkDocs
plugin's option names, or a site's mkdocs.yml and its `mdchunk` plugin options.

A key that is no option stops the command, naming the file, the key and the closest option; an
option the command has no use for gets a note, so that a file copied from a plugin's
configuration works as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from mdchunk.engines.sources import SiteConfig

#: Keys of a `--config` file besides the MkDocs plugin's options: the site's url and natural
#: language (a tag: `fr`), which the plugin takes from mkdocs.yml.
FILE_KEYS = ("site_url", "language")

#: The MkDocs plugin's options that the `mdchunk` command has no use for, and why. A `--config`
#: file may set them (it may hold the plugin's options, copied): each gets a note.
PLUGIN_ONLY = {
    "enabled": "the command chunks whenever it is run",
    "inspector": "the plugin and the Sphinx extension write the inspector",
    "workers": "-j/--jobs sets the processes that chunk pages",
    "cache": "mdchunk site keeps a page cache where --cache-dir names its folder",
    "cache_dir": "mdchunk site keeps a page cache where --cache-dir names its folder",
}


def options_of_file(path: Path, command: str) -> dict[str, Any]:
    """The options of `--config FILE`: a YAML mapping of the MkDocs plugin's option names and
    `site_url`; for `mdchunk site`, also a site's mkdocs.yml, whose `mdchunk` plugin options
    (and site_url) it takes. The plugin's options that `command` has no use for get a note.

    Raises:
        click.BadParameter: naming the file and its first key that is no option (with the
            closest option and every option a file may hold), or an mkdocs.yml given to
            `mdchunk chunk`, which reads one with --mkdocs-config.
        SourceError: when the file cannot be read.
    """
    from mdchunk.engines.sources import is_mkdocs_config, load_mkdocs_config, load_yaml

    data = load_yaml(path)
    hint = f"'--config' ({path})"
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise click.BadParameter(f"expected a mapping of mdchunk options, got {data!r}",
                                 param_hint=hint)
    if not is_mkdocs_config(data):
        _check_keys(data, hint, also=FILE_KEYS)
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
    return plugin_options(path, site, "--config")


def plugin_options(path: Path, site: SiteConfig, flag: str) -> dict[str, Any]:
    """The `mdchunk` plugin's options of the mkdocs.yml at `path` (`site`, read), checked, and
    its site_url and language."""
    options = dict(site.plugin_options or {})
    _check_keys(options, f"'{flag}' ({path})", where="plugins: mdchunk: ")
    if site.site_url:
        options["site_url"] = site.site_url
    options["language"] = site.language
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
        if key in PLUGIN_ONLY:
            click.echo(f"note: {path}: {key}: an option of the MkDocs plugin that mdchunk "
                       f"{command} has no use for ({PLUGIN_ONLY[key]})", err=True)
    named = [name for name in LLMS_OPTIONS if name in values]
    if named and command == "chunk":
        click.echo(f"note: {', '.join(named)}: mdchunk chunk writes no llms.txt (its output is "
                   "an index, not a site); build the site with the plugin, or run mdchunk site "
                   "on the built site", err=True)
