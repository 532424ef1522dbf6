"""The verify pipeline: load -> validate -> replay -> gate -> score -> aggregate -> results.

Runs with format problems are not scored (their findings are reported); a run without
`run_end` is scored and marked INCOMPLETE. Results are cached by the digests of every input,
so unchanged submissions are not recomputed; runs can be scored in parallel (`jobs`) and a full
re-verification can be split across machines (`shard`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.errors import Finding, MissingInputError
from checker.load import discover, load_submission
from checker.logio import file_sha256, read_events
from checker.schema.common import RunEnd, RunStart
from checker.schema.events import Event
from checker.schema.manifest import Prereg, Submission
from checker.tracks import RunRecord, TrackScorer, VerifyContext
from checker.validate import INCOMPLETE_MESSAGE, ValidationReport, validate_run_file

SCORER_BY_TRACK = {"agent": "checker.score.agent", "constraint": "checker.score.constraints"}


def scorer_for(track: str) -> TrackScorer:
    """The scoring module of a track."""
    module: Any = importlib.import_module(SCORER_BY_TRACK[track])
    return module


@dataclass
class SubmissionResult:
    """What verify found for one submission folder (or a set of loose run files)."""

    path: str
    manifest: Submission | None
    prereg: Prereg | None
    profile: str
    runs: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    cached: bool = False
    results: Any = None
    """The `ResultsFile` written for this submission (None for loose run files)."""


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

    Raises:
        UsageError: a path does not exist, or a problem-set path cannot be read.
    """
    from checker.results import in_shard

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
        result = SubmissionResult(display, loaded.manifest, loaded.prereg, chosen, findings=list(loaded.findings))
        shown = [(p, f"{display}/{p.relative_to(target.path).as_posix()}") for p in loaded.run_paths]
        key = None
        if cache_dir is not None and loaded.manifest is not None:
            key = _cache_key(target.path, shown, chosen, problem_sets)
            cached = _cache_get(cache_dir, key)
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
    _score_all(pending, problem_sets, jobs)
    root = _git_root()
    for result, _shown, key in pending:
        _finish(result, root, cache_dir, key)
    for sub in report.submissions:
        report.unreadable.extend(f for f in sub.findings if f.unreadable)
        report.findings.extend(f for f in sub.findings if not f.unreadable)
        if sub.results is not None:
            from checker.results import results_problems

            report.findings.extend(Finding(f"{sub.path}", None, msg) for msg in results_problems(sub.results))
            if results_dir is not None:
                from checker.results import write_results

                write_results(sub.results, results_dir)
    if results_dir is not None and shard is None:
        from checker.results import write_index

        results_dir.mkdir(parents=True, exist_ok=True)
        write_index(results_dir)
    return report


def verify_to_results(
    paths: list[Path], results_dir: Path, profile: str | None, problem_dirs: list[Path] | None, jobs: int,
    shard: tuple[int, int] | None, use_cache: bool,
) -> VerifyReport:
    """Verify and write results files (the `build` command's way to get fresh results)."""
    return verify_paths(paths, profile, problem_dirs if problem_dirs is not None else default_problem_dirs(),
                        jobs=jobs, shard=shard, cache_dir=default_cache_dir() if use_cache else None,
                        results_dir=results_dir)


def default_cache_dir() -> Path:
    """The verification cache: `$DRIFTBOARD_CACHE_DIR`, else `~/.cache/driftboard`.

    It lives outside the repository on purpose: a cache inside the tree could be committed, and
    a forged cache entry would publish numbers no log backs.
    """
    env = os.environ.get("DRIFTBOARD_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "driftboard"
PROBLEMS_ROOT = Path("problems")
"""Problem sets shipped with the repository (one sub-folder each), used when `--problems` is not given."""


def default_problem_dirs() -> list[Path]:
    """Each sub-folder of the repository's `problems/` that holds problem files, as its own set."""
    if not PROBLEMS_ROOT.is_dir():
        return []
    return [p for p in sorted(PROBLEMS_ROOT.iterdir()) if p.is_dir() and any(p.glob("*.json"))]


def _score_all(pending: list[tuple[SubmissionResult, list[tuple[Path, str]], str | None]],
               problem_sets: dict[str, Any], jobs: int) -> None:
    tasks = []
    for n, (result, shown, _key) in enumerate(pending):
        for path, display in shown:
            tasks.append((n, path, display, result.profile, result.prereg))
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(problem_sets,)) as pool:
            outcomes = list(pool.map(_score_task, tasks, chunksize=1))
    else:
        _init_worker(problem_sets)
        outcomes = [_score_task(t) for t in tasks]
    for (n, _path, _display, _profile, _prereg), (findings, run_result) in zip(tasks, outcomes, strict=True):
        result = pending[n][0]
        result.findings.extend(findings)
        result.runs.append(run_result)


_WORKER_PROBLEM_SETS: dict[str, Any] = {}


def _init_worker(problem_sets: dict[str, Any]) -> None:
    global _WORKER_PROBLEM_SETS
    _WORKER_PROBLEM_SETS = problem_sets


def _score_task(task: tuple[int, Path, str, str, Prereg | None]) -> tuple[list[Finding], dict[str, Any]]:
    """Validate, read and score one run log (runs in a worker process when jobs > 1)."""
    _n, path, shown, profile, prereg = task
    vreport = ValidationReport()
    validate_run_file(path, shown, vreport)
    blocking = [f for f in vreport.findings if f.message != INCOMPLETE_MESSAGE]
    findings = vreport.unreadable + (vreport.findings if blocking else [])
    if blocking or vreport.unreadable:
        return findings, {"path": shown, "verdict": "MALFORMED", "reasons": [f.render() for f in blocking + vreport.unreadable]}
    record = read_run(path, shown)
    ctx = VerifyContext(profile=profile, prereg=prereg, problem_sets=_WORKER_PROBLEM_SETS)
    start = record.start
    try:
        run_result = scorer_for(start.track).score_run(record, ctx)
    except MissingInputError as exc:
        findings.append(Finding(shown, 1, str(exc)))
        run_result = {"verdict": "UNVERIFIED", "reasons": [str(exc)], "metrics": {}}
    for key, value in (("path", shown), ("log_sha256", record.sha256), ("run_id", start.run_id),
                       ("cell", start.cell), ("seed", start.seed), ("track", start.track),
                       ("prereg_sha256", start.prereg_sha256), ("comparator", start.comparator)):
        run_result.setdefault(key, value)
    if start.problem_set is not None:
        run_result.setdefault("problem_set", start.problem_set.digest)
    return findings, run_result


def _finish(result: SubmissionResult, root: Path | None, cache_dir: Path | None, key: str | None) -> None:
    from checker.results import build_results, canonical_json

    if result.manifest is None:
        return
    result.runs.sort(key=lambda r: str(r.get("path")))
    findings = [f.to_json() for f in sorted(result.findings, key=lambda f: (f.path, f.line or 0, f.message))]
    result.results = build_results(result, findings, root)
    if cache_dir is not None and key is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        (cache_dir / f"{key}.json").write_text(canonical_json(result.results.model_dump(mode="json")), encoding="utf-8")


def _restore(result: SubmissionResult, cached: Any) -> None:
    result.cached = True
    result.results = cached
    result.runs = list(cached.runs)
    result.findings = [Finding(f["path"], f["line"], f["message"], f.get("severity", "error")) for f in cached.findings]


def _cache_key(root: Path, shown: list[tuple[Path, str]], profile: str, problem_sets: dict[str, Any]) -> str:
    from checker.results import cache_key

    def sha(p: Path) -> str | None:
        return file_sha256(p) if p.is_file() else None

    return cache_key({
        "submission": root.as_posix(),
        "manifest": sha(root / "submission.yaml"),
        "prereg": sha(root / "prereg.yaml"),
        "logs": {display: sha(path) for path, display in shown},
        "problem_sets": sorted(problem_sets),
        "profile": profile,
        "git": _git_first_commits(root),
    })


def _cache_get(cache_dir: Path, key: str) -> Any:
    from checker.results_model import ResultsFile

    path = cache_dir / f"{key}.json"
    if not path.exists():
        return None
    try:
        return ResultsFile.model_validate_json(path.read_bytes())
    except ValueError:
        return None


def _git_root() -> Path | None:
    out = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False)
    return Path(out.stdout.strip()) if out.returncode == 0 else None


def _git_first_commits(root: Path) -> str | None:
    """Digest of the commits that added each file of the submission (feeds the commit-order check)."""
    out = subprocess.run(["git", "-C", str(root), "log", "--diff-filter=A", "--name-only", "--format=%H", "--", "."],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None
    return hashlib.sha256(out.stdout.encode()).hexdigest()


def read_run(path: Path, shown: str) -> RunRecord:
    """Read a validated run log into a `RunRecord`."""
    start: RunStart | None = None
    end: RunEnd | None = None
    events: list[Event] = []
    lines: list[int] = []
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


def report_json(report: VerifyReport) -> dict[str, Any]:
    """The `--format json` document's submission part."""
    subs = []
    for s in report.submissions:
        entry: dict[str, Any] = {"path": s.path, "submission_id": s.manifest.id if s.manifest else None,
                                 "profile": s.profile, "cached": s.cached, "runs": s.runs}
        if s.results is not None:
            doc = json.loads(s.results.model_dump_json())
            for key in ("cells", "claims", "prereg_check", "defeaters", "predictions", "null_results", "digest"):
                entry[key] = doc[key]
        subs.append(entry)
    return {"submissions": subs, "cache": {"hits": report.cache_hits, "misses": report.cache_misses}}
