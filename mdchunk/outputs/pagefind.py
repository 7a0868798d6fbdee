"""The `pagefind` output: a Pagefind search bundle with one record per section, in the site.

Pagefind indexes pages; mdchunk gives it sections. The records (`mdchunk.profiles.pagefind`,
made where each page is chunked) are fed at the end of the build to Pagefind's Python API
(`pip install 'mdchunk[pagefind]'`, which brings Pagefind's binary as a wheel), which indexes
them and hands back the bundle's files: its index, `pagefind.js` (the search API) and
`pagefind-ui.js` / `.css` (its search UI).

- **Atomic.** Pagefind hands the bundle's files over, and mdchunk writes them into a
  temporary folder beside the target, then swaps it in (`replace_folder`): a failed Pagefind
  run leaves the previous bundle in place.
- **Checked at startup.** `require_pagefind` imports the package and runs the binary's
  `--version` once per process, so that a missing package or a binary that cannot run stops a
  build before any page is chunked, naming the extra to install.
- **Inside the site.** The bundle's folder (`pagefind` by default) is a path inside the site,
  and a folder that holds anything but a Pagefind bundle (a theme's `assets/`) is never
  replaced.
- **A search page.** `write_search_page` writes `_mdchunk/search.html`: Pagefind's own UI over
  the bundle, for sites without a search of their own (or whose search finds pages, not
  sections); `?q=words` opens it with a search.
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import itertools
import subprocess
from collections.abc import Coroutine, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from mdchunk.errors import PagefindError
from mdchunk.outputs.writers import replace_folder, write_text
from mdchunk.profiles.base import Record
from mdchunk.profiles.pagefind import UNKNOWN_LANGUAGE
from mdchunk.settings import SEARCH_PAGE, PagefindSettings

EXTRA = "mdchunk[pagefind]"
"""What to install for this output."""
BUNDLE_ENTRY = "pagefind-entry.json"
"""The file every Pagefind bundle holds: a folder without it is no bundle."""
RECORDS_PER_BATCH = 512
"""Records sent to Pagefind before waiting for its answers (bounds what waits in memory)."""

_T = TypeVar("_T")


def pagefind_needed(formats: Sequence[str]) -> None:
    """Check that Pagefind can run when `formats` selects it (see `require_pagefind`)."""
    if "pagefind" in formats:
        require_pagefind()


def require_pagefind() -> Path:
    """Pagefind's binary, once its `--version` ran (checked once per process and binary).

    Raises:
        PagefindError: the package is not installed, it finds no binary, or the binary
            cannot run; the message names the extra to install.
    """
    try:
        from pagefind.service import get_executable
    except ImportError as error:
        raise PagefindError(f"the pagefind format needs Pagefind's Python package, which is "
                            f"not installed ({error}): pip install '{EXTRA}'") from error
    binary = get_executable()
    if binary is None:
        raise PagefindError(
            "the pagefind format needs Pagefind's binary, which the pagefind package cannot "
            f"find (no pagefind_bin package, no pagefind on PATH): pip install '{EXTRA}' "
            "installs it, or set PAGEFIND_BINARY_PATH")
    return _checked_binary(str(binary))


@functools.lru_cache(maxsize=8)
def _checked_binary(binary: str) -> Path:
    """`binary`, once `binary --version` succeeded."""
    try:
        subprocess.run([binary, "--version"], capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise PagefindError(
            f"Pagefind's binary {binary} cannot run ({_reason(error)}): pip install '{EXTRA}' "
            "installs one for this machine, or set PAGEFIND_BINARY_PATH to one that runs"
        ) from error
    return Path(binary)


def _reason(error: BaseException) -> str:
    """What went wrong, in one line (with the program's own words when it said any)."""
    said = getattr(error, "stderr", None) or getattr(error, "stdout", None) or b""
    text = said.decode(errors="replace").strip() if isinstance(said, bytes) else str(said)
    return f"{error}: {text.splitlines()[-1]}" if text else str(error)


# -- the bundle -------------------------------------------------------------------------------


def write_bundle(folder: Path, records: Iterable[Record]) -> int:
    """Index `records` (`mdchunk.profiles.pagefind`) with Pagefind and put the bundle in
    `folder`, atomically; return the number of records.

    Pagefind hands the bundle's files over (`get_files`) and mdchunk writes them: the
    service's own `write_files` answers before its last writes reach the disk, so that a
    bundle it wrote, its binary stopped at once, may hold empty files.

    Raises:
        PagefindError: Pagefind cannot run or failed, or `folder` holds something else than a
            Pagefind bundle (left as it is in each case).
    """
    require_pagefind()
    check_replaceable(folder)
    files, indexed = run_coroutine(_bundle_files(records))
    replace_folder(folder, files)
    return indexed


def check_replaceable(folder: Path) -> None:
    """Raise `PagefindError` when `folder` exists and holds files but no Pagefind bundle: a
    folder of the site that the `pagefind_output` option names by mistake."""
    if folder.is_dir() and any(folder.iterdir()) and not (folder / BUNDLE_ENTRY).is_file():
        raise PagefindError(
            f"{folder} holds files that are not a Pagefind bundle, and the bundle would "
            "replace them: set pagefind_output to a folder of its own")
    if folder.exists() and not folder.is_dir():
        raise PagefindError(f"{folder} is a file, not a folder for the Pagefind bundle")


async def _bundle_files(records: Iterable[Record]) -> tuple[dict[str, bytes], int]:
    """Feed `records` to a Pagefind service; return its bundle's files (path inside the
    bundle -> content) and the number of records."""
    import asyncio  # (here: a build without a Pagefind bundle does not load asyncio)

    from mdchunk.outputs.pagefind_service import ResponsiveService

    count = 0
    try:
        async with ResponsiveService() as service:
            index = await service.create_index({})
            iterator = iter(records)
            while batch := list(itertools.islice(iterator, RECORDS_PER_BATCH)):
                await asyncio.gather(*(index.add_custom_record(**record) for record in batch))
                count += len(batch)
            files = {_inside_bundle(file["path"]): file["content"]
                     for file in await index.get_files()}
    except PagefindError:
        raise
    except Exception as error:  # the service raises bare Exceptions
        raise PagefindError(f"Pagefind could not make the search bundle: {error}") from error
    if BUNDLE_ENTRY not in files:
        raise PagefindError(f"Pagefind made no search bundle (no {BUNDLE_ENTRY})")
    return files, count


def _inside_bundle(path: object) -> str:
    """A file's path as Pagefind gives it, once it is known to stay inside the bundle."""
    parts = PurePosixPath(str(path).replace("\\", "/")).parts
    if not parts or parts[0] == "/" or any(part in ("", ".", "..") for part in parts):
        raise PagefindError(f"Pagefind gave a file outside its bundle: {path!r}")
    return "/".join(parts)


def run_coroutine(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run `coroutine` to its end from synchronous code: here, or in a thread of its own when
    this thread already runs an event loop."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# -- the search page --------------------------------------------------------------------------


def write_search_page(site_dir: Path, settings: PagefindSettings, *,
                      language: str | None = None) -> Path:
    """Write the search page (`SEARCH_PAGE`) into `site_dir`, atomically; return its path."""
    path = site_dir.joinpath(*PurePosixPath(SEARCH_PAGE).parts)
    write_text(path, search_page_html(settings, language=language), durable=False)
    return path


def search_page_html(settings: PagefindSettings, *, language: str | None = None) -> str:
    """The search page: Pagefind's UI, loaded from the bundle, with links relative to the
    page, so that it works wherever the site is served from."""
    depth = len(PurePosixPath(SEARCH_PAGE).parts) - 1
    root = "../" * depth
    bundle = html.escape(f"{root}{settings.folder}/")
    name = html.escape(settings.site_name)
    lang = f' lang="{html.escape(language)}"' if language and language != UNKNOWN_LANGUAGE \
        else ""
    return _SEARCH_PAGE.format(lang=lang, title=f"Search · {name}" if name else "Search",
                               name=name or "Home", bundle=bundle, root=html.escape(root))


_SEARCH_PAGE = """\
<!DOCTYPE html>
<html{lang}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="generator" content="mdchunk">
<title>{title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{bundle}pagefind-ui.css">
<style>
  body {{ max-width: 50rem; margin: 2rem auto; padding: 0 1rem; font-family: system-ui,
         sans-serif; }}
  header a {{ color: inherit; }}
</style>
<script src="{bundle}pagefind-ui.js"></script>
</head>
<body>
<header><a href="{root}">{name}</a></header>
<main>
<h1>Search</h1>
<div id="search" data-bundle="{bundle}" data-site-root="{root}"></div>
</main>
<script>
  window.addEventListener("DOMContentLoaded", function () {{
    var element = document.getElementById("search");
    var here = window.location.href;
    var ui = new PagefindUI({{
      element: element,
      bundlePath: new URL(element.dataset.bundle, here).pathname,
      baseUrl: new URL(element.dataset.siteRoot || "./", here).pathname,
      showSubResults: false,
      showImages: false,
      autofocus: true
    }});
    var query = new URLSearchParams(window.location.search).get("q");
    if (query) {{ ui.triggerSearch(query); }}
  }});
</script>
</body>
</html>
"""
