"""Counts (arg-spec.md §c.1): actions, completions, decision mix, referents."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import attrgetter

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import NEVER, Metric

_SOURCE_STAMP = attrgetter("source_stamp")
_LEVEL_COUNTER = attrgetter("level_counter")


@dataclass(frozen=True, slots=True)
class Counts(Figures):
    """What the run did, in counts."""

    actions: int
    completions: int
    decision_mix: dict[str, int]
    referents: int


def counts(state: AgentState) -> Counts:
    """`actions`, `completions`, `decision_mix`, `referents` (§c.1)."""
    mix: dict[str, int] = {}
    for stamp, n in Counter(map(_SOURCE_STAMP, state.beats)).items():
        key = stamp if stamp is not None else "UNSTAMPED"
        mix[key] = mix.get(key, 0) + n
    return Counts(actions=len(state.beats), completions=max(map(_LEVEL_COUNTER, state.beats), default=0),
                  decision_mix=dict(sorted(mix.items())), referents=len(state.referent_ids))


METRICS: tuple[Metric, ...] = (
    # agent: counts (§c.1)
    Metric(
        name="completions",
        track="agent",
        kind="count",
        unit="levels",
        higher_is_better=True,
        worst=0.0,
        worst_means="0 completions",
        definition=(
            "Levels completed: the maximum `level_counter` over all beats (the environment's cumulative "
            "levels completed after the beat), 0 with no beat. Shown first: a cell with 0 completions is a "
            "null result whatever its mechanism numbers."
        ),
        undefined="Never undefined for a run that counts (VALID, or COMPARATOR in a comparator cell).",
    ),
    Metric(
        name="actions",
        track="agent",
        kind="count",
        unit="beats",
        definition=(
            "|T|, the number of beats, RESET beats included (every other per-action figure uses A, the "
            "non-RESET beats)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="referents",
        track="agent",
        kind="count",
        definition="Distinct referent ids in the log.",
        undefined=NEVER,
    ),
    Metric(
        name="decision_mix",
        track="agent",
        kind="table",
        definition="Per-run table (not aggregated per cell): beats per `source_stamp` (`UNSTAMPED` when absent).",
        undefined="Never undefined (empty with no beat).",
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "Counts", "counts"]
