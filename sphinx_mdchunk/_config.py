"""The `mdchunk_*` config values: one per entry of the core's schema (`SITE_OPTIONS`) that
Sphinx builds use, checked by the core."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from mdchunk.errors import OptionError
from mdchunk.session.builder import BuildSettings
from mdchunk.session.config import (
    SiteFacts,
    build_settings,
    option_elsewhere,
    options_of,
    suggestion,
)

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


def unknown_names(config: Config) -> list[str]:
    """A message for each `mdchunk_*` name set in conf.py (or with -D) that is no option."""
    known = {_PREFIX + option.name for option in options_of(ENGINE)}
    given = [*config._raw_config, *config._overrides]
    return [_unknown(name.removeprefix(_PREFIX)) for name in dict.fromkeys(given)
            if name.startswith(_PREFIX) and name not in known]


def _unknown(option: str) -> str:
    elsewhere = option_elsewhere(option, ENGINE)
    if elsewhere is not None:
        return (f"{_PREFIX}{option} is an option of the MkDocs plugin only and is ignored "
                f"here: {elsewhere.why_not}")
    return (f"{_PREFIX}{option} is not an mdchunk option and is ignored; "
            f"{suggestion(option, ENGINE, _PREFIX)}")


def settings(config: Config, site: SiteFacts) -> BuildSettings:
    """The build's settings from `conf.py`; a bad value raises `ExtensionError` naming it as
    conf.py does (`mdchunk_max_tokens = -5: must be >= 16, got -5`)."""
    values = {option.name: getattr(config, _PREFIX + option.name)
              for option in options_of(ENGINE)}
    try:
        return build_settings({**values, "workers": 0}, site)  # Sphinx's -j N chunks pages
    except OptionError as error:
        name = error.option.split(".", 1)[0]
        raise ExtensionError(f"{_PREFIX}{name} = {values.get(name)!r}: {error.message}"
                             ) from error
