"""mdchunk: chunk a documentation site along its heading tree while it builds.

The core is engine-neutral. `Chunker.chunk_page` takes a rendered page (HTML and its facts) and
returns its chunks; `IndexBuilder` is one build of a site: pages in, every output written next
to the site at its finish. The MkDocs plugin (`mkdocs_mdchunk`), the Sphinx extension and the
`mdchunk` command only translate their engine's events into calls to it.
"""

from typing import TYPE_CHECKING, Any

from mdchunk._version import __version__
from mdchunk.chunking import Chunker, PageChunks, PageInput, build_time
from mdchunk.chunking.chunk import Chunk, Features, Flags
from mdchunk.chunking.model import Block, ParsedPage
from mdchunk.chunking.tokens import TokenCounter, load_encoding, tiktoken_counter, token_counter
from mdchunk.chunking.tree import Section, build_tree
from mdchunk.errors import MdChunkError, OptionError, PageError, TokenizerError
from mdchunk.options import PRESETS, AdaptiveSizing, ChunkOptions
from mdchunk.outputs.profiles import PROFILES
from mdchunk.outputs.writers import atomic_write, write_jsonl, write_text
from mdchunk.session import BuildSummary, IndexBuilder
from mdchunk.settings import BuildSettings

if TYPE_CHECKING:
    from mdchunk.chunking.html import parse_html
    from mdchunk.engines.site import SiteSummary, chunk_site

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


def __getattr__(name: str) -> Any:
    """Post-build chunking and the HTML parser, loaded when first used (a build that only hands
    its pages to worker processes needs neither)."""
    if name in ("SiteSummary", "chunk_site"):
        from mdchunk.engines import site as sites

        return getattr(sites, name)
    if name == "parse_html":
        from mdchunk.chunking.html import parse_html

        return parse_html
    raise AttributeError(f"module 'mdchunk' has no attribute {name!r}")
