"""A page's summary: what `llms.txt` says of a page whose front matter gives no description.

It is chosen from the page's blocks, not from its written Markdown: the first paragraph of
running text (`Block.prose`) at the page's level, so never a list, a table, code, a quote or an
admonition, nor a paragraph that only names things (an API object's signature, a class's base
classes, a version-change label: the renderer marks them as not prose). A section under a
version heading (`9.5.0 (2024-01-02)`, `Release 7.2`, `[Unreleased]`: a changelog's entries)
gives none, nor does a paragraph that is only a version label (`Release v2.32.`). From that
paragraph: its first sentence, and the next ones while the first is short (a greeting, a
question), within `SUMMARY_CHARACTERS`, without Markdown's inline syntax but code spans. A page
with no such paragraph has no summary ("").
"""

from __future__ import annotations

import re

from mdchunk.chunking.markdown_text import inline_text, sentence_ends
from mdchunk.chunking.model import ParsedPage

SUMMARY_CHARACTERS = 240
"""Longest summary: a sentence or two, not a paragraph (a longer sentence is cut between
words)."""
_SHORT_SENTENCE = 60
"""A first sentence shorter than this (`Welcome!`, `Eager to get started?`) says little on its
own: the next sentences follow it while the summary stays within `SUMMARY_CHARACTERS`."""
_LABEL_WORDS = 6
"""A paragraph of a version label and at most this many words in all is a label, not prose."""

_VERSION = re.compile(
    r"\[?(?P<prefix>(?:version|release|v)\s*)?v?"
    r"(?P<number>\d{4}-\d{2}-\d{2}|\d+(?:\.\d+)*|unreleased)(?P<suffix>[a-z0-9.+-]*)\]?",
    re.IGNORECASE)
"""A version at the start of a title: `9.5.0`, `v2`, `Version 1.2`, `Release 7.2.6`,
`[1.0.0]`, `2024-01-15`, `Unreleased`."""
_AFTER_VERSION = re.compile(r"\s*(?:$|[-\u2013\u2014(:,]|.*\b(?:19|20)\d\d\b)", re.DOTALL)
"""What may follow a version in a version's title: nothing, a date (`March 19, 2026`), or a
separator and anything (`(2025-06-10)`, `- 2017-06-20`, `: the big one`)."""

def page_summary(page: ParsedPage) -> str:
    """The page's summary (see the module's docstring); "" when it has none."""
    version_level = 0  # > 0 inside a section under a version heading of that level
    for block in page.blocks:
        if block.kind == "heading":
            if not version_level or block.level <= version_level:
                version_level = block.level if is_version_title(block.title) else 0
            continue
        if version_level or block.kind != "paragraph" or not block.prose:
            continue
        text = _paragraph_text(page.markdown[block.start:block.end])
        if text and not _is_version_label(text):
            return _summary_of(text)
    return ""


def is_version_title(title: str) -> bool:
    """Whether a heading's title names a version, as a changelog's entries do: a version (with
    a dot when it has no `Version`/`Release`/`v` before it, so that a numbered section,
    `2.1 Install` or `2.1. Install`, is none) followed by nothing, a date, or a separator."""
    found = _VERSION.match(title.strip())
    if found is None:
        return False
    number, suffix = found.group("number"), found.group("suffix")
    if not found.group("prefix") and not number.isalpha() and "-" not in number and (
            "." not in number or suffix.endswith(".")):
        return False
    return _AFTER_VERSION.match(title.strip(), found.end()) is not None


def _is_version_label(text: str) -> bool:
    """A paragraph that only names a version (`Release v2.32.3. (Installation)`)."""
    return len(text.split()) <= _LABEL_WORDS and is_version_title(text)


def _paragraph_text(markdown: str) -> str:
    """A paragraph's Markdown as text on one line (`inline_text`), its code spans kept whole:
    `llms.txt` is Markdown, and `mkdocs.yml` reads as code there."""
    return " ".join(inline_text(markdown, code_spans=True).split())


def _summary_of(text: str) -> str:
    """The first sentence of `text`, and the next ones while it is short (`_SHORT_SENTENCE`),
    within `SUMMARY_CHARACTERS`; a first sentence longer than that is cut between words."""
    ends = sentence_ends(text)
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    summary = text[:ends[0]]
    for end in ends[1:]:
        if len(summary) >= _SHORT_SENTENCE or end > SUMMARY_CHARACTERS:
            break
        summary = text[:end]
    if len(summary) <= SUMMARY_CHARACTERS:
        return summary
    return summary[:SUMMARY_CHARACTERS].rsplit(" ", 1)[0].rstrip(",;:") + "…"

