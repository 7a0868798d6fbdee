"""The chunk inspector: a static page, written next to the site, that shows how pages were cut.

`write_inspector` writes `index.html`, its stylesheet and script (from `inspector_assets/`) and
`data.js`, which assigns the site's chunks to `window.MDCHUNK_INSPECTOR`. A script rather than
JSON, so that the page works from `file://`, where browsers refuse to `fetch()` local files.

The data holds each page's Markdown once; a chunk carries its native record without the text it
shares with the page (`originalText`, and the text part of `embedText`), plus its span in the
page Markdown in UTF-16 code units (what JavaScript strings index), so the page rebuilds the
full record with one slice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from mdchunk.errors import MdChunkError
from mdchunk.outputs.writers import replace_folder

if TYPE_CHECKING:
    from mdchunk.chunking.chunk import Chunk, PageChunks

#: Version of the layout of `data.js`; bumped when a field changes meaning or name.
DATA_VERSION = 1
#: The global that `data.js` assigns.
DATA_GLOBAL = "MDCHUNK_INSPECTOR"
#: Files copied as they are from `mdchunk/outputs/inspector_assets/`.
ASSETS = ("index.html", "inspector.css", "inspector.js")

# Characters that must not appear raw in a script: `</script>`, `<!--`, HTML entities (for an
# inline copy), and the two line terminators that older JavaScript forbids inside strings.
_SCRIPT_ESCAPES = str.maketrans({
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
})


def write_inspector(site_dir: Path, pages: Sequence[PageChunks | Mapping[str, Any]], *,
                    max_tokens: int, folder: str = "_mdchunk") -> Path:
    """Write the inspector into `site_dir / folder`, replacing that folder atomically.

    Arguments:
        site_dir: The built site.
        pages: The chunked pages, in the order the page list shows them (or their
            `page_data`, computed where the pages were chunked, e.g. in Sphinx workers).
        max_tokens: The configured token budget (the histogram's limit line).
        folder: The inspector's folder, relative to `site_dir` (`/`-separated, no `..`).

    Returns:
        The path of the inspector's `index.html`.

    Raises:
        MdChunkError: `folder` is not a folder inside the site.
    """
    parts = PurePosixPath(folder).parts
    if not parts or folder.startswith("/") or "\\" in folder or any(
        part in ("", ".", "..") for part in parts
    ):
        raise MdChunkError(f"inspector folder {folder!r}: must be a folder inside the site")
    files: dict[str, str | bytes] = {name: _asset(name) for name in ASSETS}
    files["data.js"] = data_script(inspector_data(pages, max_tokens=max_tokens,
                                                  site_root="../" * len(parts)))
    target = site_dir.joinpath(*parts)
    replace_folder(target, {name: content if isinstance(content, bytes) else
                            content.encode("utf-8", "replace") for name, content in files.items()})
    return target / "index.html"


def inspector_data(pages: Sequence[PageChunks | Mapping[str, Any]], *, max_tokens: int,
                   site_root: str = "../") -> dict[str, Any]:
    """The inspector's data: the pages with their Markdown, warnings and slimmed records.

    `site_root` is the site root relative to the inspector's folder; chunk links are
    `site_root + url`.
    """
    return {
        "version": DATA_VERSION,
        "maxTokens": max_tokens,
        "siteRoot": site_root,
        "pages": [page if isinstance(page, Mapping) else page_data(page) for page in pages],
    }


def data_script(data: Mapping[str, Any]) -> str:
    """`data` as a script that assigns it to the global, safe to inline in HTML."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"window.{DATA_GLOBAL} = {text.translate(_SCRIPT_ESCAPES)};\n"


def page_data(page: PageChunks) -> dict[str, Any]:
    """One page: its Markdown once, and per chunk its UTF-16 span and record minus its text."""
    markdown = page.markdown
    units = _utf16_units(markdown)
    return {
        "sourcePath": page.source_path,
        "url": page.url,
        "title": page.chunks[0].file_title if page.chunks else page.source_path,
        "markdown": markdown,
        "warnings": list(page.warnings),
        "chunks": [_chunk_data(chunk, units) for chunk in page.chunks],
    }


def _chunk_data(chunk: Chunk, units: list[int] | None) -> dict[str, Any]:
    """A chunk's span and record; `originalText` (and `embedText` when it ends with the text)
    are left null, to be rebuilt from the page Markdown."""
    record = chunk.as_native()
    record["originalText"] = None
    embed_prefix = None
    if chunk.text and chunk.embed_text.endswith(chunk.text):
        embed_prefix = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text)]
        record["embedText"] = None
    start, end = chunk.char_start, chunk.char_end
    if units is not None:
        start, end = units[start], units[end]
    return {"span": [start, end], "embedPrefix": embed_prefix, "record": record}


def _utf16_units(text: str) -> list[int] | None:
    """UTF-16 offset of each code point offset of `text` (None when they are all equal)."""
    if text.isascii() or all(ord(char) < 0x10000 for char in text):
        return None
    units = [0]
    for char in text:
        units.append(units[-1] + (2 if ord(char) >= 0x10000 else 1))
    return units


def _asset(name: str) -> bytes:
    return (resources.files("mdchunk.outputs") / "inspector_assets" / name).read_bytes()
