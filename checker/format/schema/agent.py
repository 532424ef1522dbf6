"""Agent-track events: enough to recompute ARG's gate and metrics (arg-spec.md §a, §c, §e).

Each event mirrors one ARG row kind; `turn` is the beat (turn_id) the row belongs to.
State is never summarised in the log: statuses are transitions, referents are versions.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from checker.format.schema.base import EventBase, Int64, Int64Max, JsonObject, Scalar, Sha256Hex, event_model, examples, unit

Organ = Literal["OBSERVER", "SURVEYOR", "ACTUATOR", "BASELINE"]
Cell = Annotated[list[Int64], Field(min_length=2, max_length=2)]
"""An anchor cell as [x = column, y = row]."""
Pair = Annotated[list[str], Field(min_length=2, max_length=2)]
"""A (kind, id) pair."""

_BEAT = unit("beat")
_TOKENS = unit("tokens")
_FLAG = unit("0/1")
_VERSION = unit("version number")
_CALL = unit("call number")
_OPS = unit("write operations")


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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
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
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Largest Actuator view rendered this beat (ceil(chars/4))."""
    match: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
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
class Referent(EventBase):
    """A referent version (ARG `referent` + its GridRegion locator)."""

    model_config = examples({
        "type": "referent", "turn": 3, "ref_id": "R0004", "version": 2, "kind": "percept-cluster",
        "anchor_cells": [[3, 7], [4, 7]], "signature": "c1a9e0f2b3d4", "provenance": "OBSERVER_BIND",
    })

    type: Literal["referent"]
    """Event type `referent`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat at which this version was bound."""
    ref_id: str
    """Referent id, stable across versions, e.g. `R0004`."""
    version: Int64Max = Field(ge=1, json_schema_extra=_VERSION)
    """Version of the referent; a moved object gets a new version (the latest version is current)."""
    kind: str
    """percept-cluster, region, action or signal."""
    anchor_cells: list[Cell] = Field(default_factory=list, json_schema_extra=unit("grid cells"))
    """Cells (x, y) of the referent's anchor region; used to recompute landings."""
    signature: str | None = None
    """Translation-invariant shape signature in the harness's format (ARG: colour + normalised shape, 12 hex)."""
    provenance: str = "OBSERVER_BIND"
    """How the version arose: OBSERVER_BIND, FISSION or MERGE."""


@event_model
class Commitment(EventBase):
    """A compiled commitment (plan) toward a goal (ARG `commitment`)."""

    model_config = examples({
        "type": "commitment", "turn": 10, "commit_id": "K0002", "version": 1, "goal_id": "G0001",
        "procedure_id": "P-press-button",
    })

    type: Literal["commitment"]
    """Event type `commitment`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Compilation beat."""
    commit_id: str
    """Commitment id, e.g. `K0002`; its steps are `plan_step` events with this `commit_id`."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=_VERSION)
    """Commitment version (ARG always writes 1)."""
    goal_id: str | None = None
    """The goal the commitment serves."""
    procedure_id: str | None = None
    """The procedure (plan template) it was compiled from, if any."""


@event_model
class PlanStep(EventBase):
    """A step of a commitment (ARG `commitment_step` + `step_premise`)."""

    model_config = examples({
        "type": "plan_step", "turn": 10, "commit_id": "K0002", "commit_version": 1, "step_id": "K0002-S1",
        "step_ord": 1, "kind": "INTERACT", "target_ref": "R0004", "action": "ACTION6",
        "premises": [["RULE", "RU0003"], ["TARGET_REF", "R0004"]], "predicted_delta": {"score_event": 1},
        "lease_max_beats": 20,
    })

    type: Literal["plan_step"]
    """Event type `plan_step`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Compilation beat."""
    commit_id: str
    """The commitment this step belongs to."""
    commit_version: Int64Max = Field(default=1, ge=1, json_schema_extra=_VERSION)
    """Version of that commitment."""
    step_id: str
    """`<commit_id>-S<k>`."""
    step_ord: Int64Max = Field(ge=0, json_schema_extra=unit("position"))
    """Position of the step within its commitment."""
    kind: str
    """NAVIGATE, INTERACT or PROBE."""
    target_ref: str | None = None
    """The referent the step aims at (null: untargeted); a beat executing it that lands elsewhere is *bind*."""
    action: str | None = None
    """The action the step calls for (null: any); a beat with another action is off plan."""
    premises: list[Pair] = Field(default_factory=list)
    """(member_kind, member_id) pairs: RULE, GOAL_BINDING or TARGET_REF premises."""
    predicted_delta: JsonObject | None = None
    """The effect the step predicts (free-form, e.g. `{"score_event": 1}`)."""
    lease_max_beats: Int64 | None = Field(default=None, json_schema_extra=unit("beats"))
    """Beats the step may stay open before it lapses (ARG_LEASE, 20 in ARG)."""


@event_model
class StatusTransition(EventBase):
    """A status change of any entity (ARG `status_transition`); status = latest transition."""

    model_config = examples({
        "type": "status", "turn": 14, "entity_kind": "RULE", "entity_id": "RU0003", "from_status": "PROPOSED",
        "to_status": "TESTED", "reason": "prediction matched twice",
    })

    type: Literal["status"]
    """Event type `status`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the transition."""
    entity_kind: str
    """REFERENT_RUNG, REFERENT_LIFE, RULE, GOAL, COMMITMENT_STEP, REFERENT_FISSION, ..."""
    entity_id: str
    """Id of the entity (a referent, rule, goal or step id)."""
    from_status: str | None = None
    """Status before (null for the first transition)."""
    to_status: str
    """Status after, e.g. a grounding rung, `TESTED`, `ACHIEVED`, `CONSUMED`."""
    reason: str | None = None
    """Free-text reason."""


@event_model
class Rule(EventBase):
    """A hypothesis (ARG `rule` version): context predicate -> effect pattern."""

    model_config = examples({
        "type": "rule", "turn": 8, "rule_id": "RU0003", "version": 1, "template": "click-target-effect",
        "ctx": {"action": "ACTION6", "target": "R0004", "when": None}, "effect": {"score_event": 1},
        "scope": "PERSISTENT", "ttl_turn": 40,
    })

    type: Literal["rule"]
    """Event type `rule`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat the version was proposed."""
    rule_id: str
    """Rule id, stable across versions."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=_VERSION)
    """Rule version (the latest is current)."""
    template: str | None = None
    """Hypothesis template the rule instantiates."""
    ctx: JsonObject = Field(default_factory=dict)
    """{action, target, when}."""
    effect: JsonObject = Field(default_factory=dict)
    """Subset of {cells_changed, score_event, level_event}; effect-linked = score or level event 1."""
    scope: str | None = None
    """WITHIN_LIFE, PERSISTENT or UNKNOWN."""
    ttl_turn: Int64 | None = Field(default=None, json_schema_extra=_BEAT)
    """Beat after which the rule expires untested."""


@event_model
class Goal(EventBase):
    """A goal version (ARG `goal`)."""

    model_config = examples({
        "type": "goal", "turn": 5, "goal_id": "G0002", "version": 1, "parent_goal": "G0001",
        "statement": "press the button", "provenance": "DEFICIT",
    })

    type: Literal["goal"]
    """Event type `goal`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat the version was admitted."""
    goal_id: str
    """Goal id, stable across versions."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=_VERSION)
    """Goal version (the latest is current)."""
    parent_goal: str | None = None
    """Parent goal id (null for a root goal)."""
    statement: str | None = None
    """The goal in words."""
    provenance: str | None = None
    """SEEDED, SURVEYOR or DEFICIT (milestone goals)."""


@event_model
class GoalBinding(EventBase):
    """A referent bound to a goal by plan compilation (ARG `goal_binding`)."""

    model_config = examples({"type": "goal_binding", "turn": 10, "goal_id": "G0002", "goal_version": 1,
                             "ref_id": "R0004"})

    type: Literal["goal_binding"]
    """Event type `goal_binding`."""
    turn: Int64Max = Field(default=0, ge=0, json_schema_extra=_BEAT)
    """Beat of the binding."""
    goal_id: str
    """The goal."""
    goal_version: Int64Max = Field(default=1, ge=1, json_schema_extra=_VERSION)
    """The goal version the binding belongs to."""
    ref_id: str
    """The referent bound to it."""


@event_model
class GoalEdge(EventBase):
    """Parent -> child goal edge (ARG `goal_edge`)."""

    model_config = examples({"type": "goal_edge", "turn": 5, "parent_goal": "G0001", "child_goal": "G0002",
                             "verified": True})

    type: Literal["goal_edge"]
    """Event type `goal_edge`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat the edge was written."""
    parent_goal: str
    """Parent goal id."""
    child_goal: str
    """Child goal id."""
    verified: bool = False
    """True when the edge was verified (the child's achievement was observed to serve the parent)."""


@event_model
class DeficitStamp(EventBase):
    """A 'chain incomplete here' record (ARG `deficit_stamp`)."""

    model_config = examples({"type": "deficit_stamp", "turn": 5, "goal_id": "G0001",
                             "holes": [{"missing": "TARGET_REF", "for": "ACTION6"}]})

    type: Literal["deficit_stamp"]
    """Event type `deficit_stamp`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the stamp."""
    goal_id: str
    """The goal whose plan chain is incomplete."""
    holes: list[JsonObject] | JsonObject | None = None
    """What is missing, in the harness's format (free-form)."""


@event_model
class RelevanceEdge(EventBase):
    """A goal marking a rule or referent relevant (ARG `relevance_edge`)."""

    model_config = examples({"type": "relevance_edge", "turn": 8, "goal_id": "G0002", "target_kind": "REFERENT",
                             "target_id": "R0004"})

    type: Literal["relevance_edge"]
    """Event type `relevance_edge`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the edge."""
    goal_id: str
    """The goal."""
    target_kind: str
    """What is marked relevant: RULE or REFERENT."""
    target_id: str
    """Its id."""


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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
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
    match: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
    """1 when the observation matched the prediction, 0 when not, null without a prediction."""
    predictor_id: str | None = None
    """The step, rule or experiment that made the prediction."""
    predictor_kind: Literal["STEP", "RULE", "EXPERIMENT"] | None = None
    """Kind of predictor."""
    score_event: int = Field(default=0, ge=0, le=1, json_schema_extra=_FLAG)
    """1 when the score changed on this beat."""
    level_event: int = Field(default=0, ge=0, le=1, json_schema_extra=_FLAG)
    """1 when a level was completed on this beat."""
    life_event: int = Field(default=0, ge=0, le=1, json_schema_extra=_FLAG)
    """1 when a life was lost on this beat."""


@event_model
class LlmCall(EventBase):
    """One LLM call by an organ (ARG `llm_calls`); retries are separate calls."""

    model_config = examples({
        "type": "llm_call", "turn": 12, "organ": "OBSERVER", "call_idx": 9, "retry_count": 0, "prompt_tokens": 1850,
        "completion_tokens": 240, "reasoning_tokens": 0, "render_tokens": 1600, "ops_accepted": 3, "ops_rejected": 0,
    })

    type: Literal["llm_call"]
    """Event type `llm_call`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the call."""
    organ: Organ
    """The organ (role) that made the call."""
    call_idx: Int64Max = Field(default=0, ge=0, json_schema_extra=_CALL)
    """The organ's call counter."""
    retry_count: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("retries"))
    """0 for a first attempt, 1 for a retry."""
    prompt_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Input tokens billed."""
    completion_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Output tokens billed."""
    reasoning_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Reasoning tokens billed (0 when the model reports none)."""
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Size of the rendered view in the prompt (ceil(chars/4)); judged against the render ceiling B."""
    ops_accepted: Int64Max = Field(default=0, ge=0, json_schema_extra=_OPS)
    """Write operations of the output that were accepted (the denominator of the write-error rate)."""
    ops_rejected: Int64Max = Field(default=0, ge=0, json_schema_extra=_OPS)
    """Write operations rejected (each should also be a `write_reject` event, which is what is counted)."""


@event_model
class WriteReject(EventBase):
    """An organ's rejected write (ARG `write_reject`)."""

    model_config = examples({"type": "write_reject", "turn": 12, "organ": "SURVEYOR", "op_type": "propose_rule",
                             "violation_class": "OUT_OF_SCHEMA", "retry_count": 0})

    type: Literal["write_reject"]
    """Event type `write_reject`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the rejected write."""
    organ: Organ
    """The organ whose write was rejected."""
    op_type: str | None = None
    """The kind of write operation."""
    violation_class: str | None = None
    """Why it was rejected, e.g. UNCONTAINED_PARAM, OUT_OF_SCHEMA."""
    retry_count: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("retries"))
    """Retry number of the call that wrote it."""


@event_model
class CanarySalt(EventBase):
    """A salted nonce placed in a zone of an organ's prompt (ARG `zcr_salt`)."""

    model_config = examples({"type": "canary_salt", "turn": 12, "organ": "OBSERVER", "call_idx": 9, "zone": "Z2",
                             "nonce": "ZQ1a2b3c4d"})

    type: Literal["canary_salt"]
    """Event type `canary_salt`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the salted call."""
    organ: Organ
    """The organ whose prompt was salted."""
    call_idx: Int64Max = Field(ge=0, json_schema_extra=_CALL)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the salted call."""
    organ: Organ
    """The organ whose output was checked."""
    call_idx: Int64Max = Field(ge=0, json_schema_extra=_CALL)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the rendered call."""
    organ: Organ | None = None
    """The organ whose view was rendered."""
    call_idx: Int64Max = Field(default=0, ge=0, json_schema_extra=_CALL)
    """The organ's call counter."""
    zone: str
    """Prompt zone, e.g. `Z1` to `Z6`."""
    view_sha256: Sha256Hex
    """SHA-256 of the zone's rendered bytes (live and shadow renders of a zone must be identical)."""
    view_bytes: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("bytes"))
    """Size of the rendered zone."""
    render_tokens: Int64Max = Field(default=0, ge=0, json_schema_extra=_TOKENS)
    """Tokens of the rendered zone (ceil(chars/4))."""
    shadow: bool = False
    """True when captured in a shadow (agenda-off) configuration."""


@event_model
class StartupProbe(EventBase):
    """The run's startup probe (ARG `startup_probe`); `image_receipt_ok` is tri-state."""

    model_config = examples({"type": "startup_probe", "turn": 0, "image_receipt_ok": None,
                             "signal_vocab": ["score", "level"],
                             "action_interface": {"ACTION6": {"params": ["x", "y"]}}})

    type: Literal["startup_probe"]
    """Event type `startup_probe`."""
    turn: Int64Max = Field(default=0, ge=0, json_schema_extra=_BEAT)
    """Beat of the probe (0: before the first action)."""
    image_receipt_ok: bool | None = None
    """null = no vision path (not applicable), true = pass, false = fail."""
    signal_vocab: list[str] | None = None
    """Signals the environment reports."""
    action_interface: JsonObject | None = None
    """The actions and their parameters, as the probe found them (free-form)."""


@event_model
class LevelEvent(EventBase):
    """An environment-reported level or score change (deterministic evidence)."""

    model_config = examples({"type": "level", "turn": 12, "level_counter": 1, "score": 3})

    type: Literal["level"]
    """Event type `level`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """The beat that landed elsewhere."""
    step_target: str
    """The referent the step aimed at."""
    landed_target: str | None = None
    """Where it landed (null = background)."""


@event_model
class MilestoneClaim(EventBase):
    """The model says a milestone/step is done. A claim, not an event."""

    model_config = examples({"type": "milestone_claim", "turn": 14, "claim_id": "M0001", "step_id": "K0002-S1",
                             "step_started_turn": 12, "text": "the button is pressed"})

    type: Literal["milestone_claim"]
    """Event type `milestone_claim`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
    """Beat of the claim."""
    claim_id: str
    """Claim id."""
    step_id: str | None = None
    """The plan step the claim is about; its start bounds the evidence window."""
    step_started_turn: Int64Max | None = Field(default=None, ge=0, json_schema_extra=_BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=_BEAT)
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


AGENT_EVENTS = (
    Beat, Referent, Commitment, PlanStep, StatusTransition, Rule, Goal, GoalBinding, GoalEdge,
    DeficitStamp, RelevanceEdge, Receipt, LlmCall, WriteReject, CanarySalt, CanaryEcho,
    RenderCapture, StartupProbe, LevelEvent, Substitution, MilestoneClaim, Evidence,
)

__all__ = [m.__name__ for m in AGENT_EVENTS] + ["AGENT_EVENTS", "Cell", "Organ"]
