"""The `mdchunk_*` config values: one per entry of the core's schema (`SITE_OPTIONS`) that
Sphinx builds use, checked by the core."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from mdchunk.engines.conf_py import conf_py_names
from mdchunk.errors import OptionError
from mdchunk.session.config import (
    MKDOCS,
    SiteFacts,
    SiteOption,
    build_settings,
    option_elsewhere,
    options_of,
    suggestion,
)
from mdchunk.settings import BuildSettings

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

ENGINE = "sphinx"
_PREFIX = "mdchunk_"


def register_config_values(app: Sphinx) -> None:
    """Add `mdchunk_<name>` for every option; a change rewrites the HTML (and so the chunks).
    The core checks the values (`build_settings`), so Sphinx is told any type will do."""
    for option in options_of(ENGINE):
        app.add_config_value(_PREFIX + option.name, option.default, "html", types=Any)


def unknown_names(config: Config, confdir: Path) -> list[str]:
    """A message for each `mdchunk_*` name set in conf.py (or with -D) that is no option.

    Sphinx keeps no public record of the names conf.py sets that no extension registered, so
    they are read from conf.py itself (`conf_py_names`); the -D names are `config.overrides`,
    public in every Sphinx 7 and later (an attribute before 7.3, a property since)."""
    known = {_PREFIX + option.name for option in options_of(ENGINE)}
    overrides = [name.split(".", 1)[0] for name in config.overrides]  # -D name.key=value
    given = [*conf_py_names(confdir / "conf.py"), *overrides]
    return [_unknown(name.removeprefix(_PREFIX)) for name in dict.fromkeys(given)
            if name.startswith(_PREFIX) and name not in known]


def _unknown(option: str) -> str:
    elsewhere = option_elsewhere(option, ENGINE)
    if elsewhere is not None:
        owner = "the MkDocs plugin" if MKDOCS in elsewhere.engines else "the mdchunk command"
        return (f"{_PREFIX}{option} is an option of {owner} only and is ignored here: "
                f"{elsewhere.why_not}")
    return (f"{_PREFIX}{option} is not an mdchunk option and is ignored; "
            f"{suggestion(option, ENGINE, _PREFIX)}")


def settings(config: Config, site: SiteFacts, *, parallel: bool = False) -> BuildSettings:
    """The build's settings from `conf.py`; a bad value raises `ExtensionError` naming it as
    conf.py does (`mdchunk_max_tokens = -5: must be >= 16, got -5`).

    `parallel` (`-j N`): Sphinx's own writer processes chunk the pages they write, and start
    no worker of mdchunk's; a serial build hands its pages to one where a core is free."""
    values = {option.name: _value(config, option) for option in options_of(ENGINE)}
    try:
        return build_settings({**values, "workers": 0 if parallel else None}, site)
    except OptionError as error:
        name = error.option.split(".", 1)[0]
        raise ExtensionError(f"{_PREFIX}{name} = {values.get(name)!r}: {error.message}"
                             ) from error


def _value(config: Config, option: SiteOption) -> Any:
    """The option's value; given with -D, Sphinx hands it on as text (mdchunk's values take any
    type), read as the option's kind (`SiteOption.from_text`)."""
    value = getattr(config, _PREFIX + option.name)
    from_command_line = _PREFIX + option.name in config.overrides
    return option.from_text(value) if from_command_line and isinstance(value, str) else value
