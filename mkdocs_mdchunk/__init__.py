"""The mdchunk MkDocs plugin: `plugins: [mdchunk]` in mkdocs.yml, for MkDocs 1.x and ProperDocs.

MkDocs 2 runs no plugins at all: sites built with it (or with Zensical) are chunked after the
build with `mdchunk site SITE_DIR`.
"""

from __future__ import annotations

import mkdocs

if str(getattr(mkdocs, "__version__", "1")).split(".", 1)[0] not in {"0", "1"}:
    raise ImportError(
        f"mdchunk's plugin needs a plugin-capable MkDocs (1.x) or ProperDocs; MkDocs "
        f"{mkdocs.__version__} runs no plugins. Install 'mkdocs<2' or properdocs, or chunk the "
        "built site with `mdchunk site SITE_DIR`."
    )

try:  # ProperDocs asks its plugins to call `setup`, which prints a banner under `mkdocs`:
    import properdocs.replacement_warning  # mdchunk calls it only where ProperDocs runs.
except ImportError:  # pragma: no cover - properdocs is optional
    pass
else:
    if not properdocs.replacement_warning.is_running_from_mkdocs():
        properdocs.replacement_warning.setup()

from mkdocs_mdchunk.plugin import MdChunkPlugin
from mkdocs_mdchunk.plugin_config import MdChunkConfig

__all__ = ["MdChunkConfig", "MdChunkPlugin"]
