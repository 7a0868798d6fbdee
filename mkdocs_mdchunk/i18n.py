"""The languages of a site that mkdocs-static-i18n builds, as the build session needs them.

The plugin (1.x) builds the default language into `site_dir` and every other language into
`site_dir/<locale>/`, by further builds of the same config inside its own `on_post_build`:
each of them renders that language's pages with urls and paths under `<locale>/`. mdchunk
treats each language's build as a site of its own, rooted in its folder, so that its outputs
(index, llms.txt, llms-full, twins, search bundle) land there and never overwrite another's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from mdchunk.outputs.outline import SiteLanguage

PLUGIN = "i18n"
"""mkdocs-static-i18n's name in `plugins`."""
_SWITCHER_ONLY = "null"
"""The locale of a language switcher's entry that is built by no one."""


@dataclasses.dataclass(frozen=True, slots=True)
class LanguageBuild:
    """The build of one language of an i18n site."""

    language: str
    """Its locale (`fr`)."""
    folder: str = ""
    """Its folder in the site folder ("" for the default language)."""
    others: tuple[SiteLanguage, ...] = ()
    """The other languages built, listed by the default language's `llms.txt`."""

    def within(self, path: str) -> str:
        """`path` (a page url or a file in the site) relative to the language's folder."""
        if not self.folder:
            return path
        return path[len(self.folder) + 1:] if path.startswith(self.folder + "/") else (
            "" if path == self.folder else path)


def file_language(file: File) -> str | None:
    """The language mkdocs-static-i18n gives a page's file (its `locale`): the default
    language's for a page that a language lacks and takes from the default; None without
    the plugin."""
    locale = getattr(file, "locale", None)
    return str(locale) if locale else None


def language_build(config: MkDocsConfig) -> LanguageBuild | None:
    """The language this build renders, when mkdocs-static-i18n runs it (else None). Read
    after its `on_config`, which chose the language."""
    plugin: Any = config.plugins.get(PLUGIN)
    languages = getattr(getattr(plugin, "config", None), "languages", None)
    if plugin is None or not languages:
        return None
    default = next((lang.locale for lang in languages if lang.default), languages[0].locale)
    current = getattr(plugin, "current_language", None) or default
    if current != default:
        return LanguageBuild(current, folder=current)
    others = tuple(SiteLanguage(lang.locale, lang.name or "", lang.locale) for lang in languages
                   if lang.build and lang.locale not in (default, _SWITCHER_ONLY))
    return LanguageBuild(current, others=others)
