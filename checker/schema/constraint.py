"""Constraint-track events: enough to recompute DRIFT-Bench's labels (drift-spec.md).

A constraint run is one (model, method, seed) pass over a problem set; each problem opens
with `problem_start` and each turn is one `turn` event carrying the raw response and the
model's extracted ledger. Recorded labels are claims the checker recomputes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.schema.base import EventBase, Int64, Int64Max, JsonObject, JsonValue, Model


class LedgerEntry(Model):
    """One constraint in the model's extracted ledger."""

    id: str
    """Constraint id, e.g. `C001`."""
    type: str
    """Constraint type (may be malformed: the checker fails closed on unknown types)."""
    args: JsonValue
    """Arguments as extracted (any JSON); anything that is not a list of known names/numbers fails closed."""
    nl: str | None = None
    source_turn: Int64 | None = None


class RepairAttempt(Model):
    """One generation attempt within a turn (DRIFT-Bench `repair_reason_json` event)."""

    attempt: Int64Max = Field(ge=0)
    codes: list[str] = Field(default_factory=list)
    candidate_ledger_size: Int64 | None = None
    candidate_is_sat: bool | None = None
    extracted_constraints_count: Int64 | None = None
    mus_size: Int64 | None = None
    attempt_budget_exhausted: bool | None = None
    detail: JsonObject | None = None


class ProblemStart(EventBase):
    """Opens a problem within a constraint run."""

    type: Literal["problem_start"]
    problem_id: str
    domain: Literal["seating", "scheduling", "logic_grid"]
    n_turns: Int64Max = Field(ge=1)


class Turn(EventBase):
    """One dialogue turn: the user message, the raw response, the ledger and recorded labels."""

    type: Literal["turn"]
    problem_id: str
    turn_number: Int64Max = Field(ge=1)
    user_message: str
    raw_response: str | None = None
    """The model's final response text, unparsed (null if the call failed)."""
    ledger: list[LedgerEntry] | None = None
    """Committed ledger after this turn (ledger methods), null otherwise."""
    z3_sat: int | None = Field(default=None, ge=0, le=1)
    """Recorded: ledger satisfiable (mus_repair only in DRIFT-Bench)."""
    answer_correct: int | None = Field(default=None, ge=0, le=1)
    """Recorded: answer consistent with the gold cumulative constraints."""
    mus: list[str] | None = None
    """Recorded minimal unsatisfiable subset (constraint ids)."""
    extraction_null: int | None = Field(default=None, ge=0, le=1)
    z3_error: int | None = Field(default=None, ge=0, le=1)
    repair_attempts: list[RepairAttempt] = Field(default_factory=list)
    finish_reason: str | None = None
    tokens_in: Int64Max | None = Field(default=None, ge=0)
    tokens_out: Int64Max | None = Field(default=None, ge=0)


CONSTRAINT_EVENTS = (ProblemStart, Turn)

__all__ = ["CONSTRAINT_EVENTS", "LedgerEntry", "ProblemStart", "RepairAttempt", "Turn"]
