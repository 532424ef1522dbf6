"""Condition 6, write-error rate: per organ with at least `min_ops` ops, rejects / ops is not above the floor.

Profile `arg-v1.0` counts the `write_reject` rows and the calls' `ops_accepted`; profile `driftboard`
takes both counts from `checker.agent.evidence` (`reject_counts`, `accepted_counts`), which check
them against each other.
"""

from __future__ import annotations

from checker.agent.gate.condition import FAIL, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if, round3
from checker.agent.replay import AgentState
from checker.format.gate_results import OrganWer, WriteErrorRateResult
from checker.format.numbers import fmt


def _counts(state: AgentState, rejects: dict[str, int] | None,
            accepted: dict[str, int] | None) -> tuple[dict[str, int], dict[str, int]]:
    """(rejected, accepted) ops per organ: the ones given, else counted from the rows as ARG does."""
    rej: dict[str, int] = dict(rejects) if rejects is not None else {}
    acc: dict[str, int] = {}
    for wr in state.write_rejects if rejects is None else ():
        rej[wr.organ] = rej.get(wr.organ, 0) + 1
    for call in state.llm_calls if accepted is None else ():
        acc[call.organ] = acc.get(call.organ, 0) + call.ops_accepted
    if accepted is not None:
        acc.update(accepted)
    return rej, acc


def _note(organs: dict[str, OrganWer], floor: float, min_ops: int) -> str:
    parts = [f"{o} {e.rejects}/{e.ops}" + ("" if e.judged else " (below min ops)") for o, e in organs.items()]
    return (", ".join(parts) or "no ops") + f" (floor {fmt(floor)}, min ops {min_ops})"


def evaluate(state: AgentState, floor: float, min_ops: int, rejects: dict[str, int] | None = None,
             accepted: dict[str, int] | None = None) -> WriteErrorRateResult:
    """The condition for one replayed run.

    `rejects` and `accepted` (organ -> count, profile `driftboard`: `checker.agent.evidence.reject_counts`
    and `accepted_counts`) replace the count of reject rows and the calls' `ops_accepted`.
    """
    rej, acc = _counts(state, rejects, accepted)
    organs: dict[str, OrganWer] = {}
    failed: list[str] = []
    for organ in sorted(set(rej) | set(acc)):
        r, a = rej.get(organ, 0), acc.get(organ, 0)
        n = r + a
        counted = n >= min_ops and n > 0  # an organ with no op has no rate, whatever `min_ops` says (0 included)
        organs[organ] = OrganWer(rejects=r, accepted=a, ops=n, judged=counted, wer=round3(r / n) if n else None)
        if counted and r / n > floor:
            failed.append(organ)
    judged = sum(e.judged for e in organs.values())
    status = NOT_APPLICABLE if judged == 0 else FAIL if failed else PASS

    def reason() -> str:
        listed = ", ".join(f"{o} {organs[o].rejects}/{organs[o].ops} = {organs[o].wer}" for o in failed)
        return f"write-error rate above {floor} (min ops {min_ops}): {listed}"

    return WriteErrorRateResult(status=status, note=_note(organs, floor, min_ops), reason=reason_if(status, reason),
                                floor=floor, min_ops=min_ops, organs=organs, failed=failed)


def from_inputs(g: GateInputs) -> WriteErrorRateResult:
    """The condition read from the gate\'s inputs (`CONDITION.evaluate`)."""
    ev = g.evidence
    return evaluate(g.state, g.thresholds.wer_floor, g.thresholds.wer_min_ops,
                    ev.rejects if ev is not None else None, ev.accepted if ev is not None else None)


CONDITION = Condition(
    "write_error_rate", "write-error rate",
    "per organ with at least min-ops ops, rejects / ops is not above the floor",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
