"""`mdchunk serve SITE`: a built site served on this machine as agents expect it from a docs
host: every page, its Markdown twin for `Accept: text/markdown`, `/llms.txt` and its headers,
and the MCP server at `/mcp` on the same port (`app.site_app`; the rules of what a path
answers are `files`'). For previews and local use; docs/serve.md gives the same answers from
production hosts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mdchunk.errors import MdChunkError

#: File names that make a folder a built site's: a page, or the chunk index.
_SITE_FILES = ("index.html", "llms.txt", "chunks.jsonl", "chunks.sqlite")
_INDEX_FILES = ("chunks.jsonl", "chunks.sqlite")


class ServeError(MdChunkError):
    """The site cannot be served: no such folder, or not a built site."""


def check_site(site: Path) -> Path:
    """`site`, made absolute, when it is a built site's folder.

    Raises:
        ServeError: where it is not a folder, or holds no page or index.
    """
    site = site.absolute()
    if not site.is_dir():
        raise ServeError(f"{site}: not a folder; give the folder a build wrote (site_dir, "
                         "or sphinx-build's output folder)")
    if not any((site / name).is_file() for name in _SITE_FILES):
        raise ServeError(f"{site}: not a built site (no index.html, llms.txt or chunk index); "
                         "build it first (mkdocs build, sphinx-build) and give its output folder")
    return site


def serve_site(site: Path, *, host: str = "127.0.0.1", port: int = 8000, mcp: bool = True,
               cache_dir: Path | None = None, say: Callable[[str], None] | None = None) -> None:
    """Serve the built site in `site` until the process is stopped.

    Raises:
        ServeError: where `site` is not a built site's folder, or what serving needs is not
            installed.
    """
    tell = say or (lambda line: print(line, file=sys.stderr))
    site = check_site(site)
    try:
        import uvicorn

        from mdchunk.serve.app import site_app
    except ImportError as error:
        raise ServeError(f"mdchunk serve needs Starlette and Uvicorn ({error}): pip install "
                         "'mdchunk[serve]'") from error
    from mdchunk.mcp.server import base_url, exposure_warning

    mcp_app, why = _mcp_app(site, host, port, cache_dir) if mcp else (None, "off (--no-mcp)")
    where = base_url(host, port)
    tell(f"mdchunk serve: {site} at {where}/; MCP: "
         + (f"{where}/mcp ({why})" if mcp_app is not None else why))
    if (warning := exposure_warning(host, "read the site and call its MCP server")) is not None:
        tell(f"mdchunk serve: {warning}")
    uvicorn.run(site_app(site, mcp_app), host=host, port=port, log_level="warning")


def _mcp_app(site: Path, host: str, port: int, cache_dir: Path | None
             ) -> tuple[Any, str]:
    """The MCP server's HTTP app over the site's chunk index, and what to say of it; (None,
    why) where there is no index or no MCP SDK."""
    from mdchunk.outputs.version_tree import find_tree

    try:
        tree = find_tree(site)
    except MdChunkError as error:
        raise ServeError(str(error)) from error
    if not any((site / name).is_file() for name in _INDEX_FILES) and tree is None:
        return None, "off: the site has no chunk index (chunks.jsonl)"
    try:
        from mdchunk.mcp import DocsError
        from mdchunk.mcp.index import describe, open_docs
        from mdchunk.mcp.server import build_server, http_app, site_title
    except ImportError as error:
        return None, f"off: the MCP SDK is not installed ({error}): pip install 'mdchunk[mcp]'"
    try:
        live = open_docs(site, cache_dir)
    except DocsError as error:
        raise ServeError(str(error)) from error
    server = build_server(live, title=site_title(live.docs), host=host, port=port)
    return http_app(server, host=host), describe(live)
