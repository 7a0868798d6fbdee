"""Search over a written index: the ranking that `mdchunk query` and `mdchunk mcp` share.

A question is matched against the `chunks.sqlite` of a build (`mdchunk.outputs.sqlite`): each
side of the search ranks the index's chunks its own way (`lexical`: FTS5 BM25 over breadcrumbs,
titles and text, in a hybrid search also for the index's words nearest to the question's,
`vocabulary`; `dense`: cosine similarity to the question of the vectors `vectors.embed_index`
stored in the index, made by a model of `embedders`), the rankings are fused, and
`ranking.search` returns the best hits, at most one per section unless asked otherwise.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mdchunk.search.dense import SearchError
    from mdchunk.search.ranking import MODES, Hit, Mode, search

__all__ = ["MODES", "Hit", "Mode", "SearchError", "search"]

_HOMES = {
    "mdchunk.search.dense": ("SearchError",),
    "mdchunk.search.ranking": ("MODES", "Hit", "Mode", "search"),
}
"""The module each name above is defined in."""


def __getattr__(name: str) -> Any:
    """A name above, imported from its module when first asked for: a build reads the page
    kinds of its options (`kinds`) without loading the search, its index reader and models."""
    for module, names in _HOMES.items():
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'mdchunk.search' has no attribute {name!r}")
