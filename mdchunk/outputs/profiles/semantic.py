"""The `semantic` profile (seed 001): `SemanticChunk`, the nested model, with its validation.

Every field of the seed is a field here; mdchunk fills the ones it knows:

- `uuid`, `source_id`, `block_id`: deterministic, in UUIDv4 form as the seed requires: the
  version 5 uuid of the chunk, page or section with its version nibble set to 4
  (`as_uuid4`), so they stay the same from build to build.
- `type`: "CodeBlock" when everything in the chunk but its headings is code in one language,
  else "DocBlock".
- `language`: for a CodeBlock its programming language; else the natural language of the page:
  front matter `language` or `lang`, else the site's language (`ProfileSettings.language`), else
  "UNKNOWN" (never a guess).
- `start`/`end`: character offsets into the page Markdown (`originalText` at
  `charOffsets`); `source_lines`: `[start_line, end_line]` in that Markdown; `source_path`: the
  page's source file.
- `links`: `parent:<page uuid>`, then `related:<uuid>` of the previous and the next chunk.
- `tags`: front matter `tags` when it is a list of strings (items that are blank or hold a comma,
  which the flat form could not keep, are left out).
- `block_type` "section", `block_id` the section the chunk starts in (the page's root section
  for a preamble), `block_index` its position among the page's sections that start a chunk.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mdchunk.chunking.chunk import UUID_NAMESPACE, Chunk
from mdchunk.outputs.catalog import Record
from mdchunk.outputs.profiles.base import (
    ChunksLike,
    ProfileSettings,
    chunks_of,
    front_matter_text,
)
from mdchunk.outputs.profiles.validation import (
    ChunkValidationError,
    check_bool,
    check_choice,
    check_finite,
    check_int,
    check_item,
    check_link,
    check_sha256,
    check_span,
    check_str,
    check_timestamp,
    check_unit,
    check_uuid4,
    json_form,
    model_values,
    require,
)

CHUNK_TYPES: tuple[str, ...] = (
    "DocBlock", "CodeBlock", "Message", "Draft", "Task", "Subtask", "TZ", "Comment", "Log",
    "Metric",
)
"""Values of `type` (chunk_metadata_adapter's ChunkType)."""
CHUNK_ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool", "reviewer", "developer")
"""Values of `role` (ChunkRole)."""
CHUNK_STATUSES: tuple[str, ...] = (
    "new", "raw", "cleaned", "verified", "validated", "reliable", "indexed", "obsolete",
    "rejected", "in_progress", "needs_review", "archived",
)
"""Values of `status` (ChunkStatus)."""
UNKNOWN_LANGUAGE = "UNKNOWN"
"""`language` when neither the page nor the site says which language it is in."""
_UNIT_METRICS = ("quality_score", "coverage", "cohesion", "boundary_prev", "boundary_next")


def as_uuid4(value: str) -> str:
    """The same 128 bits in UUIDv4 form: version nibble 4, RFC 4122 variant (deterministic)."""
    return str(uuid.UUID(bytes=uuid.UUID(value).bytes, version=4))


def _set(instance: object, name: str, value: object) -> None:
    object.__setattr__(instance, name, value)


@dataclasses.dataclass(frozen=True, slots=True)
class FeedbackMetrics:
    """User feedback on a chunk."""

    accepted: int = 0
    rejected: int = 0
    modifications: int = 0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            check_int(f"feedback.{field.name}", getattr(self, field.name), required=True)

    def as_dict(self) -> dict[str, int]:
        """JSON form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FeedbackMetrics:
        """Read the JSON form back, refusing unknown fields."""
        return cls(**model_values(cls, data))


@dataclasses.dataclass(frozen=True, slots=True)
class ChunkMetrics:
    """Quality and usage metrics (scores in [0, 1])."""

    quality_score: float | None = None
    coverage: float | None = None
    cohesion: float | None = None
    boundary_prev: float | None = None
    """Boundary similarity with the previous chunk."""
    boundary_next: float | None = None
    """Boundary similarity with the next chunk."""
    matches: int | None = None
    """Retrieval matches."""
    used_in_generation: bool = False
    used_as_input: bool = False
    used_as_context: bool = False
    feedback: FeedbackMetrics | None = None

    def __post_init__(self) -> None:
        for name in _UNIT_METRICS:
            check_unit(name, getattr(self, name))
        check_int("matches", self.matches)
        for name in ("used_in_generation", "used_as_input", "used_as_context"):
            require(name, getattr(self, name))
            check_bool(name, getattr(self, name))
        if self.feedback is not None and not isinstance(self.feedback, FeedbackMetrics):
            raise ChunkValidationError("feedback", self.feedback, "must be FeedbackMetrics")

    def as_dict(self) -> dict[str, Any]:
        """JSON form, without the fields that are None."""
        return json_form(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChunkMetrics:
        """Read the JSON form back, refusing unknown fields."""
        values = model_values(cls, data)
        if isinstance(values.get("feedback"), Mapping):
            values["feedback"] = FeedbackMetrics.from_dict(values["feedback"])
        return cls(**values)


@dataclasses.dataclass(frozen=True, slots=True)
class CommonChunkFields:
    """The fields that seed 001's nested and flat chunk models share, first in both, with the
    same names and rules (`check_common_fields`)."""

    uuid: str
    """UUIDv4 of the chunk."""
    type: str
    """One of `CHUNK_TYPES`."""
    text: str
    language: str
    """Content language (code or natural language)."""
    sha256: str
    """SHA-256 of `text` (UTF-8), hex."""
    start: int
    """Offset of the chunk in the source text (characters for mdchunk)."""
    end: int
    source_id: str | None = None
    """UUIDv4 of the source document."""
    project: str | None = None
    task_id: str | None = None
    subtask_id: str | None = None
    unit_id: str | None = None
    role: str | None = None
    """One of `CHUNK_ROLES`."""
    summary: str | None = None
    source_path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON form, in field order, without the optional fields that are None."""
        return json_form(self)


@dataclasses.dataclass(frozen=True, slots=True)
class SemanticChunk(CommonChunkFields):
    """Seed 001's nested chunk model. Every value is checked when the object is made.

    Raises:
        ChunkValidationError: naming the field and the bad value.
    """

    source_lines: tuple[int, int] | None = None
    """First and last line of the chunk in the source."""
    ordinal: int | None = None
    created_at: str | None = None
    """ISO 8601 with a timezone."""
    status: str | None = None
    """One of `CHUNK_STATUSES`."""
    chunking_version: str | None = None
    embedding: tuple[float, ...] | None = None
    links: tuple[str, ...] | None = None
    """`relation:uuid` items; parent links first, then related ones."""
    tags: tuple[str, ...] | None = None
    metrics: ChunkMetrics | None = None
    block_id: str | None = None
    """UUIDv4 of the source block (paragraph, message, section) the chunk belongs to."""
    block_type: str | None = None
    block_index: int | None = None
    block_meta: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        check_common_fields(self)
        self._check_sequences()
        if self.metrics is not None and not isinstance(self.metrics, ChunkMetrics):
            raise ChunkValidationError("metrics", self.metrics, "must be ChunkMetrics")
        if self.block_meta is not None:
            _set(self, "block_meta", _json_object("block_meta", self.block_meta))

    def _check_sequences(self) -> None:
        if self.source_lines is not None:
            lines = _sequence("source_lines", self.source_lines)
            if len(lines) != 2:
                raise ChunkValidationError("source_lines", self.source_lines,
                                           "must be [first line, last line]")
            check_int("source_lines", lines[0])
            check_int("source_lines", lines[1], minimum=lines[0])
            _set(self, "source_lines", tuple(lines))
        if self.embedding is not None:
            vector = _sequence("embedding", self.embedding)
            for value in vector:
                check_finite("embedding", value)
            _set(self, "embedding", tuple(float(value) for value in vector))
        if self.links is not None:
            links = _sequence("links", self.links)
            for link in links:
                check_link("links", link)
            ordered = sorted(links, key=lambda link: not link.startswith("parent:"))
            _set(self, "links", tuple(ordered))
        if self.tags is not None:
            tags = _sequence("tags", self.tags)
            for tag in tags:
                check_item("tags", tag)
            _set(self, "tags", tuple(tags))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SemanticChunk:
        """Read the JSON form back (missing optional fields are None; unknown ones refused)."""
        values = model_values(cls, data)
        require_common_fields(values)
        if isinstance(values.get("metrics"), Mapping):
            values["metrics"] = ChunkMetrics.from_dict(values["metrics"])
        return cls(**values)


def require_common_fields(values: Mapping[str, Any]) -> None:
    """The fields that both models require, in their JSON form."""
    for name in ("uuid", "type", "text", "language", "sha256", "start", "end"):
        require(name, values.get(name))


def check_common_fields(chunk: Any) -> None:
    """The rules of the fields that the nested and the flat model share (same names)."""
    check_uuid4("uuid", chunk.uuid, required=True)
    check_choice("type", chunk.type, CHUNK_TYPES, required=True)
    check_str("text", chunk.text, required=True)
    check_str("language", chunk.language, required=True, blank=False)
    check_str("sha256", chunk.sha256, required=True)
    check_sha256("sha256", chunk.sha256, chunk.text)
    check_span(chunk.start, chunk.end)
    check_uuid4("source_id", chunk.source_id)
    for name in ("project", "task_id", "subtask_id", "unit_id", "summary", "source_path",
                 "chunking_version", "block_type"):
        check_str(name, getattr(chunk, name))
    check_choice("role", chunk.role, CHUNK_ROLES)
    check_choice("status", chunk.status, CHUNK_STATUSES)
    check_int("ordinal", chunk.ordinal)
    check_int("block_index", chunk.block_index)
    check_timestamp("created_at", chunk.created_at)
    check_uuid4("block_id", chunk.block_id)


def _sequence(field: str, value: object) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ChunkValidationError(field, value, "must be a list")
    return list(value)


def _json_object(field: str, value: object) -> dict[str, Any]:
    """`value` as plain JSON (tuples become lists), or an error naming `field`."""
    if not isinstance(value, dict):
        raise ChunkValidationError(field, value, "must be an object")
    if any(not isinstance(key, str) for key in value):
        raise ChunkValidationError(field, value, "keys must be strings")
    try:
        plain: dict[str, Any] = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise ChunkValidationError(field, value, f"must hold JSON values ({error})") from None
    return plain


# -- from mdchunk's chunks -------------------------------------------------------------------


def natural_language(chunk: Chunk, settings: ProfileSettings | None = None) -> str:
    """Front matter `language`/`lang`, else the site's language, else "UNKNOWN"."""
    site = settings.language if settings else None
    return front_matter_text(chunk, "language", "lang") or site or UNKNOWN_LANGUAGE


def code_only_language(chunk: Chunk) -> str | None:
    """The language of a chunk that holds nothing but code (and headings) in one named
    language, else None."""
    kinds = set(chunk.block_types) - {"heading"}
    languages = set(chunk.features.code_languages)
    if kinds == {"code"} and len(languages) == 1 and "" not in languages:
        return languages.pop()
    return None


def block_key(chunk: Chunk) -> str:
    """The section the chunk starts in, as text unique in the site."""
    return f"{chunk.parent_id}#{chunk.section_slug}|" + "\x1f".join(chunk.header_path)


def semantic_chunks(page: ChunksLike, settings: ProfileSettings | None = None
                    ) -> Iterator[SemanticChunk]:
    """One `SemanticChunk` per chunk of the page, in order, one at a time."""
    blocks: dict[str, int] = {}
    for chunk in chunks_of(page):
        block_index = blocks.setdefault(block_key(chunk), len(blocks))
        yield _semantic(chunk, settings, block_index)


def semantic_records(page: ChunksLike, settings: ProfileSettings | None = None
                     ) -> Iterator[Record]:
    """The `semantic` records of one page (`SemanticChunk.as_dict()`), one at a time."""
    for chunk in semantic_chunks(page, settings):
        yield chunk.as_dict()


def _semantic(chunk: Chunk, settings: ProfileSettings | None, block_index: int) -> SemanticChunk:
    source_id = as_uuid4(chunk.document_uuid)
    links = [f"parent:{source_id}"]
    for neighbour in (chunk.prev_id, chunk.next_id):
        if neighbour is not None:
            links.append(f"related:{as_uuid4(str(uuid.uuid5(UUID_NAMESPACE, neighbour)))}")
    code = code_only_language(chunk)
    block_id = as_uuid4(str(uuid.uuid5(UUID_NAMESPACE, block_key(chunk))))
    return SemanticChunk(
        uuid=as_uuid4(chunk.uuid),
        type="CodeBlock" if code else "DocBlock",
        text=chunk.text,
        language=code or natural_language(chunk, settings),
        sha256=chunk.sha256,
        start=chunk.char_start,
        end=chunk.char_end,
        source_id=source_id,
        source_path=chunk.source_file,
        source_lines=(chunk.start_line, chunk.end_line),
        ordinal=chunk.chunk_number,
        created_at=chunk.processed_at,
        chunking_version=chunk.version,
        links=tuple(links),
        tags=_tags(chunk.front_matter.get("tags")),
        block_id=block_id,
        block_type="section",
        block_index=block_index,
    )


def _tags(value: object) -> tuple[str, ...] | None:
    """Front matter tags, when a list of strings, without items the flat form cannot keep."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return tuple(tag for item in value if (tag := item.strip()) and "," not in tag)
