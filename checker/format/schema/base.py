"""Shared base classes and field types of every model in the canonical format.

`EventBase` and `event_model` make each event a frozen, slotted pydantic dataclass (the fields every
line carries: `seq`, `prev`); `Model` is the manifests' base; `Int64`, `Sha256Hex`, `JsonObject` and
`JsonValue` bound what a log may hold (integers of 64 bits, finite numbers); `unit` and `examples`
add a field's unit and a model's example lines to its JSON Schema.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Annotated, Any, ClassVar, TypeVar, cast, dataclass_transform

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.config import JsonDict
from pydantic.dataclasses import dataclass as pydantic_dataclass
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import SchemaSerializer, SchemaValidator

import checker

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
"""Every integer in a run log must fit in a signed 64-bit integer (checked by `checker.stages.validate`)."""


def out_of_range(obj: Any) -> tuple[tuple[str, ...], str] | None:
    """(location, reason) of the first integer beyond 64 bits or infinite float in a JSON value, else None."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(obj, ())]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, (*loc, str(k))) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, (*loc, str(i))) for i, v in reversed(list(enumerate(value))))
        else:
            reason = _out_of_range(value)
            if reason is not None:
                return loc, reason
    return None


def _out_of_range(value: object) -> str | None:
    """Why a JSON scalar is out of range (an integer beyond 64 bits, an infinite float), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
        return "integer out of range (integers must fit in 64 bits: -2^63 to 2^63-1)"
    if isinstance(value, float) and not math.isfinite(value):
        return "number out of range (it overflows a 64-bit float to infinity)"
    return None


def _bounded(value: Any) -> Any:
    """Refuse free-form JSON holding a number other readers cannot hold (1e400 parses as infinity)."""
    if type(value) is dict:  # the usual free-form object is flat (a receipt's `observed`, a line in three): one loop
        for item in value.values():
            kind = type(item)
            if kind is int:
                if not INT_MIN <= item <= INT_MAX:
                    break
            elif kind is float:
                if not math.isfinite(item):
                    break
            elif kind is dict or kind is list:
                break
        else:
            return value
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:  # the fast pass (no locations): a receipt's `observed` is checked on every line
        item = pop()
        kind = type(item)
        if kind is dict:
            extend(item.values())
        elif kind is list:
            extend(item)
        elif (kind is int and not INT_MIN <= item <= INT_MAX) or (kind is float and not math.isfinite(item)):
            break
    else:
        return value
    found = out_of_range(value)
    if found is not None:
        where = ".".join(found[0])
        raise ValueError(f"{where}: {found[1]}" if where else found[1])
    return value


Int64 = Annotated[int, Field(ge=INT_MIN, le=INT_MAX)]
"""An integer of a run log: larger ones overflow other readers, and sums and means of them fail."""
Int64Max = Annotated[int, Field(le=INT_MAX)]
"""An integer capped at 2^63-1, for fields that set their own lower bound (`Field(ge=0)`).

Annotated bounds come after a field's own, and the later of two `ge` wins: `Int64` would undo `ge=0`."""

Sha256Hex = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
"""A lower-case hex SHA-256 digest."""

Scalar = str | Int64 | float | bool | None
"""A JSON scalar, as used in constraint arguments and action parameters."""

JsonObject = Annotated[dict[str, Any], AfterValidator(_bounded)]  # free-form JSON from a log, kept as written
"""A free-form JSON object (kept as written; the checker reads only documented keys); numbers must be finite."""

JsonValue = Annotated[list[Any] | Scalar | dict[str, Any], AfterValidator(_bounded)]  # free-form JSON from a log
"""Any JSON value; numbers must be finite and integers 64-bit."""


def unit(name: str) -> JsonDict:
    """`json_schema_extra` of a numeric field: its unit (in the JSON Schema and the format reference)."""
    return {"unit": name}


EXAMPLE_PREV = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
"""A well-formed `prev` for example lines (the SHA-256 of `test`; a real line carries its predecessor's)."""


def examples(*events: JsonDict, seq: int = 7) -> ConfigDict:
    """Model config adding example log lines (with `seq` and an example `prev`) to an event's JSON Schema."""
    extra: JsonDict = {"examples": [{"seq": seq, "prev": _example_prev(event, seq), **event} for event in events]}
    return ConfigDict(json_schema_extra=extra)


def _example_prev(event: JsonDict, seq: int) -> str:
    """The `prev` of an example line: line 0 chains to its run id, any other to `EXAMPLE_PREV`."""
    run_id = event.get("run_id")
    return hashlib.sha256(run_id.encode("utf-8")).hexdigest() if seq == 0 and isinstance(run_id, str) else EXAMPLE_PREV


def json_line(obj: Any) -> bytes:
    """`obj` as the UTF-8 JSON a log line holds, to validate a dict as its JSON (not canonical).

    A lone surrogate is refused here ("surrogates not allowed"), as writing it to a log would be.
    """
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


EVENT_CONFIG = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False,
                          use_attribute_docstrings=checker.FIELD_DOCSTRINGS)
"""Unknown fields are errors, types are strict, numbers finite: every event class (`event_model`: frozen
by the dataclass) and every `Model`."""


class Model(BaseModel):
    """Base for manifest and prereg models (and the objects nested in events): `EVENT_CONFIG`, frozen."""

    model_config = ConfigDict(**EVENT_CONFIG, frozen=True)

E = TypeVar("E")


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field, FieldInfo))
def event_model(cls: type[E]) -> type[E]:
    """Make `cls` an event class: a frozen, slotted, keyword-only pydantic dataclass with `EVENT_CONFIG`.

    Events are dataclasses, not `BaseModel`s, because a verified run keeps every one of its events
    in memory while it is scored: a slotted event is one object of ~0.1 KB, where a model is three
    (the model, its `__dict__` and its set of fields set, ~1.1 KB), and reading a slot skips
    pydantic's `__getattr__` hook. A class body's `model_config` (its JSON Schema examples) is merged
    into the configuration.
    """
    config = ConfigDict(**{**EVENT_CONFIG, **cls.__dict__.get("model_config", {})})
    if "model_config" in cls.__dict__:
        delattr(cls, "model_config")
    for value in list(cls.__dict__.values()):
        if isinstance(value, FieldInfo) and value.kw_only is None:
            # a `Field(...)` left at kw_only=None is moved ahead of the other fields in the validator (the
            # order of its errors) and the JSON Schema; keyword-only like the rest, every field keeps its
            # place (`tests/test_schema_events.py` checks the order)
            value.kw_only = True
            value._attributes_set["kw_only"] = True  # what pydantic merges when it builds the field
    made: Any = cast(Any, pydantic_dataclass)(cls, config=config, slots=True, frozen=True, kw_only=True)
    made.model_fields, made.model_config = made.__pydantic_fields__, config
    return cast("type[E]", made)


@event_model
class EventBase:
    """Fields every run-log line carries.

    WARNING: `seq`, `prev` and `type` define the chain. Line k carries seq = k and
    prev = SHA-256 (hex) of line k-1's exact bytes without its newline; line 0 carries
    prev = SHA-256 of the UTF-8 run id.
    """

    # described with `description=`, not attribute docstrings: a dataclass reads those from its own body only,
    # and every event class inherits these two fields
    seq: Int64Max = Field(ge=0, json_schema_extra=unit("line index"),
                          description="Zero-based position of this line in the run log (`RunLogWriter` fills it in).")
    prev: Sha256Hex = Field(description="SHA-256 of the previous line's exact bytes without its LF (line 0: of the "
                                        "UTF-8 run id); `RunLogWriter` fills it in.")

    model_fields: ClassVar[dict[str, FieldInfo]]
    """Field name -> its pydantic `FieldInfo`, in schema order (as on a `BaseModel`)."""
    model_config: ClassVar[ConfigDict]
    """The class's configuration (`EVENT_CONFIG` and its JSON Schema examples)."""
    __pydantic_fields__: ClassVar[dict[str, FieldInfo]]
    __pydantic_validator__: ClassVar[SchemaValidator]
    __pydantic_serializer__: ClassVar[SchemaSerializer]

    @classmethod
    def model_validate(cls: type[E], obj: Any) -> E:
        """Validate a decoded JSON object (strict, as a JSON line is validated) into this event class."""
        return cast(E, cls.__pydantic_validator__.validate_json(json_line(obj)))  # type: ignore[attr-defined]

    @classmethod
    def model_json_schema(cls, **kwargs: Any) -> JsonSchemaValue:
        """The class's JSON Schema (as `BaseModel.model_json_schema`)."""
        from pydantic import TypeAdapter

        return TypeAdapter(cls).json_schema(**kwargs)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:  # `BaseModel.model_dump`'s own signature
        """The event as a dict (as `BaseModel.model_dump`)."""
        return self.__pydantic_serializer__.to_python(self, **kwargs)
