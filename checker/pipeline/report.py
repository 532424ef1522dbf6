"""What verify reports: per submission (`SubmissionResult`), in all (`VerifyReport`), across submissions, as JSON.

Kept apart from the orchestration (`checker.pipeline.verify`) so the records a caller reads, the
checks that span submissions (the same run reported twice, by id or by content) and the
`--format json` document read on their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from checker.format.errors import Finding
from checker.format.names import Name, Work, identity_findings, submission_names
from checker.format.results_model import ResultsSummary, RunResult
from checker.format.schema.manifest import Prereg, Submission
from checker.format.verify_document import SubmissionReport
from checker.pipeline.handle import ResultsHandle
from checker.pipeline.results import results_problems, seed_problems
from checker.stages.copies import copies_across
from checker.stages.manifest_yaml import seed_line


@dataclass
class SubmissionResult:
    """What verify found for one submission folder (or a set of loose run files)."""

    path: str
    manifest: Submission | None
    prereg: Prereg | None
    profile: str
    runs: list[RunResult] = field(default_factory=list)
    """Every run reported (once the submission is verified: its results file's runs, as the summary holds them)."""
    findings: list[Finding] = field(default_factory=list)
    cached: bool = False
    results: ResultsHandle | None = None
    """The results file (None for loose run files, and for a submission without a valid manifest)."""
    prereg_sha256: str | None = None
    """SHA-256 of `prereg.yaml` as the load stage read it (None when missing or refused)."""
    awaiting_runs: bool = False
    """Pre-registered, no run yet (`files: []`, no run file): listed, not scored (no results file)."""


def awaiting_runs(sub: SubmissionResult, logs: tuple[object, ...]) -> bool:
    """A pre-registration on its own: manifest with `files: []`, a prereg, no run file at all, no problem."""
    return (sub.manifest is not None and not sub.manifest.files and sub.prereg is not None and not logs
            and not sub.runs and not any(f.severity == "error" for f in sub.findings))


@dataclass
class VerifyReport:
    """Everything `verify` found."""

    findings: list[Finding] = field(default_factory=list)
    unreadable: list[Finding] = field(default_factory=list)
    submissions: list[SubmissionResult] = field(default_factory=list)
    cache_hits: int = 0
    cache_misses: int = 0

    @property
    def exit_code(self) -> int:
        """0 verified, 1 problems found, 2 unreadable input."""
        if self.unreadable:
            return 2
        return 1 if any(f.severity == "error" for f in self.findings) else 0


def duplicate_runs(subs: Iterable[SubmissionResult]) -> list[Finding]:
    """The same run reported twice: one run id (or one log's exact bytes) under two paths.

    Every copy is flagged, naming the others, whichever submission it is in: which one is the
    original is not the checker's call. Runs that were not read (MALFORMED) have no id or digest
    and are not compared. The check spans the submissions of one `verify` invocation (every
    submission for the site build; the pull-request check compares run ids against the whole
    tree through `validate`), so it is reported, never written into a results file or the cache.
    Copies by content (the same events under another run id, `checker.stages.copies`) are flagged the
    same way across submissions; within one submission they were marked before its results.
    """
    subs = list(subs)
    by_id: dict[str, list[tuple[str, str | None]]] = {}
    for run in (run for sub in subs for run in sub.runs if run.run_id is not None):
        by_id.setdefault(str(run.run_id), []).append((run.path, run.log_sha256))
    out = [finding for run_id, copies in sorted(by_id.items()) if len({path for path, _ in copies}) > 1
           for finding in _id_copies(run_id, copies)]
    out.extend(copies_across((sub.path, sub.runs, sub.prereg) for sub in subs))  # the same events under new ids
    return out


def _id_copies(run_id: str, copies: list[tuple[str, str | None]]) -> Iterator[Finding]:
    """One finding per (path, log digest) reporting run `run_id`, naming the other paths."""
    for path, digest in sorted(copies):
        others = sorted({p for p, _ in copies if p != path})
        same = digest is not None and all(d == digest for p, d in copies if p != path)
        what = "the same log (identical bytes, run id" if same else "run id"
        yield Finding(path, 1, f"{what} {run_id!r}{')' if same else ''} is also reported in "
                               f"{', '.join(others)}: a run may be reported once, in one submission")


def name_collisions(subs: Iterable[SubmissionResult]) -> list[Finding]:
    """Submission ids, cells and run ids that are one name or one page across the submissions verified together.

    Like `duplicate_runs`, the check spans one `verify` invocation and is reported, never stored in a
    results file (`build` applies the same rules to every results file it renders).
    """
    names: list[Name] = []
    works: list[Work] = []
    for sub in subs:
        declared, work = submission_names(sub.manifest, sub.prereg, sub.path)
        names.extend(declared)
        works.extend(work)
        names.extend(Name("run id", str(run.run_id), run.path, 1) for run in sub.runs if run.run_id is not None)
    return identity_findings(names, works)


def gather_findings(report: VerifyReport) -> None:
    """The report's findings: across submissions (never stored in a results file), then each submission's."""
    report.findings.extend(duplicate_runs(report.submissions))
    report.findings.extend(name_collisions(report.submissions))
    for sub in report.submissions:
        report.unreadable.extend(f for f in sub.findings if f.unreadable)
        report.findings.extend(f for f in sub.findings if not f.unreadable)
        if sub.results is not None:
            report.findings.extend(_located(sub.path, sub.results.summary))


def _located(path: str, summary: ResultsSummary) -> list[Finding]:
    """The submission's results problems; a declared seed's at its line of prereg.yaml (`path/prereg.yaml:line`)."""
    seeds = seed_problems(summary)
    out = []
    for msg in results_problems(summary):
        if msg not in seeds:
            out.append(Finding(path, None, msg))
            continue
        cell, seed = seeds[msg]
        out.append(Finding(f"{path}/prereg.yaml", seed_line(Path(path) / "prereg.yaml", cell, seed), msg))
    return out


class VerifyJson(TypedDict):
    """The `--format json` document's submission part (beside the findings `findings_json` writes)."""

    submissions: list[dict[str, object]]
    """One `checker.format.verify_document.SubmissionReport` each, as JSON."""
    cache: dict[str, int]
    """Cache hits and misses."""


def report_json(report: VerifyReport) -> VerifyJson:
    """The `--format json` document's submission part (the whole results files, read back one at a time)."""
    return {"submissions": [submission_report(s).model_dump(mode="json") for s in report.submissions],
            "cache": {"hits": report.cache_hits, "misses": report.cache_misses}}


def submission_report(sub: SubmissionResult) -> SubmissionReport:
    """One submission as the `--format json` document reports it: its whole results file, else its runs."""
    entry = SubmissionReport(path=sub.path, submission_id=sub.manifest.id if sub.manifest else None,
                             track=sub.manifest.track if sub.manifest else None, profile=sub.profile,
                             cached=sub.cached, runs=sub.runs)
    if sub.results is None:
        return entry
    r = sub.results.load()  # the whole file, read back from disk one submission at a time
    return entry.model_copy(update={
        "runs": r.runs, "cells": r.cells, "claims": r.claims, "prereg_check": r.prereg_check,
        "defeaters": r.defeaters, "predictions": r.predictions, "null_results": r.null_results, "digest": r.digest})
