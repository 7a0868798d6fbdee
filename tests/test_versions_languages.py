"""A site with both versions and languages: mike deploys a site that mkdocs-static-i18n builds
in two languages, so that each version folder holds the default language and a folder per
other language (`ROOT/<version>/<locale>/`). Records, ids and urls carry both facts; a query
and the MCP server choose the version first, then the language of that version's build."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from llms_txt import parse_llms_file

from mdchunk.cli import main
from tests.invariants import Index, check_index
from tests.test_languages import SITE_URL, i18n_sources
from tests.test_mcp import stdio_session
from tests.test_versions import deploy_versions


def _i18n_docs(docs: Path, *, release: str) -> None:
    """The two-language pages of tests/test_languages.py, each home page naming `release`."""
    if docs.exists():
        shutil.rmtree(docs)
    i18n_sources(docs, "suffix")
    for name, word in (("index.md", "Release"), ("index.fr.md", "Version")):
        with (docs / name).open("a", encoding="utf-8") as page:
            page.write(f"\n## {word} {release}\n\n{word} {release} of beacon, the orchid "
                       f"{release.replace('.', '')}.\n")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mike's gh-pages tree of versions 1.0 and 2.0 (alias latest), each in English and
    French, then `mdchunk site` run on its root."""
    pytest.importorskip("mkdocs_static_i18n")
    config = {
        "site_name": "Beacon", "site_url": SITE_URL,
        "plugins": [
            {"i18n": {"docs_structure": "suffix", "languages": [
                {"locale": "en", "default": True, "name": "English", "build": True},
                {"locale": "fr", "name": "Français", "build": True}]}},
            {"mdchunk": {"formats": ["native", "sqlite"], "cache": False}},
            # (mike's version selector adds its stylesheet again in i18n's second build, which
            # MkDocs refuses: mike's own plugin without it)
            {"mike": {"version_selector": False}},
        ],
    }
    root = deploy_versions(tmp_path_factory.mktemp("both") / "repo", config, [
        (version, aliases, functools.partial(_i18n_docs, release=version))
        for version, aliases in (("1.0", []), ("2.0", ["latest"]))
    ])
    result = CliRunner().invoke(main, ["site", str(root), "-f", "native", "-f", "sqlite",
                                       "--site-url", SITE_URL])
    assert result.exit_code == 0, result.output
    return root


@pytest.mark.slow
def test_each_version_and_language_is_a_build_of_its_own_folder(tree: Path) -> None:
    ids: list[str] = []
    for version in ("1.0", "2.0"):
        for folder, language in ((tree / version, "en"), (tree / version / "fr", "fr")):
            index = Index.load(folder)
            check_index(index, max_tokens=512)
            prefix = f"doc:{version}/" + ("fr/" if language == "fr" else "")
            base = f"{SITE_URL}{version}/" + ("fr/" if language == "fr" else "")
            for record in index.records:
                assert record["version"] == version
                assert record["id"].startswith(prefix), record["id"]
                assert record["absoluteUrl"] == base + record["url"]
            assert {r["language"] for r in index.records if "only-english" not in r["id"]} == {
                language}
            ids += [record["id"] for record in index.records]
    assert len(ids) == len(set(ids)), "an id repeats across versions and languages"
    versions = parse_llms_file((tree / "llms.txt").read_text(encoding="utf-8"))["sections"]
    assert any("1.0" in entry["title"] for section in versions.values() for entry in section)


def _hits(tree: Path, question: str, *options: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["query", str(tree), question, "--json", *options])
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.output)
    return hits


@pytest.mark.slow
@pytest.mark.parametrize(("options", "version", "language"), [
    ((), "2.0", "en"),
    (("--version", "1.0"), "1.0", "en"),
    (("--version", "1.0", "--language", "fr"), "1.0", "fr"),
    (("--version", "latest", "--language", "fr"), "2.0", "fr"),
])
def test_a_query_reads_one_version_in_one_language(tree: Path, options: tuple[str, ...],
                                                    version: str, language: str) -> None:
    hits = _hits(tree, "beacon orchid", *options)
    assert hits and {hit["version"] for hit in hits} == {version}
    assert {hit["language"] for hit in hits} == {language}
    orchid = f"orchid {version.replace('.', '')}"
    assert orchid in hits[0]["text"], hits[0]["text"]


@pytest.mark.slow
def test_mcp_answers_from_the_version_and_language_asked(tree: Path, tmp_path: Path) -> None:
    with stdio_session(tree, cache=tmp_path) as session:
        results = session.ok("search_docs", query="beacon orchid", version="1.0",
                             language="fr")["results"]
        assert results and {(r["version"], r["language"]) for r in results} == {("1.0", "fr")}
        assert all(result["id"].startswith("doc:1.0/fr/") for result in results)
        section = session.ok("read_section", id_or_url=results[0]["id"], language="fr")
        assert section["id"] == results[0]["id"] and "orchid 10" in section["text"]
        latest = session.ok("search_docs", query="beacon orchid")["results"]
        assert latest and {(r["version"], r["language"]) for r in latest} == {("2.0", "en")}
