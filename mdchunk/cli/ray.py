"""`mdchunk ray`: many built sites chunked on a Ray cluster (`mdchunk.ray.run.run_sites`), with
the settings of `mdchunk site` (its flags and `--config` file)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from mdchunk.chunking.tokens import COUNTERS
from mdchunk.cli.build import CommandSettings, click_error, command_settings, flag_settings
from mdchunk.cli.config_file import options_of_file
from mdchunk.cli.flags import chunking_flags, llms_flags
from mdchunk.errors import MdChunkError

RAY_MISSING = "mdchunk ray needs Ray Data: pip install 'mdchunk[ray]'"


@click.command("ray")
@click.option("--sites", "sites_file", required=True, metavar="LIST",
              type=click.File("r", encoding="utf-8"),
              help="A text file (- for stdin) with one built site a line: its folder, or the "
                   "url of one that fsspec opens (s3://bucket/docs/beacon); a tab, then a "
                   "prefix for its ids, may follow (default: the folder's name). Blank lines "
                   "and lines starting with # are skipped.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder of the outputs (sites/NAME/, records/NAME.*, state.json), "
                   "replaced whole when the run ends; a later run with the same folder "
                   "chunks only the sites that changed.")
@click.option("--address", metavar="ADDRESS",
              help="The Ray cluster to run on (ray://head:10001, auto); default: RAY_ADDRESS, "
                   "else a local Ray instance on this machine's cores.")
@click.option("--records", "records_format", type=click.Choice(["parquet", "jsonl"]),
              default="parquet", show_default=True, help="The format of each site's records.")
@click.option("--content-selector", metavar="CSS",
              help="CSS selector of the page content, for a theme mdchunk does not know.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
              help="YAML file with the MkDocs plugin's option names, as for mdchunk site; "
                   "flags win over it.")
@click.option("--tokenizer", type=click.Choice(["auto", *COUNTERS]), default=None,
              help="Token counter, as for mdchunk site (all give tiktoken's counts).")
@chunking_flags
@llms_flags
def ray_command(sites_file: Any, out: Path, *, address: str | None, records_format: str,
                content_selector: str | None, config_file: Path | None, tokenizer: str | None,
                **flags: Any) -> None:
    """Chunk many built sites on Ray into OUT: each site's records and the outputs `mdchunk
    site` writes into it (llms.txt, llms-full, the pages' Markdown, the index), as `mdchunk
    site` would with the same flags (docs/ray.md)."""
    settings = CommandSettings()
    try:
        if config_file is not None:
            settings.update(options_of_file(config_file, "site"), f"'--config' ({config_file})")
        settings.update(flag_settings((), flags, jobs=1, tokenizer=tokenizer))
        build = command_settings(settings.values, "site")
    except (MdChunkError, OSError) as error:
        raise click_error(error, settings.origins) from error
    sites = _listed_sites(sites_file)
    try:
        import ray

        from mdchunk.ray.run import run_sites
    except ImportError as error:
        raise click.ClickException(RAY_MISSING) from error
    try:
        if not ray.is_initialized():
            ray.init(**_ray_options(address))
        summary = run_sites(sites, build, out, records_format=records_format,
                            content_selector=content_selector,
                            say=lambda line: click.echo(line, err=True))
    except (MdChunkError, OSError) as error:
        raise click.ClickException(_message(error)) from error
    click.echo(summary.describe())
    click.echo(f"outputs: {out}")


def _ray_options(address: str | None) -> dict[str, Any]:
    """What `ray.init` is given: the cluster of `--address` (else `RAY_ADDRESS`'s), or a local
    instance on this machine's cores without the dashboard, which a run that ends with the
    command does not use and which would take CPU from the workers; `SOURCE_DATE_EPOCH`
    handed to the workers where it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    options: dict[str, Any] = {"address": address, "runtime_env": {
        "env_vars": {"SOURCE_DATE_EPOCH": epoch}} if epoch else None}
    if address is None and not os.environ.get("RAY_ADDRESS"):
        options["include_dashboard"] = False
    return options


def _listed_sites(lines: Any) -> list[Any]:
    """The sites of a `--sites` file: `RaySite`s of its lines (`PATH` or `PATH<TAB>PREFIX`)."""
    from mdchunk.ray.sites import RaySite, is_url

    sites = []
    for line in lines:
        text = line.rstrip("\r\n")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        path, _, prefix = text.partition("\t")
        path = path.strip()
        sites.append(RaySite(path if is_url(path) else Path(path), prefix.strip() or None))
    if not sites:
        raise click.BadParameter("lists no site", param_hint="'--sites'")
    return sites


def _message(error: BaseException) -> str:
    """What a failed run says: the message of the error mdchunk raised, where Ray wrapped it
    in the error of the task that raised it."""
    found: BaseException | None = error
    while found is not None:
        if isinstance(found, MdChunkError) and not type(found).__module__.startswith("ray"):
            return str(found)
        found = found.__cause__
    return str(error)

