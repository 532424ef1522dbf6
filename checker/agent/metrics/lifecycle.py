"""Agenda and lifecycle (arg-spec.md §c.4): ICR, FBR, FCR, FSN, APR, DTL, SCL, rules tested, goal status.

`strict` (profile `driftboard`) turns ARG's 0.0-on-empty-denominator values (FBR and FSN with no
acted beat) into None.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, Metric


@dataclass(frozen=True, slots=True)
class Lifecycle(Figures):
    """Lifecycle figures of one run."""

    steps_written: int
    steps_consumed: int
    ICR: float | None
    FBR: float | None
    FCR: float | None
    FSN: float | None
    APR: float | None
    DTL: float | None
    SCL: float | None
    rules_tested: int
    goal_status: dict[str, int]


@dataclass(slots=True)
class _Transitions:
    """What the status transitions say, tallied in one pass."""

    demotions: int = 0
    reopened: int = 0
    accepted: int = 0
    fissions: int = 0
    never_validated: set[str] = field(default_factory=set)
    """Goals rejected as never validated."""
    demoted_at: dict[str, list[int]] = field(default_factory=dict)
    """Rule -> turns of its demotions."""
    blocked: list[tuple[str, int]] = field(default_factory=list)
    """(step, turn) of every COMMITMENT_STEP blocked because a premise was demoted."""


def _r3(num: float, den: float) -> float:
    return round(num / den, 3)


def _mean2(samples: list[int]) -> float | None:
    return round(sum(samples) / len(samples), 2) if samples else None


def _latest_by_kind(state: AgentState) -> dict[str, dict[str, str]]:
    """Entity kind -> entity -> its latest status."""
    out: dict[str, dict[str, str]] = {}
    for (kind, entity), row in state.statuses.items():
        out.setdefault(kind, {})[entity] = row.to_status
    return out


def _transitions(state: AgentState) -> _Transitions:
    t = _Transitions()
    for row in state.transitions:
        kind, to = row.entity_kind, row.to_status
        if kind == "RULE" and to == "DEMOTED":
            t.demotions += 1
            t.demoted_at.setdefault(row.entity_id, []).append(row.turn)
        elif kind == "GOAL":
            if to == "REOPENED":
                t.reopened += 1
            elif to == "ACCEPTED":
                t.accepted += 1
            elif to == "REJECTED" and row.reason == "NEVER_VALIDATED":
                t.never_validated.add(row.entity_id)
        elif kind == "REFERENT_FISSION":
            t.fissions += 1
        elif kind == "COMMITMENT_STEP" and to == "BLOCKED" and row.reason == "premise demoted":
            t.blocked.append((row.entity_id, row.turn))
    return t


def _apr(state: AgentState, never_validated: set[str], n_acted: int) -> float | None:
    """Share of acted beats spent on goals rejected as never validated (None with no acted beat)."""
    if not n_acted:
        return None
    hits = 0
    for b in state.beats if never_validated else ():  # no goal rejected as never validated: no hit
        if b.action == "RESET" or not b.step_id:
            continue
        step = state.plan_steps.get(b.step_id)
        commit = state.commitments.get((step.commit_id, step.commit_version)) if step else None
        if commit is not None and commit.goal_id in never_validated:
            hits += 1
    return _r3(hits, max(n_acted, 1))


def _dtl(state: AgentState) -> float | None:
    """DTL: first REFERENT relevance edge -> first receipt on that referent at or after it (mean turns)."""
    first_edge: dict[str, int] = {}
    for e in state.relevance_edges:
        if e.target_kind == "REFERENT" and (e.target_id not in first_edge or e.turn < first_edge[e.target_id]):
            first_edge[e.target_id] = e.turn
    receipt_turns: dict[str, list[int]] = {}
    for rc in state.receipts if first_edge else ():  # receipts matter only on referents with an edge
        if rc.target_ref is not None and rc.target_ref in first_edge:
            receipt_turns.setdefault(rc.target_ref, []).append(rc.turn)
    samples = []
    for ref, t0 in first_edge.items():
        later = [t for t in receipt_turns.get(ref, []) if t >= t0]
        if later:
            samples.append(min(later) - t0)
    return _mean2(samples)


def _scl(state: AgentState, t: _Transitions) -> float | None:
    """SCL: premise-demoted block -> latest demotion of one of the step's RULE premises before it (mean turns)."""
    rule_premises: dict[str, set[str]] = {}
    for step in state.plan_step_rows:
        for member_kind, member_id in step.premises:
            if member_kind == "RULE":
                rule_premises.setdefault(step.step_id, set()).add(member_id)
    samples = []
    for step_id, t_block in t.blocked:
        turns = [turn for rule in rule_premises.get(step_id, ()) for turn in t.demoted_at.get(rule, []) if turn <= t_block]
        if turns:
            samples.append(t_block - max(turns))
    return _mean2(samples)


def _count(statuses: dict[str, str], status: str) -> int:
    return sum(1 for s in statuses.values() if s == status)


def lifecycle(state: AgentState, n_acted: int, strict: bool) -> Lifecycle:
    """ICR, FBR, FCR, FSN, APR, DTL, SCL, rules tested, goal status (§c.4)."""
    latest = _latest_by_kind(state)
    written = len(state.plan_step_rows)
    consumed = _count(latest.get("COMMITMENT_STEP", {}), "CONSUMED")
    t = _transitions(state)
    per100 = max(n_acted, 1) / 100
    empty = strict and n_acted == 0
    goal_status: dict[str, int] = {}
    for status in latest.get("GOAL", {}).values():
        goal_status[status] = goal_status.get(status, 0) + 1
    return Lifecycle(
        steps_written=written,
        steps_consumed=consumed,
        ICR=_r3(consumed, written) if written else None,
        FBR=None if empty else round(t.demotions / per100, 3),
        FCR=_r3(t.reopened, t.accepted) if t.accepted else None,
        FSN=None if empty else round(t.fissions / per100, 3),
        APR=_apr(state, t.never_validated, n_acted),
        DTL=_dtl(state),
        SCL=_scl(state, t),
        rules_tested=_count(latest.get("RULE", {}), "TESTED"),
        goal_status=dict(sorted(goal_status.items())),
    )


METRICS: tuple[Metric, ...] = (
    # agent: agenda, lifecycle (§c.4)
    Metric(
        name="steps_written",
        track="agent",
        kind="count",
        definition="Plan-step (`commitment_step`) events in the log.",
        undefined=NEVER,
    ),
    Metric(
        name="steps_consumed",
        track="agent",
        kind="count",
        definition="Steps whose latest COMMITMENT_STEP status is CONSUMED.",
        undefined=NEVER,
    ),
    Metric(
        name="ICR",
        track="agent",
        kind="value",
        definition="r3(steps_consumed / steps_written), the share of written plan steps that were consumed.",
        undefined=(
            "steps_written = 0. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="FBR",
        track="agent",
        kind="value",
        definition="Rule demotions per 100 acted beats: r3(#RULE→DEMOTED transitions / (max(|A|, 1) / 100)).",
        undefined=(
            "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
            "max(|A|, 1) / 100 (0.0 unless a demotion was logged)."
        ),
    ),
    Metric(
        name="FCR",
        track="agent",
        kind="value",
        definition=(
            "r3(#GOAL→REOPENED transitions / #GOAL→ACCEPTED transitions), a plain ratio as in ARG (the design "
            "says per 100 acceptances)."
        ),
        undefined=(
            "No GOAL→ACCEPTED transition. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="FSN",
        track="agent",
        kind="value",
        definition=(
            "Referent fission checks per 100 acted beats: r3(#REFERENT_FISSION transitions / (max(|A|, 1) / "
            "100)) (counts fission-check firings, not executed splits)."
        ),
        undefined=(
            "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
            "max(|A|, 1) / 100 (0.0 unless a fission row was logged)."
        ),
    ),
    Metric(
        name="APR",
        track="agent",
        kind="value",
        definition=(
            "r3(#{t ∈ A : the goal of t's plan step's commitment ∈ NV} / |A|), NV = goals with any "
            "GOAL→REJECTED transition with reason NEVER_VALIDATED: the share of acted beats spent on goals "
            "that were rejected as never validated."
        ),
        undefined=(
            "|A| = 0. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="DTL",
        track="agent",
        kind="value",
        definition=(
            "Mean, over referents with a REFERENT relevance edge, of (turn of the first receipt on the "
            "referent at or after t0) − t0, t0 = the referent's first edge turn; rounded to 2 places."
        ),
        undefined=(
            "No sample (no referent with a relevance edge and a later receipt). "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="SCL",
        track="agent",
        kind="value",
        definition=(
            "Mean, over COMMITMENT_STEP→BLOCKED transitions with reason \"premise demoted\", of (block turn − "
            "latest RULE→DEMOTED turn at or before it among the step's RULE premises); rounded to 2 places."
        ),
        undefined=(
            "No sample. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="rules_tested",
        track="agent",
        kind="count",
        definition="Rules whose latest status is TESTED.",
        undefined=NEVER,
    ),
    Metric(
        name="goal_status",
        track="agent",
        kind="table",
        definition="Per-run table (not aggregated per cell): goals by their latest GOAL status.",
        undefined="Never undefined (empty with no goal).",
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "Lifecycle", "lifecycle"]
