"""The validity gate: ARG's six conditions over a replayed agent run (arg-spec.md §b), and `evidence`.

Each condition is one module of this package (`render_ceiling`, `silent_degrade`, `startup_probe`,
`shadow_identity`, `canary_echo`, `write_error_rate`, `evidence`) holding its evaluation, its note and
its reason, and returning its typed result model (`checker.format.results_model`); `GATE` gathers
their declarations in arg-spec.md §b order. Each condition reports PASS, FAIL (with the numbers that
failed it) or NOT_APPLICABLE (vacuous: nothing to judge), never a silent pass. The gate's verdict is
INVALID when any condition fails, else VALID (the run's verdict is judged from it by
`checker.stages.verdict`). Thresholds come from the pre-registration (`Prereg.thresholds`); without
one, ARG's published defaults (the `Thresholds` defaults) apply. Nothing is read from the environment.

Two profiles:

* `arg-v1.0` reproduces `probe_arg_legibility` exactly: the canary condition fails only when
  *every* zone's echo rate is below the floor; shadow byte-identity compares one (last-read)
  capture per shadow flag in each (turn, zone) group; canary echoes are taken as recorded.
* `driftboard` (leaderboard default) follows the paper's stated rules where they are stricter:
  *any* zone below the floor invalidates; byte-identity compares every shadow/live capture pair
  of the same (turn, zone, organ, call); an echo whose output text is logged is recomputed as
  "the salt's nonce occurs in the output" and the recomputed value is used; render captures count
  toward the render ceiling; rejected ops come from `checker.agent.evidence.reject_counts`; condition 7,
  `evidence`, fails on any label that contradicts the log's own rows (`checker.agent.evidence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from checker.agent.evidence import EvidenceResult
from checker.agent.gate import (
    canary_echo,
    render_ceiling,
    shadow_identity,
    silent_degrade,
    startup_probe,
    write_error_rate,
)
from checker.agent.gate import evidence as evidence_labels
from checker.agent.gate.condition import FAIL, NOT_APPLICABLE, PASS, Condition, GateInputs
from checker.agent.replay import AgentState
from checker.format.results_model import GateConditions, Legibility, Mismatch
from checker.format.schema.manifest import Thresholds

GATE: tuple[Condition, ...] = (
    render_ceiling.CONDITION,
    silent_degrade.CONDITION,
    startup_probe.CONDITION,
    shadow_identity.CONDITION,
    canary_echo.CONDITION,
    write_error_rate.CONDITION,
    evidence_labels.CONDITION,
)
"""The gate's conditions, in arg-spec.md §b order (the fields of `GateConditions`, in order)."""

CONDITIONS = tuple(c.name for c in GATE)
"""The conditions' names, in order."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """Outcome of the gate for one run."""

    verdict: Literal["VALID", "INVALID"]
    """The gate's outcome: INVALID when any condition failed (the run's verdict: `checker.stages.verdict`)."""
    conditions: GateConditions
    """Every condition's typed result (status, numbers, note, reason)."""
    reasons: list[str]
    """One line per failed condition."""
    legibility: Legibility
    """The same outcome in the shape `probe_arg_legibility.verify` returns."""
    echo_mismatches: list[Mismatch]
    """Canary echoes whose recorded `echoed` disagrees with the logged output text."""


def legibility(verdict: Literal["VALID", "INVALID"], conditions: GateConditions, beats: int) -> Legibility:
    """The gate's outcome as ARG's legibility probe reports it."""
    c5, c6 = conditions.canary_echo, conditions.write_error_rate
    return Legibility(
        verdict=verdict,
        r9_breaches=conditions.render_ceiling.breaches,
        silent_degrade=conditions.silent_degrade.count,
        startup_ok=conditions.startup_probe.status != FAIL,
        shadow_ok=conditions.shadow_identity.status != FAIL,
        beats=beats,
        zcr_rates=c5.rates,
        zcr_uniform_fail=c5.status == FAIL,
        wer_by_organ={o: e.wer for o, e in c6.organs.items() if e.judged},
        wer_floor_ok=c6.status != FAIL,
    )


def run_gate(state: AgentState, thresholds: Thresholds | None, profile: str,
             evidence: EvidenceResult | None = None) -> GateResult:
    """Evaluate every condition of `GATE` and the gate's verdict for one replayed run.

    `evidence` (profile `driftboard`) supplies the values derived from the log's own rows: the
    derived canary echoes of condition 5, the write-reject counts of condition 6 and the mismatches
    of condition 7. Each condition's result carries its `note` and, when it fails, its `reason`.
    """
    g = GateInputs(state, thresholds or Thresholds(), profile, evidence)
    conditions = GateConditions(
        render_ceiling=render_ceiling.from_inputs(g),
        silent_degrade=silent_degrade.from_inputs(g),
        startup_probe=startup_probe.from_inputs(g),
        shadow_identity=shadow_identity.from_inputs(g),
        canary_echo=canary_echo.from_inputs(g),
        write_error_rate=write_error_rate.from_inputs(g),
        evidence=evidence_labels.from_inputs(g),
    )
    reasons = [c.reason for _, c in conditions.items() if c.reason]
    # the gate's own outcome (`RunResult.gate_verdict`); the run's verdict is judged from its reasons as facts
    gate_verdict: Literal["VALID", "INVALID"] = "INVALID" if reasons else "VALID"
    return GateResult(gate_verdict, conditions, reasons, legibility(gate_verdict, conditions, len(state.beats)),
                      canary_echo.echo_mismatches(state))


__all__ = ["CONDITIONS", "FAIL", "GATE", "NOT_APPLICABLE", "PASS", "Condition", "GateInputs", "GateResult", "legibility",
           "run_gate"]
