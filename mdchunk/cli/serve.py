"""`mdchunk serve`: a built site on this machine, as agents expect it from a docs host."""

from __future__ import annotations

from pathlib import Path

import click

from mdchunk.cli.flags import listen_flags


@click.command("serve")
@click.argument("site", type=click.Path(path_type=Path))
@listen_flags("the site and its MCP server")
@click.option("--no-mcp", is_flag=True, help="Serve the files only, no MCP server at /mcp.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the MCP server's SQLite index goes when the site folder cannot be "
                   "written (default: $XDG_CACHE_HOME/mdchunk/mcp).")
def serve(site: Path, host: str, port: int, no_mcp: bool, cache_dir: Path | None) -> None:
    """Serve the built site in SITE at http://HOST:PORT/ for agents and previews.

    Every page answers with its Markdown twin to a request that prefers text/markdown (with
    Vary: Accept), every answer names /llms.txt (Link and X-Llms-Txt headers), and the MCP
    server answers at /mcp on the same port. Nothing outside SITE is served. For local use and
    previews; docs/serve.md has the same answers for production hosts. Needs
    pip install 'mdchunk[serve]'.
    """
    from mdchunk.serve import ServeError, serve_site

    try:
        serve_site(site, host=host, port=port, mcp=not no_mcp, cache_dir=cache_dir,
                   say=lambda line: click.echo(line, err=True))
    except ServeError as error:
        raise click.ClickException(str(error)) from error
