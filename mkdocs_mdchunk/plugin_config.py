"""The plugin's options: one MkDocs option per entry of the core's schema (`SITE_OPTIONS`),
checked by the core when MkDocs validates the config."""

from __future__ import annotations

from typing import Any

from mkdocs.config import base

from mdchunk.errors import OptionError
from mdchunk.session.config import MKDOCS, SiteFacts, build_settings, options_of, suggestion
from mdchunk.settings import BuildSettings


class _Value(base.BaseConfigOption[Any]):
    """An option whose value the core checks (`mdchunk.session.config.build_settings`)."""

    def __init__(self, default: Any) -> None:
        super().__init__()
        self.default = default


class _CheckedConfig(base.Config):
    """Checks the options through the core, and makes an unknown name an error."""

    def validate(self) -> tuple[list[tuple[str, Exception]], list[tuple[str, str]]]:
        """A name that is no option fails (a typo must not pass silently), with a hint; then
        every value is checked together."""
        failed, warnings = super().validate()
        for key, message in list(warnings):
            if message.startswith("Unrecognised configuration name"):
                warnings.remove((key, message))
                failed.append((key, base.ValidationError(
                    f"Unrecognised configuration name: {key}; {suggestion(key, MKDOCS)}")))
        if not failed:
            try:
                self.settings(SiteFacts())
            except OptionError as error:
                failed.append((error.option, base.ValidationError(error.message)))
        return failed, warnings

    def settings(self, site: SiteFacts) -> BuildSettings:
        """The build's settings from these options (raises `OptionError` on a bad value)."""
        return build_settings(self, site)


class MdChunkConfig(_CheckedConfig):
    """Options of the `mdchunk` plugin (`plugins: - mdchunk: {...}` in mkdocs.yml): one per
    option of the schema this engine offers, which MkDocs reads from `_schema`."""

    _schema = tuple((option.name, _Value(option.default)) for option in options_of(MKDOCS))
