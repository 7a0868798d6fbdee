"""What `mdchunk serve` answers for a request path: which file of the site, in which form.

The rules are those of a static host that negotiates, in pure functions (no server needed to
test them):

- a path names a file of the site folder and nothing outside it: a `..` segment (however it was
  encoded: the server sees the path decoded once), a NUL or a backslash in the path, a hidden
  name (`.git`, `.cache`; `.well-known` is served) and a symlink whose target is outside the
  folder are all refused, as a file that does not exist is;
- a folder answers with its `index.html`, and a folder's path without its trailing `/` is
  redirected to the path with it (relative links in the page resolve from there);
- an HTML page answers with its Markdown twin (`outputs.twins.twin_path`) when the request
  prefers `text/markdown` to `text/html` (`prefers_markdown`) and the twin exists.
"""

from __future__ import annotations

import dataclasses
import mimetypes
import os
from pathlib import Path

from mdchunk.outputs.twins import LLMS_TXT, twin_path

#: Media types the server names itself (Python's table lacks some, or names them otherwise).
_MEDIA_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".xml": "application/xml",
    ".sqlite": "application/vnd.sqlite3",
}
_HTML_SUFFIXES = (".html", ".htm")
_SERVED_HIDDEN = frozenset({".well-known"})


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """A file to send: `file` (inside the site folder), its media type, and for an HTML page
    the twin's url path (`twin`, or None where the page has none)."""

    file: Path
    media_type: str
    twin: str | None = None

    @property
    def negotiated(self) -> bool:
        """Whether the answer depends on the request's `Accept` (the page has a twin)."""
        return self.twin is not None


@dataclasses.dataclass(frozen=True, slots=True)
class Redirect:
    """A folder asked for without its trailing `/`: where to send the client."""

    location: str


def media_type(path: Path) -> str:
    """The `Content-Type` of a file, by its suffix."""
    suffix = path.suffix.lower()
    if suffix in _MEDIA_TYPES:
        return _MEDIA_TYPES[suffix]
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def inside(root: Path, path: str) -> Path | None:
    """The file or folder of the site folder `root` (resolved) that the decoded url `path`
    names, or None when it names none or one outside it."""
    if "\x00" in path or "\\" in path:
        return None
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if any(part == ".." or (part.startswith(".") and part not in _SERVED_HIDDEN)
           for part in parts):
        return None
    candidate = root.joinpath(*parts)
    try:
        real = Path(os.path.realpath(candidate))
    except (OSError, ValueError):
        return None
    if real != root and root not in real.parents:
        return None
    return real if real.exists() else None


def answer(root: Path, path: str, *, markdown: bool) -> Answer | Redirect | None:
    """What to send for the decoded url `path` of the site at `root` (resolved): the file, a
    redirect for a folder without its `/`, or None (not found). `markdown`: the request
    prefers Markdown to HTML."""
    found = inside(root, path)
    if found is None:
        return None
    if found.is_dir():
        if not path.endswith("/"):
            return Redirect(path + "/")
        found = found / "index.html"
        if not found.is_file():
            return None
    if found.suffix.lower() not in _HTML_SUFFIXES:
        return Answer(found, media_type(found))
    twin, twin_file = _twin(root, path)
    if twin_file is None:
        return Answer(found, media_type(found))
    if markdown:
        return Answer(twin_file, media_type(twin_file), twin=twin)
    return Answer(found, media_type(found), twin=twin)


def _twin(root: Path, path: str) -> tuple[str, Path | None]:
    """The url path of the twin of the page at `path`, and its file (None: there is none).
    A page asked for by its folder's `index.html` has the twin of the folder's url (MkDocs),
    unless a twin sits beside that file (Sphinx's `html` builder, whose urls end in `.html`)."""
    names = [twin_path(path)]
    if path.endswith("/index.html"):
        names.append(twin_path(path[:-len("index.html")]))
    for name in names:
        found = inside(root, name)
        if found is not None and found.is_file():
            return "/" + name, found
    return "", None


def prefers_markdown(accept: str | None) -> bool:
    """Whether an `Accept` header prefers `text/markdown` to `text/html`.

    Each type takes the quality of the most specific range that matches it (`text/markdown`,
    then `text/*`, then `*/*`). Markdown wins when its quality is higher, or equal and named
    outright while HTML is only reached by a wildcard; HTML wins every other tie, and with no
    header at all.
    """
    if not accept:
        return False
    ranges = _media_ranges(accept)
    markdown, named = _quality(ranges, "text", "markdown")
    html, html_named = _quality(ranges, "text", "html")
    if markdown <= 0:
        return False
    return markdown > html or (markdown == html and named and not html_named)


def _media_ranges(accept: str) -> dict[str, float]:
    """The media ranges of an `Accept` header and their qualities (1 where none is given, 0
    where it is not a number)."""
    ranges: dict[str, float] = {}
    for item in accept.split(","):
        name, *parameters = (part.strip() for part in item.split(";"))
        if not name:
            continue
        quality = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    quality = 0.0
        ranges[name.lower()] = max(quality, ranges.get(name.lower(), 0.0))
    return ranges


def _quality(ranges: dict[str, float], kind: str, subtype: str) -> tuple[float, bool]:
    """The quality `ranges` give `kind/subtype`, and whether it was named outright."""
    for name, named in ((f"{kind}/{subtype}", True), (f"{kind}/*", False), ("*/*", False)):
        if name in ranges:
            return ranges[name], named
    return 0.0, False


def index_links(twin: str | None) -> list[str]:
    """The `Link` header values of an answer: the site's `llms.txt`, and a page's twin."""
    links = [f'</{LLMS_TXT}>; rel="llms-txt"; type="text/plain"']
    if twin is not None:
        links.append(f'<{twin}>; rel="alternate"; type="text/markdown"')
    return links
