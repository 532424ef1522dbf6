"""Agent-track events of the game loop: each action, what it was predicted and seen to do, and what the run showed.

A beat is one emitted action; a receipt pairs a prediction registered before the beat with its
outcome; level events and evidence are what the environment reported (deterministic), milestone
claims what the model said (a claim, not an event); the startup probe and substitutions record how
the run's interface behaved.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.agent_fields import BEAT, FLAG, TOKENS
from checker.format.schema.base import EventBase, Int64, Int64Max, JsonObject, Scalar, Sha256Hex, event_model, examples, unit


@event_model
class Beat(EventBase):
    """One emitted action (ARG `turn_record`)."""

    model_config = examples({
        "type": "beat", "turn": 12, "action": "ACTION6", "params": {"x": 3, "y": 7}, "target_ref": "R0004",
        "step_id": "K0002-S1", "shadow_step_id": "G0001|ACTION6|R0004|RU0003", "drift_ref": "LIVE",
        "source_stamp": "COMMITMENT_STEP", "render_tokens": 2150, "match": 1, "level_counter": 1, "score": 3,
        "lives": 2, "pre_frame_sha256": "a" * 64, "post_frame_sha256": "b" * 64,
        "pre_frame_hash": "3f2a9c0d11e4b7a5", "post_frame_hash": "8e01c2d3f4a5b6c7",
    })

    type: Literal["beat"]
    """Event type `beat`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat number; the initial RESET is 0."""
    action: str
    """Action name, e.g. `ACTION6` or `RESET`."""
    params: dict[str, Scalar] | None = None
    """Aim parameters (`{"x": 3, "y": 7}` for a click: grid column and row); null when the action takes none."""
    target_ref: str | None = None
    """Recorded landing: the referent the harness says the action hit (null = background)."""
    step_id: str | None = None
    """Live commitment step this beat executed (ARG `commitment_step_id`)."""
    shadow_step_id: str | None = None
    """Shadow-compiled step, `goal|action|target|rule` with `-` for none (ARG A0 cells)."""
    drift_ref: Literal["LIVE", "SHADOW"] | None = None
    """Which reference stamp the harness wrote; null on a non-RESET beat is a silent degrade."""
    source_stamp: str | None = None
    """Who decided the beat: COMMITMENT_STEP, PROBE, ACTUATOR_LLM, FALLBACK, RESET."""
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=TOKENS)
    """Largest Actuator view rendered this beat (ceil(chars/4))."""
    match: int | None = Field(default=None, ge=0, le=1, json_schema_extra=FLAG)
    """Match of the beat's first pre-registered predictor, null if none."""
    level_counter: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("levels"))
    """Environment's cumulative levels completed after this beat."""
    score: Int64 = Field(default=0, json_schema_extra=unit("points"))
    """Environment score after this beat."""
    lives: Int64 | None = Field(default=None, json_schema_extra=unit("lives"))
    """Lives left, when the environment has them."""
    pre_frame_sha256: Sha256Hex | None = None
    """Digest of the frame before the action."""
    post_frame_sha256: Sha256Hex | None = None
    """Digest of the frame after the action."""
    pre_frame_hash: str | None = None
    """The harness's own frame hash before the action, in its native format (ARG: 16 hex)."""
    post_frame_hash: str | None = None
    """The harness's own frame hash after the action, in its native format (ARG: 16 hex)."""


@event_model
class Receipt(EventBase):
    """A consequence receipt: a prediction registered before the beat and its outcome."""

    model_config = examples({
        "type": "receipt", "turn": 12, "action": "ACTION6", "target_ref": "R0004", "context_class": "CC0001",
        "predicted": {"score_event": 1}, "observed": {"score_event": 1, "cells_changed": 2}, "match": 1,
        "predictor_id": "K0002-S1", "predictor_kind": "STEP", "score_event": 1, "level_event": 0, "life_event": 0,
    })

    type: Literal["receipt"]
    """Event type `receipt`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """The beat the receipt is about."""
    action: str | None = None
    """The beat's action."""
    target_ref: str | None = None
    """The referent the action landed on (null = background)."""
    context_class: str | None = None
    """The harness's context class of the situation (ARG `context_class_id`)."""
    predicted: JsonObject | None = None
    """The registered prediction (null for a coverage receipt without predictor)."""
    observed: JsonObject | None = None
    """What was observed after the beat."""
    match: int | None = Field(default=None, ge=0, le=1, json_schema_extra=FLAG)
    """1 when the observation matched the prediction, 0 when not, null without a prediction."""
    predictor_id: str | None = None
    """The step, rule or experiment that made the prediction."""
    predictor_kind: Literal["STEP", "RULE", "EXPERIMENT"] | None = None
    """Kind of predictor."""
    score_event: int = Field(default=0, ge=0, le=1, json_schema_extra=FLAG)
    """1 when the score changed on this beat."""
    level_event: int = Field(default=0, ge=0, le=1, json_schema_extra=FLAG)
    """1 when a level was completed on this beat."""
    life_event: int = Field(default=0, ge=0, le=1, json_schema_extra=FLAG)
    """1 when a life was lost on this beat."""


@event_model
class LevelEvent(EventBase):
    """An environment-reported level or score change (deterministic evidence)."""

    model_config = examples({"type": "level", "turn": 12, "level_counter": 1, "score": 3})

    type: Literal["level"]
    """Event type `level`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat after which the environment reported the change."""
    level_counter: Int64Max = Field(ge=0, json_schema_extra=unit("levels"))
    """Cumulative levels completed."""
    score: Int64 = Field(default=0, json_schema_extra=unit("points"))
    """Score after the change."""


@event_model
class Substitution(EventBase):
    """An aimed live step landed elsewhere (ARG `substitution_caught`)."""

    model_config = examples({"type": "substitution", "turn": 13, "step_target": "R0004", "landed_target": "R0005"})

    type: Literal["substitution"]
    """Event type `substitution`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """The beat that landed elsewhere."""
    step_target: str
    """The referent the step aimed at."""
    landed_target: str | None = None
    """Where it landed (null = background)."""


@event_model
class StartupProbe(EventBase):
    """The run's startup probe (ARG `startup_probe`); `image_receipt_ok` is tri-state."""

    model_config = examples({"type": "startup_probe", "turn": 0, "image_receipt_ok": None,
                             "signal_vocab": ["score", "level"],
                             "action_interface": {"ACTION6": {"params": ["x", "y"]}}})

    type: Literal["startup_probe"]
    """Event type `startup_probe`."""
    turn: Int64Max = Field(default=0, ge=0, json_schema_extra=BEAT)
    """Beat of the probe (0: before the first action)."""
    image_receipt_ok: bool | None = None
    """null = no vision path (not applicable), true = pass, false = fail."""
    signal_vocab: list[str] | None = None
    """Signals the environment reports."""
    action_interface: JsonObject | None = None
    """The actions and their parameters, as the probe found them (free-form)."""


@event_model
class MilestoneClaim(EventBase):
    """The model says a milestone/step is done. A claim, not an event."""

    model_config = examples({"type": "milestone_claim", "turn": 14, "claim_id": "M0001", "step_id": "K0002-S1",
                             "step_started_turn": 12, "text": "the button is pressed"})

    type: Literal["milestone_claim"]
    """Event type `milestone_claim`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the claim."""
    claim_id: str
    """Claim id."""
    step_id: str | None = None
    """The plan step the claim is about; its start bounds the evidence window."""
    step_started_turn: Int64Max | None = Field(default=None, ge=0, json_schema_extra=BEAT)
    """Beat at which the claimed step started (else the claim's own window starts at 0)."""
    text: str | None = None
    """The claim in the model's words."""


@event_model
class Evidence(EventBase):
    """Deterministic evidence observed in the run (a file digest change, an exit code, ...)."""

    model_config = examples({"type": "evidence", "turn": 12, "kind": "level", "irreversible": True,
                             "subject": "level 1", "before": "0", "after": "1", "exit_code": 0})

    type: Literal["evidence"]
    """Event type `evidence`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat the evidence was observed."""
    kind: Literal["level", "score", "file_digest", "exit_code", "api_success", "receipt", "read", "search",
                  "fetch", "write", "commit", "message", "paid_call"]
    """What kind of evidence."""
    irreversible: bool
    """Writes, commits, messages sent, paid calls, level events are irreversible; reads are not."""
    subject: str | None = None
    """What changed, e.g. a file path or an API endpoint."""
    before: str | None = None
    """Value before (e.g. a file digest), as text."""
    after: str | None = None
    """Value after, as text."""
    exit_code: Int64 | None = Field(default=None, json_schema_extra=unit("exit status"))
    """Process exit status, for `exit_code` evidence."""
