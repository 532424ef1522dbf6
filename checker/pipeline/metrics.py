"""The metric registry: every metric the checker computes, declared once beside its computation.

Declarations live in the scoring modules (`checker.agent.gds`, `checker.agent.metrics` (per-level
efficiency among them), `checker.agent.grounding`, `checker.agent.milestones`, `checker.constraint.metrics`);
this module only gathers them. The metrics page, table headers and their direction arrows, the leaderboard's
ordering, the intent-to-treat (all-declared) figures, claim-name checks and the CLI text read it.
Adding a metric: compute it in its scoring module and add its `Metric` to that module's `METRICS`.
"""

from __future__ import annotations

from functools import cache

from checker.agent import gds, grounding, milestones
from checker.agent import metrics as agent_metrics
from checker.completion import metrics as completion_metrics
from checker.constraint import metrics as constraint_metrics
from checker.constraint import ranked as constraint_ranked
from checker.format.metric_names import CLAIM_COUNTS
from checker.format.metricdef import Metric
from checker.format.numbers import fmt

_SOURCES = (gds, agent_metrics, grounding, milestones, constraint_metrics, constraint_ranked, completion_metrics)
MAX_DEPTH = constraint_metrics.MAX_DEPTH
"""Per-depth accuracy keys run from 1 to this."""

HEADLINE: dict[str, tuple[str, ...]] = {
    "agent": ("completions", "drift_total", "gds_bind", "gds_abandon"),
    "constraint": ("complete_accuracy", "turn_accuracy", "drift_share", "contradiction_share"),
    "completion": ("verified", "claimed", "false_claim"),
}
"""Per track, the metrics a leaderboard shows first (completions first: null results before mechanisms)."""



@cache
def declarations() -> tuple[Metric, ...]:
    """Every declaration, in source order (a family entry once)."""
    out: list[Metric] = []
    seen: set[str] = set()
    for module in _SOURCES:
        for metric in module.METRICS:
            for key in metric.keys:
                if key in seen:
                    raise ValueError(f"metric {key!r} is declared twice")
                seen.add(key)
            out.append(metric)
    return tuple(out)


def ranked() -> tuple[Metric, ...]:
    """Every metric declared `ranked` (one per track: its boards' figure)."""
    return tuple(m for m in declarations() if m.ranked)


def _rank_by() -> dict[str, str]:
    out: dict[str, str] = {}
    for m in ranked():
        if m.track in out or m.worst is None or m.higher_is_better is None or not m.degenerate_worst:
            raise ValueError(f"ranked metric {m.name!r}: one per track, with a worst value, a direction and "
                             "why degenerate behaviour scores worst")  # a declaration bug
        out[m.track] = m.name
    return out


@cache
def _by_key() -> dict[str, Metric]:
    return {key: m for m in declarations() for key in m.keys}


def get(name: str) -> Metric | None:
    """The declaration covering a run-metric key (None: not a declared metric)."""
    return _by_key().get(name)


def known_metric_names(track: str) -> list[str]:
    """Every metric key a run of `track` can carry, sorted (for claim-name checks and messages)."""
    return sorted(key for m in declarations() if m.track in (track, "both") for key in m.keys)


def claim_names(track: str) -> list[str]:
    """What a claim may name on `track`: every metric key plus the cell counts (`runs`, `valid_runs`)."""
    return sorted({*known_metric_names(track), *CLAIM_COUNTS}, key=str.casefold)


def documented() -> set[str]:
    """Every declared key."""
    return set(_by_key())


def show(name: str, value: object) -> str:
    """A metric's value for a reader, at the precision its kind declares (`—` when undefined)."""
    metric = get(name)
    return fmt(value, metric.kind if metric is not None else "value")


def header(name: str) -> str:
    """A column header: the metric name with its direction arrow (`drift_total ↓`)."""
    metric = get(name)
    return f"{name} {metric.arrow}".rstrip() if metric is not None else name


RANK_BY: dict[str, str] = _rank_by()
"""Per track, the metric whose all-declared figure orders the leaderboard (read from the `ranked` declarations)."""
