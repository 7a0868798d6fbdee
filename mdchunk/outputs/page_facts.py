"""What a chunked page contributes to `llms.txt` and `llms-full` (`page_facts`), worked out
where the page is chunked, with the build's counter, and kept with its records: the build's last
step (`mdchunk.outputs.llms.write_agent_outputs`) only reads it back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mdchunk.chunking.chunk import PageChunks, PageSection
from mdchunk.chunking.span_counts import last_piece_start
from mdchunk.chunking.summary import is_version_title
from mdchunk.chunking.tokens import TokenCounter
from mdchunk.outputs.twins import note_line, page_block


def page_facts(result: PageChunks, *, count: TokenCounter, site_url: str, directive: bool
               ) -> dict[str, Any] | None:
    """What `llms.txt` needs of a chunked page: its title, description, site url, the exact
    token counts of its twin (`tokens`) and of its part of `llms-full.txt` (`fullTokens`), and
    whether it is a changelog. None for a page without text (nothing for an agent to read: it
    is not listed)."""
    if not result.markdown.strip():
        return None
    first = result.chunks[0] if result.chunks else None
    title = first.file_title if first is not None else ""
    meta = first.front_matter if first is not None else {}
    note = note_line(title, result.url, site_url, directive=directive)
    markdown = markdown_tokens(result, count)
    full_tokens = block_tokens(result.markdown, note, markdown, count)
    return {"title": title, "description": page_description(meta, result.summary),
            "siteUrl": site_url, "tokens": full_tokens if directive else markdown,
            "fullTokens": full_tokens, "changelog": is_changelog(result.sections)}


def markdown_tokens(result: PageChunks, count: TokenCounter) -> int:
    """The exact count of the page Markdown: the page's section (number 0) has it when it spans
    the whole Markdown, as it does but for blank space at the edges."""
    page = result.sections[0] if result.sections else None
    if page is not None and (page.char_start, page.char_end) == (0, len(result.markdown)):
        return page.tokens
    return count(result.markdown)


def block_tokens(markdown: str, note: str, tokens: int, count: TokenCounter) -> int:
    """The exact count of `page_block(markdown, note)`, from `tokens`, the count of `markdown`.

    A piece of tiktoken's that reaches a line end ends there when a non-space character
    follows (tests/test_tokens.py), so the note and its blank line count apart from the
    Markdown after them; the line end after the Markdown changes only its last piece
    (`last_piece_start`), counted again with and without it."""
    if not markdown or markdown != markdown.strip():
        return count(page_block(markdown, note))
    cut = last_piece_start(markdown, 0, len(markdown))
    if cut is None:
        return count(note + "\n\n") + count(markdown + "\n")
    last = markdown[cut:]
    return count(note + "\n\n") + tokens - count(last) + count(last + "\n")


def page_description(meta: Mapping[str, Any], summary: str) -> str:
    """The page's front matter `description`, else its summary (`PageChunks.summary`)."""
    given = meta.get("description")
    if isinstance(given, str) and given.strip():
        return " ".join(given.split())
    return summary


def is_changelog(sections: Sequence[PageSection]) -> bool:
    """Whether the page is a changelog: at least two of its headings name a version
    (`is_version_title`), and so do at least half of the headings of the level of the highest
    of them (the others of that level: `Older releases`, `Upgrading`...; below it, the parts
    of an entry: `Bug fixes`...)."""
    headings = [(section.level, section.header_path[-1]) for section in sections
                if section.header_path]
    version_levels = [level for level, title in headings if is_version_title(title)]
    if not version_levels:
        return False
    level = min(version_levels)
    versions = version_levels.count(level)
    return versions >= 2 and 2 * versions >= sum(1 for own, _ in headings if own == level)
