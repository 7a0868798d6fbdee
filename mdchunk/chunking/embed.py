"""The text a chunk is embedded by (`embedText`): the embed template applied to the chunk, and
what the template costs in tokens beyond the chunk's own text.

Packing asks for that cost before a chunk exists (`max_tokens_bounds: embedText`): a chunk of a
section may hold `max_tokens` minus what the template adds for that section (its context line),
so that the text an embedding model reads fits the budget, not only the chunk's own text.
Describing a chunk asks for the embed text and its exact count. Both go through this one
object, so that what packing reserved and what the record holds cannot differ.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from mdchunk.model import Block
from mdchunk.tokens import TokenCounter


class EmbedTemplate:
    """The embed template of one page: `render` a chunk's embed text, count it, and say how
    many tokens the template adds to a chunk of a section (`cost`)."""

    def __init__(self, template: str, *, title: str, page_url: str,
                 count: TokenCounter) -> None:
        self.template = template
        self.title = title
        """The page title, cleaned as the records hold it."""
        self.page_url = page_url
        self.count = count
        self.text_last = text_comes_last(template)
        """Whether `{text}` ends the template, right after a line break."""
        self._costs: dict[tuple[int, ...], int] = {}

    def render(self, path: Sequence[Block], text: str) -> str:
        """The embed text of a chunk with `text` that starts in the section of heading `path`."""
        header_path = tuple(heading.title for heading in path)
        return self.template.format(
            text=text,
            context=context_line(self.title, header_path),
            title=self.title,
            breadcrumb=" > ".join(header_path),
            section=header_path[-1] if header_path else self.title,
            url=self.url(path),
        )

    def url(self, path: Sequence[Block]) -> str:
        """The chunk's url: the page's, with the nearest anchor of `path`."""
        slug = section_slug(path)
        return f"{self.page_url}#{slug}" if slug else self.page_url

    def tokens(self, path: Sequence[Block], text: str, text_tokens: int) -> int:
        """Exact tokens of the embed text of a chunk with `text` (of `text_tokens` tokens) in
        the section `path`, without counting the text again where the counts add up.

        tiktoken cuts text into pieces by a regex before BPE. A piece that reaches a line end
        ends there when a non-space character follows, so when the template puts `{text}` last
        and right after a line break (the default), the embed text counts as the template
        applied to no text plus the text. Any other template is counted whole.
        """
        if self.template == "{text}":
            return text_tokens
        if self.text_last and text and not text[0].isspace():
            return self.cost(path) + text_tokens
        return self.count(self.render(path, text))

    def cost(self, path: Sequence[Block]) -> int:
        """Tokens the template adds to the text of a chunk of the section `path`: the count of
        the template applied to no text (exact for the default template, whose text comes
        last after a line break; packing checks other templates chunk by chunk)."""
        key = tuple(id(heading) for heading in path)
        found = self._costs.get(key)
        if found is None:
            found = self._costs[key] = self.count(self.render(path, ""))
        return found


def text_comes_last(template: str) -> bool:
    """Whether `template` ends with `{text}` right after a line break, and holds it once."""
    parts = list(string.Formatter().parse(template))
    fields = [name for _, name, _, _ in parts if name is not None]
    last_literal, last_field = parts[-1][0], parts[-1][1]
    return (fields.count("text") == 1 and last_field == "text" and not parts[-1][2]
            and not parts[-1][3] and last_literal.endswith(("\n", "\r")))


def context_line(title: str, header_path: tuple[str, ...]) -> str:
    """Page title and breadcrumb joined with ' > ', without repeating the title."""
    parts = list(header_path)
    if title and (not parts or parts[0] != title):
        parts.insert(0, title)
    return " > ".join(parts)


def section_slug(path: Sequence[Block]) -> str:
    """The id the browser scrolls to for the section `path`: the nearest heading's that has one."""
    return next((heading.anchor for heading in reversed(path) if heading.anchor), "")
