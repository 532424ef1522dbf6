"""Constraint-track events: enough to recompute DRIFT-Bench's labels (drift-spec.md).

A constraint run is one (model, method, seed) pass over a problem set; each problem opens
with `problem_start` and each turn is one `turn` event carrying the raw response and the
model's extracted ledger. Recorded labels are claims the checker recomputes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.base import EventBase, Int64, Int64Max, JsonObject, JsonValue, Model, event_model, examples, unit

_FLAG = unit("0/1")
_COUNT = unit("constraints")


class LedgerEntry(Model):
    """One constraint in the model's extracted ledger."""

    id: str
    """Constraint id, e.g. `C001`."""
    type: str
    """Constraint type (may be malformed: the checker fails closed on unknown types)."""
    args: JsonValue = Field(json_schema_extra=unit("numbers as the type defines them (seats, time slots)"))
    """Arguments as extracted (any JSON); anything that is not a list of known names/numbers fails closed."""
    nl: str | None = None
    """The constraint in natural language, as the model wrote it."""
    source_turn: Int64 | None = Field(default=None, json_schema_extra=unit("turn number"))
    """The turn that introduced the constraint."""


class RepairAttempt(Model):
    """One generation attempt within a turn (DRIFT-Bench `repair_reason_json` event)."""

    attempt: Int64Max = Field(ge=0, json_schema_extra=unit("attempt number"))
    """Attempt number within the turn (0 = the first generation)."""
    codes: list[str] = Field(default_factory=list)
    """Reason codes of the attempt (why a repair was triggered), in DRIFT-Bench's vocabulary."""
    candidate_ledger_size: Int64 | None = Field(default=None, json_schema_extra=_COUNT)
    """Size of the candidate ledger."""
    candidate_is_sat: bool | None = None
    """Recorded: the candidate ledger was satisfiable."""
    extracted_constraints_count: Int64 | None = Field(default=None, json_schema_extra=_COUNT)
    """Constraints extracted from the response."""
    mus_size: Int64 | None = Field(default=None, json_schema_extra=_COUNT)
    """Size of the minimal unsatisfiable subset found, if any."""
    attempt_budget_exhausted: bool | None = None
    """True when no attempts were left."""
    detail: JsonObject | None = None
    """Anything else the harness recorded (free-form)."""


@event_model
class ProblemStart(EventBase):
    """Opens a problem within a constraint run."""

    model_config = examples({"type": "problem_start", "problem_id": "seating_001", "domain": "seating",
                             "n_turns": 6}, seq=1)

    type: Literal["problem_start"]
    """Event type `problem_start`."""
    problem_id: str
    """The problem's id in the problem set, e.g. `seating_001`."""
    domain: Literal["seating", "scheduling", "logic_grid"]
    """The problem's domain (must match the problem set)."""
    n_turns: Int64Max = Field(ge=1, json_schema_extra=unit("turns"))
    """Number of turns of the problem (must match the problem set)."""


@event_model
class Turn(EventBase):
    """One dialogue turn: the user message, the raw response, the ledger and recorded labels."""

    model_config = examples({
        "type": "turn", "problem_id": "seating_001", "turn_number": 1,
        "user_message": "Ned and Cyd must sit on opposite sides of the table.",
        "raw_response": "{\"solution\": {\"Ada\": 4, \"Bea\": 3, \"Ned\": 2, \"Gus\": 6, \"Lou\": 1, \"Cyd\": 5}}",
        "ledger": [{"id": "C001", "type": "opposite_side", "args": ["Ned", "Cyd"],
                    "nl": "Ned and Cyd must sit on opposite sides of the table", "source_turn": 1}],
        "z3_sat": 1, "answer_correct": 1, "mus": None, "extraction_null": 0, "z3_error": 0,
        "repair_attempts": [{"attempt": 0, "codes": [], "candidate_ledger_size": 1, "candidate_is_sat": True,
                             "extracted_constraints_count": 1, "mus_size": None, "attempt_budget_exhausted": False,
                             "detail": {"note": "first generation"}}],
        "finish_reason": "stop", "tokens_in": 812, "tokens_out": 64,
    }, seq=2)

    type: Literal["turn"]
    """Event type `turn`."""
    problem_id: str
    """The problem the turn belongs to (the one the last `problem_start` opened)."""
    turn_number: Int64Max = Field(ge=1, json_schema_extra=unit("turn number"))
    """1-based turn of the problem."""
    user_message: str
    """The message the model was sent: the problem set's text for this turn, exactly."""
    raw_response: str | None = None
    """The model's final response text, unparsed (null if the call failed)."""
    ledger: list[LedgerEntry] | None = None
    """Committed ledger after this turn (ledger methods), null otherwise."""
    z3_sat: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
    """Recorded: ledger satisfiable (mus_repair only in DRIFT-Bench)."""
    answer_correct: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
    """Recorded: answer consistent with the gold cumulative constraints."""
    mus: list[str] | None = None
    """Recorded minimal unsatisfiable subset (constraint ids)."""
    extraction_null: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
    """Recorded: 1 when no ledger could be extracted from the response."""
    z3_error: int | None = Field(default=None, ge=0, le=1, json_schema_extra=_FLAG)
    """Recorded: 1 when the harness's solver call failed."""
    repair_attempts: list[RepairAttempt] = Field(default_factory=list)
    """Generation attempts of the turn (repair methods)."""
    finish_reason: str | None = None
    """The API's finish reason of the final call, e.g. `stop`, `length`."""
    tokens_in: Int64Max | None = Field(default=None, ge=0, json_schema_extra=unit("tokens"))
    """Input tokens of the turn."""
    tokens_out: Int64Max | None = Field(default=None, ge=0, json_schema_extra=unit("tokens"))
    """Output tokens of the turn."""


CONSTRAINT_EVENTS = (ProblemStart, Turn)

__all__ = ["CONSTRAINT_EVENTS", "LedgerEntry", "ProblemStart", "RepairAttempt", "Turn"]
