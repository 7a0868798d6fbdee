"""`mdchunk sync chroma`: a vector store kept equal to a written index (`mdchunk.tools.chroma`)."""

from __future__ import annotations

from pathlib import Path

import click

from mdchunk.cli.flags import read_records


@click.group()
def sync() -> None:
    """Keep a vector store in step with a chunk index."""


@sync.command("chroma")
@click.argument("index", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--path", "store", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the persistent Chroma database.")
@click.option("--collection", required=True, help="Collection name (3-512 chars).")
@click.option("--model", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Local sentence-transformers model folder (nothing is downloaded).")
@click.option("--no-embedding", is_flag=True,
              help="Use the vectors the records carry in an 'embedding' field.")
def sync_chroma_command(index: Path, store: Path, collection: str, model: Path | None,
                        no_embedding: bool) -> None:
    """Upsert INDEX's chunks into a local Chroma collection and delete those gone.

    Only new chunks and chunks whose text changed (sha256) are embedded. Needs
    pip install 'mdchunk[chroma]'.
    """
    from mdchunk.tools.chroma import (
        ChromaError,
        open_collection,
        sentence_transformers_embedder,
        sync_chroma,
    )

    if (model is None) == (not no_embedding):
        raise click.UsageError("give exactly one of --model PATH and --no-embedding")
    try:
        embed = sentence_transformers_embedder(model) if model is not None else None
        target = open_collection(store, collection)
        report = sync_chroma(read_records(index), target, embed)
    except ChromaError as error:
        raise click.ClickException(str(error)) from error
    except Exception as error:
        raise click.ClickException(f"chroma: {error}") from error
    click.echo(f"{report.embedded} embedded, {report.updated} metadata updated, "
               f"{report.deleted} deleted, {report.unchanged} unchanged; {report.total} chunks "
               f"in {collection}", err=True)
