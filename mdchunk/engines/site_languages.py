"""The languages of an already built site: the other languages' builds inside it.

A site built once per language serves its default language from its folder and every other
language from a subfolder named after its tag (mkdocs-static-i18n's `site/fr/`, Sphinx's
`_build/html/fr`). `mdchunk site` chunks each of those as a site of its own, in its folder,
as the plugin and the extension do, so that no language's pages land in another's index.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import lxml.etree
import lxml.html

from mdchunk.outputs.outline import is_language_tag, normal_tag
from mdchunk.settings import BuildSettings, folder_url


def html_language(site_dir: Path) -> str | None:
    """The site's natural language: the `lang` of its home page's `<html>` (None without
    one)."""
    try:
        root = lxml.html.parse(str(site_dir / "index.html")).getroot()
    except (OSError, lxml.etree.ParserError):
        return None
    language = root.get("lang", "").strip() if root is not None else ""
    return language or None


def language_builds(site_dir: Path, language: str | None) -> list[tuple[str, Path]]:
    """The builds of the site's other languages inside `site_dir`, by language: each
    subfolder named after a language tag whose home page's `<html lang>` is that language
    (`fr`, or `fr-FR` in `fr/`), other than the site's own `language`."""
    own = normal_tag(language) if language else None
    found = []
    for child in sorted(site_dir.iterdir()):
        if not child.is_dir() or not is_language_tag(child.name):
            continue
        tag = html_language(child)
        name = normal_tag(child.name)
        if tag and normal_tag(tag) != own and (
                normal_tag(tag) == name or normal_tag(tag).startswith(name + "-")):
            found.append((tag, child))
    return found


def in_language(settings: BuildSettings, language: str, folder: str) -> BuildSettings:
    """`settings` for the build of `language` in the subfolder `folder` of the site: its
    language, its folder (which prefixes its ids) and its url."""
    return dataclasses.replace(
        settings, site_url=folder_url(settings.site_url, folder),
        output=dataclasses.replace(settings.output, language=language, language_folder=folder))
