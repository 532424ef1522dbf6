"""The verify pipeline: load -> validate -> replay -> gate -> score -> aggregate -> results.

Runs with format problems are not scored (their findings are reported); a run without
`run_end` is scored and marked INCOMPLETE. Results are cached by the digests of every input,
so unchanged submissions are not recomputed; runs can be scored in parallel (`jobs`) and a full
re-verification can be split across machines (`shard`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker import logio
from checker.cache import cache_get, cache_put, default_cache_dir, repository, submission_cache_key
from checker.copies import PayloadDigest, copies_across, inputs_digest, mark_copies
from checker.errors import Finding, MissingInputError
from checker.load import discover, load_submission
from checker.logio import REPLAY_CONTAINER_BYTES, file_sha256, over_replay_limit, read_events
from checker.progress import Progress, ticking
from checker.results import build_results, results_problems, write_index, write_results
from checker.results_model import FindingRecord, ResultsFile, RunResult, SubmissionReport
from checker.schema.common import RunEnd, RunStart
from checker.schema.events import Event
from checker.schema.manifest import Prereg, Submission
from checker.scorers import scorer_for
from checker.shard import in_shard
from checker.tracks import RunRecord, VerifyContext
from checker.validate import INCOMPLETE_MESSAGE, KeptLog, ValidationReport, header_mismatches, validate_run_file


@dataclass
class SubmissionResult:
    """What verify found for one submission folder (or a set of loose run files)."""

    path: str
    manifest: Submission | None
    prereg: Prereg | None
    profile: str
    runs: list[RunResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    cached: bool = False
    results: ResultsFile | None = None
    """The `ResultsFile` written for this submission (None for loose run files)."""
    prereg_sha256: str | None = None
    """SHA-256 of `prereg.yaml` as the load stage read it (None when missing or refused)."""


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


def verify_paths(
    paths: Iterable[Path],
    profile: str | None = None,
    problem_dirs: Iterable[Path] | None = (),
    *,
    jobs: int = 1,
    shard: tuple[int, int] | None = None,
    cache_dir: Path | None = None,
    results_dir: Path | None = None,
    progress: Progress | None = None,
) -> VerifyReport:
    """Verify submission folders and/or loose run files.

    Args:
        paths: submission folders, folders of submissions, or run files.
        profile: scoring profile; default: the pre-registration's, else `driftboard`.
        problem_dirs: constraint problem sets (folders or files).
        jobs: worker processes for scoring runs.
        shard: (k, n) to verify only every n-th submission starting at the k-th (sorted order).
        cache_dir: verification cache folder (None: no cache).
        results_dir: where to write one results file per submission (None: do not write).
        progress: called with (runs scored, runs to score) as scoring goes (None: silent).

    Raises:
        UsageError: a path does not exist, or a problem-set path cannot be read.
    """
    report = VerifyReport()
    problem_sets = _load_problem_sets(list(problem_dirs or ()))
    targets = discover(paths)
    subs = [t for t in targets if t.kind == "submission"]
    loose = [t.path for t in targets if t.kind == "run"]
    pending: list[tuple[SubmissionResult, list[tuple[Path, str]], str | None]] = []
    for i, target in enumerate(subs):
        if not in_shard(i, shard):
            continue
        display = target.path.as_posix()
        loaded = load_submission(target.path, display)
        chosen = profile or (loaded.prereg.profile if loaded.prereg else "driftboard")
        result = SubmissionResult(display, loaded.manifest, loaded.prereg, chosen, findings=list(loaded.findings),
                                  prereg_sha256=loaded.prereg_sha256)
        # run files found but not read (links, FIFOs, unlisted...) are reported too: runs in = runs reported
        result.runs.extend(RunResult(path=f"{display}/{rel}", verdict="MALFORMED", reasons=[f"{display}/{rel}: {why}"])
                           for rel, why in loaded.refused_runs)
        shown = [(p, f"{display}/{p.relative_to(target.path).as_posix()}") for p in loaded.run_paths]
        key = None
        if cache_dir is not None and loaded.manifest is not None:
            key = submission_cache_key(loaded, shown, chosen, problem_sets)
            cached = cache_get(cache_dir, key)
            if cached is not None:
                _restore(result, cached)
                report.cache_hits += 1
                report.submissions.append(result)
                continue
            report.cache_misses += 1
        pending.append((result, shown, key))
        report.submissions.append(result)
    if loose and shard is None:
        result = SubmissionResult("(run files)", None, None, profile or "driftboard")
        pending.append((result, [(p, p.as_posix()) for p in loose], None))
        report.submissions.append(result)
    _score_all(pending, problem_sets, jobs, progress)
    for result, _shown, key in pending:
        # the commit-order check reads the submission's own repository (the cache key covers it)
        _finish(result, repository(Path(result.path)) if result.manifest is not None else None, cache_dir, key)
    # across submissions, after cache restore: never stored in a results file or the cache
    report.findings.extend(duplicate_runs(report.submissions))
    for sub in report.submissions:
        report.unreadable.extend(f for f in sub.findings if f.unreadable)
        report.findings.extend(f for f in sub.findings if not f.unreadable)
        if sub.results is not None:
            report.findings.extend(Finding(f"{sub.path}", None, msg) for msg in results_problems(sub.results))
            if results_dir is not None:
                write_results(sub.results, results_dir)
    if results_dir is not None and shard is None:
        results_dir.mkdir(parents=True, exist_ok=True)
        write_index(results_dir)
    return report


def verify_to_results(
    paths: list[Path], results_dir: Path, profile: str | None, problem_dirs: list[Path] | None, jobs: int,
    shard: tuple[int, int] | None, use_cache: bool, progress: Progress | None = None,
) -> VerifyReport:
    """Verify and write results files (the `build` command's way to get fresh results)."""
    return verify_paths(paths, profile, problem_dirs if problem_dirs is not None else default_problem_dirs(),
                        jobs=jobs, shard=shard, cache_dir=default_cache_dir() if use_cache else None,
                        results_dir=results_dir, progress=progress)


def ensure_results(submissions: Path, results: Path, progress: Progress | None = None) -> set[str]:
    """Make sure `results` holds verified results for every submission (verifying with the cache).

    Returns the ids of the submissions verified now: the tree being built (`build` renders only those).
    """
    report = verify_to_results([submissions], results, profile=None, problem_dirs=None, jobs=1, shard=None,
                               use_cache=True, progress=progress)
    return {sub.results.submission_id for sub in report.submissions if sub.results is not None}


PROBLEMS_ROOT = Path("problems")
"""Problem sets shipped with the repository (one sub-folder each), used when `--problems` is not given."""


def default_problem_dirs() -> list[Path]:
    """Each sub-folder of the repository's `problems/` that holds problem files (at any depth), as its own set.

    A set may keep its splits in sub-folders (`problems/drift-bench-v1/{dev,test}`): the folder is
    one set, and each split of it one more (see `checker.problems.load_problem_sets`).
    """
    if not PROBLEMS_ROOT.is_dir():
        return []
    return [p for p in sorted(PROBLEMS_ROOT.iterdir()) if p.is_dir() and any(p.rglob("*.json"))]


def _score_all(pending: list[tuple[SubmissionResult, list[tuple[Path, str]], str | None]],
               problem_sets: Mapping[str, Any], jobs: int, progress: Progress | None = None) -> None:
    tasks: list[ScoreTask] = []
    for n, (result, shown, _key) in enumerate(pending):
        for path, display in shown:
            owner = (result.manifest.id, result.manifest.track) if result.manifest is not None else None
            tasks.append((n, path, display, result.profile, result.prereg, owner))
    if jobs > 1 and len(tasks) > 1:
        # imported here: the process pool (multiprocessing, logging) is ~15 ms of start-up that `--jobs 1` never uses
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(problem_sets,)) as pool:
            outcomes = list(ticking(pool.map(_score_task, tasks, chunksize=1), len(tasks), progress))
    else:
        _init_worker(problem_sets)
        outcomes = [_score_task(t) for t in ticking(tasks, len(tasks), progress)]
    for (n, *_rest), (findings, run_result) in zip(tasks, outcomes, strict=True):
        result = pending[n][0]
        result.findings.extend(findings)
        result.runs.append(run_result)


_WORKER_PROBLEM_SETS: Mapping[str, Any] = {}


def _init_worker(problem_sets: Mapping[str, Any]) -> None:
    global _WORKER_PROBLEM_SETS
    _WORKER_PROBLEM_SETS = problem_sets


def kept_record(kept: KeptLog, shown: str) -> RunRecord:
    """The `RunRecord` of a log whose events validation kept (the same record `read_run` reads)."""
    payload = PayloadDigest()
    for event in kept.events:
        payload.add(event)
    return RunRecord(path=shown, sha256=kept.sha256, start=kept.start, end=kept.end, events=kept.events,
                     lines=kept.lines, content_sha256=payload.hexdigest())


ScoreTask = tuple[int, Path, str, str, Prereg | None, tuple[str, str] | None]
"""(submission index, log path, display path, profile, prereg, (manifest id, track) or None)."""


def _score_task(task: ScoreTask) -> tuple[list[Finding], RunResult]:
    """Validate, read and score one run log (runs in a worker process when jobs > 1)."""
    _n, path, shown, profile, prereg, owner = task
    vreport = ValidationReport()
    # one pass: validation keeps the events of a log small enough to replay (a larger one is not kept)
    kept = KeptLog(max_weight=logio.MAX_REPLAY_BYTES, container_bytes=REPLAY_CONTAINER_BYTES)
    info = validate_run_file(path, shown, vreport, kept)
    if owner is not None and not vreport.unreadable:
        # a header naming another submission or track is a copied run: not scored here
        vreport.findings.extend(header_mismatches(info, *owner))
    blocking = [f for f in vreport.findings if f.message != INCOMPLETE_MESSAGE]
    findings = vreport.unreadable + (vreport.findings if blocking else [])
    if blocking or vreport.unreadable:
        # what the header says (when it could be read) keeps the run in its declared slot: counted as worst, not missing
        return findings, RunResult(path=shown, verdict="MALFORMED", reasons=[f.render() for f in blocking + vreport.unreadable],
                                   cell=info.cell, seed=info.seed, track=info.track)
    over = None if kept.complete else over_replay_limit(path)
    if over is not None:
        # replaying holds every event in memory: an over-size log is validated (streamed) but not scored
        size, containers, weight, limit = over
        message = (f"too large to replay: {size} bytes and {containers} JSON objects/arrays make a replay size "
                   f"of {weight} (bytes + {REPLAY_CONTAINER_BYTES} per object/array), above the limit of "
                   f"{limit}; the log's chain and events are valid, but it is not scored (UNVERIFIED)")
        findings.append(Finding(shown, None, message))
        return findings, RunResult(path=shown, verdict="UNVERIFIED", reasons=[message], log_sha256=file_sha256(path),
                                   run_id=info.run_id, cell=info.cell, seed=info.seed, track=info.track,
                                   prereg_sha256=info.prereg_sha256)
    record = kept_record(kept, shown) if kept.complete else read_run(path, shown)
    ctx = VerifyContext(profile=profile, prereg=prereg, problem_sets=_WORKER_PROBLEM_SETS)
    start = record.start
    try:
        run_result = scorer_for(start.track).score_run(record, ctx)
    except MissingInputError as exc:
        findings.append(Finding(shown, 1, str(exc)))
        run_result = RunResult(
            path=shown, verdict="UNVERIFIED", reasons=[str(exc)], log_sha256=record.sha256, run_id=start.run_id,
            cell=start.cell, seed=start.seed, track=start.track, prereg_sha256=start.prereg_sha256,
            comparator=start.comparator, problem_set=start.problem_set.digest if start.problem_set else None)
    # a scorer's own findings (e.g. a declared ledger missing): they fail verification like format problems
    findings.extend(Finding(shown, f.line, f.message, f.severity) for f in run_result.findings)
    return findings, run_result.model_copy(update={
        "findings": [], "content_sha256": record.content_sha256, "inputs_sha256": inputs_digest(start)})


def _finish(result: SubmissionResult, root: Path | None, cache_dir: Path | None, key: str | None) -> None:
    result.runs.sort(key=lambda r: r.path)  # also without a manifest: its runs are reported
    result.runs, copy_findings = mark_copies(result.path, result.runs, result.prereg)  # a copy counts once
    result.findings.extend(copy_findings)
    if result.manifest is None:
        return
    findings = [FindingRecord.model_validate(f.to_json())
                for f in sorted(result.findings, key=lambda f: (f.path, f.line or 0, f.message))]
    result.results = build_results(result, findings, root)
    if cache_dir is not None and key is not None:
        cache_put(cache_dir, key, result.results)


def _restore(result: SubmissionResult, cached: Any) -> None:
    result.cached = True
    result.results = cached
    result.runs = list(cached.runs)
    result.findings = [Finding(f.path, f.line, f.message, f.severity) for f in cached.findings]


def duplicate_runs(subs: Iterable[SubmissionResult]) -> list[Finding]:
    """The same run reported twice: one run id (or one log's exact bytes) under two paths.

    Every copy is flagged, naming the others, whichever submission it is in: which one is the
    original is not the checker's call. Runs that were not read (MALFORMED) have no id or digest
    and are not compared. The check spans the submissions of one `verify` invocation (every
    submission for the site build; the pull-request check compares run ids against the whole
    tree through `validate`), so it is reported, never written into a results file or the cache.
    Copies by content (the same events under another run id, `checker.copies`) are flagged the
    same way across submissions; within one submission they were marked before its results.
    """
    subs = list(subs)
    by_id: dict[str, list[tuple[str, str | None]]] = {}
    for sub in subs:
        for run in sub.runs:
            if run.run_id is not None:
                by_id.setdefault(run.run_id, []).append((run.path, run.log_sha256))
    out = []
    for run_id, copies in sorted(by_id.items()):
        if len({path for path, _ in copies}) < 2:
            continue
        for path, digest in sorted(copies):
            others = sorted({p for p, _ in copies if p != path})
            same = digest is not None and all(d == digest for p, d in copies if p != path)
            what = "the same log (identical bytes, run id" if same else "run id"
            out.append(Finding(path, 1, f"{what} {run_id!r}{')' if same else ''} is also reported in "
                                        f"{', '.join(others)}: a run may be reported once, in one submission"))
    out.extend(copies_across((sub.path, sub.runs, sub.prereg) for sub in subs))  # the same events under new ids
    return out


def read_run(path: Path, shown: str) -> RunRecord:
    """Read a validated run log into a `RunRecord`."""
    start: RunStart | None = None
    end: RunEnd | None = None
    events: list[Event] = []
    lines: list[int] = []
    payload = PayloadDigest()  # copies are detected by content, computed in this one pass
    for lineno, event in read_events(path):
        if isinstance(event, RunStart):
            start = event
        elif isinstance(event, RunEnd):
            end = event
        else:
            events.append(event)
            lines.append(lineno)
            payload.add(event)
    assert start is not None, "validated logs start with run_start"
    return RunRecord(path=shown, sha256=file_sha256(path), start=start, end=end, events=events, lines=lines,
                     content_sha256=payload.hexdigest())


def _load_problem_sets(paths: list[Path]) -> Mapping[str, Any]:
    """Digest -> problem set, each path read only when a run needs it (`checker.problem_sets`)."""
    if not paths:
        return {}
    from checker.problem_sets import LazyProblemSets

    return LazyProblemSets(paths)


def report_json(report: VerifyReport) -> dict[str, Any]:
    """The `--format json` document's submission part (the shape of `checker.results_model.SubmissionReport`)."""
    subs = []
    for s in report.submissions:
        r = s.results
        entry = SubmissionReport(
            path=s.path, submission_id=s.manifest.id if s.manifest else None,
            track=s.manifest.track if s.manifest else None, profile=s.profile, cached=s.cached,
            runs=s.runs, cells=r.cells if r else None, claims=r.claims if r else None,
            prereg_check=r.prereg_check if r else None, defeaters=r.defeaters if r else None,
            predictions=r.predictions if r else None, null_results=r.null_results if r else None,
            digest=r.digest if r else None)
        subs.append(entry.model_dump(mode="json"))
    return {"submissions": subs, "cache": {"hits": report.cache_hits, "misses": report.cache_misses}}
