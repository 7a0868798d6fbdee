"""The vectors of the records on Ray: a step of Ray Data's `map_batches` over a pool of actors,
each of which loads the model once (`mdchunk.search.embedders`, the models `mdchunk embed` and
`embed_model` name) and embeds each chunk's `embedText`, as mdchunk's own index embeds it
(`mdchunk.search.vectors`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mdchunk.search.embedders import BATCH_SIZE, DEFAULT_MODEL, check_model_name, load_embedder

if TYPE_CHECKING:
    from ray.data import Dataset

    from mdchunk.search.embedders import Embedder

ROWS_PER_BATCH = 256
"""Rows a pool's actor embeds at a time (each in the model's own batches of `BATCH_SIZE`)."""


def embedded(records: Dataset, model: str = DEFAULT_MODEL, *, actors: int = 1,
             gpus_per_actor: float = 0) -> Dataset:
    """`records` (rows of `mdchunk.ray.site_records`, or of a site's records file read back)
    with a `vector` column: the float32 unit vector of each chunk's `embedText` by `model`
    (`wordllama`, `model2vec:NAME_OR_PATH`, `sentence-transformers:NAME`, `fastembed:NAME`),
    made by a pool of `actors` Ray actors, each on `gpus_per_actor` GPUs (0: on CPU).

    Raises:
        EmbedderError: a name that names no model (checked here; a model that cannot be
            loaded fails the run, in the actor that loads it).
    """
    check_model_name(model)
    return records.map_batches(ChunkEmbedder, fn_constructor_kwargs={"model": model},
                               batch_size=ROWS_PER_BATCH, batch_format="numpy",
                               concurrency=actors, num_gpus=gpus_per_actor)


def embed_text(record: str) -> str:
    """What is embedded of a native record: its `embedText` (else its `originalText`), as
    `mdchunk.search.vectors` reads it from the index."""
    fields = json.loads(record)
    return str(fields.get("embedText") or fields.get("originalText") or "")


class ChunkEmbedder:
    """The callable Ray Data makes each actor of the pool with: loads the model once, then
    embeds batches of rows."""

    def __init__(self, model: str) -> None:
        self.embedder: Embedder = load_embedder(model)

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
        """The rows of `batch` with the `vector` of each."""
        texts = [embed_text(str(record)) for record in batch["record"]]
        return {**batch, "vector": self.embedder.embed(texts, batch_size=BATCH_SIZE)}
