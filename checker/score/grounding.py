"""Grounding and hypotheses: the referent ladder, RGR, GA, hypothesis formation (arg-spec.md §c.3).

* `rung_distribution` = distinct referents by their latest REFERENT_RUNG status.
* `grounding_rate_all` = (#ENGAGED + #CHARACTERIZED) / N, N = referents with any rung row.
* Bd = distinct `ref_id` of every goal binding (all goals, all versions).
* RGR = #{b in Bd : latest rung = CHARACTERIZED} / |Bd|.
* GA = #{acted beats whose landing is in Bd} / #acted beats; None when either is empty.
* hypothesis formation: at least one effect-linked rule (effect has `score_event` = 1 or
  `level_event` = 1) was formed in the run (yes/no).

Profile `arg-v1.0` reproduces ARG's empty-denominator values (RGR 0.0 with no goal-bound
referent, `grounding_rate_all` 0.0 with no rung row); profile `driftboard` reports them as None.
"""

from __future__ import annotations

from typing import Any

from checker.replay import AgentState


def grounding(state: AgentState, landing: list[str | None], strict: bool) -> dict[str, Any]:
    """Rung distribution, grounding rate, goal-bound referents, RGR and GA.

    Args:
        state: the replayed run.
        landing: landing per beat (recorded or recomputed).
        strict: True in profile `driftboard` (empty denominators give None).
    """
    rungs: dict[str, int] = {}
    latest_rung: dict[str, str] = {}
    for (kind, entity), row in state.statuses.items():
        if kind == "REFERENT_RUNG":
            latest_rung[entity] = row.to_status
            rungs[row.to_status] = rungs.get(row.to_status, 0) + 1
    n = len(latest_rung)
    grounded = rungs.get("ENGAGED", 0) + rungs.get("CHARACTERIZED", 0)
    rate: float | None = round(grounded / max(n, 1), 3) if (n or not strict) else None
    bound = {b.ref_id for b in state.bindings}
    if bound:
        rgr: float | None = round(sum(1 for r in bound if latest_rung.get(r) == "CHARACTERIZED") / len(bound), 3)
    else:
        rgr = None if strict else 0.0
    acted = [land for beat, land in zip(state.beats, landing, strict=True) if beat.action != "RESET"]
    ga = round(sum(1 for land in acted if land in bound) / len(acted), 3) if acted and bound else None
    return {"rung_distribution": dict(sorted(rungs.items())), "grounding_rate_all": rate,
            "goal_bound_referents": len(bound), "RGR": rgr, "GA": ga}


def _flag(effect: dict[str, Any], key: str) -> bool:
    value = effect.get(key)
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) and value == 1


def hypotheses(state: AgentState) -> dict[str, Any]:
    """Hypothesis formation: effect-linked rules (score or level event predicted).

    Returns `hypothesis_formed` (bool), `effect_rules` (distinct rule ids with an effect-linked
    version) and `targeted_effect_rules` (those whose context names a target referent).
    """
    effect_ids: set[str] = set()
    targeted: set[str] = set()
    for rule in state.rule_versions:
        if _flag(rule.effect, "score_event") or _flag(rule.effect, "level_event"):
            effect_ids.add(rule.rule_id)
            if rule.ctx.get("target"):
                targeted.add(rule.rule_id)
    return {"hypothesis_formed": bool(effect_ids), "effect_rules": len(effect_ids),
            "targeted_effect_rules": len(targeted)}


__all__ = ["grounding", "hypotheses"]
