"""Condition 4, shadow byte-identity: a view rendered live and in shadow is byte-identical.

Profile `arg-v1.0` compares one (last-read) capture per shadow flag in each (turn, zone) group, as
`probe_arg_legibility` does; profile `driftboard` compares every shadow/live capture pair of the
same (turn, zone, organ, call).
"""

from __future__ import annotations

from checker.agent.gate.condition import FAIL, MAX_LINES, NOT_APPLICABLE, PASS, Condition, GateInputs, reason_if
from checker.agent.replay import AgentState
from checker.format.results_model import ShadowGroupDiff, ShadowIdentityResult, ShadowPairDiff

Diffs = list[ShadowGroupDiff | ShadowPairDiff]


def _last_pairs(state: AgentState) -> tuple[int, int, Diffs]:
    """`arg-v1.0`: per (turn, zone) the last live and the last shadow capture; (pairs, differing, examples)."""
    last: dict[tuple[int, str], dict[bool, tuple[str, int]]] = {}
    for cap, ln in zip(state.captures, state.capture_lines, strict=True):
        last.setdefault((cap.turn, cap.zone), {})[cap.shadow] = (cap.view_sha256, ln)
    pairs = differing = 0
    examples: Diffs = []
    for (turn, zone), by_flag in last.items():
        if len(by_flag) == 2:
            pairs += 1
            if by_flag[True][0] != by_flag[False][0]:
                differing += 1
                if len(examples) < MAX_LINES:
                    examples.append(ShadowPairDiff(turn=turn, zone=zone, lines=[by_flag[False][1], by_flag[True][1]]))
    return pairs, differing, examples


def _all_pairs(state: AgentState) -> tuple[int, int, Diffs]:
    """`driftboard`: every capture of each (turn, zone, organ, call) group; (pairs, differing, examples)."""
    groups: dict[tuple[int, str, str | None, int], dict[bool, list[tuple[str, int]]]] = {}
    for cap, ln in zip(state.captures, state.capture_lines, strict=True):
        key = (cap.turn, cap.zone, cap.organ, cap.call_idx)
        groups.setdefault(key, {}).setdefault(cap.shadow, []).append((cap.view_sha256, ln))
    paired = [(key, flags) for key, flags in groups.items() if len(flags) == 2]
    differ = [(key, flags) for key, flags in paired if _differ(flags)]
    examples: Diffs = [
        ShadowGroupDiff(turn=turn, zone=zone, organ=organ, call_idx=call_idx,
                        lines=sorted(ln for rows in flags.values() for _, ln in rows)[:MAX_LINES])
        for (turn, zone, organ, call_idx), flags in differ[:MAX_LINES]]
    return len(paired), len(differ), examples


def _differ(flags: dict[bool, list[tuple[str, int]]]) -> bool:
    """A group's live and shadow captures are not all one and the same digest."""
    live = {d for d, _ in flags[False]}
    return live != {d for d, _ in flags[True]} or len(live) != 1


def evaluate(state: AgentState, profile: str) -> ShadowIdentityResult:
    """The condition for one replayed run."""
    shadow_flags = [cap.shadow for cap in state.captures]
    examples: Diffs = []
    if True not in shadow_flags or False not in shadow_flags:
        pairs = n = 0  # a pair needs a live and a shadow capture: none without both kinds
    else:
        pairs, n, examples = _last_pairs(state) if profile == "arg-v1.0" else _all_pairs(state)
    status = NOT_APPLICABLE if pairs == 0 else FAIL if n else PASS
    return ShadowIdentityResult(
        status=status, note=f"{n} of {pairs} live/shadow pair(s) differ",
        reason=reason_if(status, lambda: f"shadow byte-identity: {n} of {pairs} live/shadow zone pair(s) differ"),
        paired_groups=pairs, differing=n, examples=examples,
    )


def from_inputs(g: GateInputs) -> ShadowIdentityResult:
    """The condition read from the gate's inputs (`CONDITION.evaluate`)."""
    return evaluate(g.state, g.profile)


CONDITION = Condition(
    "shadow_identity", "shadow byte-identity", "live and shadow captures of the same view are byte-identical",
    from_inputs,
)
"""The condition's declaration (`checker.agent.gate.GATE`)."""


__all__ = ["CONDITION", "evaluate", "from_inputs"]
