"""Condition 7, evidence: no label the gate or a metric reads contradicts the log's own lower-level rows.

The checks are `checker.agent.evidence`'s (profile `driftboard`). The condition is NOT_APPLICABLE when
they did not run (profile `arg-v1.0`, which reads labels as ARG does).
"""

from __future__ import annotations

from checker.agent.evidence import EvidenceResult
from checker.agent.gate.condition import FAIL, MAX_LINES, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if
from checker.format.results_model import EvidenceConditionResult


def evaluate(evidence: EvidenceResult | None) -> EvidenceConditionResult:
    """The condition for one run's evidence checks (None: they did not run)."""
    if evidence is None:
        return EvidenceConditionResult(status=NOT_APPLICABLE, note="labels read as recorded (arg-v1.0)", reason=None,
                                       checked=False, mismatches=0, by_check={}, lines=[])
    found = evidence.mismatches
    by_check = evidence.by_check()
    checks = ", ".join(f"{k} {n}" for k, n in by_check.items())
    first = None
    if found:
        m = found[0].mismatch
        first = f"line {m.line} {m.field}: {m.reason}"
    status = FAIL if found else PASS
    return EvidenceConditionResult(
        status=status, note=checks or "every checked label agrees with the log",
        reason=reason_if(status, lambda: f"evidence: {len(found)} recorded label(s) contradict the log's own rows "
                                         f"({checks}); first: {first}"),
        checked=True, mismatches=len(found), by_check=by_check,
        lines=sorted({c.line for c in found})[:MAX_LINES], first=first,
    )


def from_inputs(g: GateInputs) -> EvidenceConditionResult:
    """The condition read from the gate's inputs (`CONDITION.evaluate`)."""
    return evaluate(g.evidence)


CONDITION = Condition(
    "evidence", "evidence", "no label the gate or a metric reads contradicts the log's own lower-level rows",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
