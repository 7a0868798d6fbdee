"""One page: rendered HTML in, its chunks out.

The data path of a page, one module each: `html` (HTML -> blocks and the page Markdown), `tree`
(blocks -> the heading tree), `packing` (the tree -> pieces within the token budget), `describe`
(pieces -> `Chunk` records), and `chunker`, which runs them in turn (`Chunker.chunk_page`).
"""

from mdchunk.chunking.chunk import PageChunks
from mdchunk.chunking.chunker import Chunker, build_time
from mdchunk.chunking.model import PageInput

__all__ = ["Chunker", "PageChunks", "PageInput", "build_time"]
