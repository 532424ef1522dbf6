"""The event union (one discriminated union on `type` over every track), and events as bytes.

`build_event` makes an event from a decoded line, `validate_event` from any decoded object;
`canonical_line` is an event's canonical bytes (what `RunLogWriter` writes and the scanner's fast
path compares), `payload_bytes` those bytes without the chain fields (the payload digest's input).
"""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter, ValidationError
from pydantic_core import ArgsKwargs

from checker.format.schema.agent import (
    AGENT_EVENTS,
    Beat,
    CanaryEcho,
    CanarySalt,
    Commitment,
    DeficitStamp,
    Evidence,
    Goal,
    GoalBinding,
    GoalEdge,
    LevelEvent,
    LlmCall,
    MilestoneClaim,
    PlanStep,
    Receipt,
    Referent,
    RelevanceEdge,
    RenderCapture,
    Rule,
    StartupProbe,
    StatusTransition,
    Substitution,
    WriteReject,
)
from checker.format.schema.base import EventBase, json_line
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.completion import COMPLETION_EVENTS, EpisodeEnd, EpisodeStart, Message, ToolCall, ToolResult
from checker.format.schema.constraint import CONSTRAINT_EVENTS, ProblemStart, Turn

Event = Annotated[
    Union[  # noqa: UP007 - a Union literal keeps the discriminator readable
        RunStart, RunEnd,
        Beat, Referent, Commitment, PlanStep, StatusTransition, Rule, Goal, GoalBinding, GoalEdge,
        DeficitStamp, RelevanceEdge, Receipt, LlmCall, WriteReject, CanarySalt, CanaryEcho,
        RenderCapture, StartupProbe, LevelEvent, Substitution, MilestoneClaim, Evidence,
        ProblemStart, Turn,
        EpisodeStart, Message, ToolCall, ToolResult, EpisodeEnd,
    ],
    Field(discriminator="type"),
]
"""Any run-log event."""

EVENT_MODELS = (RunStart, RunEnd, *AGENT_EVENTS, *CONSTRAINT_EVENTS, *COMPLETION_EVENTS)
"""Every event model, in documentation order."""

EVENT_MODELS_BY_TYPE: dict[str, type[EventBase]] = {m.model_fields["type"].annotation.__args__[0]: m  # type: ignore[union-attr]
                                         for m in EVENT_MODELS}
"""Event `type` -> its class."""
EVENT_TYPES = frozenset(EVENT_MODELS_BY_TYPE)
"""The `type` values the checker knows."""

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
"""Validates one JSON line (`validate_json`) into an event."""


def validate_event(obj: Any) -> Event:
    """Validate a decoded JSON object into an event, exactly as its JSON line is validated.

    Events are strict dataclasses: strict validation of Python input would take only instances, so
    the object is validated as the JSON it came from.
    """
    return EVENT_ADAPTER.validate_json(json_line(obj))


_BUILD = {etype: (model, model.__pydantic_validator__.validate_python) for etype, model in EVENT_MODELS_BY_TYPE.items()}
"""Event `type` -> (its class, its validator), for `build_event`."""


def build_event(fields: Any, line: bytes | None = None) -> Event:
    """The event a decoded JSON object describes: what `cls(**fields)` makes for its `type`, strict.

    The class's validator fills a new instance from the fields, as the dataclass's `__init__` does,
    without the keyword-argument call (3.8 µs an event against 5.6 for `cls(**fields)`). Anything it
    refuses (not an object, a missing, unknown or unhashable `type`, a field the class refuses) is
    validated as its JSON through the event union instead (`line`, the bytes it was read from, else
    `json_line(fields)`), whose `ValidationError` names each field as the log spells it. The writer
    (`checker.format.logio.RunLogWriter`), validation's slow path and `read_events` come in here.
    """
    try:
        model, validate = _BUILD[fields["type"]]
        event = object.__new__(model)
        validate(ArgsKwargs((), fields), self_instance=event)
        return event  # type: ignore[return-value]  # an instance of one member of the union (no `cast` call: hot path)
    except (KeyError, TypeError, ValidationError):
        return EVENT_ADAPTER.validate_json(line if line is not None else json_line(fields))


TO_JSON = {model: model.__pydantic_serializer__.to_json for model in EVENT_MODELS}
"""Event class -> its serializer's `to_json` (one dict lookup per line on the validator's hot path)."""


def canonical_line(event: Event) -> bytes:
    """The canonical bytes of an event: compact JSON, fields in schema order, null fields left out.

    It is the line `checker.format.logio.RunLogWriter` writes for the event. A line whose bytes equal the
    canonical bytes of the event it validates to holds no duplicate key, no NaN, no escape that need
    not be, no CR and no whitespace: `checker.stages.validate` takes such lines on its fast path.
    """
    return TO_JSON[type(event)](event, exclude_none=True, by_alias=True)


def payload_bytes(line: bytes) -> bytes:
    """A canonical line without its chain fields (`{"seq":N,"prev":"…",` becomes `{`): what the payload digest hashes.

    `seq`, `prev` and `type` are every event's first three fields, and neither `seq` (digits) nor
    `prev` (hex) can hold `,"type":`.
    """
    return b"{" + line[line.index(b',"type":') + 1:]


if len(EVENT_MODELS) != len(EVENT_TYPES):  # pragma: no cover - guards the two lists above
    raise RuntimeError("EVENT_MODELS and the Event union disagree")
