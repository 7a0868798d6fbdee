"""The mdchunk MkDocs plugin: `plugins: [mdchunk]` in mkdocs.yml (ProperDocs alike)."""

from mkdocs_mdchunk.config import MdChunkConfig
from mkdocs_mdchunk.plugin import MdChunkPlugin

__all__ = ["MdChunkConfig", "MdChunkPlugin"]
