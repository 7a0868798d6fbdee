"""`mdchunk serve`: a built site as agents expect it from a static host, with the MCP server on
the same port.

One ASGI app answers every request: `/mcp` (and below) goes to the MCP server's streamable
HTTP app, which also gets the lifespan events (it runs its session manager there); every other
path is a file of the site (`files.answer`), sent with its media type, `ETag` and
`Last-Modified`, `Cache-Control: no-cache` (a preview must show the latest build), a `Link` to
`llms.txt` and `X-Llms-Txt` on every answer, and on a page with a twin a `Link` to it and
`Vary: Accept`. Only GET and HEAD are answered.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from mdchunk.outputs.twins import LLMS_TXT
from mdchunk.serve.negotiation import Answer, Redirect, answer, index_links, prefers_markdown

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The path the MCP server answers at, and below.
MCP_PATH = "/mcp"


def site_app(site: Path, mcp: App | None = None) -> App:
    """The ASGI app serving the built site in `site` (and `mcp` at `/mcp`, where given)."""
    root = Path(os.path.realpath(site))
    files = _file_app(root)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if mcp is not None and (scope["type"] == "lifespan" or _is_mcp(scope["path"])):
            await mcp(scope, receive, send)
        elif scope["type"] == "http":
            await files(scope, receive, send)
        elif scope["type"] == "lifespan":
            await _lifespan(receive, send)

    return app


def _is_mcp(path: str) -> bool:
    return path == MCP_PATH or path.startswith(MCP_PATH + "/")


def _file_app(root: Path) -> App:
    """The ASGI app answering with the files of the site folder `root` (resolved)."""
    from starlette.requests import Request
    from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response

    llms = (root / LLMS_TXT).is_file()

    async def files(scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        response: Response
        if request.method not in ("GET", "HEAD"):
            response = PlainTextResponse("405 method not allowed\n", status_code=405,
                                         headers={"Allow": "GET, HEAD"})
        else:
            found = answer(root, request.url.path,
                           markdown=prefers_markdown(request.headers.get("accept")))
            if isinstance(found, Redirect):
                query = request.url.query
                response = RedirectResponse(found.location + (f"?{query}" if query else ""),
                                            status_code=301)
            elif isinstance(found, Answer):
                response = FileResponse(found.file, media_type=found.media_type,
                                        headers=_headers(found, llms))
            else:
                response = _not_found(root, llms)
        await response(scope, receive, send)

    return files


def _headers(found: Answer, llms: bool) -> dict[str, str]:
    """The headers of a file answer besides those of the file itself."""
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if llms:
        headers["Link"] = ", ".join(index_links(found.twin))
        headers["X-Llms-Txt"] = "/" + LLMS_TXT
    elif found.twin is not None:
        headers["Link"] = index_links(found.twin)[1]
    if found.negotiated:
        headers["Vary"] = "Accept"
        if found.media_type.startswith("text/markdown"):
            headers["Content-Location"] = found.twin or ""
    return headers


def _not_found(root: Path, llms: bool) -> Any:
    """A 404: the site's own `404.html` where it has one."""
    from starlette.responses import HTMLResponse, PlainTextResponse

    headers = {"Cache-Control": "no-cache"}
    if llms:
        headers["X-Llms-Txt"] = "/" + LLMS_TXT
    page = root / "404.html"
    if page.is_file():
        return HTMLResponse(page.read_bytes(), status_code=404, headers=headers)
    return PlainTextResponse("404 not found\n", status_code=404, headers=headers)


async def _lifespan(receive: Receive, send: Send) -> None:
    """Answer the server's start and stop when there is no MCP app to do it."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
