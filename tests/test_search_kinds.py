"""Page kinds and their priors in search: changelog, blog and index pages below guides and
reference unless the question is about a version or a time, kinds from front matter and the
`page_kinds` option, and diversity across pages and kinds.

The sites are real MkDocs builds in tmp_path with `formats: [native, sqlite]`; what a search
should return is read from the built `chunks.sqlite` with priors off (`priors=False`, plain
BM25), so each test checks the moves the priors make against the index's own ranking.
"""

from __future__ import annotations

import json
import re
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mdchunk.cli import main
from mdchunk.search import search
from mdchunk.search.kinds import KIND_SLOT, PAGE_SHARE, PAGE_WINDOW, in_time, kind_of_url
from mdchunk.search.ranking import Hit
from tests.conftest import SiteBuilder, build_mkdocs

#: A guide, an API page and a changelog whose words overlap: the changelog's short entries
#: outrank the guide for a how-to question in plain BM25 (the guide's first sentence, its
#: lead, which the index weighs as a title, does not hold the question's words).
PAGES = {
    "index.md": """\
        # Courier

        Courier moves files between machines.
        """,
    "guide/uploads.md": """\
        # Uploading files

        ## Continue after the network drops

        Transfers over flaky links need not start over. When the network drops in the
        middle of a transfer, start the same command again to resume it: Courier asks the
        server how much of the file arrived and sends only the rest of the interrupted
        upload. Keep the same destination path, or the server starts
        a new file. Large transfers over slow links benefit most; small files are simply sent
        again from the start.

        ## Limit the bandwidth

        Pass `--rate 2M` to keep a transfer below two megabytes a second, so that other
        programs on the same link stay usable.
        """,
    "api/client.md": """\
        # Client API

        ## Client.send()

        `Client.send(path, destination)` sends one file and returns a `Transfer`.

        ## Client.resume()

        `Client.resume(transfer)` continues an interrupted upload of a `Transfer`.

        ## Client.rate

        `Client.rate` limits the bandwidth of every upload, in bytes a second.

        ## Client.timeout

        `Client.timeout` is how long an upload waits for the server, in seconds.
        """,
    "changelog.md": """\
        # Changelog

        ## 2.4.0

        - Resume an interrupted upload: an interrupted upload resumes where it stopped.

        ## 2.3.0

        - An interrupted upload no longer resumes twice.

        ## 2.2.0

        - Upload bandwidth limit for an interrupted upload.
        """,
    "updates/spring.md": """\
        # Spring

        Interrupted upload resume fixed; resume an interrupted upload now.
        """,
    "notes/resume.md": """\
        ---
        search:
          kind: blog
        ---
        # Notes on resume

        How we made interrupted upload resume work: resume an interrupted upload.
        """,
}

#: Pages on other topics, so that the words above are rare in the index (as in a real site).
TOPICS = ("keys", "logging", "proxies", "schedules", "mirrors", "quotas", "hooks", "themes",
          "shells", "plugins")
FILLER = {f"topics/{topic}.md": f"# {topic.title()}\n\n## Setting up {topic}\n\n"
          f"Courier reads its {topic} from the configuration file at start. Each of the "
          f"{topic} has a name and a value; a value may refer to the environment.\n"
          for topic in TOPICS}

HOW_TO = "how do I resume an interrupted upload"


def build(root: Path, **plugin: Any) -> Path:
    """The site of `PAGES` built into `root` with `formats: [native, sqlite]` and `plugin`."""
    docs = root / "docs"
    for name, text in {**PAGES, **FILLER}.items():
        path = docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    options = {"formats": ["native", "sqlite"], "min_tokens": 1, "max_tokens": 40, **plugin}
    config = {"site_name": "Courier", "docs_dir": str(docs), "site_dir": str(root / "site"),
              "markdown_extensions": [{"toc": {"permalink": True}}],
              "plugins": [{"mdchunk": options}]}
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return build_mkdocs(root / "mkdocs.yml")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built with `page_kinds: {"updates/*": changelog}`."""
    return build(tmp_path_factory.mktemp("kinds"), page_kinds={"updates/*": "changelog"})


def index(site: Path) -> Path:
    return site / "chunks.sqlite"


def page_of(url: str) -> str:
    return url.partition("#")[0]


LOW_PAGES = {"changelog/", "updates/spring/", "notes/resume/", ""}


def test_changelog_outranks_the_guide_in_plain_bm25(site: Path) -> None:
    """What the priors are for: without them changelog and blog entries come first."""
    plain = [hit.page_url for hit in search(index(site), HOW_TO, 10, priors=False)]
    guide = plain.index("guide/uploads/")
    assert {"changelog/", "updates/spring/", "notes/resume/"} <= set(plain[:guide])


def test_changelog_blog_and_index_pages_rank_below_guides_and_reference(site: Path) -> None:
    plain = search(index(site), HOW_TO, 50, priors=False)
    hits = search(index(site), HOW_TO, 50)
    assert sorted(hit.url for hit in hits) == sorted(hit.url for hit in plain)
    pages = [hit.page_url for hit in hits]
    first_low = next(i for i, page in enumerate(pages) if page in LOW_PAGES)
    assert all(page in LOW_PAGES for page in pages[first_low:])
    assert "guide/uploads/#continue-after-the-network-drops" in [h.url for h in hits[:2]]
    # among the low pages and among the others, BM25's order is kept (diversity aside)
    assert [h.url for h in hits if h.page_url in LOW_PAGES] == [
        h.url for h in plain if h.page_url in LOW_PAGES]


@pytest.mark.parametrize("question", [
    "what changed about interrupted upload resume in 2.4",
    "interrupted upload resume v2",
    "interrupted upload resume fixed in 2024",
    "which version made interrupted upload resume",
])
def test_a_question_about_a_version_or_time_keeps_the_changelog(site: Path,
                                                                 question: str) -> None:
    plain = search(index(site), question, 10, priors=False)
    hits = search(index(site), question, 10)
    assert plain[0].page_url in LOW_PAGES
    assert hits[0].url == plain[0].url


def test_front_matter_and_the_page_kinds_option_name_kinds(site: Path,
                                                          tmp_path: Path) -> None:
    """`updates/spring/` is a changelog by the option, `notes/resume/` a blog post by its
    front matter: neither url nor title says so. Built without the option, the spring page
    is a guide and keeps its BM25 rank; and the index has no `page_kinds` row."""
    assert kind_of_url("updates/spring/", "Spring") == kind_of_url("notes/resume/", "") == "guide"
    ranked = [hit.page_url for hit in search(index(site), HOW_TO, 50)]
    assert ranked.index("updates/spring/") > ranked.index("api/client/")
    assert ranked.index("notes/resume/") > ranked.index("api/client/")
    assert _meta(index(site))["page_kinds"] == '[["updates/*", "changelog"]]'
    plain_site = build(tmp_path)
    assert "page_kinds" not in _meta(index(plain_site))
    plain = search(index(plain_site), HOW_TO, 50, priors=False)
    with_priors = search(index(plain_site), HOW_TO, 50)
    spring_plain = [h.page_url for h in plain].index("updates/spring/")
    assert spring_plain < [h.page_url for h in plain].index("guide/uploads/")
    assert [h.page_url for h in with_priors].index("updates/spring/") < [
        h.page_url for h in with_priors].index("changelog/")


def _meta(path: Path) -> dict[str, str]:
    connection = sqlite3.connect(path)
    try:
        return dict(connection.execute("SELECT key, value FROM meta").fetchall())
    finally:
        connection.close()


def test_a_bad_page_kind_is_named(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mkdocs.exceptions import Abort

    with pytest.raises(Abort):
        build(tmp_path, page_kinds={"faq/*": "faq"})
    assert re.search(r"page_kinds.*'faq' is no page kind; kinds: guide, reference", caplog.text)
    assert not (tmp_path / "site" / "chunks.sqlite").exists()


API_QUESTION = "client upload bandwidth timeout resume interrupted"


def windows_hold_a_share_of_each_page(hits: list[Hit]) -> bool:
    """Whether any `PAGE_WINDOW` consecutive hits hold at most `PAGE_SHARE` sections of one
    page, but where no other page's hit is left after the window."""
    for start in range(len(hits)):
        window = [hit.page_url for hit in hits[start:start + PAGE_WINDOW]]
        later = {hit.page_url for hit in hits[start + PAGE_WINDOW:]}
        crowded = {page for page in window if window.count(page) > PAGE_SHARE}
        if any(later - {page} for page in crowded):
            return False
    return True


def test_one_page_keeps_at_most_its_share_unless_nothing_else_matches(site: Path) -> None:
    plain = search(index(site), API_QUESTION, 50, priors=False)
    hits = search(index(site), API_QUESTION, 50)
    api_plain = [i for i, h in enumerate(plain) if h.page_url == "api/client/"]
    assert len(api_plain) > PAGE_SHARE
    normal = [hit for hit in hits if hit.page_url not in LOW_PAGES]
    assert windows_hold_a_share_of_each_page(normal)
    assert len([hit for hit in hits if hit.page_url == "api/client/"]) == len(api_plain)
    # a page's own sections keep their order
    assert [h.url for h in hits if h.page_url == "api/client/"] == [
        h.url for h in plain if h.page_url == "api/client/"]


#: One page whose entries all match the question, and pages that match it less.
CROWDED = {
    "streams.md": "# Streams\n\n" + "".join(
        f"## stream.{name}()\n\nThe {name} call of a readable stream of chunks: a readable "
        f"stream hands its chunks over one at a time ({name}).\n\n"
        for name in ("read", "pipe", "unpipe", "pause", "resume", "destroy")),
    **{f"{topic}.md": f"# {topic.title()}\n\n## {topic.title()} and streams\n\nA {topic} "
       f"can be read as a readable stream.\n\n## More on {topic}\n\nNothing else here.\n"
       for topic in ("files", "sockets", "pipes", "timers", "workers")},
}


def test_the_section_past_a_pages_share_comes_back_when_the_window_has_room(
        make_site: SiteBuilder) -> None:
    """The page that answers holds the best sections; its fourth comes back as soon as the
    window has room for it, not below the first sections of every other page."""
    site = make_site(CROWDED, plugin={"formats": ["native", "sqlite"], "min_tokens": 1,
                                      "max_tokens": 60})
    question = "readable stream chunks"
    plain = search(site / "chunks.sqlite", question, 30, priors=False)
    hits = search(site / "chunks.sqlite", question, 30)
    streams = [hit.url for hit in plain if hit.page_url == "streams/"]
    assert [hit.url for hit in plain[:PAGE_SHARE + 2]] == streams[:PAGE_SHARE + 2]
    others = {hit.page_url for hit in plain} - {"streams/"}
    assert len(others) >= PAGE_WINDOW
    assert windows_hold_a_share_of_each_page(hits)
    assert [hit.url for hit in hits if hit.page_url == "streams/"] == streams
    assert hits[PAGE_WINDOW].url == streams[PAGE_SHARE]
    assert {hit.url for hit in hits} == {hit.url for hit in plain}


def test_a_guide_section_stays_in_view_among_api_entries(site: Path) -> None:
    question = "Client.rate Client.timeout Client.send bandwidth"
    plain = search(index(site), question, 20, priors=False)
    hits = search(index(site), question, 20)
    guide_plain = next(i for i, h in enumerate(plain) if h.page_url == "guide/uploads/")
    assert guide_plain >= KIND_SLOT
    assert any(h.page_url == "guide/uploads/" for h in hits[:KIND_SLOT])


WORDS = ["resume", "interrupted", "upload", "bandwidth", "client", "rate", "timeout",
         "changelog", "2.4", "files", "server", "transfer", "spring", "how", "limit"]


@settings(max_examples=40, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5),
       k=st.integers(min_value=1, max_value=12))
def test_the_first_hits_of_a_search_are_those_of_a_longer_one(site: Path, words: list[str],
                                                              k: int) -> None:
    """The priors move hits by their order alone: asking for more hits never changes the
    first ones; and every hit is a distinct section."""
    question = " ".join(words)
    short = search(index(site), question, k)
    long = search(index(site), question, 40)
    assert [h.id for h in short] == [h.id for h in long[:k]]
    assert len({h.url for h in long}) == len(long)


@pytest.mark.parametrize(("url", "title", "kind"), [
    ("changelog/", "Changelog", "changelog"),
    ("about/release-notes/", "Release Notes", "changelog"),
    ("news.html", "News", "changelog"),
    ("whats-new/", "What's new in 3.0", "changelog"),
    ("blog/2024/01/31/launch/", "Launch", "blog"),
    ("api/fs.html", "File system", "reference"),
    ("reference/cli/", "Command line", "reference"),
    ("user-guide/configuration/", "Configuration", "guide"),
    ("genindex.html", "Index", "index"),
    ("guide/history-of-the-format/", "History of the format", "guide"),
])
def test_kind_of_url(url: str, title: str, kind: str) -> None:
    assert kind_of_url(url, title) == kind


@pytest.mark.parametrize(("question", "dated"), [
    ("what is new in 2.4", True), ("node v18 fetch", True), ("released in 2023", True),
    ("which version added resume", True), ("how do I resume an upload", False),
    ("set the timeout", False),
])
def test_questions_about_a_time(question: str, dated: bool) -> None:
    assert in_time(question) is dated


def test_query_keeps_one_hit_per_section_unless_all_chunks(site: Path) -> None:
    runner = CliRunner()
    base = ["query", str(index(site)), HOW_TO, "-k", "50", "--json"]
    sections = json.loads(runner.invoke(main, base).output)
    chunks = json.loads(runner.invoke(main, [*base, "--all-chunks"]).output)
    assert len({h["url"] for h in sections}) == len(sections)
    assert len(chunks) > len(sections)
    assert {h["url"] for h in chunks} == {h["url"] for h in sections}
    only = json.loads(runner.invoke(main, [*base, "--kind", "changelog"]).output)
    assert {h["pageUrl"] for h in only} == {"changelog/", "updates/spring/"}
    wrong = runner.invoke(main, [*base, "--kind", "faq"])
    assert wrong.exit_code != 0 and "faq" in wrong.output


def test_a_sphinx_project_names_kinds_in_conf_py_and_front_matter(tmp_path: Path) -> None:
    """`mdchunk_page_kinds` in conf.py reaches chunks.sqlite; a MyST page's front matter
    `search: {kind: blog}` reaches its records, and both move the pages below the guide."""
    pytest.importorskip("myst_parser")
    from tests.test_sphinx import CONF, make_project, sphinx_build

    text = "Resume an interrupted upload: an interrupted upload resumes where it stopped."
    source = make_project(tmp_path, {
        "index.rst": "Mini\n====\n\nIntro.\n\n.. toctree::\n   :glob:\n\n   *\n",
        "notes.md": f"---\nsearch:\n  kind: blog\n---\n# Notes\n\n{text}\n",
        "updates.rst": f"Spring\n======\n\n{text}\n",
        "guide.rst": "Transfers\n=========\n\nStart the command again to resume an upload.\n",
    }, CONF + 'mdchunk_formats = ["native", "sqlite"]\n'
              'mdchunk_page_kinds = {"updates.html": "changelog"}\n')
    code, warnings = sphinx_build(source, tmp_path / "out")
    assert code == 0, warnings
    path = tmp_path / "out" / "chunks.sqlite"
    assert _meta(path)["page_kinds"] == '[["updates.html", "changelog"]]'
    plain = [hit.page_url for hit in search(path, HOW_TO, 10, priors=False)]
    assert plain.index("guide.html") > min(plain.index("notes.html"),
                                           plain.index("updates.html"))
    ranked = [hit.page_url for hit in search(path, HOW_TO, 10)]
    assert ranked[0] == "guide.html"


def test_a_front_matter_kind_that_is_none_is_named_with_its_page(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    (docs / "faq.md").write_text("---\nsearch:\n  kind: faq\n---\n# FAQ\n\nAnswers.\n",
                                 encoding="utf-8")
    (docs / "news.md").write_text("---\nsearch:\n  kind: blog\n---\n# News\n\nPosts.\n",
                                  encoding="utf-8")
    config = {"site_name": "Kinds", "docs_dir": str(docs), "site_dir": str(tmp_path / "site"),
              "plugins": [{"mdchunk": {"formats": ["native", "sqlite"]}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    with caplog.at_level("WARNING"):
        site = build_mkdocs(tmp_path / "mkdocs.yml")
    warned = [record.getMessage() for record in caplog.records if "search.kind" in
              record.getMessage()]
    assert len(warned) == 1
    assert "faq.md" in warned[0] and "'faq' is no page kind" in warned[0]
    assert (site / "chunks.sqlite").is_file()  # a warning, not an error
