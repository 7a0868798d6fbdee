"""One page: rendered HTML in, its chunks out.

The data path of a page, one module each: `html` (HTML -> blocks and the page Markdown), `tree`
(blocks -> the heading tree), `packing` (the tree -> pieces within the token budget), `describe`
(pieces -> `Chunk` records), and `chunker`, which runs them in turn (`Chunker.chunk_page`).
"""

from typing import TYPE_CHECKING, Any

from mdchunk.chunking.model import PageInput, build_time

if TYPE_CHECKING:
    from mdchunk.chunking.chunk import PageChunks
    from mdchunk.chunking.chunker import Chunker

__all__ = ["Chunker", "PageChunks", "PageInput", "build_time"]


def __getattr__(name: str) -> Any:
    """`Chunker` and `PageChunks`, imported when first asked for: a page's model (`PageInput`)
    is all that the process handing pages to a worker needs of the chunking."""
    if name == "Chunker":
        from mdchunk.chunking.chunker import Chunker

        return Chunker
    if name == "PageChunks":
        from mdchunk.chunking.chunk import PageChunks

        return PageChunks
    raise AttributeError(f"module 'mdchunk.chunking' has no attribute {name!r}")
