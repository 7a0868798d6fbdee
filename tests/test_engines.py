"""Every engine docs teams use: ProperDocs (plugin), Zensical and any built site (post-build)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mdchunk.cli import main
from mdchunk.errors import OptionError
from mdchunk.sites import chunk_site
from tests.conftest import build_mkdocs
from tests.invariants import Index, check_index
from tests.test_sphinx import EXAMPLE as SPHINX_EXAMPLE
from tests.test_sphinx import make_project, sphinx_build

#: Fields that do not depend on where the page title comes from (the plugins take MkDocs' nav
#: title or Sphinx's first heading; a built page only has its <title>).
SAME = ("id", "originalText", "charOffsets", "url", "absoluteUrl", "pageUrl", "headerPath",
        "headerSlugs", "headerDepths", "sectionSlug", "subHeaders", "flags", "chunkNumber",
        "totalChunks", "features")


def same_fields(records: list[dict[str, object]]) -> list[dict[str, object]]:
    chosen = [{key: record[key] for key in SAME} | {"tokens": record["tokenStats"]["tokens"]}
              for record in records]
    return sorted(chosen, key=lambda record: (record["id"].split("::")[0],
                                              record["chunkNumber"]))


@pytest.fixture
def reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def test_post_build_equals_the_mkdocs_plugin(example_site: Path) -> None:
    site = build_mkdocs(example_site / "mkdocs.yml")
    plugin = Index.load(site).records
    summary = chunk_site(site, docs_dir=example_site / "docs", output="post.jsonl")
    post = Index.load(site, "post.jsonl")
    check_index(post, max_tokens=512)
    assert same_fields(post.records) == same_fields(plugin)
    assert {"404.html: not a documentation page",
            "guide/excluded/index.html: front matter mdchunk: {exclude: true}"} <= set(
                summary.skipped)
    source = next(r for r in post.records if r["parentId"] == "doc:guide/configuration")
    assert source["metadata"]["sourceFile"] == "guide/configuration.md"
    assert source["metadata"]["frontMatter"]["owner"]


def test_post_build_writes_the_same_files_with_any_number_of_processes(
        example_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # records without timings
    built = build_mkdocs(example_site / "mkdocs.yml")
    outputs = {}
    for jobs in ("1", "3"):
        site = tmp_path / f"j{jobs}"
        shutil.copytree(built, site)
        result = CliRunner().invoke(main, ["site", str(site), "--docs", str(example_site / "docs"),
                                           "-j", jobs, "-f", "native", "-f", "flat"])
        assert result.exit_code == 0, result.output
        outputs[jobs] = {path.relative_to(site): path.read_bytes() for path in site.rglob("*")
                         if path.is_file() and path.suffix in (".jsonl", ".md")}
    assert len(outputs["1"]) > 10 and outputs["1"] == outputs["3"]


def test_post_build_of_a_folder_without_built_pages_fails_and_writes_nothing(
        example_site: Path) -> None:
    """The docs' source folder given by mistake: a clear error, and nothing written into it."""
    before = sorted(example_site.rglob("*"))
    result = CliRunner().invoke(main, ["site", str(example_site / "docs")])
    assert result.exit_code != 0
    assert "no built documentation page found" in result.output, result.output
    assert "not the docs' sources" in result.output
    assert sorted(example_site.rglob("*")) == before


def test_a_stray_html_file_leaves_the_url_style_and_the_index_as_the_plugins(
        example_site: Path) -> None:
    """A theme override kept in docs_dir is copied into the site: a file without the theme's
    content element is skipped (said with -v), and does not make directory urls look like
    `.html` urls."""
    site = build_mkdocs(example_site / "mkdocs.yml")
    plugin = Index.load(site).records
    (site / "overrides" / "partials").mkdir(parents=True)
    (site / "overrides" / "partials" / "nav.html").write_text("<nav><a href='/'>Home</a></nav>")
    result = CliRunner().invoke(main, ["site", str(site), "-v", "-j", "1", "--docs",
                                       str(example_site / "docs"), "--output", "post.jsonl"])
    assert result.exit_code == 0, result.output
    assert "skipped: 404.html: not a documentation page" in result.output
    assert "skipped: overrides/partials/nav.html: no content element" in result.output
    post = Index.load(site, "post.jsonl").records
    assert same_fields(post) == same_fields(plugin)
    assert not any("index.html" in record["url"] for record in post)


def test_post_build_of_material_keeps_every_invariant(example_site: Path) -> None:
    site = build_mkdocs(example_site / "mkdocs-material.yml")
    chunk_site(site, output="post.jsonl", formats=["native", "hepilot"])
    post = Index.load(site, "post.jsonl")
    check_index(post, max_tokens=512)
    assert not any(r["pageUrl"] == "empty/" for r in post.records)  # theme's <h1> dropped
    assert (site / "chunks.hepilot.jsonl").is_file()


@pytest.mark.skipif(not (SPHINX_EXAMPLE / "conf.py").exists(), reason="no Sphinx example")
@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_post_build_equals_the_sphinx_extension(tmp_path: Path, builder: str) -> None:
    source = tmp_path / "example"
    shutil.copytree(SPHINX_EXAMPLE, source, ignore=shutil.ignore_patterns("_build"))
    assert sphinx_build(source, tmp_path / "out", "-b", builder)[0] == 0
    plugin = Index.load(tmp_path / "out").records
    chunk_site(tmp_path / "out", docs_dir=source, output="post.jsonl")
    post = Index.load(tmp_path / "out", "post.jsonl")
    check_index(post, max_tokens=512)
    assert same_fields(post.records) == same_fields(plugin)


def test_site_url_from_the_canonical_links_sphinx_wrote_before_8_1(tmp_path: Path) -> None:
    """Sphinx before 8.1 links a dirhtml page to its `.html` path as canonical (`guide.html`
    for `guide/`): the site url is still the one the extension gives."""
    source = make_project(tmp_path)
    out = tmp_path / "out"
    assert sphinx_build(source, out, "-b", "dirhtml")[0] == 0
    for page in out.rglob("index.html"):
        name = page.parent.relative_to(out).as_posix() if page.parent != out else "index"
        html = page.read_text(encoding="utf-8")
        old = re.sub(r'(<link rel="canonical" href="https://example\.org/docs/)[^"]*"',
                     rf'\g<1>{name}.html"', html)
        assert 'rel="canonical"' in html and f"docs/{name}.html" in old
        page.write_text(old, encoding="utf-8")
    chunk_site(out, docs_dir=source, output="post.jsonl")
    post = Index.load(out, "post.jsonl").records
    assert [r["absoluteUrl"] for r in post] == [
        r["absoluteUrl"] for r in Index.load(out).records]
    assert all(r["absoluteUrl"].startswith("https://example.org/docs/") for r in post)
    assert not any(".html" in r["absoluteUrl"] for r in post)


def test_content_selector_for_unknown_themes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "guide").mkdir(parents=True)
    page = ('<html><head><title>Guide | Docs</title></head><body><div class="sidebar">'
            '<h2 id="nav">Navigation</h2></div><div class="my-content"><h1 id="guide">Guide</h1>'
            '<p>Text of the guide.</p></div></body></html>')
    (site / "guide" / "index.html").write_text(page)
    (site / "index.html").write_text(page.replace("Guide", "Home").replace("guide", "home"))
    summary = chunk_site(site, content_selector="div.my-content")
    records = Index.load(site).records
    assert [r["originalText"] for r in records] == ["# Guide\n\nText of the guide.",
                                                    "# Home\n\nText of the home."]
    assert [p.url for p in summary.pages] == ["guide/", ""]  # in path order
    assert records[0]["fileTitle"] == "Guide"
    with pytest.raises(OptionError, match="content_selector"):
        chunk_site(site, content_selector="div[")


def test_site_command_on_a_sphinx_build(tmp_path: Path) -> None:
    source = make_project(tmp_path)
    assert sphinx_build(source, tmp_path / "out", "-b", "dirhtml")[0] == 0
    plugin = Index.load(tmp_path / "out").records
    run = CliRunner().invoke(main, ["site", str(tmp_path / "out"), "--docs", str(source),
                                    "--output", "post.jsonl", "--max-tokens", "512"])
    assert run.exit_code == 0, run.output
    assert run.output.startswith("3 pages, ")
    post = Index.load(tmp_path / "out", "post.jsonl")
    check_index(post, max_tokens=512)
    assert same_fields(post.records) == same_fields(plugin)
    bad = CliRunner().invoke(main, ["site", str(tmp_path / "out"), "--content-selector", "div["])
    assert bad.exit_code != 0 and "content_selector" in bad.output
    bad = CliRunner().invoke(main, ["site", str(tmp_path / "out"), "--max-tokens", "4"])
    assert bad.exit_code == 2 and "--max-tokens" in bad.output


def test_properdocs_builds_the_same_index_as_mkdocs(example_site: Path,
                                                    reproducible: None) -> None:
    if importlib.util.find_spec("properdocs") is None:
        pytest.skip("properdocs is not installed")
    mkdocs_index = (build_mkdocs(example_site / "mkdocs.yml") / "chunks.jsonl").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "-q", "-f",
         str(example_site / "mkdocs.yml")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    properdocs_index = (example_site / "site" / "chunks.jsonl").read_bytes()
    assert properdocs_index == mkdocs_index
    assert len(properdocs_index.splitlines()) > 50


def test_mdchunk_never_makes_mkdocs_print_the_properdocs_banner(example_site: Path) -> None:
    """ProperDocs asks its plugins to call a setup that prints a banner under `mkdocs`; a user
    who added mdchunk to a `mkdocs build` must not see another project's banner."""
    if importlib.util.find_spec("properdocs") is None:
        pytest.skip("properdocs is not installed")
    environment = {name: value for name, value in os.environ.items()
                   if name != "DISABLE_MKDOCS_2_WARNING"}
    for command in ([str(Path(sys.executable).with_name("mkdocs"))],
                    [sys.executable, "-m", "mkdocs"]):
        result = subprocess.run([*command, "build", "-q", "-f", str(example_site / "mkdocs.yml")],
                                capture_output=True, text=True, check=False, env=environment)
        assert result.returncode == 0, result.stderr
        assert "MkDocs may break support" not in result.stdout + result.stderr


def test_zensical_site_through_post_build(example_site: Path) -> None:
    zensical = shutil.which("zensical") or str(Path(sys.executable).parent / "zensical")
    if not Path(zensical).exists():
        pytest.skip("zensical is not installed")
    config = example_site / "zensical.yml"
    config.write_text((example_site / "mkdocs.yml").read_text().replace(
        "name: mkdocs\n", "name: material\n"))
    result = subprocess.run([zensical, "build", "-f", str(config)], capture_output=True,
                            text=True, check=False, cwd=example_site)
    assert result.returncode == 0, result.stdout + result.stderr
    site = example_site / "site"
    assert not (site / "chunks.jsonl").exists()  # Zensical runs no Python plugins
    run = CliRunner().invoke(main, ["site", str(site), "--docs", str(example_site / "docs"),
                                    "-f", "native", "-f", "sqlite"])
    assert run.exit_code == 0, run.output
    assert "written to" in run.output and (site / "chunks.sqlite").is_file()
    index = Index.load(site)
    check_index(index, max_tokens=512)
    assert len(index.pages()) >= 10
    assert json.loads((site / "chunks.jsonl").read_text().splitlines()[0])["absoluteUrl"]
