"""The deficit chain (arg-spec.md §c.6): deficit stamps, goal edges, milestone goals and their conversion."""

from __future__ import annotations

from dataclasses import dataclass

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, OLD_STORE, Metric


@dataclass(frozen=True, slots=True)
class Chain(Figures):
    """Deficit-chain figures of one run (a count read from a table the store lacks is None)."""

    deficit_stamps: int | None
    deficit_goals: int | None
    edges_verified: int | None
    edges_unverified: int | None
    milestone_goals: int
    milestone_accepted: int
    milestone_conversion: float | None


def _stamps(state: AgentState, absent: bool) -> tuple[int | None, int | None]:
    """(deficit stamps, distinct goals they name); None when the store has no `deficit_stamp` table."""
    if absent:
        return None, None
    return len(state.deficit_stamps), len({d.goal_id for d in state.deficit_stamps})


def _edges(state: AgentState, absent: bool) -> tuple[int | None, int | None]:
    """(verified, unverified) goal edges; None when the store has no `goal_edge` table."""
    if absent:
        return None, None
    verified = sum(1 for e in state.goal_edges if e.verified)
    return verified, len(state.goal_edges) - verified


def chain(state: AgentState, absent_tables: frozenset[str] = frozenset()) -> Chain:
    """Deficit stamps, goal edges, milestone goals and their conversion (§c.6).

    `absent_tables` (from the run's `source`: an older ARG store without `deficit_stamp` or
    `goal_edge`) makes the counts read from that table undefined (None), as ARG reports them.
    """
    milestone = {g for g, versions in state.goals.items() if any(v.provenance == "DEFICIT" for v in versions)}
    accepted = sum(1 for g in milestone if state.latest("GOAL", g) == "ACCEPTED")
    stamps, stamp_goals = _stamps(state, "deficit_stamp" in absent_tables)
    verified, unverified = _edges(state, "goal_edge" in absent_tables)
    return Chain(deficit_stamps=stamps, deficit_goals=stamp_goals, edges_verified=verified, edges_unverified=unverified,
                 milestone_goals=len(milestone), milestone_accepted=accepted,
                 milestone_conversion=round(accepted / len(milestone), 3) if milestone else None)


METRICS: tuple[Metric, ...] = (
    # agent: chain (§c.6)
    Metric(
        name="deficit_stamps",
        track="agent",
        kind="count",
        definition="Deficit-stamp events.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="deficit_goals",
        track="agent",
        kind="count",
        definition="Distinct goals named by deficit stamps.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="edges_verified",
        track="agent",
        kind="count",
        definition="Goal edges with `verified` true.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="edges_unverified",
        track="agent",
        kind="count",
        definition="Goal edges with `verified` false.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="milestone_goals",
        track="agent",
        kind="count",
        definition="Goals with a version of provenance DEFICIT.",
        undefined=NEVER,
    ),
    Metric(
        name="milestone_accepted",
        track="agent",
        kind="count",
        definition="Milestone goals (provenance DEFICIT) whose latest GOAL status is ACCEPTED.",
        undefined=NEVER,
    ),
    Metric(
        name="milestone_conversion",
        track="agent",
        kind="rate",
        definition="r3(milestone_accepted / milestone_goals).",
        undefined=(
            "No milestone goal. "
            + BOTH_UNDEF
        ),
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "Chain", "chain"]
