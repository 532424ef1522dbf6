"""The verify pipeline: load -> validate -> replay -> gate -> score -> aggregate -> results.

Runs with format problems are not scored (their findings are reported); a run without
`run_end` is scored and marked INCOMPLETE. Results are cached by the digests of every input,
so unchanged submissions are not recomputed; runs can be scored in parallel (`jobs`) and a full
re-verification can be split across machines (`shard`).
"""

from __future__ import annotations

import contextlib
import gc
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.format import logio
from checker.format.errors import Finding, MissingInputError
from checker.format.logio import REPLAY_CONTAINER_BYTES, file_sha256, over_replay_limit, read_events
from checker.format.progress import Progress, ticking
from checker.format.results_io import canonical_json, read_results
from checker.format.results_model import FindingRecord, ResultsFile, RunResult, SubmissionReport
from checker.format.results_model import VerdictFact as Fact
from checker.format.results_summary import summarize
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import Event
from checker.format.schema.manifest import Prereg, Submission
from checker.pipeline.cache import cache_get_summary, cache_put, default_cache_dir, repository, submission_cache_key
from checker.pipeline.results import build_results, index_row, results_problems, write_index
from checker.pipeline.scorers import scorer_for
from checker.pipeline.shard import in_shard
from checker.stages.copies import PayloadDigest, copies_across, inputs_digest, mark_copies
from checker.stages.load import discover, load_submission
from checker.stages.tracks import RunRecord, VerifyContext
from checker.stages.validate import INCOMPLETE_MESSAGE, KeptLog, ValidationReport, header_mismatches, validate_run_file
from checker.stages.verdict import judged_run


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
    summary: ResultsFile | None = None
    """The results file's summary (`checker.format.results_summary`): the whole `ResultsFile` but for the
    per-turn records of a large submission (None for loose run files). `runs` holds its runs."""
    turn_records: int = 0
    """Per-turn records in the full results file (the summary may leave them out)."""
    mismatch_counts: dict[str, int] | None = None
    """Mismatches per run path when the summary keeps only each run's first (None: it keeps them all)."""
    results_path: Path | None = None
    """Where the full results file can be read back (the cache entry, else the `--out` file)."""
    full: ResultsFile | None = None
    """The full results file, held only when it was written nowhere (no cache, no `--out`)."""
    text: str | None = None
    """The full results file's canonical JSON, from its assembly until it is written (`_release`)."""
    prereg_sha256: str | None = None
    """SHA-256 of `prereg.yaml` as the load stage read it (None when missing or refused)."""

    @property
    def results(self) -> ResultsFile | None:
        """The full `ResultsFile` of this submission (read back from disk when it was released), or None."""
        if self.full is not None:
            return self.full
        if self.results_path is not None:
            return read_results(self.results_path)
        return self.summary


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
    dirs = list(problem_dirs or ())
    problem_sets = _load_problem_sets([p for p in dirs if not is_task_set(p)])
    global _WORKER_TASK_SETS
    _WORKER_TASK_SETS = _load_task_sets([p for p in dirs if is_task_set(p)])  # completion track: its own folders
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
        result.runs.extend(judged_run([Fact("malformed", f"{display}/{rel}: {why}")], path=f"{display}/{rel}")
                           for rel, why in loaded.refused_runs)
        shown = [(p, f"{display}/{p.relative_to(target.path).as_posix()}") for p in loaded.run_paths]
        key = None
        if cache_dir is not None and loaded.manifest is not None:
            key = submission_cache_key(loaded, shown, chosen, problem_sets, _WORKER_TASK_SETS)
            cached = cache_get_summary(cache_dir, key)
            if cached is not None:
                _restore(result, *cached, results_dir)
                report.cache_hits += 1
                report.submissions.append(result)
                continue
            report.cache_misses += 1
        pending.append((result, shown, key))
        report.submissions.append(result)
    loose_pending: list[Pending] = []
    if loose and shard is None:
        result = SubmissionResult("(run files)", None, None, profile or "driftboard")
        loose_pending.append((result, [(p, p.as_posix()) for p in loose], None))
        report.submissions.append(result)
    total = sum(len(shown) for _r, shown, _k in pending + loose_pending)
    done = _verify_pending(pending, problem_sets, jobs, cache_dir, results_dir, progress, total)
    if loose_pending:
        _score_all(loose_pending, problem_sets, jobs,
                   None if progress is None else (lambda d, _t: progress(done + d, total) if d or not done else None))
    for result, _shown, key in loose_pending:
        _finish(result, None, cache_dir, key)
    # across submissions, after cache restore: never stored in a results file or the cache
    report.findings.extend(duplicate_runs(report.submissions))
    for sub in report.submissions:
        report.unreadable.extend(f for f in sub.findings if f.unreadable)
        report.findings.extend(f for f in sub.findings if not f.unreadable)
        if sub.summary is not None:
            report.findings.extend(Finding(f"{sub.path}", None, msg) for msg in results_problems(sub.summary))
    if results_dir is not None and shard is None:
        results_dir.mkdir(parents=True, exist_ok=True)
        # rows of the files written here come from their summaries (same fields): no file is read back
        ids = Counter(s.summary.submission_id for s in report.submissions if s.summary is not None)
        known = {f"{s.summary.submission_id}.json": index_row(s.summary, f"{s.summary.submission_id}.json")
                 for s in report.submissions if s.summary is not None and ids[s.summary.submission_id] == 1}
        write_index(results_dir, known)
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
    one set, and each split of it one more (see `checker.constraint.problems.load_problem_sets`).
    A folder holding `taskset.json` is a completion task set (`checker.completion.tasks`), read by that track.
    """
    if not PROBLEMS_ROOT.is_dir():
        return []
    return [p for p in sorted(PROBLEMS_ROOT.iterdir()) if p.is_dir() and any(p.rglob("*.json"))]


Pending = tuple["SubmissionResult", list[tuple[Path, str]], str | None]
"""(submission, its run logs as (path, display path), cache key or None)."""


def _verify_pending(pending: list[Pending], problem_sets: Mapping[str, Any], jobs: int, cache_dir: Path | None,
                    results_dir: Path | None, progress: Progress | None = None, total: int = 0) -> int:
    """Score, assemble and write every pending submission, one submission at a time per process.

    Each submission's results are built, cached and written where it was scored (a worker when
    `jobs` > 1), then released: only its summary comes back (`_release`), so memory does not
    grow with the number of submissions. With fewer submissions than workers, the runs
    themselves are spread over the workers (`_score_all`) and assembled here. `progress` is told
    (runs scored, `total`) as submissions complete. Returns the number of runs scored.
    """
    runs = sum(len(shown) for _r, shown, _k in pending)
    if jobs > 1 and len(pending) < jobs:
        _score_all(pending, problem_sets, jobs, None if progress is None else (lambda d, _t: progress(d, total)))
        for result, _shown, key in pending:
            _finish(result, repository(Path(result.path)) if result.manifest is not None else None, cache_dir, key)
            _release(result, cache_dir, key, results_dir)
        return runs
    tasks = [(result, shown, key, cache_dir, results_dir) for result, shown, key in pending]
    scored = 0
    if progress is not None and tasks:
        progress(0, total)
    if jobs > 1:
        # largest first (bytes of logs): the last submissions to finish are the small ones
        order = sorted(range(len(tasks)), key=lambda i: -_log_bytes(tasks[i][1]))
        from concurrent.futures import ProcessPoolExecutor  # imported here: `--jobs 1` never pays its start-up

        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(problem_sets, _WORKER_TASK_SETS)) as pool:
            outcomes = pool.map(_verify_submission, [tasks[i] for i in order], chunksize=1)
            for (result, shown, _key), done in zip([pending[i] for i in order], outcomes, strict=True):
                result.__dict__.update(done.__dict__)
                scored += len(shown)
                if progress is not None:
                    progress(scored, total)
    else:
        _init_worker(problem_sets)
        ticks = iter(range(1, runs + 1))  # one report per run scored, in this process
        for task in tasks:
            _verify_submission(task, None if progress is None else (lambda: progress(next(ticks), total)))
    return runs


def _log_bytes(shown: list[tuple[Path, str]]) -> int:
    total = 0
    for path, _display in shown:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


SubmissionTask = tuple["SubmissionResult", list[tuple[Path, str]], str | None, Path | None, Path | None]
"""(submission, its run logs, cache key, cache folder, results folder)."""


def _verify_submission(task: SubmissionTask, on_run: Callable[[], None] | None = None) -> SubmissionResult:
    """Score every run of one submission, build, cache and write its results, and release them.

    Runs in a worker process when jobs > 1 (what it returns is the summary only); `on_run` is
    called after each run is scored.
    """
    result, shown, key, cache_dir, results_dir = task
    owner = (result.manifest.id, result.manifest.track) if result.manifest is not None else None
    for path, display in shown:
        findings, run_result = _score_task((0, path, display, result.profile, result.prereg, owner))
        result.findings.extend(findings)
        result.runs.append(run_result)
        if on_run is not None:
            on_run()
    # the commit-order check reads the submission's own repository (the cache key covers it)
    _finish(result, repository(Path(result.path)) if result.manifest is not None else None, cache_dir, key)
    _release(result, cache_dir, key, results_dir)
    constraints = sys.modules.get("checker.constraint.scorer")  # loaded only if a constraint run was scored
    if RELEASE_CHECKERS and constraints is not None:
        constraints.release_checkers()
    return result


RELEASE_CHECKERS = True
"""Empty the constraint scorer's per-problem checkers after each submission (their lifetime is
one submission; `checker.constraint.scorer.CHECKERS_SIZE` bounds them within one)."""


def _release(result: SubmissionResult, cache_dir: Path | None, key: str | None, results_dir: Path | None) -> None:
    """Write the full results file (to `--out`), keep its summary, and drop the full results when they can be re-read."""
    full = result.full
    if full is None:
        return
    text = result.text if result.text is not None else canonical_json(full.model_dump(mode="json"))
    result.text = None  # serialised once (when assembled), for the cache and `--out`
    if cache_dir is not None and key is not None:
        cache_put(cache_dir, key, full, text)
    if results_dir is not None:
        results_dir.mkdir(parents=True, exist_ok=True)
        written = results_dir / f"{full.submission_id}.json"
        written.write_text(text, encoding="utf-8")  # the bytes `write_results` writes
    result.summary, result.turn_records, result.mismatch_counts = summarize(full)
    result.runs = list(result.summary.runs)
    if cache_dir is not None and key is not None:
        result.results_path = cache_dir / f"{key}.json"
    elif results_dir is not None:
        result.results_path = written
    result.full = None if result.results_path is not None else full


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

        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                 initargs=(problem_sets, _WORKER_TASK_SETS)) as pool:
            outcomes = list(ticking(pool.map(_score_task, tasks, chunksize=1), len(tasks), progress))
    else:
        _init_worker(problem_sets)
        outcomes = [_score_task(t) for t in ticking(tasks, len(tasks), progress)]
    for (n, *_rest), (findings, run_result) in zip(tasks, outcomes, strict=True):
        result = pending[n][0]
        result.findings.extend(findings)
        result.runs.append(run_result)


_WORKER_PROBLEM_SETS: Mapping[str, Any] = {}
_WORKER_TASK_SETS: Mapping[str, Any] = {}
"""Completion task sets of the current `verify_paths` call (digest -> task set, loaded on first use)."""


def _init_worker(problem_sets: Mapping[str, Any], task_sets: Mapping[str, Any] | None = None) -> None:
    global _WORKER_PROBLEM_SETS, _WORKER_TASK_SETS
    _WORKER_PROBLEM_SETS = problem_sets
    if task_sets is not None:
        _WORKER_TASK_SETS = task_sets


def kept_record(kept: KeptLog, shown: str) -> RunRecord:
    """The `RunRecord` of a log whose events validation kept (the same record `read_run` reads)."""
    return RunRecord(path=shown, sha256=kept.sha256, start=kept.start, end=kept.end, events=kept.events,
                     lines=kept.lines, content_sha256=kept.content_sha256)


ScoreTask = tuple[int, Path, str, str, Prereg | None, tuple[str, str] | None]
"""(submission index, log path, display path, profile, prereg, (manifest id, track) or None)."""


def _score_task(task: ScoreTask) -> tuple[list[Finding], RunResult]:
    """Validate, read and score one run log (runs in a worker process when jobs > 1).

    The cyclic garbage collector is paused meanwhile: a kept log is tens of thousands of live
    event objects, which each collection would traverse again (about a sixth of the time of a
    10,000-event run), and parsed JSON, event models and the replay's state make no reference
    cycles, so nothing accumulates; whatever garbage there is is collected after the run.
    """
    if not gc.isenabled():
        return _score_log(task)
    gc.disable()
    try:
        return _score_log(task)
    finally:
        gc.enable()


def _score_log(task: ScoreTask) -> tuple[list[Finding], RunResult]:
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
        return findings, judged_run([Fact("malformed", f.render()) for f in blocking + vreport.unreadable],
                                    path=shown, cell=info.cell, seed=info.seed, track=info.track)
    over = None if kept.complete else over_replay_limit(path)
    if over is not None:
        # replaying holds every event in memory: an over-size log is validated (streamed) but not scored
        size, containers, weight, limit = over
        message = (f"too large to replay: {size} bytes and {containers} JSON objects/arrays make a replay size "
                   f"of {weight} (bytes + {REPLAY_CONTAINER_BYTES} per object/array), above the limit of "
                   f"{limit}; the log's chain and events are valid, but it is not scored (UNVERIFIED)")
        findings.append(Finding(shown, None, message))
        return findings, judged_run([Fact("unverified", message)], path=shown, log_sha256=file_sha256(path),
                                    run_id=info.run_id, cell=info.cell, seed=info.seed, track=info.track,
                                    prereg_sha256=info.prereg_sha256)
    record = kept_record(kept, shown) if kept.complete else read_run(path, shown)
    ctx = VerifyContext(profile=profile, prereg=prereg, problem_sets=_WORKER_PROBLEM_SETS, task_sets=_WORKER_TASK_SETS)
    start = record.start
    try:
        run_result = scorer_for(start.track).score_run(record, ctx)
    except MissingInputError as exc:
        findings.append(Finding(shown, 1, str(exc)))
        run_result = judged_run(
            [Fact("unverified", str(exc))], path=shown, log_sha256=record.sha256, run_id=start.run_id,
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
    text: list[str] = []
    result.full = build_results(result, findings, root, text)
    result.summary = result.full
    result.text = text[0]


def _restore(result: SubmissionResult, summary: ResultsFile, turn_records: int, mismatch_counts: dict[str, int] | None,
             full_path: Path, results_dir: Path | None) -> None:
    """A cache hit: keep the entry's summary, and copy the cached results file's bytes to `--out` (never parsed)."""
    result.cached = True
    result.summary, result.turn_records, result.results_path = summary, turn_records, full_path
    result.mismatch_counts = mismatch_counts
    result.runs = list(summary.runs)
    result.findings = [Finding(f.path, f.line, f.message, f.severity) for f in summary.findings]
    if results_dir is not None:
        results_dir.mkdir(parents=True, exist_ok=True)
        # the cache holds the canonical bytes `write_results` writes
        shutil.copyfile(full_path, results_dir / f"{summary.submission_id}.json")


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


def is_task_set(path: Path) -> bool:
    """A folder holding a completion task set (`taskset.json`), not a constraint problem set."""
    return path.is_dir() and (path / "taskset.json").is_file()


def _load_task_sets(paths: list[Path]) -> Mapping[str, Any]:
    """Digest -> completion task set, each folder read only when a run needs it (`checker.completion.tasks`)."""
    if not paths:
        return {}
    from checker.completion.tasks import LazyTaskSets

    return LazyTaskSets(paths)


def _load_problem_sets(paths: list[Path]) -> Mapping[str, Any]:
    """Digest -> problem set, each path read only when a run needs it (`checker.constraint.problem_sets`)."""
    if not paths:
        return {}
    from checker.constraint.problem_sets import LazyProblemSets

    return LazyProblemSets(paths)


def report_json(report: VerifyReport) -> dict[str, Any]:
    """The `--format json` document's submission part (the shape of `checker.format.results_model.SubmissionReport`)."""
    subs = []
    for s in report.submissions:
        r = s.results  # the full file, read back from disk one submission at a time
        entry = SubmissionReport(
            path=s.path, submission_id=s.manifest.id if s.manifest else None,
            track=s.manifest.track if s.manifest else None, profile=s.profile, cached=s.cached,
            runs=r.runs if r else s.runs, cells=r.cells if r else None, claims=r.claims if r else None,
            prereg_check=r.prereg_check if r else None, defeaters=r.defeaters if r else None,
            predictions=r.predictions if r else None, null_results=r.null_results if r else None,
            digest=r.digest if r else None)
        subs.append(entry.model_dump(mode="json"))
    return {"submissions": subs, "cache": {"hits": report.cache_hits, "misses": report.cache_misses}}
