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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypedDict

from checker.format import logio
from checker.format.errors import Finding, MissingInputError
from checker.format.logio import REPLAY_CONTAINER_BYTES, file_sha256, over_replay_limit, read_events
from checker.format.progress import Progress
from checker.format.results_model import FindingRecord, ResultsFile, RunResult, SubmissionReport
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.common import RunEnd, RunStart
from checker.format.schema.events import Event
from checker.format.schema.manifest import Prereg, Submission
from checker.pipeline.boards import write_boards
from checker.pipeline.cache import cache_put, cached_results, default_cache_dir, repository, submission_cache_key
from checker.pipeline.handle import ResultsHandle
from checker.pipeline.results import build_results, index_row, results_problems, write_index
from checker.pipeline.scorers import release_scorers, scorer_for
from checker.pipeline.shard import in_shard
from checker.stages.copies import PayloadDigest, copies_across, inputs_digest, mark_copies
from checker.stages.load import Target, discover, load_submission
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
    work = _plan(discover(paths), profile, shard, problem_sets, Stores(cache_dir, results_dir), report)
    for slot, verified in _score(work, problem_sets, jobs, progress).items():
        report.submissions[slot] = verified
    _gather_findings(report)
    if results_dir is not None and shard is None:
        _write_index(report.submissions, results_dir)
    return report


def _plan(targets: list[Target], profile: str | None, shard: tuple[int, int] | None,
          problem_sets: Mapping[str, Any], stores: Stores, report: VerifyReport) -> list[Job]:
    """Load every submission of the shard into `report`, restore the cached ones; the others (and loose logs) to score."""
    work: list[Job] = []
    roots, loose = _targets(targets, shard)
    for root in roots:
        sub, logs, key = _load(root, profile, problem_sets, stores.cache_dir)
        report.submissions.append(sub)
        if not _from_cache(sub, key, stores, report):
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


def _load(root: Path, profile: str | None, problem_sets: Mapping[str, Any],
          cache_dir: Path | None) -> tuple[SubmissionResult, tuple[Log, ...], str | None]:
    """Load one submission folder: what it is (run files refused are reported MALFORMED), its logs, its cache key."""
    display = root.as_posix()
    loaded = load_submission(root, display)
    chosen = profile or (loaded.prereg.profile if loaded.prereg else "driftboard")
    sub = SubmissionResult(display, loaded.manifest, loaded.prereg, chosen, findings=list(loaded.findings),
                           prereg_sha256=loaded.prereg_sha256)
    # run files found but not read (links, FIFOs, unlisted...) are reported too: runs in = runs reported
    sub.runs.extend(judged_run([Fact("malformed", f"{display}/{rel}: {why}")], path=f"{display}/{rel}")
                    for rel, why in loaded.refused_runs)
    logs = tuple((p, f"{display}/{p.relative_to(root).as_posix()}") for p in loaded.run_paths)
    key = None
    if cache_dir is not None and loaded.manifest is not None:
        key = submission_cache_key(loaded, list(logs), chosen, problem_sets)
    return sub, logs, key


def _from_cache(sub: SubmissionResult, key: str | None, stores: Stores, report: VerifyReport) -> bool:
    """Restore `sub` from the cache when its key is there (counted as a hit, else as a miss); False: not restored."""
    if stores.cache_dir is None or key is None:
        return False
    hit = cached_results(stores.cache_dir, key)
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


def _gather_findings(report: VerifyReport) -> None:
    """The report's findings: across submissions (never stored in a results file), then each submission's."""
    report.findings.extend(duplicate_runs(report.submissions))
    for sub in report.submissions:
        report.unreadable.extend(f for f in sub.findings if f.unreadable)
        report.findings.extend(f for f in sub.findings if not f.unreadable)
        if sub.results is not None:
            report.findings.extend(Finding(sub.path, None, msg) for msg in results_problems(sub.results.summary))


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


PROBLEMS_ROOT = Path("problems")
"""Problem sets shipped with the repository (one sub-folder each), used when `--problems` is not given."""


def default_problem_dirs() -> list[Path]:
    """Each sub-folder of the repository's `problems/` that holds problem files (at any depth), as its own set.

    A set may keep its splits in sub-folders (`problems/drift-bench-v1/{dev,test}`): the folder is
    one set, and each split of it one more (see `checker.constraint.problems.load_problem_sets`).
    """
    if not PROBLEMS_ROOT.is_dir():
        return []
    return [p for p in sorted(PROBLEMS_ROOT.iterdir()) if p.is_dir() and any(p.rglob("*.json"))]


# --------------------------------------------------------------------------- scheduling


def _score(work: list[Job], problem_sets: Mapping[str, Any], jobs: int,
           progress: Progress | None) -> dict[int, SubmissionResult]:
    """Score every job, `jobs` processes at a time; slot -> the verified submission.

    `progress` is told (runs scored, runs to score) as parts complete, and after every run
    scored in this process.
    """
    parts = _parts(work, jobs)
    tally = _Tally(progress, sum(len(p.logs) for p in parts))
    out: dict[int, SubmissionResult] = {}
    left = Counter(p.job.slot for p in parts)
    scored = 0
    for part, done in zip(parts, _schedule(parts, problem_sets, jobs, tally.next), strict=True):
        scored += len(part.logs)
        tally.reach(scored)
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
    """Runs scored so far, told to `progress` whenever the count grows (from 0 of `total`)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0
        if progress is not None and total:
            progress(0, total)

    def reach(self, done: int) -> None:
        if done > self.done:
            self.done = done
            if self.progress is not None:
                self.progress(done, self.total)

    def next(self) -> None:
        self.reach(self.done + 1)


def _schedule(parts: list[Part], problem_sets: Mapping[str, Any], jobs: int,
              on_run: Callable[[], None]) -> Iterator[SubmissionResult]:
    """The one scheduler: `_verify_part` over `parts`, in order; a plain map, or a pool's map with `jobs` > 1.

    Each run scored in this process calls `on_run` (workers report per part, as it comes back).
    """
    if jobs <= 1 or len(parts) <= 1:
        _init_worker(problem_sets, on_run)
        yield from map(_verify_part, parts)
        return
    # imported here: the process pool (multiprocessing, logging) is ~15 ms of start-up that `--jobs 1` never uses
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(problem_sets, None)) as pool:
        yield from pool.map(_verify_part, parts, chunksize=1)


@dataclass
class _Worker:
    """What every task of a process reads: the problem sets, and whom to tell of each run scored."""

    problem_sets: Mapping[str, Any] = field(default_factory=dict)
    on_run: Callable[[], None] | None = None


_WORKER = _Worker()


def _init_worker(problem_sets: Mapping[str, Any], on_run: Callable[[], None] | None) -> None:
    _WORKER.problem_sets, _WORKER.on_run = problem_sets, on_run


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
        findings, run = _score_task(ScoreTask(path, display, sub.profile, sub.prereg, owner))
        out.findings.extend(findings)
        out.runs.append(run)
        if _WORKER.on_run is not None:
            _WORKER.on_run()
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


def kept_record(kept: KeptLog, shown: str) -> RunRecord:
    """The `RunRecord` of a log whose events validation kept (the same record `read_run` reads)."""
    return RunRecord(path=shown, sha256=kept.sha256, start=kept.start, end=kept.end, events=kept.events,
                     lines=kept.lines, content_sha256=kept.content_sha256)


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
    return judged_run([Fact("unverified", message)], path=task.shown, log_sha256=file_sha256(task.path),
                      run_id=info.run_id, cell=info.cell, seed=info.seed, track=info.track,
                      prereg_sha256=info.prereg_sha256)


def _score_record(record: RunRecord, task: ScoreTask, findings: list[Finding]) -> RunResult:
    """Score a read run with its track's scorer; the scorer's own findings are added to `findings`."""
    start = record.start
    try:
        result = scorer_for(start.track).score_run(record, VerifyContext(task.profile, task.prereg,
                                                                         _WORKER.problem_sets))
    except MissingInputError as exc:
        findings.append(Finding(task.shown, 1, str(exc)))
        result = judged_run(
            [Fact("unverified", str(exc))], path=task.shown, log_sha256=record.sha256, run_id=start.run_id,
            cell=start.cell, seed=start.seed, track=start.track, prereg_sha256=start.prereg_sha256,
            comparator=start.comparator, problem_set=start.problem_set.digest if start.problem_set else None)
    # a scorer's own findings (e.g. a declared ledger missing): they fail verification like format problems
    findings.extend(Finding(task.shown, f.line, f.message, f.severity) for f in result.findings)
    return result.model_copy(update={
        "findings": [], "content_sha256": record.content_sha256, "inputs_sha256": inputs_digest(start),
        "game_id": start.game_id if start.track == "agent" else None})


# --------------------------------------------------------------------------- across submissions, reports


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
    """Digest -> problem set, each path read only when a run needs it (`checker.constraint.problem_sets`)."""
    if not paths:
        return {}
    from checker.constraint.problem_sets import LazyProblemSets

    return LazyProblemSets(paths)


class VerifyJson(TypedDict):
    """The `--format json` document's submission part (beside the findings `findings_json` writes)."""

    submissions: list[dict[str, object]]
    """One `checker.format.results_model.SubmissionReport` each, as JSON."""
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
