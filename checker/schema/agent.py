"""Agent-track events: enough to recompute ARG's gate and metrics (arg-spec.md §a, §c, §e).

Each event mirrors one ARG row kind; `turn` is the beat (turn_id) the row belongs to.
State is never summarised in the log: statuses are transitions, referents are versions.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from checker.schema.base import EventBase, Int64, Int64Max, JsonObject, Scalar, Sha256Hex

Organ = Literal["OBSERVER", "SURVEYOR", "ACTUATOR", "BASELINE"]
Cell = Annotated[list[Int64], Field(min_length=2, max_length=2)]
"""An anchor cell as [x = column, y = row]."""
Pair = Annotated[list[str], Field(min_length=2, max_length=2)]
"""A (kind, id) pair."""


class Beat(EventBase):
    """One emitted action (ARG `turn_record`)."""

    type: Literal["beat"]
    turn: Int64Max = Field(ge=0)
    """Beat number; the initial RESET is 0."""
    action: str
    """Action name, e.g. `ACTION6` or `RESET`."""
    params: dict[str, Scalar] | None = None
    """Aim parameters (`{"x": 3, "y": 7}` for a click); null when the action takes none."""
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
    render_tokens: Int64Max = Field(default=0, ge=0)
    """Largest Actuator view rendered this beat (ceil(chars/4))."""
    match: int | None = Field(default=None, ge=0, le=1)
    """Match of the beat's first pre-registered predictor, null if none."""
    level_counter: Int64Max = Field(default=0, ge=0)
    """Environment's cumulative levels completed after this beat."""
    score: Int64 = 0
    """Environment score after this beat."""
    lives: Int64 | None = None
    """Lives left, when the environment has them."""
    pre_frame_sha256: Sha256Hex | None = None
    """Digest of the frame before the action."""
    post_frame_sha256: Sha256Hex | None = None
    """Digest of the frame after the action."""
    pre_frame_hash: str | None = None
    """The harness's own frame hash before the action, in its native format (ARG: 16 hex)."""
    post_frame_hash: str | None = None
    """The harness's own frame hash after the action, in its native format (ARG: 16 hex)."""


class Referent(EventBase):
    """A referent version (ARG `referent` + its GridRegion locator)."""

    type: Literal["referent"]
    turn: Int64Max = Field(ge=0)
    ref_id: str
    version: Int64Max = Field(ge=1)
    kind: str
    """percept-cluster, region, action or signal."""
    anchor_cells: list[Cell] = Field(default_factory=list)
    """Cells (x, y) of the referent's anchor region; used to recompute landings."""
    signature: str | None = None
    provenance: str = "OBSERVER_BIND"


class Commitment(EventBase):
    """A compiled commitment (plan) toward a goal (ARG `commitment`)."""

    type: Literal["commitment"]
    turn: Int64Max = Field(ge=0)
    commit_id: str
    version: Int64Max = Field(default=1, ge=1)
    goal_id: str | None = None
    procedure_id: str | None = None


class PlanStep(EventBase):
    """A step of a commitment (ARG `commitment_step` + `step_premise`)."""

    type: Literal["plan_step"]
    turn: Int64Max = Field(ge=0)
    """Compilation beat."""
    commit_id: str
    commit_version: Int64Max = Field(default=1, ge=1)
    step_id: str
    """`<commit_id>-S<k>`."""
    step_ord: Int64Max = Field(ge=0)
    kind: str
    """NAVIGATE, INTERACT or PROBE."""
    target_ref: str | None = None
    action: str | None = None
    premises: list[Pair] = Field(default_factory=list)
    """(member_kind, member_id) pairs: RULE, GOAL_BINDING or TARGET_REF premises."""
    predicted_delta: JsonObject | None = None
    lease_max_beats: Int64 | None = None


class StatusTransition(EventBase):
    """A status change of any entity (ARG `status_transition`); status = latest transition."""

    type: Literal["status"]
    turn: Int64Max = Field(ge=0)
    entity_kind: str
    """REFERENT_RUNG, REFERENT_LIFE, RULE, GOAL, COMMITMENT_STEP, REFERENT_FISSION, ..."""
    entity_id: str
    from_status: str | None = None
    to_status: str
    reason: str | None = None


class Rule(EventBase):
    """A hypothesis (ARG `rule` version): context predicate -> effect pattern."""

    type: Literal["rule"]
    turn: Int64Max = Field(ge=0)
    rule_id: str
    version: Int64Max = Field(default=1, ge=1)
    template: str | None = None
    ctx: JsonObject = Field(default_factory=dict)
    """{action, target, when}."""
    effect: JsonObject = Field(default_factory=dict)
    """Subset of {cells_changed, score_event, level_event}; effect-linked = score or level event 1."""
    scope: str | None = None
    ttl_turn: Int64 | None = None


class Goal(EventBase):
    """A goal version (ARG `goal`)."""

    type: Literal["goal"]
    turn: Int64Max = Field(ge=0)
    goal_id: str
    version: Int64Max = Field(default=1, ge=1)
    parent_goal: str | None = None
    statement: str | None = None
    provenance: str | None = None
    """SEEDED, SURVEYOR or DEFICIT (milestone goals)."""


class GoalBinding(EventBase):
    """A referent bound to a goal by plan compilation (ARG `goal_binding`)."""

    type: Literal["goal_binding"]
    turn: Int64Max = Field(default=0, ge=0)
    goal_id: str
    goal_version: Int64Max = Field(default=1, ge=1)
    ref_id: str


class GoalEdge(EventBase):
    """Parent -> child goal edge (ARG `goal_edge`)."""

    type: Literal["goal_edge"]
    turn: Int64Max = Field(ge=0)
    parent_goal: str
    child_goal: str
    verified: bool = False


class DeficitStamp(EventBase):
    """A 'chain incomplete here' record (ARG `deficit_stamp`)."""

    type: Literal["deficit_stamp"]
    turn: Int64Max = Field(ge=0)
    goal_id: str
    holes: list[JsonObject] | JsonObject | None = None


class RelevanceEdge(EventBase):
    """A goal marking a rule or referent relevant (ARG `relevance_edge`)."""

    type: Literal["relevance_edge"]
    turn: Int64Max = Field(ge=0)
    goal_id: str
    target_kind: str
    target_id: str


class Receipt(EventBase):
    """A consequence receipt: a prediction registered before the beat and its outcome."""

    type: Literal["receipt"]
    turn: Int64Max = Field(ge=0)
    action: str | None = None
    target_ref: str | None = None
    context_class: str | None = None
    predicted: JsonObject | None = None
    observed: JsonObject | None = None
    match: int | None = Field(default=None, ge=0, le=1)
    predictor_id: str | None = None
    predictor_kind: Literal["STEP", "RULE", "EXPERIMENT"] | None = None
    score_event: int = Field(default=0, ge=0, le=1)
    level_event: int = Field(default=0, ge=0, le=1)
    life_event: int = Field(default=0, ge=0, le=1)


class LlmCall(EventBase):
    """One LLM call by an organ (ARG `llm_calls`); retries are separate calls."""

    type: Literal["llm_call"]
    turn: Int64Max = Field(ge=0)
    organ: Organ
    call_idx: Int64Max = Field(default=0, ge=0)
    retry_count: Int64Max = Field(default=0, ge=0)
    prompt_tokens: Int64Max = Field(default=0, ge=0)
    completion_tokens: Int64Max = Field(default=0, ge=0)
    reasoning_tokens: Int64Max = Field(default=0, ge=0)
    render_tokens: Int64Max = Field(default=0, ge=0)
    ops_accepted: Int64Max = Field(default=0, ge=0)
    ops_rejected: Int64Max = Field(default=0, ge=0)


class WriteReject(EventBase):
    """An organ's rejected write (ARG `write_reject`)."""

    type: Literal["write_reject"]
    turn: Int64Max = Field(ge=0)
    organ: Organ
    op_type: str | None = None
    violation_class: str | None = None
    retry_count: Int64Max = Field(default=0, ge=0)


class CanarySalt(EventBase):
    """A salted nonce placed in a zone of an organ's prompt (ARG `zcr_salt`)."""

    type: Literal["canary_salt"]
    turn: Int64Max = Field(ge=0)
    organ: Organ
    call_idx: Int64Max = Field(ge=0)
    zone: str
    nonce: str


class CanaryEcho(EventBase):
    """Whether the organ's output echoed a salted nonce (ARG `zcr_echo`).

    When `output_text` is present the checker recomputes `echoed` as nonce-in-text.
    """

    type: Literal["canary_echo"]
    turn: Int64Max = Field(ge=0)
    organ: Organ
    call_idx: Int64Max = Field(ge=0)
    zone: str
    nonce: str
    echoed: bool
    output_text: str | None = None


class RenderCapture(EventBase):
    """Digest of one rendered zone of a prompt view (ARG `render_capture`)."""

    type: Literal["render_capture"]
    turn: Int64Max = Field(ge=0)
    organ: Organ | None = None
    call_idx: Int64Max = Field(default=0, ge=0)
    zone: str
    view_sha256: Sha256Hex
    view_bytes: Int64Max = Field(default=0, ge=0)
    render_tokens: Int64Max = Field(default=0, ge=0)
    shadow: bool = False
    """True when captured in a shadow (agenda-off) configuration."""


class StartupProbe(EventBase):
    """The run's startup probe (ARG `startup_probe`); `image_receipt_ok` is tri-state."""

    type: Literal["startup_probe"]
    turn: Int64Max = Field(default=0, ge=0)
    image_receipt_ok: bool | None = None
    """null = no vision path (not applicable), true = pass, false = fail."""
    signal_vocab: list[str] | None = None
    action_interface: JsonObject | None = None


class LevelEvent(EventBase):
    """An environment-reported level or score change (deterministic evidence)."""

    type: Literal["level"]
    turn: Int64Max = Field(ge=0)
    level_counter: Int64Max = Field(ge=0)
    score: Int64 = 0


class Substitution(EventBase):
    """An aimed live step landed elsewhere (ARG `substitution_caught`)."""

    type: Literal["substitution"]
    turn: Int64Max = Field(ge=0)
    step_target: str
    landed_target: str | None = None


class MilestoneClaim(EventBase):
    """The model says a milestone/step is done. A claim, not an event."""

    type: Literal["milestone_claim"]
    turn: Int64Max = Field(ge=0)
    claim_id: str
    step_id: str | None = None
    """The plan step the claim is about; its start bounds the evidence window."""
    step_started_turn: Int64Max | None = Field(default=None, ge=0)
    """Beat at which the claimed step started (else the claim's own window starts at 0)."""
    text: str | None = None


class Evidence(EventBase):
    """Deterministic evidence observed in the run (a file digest change, an exit code, ...)."""

    type: Literal["evidence"]
    turn: Int64Max = Field(ge=0)
    kind: Literal["level", "score", "file_digest", "exit_code", "api_success", "receipt", "read", "search",
                  "fetch", "write", "commit", "message", "paid_call"]
    irreversible: bool
    """Writes, commits, messages sent, paid calls, level events are irreversible; reads are not."""
    subject: str | None = None
    """What changed, e.g. a file path or an API endpoint."""
    before: str | None = None
    after: str | None = None
    exit_code: Int64 | None = None


AGENT_EVENTS = (
    Beat, Referent, Commitment, PlanStep, StatusTransition, Rule, Goal, GoalBinding, GoalEdge,
    DeficitStamp, RelevanceEdge, Receipt, LlmCall, WriteReject, CanarySalt, CanaryEcho,
    RenderCapture, StartupProbe, LevelEvent, Substitution, MilestoneClaim, Evidence,
)

__all__ = [m.__name__ for m in AGENT_EVENTS] + ["AGENT_EVENTS", "Cell", "Organ"]
