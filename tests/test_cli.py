"""The `mdchunk` command: chunk, query, stats, validate, diff, sync chroma."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mdchunk._version import __version__
from mdchunk.cli import main
from tests.conftest import EXAMPLE_SITE, build_mkdocs
from tests.helpers import read_jsonl
from tests.invariants import Index, check_index


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args], catch_exceptions=False)


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A copy of the example MkDocs site (docs/ and mkdocs.yml)."""
    target = tmp_path / "example"
    shutil.copytree(EXAMPLE_SITE, target, ignore=shutil.ignore_patterns("site", "site-material"))
    return target


def chunk(site: Path, out: Path, *extra: str) -> Result:
    result = run("chunk", site / "docs", "--mkdocs-config", site / "mkdocs.yml", "-o", out,
                 *extra)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def index(site: Path, tmp_path: Path) -> Path:
    """`mdchunk chunk` of the example site: chunks.jsonl with the pages' .md beside it."""
    out = tmp_path / "out"
    chunk(site, out)
    return out / "chunks.jsonl"


# --- help, version, errors -------------------------------------------------------------------

COMMANDS = [[], ["chunk"], ["query"], ["stats"], ["validate"], ["diff"], ["sync"],
            ["sync", "chroma"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "main")
def test_every_command_has_help(command: list[str]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0
    assert "Usage: main" in result.output and "--help" in result.output


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_bad_option_names_the_flag(site: Path, tmp_path: Path) -> None:
    result = run("chunk", site / "docs", "-o", tmp_path / "o", "--min-tokens", "600")
    assert result.exit_code == 2
    assert "--min-tokens" in result.output and "smaller than max_tokens" in result.output
    assert not (tmp_path / "o").exists()


def test_bad_option_in_config_file(site: Path, tmp_path: Path) -> None:
    config = tmp_path / "mdchunk.yml"
    config.write_text("split_level: 9\n", encoding="utf-8")
    result = run("chunk", site / "docs", "-o", tmp_path / "o", "--config", config)
    assert result.exit_code == 2 and "split_level" in result.output


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A small MkDocs site built without mdchunk, with its mkdocs.yml (in the folder above):
    what `mdchunk site` reads."""
    root = tmp_path / "built"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(
        "# Home\n\nWhat the agent does.\n\n## Install\n\nRun the installer.\n\n"
        "### Linux\n\nUse the package.\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: Small\nsite_url: https://small.example.org/\nplugins:\n  - search\n",
        encoding="utf-8")
    return build_mkdocs(root / "mkdocs.yml")


def files_of(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def run_site_with_config(built: Path, config: Path) -> Result:
    """`mdchunk site` on `built` with `--config config`; nothing may change in the site when
    the command fails."""
    before = files_of(built)
    result = run("site", built, "--config", config)
    if result.exit_code:
        assert files_of(built) == before, "a failed run wrote into the site"
    return result


#: What every message about a `--config` file's key lists: the keys the file may hold.
FILE_KEYS = ("max_tokens", "formats", "output", "exclude", "duplicates", "llms_txt",
             "llms_full_max_tokens", "pagefind_output", "site_url")


@pytest.mark.parametrize("command", ["site", "chunk"])
def test_a_misspelt_key_of_a_config_file_is_named_with_its_file_and_the_right_key(
        command: str, built: Path, tmp_path: Path) -> None:
    config = tmp_path / "mdchunk.yml"
    config.write_text("formats: [native, sections]\nmax_token: 512\n", encoding="utf-8")
    out = tmp_path / "out"
    if command == "site":
        result = run_site_with_config(built, config)
    else:
        result = run("chunk", built.parent / "docs", "-o", out, "--config", config)
        assert not out.exists()
    assert result.exit_code == 2
    message = result.output.splitlines()[-1]
    assert f"'--config' ({config}): max_token: no such option" in message
    assert "did you mean 'max_tokens'?" in message
    assert all(f" {key}," in message or message.endswith(f" {key}") for key in FILE_KEYS)
    assert "--max-token" not in result.output


def test_a_bad_value_in_a_config_file_names_the_file_not_a_flag(
        built: Path, tmp_path: Path) -> None:
    config = tmp_path / "mdchunk.yml"
    config.write_text("max_tokens: 12\n", encoding="utf-8")
    result = run_site_with_config(built, config)
    assert result.exit_code == 2
    assert f"'--config' ({config}): max_tokens: must be >= 16, got 12" in result.output
    assert "--max-tokens" not in result.output
    # The same value given as a flag names the flag, which wins over the file.
    result = run("site", built, "--config", config, "--max-tokens", "8")
    assert result.exit_code == 2 and "'--max-tokens' (max_tokens)" in result.output
    config.write_text("llms_full_max_tokens: -3\n", encoding="utf-8")
    result = run_site_with_config(built, config)
    assert f"'--config' ({config}): llms_full_max_tokens: must be" in result.output


def test_site_with_a_cache_dir_chunks_only_the_pages_that_changed(
        built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mdchunk site --cache-dir` keeps each chunked page, as the plugin's page cache does: a
    run over the same site takes every page from it and writes the same index; a page whose
    HTML changed is chunked again; without the flag nothing is kept."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    cache = tmp_path / "cache"
    first = run("site", built, "--cache-dir", cache)
    assert first.exit_code == 0, first.output
    assert "page cache" not in first.output
    records = read_jsonl(built / "chunks.jsonl")
    again = run("site", built, "--cache-dir", cache)
    assert again.exit_code == 0, again.output
    assert "1 page unchanged, taken from the page cache" in again.output
    assert read_jsonl(built / "chunks.jsonl") == records
    page = built / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "Use the package.", "Use the package, or the installer script."), encoding="utf-8")
    changed = run("site", built, "--cache-dir", cache)
    assert changed.exit_code == 0, changed.output
    assert "page cache" not in changed.output
    assert "installer script" in " ".join(r["originalText"]
                                          for r in read_jsonl(built / "chunks.jsonl"))
    assert "page cache" not in run("site", built).output


def test_site_takes_the_mdchunk_options_of_an_mkdocs_yml(built: Path, tmp_path: Path) -> None:
    """`mdchunk site --config mkdocs.yml` reads the `mdchunk` plugin's options (the plugin
    need not be installed, so a MkDocs 2 or Zensical site may list it) and site_url, from
    the file it inherits too."""
    mkdocs_yml = built.parent / "mkdocs.yml"
    text = mkdocs_yml.read_text(encoding="utf-8")
    mkdocs_yml.write_text(text + "  - mdchunk:\n      max_token: 100\n", encoding="utf-8")
    result = run_site_with_config(built, mkdocs_yml)
    assert result.exit_code == 2
    assert (f"'--config' ({mkdocs_yml}): plugins: mdchunk: max_token: no such option; did "
            "you mean 'max_tokens'?") in result.output
    mkdocs_yml.write_text(text + "  - mdchunk:\n      max_tokens: 100\n"
                          "      formats: [native, sections]\n", encoding="utf-8")
    result = run_site_with_config(built, mkdocs_yml)
    assert result.exit_code == 0, result.output
    records = read_jsonl(built / "chunks.jsonl")
    assert {r["metadata"]["chunkingOptions"]["max_tokens"] for r in records} == {100}
    assert records[0]["absoluteUrl"].startswith("https://small.example.org/")
    check_index(Index.load(built), max_tokens=100)  # the sections too (tests.invariants)
    # An mkdocs.yml that inherits them (INHERIT, as MkDocs reads it) gives the same options.
    child = built.parent / "mkdocs-child.yml"
    child.write_text("INHERIT: mkdocs.yml\nsite_name: Small (child)\n", encoding="utf-8")
    (built / "chunks.jsonl").unlink()
    result = run_site_with_config(built, child)
    assert result.exit_code == 0, result.output
    assert {r["metadata"]["chunkingOptions"]["max_tokens"]
            for r in read_jsonl(built / "chunks.jsonl")} == {100}
    # An mkdocs.yml without the plugin: mdchunk's defaults, and a note that says so.
    mkdocs_yml.write_text(text, encoding="utf-8")
    result = run_site_with_config(built, mkdocs_yml)
    assert result.exit_code == 0, result.output
    assert f"note: {mkdocs_yml}: its plugins list no mdchunk" in result.output


def test_chunk_sends_an_mkdocs_yml_to_mkdocs_config(built: Path, tmp_path: Path) -> None:
    """`mdchunk chunk` renders Markdown: an mkdocs.yml belongs in --mkdocs-config, which reads
    its Markdown extensions too; its plugin options are checked the same way."""
    mkdocs_yml = built.parent / "mkdocs.yml"
    out = tmp_path / "out"
    result = run("chunk", built.parent / "docs", "-o", out, "--config", mkdocs_yml)
    assert result.exit_code == 2 and not out.exists()
    assert f"'--config' ({mkdocs_yml}): this is a site's mkdocs.yml" in result.output
    assert "give it as --mkdocs-config" in result.output
    mkdocs_yml.write_text(mkdocs_yml.read_text(encoding="utf-8").replace(
        "plugins:\n  - search\n", "plugins:\n  search: {}\n  mdchunk:\n    max_tokns: 90\n"),
        encoding="utf-8")
    result = run("chunk", built.parent / "docs", "-o", out, "--mkdocs-config", mkdocs_yml)
    assert result.exit_code == 2 and not out.exists()
    assert (f"'--mkdocs-config' ({mkdocs_yml}): plugins: mdchunk: max_tokns: no such option; "
            "did you mean 'max_tokens'?") in result.output


def test_plugin_options_in_a_config_file_get_a_note(built: Path, tmp_path: Path) -> None:
    """The MkDocs plugin's own options (a config file may be its options, copied) do nothing
    in the command: each is named, with what does their work here."""
    config = tmp_path / "mdchunk.yml"
    config.write_text("max_tokens: 200\nworkers: 2\ncache: false\n", encoding="utf-8")
    result = run("site", built, "--config", config)
    assert result.exit_code == 0, result.output
    assert (f"note: {config}: workers: an option of the MkDocs plugin that mdchunk site has no "
            "use for (-j/--jobs") in result.output
    assert f"note: {config}: cache: an option of the MkDocs plugin" in result.output
    assert read_jsonl(built / "chunks.jsonl")[0]["metadata"]["chunkingOptions"][
        "max_tokens"] == 200


def test_unknown_format(site: Path, tmp_path: Path) -> None:
    result = run("chunk", site / "docs", "-o", tmp_path / "o", "-f", "parquet")
    assert result.exit_code == 2 and "parquet" in result.output and "sqlite" in result.output


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\ntext\n", encoding="utf-8")
    (docs / "bad.md").write_bytes(b"# Bad\n\n\xff\xfe not utf-8\n")
    result = run("chunk", docs, "-o", tmp_path / "o")
    assert result.exit_code == 1
    assert "bad.md" in result.output and "UTF-8" in result.output
    assert not (tmp_path / "o" / "chunks.jsonl").exists()


# --- chunk -----------------------------------------------------------------------------------

#: Fields that do not depend on the page title (MkDocs takes titles from the nav).
SAME_FIELDS = ("id", "originalText", "charOffsets", "url", "pageUrl", "absoluteUrl",
               "headerPath", "headerSlugs", "sectionSlug", "lineRange", "sha256", "flags",
               "features", "prevId", "nextId", "totalChunks")


def test_chunk_gives_the_same_chunks_as_the_mkdocs_plugin(site: Path, tmp_path: Path) -> None:
    built = build_mkdocs(site / "mkdocs.yml")
    chunk(site, tmp_path / "out")
    # the plugin writes pages in nav order, the command in file order
    plugin = sorted(read_jsonl(built / "chunks.jsonl"), key=lambda r: r["id"])
    cli = sorted(read_jsonl(tmp_path / "out" / "chunks.jsonl"), key=lambda r: r["id"])
    assert [r["id"] for r in cli] == [r["id"] for r in plugin]
    assert len(plugin) > 50
    # A page without an H1 starts with its title, which the nav may give: that page differs
    # in its first line only.
    titled = {r["pageUrl"] for r, other in zip(plugin, cli, strict=True)
              if r["headerSlugs"][:1] == [""] and r["fileTitle"] != other["fileTitle"]}
    assert titled == {"no-headings/"}
    for ours, theirs in zip(cli, plugin, strict=True):
        if theirs["pageUrl"] in titled:
            continue
        for field in SAME_FIELDS:
            assert ours[field] == theirs[field], (ours["id"], field)
        assert ours["tokenStats"]["tokens"] == theirs["tokenStats"]["tokens"]
    # the pages' Markdown is written where MkDocs writes it, with the same text
    for page in {r["pageUrl"] for r in plugin}:
        name = f"{page}index.html.md"
        ours_text, theirs_text = ((folder / name).read_text() for folder in (tmp_path / "out",
                                                                              built))
        if page in titled:
            assert ours_text.startswith("# No headings\n\n")
            assert theirs_text.startswith("# License\n\n")
            ours_text, theirs_text = (text.split("\n", 1)[1] for text in (ours_text, theirs_text))
        assert ours_text == theirs_text


def test_chunk_flags_and_formats(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = chunk(site, out, "--max-tokens", "200", "--min-tokens", "20", "-f", "native",
                   "-f", "hepilot", "-f", "sqlite", "--exclude", "reference/*",
                   "--no-markdown", "--site-url", "https://docs.example.org/")
    records = read_jsonl(out / "chunks.jsonl")
    assert "chunks written to" not in result.output and "pages" in result.output
    assert all(r["metadata"]["chunkingOptions"]["max_tokens"] == 200 for r in records)
    assert not any(r["id"].startswith("doc:reference/") for r in records)
    assert all(r["absoluteUrl"].startswith("https://docs.example.org/") for r in records)
    assert (out / "chunks.hepilot.jsonl").is_file() and (out / "chunks.sqlite").is_file()
    assert not list(out.rglob("*.md"))


def test_config_file_and_flags_win(site: Path, tmp_path: Path) -> None:
    config = tmp_path / "mdchunk.yml"
    config.write_text("preset: minimal\nsplit_level: 2\nformats: [native, adr]\n",
                      encoding="utf-8")
    out = tmp_path / "out"
    run_result = run("chunk", site / "docs", "-o", out, "--config", config,
                     "--max-tokens", "150")
    assert run_result.exit_code == 0, run_result.output
    options = read_jsonl(out / "chunks.jsonl")[0]["metadata"]["chunkingOptions"]
    assert options["max_tokens"] == 150  # flag over preset
    assert options["min_tokens"] == 16  # preset
    assert options["split_level"] == 2  # config file over preset
    assert (out / "chunks.adr.jsonl").is_file()


def test_chunk_writes_an_index_not_a_site(site: Path, tmp_path: Path) -> None:
    """`chunk` writes the index and each page's Markdown, no agent outputs (they belong to a
    built site); agent options in its `--config` file are said to do nothing here."""
    config = tmp_path / "mdchunk.yml"
    config.write_text("llms_txt: true\nllms_full_max_tokens: 5000\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run("chunk", site / "docs", "-o", out, "--config", config)
    assert result.exit_code == 0, result.output
    assert "note: llms_txt, llms_full_max_tokens: mdchunk chunk writes no llms.txt" in (
        result.output)
    assert (out / "guide" / "math" / "index.html.md").is_file()
    assert not any((out / name).exists() for name in ("llms.txt", "llms-full.txt", "index.md"))


def test_chunk_single_file_front_matter_and_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "install.md").write_text(
        "---\ntitle: Setup\ntags: [a, b]\n---\n\n# Install\n\nSee [the index](../index.md#top)."
        "\n\n## Linux\n\nRun it.\n", encoding="utf-8")
    (tmp_path / "index.md").write_text("# Home\n\nHello.\n", encoding="utf-8")
    result = run("chunk", "guide/install.md", "index.md", "-o", "out")
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "chunks.jsonl")}
    first = records["doc:guide/install::ch0"]
    assert first["pageUrl"] == "guide/install/"
    assert first["fileTitle"] == "Setup"
    assert first["metadata"]["frontMatter"] == {"title": "Setup", "tags": ["a", "b"]}
    assert "](/#top)" in first["originalText"]  # ../index.md#top -> the site root
    assert records["doc:index::ch0"]["pageUrl"] == ""
    assert (tmp_path / "out" / "guide" / "install" / "index.html.md").is_file()


# --- query, stats ----------------------------------------------------------------------------

def test_query_prints_breadcrumb_url_and_score(site: Path, tmp_path: Path) -> None:
    chunk(site, tmp_path / "out", "-f", "sqlite")
    result = run("query", tmp_path / "out" / "chunks.sqlite", "token bucket rate limiting")
    assert result.exit_code == 0
    first = result.output.splitlines()[:2]
    assert first[0].startswith("1. Sampling math > Rate limiting with a token bucket  (score ")
    assert first[1].strip() == "guide/math/#rate-limiting-with-a-token-bucket"
    hits = json.loads(run("query", tmp_path / "out", "macOS Homebrew", "-k", "2",
                          "--json").stdout)
    # (split at H3: the Homebrew subsection of macOS is a chunk of its own, which starts with
    # the macOS heading, a section with no text before its subsections, and links to it)
    assert len(hits) == 2 and hits[0]["url"] == "getting-started/install/#macos"
    assert hits[0]["breadcrumb"] == "Installation > macOS"
    assert hits[0]["text"].startswith("## macOS\n\n### Homebrew\n\n")
    assert set(hits[0]) == {"id", "url", "pageUrl", "breadcrumb", "title", "score", "text",
                            "version", "language"}


def test_query_searches_a_jsonl_index_as_its_sqlite_one(site: Path, tmp_path: Path) -> None:
    """`mdchunk query site/chunks.jsonl` (what a default build writes) answers, with the hits
    of the SQLite index; a file that is neither says what to give it."""
    chunk(site, tmp_path / "out", "-f", "native", "-f", "sqlite")
    out = tmp_path / "out"
    from_sqlite = json.loads(run("query", out / "chunks.sqlite", "token bucket", "--json").stdout)
    from_jsonl = json.loads(run("query", out / "chunks.jsonl", "token bucket", "--json").stdout)
    assert from_sqlite and from_jsonl == from_sqlite
    (out / "notes.txt").write_text("not an index")
    result = run("query", out / "notes.txt", "anything")
    assert result.exit_code == 1 and "cannot search" in result.output
    assert "chunks.sqlite (formats: [native, sqlite])" in result.output


def test_a_bad_format_names_the_flag_users_typed(site: Path, tmp_path: Path) -> None:
    result = run("chunk", site / "docs", "-o", tmp_path / "out", "-f", "jsonl")
    assert result.exit_code == 2
    assert "'-f' / '--format'" in result.output and "'--formats'" not in result.output


def test_budget_and_duplicate_flags(site: Path, tmp_path: Path) -> None:
    chunk(site, tmp_path / "out", "--max-tokens-bounds", "originalText", "--duplicates", "off",
          "-f", "native", "-f", "flat")
    records = read_jsonl(tmp_path / "out" / "chunks.jsonl")
    assert {r["metadata"]["chunkingOptions"]["max_tokens_bounds"] for r in records} == {
        "originalText"}
    assert all(r["duplicateOf"] is None for r in records)
    assert len(read_jsonl(tmp_path / "out" / "chunks.flat.jsonl")) == len(records)
    bad = run("chunk", site / "docs", "-o", tmp_path / "bad", "--duplicates", "remove")
    assert bad.exit_code != 0 and "'remove' is not one of 'mark', 'drop', 'off'" in bad.output


def test_stats(index: Path) -> None:
    total = len(read_jsonl(index))
    for path in (index, index.parent):
        result = run("stats", path)
        assert result.exit_code == 0
        lines = result.output.splitlines()
        assert lines[0] == "pages:  13" and lines[1] == f"chunks: {total}"
        assert "█" in result.output
        assert ("doc:reference/huge-code::ch1  10698 tokens  reference/huge-code/#source-of-"
                "beaconparserspy  code_block_integrity") in result.output
        assert "oversize chunks: 1" in result.output and "small chunks: 0" in result.output


# --- validate --------------------------------------------------------------------------------

def test_a_good_index_is_valid(index: Path, site: Path, tmp_path: Path) -> None:
    result = run("validate", index, "--tokens")
    assert result.exit_code == 0, result.output
    chunk(site, tmp_path / "more", "-f", "native", "-f", "hepilot", "-f", "semantic",
          "-f", "flat", "-f", "sqlite")
    for name in ("chunks.hepilot.jsonl", "chunks.semantic.jsonl", "chunks.flat.jsonl",
                 "chunks.sqlite"):
        result = run("validate", tmp_path / "more" / name)
        assert result.exit_code == 0, (name, result.output)


def _corrupt(records: list[dict[str, Any]], kind: str) -> str:
    """Corrupt `records` one way; return the id of the chunk the problem is about."""
    target = records[7]
    if kind == "duplicate id":
        records[8]["id"] = target["id"]
        return target["id"]
    if kind == "broken chain":
        target["nextId"] = "doc:nowhere::ch9"
        return target["id"]
    if kind == "wrong offsets":
        target["charOffsets"]["charStart"] += 3
        target["charOffsets"]["charEnd"] += 3
        return target["id"]
    if kind == "wrong token count":
        target["tokenStats"]["tokens"] += 1
        return target["id"]
    if kind == "schema violation":
        target["headerPath"] = "not a list"
        return target["id"]
    raise AssertionError(kind)


CORRUPTIONS = {
    "duplicate id": "duplicate id",
    "broken chain": "nextId is 'doc:nowhere::ch9'",
    "wrong offsets": "originalText is not the page text at charOffsets",
    "wrong token count": "tokenStats.tokens is",
    "schema violation": "'headerPath' must be array",
}


@pytest.mark.parametrize(("kind", "message"), CORRUPTIONS.items())
def test_validate_catches_each_corruption(index: Path, kind: str, message: str) -> None:
    records = read_jsonl(index)
    chunk_id = _corrupt(records, kind)
    write_jsonl(index, records)
    result = run("validate", index, "--tokens")
    assert result.exit_code == 1
    problems = [line for line in result.stdout.splitlines() if message in line]
    assert problems, result.output
    assert problems[0].startswith(f"{chunk_id}: ")


def test_validate_hepilot_schema_violation(site: Path, tmp_path: Path) -> None:
    pytest.importorskip("jsonschema")
    chunk(site, tmp_path / "o", "-f", "hepilot")
    path = tmp_path / "o" / "chunks.hepilot.jsonl"
    records = read_jsonl(path)
    records[3]["chunk_type"] = "poem"
    del records[5]["content"]
    records[6]["total_chunks"] = 99
    write_jsonl(path, records)
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{records[3]['chunk_id']}: schema: chunk_type: 'poem' is not one of" in result.output
    assert f"{records[5]['chunk_id']}: schema: record: 'content' is a required" in result.output
    assert f"{records[6]['chunk_id']}: total_chunks is 99" in result.output


def test_validate_semantic_model_violation(site: Path, tmp_path: Path) -> None:
    chunk(site, tmp_path / "o", "-f", "semantic")
    path = tmp_path / "o" / "chunks.semantic.jsonl"
    records = read_jsonl(path)
    records[2]["sha256"] = "0" * 64
    write_jsonl(path, records)
    result = run("validate", path)
    assert result.exit_code == 1 and f"{records[2]['uuid']}: sha256" in result.output


# --- diff ------------------------------------------------------------------------------------

def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_diff_after_editing_one_section(site: Path, tmp_path: Path, index: Path) -> None:
    _edit(site / "docs" / "guide" / "math.md", "## Choosing a rate\n",
          "## Choosing a rate\n\nAn added sentence about rates.\n")
    chunk(site, tmp_path / "new")
    result = run("diff", index, tmp_path / "new" / "chunks.jsonl", "--json")
    report = json.loads(result.stdout)
    assert [entry["id"] for entry in report["changed"]] == ["doc:guide/math::ch2"]
    assert report["changed"][0]["key"] == "doc:guide/math#sampling-math/choosing-a-rate@0"
    assert report["added"] == [] and report["removed"] == [] and report["moved"] == []
    assert report["unchanged"] == len(read_jsonl(index)) - 1


def test_diff_keys_survive_an_inserted_section(site: Path, tmp_path: Path, index: Path) -> None:
    _edit(site / "docs" / "getting-started" / "install.md", "\n## Linux\n",
          "\n## Requirements\n\nA 64-bit CPU and 100 MB of disk space are enough for a "
          "small deployment of Beacon, which ships as a single binary.\n\n## Linux\n")
    chunk(site, tmp_path / "new")
    result = run("diff", index, tmp_path / "new" / "chunks.jsonl")
    assert result.exit_code == 0
    report = json.loads(run("diff", index, tmp_path / "new" / "chunks.jsonl", "--json").stdout)
    assert [e["id"] for e in report["added"]] == ["doc:getting-started/install::ch1"]
    assert report["changed"] == [] and report["removed"] == []
    # The chunks of Linux, macOS, Windows, Next steps moved one place on and kept their keys
    after = sum(r["pageUrl"] == "getting-started/install/" for r in read_jsonl(index))
    assert [(e["old_id"], e["id"]) for e in report["moved"]] == [
        (f"doc:getting-started/install::ch{n}", f"doc:getting-started/install::ch{n + 1}")
        for n in range(1, after)
    ]
    assert "+ doc:getting-started/install::ch1  getting-started/install/#requirements" in (
        result.output)


# --- sync chroma -----------------------------------------------------------------------------

class HashEmbedder:
    """Deterministic local embeddings (text hash -> 8 floats); counts what it embeds."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[byte / 255 for byte in hashlib.sha256(t.encode()).digest()[:8]] for t in texts]


def test_chroma_sync_holds_the_index_and_reembeds_only_changes(site: Path, tmp_path: Path,
                                                                index: Path) -> None:
    pytest.importorskip("chromadb")
    from mdchunk.tools.chroma import open_collection, sync_chroma
    from mdchunk.tools.diff import diff_indexes

    store = tmp_path / "chroma"
    embed = HashEmbedder()
    first = read_jsonl(index)
    report = sync_chroma(first, open_collection(store, "beacon-docs"), embed)
    assert report.embedded == len(first) == len(embed.texts)
    # edit one section, delete one page, add one page
    _edit(site / "docs" / "guide" / "math.md", "## Choosing a rate\n",
          "## Choosing a rate\n\nAn added sentence about rates.\n")
    (site / "docs" / "no-headings.md").unlink()
    (site / "docs" / "new-page.md").write_text("# New page\n\nFresh text.\n", encoding="utf-8")
    chunk(site, tmp_path / "new")
    second = read_jsonl(tmp_path / "new" / "chunks.jsonl")
    embed.texts.clear()
    collection = open_collection(store, "beacon-docs")  # a new client, from disk
    report = sync_chroma(second, collection, embed)
    changes = diff_indexes(first, second)
    expected = {e.id for e in changes.added} | {e.id for e in changes.changed}
    assert expected == {"doc:guide/math::ch2", "doc:new-page::ch0"}
    by_id = {r["id"]: r["embedText"] for r in second}
    assert sorted(embed.texts) == sorted(by_id[i] for i in expected)
    assert report.deleted == 1 and report.total == len(second)
    stored = collection.get(include=["metadatas", "documents"])
    assert sorted(stored["ids"]) == sorted(by_id)
    metadata = dict(zip(stored["ids"], stored["metadatas"], strict=True))
    assert metadata["doc:guide/math::ch2"]["sha256"] == next(
        r["sha256"] for r in second if r["id"] == "doc:guide/math::ch2")
    assert metadata["doc:guide/configuration::ch0"]["fm_tags"] == "configuration,toml,reference"
    # a third sync with nothing changed embeds nothing
    embed.texts.clear()
    assert sync_chroma(second, collection, embed).embedded == 0 and embed.texts == []


def test_sync_chroma_command_needs_an_embedding_source(index: Path, tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    result = run("sync", "chroma", "--path", tmp_path / "db", "--collection", "docs", index)
    assert result.exit_code == 2 and "--no-embedding" in result.output
    result = run("sync", "chroma", "--path", tmp_path / "db", "--collection", "docs",
                 "--no-embedding", index)
    assert result.exit_code == 1 and "no embedding in the record" in result.output
    records = read_jsonl(index)
    for record in records:
        record["embedding"] = HashEmbedder()([record["embedText"]])[0]
    write_jsonl(index, records)
    result = run("sync", "chroma", "--path", tmp_path / "db", "--collection", "docs",
                 "--no-embedding", index)
    assert result.exit_code == 0, result.output
    assert f"{len(records)} embedded" in result.output
