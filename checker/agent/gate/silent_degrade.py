"""Condition 2, silent degrade: every acted (non-RESET) beat carries a reference stamp (drift_ref LIVE or SHADOW)."""

from __future__ import annotations

from checker.agent.gate.condition import FAIL, MAX_LINES, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if
from checker.agent.replay import AgentState
from checker.format.results_model import SilentDegradeResult


def evaluate(state: AgentState) -> SilentDegradeResult:
    """The condition for one replayed run."""
    acted = 0
    lines = []
    for b, ln in zip(state.beats, state.beat_lines, strict=True):
        if b.action != "RESET":
            acted += 1
            if b.drift_ref is None:
                lines.append(ln)
    status = NOT_APPLICABLE if not acted else FAIL if lines else PASS
    count = len(lines)
    return SilentDegradeResult(
        status=status, note=f"{count} of {acted} acted beat(s) unstamped",
        reason=reason_if(status, lambda: f"silent degrade: {count} acted beat(s) without a reference stamp "
                                         "(drift_ref null)"),
        count=count, acted_beats=acted, lines=lines[:MAX_LINES],
    )


def from_inputs(g: GateInputs) -> SilentDegradeResult:
    """The condition read from the gate's inputs (`CONDITION.evaluate`)."""
    return evaluate(g.state)


CONDITION = Condition(
    "silent_degrade", "silent degrade", "every acted (non-RESET) beat carries a reference stamp",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
