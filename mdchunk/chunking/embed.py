"""The text a chunk is embedded by (`embedText`): the embed template applied to the chunk, and
what the template costs in tokens beyond the chunk's own text.

Packing asks for that cost before a chunk exists (`max_tokens_bounds: embedText`): a chunk of a
section may hold `max_tokens` minus what the template adds for that section (its context line),
so that the text an embedding model reads fits the budget, not only the chunk's own text.
Describing a chunk asks for the embed text and its exact count. Both go through this one
object, so that what packing reserved and what the record holds cannot differ.

With `embed_links: text` (the default) the chunk's text goes into the template with each
Markdown link written as its text and each image as its alt text (`links_as_text`): the embed text
is then never longer than the template applied to the chunk's own text, which is what packing
reserves room for, and its exact count is taken from the text as embedded.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from mdchunk.chunking.markdown_text import links_as_text
from mdchunk.chunking.model import Block
from mdchunk.chunking.tokens import TokenCounter


class EmbedTemplate:
    """The embed template of one page: `render` a chunk's embed text, count it, and say how
    many tokens the template adds to a chunk of a section (`cost`)."""

    def __init__(self, template: str, *, title: str, page_url: str,
                 count: TokenCounter, links: str = "text") -> None:
        self.template = template
        self.links_as_text = links == "text"
        """Whether links read as their text in the embed text (`embed_links: text`)."""
        self.title = title
        """The page title, cleaned as the records hold it."""
        self.page_url = page_url
        self.count = count
        self.text_last = text_comes_last(template)
        """Whether `{text}` ends the template, right after a line break."""
        self._heads: dict[tuple[int, ...], tuple[str, int | None]] = {}
        """A section's key (`_key`): the template applied to no text in that section, and its
        count once known (packing asks for the count, describing for the text)."""
        self._embedded: dict[str, tuple[str, int | None]] = {}
        """A chunk text: the text as embedded, and its count once known (packing and
        describing ask for the same chunks)."""

    def embedded(self, text: str) -> str:
        """`text` as it goes into the template: with `embed_links: text`, links as their text."""
        if not self.links_as_text:
            return text
        found = self._embedded.get(text)
        if found is None:
            found = self._embedded[text] = (links_as_text(text), None)
        return found[0]

    def render(self, path: Sequence[Block], text: str) -> str:
        """The embed text of a chunk with `text` that starts in the section of heading `path`:
        where `{text}` ends the template, the section's head (the template applied to no text,
        made once per section) and the text as embedded."""
        if self.text_last:
            return self._head(path)[0] + self.embedded(text)
        return self._format(path, self.embedded(text))

    def _format(self, path: Sequence[Block], embedded: str) -> str:
        """The template applied to the text as embedded in the section `path`."""
        header_path = tuple(heading.title for heading in path)
        return self.template.format(
            text=embedded,
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
        embedded = self.embedded(text)
        if embedded != text:
            text_tokens = self._count_embedded(text, embedded)
        if self.template == "{text}":
            return text_tokens
        if self.text_last and embedded and not embedded[0].isspace():
            return self.cost(path) + text_tokens
        return self.count(self.render(path, text))

    def _count_embedded(self, text: str, embedded: str) -> int:
        """Tokens of `embedded`, the text of `text` as embedded (counted once per text)."""
        known = self._embedded[text][1]
        if known is None:
            known = self.count(embedded)
            self._embedded[text] = (embedded, known)
        return known

    def cost(self, path: Sequence[Block]) -> int:
        """Tokens the template adds to the text of a chunk of the section `path`: the count of
        the template applied to no text (exact for the default template, whose text comes
        last after a line break; packing checks other templates chunk by chunk)."""
        head, known = self._head(path)
        if known is None:
            known = self.count(head)
            self._heads[tuple(map(id, path))] = (head, known)
        return known

    def _head(self, path: Sequence[Block]) -> tuple[str, int | None]:
        """The template applied to no text in the section `path`, and its count once known."""
        key = tuple(map(id, path))  # (the headings live as long as the page)
        found = self._heads.get(key)
        if found is None:
            found = self._heads[key] = (self._format(path, ""), None)
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
    for heading in reversed(path):
        if heading.anchor:
            return heading.anchor
    return ""
