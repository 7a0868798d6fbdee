"""Plain Markdown files -> `PageInput`s, rendered as MkDocs would render them (no site build).

Used by `mdchunk chunk`: Python-Markdown with the common extensions (or a site's own
`markdown_extensions`), YAML front matter as the page's `meta`, urls as MkDocs derives them with
`use_directory_urls` (`guide/install.md` -> `guide/install/`, `index.md` -> ``), and relative
links to other files rewritten to the target's url relative to the page, as MkDocs does.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from xml.etree import ElementTree

import markdown
import yaml
from markdown.treeprocessors import Treeprocessor

from mdchunk.chunking import PageInput
from mdchunk.errors import MdChunkError

_FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(.*?\n)?(?:\.{3}|-{3})[ \t]*(?:\n|\Z)", re.DOTALL)
_MKDOCS_BUILTINS: tuple[str, ...] = ("toc", "tables", "fenced_code")


class SourceError(MdChunkError):
    """A Markdown file or a site config cannot be read or rendered."""


@dataclasses.dataclass(frozen=True, slots=True)
class MarkdownConfig:
    """Which Python-Markdown extensions render the pages, with their configs."""

    extensions: tuple[str | markdown.Extension, ...]
    configs: Mapping[str, Mapping[str, Any]]

    @classmethod
    def default(cls) -> MarkdownConfig:
        """toc (permalinks), tables, superfences (fenced_code without pymdownx), admonition,
        attr_list, def_list, footnotes, md_in_html."""
        fences = ("pymdownx.superfences" if importlib.util.find_spec("pymdownx") is not None
                  else "fenced_code")
        return cls(
            extensions=("toc", "tables", fences, "admonition", "attr_list", "def_list",
                        "footnotes", "md_in_html"),
            configs={"toc": {"permalink": True}},
        )

    @classmethod
    def from_list(cls, items: Sequence[object]) -> MarkdownConfig:
        """From a `markdown_extensions` list (names, or `{name: config}` mappings), with
        MkDocs's built-in toc, tables and fenced_code first."""
        names: list[str] = list(_MKDOCS_BUILTINS)
        configs: dict[str, Mapping[str, Any]] = {}
        for item in items:
            if isinstance(item, str):
                name, config = item, None
            elif isinstance(item, Mapping) and len(item) == 1:
                name, config = next(iter(item.items()))
            else:
                raise SourceError(f"markdown_extensions: cannot read the item {item!r}")
            if name not in names:
                names.append(name)
            if config:
                configs[name] = dict(config)
        return cls(extensions=tuple(names), configs=configs)


@dataclasses.dataclass(frozen=True, slots=True)
class SiteConfig:
    """What `mdchunk chunk` takes from an `mkdocs.yml`."""

    markdown: MarkdownConfig
    site_url: str
    docs_dir: Path | None
    plugin_options: Mapping[str, Any] | None
    """The `mdchunk` plugin's options in the config (None: `plugins` lists no mdchunk)."""
    language: str = "en"
    """The site's natural language, as the plugin reads it in a build: the theme's `language`
    (Material) or `locale`, else MkDocs' own default locale, `en`."""


class _ConfigLoader(yaml.SafeLoader):
    """SafeLoader that also reads MkDocs's `!ENV`, `!relative` and `!!python/name:` tags."""


def _env(loader: yaml.SafeLoader, node: yaml.Node) -> object:
    values = (loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode)
              else [loader.construct_scalar(node)])  # type: ignore[arg-type]
    *names, default = values if len(values) > 1 else [*values, None]
    for name in names:
        if str(name) in os.environ:
            return yaml.safe_load(os.environ[str(name)])
    return default


def _python_name(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
    module, _, attribute = suffix.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise SourceError(f"cannot import {suffix!r} named in the config: {error}") from error


_ConfigLoader.add_constructor("!ENV", _env)
_ConfigLoader.add_constructor("!relative", lambda loader, node: loader.construct_scalar(node))  # type: ignore[arg-type]
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/name:", _python_name)


def load_yaml(path: Path) -> object:
    """A YAML file (MkDocs's custom tags accepted)."""
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.load(handle, Loader=_ConfigLoader)
    except OSError as error:
        raise SourceError(f"{path}: cannot read: {error.strerror or error}") from error
    except yaml.YAMLError as error:
        raise SourceError(f"{path}: not valid YAML: {error}") from error


#: Top-level keys of an mkdocs.yml that are no mdchunk option (`site_name` is required).
MKDOCS_KEYS = frozenset({"site_name", "INHERIT", "plugins", "nav", "theme", "docs_dir",
                         "site_dir", "markdown_extensions"})


def is_mkdocs_config(data: Mapping[str, Any]) -> bool:
    """Whether a YAML mapping is a site's mkdocs.yml rather than mdchunk's options."""
    return any(key in MKDOCS_KEYS for key in data)


def load_mkdocs_config(path: Path) -> SiteConfig:
    """`markdown_extensions`, `site_url`, `docs_dir` and mdchunk's options of an mkdocs.yml
    (with the file it names in `INHERIT` underneath)."""
    data = _load_inherited(path, frozenset())
    if not isinstance(data, Mapping):
        raise SourceError(f"{path}: expected a mapping at the top level")
    docs_dir = data.get("docs_dir", "docs")
    return SiteConfig(
        markdown=MarkdownConfig.from_list(data.get("markdown_extensions") or []),
        site_url=str(data.get("site_url") or ""),
        docs_dir=(path.parent / str(docs_dir)).resolve() if docs_dir else None,
        plugin_options=_plugin_options(path, data.get("plugins") or []),
        language=_theme_language(data.get("theme")),
    )


def _theme_language(theme: object) -> str:
    """The `language` (Material) or `locale` of an mkdocs.yml's `theme` (a name or a
    mapping), else `en`, the locale MkDocs gives every theme that names none."""
    if isinstance(theme, Mapping):
        for key in ("language", "locale"):
            value = theme.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return "en"


def _load_inherited(path: Path, seen: frozenset[Path]) -> object:
    """An mkdocs.yml as MkDocs reads it: the file its `INHERIT` names (relative to it) with
    this one's keys over it, mappings merged key by key and everything else replaced."""
    data = load_yaml(path)
    if not isinstance(data, Mapping) or "INHERIT" not in data:
        return data
    parent = (path.parent / str(data["INHERIT"])).resolve()
    if parent in seen or parent == path.resolve():
        raise SourceError(f"{path}: INHERIT: {data['INHERIT']} inherits from this file")
    if not parent.is_file():
        raise SourceError(f"{path}: INHERIT: no file {parent}")
    base = _load_inherited(parent, seen | {path.resolve()})
    if not isinstance(base, Mapping):
        raise SourceError(f"{parent}: expected a mapping at the top level")
    return _merged(base, {key: value for key, value in data.items() if key != "INHERIT"})


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with the keys of `over`: mappings merged key by key, other values replaced."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        merged[key] = (_merged(below, value) if isinstance(below, Mapping)
                       and isinstance(value, Mapping) else value)
    return merged


def _plugin_options(path: Path, plugins: object) -> Mapping[str, Any] | None:
    """The options of the `mdchunk` entry of an mkdocs.yml's `plugins`, a list (`- mdchunk`,
    `- mdchunk: {...}`) or a mapping (`mdchunk: {...}`) as MkDocs accepts; None when it lists
    no mdchunk."""
    if isinstance(plugins, Mapping):
        entries = list(plugins.items())
    elif isinstance(plugins, list):
        entries = [next(iter(item.items())) if isinstance(item, Mapping) and len(item) == 1
                   else (item, None) for item in plugins]
    else:
        raise SourceError(f"{path}: plugins: expected a list or a mapping, got {plugins!r}")
    for name, options in entries:
        if name != "mdchunk":
            continue
        if options is not None and not isinstance(options, Mapping):
            raise SourceError(f"{path}: plugins: mdchunk: expected a mapping of options, got "
                              f"{options!r}")
        return dict(options or {})
    return None


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """YAML front matter (as a dict) and the Markdown after it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1) or "") or {}
    except yaml.YAMLError:
        return {}, text  # as MkDocs: not front matter, the text stays
    if not isinstance(meta, dict):
        return {}, text
    return meta, text[match.end():]


def page_url(source_path: str) -> str:
    """The url MkDocs gives a page with `use_directory_urls` (`a/b.md` -> `a/b/`)."""
    stem = posixpath.splitext(source_path)[0]
    directory, _, name = stem.rpartition("/")
    if name in ("index", "README"):
        return f"{directory}/" if directory else ""
    return f"{stem}/"


def relative_url(url: str, other: str) -> str:
    """`url` relative to the page url `other` (MkDocs's `get_relative_url`)."""
    directory, _, base = other.rpartition("/")
    if "." in base:
        other = directory
    other_parts = [part for part in posixpath.normpath(other).split("/") if part not in ("", ".")]
    dest_parts = [part for part in posixpath.normpath(url).split("/") if part not in ("", ".")]
    common = 0
    for a, b in zip(other_parts, dest_parts, strict=False):
        if a != b:
            break
        common += 1
    parts = [".."] * (len(other_parts) - common) + dest_parts[common:]
    relative = "/".join(parts) or "."
    return relative + "/" if url.endswith("/") else relative


class _RelativeLinks(Treeprocessor):
    """Rewrites links to files of the docs folder to their url relative to the page."""

    def __init__(self, md: markdown.Markdown, source_path: str, files: frozenset[str]) -> None:
        super().__init__(md)
        self.source_path = source_path
        self.files = files

    def run(self, root: ElementTree.Element) -> None:
        for element in root.iter():
            key = {"a": "href", "img": "src"}.get(element.tag)
            value = element.get(key) if key else None
            if key and value:
                element.set(key, self.rewrite(value))

    def rewrite(self, url: str) -> str:
        scheme, netloc, path, query, fragment = urlsplit(url)
        if scheme or netloc or not path or path.startswith("/"):
            return url
        target = posixpath.normpath(posixpath.join(posixpath.dirname(self.source_path), path))
        if target not in self.files:
            return url
        target_url = page_url(target) if target.endswith(".md") else target
        return urlunsplit(("", "", relative_url(target_url, page_url(self.source_path)), query,
                           fragment))


class _TitleOf(Treeprocessor):
    """Records the text of an H1 that opens the page (MkDocs's title when the nav and the
    front matter name none); runs before toc adds permalinks."""

    title: str | None = None

    def run(self, root: ElementTree.Element) -> None:
        first = next(iter(root), None)
        is_h1 = first is not None and first.tag == "h1"
        text = "".join(first.itertext()).strip() if first is not None and is_h1 else ""
        self.title = text or None


@dataclasses.dataclass(frozen=True, slots=True)
class SourceFile:
    """A Markdown file and its path relative to the docs folder."""

    path: Path
    source_path: str


def find_sources(paths: Iterable[Path], *, exclude: Sequence[str] = ()) -> list[SourceFile]:
    """The Markdown files of `paths` (files, or folders searched recursively), sorted.

    A folder's files are named relative to it; a file given by itself relative to the current
    folder (its name when outside it). Files whose source path matches an `exclude` glob are
    left out.

    Raises:
        SourceError: when a path does not exist.
    """
    import fnmatch

    found: dict[str, SourceFile] = {}
    cwd = Path.cwd().resolve()
    for path in paths:
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.suffix.lower() in (".md", ".markdown") and file.is_file():
                    name = file.relative_to(path).as_posix()
                    if not any(part.startswith(".") for part in Path(name).parts):
                        found.setdefault(name, SourceFile(file, name))
        elif path.is_file():
            resolved = path.resolve()
            name = (resolved.relative_to(cwd).as_posix() if resolved.is_relative_to(cwd)
                    else path.name)
            found.setdefault(name, SourceFile(path, name))
        else:
            raise SourceError(f"{path}: no such file or folder")
    return [
        source for name, source in sorted(found.items())
        if not any(fnmatch.fnmatchcase(name, pattern) for pattern in exclude)
    ]


class Renderer:
    """Renders Markdown files to `PageInput`s with one Markdown configuration."""

    def __init__(self, config: MarkdownConfig, files: Iterable[str] = ()) -> None:
        self.config = config
        self.files = frozenset(files)

    def _markdown(self, source_path: str) -> tuple[markdown.Markdown, _TitleOf]:
        try:
            md = markdown.Markdown(extensions=list(self.config.extensions),
                                   extension_configs=dict(self.config.configs))
        except ImportError as error:
            raise SourceError(
                f"a Markdown extension cannot be loaded ({error}); install it, e.g. "
                "pip install pymdown-extensions"
            ) from error
        except (TypeError, KeyError, ValueError, AttributeError) as error:
            raise SourceError(f"bad Markdown extension configuration: {error}") from error
        md.treeprocessors.register(_RelativeLinks(md, source_path, self.files), "mdchunk_links", 0)
        title = _TitleOf(md)
        md.treeprocessors.register(title, "mdchunk_title", 6)
        return md, title

    def render(self, source: SourceFile) -> PageInput:
        """The page input of one file.

        Raises:
            SourceError: when the file cannot be read or decoded.
        """
        try:
            text = source.path.read_text(encoding="utf-8-sig")
        except OSError as error:
            raise SourceError(f"{source.path}: cannot read: {error.strerror or error}") from error
        except UnicodeDecodeError as error:
            raise SourceError(f"{source.path}: not UTF-8 text: {error}") from error
        meta, body = split_front_matter(text)
        md, title = self._markdown(source.source_path)
        html = md.convert(body)
        stem = posixpath.splitext(posixpath.basename(source.source_path))[0]
        fallback = stem.replace("-", " ").replace("_", " ").capitalize()
        page_title = str(meta.get("title") or title.title or fallback)
        return PageInput(html=html, source_path=source.source_path,
                         url=page_url(source.source_path), title=page_title, meta=meta)
