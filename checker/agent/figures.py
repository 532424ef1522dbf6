"""`Figures`: the typed record a metric computation returns, turned into the run's metric table once.

Each metric group of the agent track (counts, GDS rates, grounding, lifecycle, write path, chain,
render and tokens, hypotheses, milestones) returns a frozen, slotted dataclass whose field names are
the metric names declared in the metric registry (`checker.pipeline.metrics`); `checker.agent.scorer`
merges them, in order, into `RunResult.metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from checker.format.results_model import MetricValue


@dataclass(frozen=True, slots=True)
class Figures:
    """Base of a metric group's record: every field is a metric of the run."""

    def table(self) -> dict[str, MetricValue]:
        """Metric name -> value, in field order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


__all__ = ["Figures"]
