"""Which module scores each track: the one lookup verify, results and the reports share.

Each track's scorer is imported where it is first needed, by a plain import statement (static: the
import graph, the architecture contracts and the cache's code digest all see it), so the constraint
scorer's Z3 is never loaded by a run of the agent track or by `driftboard --help`. The scorers this
process has looked up are remembered, so that verify can tell each of them, and no other, to
release what it kept for a submission (`release_scorers`).
"""

from __future__ import annotations

from checker.stages.tracks import TrackScorer

TRACKS = ("agent", "constraint", "completion")
"""The tracks a run header may name, each with a scorer below."""

_LOOKED_UP: dict[str, TrackScorer] = {}
"""Track -> its scorer, for every track `scorer_for` was asked about in this process."""


def scorer_for(track: str) -> TrackScorer:
    """The scoring module of a track (`checker.agent.scorer`, `checker.constraint.scorer` or `checker.completion.scorer`)."""
    found = _LOOKED_UP.get(track)
    if found is not None:
        return found
    if track == "agent":
        from checker.agent import scorer as agent_scorer

        found = agent_scorer
    elif track == "constraint":
        from checker.constraint import scorer as constraint_scorer

        found = constraint_scorer
    elif track == "completion":
        from checker.completion import scorer as completion_scorer

        found = completion_scorer
    else:
        raise KeyError(f"no scorer for track {track!r}")
    _LOOKED_UP[track] = found
    return found


def release_scorers() -> None:
    """Tell every scorer this process has used that its submission is done (`TrackScorer.release`)."""
    for scorer in _LOOKED_UP.values():
        scorer.release()
