"""Condition 1, render ceiling: no beat and no LLM call renders more than B tokens (strict >).

In profile `driftboard` render captures count too (a capture above B is a render above B); ARG
reads only beats and calls.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

from checker.agent.gate.condition import FAIL, MAX_LINES, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if
from checker.agent.replay import AgentState
from checker.format.results_model import RenderCeilingResult

_RENDER_TOKENS = attrgetter("render_tokens")


def _above(values: list[int], lines: list[int], b: int) -> list[int]:
    """The lines whose value is above `b` (none without a scan when the largest value is not)."""
    if not values or max(values) <= b:
        return []
    return [ln for value, ln in zip(values, lines, strict=True) if value > b]


def evaluate(state: AgentState, b: int, profile: str = "arg-v1.0") -> RenderCeilingResult:
    """The condition for one replayed run, with ceiling `b`."""
    captures = profile == "driftboard"
    beat_tokens = list(map(_RENDER_TOKENS, state.beats))
    call_tokens = list(map(_RENDER_TOKENS, state.llm_calls))
    cap_tokens = list(map(_RENDER_TOKENS, state.captures)) if captures else []
    beat_lines = _above(beat_tokens, state.beat_lines, b)
    call_lines = _above(call_tokens, state.llm_lines, b)
    cap_lines = _above(cap_tokens, state.capture_lines, b)
    peak = max(chain(beat_tokens, call_tokens, cap_tokens), default=0)
    breaches = len(beat_lines) + len(call_lines) + len(cap_lines)
    empty = not state.beats and not state.llm_calls and not (captures and state.captures)
    status = NOT_APPLICABLE if empty else FAIL if breaches else PASS
    n_captures = len(cap_lines) if captures else None

    def reason() -> str:
        counted = f", {n_captures} render capture(s)" if n_captures else ""
        return (f"render ceiling: {breaches} render(s) above B={b} tokens "
                f"({len(beat_lines)} beat(s), {len(call_lines)} LLM call(s){counted}; max {peak})")

    return RenderCeilingResult(
        status=status, note=f"{breaches} breach(es), max {peak} vs B {b}", reason=reason_if(status, reason),
        B=b, breaches=breaches, beat_breaches=len(beat_lines), call_breaches=len(call_lines), max_render_tokens=peak,
        lines=sorted(beat_lines + call_lines + cap_lines)[:MAX_LINES], capture_breaches=n_captures,
    )


def from_inputs(g: GateInputs) -> RenderCeilingResult:
    """The condition read from the gate's inputs (`CONDITION.evaluate`)."""
    return evaluate(g.state, g.thresholds.render_ceiling_B, g.profile)


CONDITION = Condition(
    "render_ceiling", "render ceiling", "no beat and no LLM call renders more than B tokens (strict >)",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
