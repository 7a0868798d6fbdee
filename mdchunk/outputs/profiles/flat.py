"""The `flat` profile (seed 001): `FlatSemanticChunk`, and lossless conversion both ways.

Flat means primitive values only: `source_lines` becomes `source_lines_start`/`_end`; `links`
becomes `link_parent` and `link_related` (comma-joined uuids); `tags` and `embedding` become
comma-joined strings (`""` for an empty list); `metrics` is spread over the root
(`quality_score` ... `used_as_context`, `feedback_accepted`/`_rejected`/`_modifications`);
`block_meta` becomes its JSON text.

`to_flat` and `to_semantic` are inverse: both models refuse what the other could not hold
(a comma inside a tag, a link relation without a flat field), and both keep one spelling of
each value (floats as `repr`, JSON with sorted keys, parent links before related ones). So that
"no links" and "no metrics" survive too, paired flat fields are set together or not at all.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import ChunksLike, ProfileSettings
from mdchunk.outputs.profiles.semantic import (
    ChunkMetrics,
    CommonChunkFields,
    FeedbackMetrics,
    SemanticChunk,
    check_common_fields,
    require_common_fields,
    semantic_chunks,
)
from mdchunk.outputs.profiles.validation import (
    ChunkValidationError,
    check_int,
    check_item,
    check_str,
    check_uuid4,
    model_values,
)

_METRICS = tuple(field.name for field in dataclasses.fields(ChunkMetrics)
                 if field.name != "feedback")
"""The fields of `ChunkMetrics` that the flat model holds at its root, under the same names."""
_FEEDBACK = tuple(field.name for field in dataclasses.fields(FeedbackMetrics))
"""The fields of `FeedbackMetrics`, at the flat model's root as `feedback_<name>`."""


@dataclasses.dataclass(frozen=True, slots=True)
class FlatSemanticChunk(CommonChunkFields):
    """Seed 001's flat chunk model: every value a string, number, boolean or None.

    Raises:
        ChunkValidationError: naming the field and the bad value.
    """

    source_lines_start: int | None = None
    source_lines_end: int | None = None
    ordinal: int | None = None
    created_at: str | None = None
    status: str | None = None
    chunking_version: str | None = None
    embedding: str | None = None
    """Comma-joined floats."""
    link_parent: str | None = None
    """Comma-joined uuids of the `parent:` links."""
    link_related: str | None = None
    """Comma-joined uuids of the `related:` links."""
    tags: str | None = None
    """Comma-joined tags."""
    coverage: float | None = None
    """The metrics in the order of seed 001's flat metrics table, then those it leaves out."""
    cohesion: float | None = None
    boundary_prev: float | None = None
    boundary_next: float | None = None
    quality_score: float | None = None
    matches: int | None = None
    used_in_generation: bool | None = None
    used_as_input: bool | None = None
    used_as_context: bool | None = None
    feedback_accepted: int | None = None
    feedback_rejected: int | None = None
    feedback_modifications: int | None = None
    block_id: str | None = None
    block_type: str | None = None
    block_index: int | None = None
    block_meta: str | None = None
    """JSON text of an object."""

    def __post_init__(self) -> None:
        check_common_fields(self)
        self._check_lines()
        self._check_lists()
        self._check_metrics()
        if self.block_meta is not None:
            object.__setattr__(self, "block_meta", _json_text(self.block_meta))

    def _check_lines(self) -> None:
        start, end = self.source_lines_start, self.source_lines_end
        _paired(("source_lines_start", start), ("source_lines_end", end))
        check_int("source_lines_start", start)
        if start is not None:
            check_int("source_lines_end", end, minimum=start)

    def _check_lists(self) -> None:
        _paired(("link_parent", self.link_parent), ("link_related", self.link_related))
        for name in ("link_parent", "link_related"):
            for target in _split(name, getattr(self, name)):
                check_uuid4(name, target)
        for tag in _split("tags", self.tags):
            check_item("tags", tag)
        if self.embedding is not None:
            vector = _floats(_split("embedding", self.embedding))
            object.__setattr__(self, "embedding", ",".join(repr(value) for value in vector))

    def _check_metrics(self) -> None:
        """The feedback counts are set together; the metrics follow the nested model's rules
        (`metrics` makes its `ChunkMetrics`)."""
        feedback = [(f"feedback_{name}", getattr(self, f"feedback_{name}")) for name in _FEEDBACK]
        _paired(*feedback)
        for name, value in feedback:
            check_int(name, value)
        self.metrics()

    def metrics(self) -> ChunkMetrics | None:
        """The metrics spread over this chunk's root, as the nested model holds them (None
        when none is set).

        Raises:
            ChunkValidationError: a metric breaks `ChunkMetrics`' rules (a score outside
                [0, 1]; a usage boolean missing while other metrics are set).
        """
        values = {name: getattr(self, name) for name in _METRICS}
        if self.feedback_accepted is None and all(value is None for value in values.values()):
            return None
        feedback = None if self.feedback_accepted is None else FeedbackMetrics(
            **{name: getattr(self, f"feedback_{name}") for name in _FEEDBACK})
        return ChunkMetrics(**values, feedback=feedback)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FlatSemanticChunk:
        """Read the JSON form back (missing optional fields are None; unknown ones refused)."""
        values = model_values(cls, data)
        require_common_fields(values)
        return cls(**values)


_SHARED = (
    "uuid", "type", "text", "language", "sha256", "start", "end", "source_id", "project",
    "task_id", "subtask_id", "unit_id", "role", "summary", "source_path", "ordinal",
    "created_at", "status", "chunking_version", "block_id", "block_type", "block_index",
)


def to_flat(chunk: SemanticChunk) -> FlatSemanticChunk:
    """The flat form of a semantic chunk (lossless: `to_semantic` gives it back)."""
    values: dict[str, Any] = {name: getattr(chunk, name) for name in _SHARED}
    if chunk.source_lines is not None:
        values["source_lines_start"], values["source_lines_end"] = chunk.source_lines
    if chunk.embedding is not None:
        values["embedding"] = ",".join(repr(value) for value in chunk.embedding)
    if chunk.links is not None:
        for relation in ("parent", "related"):
            prefix = relation + ":"
            values[f"link_{relation}"] = ",".join(
                link[len(prefix):] for link in chunk.links if link.startswith(prefix)
            )
    if chunk.tags is not None:
        values["tags"] = ",".join(chunk.tags)
    if chunk.metrics is not None:
        values.update({name: getattr(chunk.metrics, name) for name in _METRICS})
        if chunk.metrics.feedback is not None:
            for name in _FEEDBACK:
                values[f"feedback_{name}"] = getattr(chunk.metrics.feedback, name)
    if chunk.block_meta is not None:
        values["block_meta"] = _json_text(chunk.block_meta)
    return FlatSemanticChunk(**values)


def to_semantic(flat: FlatSemanticChunk) -> SemanticChunk:
    """The nested form of a flat chunk (lossless: `to_flat` gives it back)."""
    values: dict[str, Any] = {name: getattr(flat, name) for name in _SHARED}
    if flat.source_lines_start is not None and flat.source_lines_end is not None:
        values["source_lines"] = (flat.source_lines_start, flat.source_lines_end)
    if flat.embedding is not None:
        values["embedding"] = tuple(_floats(_split("embedding", flat.embedding)))
    if flat.link_parent is not None and flat.link_related is not None:
        values["links"] = tuple(
            [f"parent:{target}" for target in _split("link_parent", flat.link_parent)]
            + [f"related:{target}" for target in _split("link_related", flat.link_related)]
        )
    if flat.tags is not None:
        values["tags"] = tuple(_split("tags", flat.tags))
    values["metrics"] = flat.metrics()
    if flat.block_meta is not None:
        values["block_meta"] = json.loads(flat.block_meta)
    return SemanticChunk(**values)


def flat_records(page: ChunksLike, settings: ProfileSettings | None = None
                 ) -> Iterator[Record]:
    """The `flat` records of one page (`to_flat(...).as_dict()`), one at a time."""
    for chunk in semantic_chunks(page, settings):
        yield to_flat(chunk).as_dict()


def _split(field: str, value: str | None) -> list[str]:
    """Items of a comma-joined string ("" and None: none)."""
    check_str(field, value)
    return value.split(",") if value else []


def _floats(items: list[str]) -> list[float]:
    values: list[float] = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise ChunkValidationError("embedding", item, "items must be numbers") from None
        if not math.isfinite(value):
            raise ChunkValidationError("embedding", item, "items must be finite numbers")
        values.append(value)
    return values


def _paired(*fields: tuple[str, object]) -> None:
    """Fields that are set together or not at all."""
    set_ = [name for name, value in fields if value is not None]
    if set_ and len(set_) != len(fields):
        missing = next(name for name, value in fields if value is None)
        raise ChunkValidationError(
            missing, None, f"must be set together with {', '.join(set_)}"
        )


def _json_text(value: object) -> str:
    """One spelling of a JSON object: sorted keys, no spaces, UTF-8 text."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ChunkValidationError("block_meta", value, "must be JSON text") from None
    if not isinstance(value, dict):
        raise ChunkValidationError("block_meta", value, "must be a JSON object")
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ChunkValidationError("block_meta", value, f"must hold JSON values ({error})"
                                   ) from None
