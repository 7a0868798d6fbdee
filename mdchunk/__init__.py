"""mdchunk: chunk a documentation site along its heading tree while it builds.

The core is engine-neutral. `Chunker.chunk_page` takes a rendered page (HTML and its facts) and
returns its chunks; `IndexBuilder` is one build of a site: pages in, every output written next
to the site at its finish. The MkDocs plugin (`mkdocs_mdchunk`), the Sphinx extension and the
`mdchunk` command only translate their engine's events into calls to it.
"""

import importlib
from typing import TYPE_CHECKING, Any

from mdchunk._version import __version__
from mdchunk.errors import MdChunkError, OptionError, PageError, TokenizerError

if TYPE_CHECKING:
    from mdchunk.chunking.chunk import Chunk, Features, Flags, PageChunks
    from mdchunk.chunking.chunker import Chunker
    from mdchunk.chunking.html import parse_html
    from mdchunk.chunking.model import Block, PageInput, ParsedPage, build_time
    from mdchunk.chunking.tokens import (
        TokenCounter,
        load_encoding,
        tiktoken_counter,
        token_counter,
    )
    from mdchunk.chunking.tree import Section, build_tree
    from mdchunk.engines.site import SiteSummary, chunk_site
    from mdchunk.options import PRESETS, AdaptiveSizing, ChunkOptions
    from mdchunk.outputs.profiles import PROFILES
    from mdchunk.outputs.writers import atomic_write, write_jsonl, write_text
    from mdchunk.session import BuildSummary, IndexBuilder
    from mdchunk.settings import BuildSettings

__all__ = [
    "PRESETS",
    "PROFILES",
    "AdaptiveSizing",
    "Block",
    "BuildSettings",
    "BuildSummary",
    "Chunk",
    "ChunkOptions",
    "Chunker",
    "Features",
    "Flags",
    "IndexBuilder",
    "MdChunkError",
    "OptionError",
    "PageChunks",
    "PageError",
    "PageInput",
    "ParsedPage",
    "Section",
    "SiteSummary",
    "TokenCounter",
    "TokenizerError",
    "__version__",
    "atomic_write",
    "build_time",
    "build_tree",
    "chunk_site",
    "load_encoding",
    "parse_html",
    "tiktoken_counter",
    "token_counter",
    "write_jsonl",
    "write_text",
]

_HOMES = {
    "mdchunk.chunking.chunk": ("Chunk", "Features", "Flags", "PageChunks"),
    "mdchunk.chunking.chunker": ("Chunker",),
    "mdchunk.chunking.html": ("parse_html",),
    "mdchunk.chunking.model": ("Block", "PageInput", "ParsedPage", "build_time"),
    "mdchunk.chunking.tokens": ("TokenCounter", "load_encoding", "tiktoken_counter",
                                "token_counter"),
    "mdchunk.chunking.tree": ("Section", "build_tree"),
    "mdchunk.engines.site": ("SiteSummary", "chunk_site"),
    "mdchunk.options": ("PRESETS", "AdaptiveSizing", "ChunkOptions"),
    "mdchunk.outputs.profiles": ("PROFILES",),
    "mdchunk.outputs.writers": ("atomic_write", "write_jsonl", "write_text"),
    "mdchunk.session": ("BuildSummary", "IndexBuilder"),
    "mdchunk.settings": ("BuildSettings",),
}
"""The module each name of the public API is defined in."""


def __getattr__(name: str) -> Any:
    """A name of the public API, imported from its module when first asked for: importing
    mdchunk (as every part of it does) loads none of the chunking, so a build process that
    hands its pages to a worker never loads it."""
    for module, names in _HOMES.items():
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'mdchunk' has no attribute {name!r}")
