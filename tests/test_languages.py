"""Languages on real builds: every record says its page's language, each language of a site
built by mkdocs-static-i18n (both docs structures) or by Sphinx (`-D language=fr`) gets its own
outputs in its own folder, the default language's llms.txt lists the others, and search can
be limited to a language."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from llms_txt import parse_llms_file

from mdchunk.cli import main
from tests.conftest import SiteBuilder, build_mkdocs
from tests.invariants import Index, check_index
from tests.test_llms import check_llms_site, llms_text, site_file
from tests.test_mcp import stdio_session
from tests.test_sphinx import make_project

SITE_URL = "https://example.com/docs/"

ENGLISH = {
    "index": "# Home\n\nWelcome to the beacon documentation.\n\n## Install\n\n"
             "Run the beacon installer on every host.\n",
    "guide": "# Guide\n\nThe guide explains how beacon checks configuration files.\n\n"
             "## Options\n\nEvery option of beacon has a default.\n",
    "only-english": "# Changelog\n\nWhat changed in each release of beacon.\n",
}
FRENCH = {
    "index": "# Accueil\n\nBienvenue dans la documentation de beacon.\n\n## Installer\n\n"
             "Lancez l'installateur de beacon sur chaque machine.\n",
    "guide": "# Guide\n\nLe guide explique comment beacon vérifie les fichiers de "
             "configuration.\n\n## Options\n\nChaque option de beacon a une valeur par défaut.\n",
}
OUTPUTS = ("chunks.jsonl", "chunks.sqlite", "llms.txt", "llms-full.txt", "sections.jsonl",
           "pagefind/pagefind-entry.json", "_mdchunk/search.html")


def i18n_sources(docs: Path, structure: str) -> None:
    """The English and French pages as mkdocs-static-i18n reads them: `page.fr.md` beside
    `page.md` (suffix), or `en/page.md` and `fr/page.md` (folder)."""
    for language, pages in (("en", ENGLISH), ("fr", FRENCH)):
        for name, text in pages.items():
            if structure == "folder":
                path = docs / language / f"{name}.md"
            else:
                path = docs / (f"{name}.md" if language == "en" else f"{name}.fr.md")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if structure == "folder":  # (the folder structure has no fallback: French lacks a page)
        (docs / "fr" / "only-english.md").write_text(ENGLISH["only-english"], encoding="utf-8")


def build_i18n(root: Path, structure: str, *, theme: dict[str, Any] | None = None) -> Path:
    """Build the two-language site with mkdocs-static-i18n and mdchunk; return `site/`."""
    docs = root / "docs"
    i18n_sources(docs, structure)
    config = {
        "site_name": "Beacon", "site_url": SITE_URL, "docs_dir": str(docs),
        "site_dir": str(root / "site"), "theme": theme or {"name": "mkdocs"},
        "markdown_extensions": [{"toc": {"permalink": True}}],
        "plugins": [
            {"i18n": {"docs_structure": structure, "languages": [
                {"locale": "en", "default": True, "name": "English", "build": True},
                {"locale": "fr", "name": "Français", "build": True}]}},
            {"mdchunk": {"formats": ["native", "sqlite", "sections", "pagefind"],
                         "pagefind_search_page": True}},
        ],
    }
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return build_mkdocs(root / "mkdocs.yml")


@pytest.fixture(scope="module", params=["suffix", "folder"])
def i18n_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
              ) -> Path:
    return build_i18n(tmp_path_factory.mktemp(request.param), request.param)


def test_each_language_has_its_own_complete_outputs(i18n_site: Path) -> None:
    for folder in (i18n_site, i18n_site / "fr"):
        for name in OUTPUTS:
            assert (folder / name).exists(), f"{folder.name}: {name} missing"
        check_index(Index.load(folder), max_tokens=512)
    english, french = Index.load(i18n_site).records, Index.load(i18n_site / "fr").records
    assert {record["language"] for record in english} == {"en"}
    for record in french:  # (a page French lacks is the English one: suffix structure)
        source = record["metadata"]["sourceFile"]
        assert record["language"] == ("en" if source == "only-english.md" else "fr"), source
    english_text = " ".join(record["originalText"] for record in english)
    french_text = " ".join(record["originalText"] for record in french)
    assert "Bienvenue" not in english_text and "Welcome" not in french_text
    assert "Bienvenue" in french_text and "Welcome" in english_text
    ids = [record["id"] for record in english + french]
    assert len(ids) == len(set(ids)), "an id repeats across the languages"
    assert all(record["id"].startswith("doc:fr/") for record in french)


def test_each_language_is_a_site_of_its_own_folder(i18n_site: Path) -> None:
    for folder, url in ((i18n_site, SITE_URL), (i18n_site / "fr", SITE_URL + "fr/")):
        for record in Index.load(folder).records:
            assert record["absoluteUrl"] == url + record["url"]
        check_llms_site(folder, url)


def test_the_default_llms_txt_lists_the_other_languages(i18n_site: Path) -> None:
    sections = parse_llms_file(llms_text(i18n_site))["sections"]
    (french,) = sections["Languages"]
    assert french["title"] == "Français (fr)"
    assert site_file(i18n_site, french["url"], SITE_URL) == i18n_site / "fr" / "llms.txt"
    assert "Languages" not in parse_llms_file(llms_text(i18n_site / "fr"))["sections"]
    french_full = (i18n_site / "fr" / "llms-full.txt").read_text(encoding="utf-8")
    assert "Bienvenue" in french_full and "Welcome" not in french_full
    assert "Bienvenue" not in (i18n_site / "llms-full.txt").read_text(encoding="utf-8")


def test_pagefind_records_take_each_language(i18n_site: Path) -> None:
    for folder, language in ((i18n_site, "en"), (i18n_site / "fr", "fr")):
        entry = (folder / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8")
        assert f'"{language}"' in entry
        assert f'lang="{language}"' in (folder / "_mdchunk" / "search.html").read_text(
            encoding="utf-8")


def test_materials_language_and_a_pages_own(make_site: SiteBuilder) -> None:
    site = make_site({"index.md": "# Startseite\n\nWillkommen.\n",
                      "tokyo.md": "---\nlang: ja\n---\n# 東京\n\n東京は日本の首都です。\n",
                      "none.md": "---\nlanguage: ''\n---\n# Leer\n\nText.\n"},
                     config={"theme": {"name": "material", "language": "de"}})
    languages = {record["pageUrl"]: record["language"] for record in Index.load(site).records}
    assert languages == {"": "de", "tokyo/": "ja", "none/": "de"}


@pytest.mark.parametrize(("lang", "expected"), [(' lang="pt-BR"', "pt-BR"), ("", None)])
def test_mdchunk_site_takes_the_language_of_html_lang(tmp_path: Path, lang: str,
                                                      expected: str | None) -> None:
    site = tmp_path / "site"
    for url, title in (("index.html", "Início"), ("guia/index.html", "Guia")):
        (site / url).parent.mkdir(parents=True, exist_ok=True)
        (site / url).write_text(f'<!doctype html><html{lang}><head><title>{title}</title>'
                                f'</head><body><main><h1 id="t">{title}</h1><p>Um texto.</p>'
                                "</main></body></html>", encoding="utf-8")
    result = CliRunner().invoke(main, ["site", str(site)])
    assert result.exit_code == 0, result.output
    records = Index.load(site).records
    assert len(records) == 2 and {record["language"] for record in records} == {expected}


@pytest.mark.parametrize(("theme", "expected"), [
    ("theme:\n  name: material\n  language: de\n", "de"),
    ("theme:\n  name: mkdocs\n  locale: ja\n", "ja"),
    ("theme: mkdocs\n", "en"),  # (MkDocs gives every theme the locale en)
])
def test_mdchunk_chunk_takes_the_language_of_its_mkdocs_config(tmp_path: Path, theme: str,
                                                               expected: str) -> None:
    """`mdchunk chunk --mkdocs-config` says the language the plugin would in that site's
    build; a page's front matter still wins, and without a config no language is known."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    (docs / "other.md").write_text("---\nlang: fr\n---\n# Autre\n\nBonjour.\n",
                                   encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: Site\n{theme}", encoding="utf-8")
    for out, options, languages in (
            (tmp_path / "with", ["--mkdocs-config", str(config)], {expected, "fr"}),
            (tmp_path / "without", [], {None, "fr"})):
        result = CliRunner().invoke(main, ["chunk", str(docs), "-o", str(out), *options])
        assert result.exit_code == 0, result.output
        by_page = {r["metadata"]["sourceFile"]: r["language"] for r in Index.load(out).records}
        assert set(by_page.values()) == languages and by_page["other.md"] == "fr"


def test_a_config_files_language_must_be_a_tag(tmp_path: Path) -> None:
    (tmp_path / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    config = tmp_path / "mdchunk.yml"
    for bad in ("language: 3\n", "language: ''\n"):
        config.write_text(bad, encoding="utf-8")
        result = CliRunner().invoke(main, ["chunk", str(tmp_path / "index.md"), "-o",
                                           str(tmp_path / "out"), "--config", str(config)])
        assert result.exit_code != 0 and "language" in result.output, result.output
        assert not (tmp_path / "out").exists()
    config.write_text("language: nl\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["chunk", str(tmp_path / "index.md"), "-o",
                                       str(tmp_path / "out"), "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert {r["language"] for r in Index.load(tmp_path / "out").records} == {"nl"}


def test_mdchunk_site_chunks_each_language_in_its_folder(i18n_site: Path, tmp_path: Path
                                                         ) -> None:
    """A site built in two languages elsewhere (here by MkDocs, its mdchunk outputs removed):
    `mdchunk site` finds the French build in `fr/` by its `<html lang>` and chunks it apart."""
    site = tmp_path / "site"
    shutil.copytree(i18n_site, site, ignore=shutil.ignore_patterns(
        "chunks*", "llms*", "*.md", "sections.jsonl", "pagefind", "_mdchunk"))
    result = CliRunner().invoke(main, ["site", str(site), "-f", "native", "-f", "sqlite"])
    assert result.exit_code == 0, result.output
    assert "language fr: 3 pages" in result.output
    english, french = Index.load(site), Index.load(site / "fr")
    check_index(english, max_tokens=512)
    check_index(french, max_tokens=512)
    assert {record["language"] for record in english.records} == {"en"}
    assert {record["language"] for record in french.records} == {"fr"}
    assert "Bienvenue" not in " ".join(record["originalText"] for record in english.records)
    assert all(record["id"].startswith("doc:fr/") for record in french.records)
    assert [entry["url"] for entry in parse_llms_file(llms_text(site))["sections"][
        "Languages"]] == [SITE_URL + "fr/llms.txt"]
    check_llms_site(site / "fr", SITE_URL + "fr/")


SPHINX_PAGES = {
    "en": {"index.rst": "Home\n====\n\nWelcome to beacon.\n\n.. toctree::\n\n   guide\n",
           "guide.rst": "Guide\n=====\n\nHow beacon checks files.\n"},
    "fr": {"index.rst": "Accueil\n=======\n\nBienvenue dans beacon.\n\n.. toctree::\n\n"
                        "   guide\n",
           "guide.rst": "Guide\n=====\n\nComment beacon vérifie les fichiers.\n"},
}


def test_a_sphinx_project_built_for_two_languages(tmp_path: Path) -> None:
    """Each language's sources built with `-D language=xx`, the other language into a folder
    named after it (`_build/html/fr`), as Read the Docs and sphinx-intl lay them out."""
    out = tmp_path / "html"
    conf = textwrap.dedent("""\
        project = "Beacon"
        extensions = ["sphinx_mdchunk"]
        mdchunk_formats = ["native", "sqlite"]
        html_baseurl = "https://example.com/sphinx/"
    """)
    for language, folder in (("fr", out / "fr"), ("en", out)):
        source = make_project(tmp_path / language, SPHINX_PAGES[language], conf)
        # (in a process of its own: Sphinx keeps a language's translations for the process)
        run = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-W",
                              "-D", f"language={language}", str(source), str(folder)],
                             capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr
    english, french = Index.load(out), Index.load(out / "fr")
    check_index(english, max_tokens=512)
    check_index(french, max_tokens=512)
    assert {record["language"] for record in english.records} == {"en"}
    assert {record["language"] for record in french.records} == {"fr"}
    ids = [record["id"] for record in english.records + french.records]
    assert len(ids) == len(set(ids))
    assert "Bienvenue" in (out / "fr" / "llms-full.txt").read_text(encoding="utf-8")
    sections = parse_llms_file(llms_text(out))["sections"]
    assert [entry["url"] for entry in sections["Languages"]] == [
        "https://example.com/sphinx/fr/llms.txt"]


def query_hits(site: Path, *options: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["query", str(site), "beacon", "--json", "-k", "10",
                                       *options])
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.output)
    return hits


def test_query_searches_one_language(i18n_site: Path) -> None:
    english, french = query_hits(i18n_site), query_hits(i18n_site, "--language", "fr")
    assert english and {hit["language"] for hit in english} == {"en"}
    in_french = {r["id"]: r["language"] for r in Index.load(i18n_site / "fr").records}
    assert french and {hit["id"]: hit["language"] for hit in french}.items() <= in_french.items()
    assert "fr" in {hit["language"] for hit in french}
    assert query_hits(i18n_site, "--language", "EN") == english
    assert query_hits(i18n_site, "--language", "fr_FR") == french  # (the site's one French)
    assert query_hits(i18n_site / "fr" / "chunks.sqlite", "--language", "fr") == french
    refused = CliRunner().invoke(main, ["query", str(i18n_site), "beacon", "--language", "de"])
    assert refused.exit_code != 0 and "its languages: en, fr" in refused.output


def test_a_language_is_found_with_the_jsonl_index_alone(i18n_site: Path, tmp_path: Path
                                                        ) -> None:
    """With the default formats a build has no chunks.sqlite: its chunks.jsonl tells its
    language, and the query indexes it on the fly."""
    site = tmp_path / "site"
    shutil.copytree(i18n_site, site)
    for path in site.rglob("chunks.sqlite"):
        path.unlink()
    french = query_hits(site, "--language", "fr")
    assert french and all(hit["id"].startswith("doc:fr/") for hit in french)
    assert "fr" in {hit["language"] for hit in french}
    refused = CliRunner().invoke(main, ["query", str(site), "beacon", "--language", "de"])
    assert refused.exit_code != 0 and "its languages: en, fr" in refused.output


def test_mcp_answers_in_the_language_asked(i18n_site: Path, tmp_path: Path) -> None:
    with stdio_session(i18n_site, cache=tmp_path) as session:
        default = session.ok("search_docs", query="beacon install")["results"]
        french = session.ok("search_docs", query="beacon installateur", language="fr")
        assert {result["language"] for result in default} == {"en"}
        results = french["results"]
        assert results and results[0]["language"] == "fr"
        assert all(result["id"].startswith("doc:fr/") for result in results)
        section = session.ok("read_section", id_or_url=results[0]["id"], language="fr")
        assert section["id"] == results[0]["id"] and section["text"]
        outline = session.ok("list_sections", url=results[0]["url"], language="fr")
        assert outline["sections"][0]["id"].startswith("doc:fr/")
        assert "its languages: en, fr" in session.error("search_docs", query="beacon",
                                                        language="de")
