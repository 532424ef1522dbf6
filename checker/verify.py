"""The verify pipeline: load -> validate -> replay -> gate -> score, per submission.

Runs with format problems are not scored (their findings are reported); a run without
`run_end` is scored and marked INCOMPLETE.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.errors import Finding
from checker.load import discover, load_submission
from checker.logio import file_sha256, read_events
from checker.schema.common import RunEnd, RunStart
from checker.schema.manifest import Prereg, Submission
from checker.tracks import RunRecord, TrackScorer, VerifyContext
from checker.validate import ValidationReport, validate_run_file

SCORER_BY_TRACK = {"agent": "checker.score.agent", "constraint": "checker.score.constraints"}
INCOMPLETE_MESSAGE = "run has no run_end event: the run is INCOMPLETE"


def scorer_for(track: str) -> TrackScorer:
    """The scoring module of a track."""
    module: Any = importlib.import_module(SCORER_BY_TRACK[track])
    return module  # type: ignore[no-any-return]


@dataclass
class SubmissionResult:
    """What verify found for one submission folder (or a set of loose run files)."""

    path: str
    manifest: Submission | None
    prereg: Prereg | None
    profile: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    records: list[RunRecord] = field(default_factory=list)


@dataclass
class VerifyReport:
    """Everything `verify` found."""

    findings: list[Finding] = field(default_factory=list)
    unreadable: list[Finding] = field(default_factory=list)
    submissions: list[SubmissionResult] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 verified, 1 problems found, 2 unreadable input."""
        if self.unreadable:
            return 2
        return 1 if any(f.severity == "error" for f in self.findings) else 0


def verify_paths(paths: Iterable[Path], profile: str | None = None, problem_dirs: Iterable[Path] = ()) -> VerifyReport:
    """Verify submission folders and/or loose run files.

    Raises:
        UsageError: a path does not exist, or a problem-set path cannot be read.
    """
    report = VerifyReport()
    problem_sets = _load_problem_sets(list(problem_dirs))
    loose: list[Path] = []
    for target in discover(paths):
        if target.kind == "run":
            loose.append(target.path)
            continue
        display = target.path.as_posix()
        loaded = load_submission(target.path, display)
        report.findings.extend(loaded.findings)
        chosen = profile or (loaded.prereg.profile if loaded.prereg else "driftboard")
        result = SubmissionResult(display, loaded.manifest, loaded.prereg, chosen)
        shown = [(p, f"{display}/{p.relative_to(target.path).as_posix()}") for p in loaded.run_paths]
        _verify_runs(shown, result, report, problem_sets)
        report.submissions.append(result)
    if loose:
        result = SubmissionResult("(run files)", None, None, profile or "driftboard")
        _verify_runs([(p, p.as_posix()) for p in loose], result, report, problem_sets)
        report.submissions.append(result)
    return report


def _verify_runs(
    runs: list[tuple[Path, str]], result: SubmissionResult, report: VerifyReport, problem_sets: dict[str, Any]
) -> None:
    ctx = VerifyContext(profile=result.profile, prereg=result.prereg, problem_sets=problem_sets)
    for path, shown in runs:
        vreport = ValidationReport()
        validate_run_file(path, shown, vreport)
        report.unreadable.extend(vreport.unreadable)
        blocking = [f for f in vreport.findings if f.message != INCOMPLETE_MESSAGE]
        report.findings.extend(vreport.findings if blocking else [])
        if blocking or vreport.unreadable:
            result.runs.append({"path": shown, "verdict": "MALFORMED", "reasons": [f.render() for f in blocking]})
            continue
        record = read_run(path, shown)
        result.records.append(record)
        run_result = scorer_for(record.start.track).score_run(record, ctx)
        run_result.setdefault("path", shown)
        run_result.setdefault("log_sha256", record.sha256)
        result.runs.append(run_result)


def read_run(path: Path, shown: str) -> RunRecord:
    """Read a validated run log into a `RunRecord`."""
    start: RunStart | None = None
    end: RunEnd | None = None
    events = []
    lines = []
    for lineno, event in read_events(path):
        if isinstance(event, RunStart):
            start = event
        elif isinstance(event, RunEnd):
            end = event
        else:
            events.append(event)
            lines.append(lineno)
    assert start is not None, "validated logs start with run_start"
    return RunRecord(path=shown, sha256=file_sha256(path), start=start, end=end, events=events, lines=lines)


def _load_problem_sets(paths: list[Path]) -> dict[str, Any]:
    if not paths:
        return {}
    from checker.problems import load_problem_sets

    return load_problem_sets(paths)
