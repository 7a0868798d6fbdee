"""The MCP server: the five read-only tools over `Docs`, served over stdio or streamable HTTP.

The tools' arguments are declared to the client with their JSON types, but checked here
(`_integer`, `_text`, `_texts`) rather than by pydantic, so that a wrong type (a string for
`limit`, a list for `id_or_url`) is answered with one line saying what to give, as every other
bad argument is, not with a validation error's dump."""

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

from mdchunk._version import __version__
from mdchunk.mcp.answers import (
    OutlineAnswer,
    PageAnswer,
    SearchAnswer,
    SectionAnswer,
    SectionsAnswer,
)
from mdchunk.mcp.arguments import declared, integer, text, texts
from mdchunk.mcp.docs import (
    MAX_SEARCH_LIMIT,
    MAX_SECTIONS,
    PAGE_TOKENS,
    SEARCH_LIMIT,
    SEARCH_TOKENS,
    SECTION_TOKENS,
    SECTIONS_TOKENS,
    Docs,
    DocsError,
)
from mdchunk.mcp.index import describe, open_docs
from mdchunk.outputs.version_tree import DeployedVersion, default_version, described_versions

_T = TypeVar("_T")


class DocsSource(Protocol):
    """The Docs a tool's call is answered by (`LiveDocs`, `DocsTree`): those of `version`
    where one is named, else those `reference` (an id or url the call is given) belongs to;
    with a `language`, its build in that language."""

    @property
    def versions(self) -> tuple[DeployedVersion, ...]:
        """The versions served, newest first (none for a single build)."""

    def __call__(self, version: str | None = None, reference: str | None = None,
                 language: str | None = None) -> Docs: ...


class _Answer(Protocol):
    """What the tools ask `Docs` through: the answer of `ask` by the Docs of `version` or of
    `reference`, in `language` (`DocsSource`), a `DocsError` as a tool error."""

    def __call__(self, ask: Callable[[Docs], _T], *, version: object = None,
                 reference: object = None, language: object = None) -> _T: ...


_INSTRUCTIONS = """\
Documentation of {title}: {pages} pages, {chunks} chunks. Start with search_docs to find the \
sections that answer a question; read_section gives a whole section (pass the id or url of a \
result), read_sections several under one budget, parentId the section one heading up (to \
read more around a result), list_sections a page's outline, read_page a page's Markdown. \
Every id and url a tool returns is accepted by the others. max_tokens bounds the text \
returned (tokens: {encoding})."""


_VERSIONS = """ The documentation has several versions: {versions}. search_docs searches \
{default} unless given a version, and each result says its version; the other tools read the \
version of the id or url they are given."""


def _sdk() -> tuple[Any, type[Exception], int]:
    """The SDK's server class, its ToolError and its major version: `MCPServer` (mcp 2) or
    `FastMCP` (mcp 1.x), which take the same tool functions."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        return MCPServer, ToolError, 2
    except ImportError:
        from mcp.server.fastmcp import FastMCP  # type: ignore[attr-defined, unused-ignore]
        from mcp.server.fastmcp.exceptions import ToolError as FastToolError
        return FastMCP, FastToolError, 1


def _require_sdk() -> None:
    try:
        _sdk()
    except ImportError as error:
        raise DocsError(f"the MCP SDK is not installed ({error}): pip install "
                        "'mdchunk[mcp]'") from error


def build_server(docs: DocsSource, *, title: str = "this site",
                 host: str = "127.0.0.1", port: int = 8000) -> Any:
    """An MCP server with the five tools over `docs(...)` (called for each tool call).

    `host` and `port` are used by `run_server` with streamable HTTP; mcp 1.x takes them here.
    """
    server_class, tool_error, major = _sdk()
    current = docs()
    instructions = _INSTRUCTIONS.format(title=title, pages=len(current.pages),
                                        chunks=len(current.chunks),
                                        encoding=current.encoding)
    if docs.versions:
        instructions += _VERSIONS.format(versions=described_versions(docs.versions),
                                         default=default_version(docs.versions).version)
    settings: dict[str, Any] = {"name": "mdchunk", "instructions": instructions,
                                "log_level": "WARNING"}
    if major == 1:
        settings.update(host=host, port=port)
    else:
        settings["version"] = __version__
    server = server_class(**settings)
    _add_tools(server, docs, tool_error)
    return server


def _add_tools(server: Any, docs: DocsSource, tool_error: type[Exception]) -> None:
    """Register the tools on `server`, each read-only and described by its docstring on one
    line (the indentation of a docstring would cost the assistant tokens); a `DocsError` is
    the SDK's tool error, whose message the assistant reads."""
    from mcp.types import ToolAnnotations

    read_only = ToolAnnotations.model_validate(
        {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})

    def answer(ask: Callable[[Docs], _T], *, version: object = None,
               reference: object = None, language: object = None) -> _T:
        if isinstance(reference, list):
            reference = reference[0] if reference else None
        try:
            named = None if version is None else text(version, "version", "1.0")
            tag = None if language is None else text(language, "language", "fr")
            return ask(docs(named, reference if isinstance(reference, str) else None, tag))
        except DocsError as error:
            raise tool_error(str(error)) from None

    for function in _tools(answer):
        description = " ".join((function.__doc__ or "").split())
        server.tool(annotations=read_only, description=description)(function)


def _tools(answer: _Answer) -> list[Callable[..., Any]]:
    """The five tools, each asking `Docs` through `answer`."""
    reference = Annotated[Any, declared(_STRING, _REFERENCE)]
    most_tokens = Annotated[Any, declared(_INTEGER, "Most tokens of text to return.")]
    references = Annotated[Any, declared(_STRINGS, f"1 to {MAX_SECTIONS} of: {_REFERENCE}")]
    sections_tokens = Annotated[Any, declared(
        _INTEGER, "Most tokens of text in all sections together.")]
    language_tag = Annotated[Any, declared(_NULLABLE_STRING, _LANGUAGE)]

    def read_section(id_or_url: reference, max_tokens: most_tokens = SECTION_TOKENS,
                     language: language_tag = None) -> SectionAnswer:
        """Read one whole section of the documentation (all its chunks, in order, exactly as
        the page's Markdown has them) with its breadcrumb, its subsections' urls and parentId
        (the section one heading up). Give a search result's id or url (a page url reads the
        page's first section). A section longer than max_tokens is cut after its last chunk
        that fits (truncated: true; the chunks left out are in omittedChunkIds, sectionTokens
        is what the whole needs)."""
        return answer(lambda d: d.read_section(text(id_or_url, "id_or_url", _EXAMPLE,
                                                    several="read_sections"),
                                               max_tokens=integer(max_tokens, "max_tokens")),
                      reference=id_or_url, language=language)

    def read_sections(ids_or_urls: references, max_tokens: sections_tokens = SECTIONS_TOKENS,
                      language: language_tag = None) -> SectionsAnswer:
        """Read several whole sections at once (search results' ids, their parentIds, a
        page's outline entries), in the order given, under one budget: the sections' texts
        together stay within max_tokens; a section that does not fit what is left is not
        returned but listed in `omitted` with its tokens (read it with read_section)."""
        return answer(lambda d: d.read_sections(
            texts(ids_or_urls, "ids_or_urls", _EXAMPLE),
            max_tokens=integer(max_tokens, "max_tokens")), reference=ids_or_urls,
            language=language)

    def read_page(url: reference, max_tokens: most_tokens = PAGE_TOKENS,
                  language: language_tag = None) -> PageAnswer:
        """Read a whole page of the documentation as Markdown (any url or id on the page names
        it). A page longer than max_tokens is cut after its last section that fits (cut:
        'section boundary'), or after its last chunk that fits when not even the first section
        does ('chunk boundary'); `omitted` is the outline of the sections left out (read them
        with read_section), partlyOmitted the url of a section cut in the middle."""
        return answer(lambda d: d.read_page(_reference(url, "url"),
                                            max_tokens=integer(max_tokens, "max_tokens")),
                      reference=url, language=language)

    def list_sections(url: reference, language: language_tag = None) -> OutlineAnswer:
        """The outline of a page (any url or id on it names it): each section's title,
        breadcrumb, depth (1 for the page title), url#anchor, chunk id and token count (what
        read_section needs to return it whole), with the page's total tokens."""
        return answer(lambda d: d.list_sections(_reference(url, "url")), reference=url,
                      language=language)

    return [_search_tool(answer), read_section, read_sections, read_page, list_sections]


_REFERENCE = ("A chunk id (doc:guide/install::ch1), a page id (doc:guide/install) or a url: "
              "guide/install/#linux, /guide/install/, or the site's absolute url.")
_EXAMPLE = "guide/install/#linux"
_INTEGER: dict[str, Any] = {"type": "integer"}
_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}
_LANGUAGE = ("The language of the build to answer from (a tag: fr, pt-BR), for a site built once "
             "per language; pass the one a search result came from. Default: the site's own.")


def _reference(value: object, name: str) -> str:
    return text(value, name, _EXAMPLE)


def _search_tool(answer: _Answer) -> Callable[..., Any]:
    """The `search_docs` tool."""
    words = Annotated[Any, declared(_STRING, "What to look for, in words.")]
    limit_type = Annotated[Any, declared(
        _INTEGER, f"How many sections at most (1 to {MAX_SEARCH_LIMIT}).")]
    tokens = Annotated[Any, declared(_INTEGER, "Most tokens of text in all results together.")]
    language_tag = Annotated[Any, declared(_NULLABLE_STRING, _LANGUAGE)]
    version_type = Annotated[Any, declared(
        _STRING, "The version of the docs to search, by name or alias (1.0, latest); default: "
                 "latest, else the newest.")]

    def search_docs(query: words, limit: limit_type = SEARCH_LIMIT,
                    max_tokens: tokens = SEARCH_TOKENS, version: version_type = None,
                    language: language_tag = None) -> SearchAnswer:
        """Search the documentation: the sections that best match the query, best first, at
        most one result per section (a section is a page and an anchor). Each result has the
        section's url (page#anchor), breadcrumb, the text of its best-matching chunk and that
        text's token count; sectionChunks > 1 means read_section(id) has more; parentId is the
        section one heading up (null at the top of a page), to read more around it. The texts
        together stay within max_tokens: a result that does not fit what is left is not
        returned but listed in `omitted` with its tokens (read it with read_section). Where the
        docs have several versions, `version` chooses one and each result says its version."""
        return answer(lambda d: d.search(text(query, "query", "install on linux"),
                                         limit=integer(limit, "limit"),
                                         max_tokens=integer(max_tokens, "max_tokens")),
                      version=version, language=language)

    return search_docs


def run_server(server: Any, *, http: bool, host: str, port: int) -> None:
    """Serve over stdio, or streamable HTTP at http://HOST:PORT/mcp."""
    _, _, major = _sdk()
    if not http:
        server.run("stdio")
    elif major == 1:
        server.run("streamable-http")
    else:
        server.run("streamable-http", host=host, port=port)


def site_title(docs: Docs) -> str:
    """The home page's first heading (its nav title is often just "Home"), else its title,
    else the site folder's name."""
    home = docs.home_page()
    if home is None:
        return docs.site.name
    first = home.chunks[0]
    return (first.header_path[0] if first.header_path else "") or home.title


def serve(target: Path, *, http: bool = False, host: str = "127.0.0.1", port: int = 8000,
          cache_dir: Path | None = None, say: Callable[[str], None] | None = None) -> None:
    """Serve `target`'s index until the client hangs up (stdio) or the process is stopped.

    `say` prints a line for the person who started the server (stderr: stdout is the
    protocol's under stdio).

    Raises:
        DocsError: where the index cannot be found, read or made.
    """
    tell = say or (lambda line: print(line, file=sys.stderr))
    _require_sdk()
    live = open_docs(target, cache_dir)
    server = build_server(live, title=site_title(live.docs), host=host, port=port)
    where = f"{base_url(host, port)}/mcp" if http else "stdio"
    tell(f"mdchunk mcp: {describe(live)}; serving on {where}")
    if http and (warning := exposure_warning(host, "read these docs")) is not None:
        tell(f"mdchunk mcp: {warning}")
    run_server(server, http=http, host=host, port=port)


def base_url(host: str, port: int) -> str:
    """`http://HOST:PORT` of a server listening on `host` (an IPv6 address in brackets)."""
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def exposure_warning(host: str, what: str) -> str | None:
    """The warning for a server listening on `host` beyond this machine (None on a loopback
    address): anyone who reaches it can do `what`."""
    if host in ("localhost", "::1") or host.startswith("127."):
        return None
    return (f"warning: listening on {host}, not on this machine only: anyone who can reach it "
            f"can {what} (there is no authentication)")


def http_app(server: Any, *, host: str) -> Any:
    """The server's streamable HTTP ASGI app (its endpoint at `/mcp`), to be served by another
    app on the same port (`mdchunk serve`); it must receive that app's lifespan events."""
    _, _, major = _sdk()
    return server.streamable_http_app(host=host) if major == 2 else server.streamable_http_app()
