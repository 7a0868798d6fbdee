"""`mdchunk query` and `mdchunk mcp`: answers from a written index, to a person in the terminal
or to an AI assistant over MCP; `mdchunk embed`: the vectors the search ranks by too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from mdchunk.cli.flags import listen_flags
from mdchunk.search.kinds import KINDS
from mdchunk.search.ranking import MODES


@click.command()
@click.argument("index", type=click.Path(exists=True, path_type=Path))
@click.argument("question")
@click.option("-k", "--top", "k", default=5, show_default=True, type=click.IntRange(min=1),
              help="How many chunks to show.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--all-chunks", is_flag=True,
              help="Show every matching chunk, not only the best one of each section.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS),
              help="Only pages of this kind (repeat for several).")
@click.option("--language", help="Search the site's build in this language (a tag: fr, "
                                 "pt-BR), in a site built once per language: the folder's own, "
                                 "or its subfolder of that language (docs/languages.md).")
@click.option("--mode", type=click.Choice(MODES),
              default="auto", show_default=True,
              help="lexical (words, bm25), dense (the index's vectors), hybrid (both, fused); "
                   "auto: hybrid where the index has vectors and their model loads.")
@click.option("--version", "version",
              help="The version to search, in a tree of versions (mike's versions.json) or a "
                   "folder of version folders: its name or an alias (default: the alias "
                   "latest, else the newest version).")
def query(index: Path, question: str, *, k: int, as_json: bool, all_chunks: bool,
          kinds: tuple[str, ...], language: str | None, mode: str,
          version: str | None) -> None:
    """Search INDEX (a chunks.sqlite or chunks.jsonl, or the folder holding it) for QUESTION.

    Every word of the question is searched for (FTS5, bm25 ranking; matches in breadcrumbs
    and titles weigh more than in body text); where the index has vectors (`mdchunk embed`),
    the chunks nearest to the question too, the two rankings fused (docs/query.md). One hit
    per section, changelog, blog and index pages below guides and reference unless the
    question names a version or a date, and at most three sections of one page before every
    other page's first three (docs/ranking.md). A chunks.jsonl is indexed on the fly; for
    repeated searches, write chunks.sqlite at build time (`formats: [native, sqlite]`). INDEX
    may be the root of a tree of versions: --version chooses the one searched, and each hit
    says its version (docs/versions.md).
    """
    import sqlite3

    from mdchunk.errors import MdChunkError

    path = index
    try:
        path = _searchable(_build_folder(index, version), language)
        hits = _search(path, question, k, per_section=not all_chunks, kinds=kinds, mode=mode)
    except MdChunkError as error:
        raise click.ClickException(str(error)) from error
    except (sqlite3.Error, OSError, ValueError) as error:
        raise click.ClickException(
            f"{path}: cannot search: {error}; give a chunks.sqlite (formats: [native, sqlite]) "
            "or a native chunks.jsonl") from error
    if as_json:
        click.echo(json.dumps([hit.as_dict() for hit in hits], ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo("no match", err=True)
        return
    for rank, hit in enumerate(hits, start=1):
        of_version = f", version {hit.version}" if hit.version is not None else ""
        click.echo(f"{rank}. {hit.breadcrumb or hit.title}  (score {hit.score:.2f}{of_version})")
        click.echo(f"   {hit.url or '/'}")
        excerpt = " ".join(hit.text.split())
        click.echo(f"   {excerpt[:160]}{'...' if len(excerpt) > 160 else ''}")


def _build_folder(index: Path, version: str | None) -> Path:
    """The folder (or file) of the build to search: `index`, or in a tree of versions the
    folder of `version` (`mdchunk.search.versions`).

    Raises:
        MdChunkError: a version the tree does not have, or one named for an index file.
    """
    from mdchunk.errors import MdChunkError
    from mdchunk.search.versions import version_folder

    if not index.is_dir():
        if version is not None:
            raise MdChunkError(f"{index} is one index file: --version chooses among the "
                               "version folders of a tree; give the tree's root folder")
        return index
    return version_folder(index, version)


def _searchable(index: Path, language: str | None = None) -> Path:
    """The index file to search: `index`, or in a folder its chunks.sqlite, else chunks.jsonl;
    with a `language`, those of the folder of the build in that language.

    Raises:
        LanguageError: when the site has no build in `language`.
    """
    if language is not None:
        from mdchunk.search.languages import language_folder

        index = language_folder(index if index.is_dir() else index.parent, language)
    if not index.is_dir():
        return index
    sqlite = index / "chunks.sqlite"
    return sqlite if sqlite.is_file() or not (index / "chunks.jsonl").is_file() else (
        index / "chunks.jsonl")


def _search(path: Path, question: str, k: int, **options: Any) -> list[Any]:
    """`search` over an SQLite index, or over one made for the occasion from JSON records."""
    import tempfile

    from mdchunk.outputs.sqlite import SQLITE_SUFFIXES, read_index, write_sqlite
    from mdchunk.search import search

    if path.suffix in SQLITE_SUFFIXES:
        return search(path, question, k, **options)
    with tempfile.TemporaryDirectory(prefix="mdchunk-query-") as folder:
        database = Path(folder) / "chunks.sqlite"
        write_sqlite(database, read_index(path))
        return search(database, question, k, **options)


@click.command()
@click.argument("index", type=click.Path(exists=True, path_type=Path))
@click.option("--model", help="The embedding model: wordllama (the default, unless the index "
                              "has vectors of another), model2vec:NAME_OR_PATH, "
                              "sentence-transformers:NAME or fastembed:NAME.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of the embedding cache (default: "
                   "$XDG_CACHE_HOME/mdchunk/embeddings).")
@click.option("--no-cache", is_flag=True, help="Use and keep no embedding cache.")
def embed(index: Path, model: str | None, cache_dir: Path | None, no_cache: bool) -> None:
    """Store a vector of each chunk of INDEX (a chunks.sqlite, or the site folder holding
    it) in the index itself, for `mdchunk query` and `mdchunk mcp` to rank by.

    Each chunk's embedText is embedded; a text whose vector by the same model is in the index
    already, or in the embedding cache, is not embedded again. Needs pip install
    'mdchunk[search]' (wordllama) or 'mdchunk[embed]' (the other kinds).
    """
    from mdchunk.errors import MdChunkError
    from mdchunk.search.embedders import DEFAULT_MODEL
    from mdchunk.search.vectors import CACHE_FILE, EmbedCache, embed_index
    from mdchunk.settings import user_cache_folder

    path = index / "chunks.sqlite" if index.is_dir() else index
    folder = cache_dir or user_cache_folder("embeddings")
    cache = None if no_cache else EmbedCache(folder / CACHE_FILE)
    try:
        counts = embed_index(path, model or _index_model(path) or DEFAULT_MODEL, cache)
    except MdChunkError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"{path}: {counts.describe()}")


def _index_model(path: Path) -> str | None:
    """The model of the index's vectors, when it has some."""
    import sqlite3

    from mdchunk.outputs.sqlite import connect
    from mdchunk.search.vectors import META_MODEL

    try:
        connection = connect(path)
        try:
            row = connection.execute("SELECT value FROM meta WHERE key = ?",
                                     (META_MODEL,)).fetchone()
        finally:
            connection.close()
    except (sqlite3.Error, OSError):
        return None  # (embed_index says what is wrong with the file)
    return str(row[0]) if row else None


@click.command("mcp")
@click.argument("site_or_index", type=click.Path(exists=True, path_type=Path))
@click.option("--http", is_flag=True,
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@listen_flags("the docs", when=" with --http")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the SQLite index made from chunks.jsonl goes when the site folder "
                   "cannot be written (default: $XDG_CACHE_HOME/mdchunk/mcp).")
def mcp_command(site_or_index: Path, http: bool, host: str, port: int,
                cache_dir: Path | None) -> None:
    """Serve a built site's chunk index to AI assistants over MCP (stdio by default).

    SITE_OR_INDEX is the built site folder (holding chunks.jsonl and the pages' Markdown), its
    chunks.jsonl or a chunks.sqlite. Tools: search_docs, read_section, read_sections,
    read_page, list_sections. Without chunks.sqlite (formats: [native]) the SQLite index is
    made from chunks.jsonl, beside it. Needs pip install 'mdchunk[mcp]'.
    """
    try:
        from mdchunk.mcp import DocsError, serve
    except ImportError as error:
        raise click.ClickException(f"the MCP SDK is not installed ({error}): "
                                   "pip install 'mdchunk[mcp]'") from error
    try:
        serve(site_or_index, http=http, host=host, port=port, cache_dir=cache_dir,
              say=lambda line: click.echo(line, err=True))
    except DocsError as error:
        raise click.ClickException(str(error)) from error
