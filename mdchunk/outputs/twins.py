"""Where agents find a page's Markdown, and what points them there.

Each page has two Markdown files, both written from its HTML:

- its **Markdown twin**, for agents, at the page url with `.md` in place of a trailing `/`
  or `.html`: `guide/install/` -> `guide/install.md`, `install.html` -> `install.md`, the
  home page -> `index.md`. That is where agents guess a page's Markdown to be: afdocs, the
  Agent-Friendly Documentation Spec's checker, tries `page.md` (a `.html` dropped) and then
  `page/index.md`, and `/index.md` for the site root. `llms.txt` links to the twins.
  The twin opens with a one-line note that names the page and points to `llms.txt` (the
  spec's "directive"), for an agent that lands on it without having read `llms.txt`.
- the **page Markdown**, without the note, beside the page's HTML file under its name +
  `.md` (`guide/install/index.html.md`, `install.html.md`): the text the chunks' `charOffsets`
  index into, and llmstxt.org's name for the Markdown of an HTML file.

The twin cannot be the file the offsets index, since its note comes first; and it cannot sit
beside the HTML under the HTML's name with `.md` for `.html`, since that is where agents look
for the twin on sites of `.html` urls and for the home page. Each HTML page gets a visually
hidden directive too, right after `<body>`, outside the content that mdchunk chunks, and a page
with a twin a `<link rel="alternate" type="text/markdown">` to it at the end of its `<head>`
(how a page names its other forms; crawlers and agents that read the head find the twin there).
"""

from __future__ import annotations

import dataclasses
import html
import posixpath
import re
import urllib.parse
from collections.abc import Iterable
from pathlib import Path

from mdchunk.outputs.writers import atomic_write, sweep_folder, write_text

LLMS_TXT = "llms.txt"
DIRECTIVE_CLASS = "mdchunk-llms"
"""The class of the hidden directive in HTML pages (a later build finds and replaces it)."""
_HIDDEN = ("position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;"
           "clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;border:0")
_DIRECTIVE = re.compile(r'<div class="' + DIRECTIVE_CLASS + r'"[^>]*>.*?</div>', re.DOTALL)
_ALTERNATE = re.compile(r'<link rel="alternate" type="text/markdown" [^>]*class="'
                        + DIRECTIVE_CLASS + '"[^>]*>')
_BODY = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
_HTML_SUFFIXES = (".html", ".htm")
_URL_SAFE = "/:#?&=%~+@!$,;*'"
"""Characters kept as they are in the urls mdchunk writes: spaces and parentheses are
escaped, so that a url ends where Markdown and llms.txt readers expect it to."""


def twin_path(url: str) -> str:
    """The file of the page's Markdown twin, relative to the site folder: the url with `.md`
    in place of its trailing `/` or its `.html` (`.htm`), else with `.md` added; `index.md`
    for the site root."""
    path = urllib.parse.unquote(url.split("#", 1)[0].split("?", 1)[0]).lstrip("/")
    if not path.strip("/"):
        return "index.md"
    if path.endswith("/"):
        return path.rstrip("/") + ".md"
    stem, suffix = posixpath.splitext(path)
    return (stem if suffix.lower() in _HTML_SUFFIXES else path) + ".md"


def html_path(url: str) -> str:
    """The HTML file of the page at `url`, relative to the site folder."""
    path = urllib.parse.unquote(url.split("#", 1)[0].split("?", 1)[0]).lstrip("/")
    return path + "index.html" if not path or path.endswith("/") else path


def markdown_beside(html_file: str) -> str:
    """The page Markdown's file (what the chunks' offsets index) for the page whose HTML is
    `html_file` (relative to the site folder): beside it, named after it + `.md`."""
    return html_file + ".md"


def page_markdown_path(url: str) -> str:
    """The page Markdown's file of the page at `url`, relative to the site folder."""
    return markdown_beside(html_path(url))


def site_link(path: str, site_url: str) -> str:
    """A link to `path` (relative to the site root) that works out of context, as the links of
    the page Markdown do: absolute against `site_url`, else from the root (`/path`)."""
    base = site_url.rstrip("/") + "/" if site_url else "/"
    return base + quote_url(path)


def index_link(path: str, site_url: str) -> str:
    """A link from `llms.txt` (at the site root) to `path`: absolute against `site_url`, else
    relative, which resolves wherever the site is served."""
    return site_url.rstrip("/") + "/" + quote_url(path) if site_url else quote_url(path)


def quote_url(url: str) -> str:
    """`url` with spaces, parentheses and other unsafe characters percent-escaped (existing
    escapes kept)."""
    return urllib.parse.quote(url, safe=_URL_SAFE)


def link_text(text: str) -> str:
    """Text for a Markdown link's brackets, on one line: brackets become parentheses (the
    reference llms.txt parser ends a title at the first `]`)."""
    return " ".join(text.replace("[", "(").replace("]", ")").split())


def note_line(title: str, url: str, site_url: str, *, directive: bool) -> str:
    """The twin's first line: which page this is, and (`directive`) where the index is."""
    page = f"> Markdown of [{link_text(title) or 'this page'}]({site_link(url, site_url)})"
    if not directive:
        return page + "."
    return f"{page}; the documentation index is [{LLMS_TXT}]({site_link(LLMS_TXT, site_url)})."


def page_block(markdown: str, note: str) -> str:
    """The note, a blank line, the page Markdown: a twin, and a page of `llms-full.txt`.

    It starts with `>` and ends with one newline after text, so that blocks put one after the
    other count as many tokens as they do apart: no tokenizer joins text across that seam."""
    return f"{note}\n\n{markdown.strip()}\n"


def twin_text(markdown: str, title: str, url: str, site_url: str, *, directive: bool) -> str:
    """The page's Markdown twin: the page Markdown, opened by the note when `directive`."""
    if not directive:
        return markdown
    return page_block(markdown, note_line(title, url, site_url, directive=True))


def write_twin(site_dir: Path, url: str, text: str) -> Path:
    """Write a page's Markdown twin (not flushed: it is derived from the site; the folders of
    twins are swept once a build, `sweep_twins`, not at each twin)."""
    path = site_dir / twin_path(url)
    write_text(path, text, durable=False, sweep=False)
    return path


def sweep_twins(site_dir: Path, urls: Iterable[str]) -> None:
    """Remove what writers of the twins of the pages at `urls` left when they were killed
    (`sweep_folder`), one read of each folder that holds twins: many twins share a folder."""
    folders: dict[str, set[str]] = {}
    for url in urls:
        folder, _, name = twin_path(url).rpartition("/")
        folders.setdefault(folder, set()).add(name)
    for folder, names in folders.items():
        sweep_folder(site_dir / folder, names)


@dataclasses.dataclass(frozen=True, slots=True)
class Directive:
    """What a build puts in a page's HTML for agents: the hidden `element` after `<body>`,
    and the `<link>` to the twin (`alternate`; None for a page without one) in `<head>`."""

    element: str
    alternate: str | None


def page_directive(url: str, *, twin: bool = True) -> Directive:
    """The directive for the page at `url`, which has a twin where `twin`."""
    alternate = None
    if twin:
        href = html.escape(_relative(twin_path(url), url))
        alternate = (f'<link rel="alternate" type="text/markdown" href="{href}" '
                     f'class="{DIRECTIVE_CLASS}">')
    return Directive(directive_element(url, twin=twin), alternate)


def directive_element(url: str, *, twin: bool = True) -> str:
    """The hidden directive for the page at `url`: links to `llms.txt` and (`twin`) to the
    page's twin, relative to the page (they work wherever the site is served)."""
    index = _relative(LLMS_TXT, url)
    text = (f'For AI agents: the documentation index is <a href="{html.escape(index)}">'
            f'{LLMS_TXT}</a>')
    if twin:
        markdown = _relative(twin_path(url), url)
        text += (f'; this page as Markdown: <a href="{html.escape(markdown)}">'
                 f'{html.escape(posixpath.basename(twin_path(url)))}</a>')
    return f'<div class="{DIRECTIVE_CLASS}" style="{_HIDDEN}">{text}.</div>'


def mark_html_page(site_dir: Path, url: str, directive: Directive | None) -> bool:
    """Put `directive` in the HTML of the page at `url`, in place of one an earlier build put
    there (None: only remove that one). Returns whether the file changed; a page whose file is
    missing or has no `<body>` is left as it is."""
    path = site_dir / html_path(url)
    try:  # (bytes that are no UTF-8 are kept as they are: `surrogateescape` both ways)
        page = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return False
    marked = with_directive(page, directive)
    if marked is None or marked == page:
        return False
    data = marked.encode("utf-8", "surrogateescape")
    atomic_write(path, lambda handle: handle.write(data), durable=False)
    return True


def with_directive(page: str, directive: Directive | None) -> str | None:
    """The HTML `page` with `directive`'s element right after its `<body>` tag and its link
    at the end of its `<head>`, in place of those an earlier build put there (None: only those
    removed); None when it has no `<body>`."""
    # (a page fresh from the engine holds none: the search for the class spares two scans)
    cleared = _ALTERNATE.sub("", _DIRECTIVE.sub("", page)) if DIRECTIVE_CLASS in page else page
    body = _BODY.search(cleared)
    if body is None:
        return None
    if directive is None:
        return cleared
    head_end = _HEAD_END.search(cleared, 0, body.start())
    if directive.alternate is None or head_end is None:
        return "".join([cleared[:body.end()], directive.element, cleared[body.end():]])
    return "".join([cleared[:head_end.start()], directive.alternate,
                    cleared[head_end.start():body.end()], directive.element,
                    cleared[body.end():]])


def _relative(target: str, url: str) -> str:
    """`target` (relative to the site root) as a link from the page at `url`; it always holds
    a `/` (`./llms.txt`), which is how checkers tell a link to a file from prose."""
    link = relative_path(target, posixpath.dirname(html_path(url)))
    return quote_url(link if "/" in link else f"./{link}")


def relative_path(target: str, base: str) -> str:
    """`posixpath.relpath(target, base or ".")` of two paths relative to the site root, without
    the working folder that `relpath` asks the system for twice (a build links every page to
    `llms.txt` and its twin); paths that climb out of the root (`..`) go to `relpath`."""
    target, base = posixpath.normpath(target), posixpath.normpath(base or ".")
    if target.startswith(("/", "..")) or base.startswith(("/", "..")):
        return posixpath.relpath(target, base)
    to = target.split("/") if target != "." else []
    start = base.split("/") if base != "." else []
    common = 0
    for mine, theirs in zip(to, start, strict=False):
        if mine != theirs:
            break
        common += 1
    return "/".join([".."] * (len(start) - common) + to[common:]) or "."
