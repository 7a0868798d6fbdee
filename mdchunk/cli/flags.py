"""Flags that several commands share, and reading a written index for a command.

`chunking_flags` gives `chunk` and `site` every chunking and output option, `llms_flags` gives
`site` the agent outputs' options, `jobs_flags` both their worker and counter choice. Each flag
is named as the option (`--max-tokens` for `max_tokens`) so that a `--config` file and the flags
set the same settings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from mdchunk.settings import DUPLICATE_MODES

_CHUNKING_FLAGS = (
    click.option("--max-tokens", type=int, help="Largest chunk in tokens (512)."),
    click.option("--min-tokens", type=int, help="Chunks under this merge with a neighbour (50)."),
    click.option("--split-level", type=int,
                 help="Headings at or above this level start a chunk (3)."),
    click.option("--overlap-tokens", type=int, help="Context shared with neighbours (0)."),
    click.option("--overlap-mode", type=click.Choice(["metadata", "text"]),
                 help="Where overlap goes (metadata)."),
    click.option("--encoding", help="tiktoken encoding of every token count (cl100k_base)."),
    click.option("--embed-template", help="Template of embedText ('{context}\\n\\n{text}')."),
    click.option("--embed-links", type=click.Choice(["text", "markdown"]),
                 help="Links in embedText: as their text, or as Markdown links (text)."),
    click.option("--max-tokens-bounds", type=click.Choice(["embedText", "originalText"]),
                 help="The text max_tokens bounds (embedText: the context line counts)."),
    click.option("--preset", help="code-heavy, structured, minimal or adr."),
    click.option("--adaptive-base-size", type=int, help="Turn on adaptive sizing with this base."),
    click.option("--adaptive-min-scale", type=float,
                 help="Adaptive sizing: smallest scale (0.5)."),
    click.option("--adaptive-max-scale", type=float,
                 help="Adaptive sizing: largest scale (1.5)."),
    click.option("--output", "output_name", help="File name of the native index (chunks.jsonl)."),
    click.option("--exclude", multiple=True, metavar="GLOB",
                 help="Leave out pages whose path matches this glob (repeatable)."),
    click.option("--site-url", help="The site's url: absoluteUrl and absolute links."),
    click.option("--version", help="The version of the docs (1.0): in every record, at the head "
                                   "of every id, and its folder under the site url "
                                   "(default: MIKE_DOCS_VERSION, else READTHEDOCS_VERSION)."),
    click.option("--markdown/--no-markdown", "write_markdown", default=None,
                 help="Write each page's Markdown beside its HTML (default on)."),
    click.option("--pagefind-output", metavar="DIR",
                 help="Folder of the Pagefind bundle (-f pagefind) in the site (pagefind)."),
    click.option("--pagefind-filter", "pagefind_filters", multiple=True, metavar="KEY",
                 help="A front matter key whose values become Pagefind filters, besides tags "
                      "(repeatable)."),
    click.option("--pagefind-search-page/--no-pagefind-search-page", default=None,
                 help="Write _mdchunk/search.html: Pagefind's search UI over the sections."),
    click.option("--duplicates", type=click.Choice(DUPLICATE_MODES),
                 help="Duplicate chunks: marked in the native index (mark), also left out of "
                      "the embedding formats (drop), or not looked for (off)."),
)


_LLMS_FLAGS = (
    click.option("--llms-txt/--no-llms-txt", "llms_txt", default=None,
                 help="Write llms.txt, llms-full.txt and each page's Markdown twin at its url "
                      "with .md for its / or .html (default on)."),
    click.option("--llms-full/--no-llms-full", "llms_full", default=None,
                 help="Write llms-full.txt (default on)."),
    click.option("--llms-full-max-tokens", type=int, metavar="N",
                 help="Most tokens in one llms-full file (100000); a larger text is split along "
                      "the top-level sections."),
    click.option("--llms-optional", multiple=True, metavar="GLOB",
                 help="Pages whose path matches go under '## Optional' in llms.txt "
                      "(repeatable)."),
    click.option("--llms-directive/--no-llms-directive", "llms_directive", default=None,
                 help="Point to llms.txt from each page's Markdown and, hidden, from its HTML "
                      "(default on)."),
)


def llms_flags(command: Any) -> Any:
    """Add the agent outputs' options as flags (`site`)."""
    for option in reversed(_LLMS_FLAGS):
        command = option(command)
    return command


def jobs_flags(command: Any) -> Any:
    """Add `-j/--jobs` and `--tokenizer` (shared by `chunk` and `site`)."""
    from mdchunk.chunking.tokens import COUNTERS
    from mdchunk.session.workers import available_cores

    command = click.option(
        "--tokenizer", type=click.Choice(["auto", *COUNTERS]), default=None,
        help="Token counter (all give tiktoken's counts): rs-bpe by default where installed; "
             "fastokens is fastest on large jobs once loaded (about a second).")(command)
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=1), default=available_cores(), show_default=True,
        help="Processes that chunk pages (the output is the same for every number).")(command)


def listen_flags(what: str, *, when: str = "") -> Callable[[Any], Any]:
    """`--host` and `--port` of a command that serves `what` (shared by `mcp` and `serve`);
    `when` names the flag they need, if any."""
    def add(command: Any) -> Any:
        command = click.option(
            "--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
            help=f"Port to listen on{when}.")(command)
        return click.option(
            "--host", default="127.0.0.1", show_default=True,
            help=f"Address to listen on{when}. Any address but 127.0.0.1, ::1 or localhost "
                 f"exposes {what} to every machine that reaches it, with no "
                 "authentication.")(command)
    return add


def chunking_flags(command: Any) -> Any:
    """Add every chunking and output option as a flag (shared by `chunk` and `site`)."""
    for option in reversed(_CHUNKING_FLAGS):
        command = option(command)
    return command



def index_file(path: Path, name: str) -> Path:
    """`path` itself, or `name` inside it when it is a folder."""
    return path / name if path.is_dir() else path


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of the index at `path` (JSON Lines or SQLite); a click error naming the file
    when it cannot be read."""
    import sqlite3

    from mdchunk.outputs.sqlite import read_index

    try:
        return read_index(path)
    except (OSError, ValueError, sqlite3.Error) as error:
        raise click.ClickException(f"{path}: cannot read the index: {error}") from error
