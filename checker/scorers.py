"""Which module scores each track: the one lookup verify, results and the reports share.

The scorer modules are imported on first use (the constraint scorer loads Z3, which a run of the
agent track, or `driftboard --help`, never needs).
"""

from __future__ import annotations

import importlib
from typing import Any

from checker.tracks import TrackScorer

SCORER_BY_TRACK = {"agent": "checker.score.agent", "constraint": "checker.score.constraints"}


def scorer_for(track: str) -> TrackScorer:
    """The scoring module of a track."""
    module: Any = importlib.import_module(SCORER_BY_TRACK[track])
    return module
