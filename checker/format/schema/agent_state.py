"""Agent-track events of the state store: referents, goals, plans, rules and their statuses, as versions.

State is never summarised in the log: a referent, goal or rule is a sequence of versions, a status
is the latest transition, and plans (commitments and their steps) bind goals to referents.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.agent_fields import BEAT, VERSION, Cell, Organ, Pair
from checker.format.schema.base import EventBase, Int64, Int64Max, JsonObject, event_model, examples, unit


@event_model
class Referent(EventBase):
    """A referent version (ARG `referent` + its GridRegion locator)."""

    model_config = examples({
        "type": "referent", "turn": 3, "ref_id": "R0004", "version": 2, "kind": "percept-cluster",
        "anchor_cells": [[3, 7], [4, 7]], "signature": "c1a9e0f2b3d4", "provenance": "OBSERVER_BIND",
    })

    type: Literal["referent"]
    """Event type `referent`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat at which this version was bound."""
    ref_id: str
    """Referent id, stable across versions, e.g. `R0004`."""
    version: Int64Max = Field(ge=1, json_schema_extra=VERSION)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Compilation beat."""
    commit_id: str
    """Commitment id, e.g. `K0002`; its steps are `plan_step` events with this `commit_id`."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=VERSION)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Compilation beat."""
    commit_id: str
    """The commitment this step belongs to."""
    commit_version: Int64Max = Field(default=1, ge=1, json_schema_extra=VERSION)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat the version was proposed."""
    rule_id: str
    """Rule id, stable across versions."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=VERSION)
    """Rule version (the latest is current)."""
    template: str | None = None
    """Hypothesis template the rule instantiates."""
    ctx: JsonObject = Field(default_factory=dict)
    """{action, target, when}."""
    effect: JsonObject = Field(default_factory=dict)
    """Subset of {cells_changed, score_event, level_event}; effect-linked = score or level event 1."""
    scope: str | None = None
    """WITHIN_LIFE, PERSISTENT or UNKNOWN."""
    ttl_turn: Int64 | None = Field(default=None, json_schema_extra=BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat the version was admitted."""
    goal_id: str
    """Goal id, stable across versions."""
    version: Int64Max = Field(default=1, ge=1, json_schema_extra=VERSION)
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
    turn: Int64Max = Field(default=0, ge=0, json_schema_extra=BEAT)
    """Beat of the binding."""
    goal_id: str
    """The goal."""
    goal_version: Int64Max = Field(default=1, ge=1, json_schema_extra=VERSION)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
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
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the edge."""
    goal_id: str
    """The goal."""
    target_kind: str
    """What is marked relevant: RULE or REFERENT."""
    target_id: str
    """Its id."""


@event_model
class WriteReject(EventBase):
    """An organ's rejected write (ARG `write_reject`)."""

    model_config = examples({"type": "write_reject", "turn": 12, "organ": "SURVEYOR", "op_type": "propose_rule",
                             "violation_class": "OUT_OF_SCHEMA", "retry_count": 0})

    type: Literal["write_reject"]
    """Event type `write_reject`."""
    turn: Int64Max = Field(ge=0, json_schema_extra=BEAT)
    """Beat of the rejected write."""
    organ: Organ
    """The organ whose write was rejected."""
    op_type: str | None = None
    """The kind of write operation."""
    violation_class: str | None = None
    """Why it was rejected, e.g. UNCONTAINED_PARAM, OUT_OF_SCHEMA."""
    retry_count: Int64Max = Field(default=0, ge=0, json_schema_extra=unit("retries"))
    """Retry number of the call that wrote it."""
