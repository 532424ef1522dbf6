"""Agent-track events: enough to recompute ARG's gate and metrics (arg-spec.md §a, §c, §e).

Each event mirrors one ARG row kind; `turn` is the beat (turn_id) the row belongs to.
State is never summarised in the log: statuses are transitions, referents are versions.

The classes live by concern: `agent_loop` (actions, receipts, levels, evidence and claims),
`agent_state` (the state store: referents, goals, plans, rules, statuses) and `agent_calls` (model
calls, rendered zones, canaries), on the field types of `agent_fields`; this module lists them.
"""

from __future__ import annotations

from checker.format.schema.agent_calls import CanaryEcho, CanarySalt, LlmCall, RenderCapture
from checker.format.schema.agent_fields import Cell, Organ
from checker.format.schema.agent_loop import Beat, Evidence, LevelEvent, MilestoneClaim, Receipt, StartupProbe, Substitution
from checker.format.schema.agent_state import (
    Commitment,
    DeficitStamp,
    Goal,
    GoalBinding,
    GoalEdge,
    PlanStep,
    Referent,
    RelevanceEdge,
    Rule,
    StatusTransition,
    WriteReject,
)

AGENT_EVENTS = (
    Beat, Referent, Commitment, PlanStep, StatusTransition, Rule, Goal, GoalBinding, GoalEdge,
    DeficitStamp, RelevanceEdge, Receipt, LlmCall, WriteReject, CanarySalt, CanaryEcho,
    RenderCapture, StartupProbe, LevelEvent, Substitution, MilestoneClaim, Evidence,
)
"""Every agent-track event class, in documentation order."""

__all__ = [m.__name__ for m in AGENT_EVENTS] + ["AGENT_EVENTS", "Cell", "Organ"]
