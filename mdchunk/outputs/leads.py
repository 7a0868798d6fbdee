"""A section's lead: the first sentence of its prose, which says what the section is about.

API reference sections name a call by its identifier (`fs.rm(path[, options], callback)`) and
open with a list of its parameters; the sentence that says what the call does in words
("Asynchronously removes files and directories") comes after. A guide section opens with the
sentence that sums it up. `chunks.sqlite` indexes each section's lead in a column of its own
(`mdchunk.outputs.sqlite`), weighted as the breadcrumb is, so that a question in words meets the
section whose first sentence says it, where the same words deep in other sections' bodies
count less.

The lead is read from the Markdown of the section's chunks, in order: headings, list items,
tables, quotes, HTML lines and fenced code are skipped, and the first paragraph of at least
`MIN_WORDS` words gives its first sentence; it is indexed with the chunk that holds it. Its
links are read as their text and its sentences end where the chunker's do
(`mdchunk.chunking.markdown_text`'s `links_as_text` and `sentence_ends`: one rule each).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mdchunk.chunking.markdown_text import links_as_text, sentence_ends

#: The fewest words (of two letters or more) of a paragraph that gives a lead.
MIN_WORDS = 3
#: Lines that are not prose: headings, list items, tables, quotes, HTML and comments (a
#: definition's text, `: ...`, is prose).
_NOT_PROSE = re.compile(r"^(#|[-*+]\s|\d+[.)]\s|\||>|<|!!!|\?\?\?|:::)")
_FENCE = re.compile(r"^(```|~~~)")
_WORD = re.compile(r"[^\W\d_]{2,}")


def section_lead(markdown: str) -> str:
    """The first sentence of the first paragraph of prose of `markdown` ("" where it has
    none)."""
    for paragraph in _paragraphs(markdown):
        if len(_WORD.findall(paragraph)) >= MIN_WORDS:
            text = links_as_text(paragraph)
            ends = sentence_ends(text)
            return text[:ends[0]] if ends else text
    return ""


def _paragraphs(markdown: str) -> Iterator[str]:
    """The paragraphs of prose of `markdown`, each joined into one line, in order."""
    lines: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        stripped = line.strip()
        fence = _FENCE.match(stripped) is not None
        fenced = fenced != fence
        if fenced or fence or not stripped or _NOT_PROSE.match(stripped):
            if lines:
                yield " ".join(lines)
                lines = []
            continue
        lines.append(stripped)
    if lines:
        yield " ".join(lines)


def first_lead(record: dict[str, Any], found: set[str]) -> str:
    """The lead of `record`'s text where its section (`url`) has none yet among the records
    passed in before it (`found`: the urls of the sections that have one, which this adds
    to), else "": a section's lead is on the first of its chunks with prose (its first chunk
    may hold nothing but a list of parameters)."""
    url = record.get("url") or ""
    if url in found:
        return ""
    lead = section_lead(record.get("originalText") or "")
    if lead:
        found.add(url)
    return lead
