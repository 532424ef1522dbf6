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

from dataclasses import dataclass
from typing import Any

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import LANDING, NEVER, Metric


@dataclass(frozen=True, slots=True)
class Grounding(Figures):
    """The referent ladder and goal-bound grounding of one run."""

    rung_distribution: dict[str, int]
    grounding_rate_all: float | None
    goal_bound_referents: int
    RGR: float | None
    GA: float | None


@dataclass(frozen=True, slots=True)
class Hypotheses(Figures):
    """Hypothesis formation of one run."""

    hypothesis_formed: bool
    effect_rules: int
    targeted_effect_rules: int


def acted_landings(state: AgentState, landing: list[str | None]) -> list[str | None]:
    """The landing of every acted (non-RESET) beat, in log order (`landing`: one per beat)."""
    return [land for beat, land in zip(state.beats, landing, strict=True) if beat.action != "RESET"]


def _rungs(state: AgentState) -> tuple[dict[str, int], dict[str, str]]:
    """(referents per latest REFERENT_RUNG status, referent -> its latest rung)."""
    rungs: dict[str, int] = {}
    latest_rung: dict[str, str] = {}
    for (kind, entity), row in state.statuses.items():
        if kind == "REFERENT_RUNG":
            latest_rung[entity] = row.to_status
            rungs[row.to_status] = rungs.get(row.to_status, 0) + 1
    return rungs, latest_rung


def grounding(state: AgentState, acted: list[str | None], strict: bool) -> Grounding:
    """Rung distribution, grounding rate, goal-bound referents, RGR and GA.

    Args:
        state: the replayed run.
        acted: landing of every acted beat (`acted_landings`, from the recorded or recomputed landings).
        strict: True in profile `driftboard` (empty denominators give None).
    """
    rungs, latest_rung = _rungs(state)
    n = len(latest_rung)
    grounded = rungs.get("ENGAGED", 0) + rungs.get("CHARACTERIZED", 0)
    rate: float | None = round(grounded / max(n, 1), 3) if (n or not strict) else None
    bound = {b.ref_id for b in state.bindings}
    if bound:
        rgr: float | None = round(sum(1 for r in bound if latest_rung.get(r) == "CHARACTERIZED") / len(bound), 3)
    else:
        rgr = None if strict else 0.0
    ga = round(sum(map(bound.__contains__, acted)) / len(acted), 3) if acted and bound else None
    return Grounding(rung_distribution=dict(sorted(rungs.items())), grounding_rate_all=rate,
                     goal_bound_referents=len(bound), RGR=rgr, GA=ga)


def _flag(effect: dict[str, Any], key: str) -> bool:  # a rule's `effect`: free-form JSON from the log
    value = effect.get(key)
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) and value == 1


def hypotheses(state: AgentState) -> Hypotheses:
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
    return Hypotheses(hypothesis_formed=bool(effect_ids), effect_rules=len(effect_ids),
                      targeted_effect_rules=len(targeted))

METRICS: tuple[Metric, ...] = (
    # agent: grounding, hypotheses (§c.3)
    Metric(
        name="rung_distribution",
        track="agent",
        kind="table",
        definition="Per-run table (not aggregated per cell): referents by their latest REFERENT_RUNG status.",
        undefined="Never undefined (empty with no rung row).",
    ),
    Metric(
        name="grounding_rate_all",
        track="agent",
        kind="rate",
        definition=(
            "r3((#ENGAGED + #CHARACTERIZED) / N): referents whose latest REFERENT_RUNG status is ENGAGED or "
            "CHARACTERIZED, over N = referents with any REFERENT_RUNG row. Not the same as RGR."
        ),
        undefined="N = 0: undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` (ARG divides by max(N, 1)).",
    ),
    Metric(
        name="goal_bound_referents",
        track="agent",
        kind="count",
        definition="|Bd|, Bd = distinct `ref_id` of every goal binding (all goals, all versions).",
        undefined=NEVER,
    ),
    Metric(
        name="RGR",
        track="agent",
        kind="rate",
        definition=(
            "Grounding of goal-bound referents: r3(#{b ∈ Bd : latest rung = CHARACTERIZED} / |Bd|) "
            "(CHARACTERIZED, as logged by the agent: referenced by a TESTED rule whose pre-registered "
            "prediction matched). The paper labels it \"grounding rate\"; it is not `grounding_rate_all`."
        ),
        undefined=(
            "Bd empty (no goal binding): undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` (ARG's "
            "value, which means \"no goal-bound referent\", not a measured zero)."
        ),
    ),
    Metric(
        name="GA",
        track="agent",
        kind="rate",
        definition=(
            "r3(#{t ∈ A : landing(t) ∈ Bd} / |A|), the share of acted beats that landed on a goal-bound "
            "referent. "
            + LANDING
        ),
        undefined=(
            "A or Bd empty, in both profiles (normally undefined in agenda-off cells, which write no goal "
            "binding)."
        ),
    ),
    Metric(
        name="hypothesis_formed",
        track="agent",
        kind="flag",
        definition=(
            "Per-run yes/no (shown per cell as k of n seeds, not averaged): at least one rule version whose "
            "effect has `score_event` = 1 or `level_event` = 1 (an effect-linked rule)."
        ),
        undefined="Never undefined (no).",
    ),
    Metric(
        name="effect_rules",
        track="agent",
        kind="count",
        definition="Distinct rule ids with an effect-linked version (effect `score_event` = 1 or `level_event` = 1).",
        undefined=NEVER,
    ),
    Metric(
        name="targeted_effect_rules",
        track="agent",
        kind="count",
        definition="Effect-linked rules (see `effect_rules`) whose context names a target referent.",
        undefined=NEVER,
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.pipeline.metrics`)."""


__all__ = ["Grounding", "Hypotheses", "acted_landings", "grounding", "hypotheses"]
