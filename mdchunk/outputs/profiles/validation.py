"""Seed 001's validation rules, as checks that name the field and the bad value.

The rules the seed states: UUIDs are valid UUIDv4; timestamps are ISO 8601 with a timezone;
links are `relation:uuid` with a valid UUID; numeric metrics lie in [0, 1]; required fields are
never null. The other checks here keep a value of the declared type, and keep the flat form
lossless (no comma inside a comma-joined list item).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from mdchunk.errors import MdChunkError

LINK_RELATIONS: tuple[str, ...] = ("parent", "related")
"""Relations a link may name: the ones the flat form has a field for (`link_parent`,
`link_related`), so that every link survives the conversion."""


class ChunkValidationError(MdChunkError, ValueError):
    """A field of a semantic or flat chunk has a bad value.

    Attributes:
        field: The field's name.
        value: The bad value.
        reason: What is wrong with it.
    """

    def __init__(self, field: str, value: object, reason: str) -> None:
        super().__init__(f"{field}: {reason}, got {value!r}")
        self.field = field
        self.value = value
        self.reason = reason


def require(field: str, value: object) -> None:
    """Required fields cannot be null."""
    if value is None:
        raise ChunkValidationError(field, value, "is required and cannot be null")


def _given(field: str, value: object, required: bool) -> bool:
    """Whether there is a value to check: None is none, and refused for a required field."""
    if required:
        require(field, value)
    return value is not None


def check_str(field: str, value: object, *, required: bool = False, blank: bool = True) -> None:
    """A string (or None when optional); `blank=False` also refuses "" and spaces."""
    if not _given(field, value, required):
        return
    if not isinstance(value, str):
        raise ChunkValidationError(field, value, "must be a string")
    if not blank and not value.strip():
        raise ChunkValidationError(field, value, "must not be blank")


def check_int(field: str, value: object, *, required: bool = False, minimum: int = 0) -> None:
    """An integer of at least `minimum` (or None when optional); booleans are not integers."""
    if not _given(field, value, required):
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ChunkValidationError(field, value, "must be an integer")
    if value < minimum:
        raise ChunkValidationError(field, value, f"must be at least {minimum}")


def check_bool(field: str, value: object) -> None:
    """A boolean (or None)."""
    if value is not None and not isinstance(value, bool):
        raise ChunkValidationError(field, value, "must be a boolean")


def check_choice(field: str, value: object, choices: Sequence[str], *, required: bool = False
                 ) -> None:
    """One of `choices` (or None when optional)."""
    if _given(field, value, required) and value not in choices:
        raise ChunkValidationError(field, value, f"must be one of {', '.join(choices)}")


def check_uuid4(field: str, value: object, *, required: bool = False) -> None:
    """A UUID in canonical text form (8-4-4-4-12 hex digits), version 4, RFC 4122 variant."""
    if not _given(field, value, required):
        return
    if not isinstance(value, str):
        raise ChunkValidationError(field, value, "must be a UUIDv4 string")
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise ChunkValidationError(field, value, "must be a valid UUIDv4") from None
    if str(parsed) != value.lower():
        raise ChunkValidationError(field, value, "must be a UUID in 8-4-4-4-12 form")
    if parsed.version != 4 or parsed.variant != uuid.RFC_4122:
        raise ChunkValidationError(field, value, "must be a UUID of version 4")


def check_timestamp(field: str, value: object) -> None:
    """ISO 8601 date and time with a timezone (`Z` or an offset)."""
    if value is None:
        return
    if not isinstance(value, str):
        raise ChunkValidationError(field, value, "must be an ISO 8601 string")
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ChunkValidationError(field, value, "must be an ISO 8601 timestamp") from None
    if "T" not in text.upper() and " " not in text:
        raise ChunkValidationError(field, value, "must be a date and a time")
    if moment.utcoffset() is None:
        raise ChunkValidationError(field, value, "must have a timezone (Z or +hh:mm)")


def check_link(field: str, value: object) -> None:
    """`relation:uuid`, the relation one of `LINK_RELATIONS`, the uuid a valid UUIDv4."""
    if not isinstance(value, str) or ":" not in value:
        raise ChunkValidationError(field, value, "must be 'relation:uuid'")
    relation, _, target = value.partition(":")
    if relation not in LINK_RELATIONS:
        raise ChunkValidationError(
            field, value, f"relation must be one of {', '.join(LINK_RELATIONS)}"
        )
    check_uuid4(field, target)


def check_unit(field: str, value: object) -> None:
    """A number in [0, 1] (or None)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ChunkValidationError(field, value, "must be a number")
    if not 0 <= value <= 1:
        raise ChunkValidationError(field, value, "must be within [0, 1]")


def check_item(field: str, value: object) -> None:
    """An item of a list that the flat form joins with commas: a non-empty string, no comma."""
    if not isinstance(value, str) or not value:
        raise ChunkValidationError(field, value, "items must be non-empty strings")
    if "," in value:
        raise ChunkValidationError(field, value, "items must not contain a comma")


def check_finite(field: str, value: object) -> None:
    """A finite number (an embedding component)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ChunkValidationError(field, value, "items must be finite numbers")


def check_sha256(field: str, value: object, text: str) -> None:
    """The SHA-256 of `text` (UTF-8), as 64 lowercase hex digits."""
    require(field, value)
    expected = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if value != expected:
        raise ChunkValidationError(field, value, "must be the SHA-256 (hex) of text")


def check_span(start: object, end: object) -> None:
    """`start` and `end` are required offsets, `start <= end`."""
    check_int("start", start, required=True)
    check_int("end", end, required=True)
    assert isinstance(start, int) and isinstance(end, int)
    if end < start:
        raise ChunkValidationError("end", end, f"must not be before start ({start})")


def model_values(model: type[Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form `data` of the dataclass `model` as its fields' values, refusing keys that
    are none of its fields."""
    known = [field.name for field in dataclasses.fields(model)]
    return check_keys(model.__name__, dict(data), known)


def json_form(model: Any) -> dict[str, Any]:
    """The JSON form of a dataclass instance, in field order, without the fields that are
    None: a nested model by its own `as_dict`, a tuple as a list, a dict as JSON values."""
    data: dict[str, Any] = {}
    for field in dataclasses.fields(model):
        value = getattr(model, field.name)
        nested = getattr(value, "as_dict", None)
        if callable(nested):
            value = nested()
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = json.loads(json.dumps(value))
        if value is not None:
            data[field.name] = value
    return data


def check_keys(model: str, data: object, known: Sequence[str]) -> dict[str, Any]:
    """`data` as a dict whose keys are all fields of `model`."""
    if not isinstance(data, dict):
        raise ChunkValidationError(model, data, "must be a JSON object")
    for key in data:
        if key not in known:
            raise ChunkValidationError(str(key), data[key], f"is not a field of {model}")
    return data
