"""What every gate condition shares: the statuses, the inputs it reads and the shape of its declaration.

A condition module (`render_ceiling`, `silent_degrade`, ...) evaluates its rule into its typed result
model of `checker.format.results_model` (status, numbers, `note` and `reason` built in one place) and
declares itself once as a `Condition`; `checker.agent.gate.GATE` gathers the declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from checker.agent.evidence import EvidenceResult
from checker.agent.replay import AgentState
from checker.format.results_model import ConditionResult, Status
from checker.format.schema.manifest import Thresholds

PASS: Status = "PASS"
FAIL: Status = "FAIL"
NOT_APPLICABLE: Status = "NOT_APPLICABLE"
MAX_LINES = 20
"""At most this many offending log lines (or examples) are listed per condition."""


def round3(x: float) -> float:
    """`round(x, 3)`, ARG's rounding of a rate."""
    return round(x, 3)


def reason_if(status: Status, reason: Callable[[], str]) -> str | None:
    """The condition's reason when it FAILs (`reason()` is only called then), else None."""
    return reason() if status == FAIL else None


@dataclass(frozen=True, slots=True)
class GateInputs:
    """What a condition reads: the replayed run, the thresholds applied, the profile and the evidence checks."""

    state: AgentState
    thresholds: Thresholds
    profile: str
    """`driftboard` or `arg-v1.0` (see `checker.agent.gate`)."""
    evidence: EvidenceResult | None
    """Values derived from the log's own rows (`checker.agent.evidence`; profile `driftboard`), None under `arg-v1.0`."""


@dataclass(frozen=True)
class Condition:
    """One gate condition, declared once: the gate, the CLI text, the site and the job summary read it."""

    name: str
    """Key in the run's `gate` table (the `GateConditions` field)."""
    title: str
    """Short human name."""
    rule: str
    """What must hold, in words (arg-spec.md §b)."""
    evaluate: Callable[[GateInputs], ConditionResult]
    """The condition's typed result (status, numbers, `note`, `reason`) for one run."""


__all__ = ["FAIL", "MAX_LINES", "NOT_APPLICABLE", "PASS", "Condition", "GateInputs", "reason_if", "round3"]
