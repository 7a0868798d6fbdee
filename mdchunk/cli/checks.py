"""`mdchunk stats`, `mdchunk validate` and `mdchunk diff`: a written index described, checked
against its profile, or compared with an older one (the work is in `mdchunk.tools`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mdchunk.cli.flags import index_file, read_records
from mdchunk.errors import MdChunkError


@click.command()
@click.argument("index", type=click.Path(exists=True, path_type=Path))
def stats(index: Path) -> None:
    """Pages, chunks, a token histogram, oversize and small chunks of INDEX.

    INDEX is a native chunks.jsonl or a chunks.sqlite (or a folder holding chunks.jsonl).
    """
    from mdchunk.tools.stats import render_stats

    path = index_file(index, "chunks.jsonl")
    records = read_records(path)
    click.echo(render_stats(records))


@click.command()
@click.argument("index", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--profile", help="The index's format (default: from the file name).")
@click.option("--tokens", "check_tokens", is_flag=True,
              help="Also check that every token count is exact (native).")
@click.option("--pages", "pages_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the pages' .md files (default: the index's folder).")
def validate(index: Path, profile: str | None, check_tokens: bool, pages_dir: Path | None
             ) -> None:
    """Check INDEX against its profile's schema and the invariants.

    Native indexes: required fields, unique ids, prev/next chains, chunkNumber/totalChunks,
    sha256, and offsets against the pages' .md files when they sit beside the index. Exits
    with status 1 and one line per problem when anything is wrong.
    """
    from mdchunk.outputs.profiles import PROFILES
    from mdchunk.tools.validate import infer_profile, validate_records

    name = profile or infer_profile(index)
    if name not in PROFILES:
        raise click.BadParameter(f"unknown profile {name!r}; known: {', '.join(PROFILES)}",
                                 param_hint="'--profile'")
    records = read_records(index)
    counter = None
    if check_tokens:
        # tiktoken itself, the reference, even where a fast counter counted while chunking.
        from mdchunk.chunking.tokens import tiktoken_counter

        options = ((records[0].get("metadata") or {}).get("chunkingOptions") or {}
                   if records and isinstance(records[0], dict) else {})
        try:
            counter = tiktoken_counter(str(options.get("encoding") or "cl100k_base"))
        except MdChunkError as error:
            raise click.ClickException(str(error)) from error
    problems = validate_records(records, name, markdown_dir=pages_dir or index.parent,
                                counter=counter)
    for problem in problems:
        click.echo(str(problem))
    if problems:
        click.echo(f"{index}: {len(problems)} problem(s) in {len(records)} records "
                   f"(profile {name})", err=True)
        sys.exit(1)
    click.echo(f"{index}: {len(records)} records, valid ({name})", err=True)


@click.command()
@click.argument("old", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def diff(old: Path, new: Path, as_json: bool) -> None:
    """Added, changed and removed chunks from OLD to NEW (native indexes).

    Chunks are matched by page, section anchor path and ordinal within the section, so a
    section that did not change keeps its key when others move; changed means the SHA-256
    of its text differs.
    """
    from mdchunk.tools.diff import diff_indexes

    result = diff_indexes(read_records(old), read_records(new))
    if as_json:
        click.echo(json.dumps(result.as_dict(), ensure_ascii=False, indent=2))
        return
    for mark, entries in (("+", result.added), ("~", result.changed), ("-", result.removed)):
        for entry in entries:
            click.echo(f"{mark} {entry.id}  {entry.url or '/'}  [{entry.key}]")
    click.echo(f"{len(result.added)} added, {len(result.changed)} changed, "
               f"{len(result.removed)} removed, {result.unchanged} unchanged "
               f"({len(result.moved)} with a new id)", err=True)
