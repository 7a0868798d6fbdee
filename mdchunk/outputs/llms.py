"""The agent outputs of a site: `llms.txt`, `llms-full.txt` and the pages' Markdown twins.

`llms.txt` (llmstxt.org) sits at the site root: `# Site name`, `> summary`, where to find the
whole text, then one `##` section per part of the site's navigation (`outline.nav_sections`),
each page a line `- [Title](url of its Markdown twin): description (N tokens)`, or
`- [Title](url): N tokens` for a page without a description; changelogs, pages the navigation
omits and pages chosen as optional go under `## Optional`, last. `llms-full.txt` holds every
page's Markdown in that order, or, when that would exceed the token budget, lists the files it
is split into (`mdchunk.outputs.llms_full`).

What each page contributes is worked out where the page is chunked
(`mdchunk.outputs.page_facts`: its title, description and exact token counts, with the build's
counter), and kept with its records; the build's last step (`write_agent_outputs`) only reads
it back and writes the files, one page's Markdown at a time.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mdchunk.outputs.llms_full import (
    FullFile,
    FullPage,
    listing,
    plan_full,
    remove_stale_parts,
    write_full,
)
from mdchunk.outputs.outline import (
    OPTIONAL,
    SiteLanguage,
    SiteOutline,
    built_languages,
    nav_sections,
)
from mdchunk.outputs.twins import (
    LLMS_TXT,
    index_link,
    link_text,
    mark_html_page,
    note_line,
    page_block,
    page_directive,
    sweep_twins,
    twin_path,
    twin_text,
    write_twin,
)
from mdchunk.outputs.writers import write_text
from mdchunk.settings import LlmsOptions

LANGUAGES = "Languages"
"""The section of `llms.txt` that links the `llms.txt` of the site's other languages."""
_NO_TEXT = "This page has no text."
"""The twin of a page without text, under its note."""


# -- the site's files (at the end of the build) -------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ListedPage:
    """A page of the build, with what `llms.txt` needs of it (`page_facts`); None for a page
    that is not listed (left out of the index, or without text)."""

    source: str
    url: str
    facts: Mapping[str, Any] | None
    indexed: bool = True
    """Whether the page is in the index: it then has a twin (a page without text, only the
    note, so that an agent that guesses its url is sent to `llms.txt`); a page left out
    has none, and its HTML only points to `llms.txt`."""
    marked: bool = False
    """Whether the engine wrote its HTML with the directive, as `indexed` says, already."""
    in_site: bool = False
    """Whether its twin is in the site already, written where it was chunked."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Entry:
    """A line of `llms.txt`: a listed page, what it contributes, and its title there."""

    page: ListedPage
    facts: Mapping[str, Any]
    title: str

    @property
    def twin_link(self) -> str:
        return index_link(twin_path(self.page.url), str(self.facts["siteUrl"]))


def write_agent_outputs(site_dir: Path, pages: Sequence[ListedPage], outline: SiteOutline,
                        options: LlmsOptions, *, markdown_of: Callable[[str], str],
                        site_url: str, encoding: str,
                        log: logging.Logger | logging.LoggerAdapter[Any]) -> dict[str, Path]:
    """Write the twins, `llms-full` and `llms.txt`, and mark the HTML pages; return the files
    written for the build's summary (`llms.txt`, and `llms-full.txt` when asked for).

    Arguments:
        site_dir: The built site.
        pages: The pages of the build, those of the index first, in the index's order.
        outline: The site's name, description and navigation, from the engine.
        options: The agent outputs' options.
        markdown_of: A page's Markdown, by source path (read one page at a time).
        site_url: The site's url ("" when unknown: the pages' own, else relative links).
        encoding: The encoding the token counts are in (said in `llms.txt`).
        log: The build's log (a page alone over the budget is said at info level).
    """
    sections = _sections(pages, outline, options.optional)
    entries = [entry for _, section in sections for entry in section]
    site_url = site_url or next(
        (str(entry.facts["siteUrl"]) for entry in entries if entry.facts["siteUrl"]), "")
    name, summary = _site_name(outline, entries), _summary(outline, entries)
    blocks = _blocks(site_dir, entries, markdown_of, directive=options.directive)
    written = {"llms.txt": site_dir / LLMS_TXT}
    info = [f"Each link below leads to the page's Markdown; the count after it is its size in "
            f"{encoding} tokens."]
    if options.full:
        files = plan_full([(title, [_full_page(entry) for entry in section])
                           for title, section in sections], options.full_max_tokens)
        written["llms-full"] = write_full(site_dir, files, blocks, name=name, summary=summary,
                                          site_url=site_url, encoding=encoding)
        remove_stale_parts(site_dir, files)
        info += ["", *listing(files, site_url, encoding)]
        _say_over_budget(files, log)
    for _ in blocks:  # the twins that llms-full did not ask for
        pass
    _write_empty_twins(site_dir, pages, site_url, directive=options.directive)
    sweep_twins(site_dir, [page.url for page in pages if page.indexed])
    _mark_html_pages(site_dir, pages, directive=options.directive)
    languages = language_lines(outline.languages or built_languages(site_dir), site_url)
    write_text(site_dir / LLMS_TXT, render_llms_txt(name, summary, info, sections, languages),
               durable=False)
    return written


def _full_page(entry: _Entry) -> FullPage:
    return FullPage(entry.page.source, int(entry.facts["fullTokens"]), entry.title)


def _say_over_budget(files: Sequence[FullFile], log: logging.Logger
                     | logging.LoggerAdapter[Any]) -> None:
    for file in files:
        if file.over_budget:
            log.info("%s holds the page %s alone: %d tokens, more than llms_full_max_tokens "
                     "(%d)", file.path, file.pages[0].source, file.tokens, file.budget)


def _sections(pages: Sequence[ListedPage], outline: SiteOutline, optional: Sequence[str]
              ) -> list[tuple[str, list[_Entry]]]:
    """The sections of `llms.txt` with their entries (the pages that have facts), and
    `## Optional` last: the pages of a navigation section of that name and those the
    navigation omits (`nav_sections`), changelogs, and the pages chosen as optional, in the
    navigation's order."""
    facts = {page.source: page.facts for page in pages if page.facts is not None}
    by_source = {page.source: page for page in pages}

    def title_of(source: str) -> str:
        return str(facts[source]["title"]) or source

    chosen: list[_Entry] = []
    sections: list[tuple[str, list[_Entry]]] = []
    for section in nav_sections(outline, facts, title_of):
        entries = [_Entry(by_source[source], facts[source], nav_title or title_of(source))
                   for source, nav_title in section.pages]
        if section.title == OPTIONAL:
            chosen.extend(entries)
            continue
        chosen.extend(entry for entry in entries if _is_optional(entry, optional))
        kept = [entry for entry in entries if not _is_optional(entry, optional)]
        if kept:
            sections.append((section.title, kept))
    if chosen:
        sections.append((OPTIONAL, chosen))
    return sections


def _is_optional(entry: _Entry, patterns: Sequence[str]) -> bool:
    """Whether a page goes under `## Optional`: a changelog, or chosen by a pattern."""
    return bool(entry.facts.get("changelog")) or _matches(entry.page, patterns)


def _matches(page: ListedPage, patterns: Sequence[str]) -> bool:
    """Whether the page's source path (with or without its extension) matches a pattern."""
    names = [page.source, page.source.rsplit(".", 1)[0]]
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns for name in names)


def _blocks(site_dir: Path, entries: Sequence[_Entry], markdown_of: Callable[[str], str], *,
            directive: bool) -> Iterator[str]:
    """Each entry's part of `llms-full`, in order, its twin written on the way unless it is
    there (a page's Markdown is read once for both)."""
    for entry in entries:
        page = entry.page
        markdown = markdown_of(page.source)
        title, site_url = str(entry.facts["title"]), str(entry.facts["siteUrl"])
        if not page.in_site:
            write_twin(site_dir, page.url, twin_text(markdown, title, page.url, site_url,
                                                     directive=directive))
        yield page_block(markdown, note_line(title, page.url, site_url, directive=directive))


def _write_empty_twins(site_dir: Path, pages: Sequence[ListedPage], site_url: str, *,
                       directive: bool) -> None:
    """The twins of the pages of the index without text: the note, which names the page and,
    with `directive`, points to `llms.txt`, then says so (without the note, an empty file)."""
    for page in pages:
        if page.indexed and page.facts is None:
            note = note_line("", page.url, site_url, directive=directive)
            write_twin(site_dir, page.url, page_block(_NO_TEXT, note) if directive else "")


def _mark_html_pages(site_dir: Path, pages: Sequence[ListedPage], *, directive: bool) -> None:
    """Put the hidden directive in each page's HTML (with a link to its twin where it has
    one), or take out one an earlier build put there; a page the engine wrote with it is left
    as it is."""
    for page in pages:
        if page.marked:
            continue
        marks = page_directive(page.url, twin=page.indexed) if directive else None
        mark_html_page(site_dir, page.url, marks)


def _site_name(outline: SiteOutline, entries: Sequence[_Entry]) -> str:
    home = _home(outline, entries)
    return outline.name.strip() or (str(home.facts["title"]) if home else "") or (
        "Documentation")


def _summary(outline: SiteOutline, entries: Sequence[_Entry]) -> str:
    """The site's description, else its home page's, else what the site is made of (a home
    page of links has no sentence to give)."""
    home = _home(outline, entries)
    described = " ".join(outline.description.split()) or (
        str(home.facts["description"]) if home else "")
    count = len(entries)
    return described or (f"The {_site_name(outline, entries)} documentation: {count} "
                         f"page{'' if count == 1 else 's'}." if entries else "")


def _home(outline: SiteOutline, entries: Sequence[_Entry]) -> _Entry | None:
    for entry in entries:
        if outline.home is None or entry.page.source == outline.home:
            return entry
    return None


def language_lines(languages: Sequence[SiteLanguage], site_url: str) -> list[str]:
    """The lines of `## Languages` in `llms.txt`: each other language of the site, with the
    link to its own `llms.txt`."""
    lines = []
    for language in languages:
        name = link_text(language.name)
        title = f"{name} ({language.tag})" if name and name != language.tag else language.tag
        link = index_link(f"{language.folder}/{LLMS_TXT}", site_url)
        lines.append(f"- [{title}]({link}): this documentation in {language.tag}")
    return lines


def render_llms_txt(name: str, summary: str, info: Sequence[str],
                    sections: Sequence[tuple[str, Sequence[_Entry]]],
                    languages: Sequence[str] = ()) -> str:
    """The text of `llms.txt` (llmstxt.org's format); `languages`: the lines of its
    `## Languages` section, first (none without them)."""
    lines = [f"# {' '.join(name.split())}", ""]
    if summary:
        lines += [f"> {summary}", ""]
    lines += [*info, ""]
    if languages:
        lines += [f"## {LANGUAGES}", "", *languages, ""]
    for title, entries in sections:
        lines += [f"## {title}", ""]
        lines += [_entry_line(entry) for entry in entries]
        lines.append("")
    return "\n".join(lines)


def _entry_line(entry: _Entry) -> str:
    facts = entry.facts
    tokens = f"{facts['tokens']} tokens"
    details = f"{facts['description']} ({tokens})" if facts["description"] else tokens
    return f"- [{link_text(entry.title) or entry.page.source}]({entry.twin_link}): {details}"


__all__ = ["OPTIONAL", "ListedPage", "write_agent_outputs"]
