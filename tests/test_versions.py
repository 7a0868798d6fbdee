"""Versions of the docs: a build's version (option, mike's and Read the Docs' environment) in
every record and id, and a tree of versions deployed by mike itself (`mike deploy` to a local
git branch) read by `mdchunk site`, `mdchunk query` and `mdchunk mcp`."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from llms_txt import parse_llms_file

from mdchunk.chunking.chunker import Chunker
from mdchunk.chunking.model import PageInput
from mdchunk.cli import main
from mdchunk.errors import OptionError
from mdchunk.options import ChunkOptions
from mdchunk.session.config import SiteFacts, build_settings
from mdchunk.settings import build_site_url, names_version_folder, version_site_url
from tests.conftest import SiteBuilder
from tests.helpers import read_jsonl, render
from tests.test_mcp import Session, stdio_session
from tests.test_sphinx import make_project, sphinx_build

SITE_URL = "https://example.org/project/"

#: The pages of each version: what changed between them is what a versioned query must find.
VERSIONS: dict[str, dict[str, str]] = {
    "1.0": {
        "index.md": "# Widgets\n\nWidgets make reports from your data.\n",
        "guide/install.md": "# Install\n\nInstall widgets with pip.\n\n## Linux\n\n"
                            "On Linux, install the libfrobnicate package first.\n",
    },
    "2.0": {
        "index.md": "# Widgets\n\nWidgets make reports and dashboards from your data.\n",
        "guide/install.md": "# Install\n\nInstall widgets with uv.\n\n## Windows\n\n"
                            "On Windows, install the quuxinator runtime first.\n",
    },
}


@pytest.fixture(autouse=True)
def _no_version_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Builds that see neither mike's nor Read the Docs' variable unless a test sets it."""
    monkeypatch.delenv("MIKE_DOCS_VERSION", raising=False)
    monkeypatch.delenv("READTHEDOCS_VERSION", raising=False)


def records_of(folder: Path) -> list[dict[str, Any]]:
    return read_jsonl(folder / "chunks.jsonl")


# -- a build's version ---------------------------------------------------------------------------


def test_an_unversioned_build_says_so_and_keeps_its_ids(make_site: SiteBuilder) -> None:
    site = make_site(VERSIONS["1.0"], plugin={"formats": ["native", "docsearch"]},
                     config={"site_url": SITE_URL})
    records = records_of(site)
    assert {record["version"] for record in records} == {None}
    docsearch = json.loads((site / "docsearch.json").read_text(encoding="utf-8"))
    assert docsearch and not any("version" in record for record in docsearch)
    assert {record["parentId"] for record in records} == {"doc:index", "doc:guide/install"}
    assert all(record["absoluteUrl"].startswith(SITE_URL + record["url"].split("#")[0])
               for record in records)
    keys = list(records[0])
    assert keys[keys.index("pageUrl") + 1] == "version"


@pytest.mark.parametrize(("plugin", "environment", "version"), [
    ({"version": "1.0"}, {}, "1.0"),
    ({}, {"MIKE_DOCS_VERSION": "2.1"}, "2.1"),
    ({}, {"READTHEDOCS_VERSION": "stable"}, "stable"),
    ({}, {"MIKE_DOCS_VERSION": "2.1", "READTHEDOCS_VERSION": "stable"}, "2.1"),
    ({"version": "1.0"}, {"MIKE_DOCS_VERSION": "2.1"}, "1.0"),
])
def test_a_build_takes_its_version_from_the_option_else_mike_else_read_the_docs(
        make_site: SiteBuilder, monkeypatch: pytest.MonkeyPatch, plugin: dict[str, Any],
        environment: dict[str, str], version: str) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    site = make_site(VERSIONS["1.0"],
                     plugin={"formats": ["native", "files", "docsearch"], **plugin},
                     config={"site_url": SITE_URL})
    records = records_of(site)
    assert {record["version"] for record in records} == {version}
    for record in records:
        doc_name = record["metadata"]["sourceFile"].removesuffix(".md")
        assert record["id"] == f"doc:{version}/{doc_name}::ch{record['chunkNumber']}"
        assert record["parentId"] == f"doc:{version}/{doc_name}"
        assert record["absoluteUrl"] == f"{SITE_URL}{version}/{record['url']}"
    docsearch = json.loads((site / "docsearch.json").read_text(encoding="utf-8"))
    assert docsearch and all(record["version"] == [version] for record in docsearch)
    files = sorted(path.name for path in (site / "chunks").iterdir())
    assert files and all(name.startswith(f"doc_{version}") for name in files)
    twin = (site / "guide" / "install.md").read_text(encoding="utf-8")
    assert f"]({SITE_URL}{version}/guide/install/)" in twin
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert f"({SITE_URL}{version}/guide/install.md)" in llms


def test_a_site_url_that_names_the_version_already_is_kept(make_site: SiteBuilder,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Read the Docs' canonical url ends with the version (as mike's plugin makes it)."""
    monkeypatch.setenv("READTHEDOCS_VERSION", "latest")
    site_url = "https://widgets.readthedocs.io/en/latest/"
    site = make_site(VERSIONS["1.0"], config={"site_url": site_url})
    assert {record["absoluteUrl"].split("#")[0] for record in records_of(site)} == {
        site_url, site_url + "guide/install/"}


@pytest.mark.parametrize("bad", ["", "1.0/beta", "..", "a\\b", " 1.0"])
def test_a_version_that_names_no_folder_is_refused_naming_where_it_came_from(
        monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    with pytest.raises(OptionError) as raised:
        build_settings({"version": bad}, SiteFacts())
    assert raised.value.option == "version"
    if bad:
        monkeypatch.setenv("MIKE_DOCS_VERSION", bad)
        with pytest.raises(OptionError) as raised:
            build_settings({}, SiteFacts())
        assert raised.value.option == "MIKE_DOCS_VERSION"


@given(base=st.sampled_from(["", "https://example.org", "https://example.org/docs/",
                              "https://example.org/docs/1.0", "https://x.io/en/latest/"]),
       version=st.text(st.characters(blacklist_characters="/\\", blacklist_categories=("Cs",
                                                                                        "Cc")),
                       min_size=1, max_size=8).filter(names_version_folder))
def test_a_version_folder_url_is_made_once(base: str, version: str) -> None:
    """Made again from its own result it is the same (a page's site url passes through it
    after the build's did), and it always ends with the version's folder."""
    once = version_site_url(base, version)
    assert version_site_url(once, version) == once
    assert (once == "") if not base else once.endswith(f"/{version}/")


@given(base=st.sampled_from(["", "https://example.org", "https://example.org/docs/",
                              "https://example.org/docs/2.0/"]),
       version=st.sampled_from([None, "1.0", "2.0", "latest"]),
       folder=st.sampled_from(["", "fr", "pt-BR"]))
def test_a_builds_url_is_made_once_from_the_sites_or_its_own(base: str, version: str | None,
                                                               folder: str) -> None:
    """The url of a version's build in a language folder is the same whether it is made from
    the site's url or from its own (a page's canonical url in `mdchunk site`), and it ends
    with the version's folder, then the language's."""
    once = build_site_url(base, version, folder)
    assert build_site_url(once, version, folder) == once
    if base:
        tail = "/".join(part for part in (version, folder) if part)
        assert once.endswith(f"/{tail}/" if tail else "/")


FOLDER_NAMES = st.text(st.characters(blacklist_characters="/\\", blacklist_categories=(
    "Cs", "Cc")), min_size=1, max_size=8).filter(names_version_folder)


@settings(max_examples=40, deadline=None)
@given(prefix=FOLDER_NAMES, version=st.none() | FOLDER_NAMES, folder=st.sampled_from(["", "fr"]))
def test_a_site_prefix_heads_every_id_before_the_version_and_the_language(
        prefix: str, version: str | None, folder: str) -> None:
    """The prefix of a site among many (`mdchunk.ray`) goes at the head of every doc name as
    the version's folder does, before it; the record's `version` stays the build's."""
    chunker = Chunker(ChunkOptions(), docs_version=version, language_folder=folder,
                      site_prefix=prefix)
    page = PageInput(html=render("# Install\n\nText.\n\n## Linux\n\nMore text.\n"),
                     source_path="guide/install.md", url="guide/install/", title="Install")
    name = "/".join(part for part in (prefix, version, folder, "guide/install") if part)
    records = [chunk.as_native() for chunk in chunker.chunk_page(page).chunks]
    assert records
    for number, record in enumerate(records):
        assert (record["id"], record["parentId"]) == (f"doc:{name}::ch{number}", f"doc:{name}")
        assert record["version"] == version


def test_the_version_enters_the_fingerprint() -> None:
    one, two = (build_settings({"version": name}, SiteFacts()) for name in ("1.0", "2.0"))
    assert one.fingerprint() != two.fingerprint()


def test_sphinx_takes_mdchunk_version(tmp_path: Path) -> None:
    source = make_project(tmp_path)
    conf = source / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8") + "\nmdchunk_version = '3.2'\n",
                    encoding="utf-8")
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code == 0, warnings
    records = records_of(tmp_path / "out")
    assert records and {record["version"] for record in records} == {"3.2"}
    assert all(record["id"].startswith("doc:3.2/") for record in records)


def test_mdchunk_site_takes_a_version_flag(make_site: SiteBuilder) -> None:
    site = make_site(VERSIONS["1.0"], plugin={"enabled": False})
    result = CliRunner().invoke(main, ["site", str(site), "--version", "1.0", "--site-url",
                                       SITE_URL])
    assert result.exit_code == 0, result.output
    records = records_of(site)
    assert {record["version"] for record in records} == {"1.0"}
    assert all(record["absoluteUrl"] == f"{SITE_URL}1.0/{record['url']}" for record in records)


# -- a tree deployed by mike -------------------------------------------------------------------


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, (command, done.stdout, done.stderr)


def _write_pages(docs: Path, pages: dict[str, str]) -> None:
    if docs.exists():
        shutil.rmtree(docs)
    for name, text in pages.items():
        path = docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def mike_environment() -> dict[str, str]:
    """The environment mike runs in: this Python's scripts first, a git that needs no user
    configuration, fixed timestamps, and neither mike's nor Read the Docs' version set."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "GIT_AUTHOR_NAME": "mdchunk", "GIT_AUTHOR_EMAIL": "tests@mdchunk.invalid",
           "GIT_COMMITTER_NAME": "mdchunk", "GIT_COMMITTER_EMAIL": "tests@mdchunk.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "SOURCE_DATE_EPOCH": "1700000000"}
    env.pop("MIKE_DOCS_VERSION", None)
    env.pop("READTHEDOCS_VERSION", None)
    return env


def deploy_versions(repo: Path, config: dict[str, Any],
                    versions: Sequence[tuple[str, list[str], Callable[[Path], None]]], *,
                    alias_type: str = "symlink", prefix: str = "") -> Path:
    """Versions of a site deployed by mike to the branch gh-pages of a new git repository (no
    remote), in turn: each a version's name, its aliases and what writes its docs folder; each
    alias a symbolic link, a copy or redirect pages (`alias_type`), under the folder `prefix`
    of the branch (mike's `--deploy-prefix`). Returns a checkout of the branch."""
    pytest.importorskip("mike")
    env = mike_environment()
    repo.mkdir()
    (repo / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (repo / ".gitignore").write_text("site/\n", encoding="utf-8")
    _run(["git", "init", "-q", "-b", "main"], repo, env)
    mike = [str(Path(sys.executable).parent / "mike"), "deploy", "--branch", "gh-pages",
            "--alias-type", alias_type, *(["--deploy-prefix", prefix] if prefix else [])]
    for version, aliases, write_docs in versions:
        write_docs(repo / "docs")
        _run(["git", "add", "-A"], repo, env)
        _run(["git", "commit", "-q", "-m", f"docs {version}"], repo, env)
        _run([*mike, "--update-aliases", version, *aliases], repo, env)
    tree = repo.parent / f"{repo.name}-gh-pages"
    _run(["git", "worktree", "add", "-q", str(tree), "gh-pages"], repo, env)
    return tree


def deploy_with_mike(repo: Path, *, alias_type: str = "symlink", prefix: str = "") -> Path:
    """Two versions of a small site deployed by mike (`deploy_versions`): 1.0, then 2.0 with
    the alias latest."""
    config = {"site_name": "Widgets", "site_url": SITE_URL,
              "plugins": [{"mdchunk": {"formats": ["native", "sqlite"], "cache": False}}]}
    return deploy_versions(repo, config, [
        (version, aliases, functools.partial(_write_pages, pages=VERSIONS[version]))
        for version, aliases in (("1.0", []), ("2.0", ["latest"]))
    ], alias_type=alias_type, prefix=prefix)


@pytest.fixture(scope="module")
def mike_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gh-pages tree of `deploy_with_mike`, as mike and the mdchunk plugin wrote it."""
    return deploy_with_mike(tmp_path_factory.mktemp("mike") / "repo")


@pytest.fixture(scope="module")
def indexed_tree(mike_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tree, after `mdchunk site` ran on its root."""
    tree = tmp_path_factory.mktemp("indexed") / "tree"
    shutil.copytree(mike_tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    result = CliRunner().invoke(main, ["site", str(tree), "-f", "native", "-f", "sqlite",
                                       "--site-url", SITE_URL])
    assert result.exit_code == 0, result.output
    return tree


def test_mike_builds_carry_their_version_and_no_id_repeats(mike_tree: Path) -> None:
    assert json.loads((mike_tree / "versions.json").read_text(encoding="utf-8"))[0][
        "aliases"] == ["latest"]
    assert (mike_tree / "latest").is_symlink()
    ids: list[str] = []
    for version in VERSIONS:
        records = records_of(mike_tree / version)
        assert records and {record["version"] for record in records} == {version}
        assert all(record["id"].startswith(f"doc:{version}/") for record in records)
        # mike's plugin made site_url the version's folder: kept, not doubled
        assert all(record["absoluteUrl"] == f"{SITE_URL}{version}/{record['url']}"
                   for record in records)
        ids += [record["id"] for record in records]
        ids += [record["uuid"] for record in records]
    assert len(ids) == len(set(ids))


def test_mdchunk_site_indexes_each_version_once_and_no_alias(indexed_tree: Path) -> None:
    indexes = sorted(str(path.parent.relative_to(indexed_tree))
                     for path in _files_not_following_links(indexed_tree, "chunks.jsonl"))
    assert indexes == sorted(VERSIONS)
    assert (indexed_tree / "latest").is_symlink()
    ids = [record["id"] for version in VERSIONS for record in records_of(indexed_tree / version)]
    assert len(ids) == len(set(ids))
    for version in VERSIONS:
        records = records_of(indexed_tree / version)
        assert {record["version"] for record in records} == {version}
        assert all(record["absoluteUrl"] == f"{SITE_URL}{version}/{record['url']}"
                   for record in records)


def test_mdchunk_site_keeps_a_page_cache_per_version(mike_tree: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With --cache-dir, each version keeps its pages in its own subfolder (its settings carry
    its version): a second run over the tree takes every page of every version from there and
    writes the same indexes."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    tree = tmp_path / "tree"
    shutil.copytree(mike_tree, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    command = ["site", str(tree), "-f", "native", "--site-url", SITE_URL,
               "--cache-dir", str(tmp_path / "cache")]
    first = CliRunner().invoke(main, command)
    assert first.exit_code == 0, first.output
    before = {version: records_of(tree / version) for version in VERSIONS}
    assert sorted(path.name for path in (tmp_path / "cache").iterdir()) == sorted(VERSIONS)
    again = CliRunner().invoke(main, command)
    assert again.exit_code == 0, again.output
    assert again.output.count("unchanged, taken from the page cache") == len(VERSIONS)
    assert {version: records_of(tree / version) for version in VERSIONS} == before


def _files_not_following_links(root: Path, name: str) -> Iterator[Path]:
    for folder, _, files in os.walk(root):  # (os.walk follows no symbolic link by default)
        if name in files:
            yield Path(folder) / name


def test_the_root_llms_txt_lists_both_versions(indexed_tree: Path) -> None:
    text = (indexed_tree / "llms.txt").read_text(encoding="utf-8")
    parsed = parse_llms_file(text)
    assert parsed["title"] == "Widgets"
    links = parsed["sections"]["Versions"]
    assert [link["title"] for link in links] == ["2.0", "1.0"]
    assert [link["url"] for link in links] == [f"{SITE_URL}2.0/llms.txt",
                                               f"{SITE_URL}1.0/llms.txt"]
    assert "latest" in links[0]["desc"]
    for version in VERSIONS:
        own = (indexed_tree / version / "llms.txt").read_text(encoding="utf-8")
        assert f"({SITE_URL}{version}/guide/install.md)" in own
        full = (indexed_tree / version / "llms-full.txt").read_text(encoding="utf-8")
        assert VERSIONS[version]["guide/install.md"].split("\n\n")[1] in full


def _query(tree: Path, question: str, *options: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["query", str(tree), question, "--json", *options])
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.output)
    return hits


@pytest.mark.parametrize(("options", "version"), [
    ((), "2.0"), (("--version", "latest"), "2.0"), (("--version", "2.0"), "2.0"),
    (("--version", "1.0"), "1.0")])
def test_a_versioned_query_returns_only_that_version(indexed_tree: Path,
                                                     options: tuple[str, ...],
                                                     version: str) -> None:
    hits = _query(indexed_tree, "install widgets first", *options)
    assert hits and {hit["version"] for hit in hits} == {version}
    assert all(hit["id"].startswith(f"doc:{version}/") for hit in hits)
    only_in = {"1.0": "libfrobnicate", "2.0": "quuxinator"}
    for other, word in only_in.items():
        found = _query(indexed_tree, word, *options)
        assert bool(found) == (other == version)


def test_a_query_for_a_version_the_tree_lacks_names_those_it_has(indexed_tree: Path) -> None:
    result = CliRunner().invoke(main, ["query", str(indexed_tree), "install", "--version", "3"])
    assert result.exit_code != 0
    assert "'3'" in result.output and "2.0 (latest), 1.0" in result.output


def test_a_tree_refuses_a_version_of_its_own(indexed_tree: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(indexed_tree, tree, symlinks=True)
    result = CliRunner().invoke(main, ["site", str(tree), "--version", "9"])
    assert result.exit_code != 0 and "tree of versions" in result.output


@pytest.fixture(scope="module")
def tree_server(indexed_tree: Path, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[Session]:
    with stdio_session(indexed_tree, cache=tmp_path_factory.mktemp("cache")) as session:
        yield session


@pytest.mark.parametrize(("version", "expected"), [
    (None, "2.0"), ("latest", "2.0"), ("1.0", "1.0"), ("2.0", "2.0")])
def test_mcp_search_docs_serves_every_version_of_a_tree(tree_server: Session,
                                                        version: str | None,
                                                        expected: str) -> None:
    arguments: dict[str, Any] = {"query": "install widgets first"}
    if version is not None:
        arguments["version"] = version
    results = tree_server.ok("search_docs", **arguments)["results"]
    assert results and {result["version"] for result in results} == {expected}
    first = results[0]
    section = tree_server.ok("read_section", id_or_url=first["id"])
    assert section["text"].startswith(first["text"].split("\n", 1)[0])
    page = tree_server.ok("read_page", url=first["absoluteUrl"])
    expected_word = {"1.0": "libfrobnicate", "2.0": "quuxinator"}[expected]
    assert expected_word in page["text"]


def test_mcp_search_docs_names_the_versions_of_the_tree(tree_server: Session) -> None:
    message = tree_server.error("search_docs", query="install", version="0.9")
    assert "0.9" in message and "2.0 (latest), 1.0" in message


def test_a_tree_under_a_deploy_prefix_with_copied_aliases(tmp_path: Path) -> None:
    """mike's `--deploy-prefix docs` puts the tree in docs/ of the branch; aliases copied
    (`--alias-type copy`) are whole copies of a version, with its index: neither is indexed
    again, and a query for the alias reads its version's folder."""
    branch = deploy_with_mike(tmp_path / "repo", alias_type="copy", prefix="docs")
    tree = branch / "docs"
    assert (tree / "versions.json").is_file() and not (tree / "latest").is_symlink()
    copied = (tree / "latest" / "chunks.jsonl").read_bytes()
    result = CliRunner().invoke(main, ["site", str(branch), "-f", "native", "-f", "sqlite",
                                       "--site-url", SITE_URL])
    assert result.exit_code == 0, result.output
    assert (tree / "latest" / "chunks.jsonl").read_bytes() == copied
    assert not (branch / "llms.txt").exists()
    links = parse_llms_file((tree / "llms.txt").read_text(encoding="utf-8"))["sections"][
        "Versions"]
    assert [link["url"] for link in links] == [f"{SITE_URL}docs/2.0/llms.txt",
                                               f"{SITE_URL}docs/1.0/llms.txt"]
    for version in VERSIONS:
        assert all(record["absoluteUrl"] == f"{SITE_URL}docs/{version}/{record['url']}"
                   for record in records_of(tree / version))
    for folder in (branch, tree):
        hits = _query(folder, "install widgets first", "--version", "latest")
        assert hits and {hit["version"] for hit in hits} == {"2.0"}


def test_a_read_the_docs_tree_is_searched_by_its_version_folders(
        make_site: SiteBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Read the Docs serves each build at /<language>/<version>/, with no versions.json: the
    version is the folder's name under the language's."""
    monkeypatch.setenv("READTHEDOCS_VERSION", "stable")
    site = make_site(VERSIONS["1.0"], plugin={"formats": ["native", "sqlite"]},
                     config={"site_url": "https://widgets.readthedocs.io/en/stable/"})
    language = tmp_path / "html" / "en"
    language.mkdir(parents=True)
    shutil.move(site, language / "stable")
    for folder, options in ((language, ("--version", "stable")),
                            (language / "stable", ()), (language / "stable", ("--version",
                                                                             "stable"))):
        hits = _query(folder, "libfrobnicate", *options)
        assert hits and {hit["version"] for hit in hits} == {"stable"}
    result = CliRunner().invoke(main, ["query", str(language), "install", "--version", "latest"])
    assert result.exit_code != 0 and "no version 'latest'" in result.output


def test_mdchunk_serve_on_a_tree_serves_every_version_over_mcp(indexed_tree: Path,
                                                               tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    import anyio.from_thread

    from tests.helpers import free_port, server_env
    from tests.test_mcp import _initialized, http_transport
    from tests.test_serve import running

    port = free_port()
    command = [sys.executable, "-m", "mdchunk.cli", "serve", str(indexed_tree), "--port",
               str(port)]
    with running(command, port, tmp_path / "stderr.txt", env=server_env(tmp_path)), \
            anyio.from_thread.start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(
                _initialized(http_transport(f"http://127.0.0.1:{port}/mcp"))) as client:
        session = Session(portal, client)
        for version in VERSIONS:
            found = session.ok("search_docs", query="install widgets first", version=version)
            assert {result["version"] for result in found["results"]} == {version}


def test_the_mcp_server_of_a_tree_tells_the_assistant_its_versions(indexed_tree: Path,
                                                                   tmp_path: Path) -> None:
    from mdchunk.mcp.index import open_docs
    from mdchunk.mcp.server import build_server

    tree = build_server(open_docs(indexed_tree, tmp_path / "cache"))
    assert "several versions: 2.0 (latest), 1.0" in tree.instructions
    assert "searches 2.0 unless given a version" in tree.instructions
    single = build_server(open_docs(indexed_tree / "1.0", tmp_path / "cache"))
    assert "version" not in single.instructions


def test_validate_checks_that_a_version_starts_the_ids(make_site: SiteBuilder,
                                                       tmp_path: Path) -> None:
    site = make_site(VERSIONS["1.0"], plugin={"version": "1.0"})
    assert CliRunner().invoke(main, ["validate", str(site / "chunks.jsonl")]).exit_code == 0
    records = records_of(site)
    records[0]["version"] = "2.0"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(record) + "\n" for record in records),
                      encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(broken)])
    assert result.exit_code != 0 and "doc:2.0/" in result.output
