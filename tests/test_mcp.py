"""`mdchunk mcp`: the MCP server over a built site's index, driven by the MCP SDK's own client.

The sites are real MkDocs builds with the plugin; the server is `mdchunk mcp` in a subprocess,
reached over stdio (and once over streamable HTTP on 127.0.0.1) with the SDK's client. Every
expected text and count is computed here from `chunks.jsonl`, the pages' `index.html.md`
files and tiktoken's own counter, not from the server's code.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
import anyio.from_thread
from click.testing import CliRunner
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from mdchunk.chunking.tokens import tiktoken_counter
from mdchunk.cli import main
from mdchunk.mcp import LiveDocs
from mdchunk.outputs.sqlite import read_sqlite
from mdchunk.search import search
from tests.conftest import EXAMPLE_SITE, build_mkdocs
from tests.helpers import free_port, read_jsonl, server_env, wait_for_port

#: tiktoken itself: the reference the server's counts must agree with.
COUNT = tiktoken_counter("cl100k_base")

TOOLS = {"search_docs", "read_section", "read_sections", "read_page", "list_sections"}

#: Seconds any one exchange with a server may take before the test fails.
TIMEOUT = 60


# --- sites -----------------------------------------------------------------------------------


def build_example(root: Path, formats: str) -> Path:
    """The example site copied into `root` and built with `formats`; its site folder."""
    shutil.copytree(EXAMPLE_SITE, root, ignore=shutil.ignore_patterns("site", "site-material"))
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "      max_tokens: 512", f"      max_tokens: 512\n      formats: {formats}"),
        encoding="utf-8")
    return build_mkdocs(config)


@pytest.fixture(scope="module")
def native_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built with `formats: [native]`: chunks.jsonl, no chunks.sqlite."""
    site = build_example(tmp_path_factory.mktemp("native") / "example", "[native]")
    assert not (site / "chunks.sqlite").exists()
    return site


@pytest.fixture(scope="module")
def sqlite_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built with `formats: [native, sqlite]`."""
    return build_example(tmp_path_factory.mktemp("sqlite") / "example", "[native, sqlite]")


WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango")


@pytest.fixture(scope="module")
def overlap_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small site whose long first section is cut into chunks that overlap in their text
    (`overlap_mode: text`): a section's text must be the page's, not the chunks glued."""
    root = tmp_path_factory.mktemp("overlap")
    docs = root / "docs"
    docs.mkdir()
    paragraphs = [" ".join(f"Sentence {j} of paragraph {i} mentions {WORDS[(i + j) % 20]} and "
                           f"{WORDS[(i * 3 + j) % 20]} together." for j in range(6))
                  for i in range(12)]
    (docs / "long.md").write_text(
        "# Long read\n\n" + "\n\n".join(paragraphs)
        + "\n\n## Afterword\n\nShort closing words about the whole long read.\n",
        encoding="utf-8")
    (docs / "index.md").write_text("# Handbook\n\nWelcome to the handbook.\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: Handbook\nplugins:\n  - mdchunk:\n      max_tokens: 200\n"
        "      min_tokens: 20\n      overlap_tokens: 40\n      overlap_mode: text\n"
        "markdown_extensions:\n  - toc:\n      permalink: true\n", encoding="utf-8")
    return build_mkdocs(root / "mkdocs.yml")


def records(site: Path) -> list[dict[str, Any]]:
    return read_jsonl(site / "chunks.jsonl")


def page_markdown(site: Path, page_url: str) -> str:
    return (site / page_url / "index.html.md").read_text(encoding="utf-8")


def section_span(site: Path, url: str) -> str:
    """What a section's text must be: the page Markdown from its first chunk's start to its
    last chunk's end (its chunks are consecutive)."""
    chunks = [r for r in records(site) if r["url"] == url]
    numbers = [r["chunkNumber"] for r in chunks]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    start = min(r["charOffsets"]["charStart"] for r in chunks)
    end = max(r["charOffsets"]["charEnd"] for r in chunks)
    return page_markdown(site, chunks[0]["pageUrl"])[start:end]


# --- driving the server with the SDK's client --------------------------------------------------


def _field(result: Any, name: str, old_name: str) -> Any:
    """A CallToolResult field under its mcp 2 (snake_case) or mcp 1.x (camelCase) name."""
    return getattr(result, name, getattr(result, old_name, None))


class Session:
    """A live MCP client session, driven from synchronous tests through an anyio portal."""

    def __init__(self, portal: anyio.from_thread.BlockingPortal, session: ClientSession,
                 stderr: Path | None = None) -> None:
        self.portal = portal
        self.session = session
        self.stderr = stderr

    def _run(self, call: Callable[[], Any]) -> Any:
        async def bounded() -> Any:
            with anyio.fail_after(TIMEOUT):
                return await call()

        return self.portal.call(bounded)

    def call(self, tool: str, **arguments: Any) -> Any:
        return self._run(lambda: self.session.call_tool(tool, arguments))

    def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The structured answer of a call that must succeed."""
        result = self.call(tool, **arguments)
        assert not _field(result, "is_error", "isError"), (tool, arguments, result.content)
        answer = _field(result, "structured_content", "structuredContent")
        assert json.loads(result.content[0].text) == answer  # the same answer as text
        return answer

    def error(self, tool: str, **arguments: Any) -> str:
        """The message of a call that must be answered with a tool error."""
        result = self.call(tool, **arguments)
        assert _field(result, "is_error", "isError"), (tool, arguments, result)
        return " ".join(part.text for part in result.content)

    def tools(self) -> list[Any]:
        return self._run(self.session.list_tools).tools


@contextlib.asynccontextmanager
async def _initialized(transport: Any) -> AsyncIterator[ClientSession]:
    async with transport as streams, ClientSession(streams[0], streams[1]) as session:
        with anyio.fail_after(TIMEOUT):
            await session.initialize()
        yield session


@contextlib.contextmanager
def stdio_session(target: Path, *options: str, cache: Path,
                  wrap: Sequence[str] = ()) -> Iterator[Session]:
    """`mdchunk mcp TARGET OPTIONS` started by the SDK's stdio client (under the command
    `wrap`, if any); its stderr goes to CACHE/server-stderr.txt."""
    command = [*wrap, sys.executable, "-m", "mdchunk.cli", "mcp", str(target), *options]
    params = StdioServerParameters(command=command[0], args=command[1:], env=server_env(cache))
    stderr = cache / "server-stderr.txt"
    cache.mkdir(parents=True, exist_ok=True)
    with stderr.open("w", encoding="utf-8") as errlog, \
            anyio.from_thread.start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(
                _initialized(stdio_client(params, errlog=errlog))) as session:
        yield Session(portal, session, stderr)


@pytest.fixture(scope="module")
def native(native_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A server over the [native] site (it makes chunks.sqlite on start)."""
    with stdio_session(native_site, cache=tmp_path_factory.mktemp("cache")) as session:
        yield session


@pytest.fixture(scope="module")
def overlap(overlap_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    with stdio_session(overlap_site, cache=tmp_path_factory.mktemp("cache")) as session:
        yield session


# --- the index the server answers from ----------------------------------------------------------


def test_native_site_gets_its_sqlite_index_written_beside(native: Session,
                                                          native_site: Path) -> None:
    made = native_site / "chunks.sqlite"
    assert read_sqlite(made) == records(native_site)
    assert not [p for p in native_site.iterdir() if p.name.startswith(".chunks.sqlite")]
    assert native.stderr is not None
    assert "written beside it" in native.stderr.read_text(encoding="utf-8")


def test_built_sqlite_index_is_served_as_it_is(sqlite_site: Path, tmp_path: Path) -> None:
    index = sqlite_site / "chunks.sqlite"
    before = index.stat().st_mtime_ns
    with stdio_session(sqlite_site, cache=tmp_path) as session:
        answer = session.ok("search_docs", query="token bucket rate limit", limit=1)
    assert answer["results"][0]["url"] == "guide/math/#rate-limiting-with-a-token-bucket"
    assert index.stat().st_mtime_ns == before
    assert "made from" not in (tmp_path / "server-stderr.txt").read_text(encoding="utf-8")


def test_stale_sqlite_index_is_made_again(native_site: Path, tmp_path: Path) -> None:
    """A chunks.sqlite from an earlier build (older than chunks.jsonl, other records) is
    replaced, so the server never answers from another build than the site's."""
    site = tmp_path / "site"
    shutil.copytree(native_site, site)
    stale = site / "chunks.sqlite"
    from mdchunk.outputs.sqlite import write_sqlite

    write_sqlite(stale, records(native_site)[:3])
    old = time.time() - 3600
    os.utime(stale, (old, old))
    live = LiveDocs(site, cache_dir=tmp_path / "cache")
    assert live.files.made == "beside"
    assert len(live.docs.chunks) == len(records(native_site))
    assert read_sqlite(stale) == records(native_site)


def test_a_site_built_again_is_loaded_again(native_site: Path, tmp_path: Path) -> None:
    """The next call after chunks.jsonl changes answers from the new index; while the new
    file cannot be read, the last index loaded answers."""
    site = tmp_path / "site"
    shutil.copytree(native_site, site)
    live = LiveDocs(site, cache_dir=tmp_path / "cache")
    first = live()
    assert "guide/math/" in first.pages
    kept = [r for r in records(native_site) if r["pageUrl"] != "guide/math/"]
    jsonl = site / "chunks.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
    later = time.time() + 5
    os.utime(jsonl, (later, later))
    again = live()
    assert again is not first and "guide/math/" not in again.pages
    assert len(again.chunks) == len(kept)
    jsonl.write_text("{not json\n", encoding="utf-8")
    os.utime(jsonl, (later + 5, later + 5))
    assert live() is again


def test_read_only_site_gets_its_index_in_the_cache_folder(native_site: Path,
                                                           tmp_path: Path) -> None:
    """Where the site folder cannot be written, the SQLite index goes into --cache-dir."""
    site = tmp_path / "site"
    shutil.copytree(native_site, site)
    (site / "chunks.sqlite").unlink(missing_ok=True)
    cache = tmp_path / "index-cache"
    wrap: list[str] = []
    if os.geteuid() == 0:  # root writes anywhere: the server sees the site mounted read-only
        mount = f"mount --bind -o ro '{site}' '{site}'"
        probe = subprocess.run(["unshare", "-m", "sh", "-c", f"{mount} && ! touch '{site}/x'"],
                               capture_output=True, check=False)
        if probe.returncode != 0:
            pytest.skip("the site cannot be mounted read-only here (unshare -m)")
        wrap = ["unshare", "-m", "sh", "-c", f'{mount} && exec "$@"', "sh"]
    else:
        site.chmod(0o555)
    try:
        with stdio_session(site, "--cache-dir", str(cache), cache=tmp_path,
                           wrap=wrap) as session:
            answer = session.ok("read_section", id_or_url="guide/math/#choosing-a-rate")
    finally:
        site.chmod(0o755)
    assert answer["text"] == section_span(native_site, "guide/math/#choosing-a-rate")
    assert answer["source"] == "page markdown"
    assert not (site / "chunks.sqlite").exists()
    [made] = cache.glob("*.sqlite")
    assert read_sqlite(made) == records(native_site)
    assert "cache folder" in (tmp_path / "server-stderr.txt").read_text(encoding="utf-8")
    # the same chunks.jsonl is served from that file again; a changed one gets a new file,
    # which replaces it (a folder in the way keeps the index from being written beside it)
    assert LiveDocs(site, cache_dir=cache).files.sqlite == made
    (site / "chunks.sqlite").mkdir()
    (site / "chunks.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records(native_site)[:5]), encoding="utf-8")
    live = LiveDocs(site, cache_dir=cache)
    assert live.files.made == "cache" and len(live.docs.chunks) == 5
    assert list(cache.glob("*.sqlite")) == [live.files.sqlite] != [made]
    assert not [p for p in site.iterdir() if p.name.startswith(".chunks.sqlite")]


# --- the tools ---------------------------------------------------------------------------------


def test_the_five_tools_are_listed_read_only(native: Session) -> None:
    tools = {tool.name: tool for tool in native.tools()}
    assert set(tools) == TOOLS
    for tool in tools.values():
        hints = tool.annotations
        assert _field(hints, "read_only_hint", "readOnlyHint") is True
        assert _field(tool, "output_schema", "outputSchema")["type"] == "object"
        assert tool.description and "\n" not in tool.description
    for name in ("search_docs", "read_section", "read_sections", "read_page"):
        schema = _field(tools[name], "input_schema", "inputSchema")
        assert "max_tokens" in schema["properties"] and "max_tokens" in tools[name].description
        assert schema["properties"]["max_tokens"]["type"] == "integer"
    # the arguments keep their JSON types and required names for the client
    search_schema = _field(tools["search_docs"], "input_schema", "inputSchema")
    assert search_schema["required"] == ["query"]
    assert search_schema["properties"]["query"]["type"] == "string"
    assert search_schema["properties"]["limit"] == {
        "default": 5, "description": "How many sections at most (1 to 50).", "title": "Limit",
        "type": "integer"}
    sections_schema = _field(tools["read_sections"], "input_schema", "inputSchema")
    assert sections_schema["required"] == ["ids_or_urls"]
    assert sections_schema["properties"]["ids_or_urls"]["type"] == "array"
    assert sections_schema["properties"]["ids_or_urls"]["items"] == {"type": "string"}


QUESTIONS = {
    "How do I install Beacon on macOS?": "getting-started/install/#macos",
    "How are configuration values resolved?": "guide/configuration/#how-values-are-resolved",
    "What is the token bucket rate limit?": "guide/math/#rate-limiting-with-a-token-bucket",
    # (in the page's own words: split at H3, the beacon check section's intro is a chunk of
    # its own, without its example's `--config` flag)
    "Does beacon check validate a configuration file?": "guide/duplicate-headings/#beacon-check",
}


@pytest.mark.parametrize(("question", "url"), QUESTIONS.items())
def test_search_finds_the_answering_section(native: Session, native_site: Path, question: str,
                                            url: str) -> None:
    answer = native.ok("search_docs", query=question)
    first = answer["results"][0]
    assert first["url"] == url
    record = next(r for r in records(native_site) if r["id"] == first["id"])
    assert first["text"] == record["originalText"]
    assert first["breadcrumb"] == record["headerBreadcrumb"]
    assert first["absoluteUrl"] == record["absoluteUrl"]
    assert first["tokens"] == COUNT(first["text"]) == record["tokenStats"]["tokens"]


def test_search_ranks_as_mdchunk_query_with_one_result_per_section(native: Session,
                                                                   native_site: Path) -> None:
    """The results are `mdchunk query`'s ranking with every section's lower hits dropped."""
    question = "delivery duplicate records at least once"
    answer = native.ok("search_docs", query=question, limit=6, max_tokens=100_000)
    urls = [result["url"] for result in answer["results"]]
    assert len(urls) == len(set(urls)) == 6
    ranked = search(native_site / "chunks.sqlite", question, 200)
    expected: list[str] = []
    for hit in ranked:
        if hit.url not in expected:
            expected.append(hit.url)
    assert urls == expected[:6]
    assert [r["id"] for r in answer["results"]] == [
        next(hit.id for hit in ranked if hit.url == url) for url in urls]
    # the long section has seven chunks that match: one result, which says there is more
    long = next(r for r in answer["results"]
                if r["url"] == "reference/long-section/#at-least-once-delivery")
    assert long["sectionChunks"] == 7


@pytest.mark.parametrize("budget", [120, 300, 450, 800, 1500])
def test_search_keeps_within_the_budget_to_the_token(native: Session, budget: int) -> None:
    answer = native.ok("search_docs", query="delivery duplicate records parser install",
                       limit=10, max_tokens=budget)
    results, omitted = answer["results"], answer["omitted"]
    assert results, answer
    spent = sum(COUNT(r["text"]) for r in results)
    assert spent == answer["tokens"] <= budget
    assert all(r["tokens"] == COUNT(r["text"]) for r in results)
    # ranks 1..n, each either returned or omitted; an omitted result did not fit what was left
    ranks = sorted([r["rank"] for r in results] + [o["rank"] for o in omitted])
    assert ranks == list(range(1, len(ranks) + 1))
    for left_out in omitted:
        before = sum(r["tokens"] for r in results if r["rank"] < left_out["rank"])
        assert left_out["tokens"] > budget - before
    assert len(ranks) == 10


def test_search_budget_below_every_matching_chunk_is_an_error(native: Session) -> None:
    message = native.error("search_docs", query="token bucket", max_tokens=5)
    assert "below one chunk" in message
    needed = int(re.search(r"max_tokens=(\d+) or more", message).group(1))
    answer = native.ok("search_docs", query="token bucket", max_tokens=needed)
    assert answer["tokens"] == needed and len(answer["results"]) == 1
    assert "below one chunk" in native.error("search_docs", query="token bucket",
                                             max_tokens=needed - 1)


def test_read_section_takes_search_ids(native: Session, native_site: Path) -> None:
    answer = native.ok("search_docs", query="memory usage parser configuration", limit=5)
    for result in answer["results"]:
        section = native.ok("read_section", id_or_url=result["id"])
        assert section["url"] == result["url"]
        assert section["breadcrumb"] == result["breadcrumb"]
        assert section["text"] == section_span(native_site, result["url"])
        assert result["text"] in section["text"]
        assert section["tokens"] == COUNT(section["text"]) == section["sectionTokens"]
        assert section["truncated"] is False and section["omittedChunkIds"] == []


SECTION = "getting-started/install/#linux"


@pytest.mark.parametrize("spelling", [
    SECTION, "/" + SECTION, "doc:getting-started/install::ch1",
    "https://example.com/docs/" + SECTION, "/docs/" + SECTION,
    "getting-started/install#linux", "getting-started/install/index.html#linux",
    " getting-started/install/#linux\n", "getting-started/install/%23linux".replace("%23", "#"),
])
def test_read_section_accepts_every_spelling_of_a_section(native: Session, native_site: Path,
                                                          spelling: str) -> None:
    section = native.ok("read_section", id_or_url=spelling)
    assert section["url"] == SECTION
    assert section["text"] == section_span(native_site, SECTION)
    assert section["headerPath"] == ["Installation", "Linux"]


LONG = "reference/long-section/#at-least-once-delivery"


def test_a_long_section_is_the_page_text_of_all_its_chunks(native: Session,
                                                           native_site: Path) -> None:
    section = native.ok("read_section", id_or_url=LONG, max_tokens=100_000)
    ids = [r["id"] for r in records(native_site) if r["url"] == LONG]
    assert section["chunkIds"] == ids and len(ids) == 7
    assert section["text"] == section_span(native_site, LONG)
    assert section["tokens"] == COUNT(section["text"])


@pytest.mark.parametrize("budget", [434, 900, 1290, 2731])
def test_a_long_section_is_cut_after_its_last_chunk_that_fits(native: Session,
                                                              native_site: Path,
                                                              budget: int) -> None:
    section = native.ok("read_section", id_or_url=LONG, max_tokens=budget)
    chunks = [r for r in records(native_site) if r["url"] == LONG]
    markdown = page_markdown(native_site, "reference/long-section/")
    start = chunks[0]["charOffsets"]["charStart"]
    kept = len(section["chunkIds"])
    assert section["truncated"] and 1 <= kept < len(chunks)
    assert section["chunkIds"] + section["omittedChunkIds"] == [c["id"] for c in chunks]
    assert section["text"] == markdown[start:chunks[kept - 1]["charOffsets"]["charEnd"]]
    assert section["tokens"] == COUNT(section["text"]) <= budget
    one_more = markdown[start:chunks[kept]["charOffsets"]["charEnd"]]
    assert COUNT(one_more) > budget  # the cut is as late as the budget allows
    assert section["sectionTokens"] == COUNT(section_span(native_site, LONG))


def test_section_budget_below_its_first_chunk_is_an_error(native: Session) -> None:
    message = native.error("read_section", id_or_url=LONG, max_tokens=100)
    assert "below one chunk" in message
    needed = int(re.search(r"max_tokens=(\d+) or more", message).group(1))
    assert native.ok("read_section", id_or_url=LONG, max_tokens=needed)["tokens"] == needed
    assert "below one chunk" in native.error("read_section", id_or_url=LONG,
                                             max_tokens=needed - 1)


def test_overlapping_chunks_are_read_once(overlap: Session, overlap_site: Path) -> None:
    """With `overlap_mode: text` the chunks repeat each other's edges: the section is the
    page's text, not the chunk texts glued together."""
    chunks = [r for r in records(overlap_site) if r["url"] == "long/#long-read"]
    assert len(chunks) > 3 and all(r["flags"]["hasOverlapPrevious"] for r in chunks[1:])
    section = overlap.ok("read_section", id_or_url="long/#long-read")
    assert section["text"] == section_span(overlap_site, "long/#long-read")
    assert len(section["text"]) < sum(len(r["originalText"]) for r in chunks)
    assert section["text"].count("Sentence 0 of paragraph 5 ") == 1


def test_read_page_returns_the_page_markdown(native: Session, native_site: Path) -> None:
    page = native.ok("read_page", url="guide/configuration/")
    assert page["text"] == page_markdown(native_site, "guide/configuration/")
    assert page["tokens"] == page["pageTokens"] == COUNT(page["text"])
    assert page["truncated"] is False and page["cut"] == "none" and page["omitted"] == []
    # any url or id on the page names it
    for spelling in ("guide/configuration/#value-types", "doc:guide/configuration::ch2",
                     "doc:guide/configuration", "/guide/configuration",
                     "https://example.com/docs/guide/configuration/"):
        assert native.ok("read_page", url=spelling)["url"] == "guide/configuration/"
    # a page id is its chunks' parentId, the home page's included
    for record in records(native_site):
        assert native.ok("list_sections", url=record["parentId"])["url"] == record["pageUrl"]


def test_read_page_is_cut_at_a_section_boundary(native: Session, native_site: Path) -> None:
    url = "reference/long-section/"
    page = native.ok("read_page", url=url, max_tokens=3500)
    markdown = page_markdown(native_site, url)
    sections = list(dict.fromkeys(r["url"] for r in records(native_site)
                                  if r["pageUrl"] == url))
    assert page["truncated"] and page["cut"] == "section boundary"
    assert page["tokens"] == COUNT(page["text"]) <= 3500 < page["pageTokens"]
    end = max(r["charOffsets"]["charEnd"] for r in records(native_site) if r["url"] in sections[:2])
    assert page["text"] == markdown[:end].rstrip()
    assert [entry["url"] for entry in page["omitted"]] == sections[2:]
    assert page["partlyOmitted"] is None
    for entry in page["omitted"]:  # the outline of what was left out, ready to read
        assert entry["tokens"] == COUNT(section_span(native_site, entry["url"]))


def test_read_page_is_cut_at_a_chunk_boundary_when_no_section_fits(
        overlap: Session, overlap_site: Path) -> None:
    page = overlap.ok("read_page", url="long/", max_tokens=300)
    chunks = [r for r in records(overlap_site) if r["pageUrl"] == "long/"]
    markdown = page_markdown(overlap_site, "long/")
    ends = [r["charOffsets"]["charEnd"] for r in chunks]
    assert page["cut"] == "chunk boundary" and page["partlyOmitted"] == "long/#long-read"
    assert page["tokens"] == COUNT(page["text"]) <= 300
    assert page["text"] in [markdown[:end].rstrip() for end in ends]
    kept = [markdown[:end].rstrip() for end in ends].index(page["text"])
    assert COUNT(markdown[:ends[kept + 1]].rstrip()) > 300
    assert [e["url"] for e in page["omitted"]] == ["long/#long-read", "long/#afterword"]
    assert "below one chunk" in overlap.error("read_page", url="long/", max_tokens=20)


@pytest.mark.parametrize("url", ["", "no-headings/", "guide/math/", "reference/huge-code/"])
def test_page_budget_named_in_the_error_is_enough(native: Session, url: str) -> None:
    """The budget a 'below one chunk' error asks for is exactly what returns the first chunk
    (an assistant that follows the message is never refused again)."""
    message = native.error("read_page", url=url, max_tokens=8)
    assert "below one chunk" in message
    needed = int(re.search(r"max_tokens=(\d+) or more", message).group(1))
    page = native.ok("read_page", url=url, max_tokens=needed)
    assert page["tokens"] <= needed and page["text"]
    assert "below one chunk" in native.error("read_page", url=url, max_tokens=needed - 1)


def test_list_sections_is_the_page_outline(native: Session, native_site: Path) -> None:
    url = "getting-started/install/"
    outline = native.ok("list_sections", url="getting-started/install/#macos")
    page_records = [r for r in records(native_site) if r["pageUrl"] == url]
    assert outline["url"] == url and outline["title"] == "Installation"
    assert [s["url"] for s in outline["sections"]] == [r["url"] for r in page_records]
    depths = [s["depth"] for s in outline["sections"]]
    assert depths == [len(r["headerPath"]) for r in page_records]
    assert depths[:3] == [1, 2, 3]  # an H3 section is a section of its own (split_level 3)
    assert [s["breadcrumb"] for s in outline["sections"]] == [
        r["headerBreadcrumb"] for r in page_records]
    for entry in outline["sections"]:
        assert entry["tokens"] == COUNT(section_span(native_site, entry["url"]))
    assert outline["tokens"] == COUNT(page_markdown(native_site, url))


def test_every_id_and_url_returned_is_accepted_by_every_tool(native: Session) -> None:
    returned: set[str] = set()
    search_answer = native.ok("search_docs", query="beacon records parser", limit=8,
                              max_tokens=3000)
    for result in search_answer["results"]:
        returned |= {result["id"], result["url"], result["pageUrl"], result["absoluteUrl"]}
    returned |= {entry["id"] for entry in search_answer["omitted"]}
    returned |= {entry["url"] for entry in search_answer["omitted"]}
    for page in ("", "reference/long-section/", "getting-started/preamble/"):
        outline = native.ok("list_sections", url=page)
        returned |= {outline["url"], outline["absoluteUrl"]}
        for entry in outline["sections"]:
            returned |= {entry["id"], entry["url"], entry["absoluteUrl"]}
    section = native.ok("read_section", id_or_url=LONG, max_tokens=1000)
    returned |= {section["pageUrl"], *section["chunkIds"], *section["omittedChunkIds"]}
    page = native.ok("read_page", url="reference/long-section/", max_tokens=1000)
    returned |= {entry["url"] for entry in page["omitted"]}
    assert len(returned) > 30
    for reference in sorted(returned):
        native.ok("read_section", id_or_url=reference, max_tokens=100_000)
        native.ok("read_page", url=reference, max_tokens=100_000)
        native.ok("list_sections", url=reference)


def expected_parent(site: Path, url: str) -> str | None:
    """The first chunk id of the section one heading up from `url`, from chunks.jsonl: the
    nearest section before it on its page whose header path is a proper, non-empty prefix of
    its own (the longest such)."""
    page_records = [r for r in records(site) if r["pageUrl"] == records_of(site, url)[0]
                    ["pageUrl"]]
    firsts: dict[str, dict[str, Any]] = {}
    for record in page_records:
        firsts.setdefault(record["url"], record)
    path = firsts[url]["headerPath"]
    parent = None
    for section_url, first in firsts.items():
        if section_url == url:
            break
        above = first["headerPath"]
        if 0 < len(above) < len(path) and path[:len(above)] == above and (
                parent is None or len(above) >= len(parent["headerPath"])):
            parent = first
    return None if parent is None else parent["id"]


def records_of(site: Path, url: str) -> list[dict[str, Any]]:
    return [r for r in records(site) if r["url"] == url]


@pytest.mark.parametrize("page", ["getting-started/install/", "reference/long-section/",
                                  "guide/duplicate-headings/", "getting-started/preamble/"])
def test_every_section_names_its_parent(native: Session, native_site: Path,
                                        page: str) -> None:
    """read_section's parentId is the section one heading up, null at the top of a page;
    reading it gives a section whose header path the child's extends."""
    outline = native.ok("list_sections", url=page)["sections"]
    parents = []
    for entry in outline:
        section = native.ok("read_section", id_or_url=entry["id"], max_tokens=100_000)
        assert section["parentId"] == expected_parent(native_site, entry["url"])
        parents.append(section["parentId"])
        if section["parentId"] is None:
            continue
        parent = native.ok("read_section", id_or_url=section["parentId"], max_tokens=100_000)
        assert section["headerPath"][:len(parent["headerPath"])] == parent["headerPath"]
        assert 0 < parent["depth"] < section["depth"]
        assert entry["url"] in [s["url"] for s in parent["subsections"]] or (
            section["depth"] - parent["depth"] > 1)
    assert any(parents) and None in parents


def test_search_results_name_their_parent_section(native: Session, native_site: Path) -> None:
    answer = native.ok("search_docs", query="install linux macos windows", limit=10,
                       max_tokens=100_000)
    assert any(r["parentId"] is not None for r in answer["results"])
    for result in answer["results"]:
        assert result["parentId"] == expected_parent(native_site, result["url"])


def test_read_sections_shares_one_budget_in_order(native: Session, native_site: Path) -> None:
    answer = native.ok("search_docs", query="delivery duplicate records parser install",
                       limit=8, max_tokens=100_000)
    ids = [r["id"] for r in answer["results"]]
    whole = {r["url"]: COUNT(section_span(native_site, r["url"])) for r in answer["results"]}
    everything = native.ok("read_sections", ids_or_urls=[*ids, ids[0]], max_tokens=100_000)
    assert [s["url"] for s in everything["sections"]] == [r["url"] for r in answer["results"]]
    assert everything["omitted"] == []
    for section in everything["sections"]:
        assert section["text"] == section_span(native_site, section["url"])
        assert section["tokens"] == whole[section["url"]] and section["truncated"] is False
    assert everything["tokens"] == sum(whole.values())
    budget = sum(whole.values()) // 2
    half = native.ok("read_sections", ids_or_urls=ids, max_tokens=budget)
    kept = [s["url"] for s in half["sections"]]
    left_out = [o["url"] for o in half["omitted"]]
    assert half["omitted"] and kept
    assert sorted(kept + left_out, key=list(whole).index) == list(whole)
    assert half["tokens"] == sum(whole[url] for url in kept) <= budget
    for entry in half["omitted"]:  # left out: more than what was left when its turn came
        before = [url for url in list(whole)[:list(whole).index(entry["url"])] if url in kept]
        assert entry["tokens"] == whole[entry["url"]] > budget - sum(whole[u] for u in before)
    # section urls and page urls name sections too (a page its first)
    named = native.ok("read_sections", ids_or_urls=[SECTION, "/guide/math"],
                      max_tokens=100_000)
    math_first = next(r["url"] for r in records(native_site) if r["pageUrl"] == "guide/math/")
    assert [s["url"] for s in named["sections"]] == [SECTION, math_first]


def test_read_sections_errors_name_the_problem(native: Session) -> None:
    message = native.error("read_sections", ids_or_urls=[SECTION, "guide/nowhere/"])
    assert "'guide/nowhere/' is not a page" in message
    smallest = native.error("read_sections", ids_or_urls=[SECTION, LONG], max_tokens=3)
    needed = int(re.search(r"max_tokens=(\d+) or more", smallest).group(1))
    assert native.ok("read_sections", ids_or_urls=[SECTION, LONG],
                     max_tokens=needed)["sections"]
    assert "1 to 20" in native.error("read_sections", ids_or_urls=[])
    assert "1 to 20" in native.error("read_sections", ids_or_urls=[SECTION] * 21)


def test_a_sphinx_site_is_served(tmp_path: Path) -> None:
    """Sphinx's html builder names pages `install.html` and writes `install.md` beside them;
    its home page is `index.html`, also named by `` and `/`."""
    pytest.importorskip("sphinx")
    from sphinx.cmd.build import build_main  # (keeps docutils' registries as they were)

    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text('extensions = ["sphinx_mdchunk"]\n', encoding="utf-8")
    (source / "index.rst").write_text(
        "Handbook\n========\n\nWelcome.\n\n.. toctree::\n\n   install\n", encoding="utf-8")
    (source / "install.rst").write_text(
        "Install\n=======\n\nTwo ways.\n\nOn Linux\n--------\n\nUse the package manager "
        "to install the beacon package.\n\nOn macOS\n--------\n\nUse Homebrew.\n",
        encoding="utf-8")
    out = tmp_path / "html"
    assert build_main(["-q", "-b", "html", str(source), str(out)]) == 0
    docs = LiveDocs(out, cache_dir=tmp_path / "cache")()
    home = docs.read_page("/")
    assert home["url"] == "index.html" and home["source"] == "page markdown"
    assert home["text"] == (out / "index.html.md").read_text(encoding="utf-8")
    assert docs.read_section("install#on-macos")["url"] == "install.html#on-macos"
    outline = docs.list_sections("install")["sections"]
    assert [entry["url"] for entry in outline] == list(dict.fromkeys(
        r["url"] for r in records(out) if r["pageUrl"] == "install.html"))
    for entry in outline:
        section = docs.read_section(entry["url"])
        assert section["source"] == "page markdown"
        assert section["text"] == section_span_of(out, entry["url"], "install.html.md")


def section_span_of(site: Path, url: str, markdown: str) -> str:
    chunks = [r for r in records(site) if r["url"] == url]
    text = (site / markdown).read_text(encoding="utf-8")
    return text[chunks[0]["charOffsets"]["charStart"]:chunks[-1]["charOffsets"]["charEnd"]]


# --- bad input ---------------------------------------------------------------------------------


BAD_CALLS = [
    ("search_docs", {"query": ""}, "no word"),
    ("search_docs", {"query": "  ?! "}, "no word"),
    ("search_docs", {"query": "beacon", "limit": 0}, "limit"),
    ("search_docs", {"query": "beacon", "limit": -3}, "limit"),
    ("search_docs", {"query": "beacon", "limit": 51}, "limit"),
    ("search_docs", {"query": "beacon", "max_tokens": 0}, "max_tokens"),
    ("search_docs", {"query": "beacon", "limit": "many"}, "limit"),
    ("read_section", {"id_or_url": "guide/nowhere/"}, "not a page"),
    ("read_section", {"id_or_url": "guide/math/#nowhere"}, "no section #nowhere"),
    ("read_section", {"id_or_url": "doc:guide/math::ch99"}, "no chunk"),
    ("read_section", {"id_or_url": SECTION, "max_tokens": -1}, "max_tokens"),
    ("read_section", {}, "id_or_url"),
    ("read_page", {"url": "guide/excluded/"}, "not a page"),  # left out of the index
    ("read_page", {"url": "guide/math/", "max_tokens": 10}, "below one chunk"),
    ("list_sections", {"url": "empty/"}, "not a page"),  # a page with no chunks
    ("read_page", {"url": "x" * 100_000}, "...' is not a page"),  # not echoed whole
]


#: Arguments of the wrong JSON type, and what the one-line message must say.
WRONG_TYPES = [
    ("search_docs", {"query": "beacon", "limit": "many"}, "limit must be an integer"),
    ("search_docs", {"query": "beacon", "limit": [5]}, "limit must be an integer"),
    ("search_docs", {"query": "beacon", "limit": 2.5}, "limit must be an integer"),
    ("search_docs", {"query": "beacon", "limit": True}, "limit must be an integer"),
    ("search_docs", {"query": ["beacon", "install"]}, "query must be a string"),
    ("search_docs", {"query": "beacon", "max_tokens": None}, "max_tokens must be an integer"),
    ("read_section", {"id_or_url": [SECTION]}, "read_sections takes several"),
    ("read_section", {"id_or_url": SECTION, "max_tokens": "x" * 500}, "max_tokens must be"),
    ("read_sections", {"ids_or_urls": SECTION}, "ids_or_urls must be a list of strings"),
    ("read_sections", {"ids_or_urls": [SECTION, 3]}, "one item is an integer"),
    ("read_sections", {"ids_or_urls": [SECTION], "max_tokens": "lots"}, "max_tokens must be"),
    ("read_page", {"url": 5}, "url must be a string"),
    ("list_sections", {"url": {"page": "guide/math/"}}, "url must be a string"),
]


@pytest.mark.parametrize(("tool", "arguments", "said"), WRONG_TYPES)
def test_a_wrong_argument_type_is_one_line(native: Session, tool: str,
                                           arguments: dict[str, Any], said: str) -> None:
    message = native.error(tool, **arguments)
    assert said in message
    assert "\n" not in message and len(message) < 300
    assert "validation error" not in message and "pydantic" not in message


def test_numbers_sent_as_text_are_taken(native: Session) -> None:
    """Some clients send every argument as text: "3" is 3, as pydantic would take it."""
    as_text = native.ok("search_docs", query="token bucket", limit="3", max_tokens="5000")
    as_number = native.ok("search_docs", query="token bucket", limit=3, max_tokens=5000)
    assert as_text["results"] == as_number["results"] and as_text["maxTokens"] == 5000


@pytest.mark.parametrize(("tool", "arguments", "said"), BAD_CALLS)
def test_bad_input_is_a_tool_error(native: Session, tool: str, arguments: dict[str, Any],
                                   said: str) -> None:
    message = native.error(tool, **arguments)
    assert said in message and len(message) < 2000
    assert native.ok("search_docs", query="beacon", limit=1)["results"]  # still serving


#: Urls refused before any look-up: a `..` segment, a backslash, another scheme or host.
REFUSED = ["../../etc/passwd", "file:///etc/passwd", "../secret/", "guide/../../secret/",
           "%2e%2e/secret/", "..%2Fsecret/", "..\\secret", "C:\\Windows\\win.ini",
           "//example.com/docs/../secret/", "http://elsewhere.example/docs/guide/math/",
           "https://example.com/docs/../secret/", "file:../secret/index.md"]


def test_urls_that_leave_the_site_are_refused(native: Session, native_site: Path) -> None:
    """Nothing outside the index and the site folder is read, whatever the url: a url that
    leaves the site is refused, a filesystem path is no page of the index."""
    secret = native_site.parent / "secret" / "index.md"
    secret.parent.mkdir(exist_ok=True)
    secret.write_text("TOP SECRET\n", encoding="utf-8")
    unknown = ["/etc/passwd", str(secret), str(secret.parent) + "/", "etc/passwd",
               "doc:../secret"]
    for reference in [*REFUSED, secret.as_uri(), *unknown]:
        for tool, argument in (("read_section", "id_or_url"), ("read_page", "url"),
                               ("list_sections", "url")):
            message = native.error(tool, **{argument: reference})
            assert "TOP SECRET" not in message and "root:" not in message
            expected = "not a page|no chunk or page" if reference in unknown else "refused"
            assert re.search(expected, message), (reference, message)


def test_markdown_linked_out_of_the_site_is_not_read(native_site: Path, tmp_path: Path) -> None:
    """A page's Markdown that is a symbolic link out of the site is not followed, even with
    the right content: the page is served from its chunks' texts instead."""
    site = tmp_path / "site"
    shutil.copytree(native_site, site)
    page = site / "guide" / "math" / "index.html.md"
    outside = tmp_path / "outside.md"
    outside.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    page.unlink()
    page.symlink_to(outside)
    with stdio_session(site, cache=tmp_path / "cache") as session:
        linked = session.ok("read_page", url="guide/math/")
        plain = session.ok("read_page", url="guide/configuration/")
    assert linked["source"] == "chunk text" and plain["source"] == "page markdown"
    # joined from the chunks, the page has the same text, blank lines between chunks aside
    assert linked["text"].split() == outside.read_text(encoding="utf-8").split()


# --- streamable HTTP -----------------------------------------------------------------------------


def http_transport(url: str) -> Any:
    try:
        from mcp.client.streamable_http import streamable_http_client as client
    except ImportError:  # mcp 1.x before the rename
        from mcp.client.streamable_http import streamablehttp_client as client
    return client(url)


def test_streamable_http_on_loopback(sqlite_site: Path, tmp_path: Path) -> None:
    port = free_port()
    with (tmp_path / "stderr.txt").open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "mdchunk.cli", "mcp", str(sqlite_site), "--http",
             "--port", str(port)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=errors, env=server_env(tmp_path))
    try:
        wait_for_port(port, process)
        with anyio.from_thread.start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(
                    _initialized(http_transport(f"http://127.0.0.1:{port}/mcp"))) as client:
            session = Session(portal, client)
            assert {tool.name for tool in session.tools()} == TOOLS
            answer = session.ok("search_docs", query="macOS install", limit=2, max_tokens=600)
            first = answer["results"][0]
            assert first["url"] == "getting-started/install/#macos"
            section = session.ok("read_section", id_or_url=first["id"])
            assert section["text"] == section_span(sqlite_site, first["url"])
            assert "refused" in session.error("read_page", url="file:///etc/passwd")
    finally:
        process.terminate()
        process.wait(timeout=30)
    said = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    assert f"http://127.0.0.1:{port}/mcp" in said


# --- the command ---------------------------------------------------------------------------------


def test_help_says_what_another_host_exposes() -> None:
    result = CliRunner().invoke(main, ["mcp", "--help"])
    assert result.exit_code == 0
    flat = " ".join(result.output.split())
    assert "--http" in flat and "127.0.0.1" in flat and "exposes the docs" in flat


def test_a_folder_without_an_index_is_named(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "chunks.jsonl").write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["mcp", str(tmp_path)])
    assert result.exit_code == 1
    assert "no chunks.jsonl" in result.output and str(tmp_path / "site") in result.output
    result = CliRunner().invoke(main, ["mcp", str(tmp_path / "site" / "chunks.jsonl")])
    assert result.exit_code == 1 and "holds no chunk" in result.output
    page = tmp_path / "site" / "index.md"
    page.write_text("# Home\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["mcp", str(page)])
    assert result.exit_code == 1 and "is not a chunk index" in result.output
    assert not (tmp_path / "site" / "index.sqlite").exists()
