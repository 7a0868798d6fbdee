"""Errors raised by the mdchunk core; the adapters turn them into their engine's errors."""

from __future__ import annotations


class MdChunkError(Exception):
    """Base class of every error mdchunk raises on purpose."""


class OptionError(MdChunkError):
    """A chunking option has a bad value.

    Attributes:
        option: The option's name as the user wrote it (without any engine prefix).
    """

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"option '{option}': {message}")
        self.option = option
        self.message = message


class TokenizerError(MdChunkError):
    """No tokenizer could be loaded for the configured encoding."""


class PageError(MdChunkError):
    """A page could not be chunked.

    Attributes:
        page: The page's source path.
    """

    def __init__(self, page: str, message: str) -> None:
        super().__init__(f"{page}: {message}")
        self.page = page
        self.message = message


class PagefindError(MdChunkError):
    """Pagefind is missing, cannot run, or failed to write the bundle."""
