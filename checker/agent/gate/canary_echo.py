"""Condition 5, canary echo: per-zone canary echo rate after warm-up is not below the floor.

Profile `arg-v1.0` reproduces `probe_arg_legibility`: echoes are taken as recorded and the condition
fails only when *every* zone is below the floor. Profile `driftboard` follows the paper: an echo is
"the salt's nonce occurs in the output" (`checker.agent.evidence.echo_values`) and *any* zone below
the floor fails. Either way an echo whose logged output text contradicts its recorded `echoed` is
listed (`echo_mismatches`).
"""

from __future__ import annotations

from checker.agent.evidence import echo_values
from checker.agent.gate.condition import FAIL, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if, round3
from checker.agent.replay import AgentState
from checker.format.numbers import fmt
from checker.format.results_model import CanaryEchoResult, Mismatch


def echo_mismatches(state: AgentState) -> list[Mismatch]:
    """Canary echoes whose recorded `echoed` disagrees with their own nonce and logged output text."""
    out: list[Mismatch] = []
    for echo, ln in zip(state.echoes, state.echo_lines, strict=True):
        text = echo.output_text
        if text is None:
            continue
        recomputed = bool(echo.nonce) and echo.nonce in text  # "" occurs in every text
        if recomputed != echo.echoed:
            out.append(Mismatch(line=ln, field="echoed", recorded=echo.echoed, recomputed=recomputed,
                                reason=f"nonce {echo.nonce} {'occurs' if recomputed else 'does not occur'} "
                                       "in the logged output text"))
    return out


def _echoes(state: AgentState, profile: str, derived: list[bool] | None) -> list[tuple[int, str, bool]]:
    """(call_idx, zone, echoed) per echo row: as recorded (`arg-v1.0`) or derived from the salt (`driftboard`)."""
    if profile == "arg-v1.0":
        values = [e.echoed for e in state.echoes]
    else:
        values = derived if derived is not None else echo_values(state)[0]
    return [(echo.call_idx, echo.zone, value) for echo, value in zip(state.echoes, values, strict=True)]


def _rates(rows: list[tuple[int, str, bool]]) -> dict[str, float]:
    """Zone -> share of echoed rows (unrounded), in first-seen order."""
    sums: dict[str, list[int]] = {}
    for _, zone, echoed in rows:
        acc = sums.setdefault(zone, [0, 0])
        acc[0] += 1 if echoed else 0
        acc[1] += 1
    return {zone: s / n for zone, (s, n) in sums.items()}


def _note(rates: dict[str, float], floor: float, warmup: int, fallback: bool) -> str:
    shown = " ".join(f"{z}={fmt(r)}" for z, r in rates.items())
    return f"{shown} (floor {fmt(floor)}, warm-up {warmup}{', all rows' if fallback else ''})"


def evaluate(state: AgentState, floor: float, warmup: int, profile: str,
             derived_echoes: list[bool] | None = None) -> CanaryEchoResult:
    """The condition for one replayed run.

    `derived_echoes` is `checker.agent.evidence.echo_values(state)[0]` when the caller has it already.
    """
    rows = _echoes(state, profile, derived_echoes)
    if not rows:
        return CanaryEchoResult(status=NOT_APPLICABLE, note="no canary echo rows", reason=None, floor=floor,
                                warmup=warmup, rows=0, rows_used=0, fallback_all_rows=False, rates={}, zones_below=[])
    used = [r for r in rows if r[0] > warmup] or rows  # a run shorter than the warm-up: every row
    fallback = used is rows
    raw = _rates(used)
    below = sorted(z for z, rate in raw.items() if rate < floor)
    fail = (len(below) == len(raw)) if profile == "arg-v1.0" else bool(below)
    rates = {z: round3(r) for z, r in sorted(raw.items())}
    status = FAIL if fail else PASS

    def reason() -> str:
        listed = ", ".join(f"{z} {r}" for z, r in rates.items())
        rule = "every zone" if profile == "arg-v1.0" else "zone(s) " + ", ".join(below)
        return f"canary echo: {rule} below the floor {floor} after warm-up {warmup} ({listed})"

    return CanaryEchoResult(
        status=status, note=_note(rates, floor, warmup, fallback),
        reason=reason_if(status, reason), floor=floor, warmup=warmup, rows=len(rows), rows_used=len(used),
        fallback_all_rows=fallback, rates=rates, zones_below=below,
    )


def from_inputs(g: GateInputs) -> CanaryEchoResult:
    """The condition read from the gate\'s inputs (`CONDITION.evaluate`)."""
    th = g.thresholds
    return evaluate(g.state, th.canary_floor, th.canary_warmup, g.profile,
                    g.evidence.echoed if g.evidence is not None else None)


CONDITION = Condition(
    "canary_echo", "canary echo", "per-zone canary echo rate after warm-up is not below the floor",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "echo_mismatches", "evaluate", "from_inputs"]
