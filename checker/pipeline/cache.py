"""The verification cache: keys over every input of a submission, and cached results files.

A key is the SHA-256 of the digests of every input (manifest, prereg, logs, problem sets,
profile, git history) plus the checker's version and code, so an entry is reused only when
nothing that could change the results file has changed. An entry is the results file and its
summary beside it; a hit is read as a `ResultsHandle` (the summary only).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from checker import __version__
from checker.format.logio import file_sha256
from checker.format.results_io import canonical_json
from checker.format.results_model import ResultsFile
from checker.format.results_summary import SUMMARY_SUFFIX, read_summary, summarize, summary_json
from checker.pipeline.handle import ResultsHandle
from checker.stages.load import SubmissionFiles


def default_cache_dir() -> Path:
    """The verification cache: `$DRIFTBOARD_CACHE_DIR`, else `~/.cache/driftboard`.

    It lives outside the repository on purpose: a cache inside the tree could be committed, and
    a forged cache entry would publish numbers no log backs.
    """
    env = os.environ.get("DRIFTBOARD_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "driftboard"


def cache_key(parts: dict[str, Any]) -> str:  # any JSON-able digests of inputs
    """Key of the verification cache: digests of every input plus the checker's version and code."""
    return hashlib.sha256(
        canonical_json({"checker_version": __version__, "checker_code": checker_code_digest(), **parts}).encode()
    ).hexdigest()


NUMBER_MODULES: tuple[str, ...] = (
    "checker",
    "checker.agent",
    "checker.agent.evidence",
    "checker.agent.evidence.aim",
    "checker.agent.evidence.canary",
    "checker.agent.evidence.contradiction",
    "checker.agent.evidence.digests",
    "checker.agent.evidence.receipts",
    "checker.agent.evidence.references",
    "checker.agent.evidence.write_ops",
    "checker.agent.evidence_pool",
    "checker.agent.figures",
    "checker.agent.gate",
    "checker.agent.gate.canary_echo",
    "checker.agent.gate.condition",
    "checker.agent.gate.evidence",
    "checker.agent.gate.render_ceiling",
    "checker.agent.gate.shadow_identity",
    "checker.agent.gate.silent_degrade",
    "checker.agent.gate.startup_probe",
    "checker.agent.gate.write_error_rate",
    "checker.agent.gds",
    "checker.agent.grounding",
    "checker.agent.metrics",
    "checker.agent.metrics.chain",
    "checker.agent.metrics.counts",
    "checker.agent.metrics.efficiency",
    "checker.agent.metrics.lifecycle",
    "checker.agent.metrics.render",
    "checker.agent.metrics.write_path",
    "checker.agent.milestones",
    "checker.agent.replay",
    "checker.agent.scorer",
    "checker.completion",
    "checker.completion.claims",
    "checker.completion.domains",
    "checker.completion.domains.airline",
    "checker.completion.domains.base",
    "checker.completion.episode",
    "checker.completion.metrics",
    "checker.completion.replay",
    "checker.completion.scorer",
    "checker.completion.statements",
    "checker.completion.tasks",
    "checker.constraint",
    "checker.constraint.answers",
    "checker.constraint.commitments",
    "checker.constraint.coverage",
    "checker.constraint.domains",
    "checker.constraint.domains.base",
    "checker.constraint.domains.finite",
    "checker.constraint.domains.logic_grid",
    "checker.constraint.domains.scheduling",
    "checker.constraint.domains.seating",
    "checker.constraint.domains.solver",
    "checker.constraint.metrics",
    "checker.constraint.problem_sets",
    "checker.constraint.problems",
    "checker.constraint.ranked",
    "checker.constraint.scorer",
    "checker.constraint.turns",
    "checker.format",
    "checker.format.beat_outcomes",
    "checker.format.boards_model",
    "checker.format.cost",
    "checker.format.cell_tables",
    "checker.format.errors",
    "checker.format.gate_results",
    "checker.format.identity",
    "checker.format.logio",
    "checker.format.metric_names",
    "checker.format.metricdef",
    "checker.format.names",
    "checker.format.numbers",
    "checker.format.progress",
    "checker.format.report",
    "checker.format.results_completion",
    "checker.format.results_io",
    "checker.format.results_model",
    "checker.format.results_sniff",
    "checker.format.results_summary",
    "checker.format.scan",
    "checker.format.scan.chain",
    "checker.format.scan.lines",
    "checker.format.scan.parsers",
    "checker.format.scan.scanner",
    "checker.format.schema",
    "checker.format.schema.agent",
    "checker.format.schema.agent_calls",
    "checker.format.schema.agent_fields",
    "checker.format.schema.agent_loop",
    "checker.format.schema.agent_state",
    "checker.format.schema.base",
    "checker.format.schema.common",
    "checker.format.schema.completion",
    "checker.format.schema.constraint",
    "checker.format.schema.events",
    "checker.format.schema.labels",
    "checker.format.schema.manifest",
    "checker.format.seeds",
    "checker.format.storage",
    "checker.format.verify_document",
    "checker.pipeline",
    "checker.pipeline.binding",
    "checker.pipeline.boards",
    "checker.pipeline.cache",
    "checker.pipeline.handle",
    "checker.pipeline.inputs",
    "checker.pipeline.metrics",
    "checker.pipeline.provenance",
    "checker.pipeline.report",
    "checker.pipeline.results",
    "checker.pipeline.run_log",
    "checker.pipeline.scorers",
    "checker.pipeline.shard",
    "checker.pipeline.verify",
    "checker.stages",
    "checker.stages.aggregate",
    "checker.stages.boards",
    "checker.stages.copies",
    "checker.stages.fetch",
    "checker.stages.files",
    "checker.stages.load",
    "checker.stages.manifest_yaml",
    "checker.stages.near_copies",
    "checker.stages.precheck",
    "checker.stages.preregistration",
    "checker.stages.reproduction",
    "checker.stages.rules",
    "checker.stages.statistics",
    "checker.stages.tracks",
    "checker.stages.validate",
    "checker.stages.verdict",
)
"""The modules whose code can change a results file: everything the verify pipeline imports.

The import closure of `checker.pipeline.verify` (the track scorers included: `checker.pipeline.scorers`),
with the packages that hold them; `tests/test_cache.py` checks it against the import graph, so
it cannot drift. The page templates, renderer, command line, importers, baselines and
benchmarks are outside it: editing them reuses every cached verification.
"""


def module_file(package_dir: Path, module: str) -> Path:
    """The source file of `module` (`checker.x.y`) under the `checker` package folder `package_dir`."""
    parts = module.split(".")[1:]
    folder = package_dir.joinpath(*parts)
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def code_digest(package_dir: Path, modules: tuple[str, ...] = NUMBER_MODULES) -> str:
    """SHA-256 over the sources of `modules` (path and bytes of each, a missing file marked as such)."""
    h = hashlib.sha256()
    for module in sorted(modules):
        path = module_file(package_dir, module)
        data = path.read_bytes() if path.is_file() else None
        size = "missing" if data is None else str(len(data))  # length-prefixed: no two file sets collide
        h.update(f"{path.relative_to(package_dir).as_posix()}\0{size}\0".encode() + (data or b""))
    return h.hexdigest()


_CODE_DIGEST: list[str] = []


def checker_code_digest() -> str:
    """SHA-256 over the sources of the checker's code that decides numbers (`NUMBER_MODULES`).

    A change to that code never reuses stale results; a change anywhere else (pages, command
    line, benchmarks...) keeps the cache.
    """
    if not _CODE_DIGEST:
        _CODE_DIGEST.append(code_digest(Path(__file__).resolve().parents[1]))  # the `checker` package folder
    return _CODE_DIGEST[0]


def submission_cache_key(loaded: SubmissionFiles, shown: list[tuple[Path, str]], profile: str,
                         problem_sets: Mapping[str, Any], task_sets: Mapping[str, Any] | None = None) -> str:
    """Digests of every input of every check, as the load stage read them (nothing is re-read through a link).

    The files (manifest, prereg, logs, refused files), the profile and the thresholds and where
    they come from, the problem sets (digest and name: a finding names them), and what the
    commit-order check reads: whether the submission is in a git repository, which one, and its
    history there. The checker's version and code are added by `cache_key`.
    """
    prereg = loaded.prereg
    return cache_key({
        "submission": loaded.root.as_posix(),
        "manifest": loaded.manifest_sha256,
        "prereg": loaded.prereg_sha256,
        "logs": {display: _sha_or_none(path) for path, display in shown},
        "refused": loaded.refused_runs,
        # the sets' files (a lazy mapping's fingerprint: a digest means reading and validating every problem)
        "problem_sets": (getattr(problem_sets, "fingerprint", None)
                         or {digest: str(ps.name) for digest, ps in sorted(problem_sets.items())}),
        # completion task sets (database, policy, tasks): the same fingerprint over files, when any are given
        **({"task_sets": getattr(task_sets, "fingerprint", None)} if task_sets else {}),
        "profile": profile,
        "thresholds": prereg.thresholds.model_dump(mode="json") if prereg is not None else None,
        "thresholds_source": ("prereg" if prereg is not None and "thresholds" in prereg.model_fields_set
                              else "defaults"),
        "git": repository_state(loaded.root),
    })


def _sha_or_none(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def cache_get(cache_dir: Path, key: str) -> ResultsFile | None:
    """The cached results file under `key`, or None (absent or unreadable: a miss, never an error)."""
    path = cache_dir / f"{key}.json"
    if not path.exists():
        return None
    try:
        return ResultsFile.model_validate_json(path.read_bytes())
    except ValueError:
        return None


def cache_put(cache_dir: Path, key: str, results: ResultsFile, text: str | None = None) -> None:
    """Store a results file under `key` (canonical bytes), and its summary beside it.

    `text`: the results file's canonical JSON when the caller has it already. Each file is
    written to a temporary name and renamed into place, so a reader never sees a half-written
    entry (a summary is written last: its presence means the entry is complete).
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(cache_dir / f"{key}.json", text if text is not None else canonical_json(results.model_dump(mode="json")))
    _write_atomic(cache_dir / f"{key}{SUMMARY_SUFFIX}", summary_json(results))


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def cached_results(cache_dir: Path, key: str) -> ResultsHandle | None:
    """A handle to the results file cached under `key` (its summary read, the file itself stored there), or None.

    Reads the small summary only (`checker.format.results_summary`), never the full results file; an
    entry stored before summaries existed is read whole once and its summary written.
    """
    full = cache_dir / f"{key}.json"
    if not full.is_file():
        return None
    found = read_summary(cache_dir / f"{key}{SUMMARY_SUFFIX}")
    if found is None:
        results = cache_get(cache_dir, key)
        if results is None:
            return None
        _write_atomic(cache_dir / f"{key}{SUMMARY_SUFFIX}", summary_json(results))
        found = summarize(results)
    return ResultsHandle(*found, path=full)


def repository(folder: Path) -> Path | None:
    """The top folder of the git repository holding `folder`, or None when it is in none.

    The commit-order check reads this repository's history: the submission's own, wherever
    `driftboard verify` is started from.
    """
    out = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True, check=False)
    top = out.stdout.strip()
    return Path(top) if out.returncode == 0 and top else None


def repository_state(folder: Path) -> dict[str, str | None]:
    """What the commit-order check reads for `folder`: its repository (None: none, check skipped) and history."""
    root = repository(folder)
    if root is None:
        return {"repository": None, "history": None}
    return {"repository": root.as_posix(), "history": git_history(folder)}


def git_history(root: Path) -> str | None:
    """Digest of every commit touching the submission (with its parents), and of its uncommitted changes.

    It feeds the commit-order check, which looks at every change to `prereg.yaml`, not only its
    first, and at which commits descend from which (hence the parents, rewritten to the commits
    that touch the folder). None when there is no history (no repository, or no commit yet).
    """
    log = subprocess.run(["git", "-C", str(root), "log", "--parents", "--name-status", "--format=%H %P", "--", "."],
                         capture_output=True, check=False)
    if log.returncode != 0:
        return None
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "-z", "--", "."],
                            capture_output=True, check=False)
    return hashlib.sha256(log.stdout + b"\0\0" + status.stdout).hexdigest()
