"""Which module scores each track: the one lookup verify, results and the reports share.

Each track's scorer is imported where it is first needed, by a plain import statement (static: the
import graph, the architecture contracts and the cache's code digest all see it), so the constraint
scorer's Z3 is never loaded by a run of the agent track or by `driftboard --help`.
"""

from __future__ import annotations

from checker.stages.tracks import TrackScorer

TRACKS = ("agent", "constraint", "completion")
"""The tracks a run header may name, each with a scorer below."""


def scorer_for(track: str) -> TrackScorer:
    """The scoring module of a track (`checker.agent.scorer`, `checker.constraint.scorer` or `checker.completion.scorer`)."""
    if track == "agent":
        from checker.agent import scorer as agent_scorer

        return agent_scorer
    if track == "constraint":
        from checker.constraint import scorer as constraint_scorer

        return constraint_scorer
    if track == "completion":
        from checker.completion import scorer as completion_scorer

        return completion_scorer
    raise KeyError(f"no scorer for track {track!r}")
