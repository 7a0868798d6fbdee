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
from typing import Any

import pytest
from click.testing import CliRunner

from mdchunk.cli import main
from mdchunk.engines.site import chunk_site
from mdchunk.errors import OptionError
from mdchunk.settings import BuildSettings, LlmsOptions, OutputSettings
from tests.conftest import build_mkdocs
from tests.invariants import Index, check_index
from tests.test_sphinx import EXAMPLE as SPHINX_EXAMPLE
from tests.test_sphinx import make_project, sphinx_build


def same_fields(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as a built site gives them too: all of each record but the time of the build
    and what only the engine knows (the front matter, of which a built page has none), in page
    order."""
    chosen = [record | {"metadata": {key: value for key, value in record["metadata"].items()
                                     if key not in ("processedAt", "pipeline", "frontMatter")}}
              for record in records]
    return sorted(chosen, key=lambda record: (record["id"].split("::")[0],
                                              record["chunkNumber"]))


def post_build_copy(site: Path, copy: Path, *, docs_dir: Path | None = None,
                    llms: LlmsOptions | None = None) -> Path:
    """`mdchunk site` on a copy of the built `site` without the plugin's index, llms.txt and
    Markdown (llms.txt is written, with `llms` or the default agent options)."""
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns(
        "chunks.jsonl", "llms.txt", "llms-full*", "*.md"))
    chunk_site(copy, BuildSettings(llms=llms or LlmsOptions()), docs_dir=docs_dir)
    return copy


def llms_sections(site: Path) -> list[tuple[str, list[str]]]:
    """The sections of a site's llms.txt in order, each with the links of its pages."""
    sections: list[tuple[str, list[str]]] = []
    for line in (site / "llms.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append((line[3:], []))
        elif line.startswith("- [") and sections:
            sections[-1][1].append(line.split("](", 1)[1].split(")", 1)[0])
    return sections


def test_post_build_equals_the_mkdocs_plugin(example_site: Path, tmp_path: Path) -> None:
    """The records and llms.txt of the plugin: titles from the nav (the home page's "Home",
    not the site's name), llms.txt's sections and their pages in the nav's order."""
    site = build_mkdocs(example_site / "mkdocs.yml")
    plugin = Index.load(site).records
    copy = post_build_copy(site, tmp_path / "copy", docs_dir=example_site / "docs",
                           llms=LlmsOptions(optional=("no-headings.md",)))
    assert same_fields(Index.load(copy).records) == same_fields(plugin)
    assert (copy / "llms.txt").read_text() == (site / "llms.txt").read_text()
    summary = chunk_site(site, BuildSettings(index="post.jsonl"), docs_dir=example_site / "docs")
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
    chunk_site(site, BuildSettings(index="post.jsonl", output=OutputSettings(
        formats=("native", "hepilot"))))
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
    copy = post_build_copy(tmp_path / "out", tmp_path / "copy", docs_dir=source,
                           llms=LlmsOptions(optional=("empty.rst",)))
    assert same_fields(Index.load(copy).records) == same_fields(plugin)
    assert (copy / "llms.txt").read_text() == (tmp_path / "out" / "llms.txt").read_text()
    chunk_site(tmp_path / "out", BuildSettings(index="post.jsonl"), docs_dir=source)
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
    chunk_site(out, BuildSettings(index="post.jsonl"), docs_dir=source)
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
    summary = chunk_site(site, BuildSettings(), content_selector="div.my-content")
    records = Index.load(site).records
    assert [r["originalText"] for r in records] == ["# Guide\n\nText of the guide.",
                                                    "# Home\n\nText of the home."]
    assert [p.url for p in summary.pages] == ["guide/", ""]  # in path order
    assert records[0]["fileTitle"] == "Guide"
    with pytest.raises(OptionError, match="content_selector"):
        chunk_site(site, BuildSettings(), content_selector="div[")


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


# -- the navigation of a built site -------------------------------------------------------------

#: A site whose urls are flat (its pages but a section's index in the docs folder itself) and
#: whose nav makes sections of them, with titles of its own: the folders say nothing of the nav.
FLAT_PAGES = {
    "guide/index.md": "# Guide overview\n\nThe guide's index page.\n",
    "index.md": "# Welcome\n\nThe home page of the flat site.\n",
    "install.md": "Install it with pip.\n\n## Linux\n\nUse the package.\n",
    "usage.md": "# Using it\n\nCall it.\n\n## Options\n\nThere are some.\n",
    "advanced.md": "# Advanced topics\n\nFor later.\n",
    "zebra.md": "# Zebra\n\nThe last page by name, first of its section in the nav.\n",
    "changelog.md": "## 1.0\n\nThe first release.\n",
}
FLAT_NAV = [{"Introduction": "index.md"}, "install.md",
            {"User guide": ["guide/index.md", "zebra.md", "usage.md",
                            {"Advanced": "advanced.md"}]},
            {"Changes": "changelog.md"}]


@pytest.mark.parametrize(("theme", "features"), [
    ("mkdocs", []), ("readthedocs", []), ("material", []),
    ("material", ["navigation.indexes", "navigation.prune"]),
    ("material", ["navigation.tabs", "navigation.sections", "toc.integrate"])])
def test_post_build_follows_the_nav_of_every_mkdocs_theme(make_site: Any, tmp_path: Path,
                                                         theme: str, features: list[str]
                                                         ) -> None:
    site = make_site(FLAT_PAGES, config={
        "nav": FLAT_NAV, "theme": {"name": theme, "features": features},
        "use_directory_urls": False, "site_url": "https://example.org/"})
    copy = post_build_copy(site, tmp_path / "copy", docs_dir=tmp_path / "docs")
    assert same_fields(Index.load(copy).records) == same_fields(Index.load(site).records)
    assert llms_sections(copy) == llms_sections(site)
    assert [title for title, _ in llms_sections(copy)] == ["Docs", "User guide"]
    assert (copy / "llms.txt").read_text() == (site / "llms.txt").read_text()


def test_post_build_of_zensical_gives_the_plugins_titles_and_sections(example_site: Path,
                                                                      tmp_path: Path) -> None:
    """Zensical renders pages like Material, not byte for byte: the titles, breadcrumbs and
    llms.txt sections of its built site are those of the plugin on the same mkdocs.yml."""
    zensical = shutil.which("zensical") or str(Path(sys.executable).parent / "zensical")
    if not Path(zensical).exists():
        pytest.skip("zensical is not installed")
    plugin_site = build_mkdocs(example_site / "mkdocs-material.yml")
    config = example_site / "zensical.yml"
    config.write_text((example_site / "mkdocs.yml").read_text().replace(
        "name: mkdocs\n", "name: material\n").replace("site_dir: site\n", "site_dir: zsite\n"))
    result = subprocess.run([zensical, "build", "-f", str(config)], capture_output=True,
                            text=True, check=False, cwd=example_site)
    assert result.returncode == 0, result.stdout + result.stderr
    chunk_site(example_site / "zsite", BuildSettings(llms=LlmsOptions(
        optional=("no-headings.md",))), docs_dir=example_site / "docs")

    def titles(site: Path) -> dict[str, tuple[str, str]]:
        # (Zensical, like Material's search plugin, strips `data-search-exclude` from the
        # built HTML: the sections excluded with it are only left out where mdchunk sees it)
        return {record["id"]: (record["fileTitle"], record["headerBreadcrumb"])
                for record in Index.load(site).records
                if record["parentId"] != "doc:guide/partially-excluded"}

    plugin = titles(plugin_site)
    assert len(plugin) > 50 and titles(example_site / "zsite") == plugin
    assert [(title, pages) for title, pages in llms_sections(example_site / "zsite")] == [
        (title, pages) for title, pages in llms_sections(plugin_site)]


SPHINX_THEMES = ["alabaster", "furo", "sphinx_rtd_theme"]
#: A project whose toctrees have a caption, none (right under the home page's title), or none
#: in a part of the home page, with a page with pages under it, an entry titled by the toctree,
#: and a page with text before its title.
THEMED_PAGES = {
    "index.md": "# Introduction\n\nWelcome.\n\n```{toctree}\n:caption: Start\n\ninstall\n```\n\n"
                "```{toctree}\nchangelog\n```\n\n## The User Guide\n\nHow to use it.\n\n"
                "```{toctree}\nguide/usage\nAdvanced <guide/advanced>\n```\n",
    "install.md": "Install it with pip.\n\n# Installing\n\nUse apt.\n\n## Linux\n\nText.\n",
    "guide/usage.md": "# Using it\n\n## Basics\n\nBasics text.\n\n```{toctree}\ndeeper\n```\n",
    "guide/deeper.md": "# Deeper\n\nDeep text.\n",
    "guide/advanced.md": "# Advanced topics\n\nAdvanced text.\n",
    "changelog.md": "# Changelog\n\n## 1.1\n\nSecond.\n\n## 1.0\n\nFirst.\n",
}


@pytest.mark.parametrize("theme", SPHINX_THEMES)
def test_post_build_follows_the_toctree_of_every_sphinx_theme(tmp_path: Path,
                                                              theme: str) -> None:
    if importlib.util.find_spec(theme) is None:
        pytest.skip(f"the {theme} theme is not installed")
    conf = ('project = "Probe"\nversion = release = "2.4"\n'
            'extensions = ["sphinx_mdchunk", "myst_parser"]\n'
            f'html_theme = "{theme}"\nhtml_baseurl = "https://example.org/"\n')
    source = make_project(tmp_path, THEMED_PAGES, conf)
    code, warnings = sphinx_build(source, tmp_path / "out", "-b", "html")
    assert code == 0, warnings
    copy = post_build_copy(tmp_path / "out", tmp_path / "copy", docs_dir=source)
    assert same_fields(Index.load(copy).records) == same_fields(
        Index.load(tmp_path / "out").records)
    sections = llms_sections(copy)
    assert sections == llms_sections(tmp_path / "out")
    assert [title for title, _ in sections] == ["Docs", "Start", "The User Guide", "Optional"]
    assert sections[2][1] == ["https://example.org/guide/usage.md",
                              "https://example.org/guide/deeper.md",
                              "https://example.org/guide/advanced.md"]
