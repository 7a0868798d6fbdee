"""The `mdchunk` command: chunk Markdown without a site build, search, inspect and sync indexes.

`main` is a click group of the commands, one module per kind: `build.py` (`chunk`, `site`),
`search.py` (`query`, `embed`, `mcp`), `serve.py` (`serve`), `checks.py` (`stats`, `validate`,
`diff`), `sync.py` (`sync chroma`), `ray.py` (`ray`). A new command is a `@click.command()`
function listed in `main`'s commands; the modules it needs are imported inside it, so that
`mdchunk --help` stays fast.
"""

from __future__ import annotations

import click

from mdchunk._version import __version__
from mdchunk.cli.build import chunk, site
from mdchunk.cli.checks import diff, stats, validate
from mdchunk.cli.ray import ray_command
from mdchunk.cli.search import embed, mcp_command, query
from mdchunk.cli.serve import serve
from mdchunk.cli.sync import sync


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             commands=[chunk, site, query, embed, mcp_command, serve, stats, validate, diff,
                       sync, ray_command])
@click.version_option(__version__, "--version", prog_name="mdchunk")
def main() -> None:
    """Chunk documentation into RAG-ready chunks, search and check chunk indexes."""

