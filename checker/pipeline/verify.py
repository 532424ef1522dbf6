"""Verify: load -> validate -> replay -> gate -> score -> aggregate -> results, over submissions and loose run files.

Runs with format problems are not scored (their findings are reported); a run without `run_end`
is scored and marked INCOMPLETE. Each submission is loaded and looked up in the cache (keyed by
the digests of every input); the others are scored by one task function (`_verify_part`) that
scores a submission's runs, builds its results file, stores it (cache, `--out`) and keeps only a
`ResultsHandle`. `jobs` 1 maps that function over the submissions in this process; `jobs` > 1
maps it in a process pool (over single runs when there are fewer submissions than workers, the
submissions then completed here). A full re-verification can be split across machines (`shard`).
"""

from __future__ import annotations

import contextlib
import gc
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from checker.format import logio
from checker.format.errors import Finding, MissingInputError
from checker.format.identity import recorded_model
from checker.format.logio import REPLAY_CONTAINER_BYTES, over_replay_limit
from checker.format.progress import Progress, reading, set_meter
from checker.format.results_model import FindingRecord, ResultsFile, RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.manifest import Prereg
from checker.format.storage import log_sha256
from checker.pipeline.binding import bind_report, cache_entry_problem, committed_results
from checker.pipeline.boards import write_boards
from checker.pipeline.cache import cache_put, cached_results, default_cache_dir, repository, submission_cache_key
from checker.pipeline.handle import ResultsHandle
from checker.pipeline.inputs import default_problem_dirs, is_task_set, load_problem_sets, load_task_sets
from checker.pipeline.report import SubmissionResult, VerifyReport, awaiting_runs, gather_findings
from checker.pipeline.results import build_results, index_row, write_index
from checker.pipeline.run_log import kept_record, read_run
from checker.pipeline.scorers import release_scorers, scorer_for
from checker.pipeline.shard import in_shard
from checker.stages.copies import inputs_digest, mark_copies
from checker.stages.fetch import default_store
from checker.stages.load import Target, discover, load_submission
from checker.stages.reproduction import disagreement_finding
from checker.stages.tracks import RunRecord, VerifyContext
from checker.stages.validate import (
    INCOMPLETE_MESSAGE,
    KeptLog,
    RunInfo,
    ValidationReport,
    header_mismatches,
    validate_run_file,
)
from checker.stages.verdict import judged_run


@dataclass(frozen=True)
class Stores:
    """Where verified results files go: the cache folder and the `--out` folder (None: not there)."""

    cache_dir: Path | None = None
    results_dir: Path | None = None


Log = tuple[Path, str]
"""A run log: (path, display path)."""


@dataclass(frozen=True)
class Job:
    """A submission to score (or the loose run files): its place in the report, as loaded, its logs and cache key."""

    slot: int
    sub: SubmissionResult
    logs: tuple[Log, ...]
    key: str | None
    stores: Stores


@dataclass(frozen=True)
class Part:
    """What one task scores: logs of one job; `whole` when they are all of them (the task then completes the job)."""

    job: Job
    logs: tuple[Log, ...]
    whole: bool


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
        problem_dirs: constraint problem sets (folders or files) and completion task sets (folders holding
            `taskset.json`, `is_task_set`).
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
    problem_sets = load_problem_sets([p for p in dirs if not is_task_set(p)])
    task_sets = load_task_sets([p for p in dirs if is_task_set(p)])  # completion track: its own folders
    work = _plan(discover(paths), profile, shard, (problem_sets, task_sets), Stores(cache_dir, results_dir), report)
    for slot, verified in _score(work, _Worker(problem_sets, task_sets), jobs, progress).items():
        report.submissions[slot] = verified
    gather_findings(report)
    if results_dir is not None and shard is None:
        _write_index(report.submissions, results_dir)
    if results_dir is not None:
        bind_report(report.submissions, results_dir, shard)  # publication computes: what this run wrote, bound
    return report


def _plan(targets: list[Target], profile: str | None, shard: tuple[int, int] | None,
          sets: tuple[Mapping[str, Any], Mapping[str, Any]], stores: Stores, report: VerifyReport) -> list[Job]:
    """Load every submission of the shard into `report`, restore the cached ones; the others (and loose logs) to score.

    `sets`: (problem sets, task sets), inputs of every cache key.
    """
    work: list[Job] = []
    roots, loose = _targets(targets, shard)
    for root in roots:
        sub, logs, key = _load(root, profile, sets, stores.cache_dir)
        report.submissions.append(sub)
        sub.awaiting_runs = awaiting_runs(sub, logs)
        if sub.awaiting_runs:
            continue  # pre-registered, no run yet: listed (Pre-registered page), nothing to score or rank
        if not _from_cache(sub, key, stores, report, logs):
            work.append(Job(len(report.submissions) - 1, sub, logs, key, stores))
    if loose:
        report.submissions.append(SubmissionResult("(run files)", None, None, profile or "driftboard"))
        work.append(Job(len(report.submissions) - 1, report.submissions[-1], loose, None, stores))
    return work


def _targets(targets: list[Target], shard: tuple[int, int] | None) -> tuple[list[Path], tuple[Log, ...]]:
    """(the submission folders of the shard, the loose run files); a shard verifies no loose file."""
    subs = [t.path for t in targets if t.kind == "submission"]
    loose = () if shard is not None else tuple((t.path, t.path.as_posix()) for t in targets if t.kind == "run")
    return [root for i, root in enumerate(subs) if in_shard(i, shard)], loose


def _load(root: Path, profile: str | None, sets: tuple[Mapping[str, Any], Mapping[str, Any]],
          cache_dir: Path | None) -> tuple[SubmissionResult, tuple[Log, ...], str | None]:
    """Load one submission folder: what it is (run files refused are reported MALFORMED), its logs, its cache key."""
    display = root.as_posix()
    # logs stored by reference are fetched into the blob store beside the cache (also with --no-cache: the
    # store holds only bytes checked against their declared digest, never a result)
    loaded = load_submission(root, display, default_store(cache_dir or default_cache_dir()))
    chosen = profile or (loaded.prereg.profile if loaded.prereg else "driftboard")
    sub = SubmissionResult(display, loaded.manifest, loaded.prereg, chosen,
                           findings=[*loaded.findings, *committed_results(root, display)],
                           prereg_sha256=loaded.prereg_sha256)
    # run files found but not read (links, FIFOs, unlisted...) are reported too: runs in = runs reported
    sub.runs.extend(judged_run([Fact("malformed", f"{display}/{rel}: {why}")], path=f"{display}/{rel}")
                    for rel, why in loaded.refused_runs)
    # a referenced log that is unreachable or not the declared bytes: a finding, the run UNVERIFIED (counts worst)
    for rel, why in loaded.unfetched:
        message = f"stored by reference (blobs:) and not verified: {why}"
        sub.findings.append(Finding(f"{display}/{rel}", None, message))
        sub.runs.append(judged_run([Fact("unverified", f"{display}/{rel}: {message}")], path=f"{display}/{rel}"))
    logs = tuple((p, f"{display}/{loaded.rel(p)}") for p in loaded.run_paths)
    key = None
    if cache_dir is not None and loaded.manifest is not None:
        key = submission_cache_key(loaded, list(logs), chosen, *sets)
    return sub, logs, key


def _from_cache(sub: SubmissionResult, key: str | None, stores: Stores, report: VerifyReport,
                logs: tuple[Log, ...] = ()) -> bool:
    """Restore `sub` from the cache when its key is there (counted as a hit, else as a miss); False: not restored.

    An entry is never taken on trust: one whose content digest, log digests or prereg digest are not
    those of the tree (`cache_entry_problem`) is a miss, recomputed, with a warning.
    """
    if stores.cache_dir is None or key is None:
        return False
    hit = cached_results(stores.cache_dir, key)
    why = cache_entry_problem(hit.path, sub.prereg_sha256, logs) if hit is not None else None
    if why is not None:
        report.findings.append(Finding(sub.path, None, why, "warning"))
        hit = None
    if hit is None:
        report.cache_misses += 1
        return False
    _restore(sub, hit, stores.results_dir)
    report.cache_hits += 1
    return True


def _restore(sub: SubmissionResult, hit: ResultsHandle, results_dir: Path | None) -> None:
    """A cache hit: keep the entry's handle, and copy the cached results file's bytes to `--out` (never parsed)."""
    sub.cached, sub.results = True, hit
    sub.runs = list(hit.summary.runs)
    sub.findings = [Finding(f.path, f.line, f.message, f.severity) for f in hit.summary.findings]
    if results_dir is not None and hit.path is not None:
        results_dir.mkdir(parents=True, exist_ok=True)
        # the cache holds the canonical bytes `write_results` writes
        shutil.copyfile(hit.path, results_dir / f"{hit.summary.submission_id}.json")


def _write_index(subs: list[SubmissionResult], results_dir: Path) -> None:
    """`index.json` and `boards.json` of `results_dir`, from the summaries of the files written now (none is read back)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    summaries = [s.results.summary for s in subs if s.results is not None]
    ids = Counter(s.submission_id for s in summaries)
    write_index(results_dir, {f"{s.submission_id}.json": index_row(s, f"{s.submission_id}.json")
                              for s in summaries if ids[s.submission_id] == 1})
    write_boards([s for s in summaries if ids[s.submission_id] == 1], results_dir)


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
    return {sub.results.summary.submission_id for sub in report.submissions if sub.results is not None}


# --------------------------------------------------------------------------- scheduling


def _score(work: list[Job], sets: _Worker, jobs: int, progress: Progress | None) -> dict[int, SubmissionResult]:
    """Score every job, `jobs` processes at a time; slot -> the verified submission.

    `sets`: the problem and task sets every task reads.

    `progress` is told (bytes of logs read, bytes of logs to read) as logs are read, in this process
    and in the workers alike (`checker.format.progress`): a long run moves it as it goes.
    """
    parts = _parts(work, jobs)
    tally = _Tally(progress, sum(_log_bytes(p.logs) for p in parts))
    out: dict[int, SubmissionResult] = {}
    left = Counter(p.job.slot for p in parts)
    for part, done in zip(parts, _schedule(parts, sets, jobs, tally), strict=True):
        slot = part.job.slot
        if part.whole:
            out[slot] = done
            continue
        # one run of a submission scored in a worker: the submission is completed here, with its last run
        into = out.get(slot)
        if into is None:
            into = out[slot] = replace(part.job.sub, runs=list(part.job.sub.runs), findings=list(part.job.sub.findings))
        into.findings.extend(done.findings)
        into.runs.extend(done.runs)
        left[slot] -= 1
        if not left[slot]:
            _complete(into, part.job)
    tally.reach(tally.total)
    return out


def _parts(work: list[Job], jobs: int) -> list[Part]:
    """What each task scores: a whole submission; single runs when there are fewer submissions than workers.

    Largest first (bytes of logs): the last tasks to finish are the small ones.
    """
    split = jobs > 1 and len(work) < jobs
    parts: list[Part] = []
    for job in sorted(work, key=lambda j: -_log_bytes(j.logs)):
        if split and len(job.logs) > 1:
            parts.extend(Part(job, (log,), False) for log in job.logs)
        else:
            parts.append(Part(job, job.logs, True))
    return parts


def _log_bytes(logs: Iterable[Log]) -> int:
    total = 0
    for path, _display in logs:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


class _Tally:
    """Bytes of logs read so far, told to `progress` whenever the count grows (from 0 of `total`)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0
        if progress is not None and total:
            progress(0, total)

    @property
    def wanted(self) -> bool:
        return self.progress is not None and self.total > 0

    def reach(self, done: int) -> None:
        done = min(done, self.total)  # a log that grew after it was weighed never overshoots
        if done > self.done:
            self.done = done
            if self.progress is not None:
                self.progress(done, self.total)

    def add(self, delta: int) -> None:
        self.reach(self.done + delta)


POLL_SECONDS = 0.25
"""How often the pool's progress is read while a worker reads a log."""


def _schedule(parts: list[Part], sets: _Worker, jobs: int, tally: _Tally) -> Iterator[SubmissionResult]:
    """The one scheduler: `_verify_part` over `parts`, in order; in this process, or in a pool with `jobs` > 1.

    Bytes read reach `tally` from this process's meter directly; workers add theirs to a shared
    counter, which is read every `POLL_SECONDS` while a result is awaited.
    """
    if jobs <= 1 or len(parts) <= 1:
        _init_worker(sets.problem_sets, sets.task_sets, None)
        set_meter(tally.add if tally.wanted else None)
        try:
            yield from map(_verify_part, parts)
        finally:
            set_meter(None)
        return
    # imported here: the process pool (multiprocessing, logging) is ~15 ms of start-up that `--jobs 1` never uses
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context()
    counter = context.Value("q", 0) if tally.wanted else None
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                             initargs=(sets.problem_sets, sets.task_sets, counter)) as pool:
        for future in [pool.submit(_verify_part, part) for part in parts]:
            while counter is not None:
                try:
                    future.result(timeout=POLL_SECONDS)
                    break
                except TimeoutError:
                    tally.reach(counter.value)
            if counter is not None:
                tally.reach(counter.value)
            yield future.result()


@dataclass
class _Worker:
    """What every task of a process reads: the problem sets, the task sets, and whom to tell of each run scored."""

    problem_sets: Mapping[str, Any] = field(default_factory=dict)
    """Constraint problem sets: digest -> problem set (`checker.constraint.problem_sets`)."""
    task_sets: Mapping[str, Any] = field(default_factory=dict)
    """Completion task sets: digest -> task set, each loaded on first use (`checker.completion.tasks`)."""


_WORKER = _Worker()


def _init_worker(problem_sets: Mapping[str, Any], task_sets: Mapping[str, Any], counter: Any | None) -> None:
    """A process's sets, and (in a worker) the shared counter its bytes of logs read are added to."""
    _WORKER.problem_sets, _WORKER.task_sets = problem_sets, task_sets
    if counter is not None:
        def report(delta: int) -> None:
            with counter.get_lock():
                counter.value += delta

        set_meter(report)


def _verify_part(part: Part) -> SubmissionResult:
    """The task: score a part's runs into its submission, and complete the submission when the part is whole.

    Runs in a worker process when jobs > 1; its input is never changed (in a worker it is a
    copy anyway). A whole part comes back verified, holding its results' summary only; a single
    run of a larger submission comes back as that run and its findings.
    """
    sub = part.job.sub
    out = replace(sub, runs=list(sub.runs) if part.whole else [], findings=list(sub.findings) if part.whole else [])
    owner = (sub.manifest.id, sub.manifest.track) if sub.manifest is not None else None
    for path, display in part.logs:
        with reading(_log_bytes([(path, display)])):
            findings, run = _score_task(ScoreTask(path, display, sub.profile, sub.prereg, owner))
        out.findings.extend(findings)
        out.runs.append(run)
    if part.whole:
        _complete(out, part.job)
    return out


def _complete(sub: SubmissionResult, job: Job) -> None:
    """Finish a scored submission: runs in path order, copies marked; build and store its results file.

    The results file is stored where the job says (cache, `--out`) and only its handle kept;
    then the scorers release what they kept for this submission.
    """
    sub.runs.sort(key=lambda r: r.path)  # also without a manifest: its runs are reported
    sub.runs, copy_findings = mark_copies(sub.path, sub.runs, sub.prereg)  # a copy counts once
    sub.findings.extend(copy_findings)
    if sub.manifest is not None:
        findings = [FindingRecord.model_validate(f.to_json())
                    for f in sorted(sub.findings, key=lambda f: (f.path, f.line or 0, f.message))]
        text: list[str] = []
        # the commit-order check reads the submission's own repository (the cache key covers it)
        full = build_results(sub, findings, repository(Path(sub.path)), text)
        sub.results = _store(full, text[0], job.key, job.stores)
        sub.runs = list(sub.results.summary.runs)
    release_scorers()


def _store(full: ResultsFile, text: str, key: str | None, stores: Stores) -> ResultsHandle:
    """Write a results file (its canonical bytes, `text`) to the cache and `--out`; its handle."""
    path = None
    if stores.cache_dir is not None and key is not None:
        cache_put(stores.cache_dir, key, full, text)
        path = stores.cache_dir / f"{key}.json"
    if stores.results_dir is not None:
        stores.results_dir.mkdir(parents=True, exist_ok=True)
        written = stores.results_dir / f"{full.submission_id}.json"
        written.write_text(text, encoding="utf-8")  # the bytes `write_results` writes
        path = path or written
    return ResultsHandle.of(full, path)


# --------------------------------------------------------------------------- one run


@dataclass(frozen=True)
class ScoreTask:
    """One run log to score, and what its submission says about it."""

    path: Path
    shown: str
    """The display path."""
    profile: str
    prereg: Prereg | None
    owner: tuple[str, str] | None
    """(manifest id, track) of its submission; None for a loose run file."""


def _score_task(task: ScoreTask) -> tuple[list[Finding], RunResult]:
    """Validate, read and score one run log.

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
    info, kept, findings, refusing = _validated(task)
    if refusing:
        # what the header says (when it could be read) keeps the run in its declared slot: counted as worst, not missing
        return findings, judged_run([Fact("malformed", f.render()) for f in refusing],
                                    path=task.shown, cell=info.cell, seed=info.seed, track=info.track)
    over = None if kept.complete else over_replay_limit(task.path)
    if over is not None:
        return findings, _too_large(task, info, over, findings)
    record = kept_record(kept, task.shown) if kept.complete else read_run(task.path, task.shown)
    return findings, _score_record(record, task, findings)


def _validated(task: ScoreTask) -> tuple[RunInfo, KeptLog, list[Finding], list[Finding]]:
    """Validate one log: (its header, its events when kept, the findings to report, the findings that refuse it).

    One pass: validation keeps the events of a log small enough to replay (a larger one is not kept).
    A run without `run_end` is reported by its verdict (INCOMPLETE), not by a finding of its own.
    """
    vreport = ValidationReport()
    kept = KeptLog(max_weight=logio.MAX_REPLAY_BYTES, container_bytes=REPLAY_CONTAINER_BYTES)
    info = validate_run_file(task.path, task.shown, vreport, kept)
    if task.owner is not None and not vreport.unreadable:
        # a header naming another submission or track is a copied run: not scored here
        vreport.findings.extend(header_mismatches(info, *task.owner))
    blocking = [f for f in vreport.findings if f.message != INCOMPLETE_MESSAGE]
    return info, kept, vreport.unreadable + (vreport.findings if blocking else []), blocking + vreport.unreadable


def _too_large(task: ScoreTask, info: RunInfo, over: tuple[int, int, int, int], findings: list[Finding]) -> RunResult:
    """An over-size log (`over`: size, containers, weight, limit): validated (streamed) but not scored, UNVERIFIED.

    Replaying holds every event in memory; the finding saying so is added to `findings`.
    """
    size, containers, weight, limit = over
    message = (f"too large to replay: {size} bytes and {containers} JSON objects/arrays make a replay size "
               f"of {weight} (bytes + {REPLAY_CONTAINER_BYTES} per object/array), above the limit of "
               f"{limit}; the log's chain and events are valid, but it is not scored (UNVERIFIED)")
    findings.append(Finding(task.shown, None, message))
    return judged_run([Fact("unverified", message)], path=task.shown, log_sha256=log_sha256(task.path),
                      run_id=info.run_id, cell=info.cell, seed=info.seed, track=info.track,
                      prereg_sha256=info.prereg_sha256)


def _score_record(record: RunRecord, task: ScoreTask, findings: list[Finding]) -> RunResult:
    """Score a read run with its track's scorer; the scorer's own findings are added to `findings`."""
    start = record.start
    try:
        ctx = VerifyContext(task.profile, task.prereg, _WORKER.problem_sets, _WORKER.task_sets)
        result = scorer_for(start.track).score_run(record, ctx)
    except MissingInputError as exc:
        findings.append(Finding(task.shown, 1, str(exc)))
        result = judged_run(
            [Fact("unverified", str(exc))], path=task.shown, log_sha256=record.sha256, run_id=start.run_id,
            cell=start.cell, seed=start.seed, track=start.track, prereg_sha256=start.prereg_sha256,
            comparator=start.comparator, problem_set=start.problem_set.digest if start.problem_set else None)
    # a scorer's own findings (e.g. a declared ledger missing): they fail verification like format problems
    findings.extend(Finding(task.shown, f.line, f.message, f.severity) for f in result.findings)
    # a reproduction profile keeps the reference system's trust, never silently (issue 29)
    profile = result.profile or task.profile
    if (disagreement := disagreement_finding(task.shown, profile, result.mismatches)) is not None:
        findings.append(disagreement)
    return result.model_copy(update={
        "findings": [], "content_sha256": record.content_sha256,
        "content_sketch": record.content_sketch, "inputs_sha256": inputs_digest(start),
        "game_id": start.game_id if start.track == "agent" else None,
        # the model the header names, on every track (the agent scorer leaves it out): a declared price applies to it
        "backbone": result.backbone or start.backbone,
        "model_recorded": recorded_model(start.source, result.backbone or start.backbone)})
