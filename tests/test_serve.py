"""`mdchunk serve`: a real server over a real build, driven by a real HTTP client and a real
MCP client; and the rules of what a path answers, as properties."""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mdchunk.cli import main
from mdchunk.outputs.twins import twin_path
from mdchunk.serve.negotiation import Answer, Redirect, answer, inside, prefers_markdown
from tests.conftest import EXAMPLE_SITE, build_mkdocs
from tests.helpers import free_port, server_env, wait_for_port

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

#: What a browser sends: HTML first, anything else after it.
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SECRET = "the secret outside the site folder"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site built with the plugin, beside a secret file that a symlink in the site
    folder points to."""
    root = tmp_path_factory.mktemp("serve")
    project = root / "example"
    shutil.copytree(EXAMPLE_SITE, project, ignore=shutil.ignore_patterns("site", "site-material"))
    built = build_mkdocs(project / "mkdocs.yml")
    for folder in (root, project):  # one and two levels above the site folder
        (folder / "secret.txt").write_text(SECRET, encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "index.html").write_text(f"<p>{SECRET}</p>", encoding="utf-8")
    os.symlink(root / "secret.txt", built / "leak.txt")
    os.symlink(root / "outside", built / "leak")
    return built


@contextlib.contextmanager
def running(command: list[str], port: int, stderr: Path, env: dict[str, str] | None = None
            ) -> Iterator[None]:
    """`command` running, its stderr into `stderr`, until the block ends; it must listen on
    127.0.0.1:`port` first."""
    with stderr.open("w") as errors:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=errors, env=env)
    try:
        wait_for_port(port, process)
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def served(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`mdchunk serve SITE` on a free port of 127.0.0.1; yields the port."""
    cache = tmp_path_factory.mktemp("serve-cache")
    port = free_port()
    command = [sys.executable, "-m", "mdchunk.cli", "serve", str(site), "--port", str(port)]
    with running(command, port, cache / "stderr.txt", env=server_env(cache)):
        yield port
    said = (cache / "stderr.txt").read_text(encoding="utf-8")
    assert f"http://127.0.0.1:{port}/mcp" in said


def get(port: int, path: str, accept: str | None = None, method: str = "GET"
        ) -> tuple[int, dict[str, str], bytes]:
    """Send `path` exactly as given (no normalizing by the client); status, headers, body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        if accept is not None:
            connection.putheader("Accept", accept)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def page_urls(site: Path) -> list[str]:
    """The url paths of the site's pages that have a twin (every page mdchunk indexed)."""
    urls = []
    for page in sorted(site.rglob("index.html")):
        folder = page.parent.relative_to(site).as_posix()
        url = "/" if folder == "." else f"/{folder}/"
        if (site / twin_path(url)).is_file():
            urls.append(url)
    return urls


def test_every_page_answers_markdown_with_its_twin_byte_for_byte(site: Path, served: int
                                                                 ) -> None:
    urls = page_urls(site)
    assert len(urls) >= 10
    for url in urls:
        status, headers, body = get(served, url, "text/markdown")
        assert status == 200, url
        assert headers["content-type"] == "text/markdown; charset=utf-8"
        assert body == (site / twin_path(url)).read_bytes()
        assert headers["vary"] == "Accept"
        assert headers["content-location"] == "/" + twin_path(url)


def test_a_browser_gets_the_html_with_links_to_the_twin_and_llms_txt(site: Path, served: int
                                                                   ) -> None:
    url = "/guide/configuration/"
    status, headers, body = get(served, url, BROWSER)
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert body == (site / "guide/configuration/index.html").read_bytes()
    assert headers["vary"] == "Accept"
    assert '</guide/configuration.md>; rel="alternate"; type="text/markdown"' in headers["link"]
    assert '</llms.txt>; rel="llms-txt"' in headers["link"]
    assert headers["x-llms-txt"] == "/llms.txt"
    assert headers["cache-control"] == "no-cache" and headers["etag"]


@pytest.mark.parametrize(("path", "kind"), [
    ("/llms.txt", "text/plain; charset=utf-8"),
    ("/guide/configuration.md", "text/markdown; charset=utf-8"),
    ("/chunks.jsonl", "application/jsonl"),
])
def test_files_are_sent_with_their_media_type(site: Path, served: int, path: str, kind: str
                                              ) -> None:
    status, headers, body = get(served, path, "text/markdown")
    assert status == 200
    assert headers["content-type"] == kind
    assert body == (site / path.lstrip("/")).read_bytes()
    assert "vary" not in headers  # no page: nothing to negotiate


def test_head_sends_the_headers_without_the_body(served: int) -> None:
    status, headers, body = get(served, "/", "text/markdown", method="HEAD")
    assert status == 200 and body == b""
    assert headers["content-type"] == "text/markdown; charset=utf-8"


def test_a_folder_without_its_slash_is_redirected(served: int) -> None:
    status, headers, _ = get(served, "/guide/configuration?x=1")
    assert status == 301
    assert headers["location"].endswith("/guide/configuration/?x=1")


def test_a_missing_page_is_404_and_other_methods_405(served: int) -> None:
    assert get(served, "/no/such/page/")[0] == 404
    assert get(served, "/", method="POST")[0] == 405


@pytest.mark.parametrize("path", [
    "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/guide/../../secret.txt",
    "/guide/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt",
    "/..%5csecret.txt", "/leak.txt", "/leak/", "/leak/index.html", "//../secret.txt",
    "/%00/../secret.txt", "/.%2e/secret.txt", "/%252e%252e/secret.txt", "/.cache/",
    "/../../secret.txt", "/%2e%2e/%2e%2e/secret.txt", "/guide/%2e%2e/%2e%2e/%2e%2e/secret.txt",
])
def test_nothing_outside_the_site_folder_is_served(served: int, path: str) -> None:
    status, _, body = get(served, path, "text/markdown")
    assert status in (400, 404), (path, status)
    assert SECRET.encode() not in body


def test_the_mcp_server_answers_on_the_same_port(site: Path, served: int) -> None:
    import anyio.from_thread

    from tests.test_mcp import Session, _initialized, http_transport

    with anyio.from_thread.start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(
                _initialized(http_transport(f"http://127.0.0.1:{served}/mcp"))) as client:
        session = Session(portal, client)
        found = session.ok("search_docs", query="macOS install", limit=2, max_tokens=600)
        assert found["results"][0]["url"] == "getting-started/install/#macos"
    assert get(served, "/")[0] == 200  # the files still answer after a session


def test_a_folder_that_is_no_site_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for target in (tmp_path / "empty", tmp_path / "missing"):
        result = CliRunner().invoke(main, ["serve", str(target)])
        assert result.exit_code == 1
        assert str(target) in result.output and "Traceback" not in result.output


# --- the rules, as properties ---------------------------------------------------------------


@pytest.mark.parametrize(("accept", "markdown"), [
    ("text/markdown", True),
    ("text/markdown, text/html;q=0.9", True),
    ("text/markdown, */*", True),
    ("text/plain;q=0.5, text/markdown", True),
    (BROWSER, False),
    ("*/*", False),
    ("text/html, text/markdown", False),
    ("text/*", False),
    ("text/markdown;q=0, */*", False),
    ("text/markdown;q=bad", False),
    ("", False),
    (None, False),
])
def test_accept_headers_choose_markdown_only_where_preferred(accept: str | None, markdown: bool
                                                             ) -> None:
    assert prefers_markdown(accept) is markdown


_SEGMENTS = st.sampled_from(["..", ".", "", "guide", "configuration", "index.html", "leak",
                             "leak.txt", "%2e%2e", ".cache", "secret.txt", "\\..", "x\x00"])


@given(st.lists(_SEGMENTS, max_size=6), st.booleans())
def test_no_path_leaves_the_site_folder(site: Path, segments: list[str], markdown: bool) -> None:
    root = Path(os.path.realpath(site))
    path = "/" + "/".join(segments)
    found = answer(root, path, markdown=markdown)
    named = inside(root, path)
    for file in ([found.file] if isinstance(found, Answer) else []) + [named]:
        if file is not None:
            real = Path(os.path.realpath(file))
            assert real == root or root in real.parents, (path, file)
    if isinstance(found, Redirect):
        assert found.location == path + "/"


# --- the nginx recipe of docs/serve.md, run as it stands there ----------------------------------

NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(path).exists()), None)
RECIPES = Path(__file__).resolve().parent.parent / "docs" / "serve.md"


def nginx_config(site: Path, port: int, folder: Path) -> str:
    """The ```nginx block of docs/serve.md inside an `http { }` of its own, its `root` the
    built site and its server listening on 127.0.0.1:PORT."""
    text = RECIPES.read_text(encoding="utf-8")
    block = text.split("```nginx\n", 1)[1].split("```", 1)[0]
    assert "root /srv/docs/site;" in block
    block = block.replace("root /srv/docs/site;", f"root {site};").replace(
        "server {", f"server {{\n    listen 127.0.0.1:{port};", 1)
    temp = " ".join(f"{name}_temp_path {folder / name};"
                    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    # (started by root, nginx's workers would run as another user, who cannot read tmp_path)
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (f"{user}daemon off; pid {folder / 'nginx.pid'}; error_log {folder / 'error.log'};\n"
            f"events {{}}\nhttp {{\n access_log off; include /etc/nginx/mime.types; {temp}\n"
            f"{block}\n}}\n")


@pytest.fixture(scope="module")
def nginx(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """nginx running docs/serve.md's recipe over the site; yields its port."""
    if NGINX is None or not Path("/etc/nginx/mime.types").is_file():
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    folder = tmp_path_factory.mktemp("nginx")
    port = free_port()
    (folder / "nginx.conf").write_text(nginx_config(Path(os.path.realpath(site)), port, folder),
                                       encoding="utf-8")
    with running([NGINX, "-c", str(folder / "nginx.conf"), "-p", str(folder)], port,
                 folder / "stderr.txt"):
        yield port


@pytest.mark.parametrize("accept", ["text/markdown", BROWSER, None])
def test_the_nginx_recipe_answers_as_mdchunk_serve(site: Path, served: int, nginx: int,
                                                   accept: str | None) -> None:
    for url in [*page_urls(site), "/llms.txt", "/guide/configuration.md"]:
        ours, theirs = get(served, url, accept), get(nginx, url, accept)
        assert theirs[0] == ours[0] == 200, url
        assert theirs[2] == ours[2], url
        assert theirs[1]["content-type"] == ours[1]["content-type"], url
        assert theirs[1]["x-llms-txt"] == "/llms.txt" and "Accept" in theirs[1]["vary"]
