"""The interface each track's scorer implements, and the run record and context the pipeline hands it.

The verify pipeline (load -> validate -> replay -> gate -> score -> aggregate) is the same
for both tracks; what differs is behind `TrackScorer` (score one run, tabulate a cell's runs,
release what was kept for a submission):

* `checker.agent.scorer` (ARG-style agent runs: replay, gate, GDS, grounding, milestones)
* `checker.constraint.scorer` (DRIFT-Bench-style constraint dialogues, recomputed with Z3)
* `checker.completion.scorer` (τ-bench-style tool-using episodes: claimed vs verified completion)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from checker.format.cell_tables import TrackTables
from checker.format.results_model import RunResult
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import Event
from checker.format.schema.manifest import Prereg

PROFILES = ("driftboard", "arg-v1.0", "drift-bench-v1")
"""`driftboard` (leaderboard default), `arg-v1.0` (reproduces ARG's probes exactly),
`drift-bench-v1` (reproduces DRIFT-Bench's checker; the constraint track's only semantics)."""


@dataclass
class RunRecord:
    """A run log that passed validation, read into memory in file order."""

    path: str
    """Display path (`submissions/<id>/runs/<file>.jsonl`)."""
    sha256: str
    """SHA-256 of the log file's bytes."""
    start: RunStart
    end: RunEnd | None
    """None when the run is INCOMPLETE."""
    events: list[Event] = field(default_factory=list)
    """Every event between run_start and run_end, in order."""
    lines: list[int] = field(default_factory=list)
    """Line number of each event in `events` (for `path:line` findings)."""
    content_sha256: str | None = None
    """Payload digest of the events between run_start and run_end (`checker.stages.copies`), for copy detection."""
    content_sketch: str | None = None
    """MinHash sketch of the same events (`checker.stages.near_copies`), for near-copy detection."""


def incomplete_reason(run: RunRecord) -> str | None:
    """Why a run did not complete (its verdict is then INCOMPLETE), or None when it ended COMPLETED.

    A run without `run_end` was cut short; a run whose `run_end` says ABORTED or FAILED stopped
    early (a harness crash, a connection error): neither is ever VALID, and the reason says which.
    """
    if run.end is None:
        return "run has no run_end event: INCOMPLETE"
    if run.end.status != "COMPLETED":
        why = run.end.reason or "no reason given"
        return f"run ended {run.end.status} ({why}): INCOMPLETE, never VALID (an aborted or failed run did not complete)"
    return None


@dataclass
class VerifyContext:
    """What a scorer may read besides the run: thresholds, profile, problem sets."""

    profile: str
    prereg: Prereg | None
    problem_sets: Mapping[str, Any] = field(default_factory=dict)  # the constraint track's ProblemSet: not importable here
    """Problem-set digest -> problem set (constraint track; loaded on first use, `checker.constraint.problem_sets`)."""
    task_sets: Mapping[str, Any] = field(default_factory=dict)
    """Task-set digest -> task set (completion track; loaded on first use, `checker.completion.tasks`)."""


class TrackScorer(Protocol):
    """What `checker.agent.scorer`, `checker.constraint.scorer` and `checker.completion.scorer` provide."""

    def score_run(self, run: RunRecord, ctx: VerifyContext) -> RunResult:
        """Replay, gate and score one run. Undefined metrics are None, never 0."""
        ...

    def cell_tables(self, run_results: list[RunResult]) -> Mapping[str, TrackTables]:
        """Track-specific per-cell tables (`checker.format.cell_tables`), keyed by cell name."""
        ...

    def release(self) -> None:
        """Drop whatever was kept to score the runs of one submission (verify calls it when the submission is done).

        Kept state never changes a result (a fresh scorer recomputes the same); releasing it bounds
        memory by one submission, whatever the number of submissions one process scores.
        """
        ...
