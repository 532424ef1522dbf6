"""Agent-track events of model calls and prompt integrity: calls, rendered zones and canaries.

Each LLM call is logged with its token counts; what a prompt view rendered is digested zone by
zone; salted canaries placed in a zone and their echoes show whether an organ read that zone.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.agent_fields import BEAT, CALL, OPS, TOKENS, Organ
from checker.format.schema.base import EventBase, Int64Max, Sha256Hex, event_model, examples, unit


@event_model
class LlmCall(EventBase):
    """One LLM call by an organ (ARG `llm_calls`); retries are separate calls."""

    model_config = examples({
        "type": "llm_call", "turn": 12, "organ": "OBSERVER", "call_idx": 9, "retry_count": 0, "prompt_tokens": 1850,
        "completion_tokens": 240, "reasoning_tokens": 0, "render_tokens": 1600, "ops_accepted": 3, "ops_rejected": 0,
    })

    type: Literal["llm_call"]
    """Event type `llm_call`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the call."""
    organ: Organ
    """The organ (role) that made the call."""
    call_idx: Int64Max = Field(default=0, ge=0, json_schema_extra=CALL)
    """The organ's call counter."""
    retry_count: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("retries"))
    """0 for a first attempt, 1 for a retry."""
    prompt_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Input tokens billed."""
    completion_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Output tokens billed."""
    reasoning_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Reasoning tokens billed (0 when the model reports none)."""
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Size of the rendered view in the prompt (ceil(chars/4)); judged against the render ceiling B."""
    ops_accepted: Int64Max = Field(default=0, ge=0, json_schema_extra=OPS)
    """Write operations of the output that were accepted (the denominator of the write-error rate)."""
    ops_rejected: Int64Max = Field(default=0, ge=0, json_schema_extra=OPS)
    """Write operations rejected (each should also be a `write_reject` event, which is what is counted)."""


@event_model
class CanarySalt(EventBase):
    """A salted nonce placed in a zone of an organ's prompt (ARG `zcr_salt`)."""

    model_config = examples({"type": "canary_salt", "turn": 12, "organ": "OBSERVER", "call_idx": 9, "zone": "Z2",
                             "nonce": "ZQ1a2b3c4d"})

    type: Literal["canary_salt"]
    """Event type `canary_salt`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the salted call."""
    organ: Organ
    """The organ whose prompt was salted."""
    call_idx: Int64Max = Field(ge=0, json_schema_extra=CALL)
    """The organ's call counter at salting time (1-based in ARG)."""
    zone: str
    """Prompt zone that holds the nonce, e.g. `Z2`."""
    nonce: str
    """The nonce (ARG: `ZQ` + 8 hex)."""


@event_model
class CanaryEcho(EventBase):
    """Whether the organ's output echoed a salted nonce (ARG `zcr_echo`).

    When `output_text` is present the checker recomputes `echoed` as nonce-in-text.
    """

    model_config = examples({"type": "canary_echo", "turn": 12, "organ": "OBSERVER", "call_idx": 9, "zone": "Z2",
                             "nonce": "ZQ1a2b3c4d", "echoed": True,
                             "output_text": "bind R0004 (canary ZQ1a2b3c4d)"})

    type: Literal["canary_echo"]
    """Event type `canary_echo`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the salted call."""
    organ: Organ
    """The organ whose output was checked."""
    call_idx: Int64Max = Field(ge=0, json_schema_extra=CALL)
    """The organ's call counter at salting time (echoes with call_idx <= the warm-up are ignored)."""
    zone: str
    """Prompt zone of the nonce."""
    nonce: str
    """The nonce looked for."""
    echoed: bool
    """Recorded: the output contained the nonce."""
    output_text: str | None = None
    """The organ's output; when logged, `echoed` is recomputed from it."""


@event_model
class RenderCapture(EventBase):
    """Digest of one rendered zone of a prompt view (ARG `render_capture`)."""

    model_config = examples({"type": "render_capture", "turn": 12, "organ": "OBSERVER", "call_idx": 9,
                             "zone": "Z3", "view_sha256": "c" * 64, "view_bytes": 4200, "render_tokens": 1050,
                             "shadow": False})

    type: Literal["render_capture"]
    """Event type `render_capture`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the rendered call."""
    organ: Organ | None = None
    """The organ whose view was rendered."""
    call_idx: Int64Max = Field(default=0, ge=0, json_schema_extra=CALL)
    """The organ's call counter."""
    zone: str
    """Prompt zone, e.g. `Z1` to `Z6`."""
    view_sha256: Sha256Hex
    """SHA-256 of the zone's rendered bytes (live and shadow renders of a zone must be identical)."""
    view_bytes: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("bytes"))
    """Size of the rendered zone."""
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Tokens of the rendered zone (ceil(chars/4))."""
    shadow: bool = False
    """True when captured in a shadow (agenda-off) configuration."""
