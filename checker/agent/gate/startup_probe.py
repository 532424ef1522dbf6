"""Condition 3, startup probe: a startup probe row exists and did not fail (tri-state: null = no vision path).

ARG keeps one row per run (the first); in profile `driftboard` any failed probe fails the run.
"""

from __future__ import annotations

from checker.agent.gate.condition import FAIL, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if
from checker.agent.replay import AgentState
from checker.format.numbers import fmt
from checker.format.results_model import StartupProbeResult


def evaluate(state: AgentState, profile: str = "driftboard") -> StartupProbeResult:
    """The condition for one replayed run."""
    probe = state.startup
    if probe is None:
        return StartupProbeResult(status=FAIL, note="no startup probe", reason="startup probe: no startup_probe event",
                                  present=False, image_receipt_ok=None)
    ok = probe.image_receipt_ok
    if profile == "driftboard" and state.startup_failed:
        ok = False
    status = NOT_APPLICABLE if ok is None else PASS if ok else FAIL
    return StartupProbeResult(
        status=status, note=f"image_receipt_ok {fmt(ok)}",
        reason=reason_if(status, lambda: "startup probe: image receipt failed (image_receipt_ok false)"),
        present=True, image_receipt_ok=ok,
    )


def from_inputs(g: GateInputs) -> StartupProbeResult:
    """The condition read from the gate's inputs (`CONDITION.evaluate`)."""
    return evaluate(g.state, g.profile)


CONDITION = Condition(
    "startup_probe", "startup probe", "a startup probe exists and did not fail",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
