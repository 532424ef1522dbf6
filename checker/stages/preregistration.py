"""Pre-registration enforcement.

Declared runs present, no undeclared runs, header digests, commit order; defeaters and
predictions evaluated; claimed figures compared with recomputed ones.
"""

from __future__ import annotations

import operator
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal, TypedDict

from checker.format.report import plural
from checker.format.results_model import CellResult, ClaimCheck, DefeaterResult, PredictionResult, PreregCheck, RunResult
from checker.format.schema.manifest import Defeater, Prereg, Submission
from checker.stages.aggregate import COUNTED_VERDICTS, is_number

OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt, "!=": operator.ne,
}


def check_declared(prereg: Prereg | None, runs: list[RunResult], prereg_sha256: str | None) -> PreregCheck:
    """Missing (declared, not reported), undeclared, and prereg-digest mismatches."""
    if prereg is None:
        return PreregCheck()
    return PreregCheck(missing=_missing(prereg, runs), undeclared=sorted(_undeclared(prereg, runs), key=lambda d: d["path"]),
                       digest_mismatch=sorted(_digest_mismatches(runs, prereg_sha256), key=lambda d: d["path"]))


def _missing(prereg: Prereg, runs: list[RunResult]) -> list[dict[str, str]]:
    """Declared (cell, seed) pairs no run reports (withdrawn seeds aside), in cell order."""
    reported = {(str(r.cell), str(r.seed)) for r in runs if r.cell is not None}
    return [
        {"cell": cell, "seed": seed, "status": "missing (not reported)"}
        for cell, spec in sorted(prereg.cells.items()) for seed in spec.seeds
        if (cell, seed) not in reported and seed not in spec.withdrawn
    ]


def _undeclared(prereg: Prereg, runs: list[RunResult]) -> list[dict[str, str]]:
    """Runs whose (cell, seed) the pre-registration does not declare."""
    declared = {(cell, seed) for cell, spec in prereg.cells.items() for seed in spec.seeds}
    return [
        {"run_id": str(r.run_id), "cell": str(r.cell), "seed": str(r.seed), "path": r.path}
        for r in runs
        if r.cell is not None and (str(r.cell), str(r.seed)) not in declared
    ]


def _digest_mismatches(runs: list[RunResult], prereg_sha256: str | None) -> list[dict[str, str]]:
    """Runs whose header names another pre-registration digest than `prereg.yaml`'s."""
    if prereg_sha256 is None:
        return []
    return [
        {"run_id": str(r.run_id), "path": r.path, "header": str(r.prereg_sha256), "prereg_yaml": prereg_sha256}
        for r in runs
        if r.prereg_sha256 is not None and r.prereg_sha256 != prereg_sha256
    ]


class CommitOrder(TypedDict, total=False):
    """`commit_order`'s answer (the results file's `prereg_check.commit_order`)."""

    status: Literal["ok", "together", "violated", "unknown"]
    """`together`: prereg.yaml reached the publishing branch in the same commit as run logs (not before them)."""
    detail: str
    prereg_commit: str
    runs: list[str]
    """Run logs committed before `prereg.yaml` (violated)."""
    edits: list[str]
    """Commits that changed `prereg.yaml` after run logs were committed (violated)."""


def commit_order(root: Path, prereg_path: Path, run_paths: list[Path],
                 referenced: Mapping[Path, str] | None = None) -> CommitOrder:
    """Was prereg.yaml committed before every run log, and left alone afterwards? Git ancestry, not clocks.

    The history read is the checked-out branch's *first-parent* history (the publishing branch's own
    commits and merges): a file "arrives" with the first-parent commit that adds it, so the commits of
    a merged pull request count as its merge, and a submitter's own commit order or dates inside a
    pull request decide nothing (integrity principle 8).

    Violations: prereg.yaml first committed after a run log (not an ancestor of the commit that
    added it); any later commit that changes prereg.yaml (edit, deletion, re-adding) after a
    commit that added a run log; an uncommitted change to prereg.yaml once run logs are committed.
    A commit that adds prereg.yaml and run logs together (imports do that, and so does one pull
    request adding both) is not a violation, but not "before" either: status `together`, which the
    results mark as written after the runs (`checker.pipeline.results`).

    A log stored by reference (`referenced`: its path -> the SHA-256 its `blobs:` entry declares)
    arrives with the first-parent commit that first adds that digest to `submission.yaml` beside
    `prereg.yaml` (its bytes are not in the repository, its declaration is).

    Returns {"status": "ok" | "together" | "violated" | "unknown", "detail": ...}.
    """
    git = _Git(root, prereg_path.with_name("submission.yaml"), referenced or {})
    if git("rev-parse", "--git-dir").returncode != 0:
        return {"status": "unknown", "detail": "no git history"}
    prereg_commit = git.first_commit(prereg_path)
    if prereg_commit is None:
        return {"status": "unknown", "detail": "prereg.yaml is not committed"}
    late, run_commits = git.runs_before(prereg_commit, run_paths)
    prereg_abs = str(prereg_path.resolve())
    edits = git.changes_after(run_commits, prereg_abs)
    dirty = bool(run_commits) and git("diff", "--quiet", "HEAD", "--", prereg_abs).returncode == 1
    if not (late or edits or dirty):
        if prereg_commit in run_commits:
            return {"status": "together", "prereg_commit": prereg_commit,
                    "detail": "prereg.yaml was committed together with run logs, not before them"}
        return {"status": "ok", "detail": "prereg.yaml committed before the run logs", "prereg_commit": prereg_commit}
    result: CommitOrder = {"status": "violated", "detail": order_detail(len(late), len(edits), dirty, prereg_path.as_posix()),
                           "prereg_commit": prereg_commit}
    if late:
        result["runs"] = late
    if edits:
        result["edits"] = sorted(edits)
    return result


class _Git:
    """`git -C root ...`, never raising on a non-zero exit."""

    def __init__(self, root: Path, manifest: Path | None = None, referenced: Mapping[Path, str] | None = None) -> None:
        self.root = root
        self.manifest = manifest
        self.referenced = referenced or {}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True, check=False)

    def first_commit(self, path: Path) -> str | None:
        """The first-parent commit that first added `path`, or None (not committed, or no history).

        First-parent: a merge brings every file its merged branch added, whatever that branch's own commits.
        """
        out = self("log", "--first-parent", "--diff-filter=A", "--format=%H", "--", str(path.resolve()))
        if out.returncode != 0:
            return None
        lines = out.stdout.split()
        return lines[-1] if lines else None

    def first_declaring(self, manifest: Path, digest: str) -> str | None:
        """The first-parent commit that first adds `digest` to `manifest` (a log stored by reference), or None."""
        out = self("log", "--first-parent", f"-S{digest}", "--format=%H", "--", str(manifest.resolve()))
        if out.returncode != 0:
            return None
        lines = out.stdout.split()
        return lines[-1] if lines else None

    def writes(self, path: Path) -> list[str]:
        """First-parent commits that added or modified `path`, newest first (a deletion writes no log)."""
        out = self("log", "--first-parent", "--diff-filter=AM", "--format=%H", "--", str(path.resolve()))
        return out.stdout.split() if out.returncode == 0 else []

    def runs_before(self, prereg_commit: str, run_paths: list[Path]) -> tuple[list[str], set[str]]:
        """(late run logs, every commit that wrote a run log: added it, or changed its bytes).

        A run log is late when `prereg_commit` is not an ancestor of the commit that first added it. Every commit
        that wrote a log is returned, not only the first: a log rewritten under an edited pre-registration was
        committed under that edit, whatever the file says by HEAD.
        """
        late = []
        run_commits: set[str] = set()
        for run in sorted(run_paths):
            digest = self.referenced.get(run)
            if digest is None or self.manifest is None:
                written = self.writes(run)
                commit = written[-1] if written else None
                run_commits.update(written)
            else:
                commit = self.first_declaring(self.manifest, digest)
            if commit is None:
                continue
            run_commits.add(commit)
            if self("merge-base", "--is-ancestor", prereg_commit, commit).returncode != 0:
                late.append(run.name)
        return late, run_commits

    def changes_after(self, commits: set[str], path: str) -> set[str]:
        """Commits that change `path` after those of `commits` whose `path` differs from HEAD's (ancestry path).

        What is judged is the pre-registration in force: the one HEAD publishes must be, byte for byte, the one
        each run log was committed under. History that leaves it so (a revert and its re-application, a file
        deleted and restored) changes nothing a reader relies on; any other edit is every commit since.
        """
        edits: set[str] = set()
        for commit in sorted(commits):  # usually one or two commits, however many runs
            if self("diff", "--quiet", commit, "HEAD", "--", path).returncode == 0:
                continue  # the same bytes as when these runs were committed
            out = self("rev-list", "--ancestry-path", f"{commit}..HEAD", "--", path)
            edits.update(out.stdout.split() if out.returncode == 0 else [])
        return edits


def order_detail(late: int, edits: int, dirty: bool, prereg_path: str) -> str:
    """One sentence on a commit-order violation, naming `prereg.yaml` once, then what to do.

    Args:
        late: run logs committed before `prereg.yaml` was first committed.
        edits: commits changing `prereg.yaml` after a commit that added run logs.
        dirty: `prereg.yaml` has uncommitted changes and run logs are committed.
        prereg_path: the file, for the `git restore` remedy.
    """
    facts, remedies = [], []
    if late:
        facts.append(f"was first committed after {plural(late, 'run log')}")
        remedies.append("commit prereg.yaml before any run log (pre-register, then run)")
    if edits:
        facts.append(f"was changed in {plural(edits, 'commit')} after run logs were committed")
        remedies.append("restore the prereg.yaml the runs were started with")
    if dirty:
        facts.append("has uncommitted changes" + ("" if edits else " made after run logs were committed"))
        remedies.append(f"undo the uncommitted edit (`git restore {prereg_path}`)")
    said = facts[0] if len(facts) == 1 else ", ".join(facts[:-1]) + " and " + facts[-1]
    return (f"prereg.yaml {said}: {'; '.join(remedies)}; "
            "a pre-registration is fixed before the runs and never edited after them")


def _pool(values: list[float], how: str) -> float | None:
    if how == "count":
        return float(len(values))
    if not values:
        return None
    if how == "sum":
        return float(sum(values))
    if how == "mean":
        return sum(values) / len(values)
    return float(max(values) if how == "max" else min(values))


def evaluate_defeaters(prereg: Prereg | None, runs: list[RunResult]) -> list[DefeaterResult]:
    """Evaluate each declared defeater over the VALID runs of its scope."""
    if prereg is None:
        return []
    out = []
    for d in prereg.defeaters:
        value = _defeater_value(d, runs)
        triggered = None if value is None else OPS[d.op](value, d.value)
        out.append(DefeaterResult(id=d.id, text=d.text, metric=d.metric, op=d.op, threshold=d.value,
                                  value=value, triggered=triggered))
    return out


def _defeater_value(d: Defeater, runs: list[RunResult]) -> float | None:
    """The figure a defeater tests: the count of VALID runs in its scope, or their metric pooled its way."""
    scoped = [r for r in runs if r.verdict == "VALID" and (d.scope == "all" or r.cell == d.scope)]
    if d.metric == "valid_runs":
        return float(len(scoped))
    return _pool([float(v) for r in scoped if is_number(v := r.metric(d.metric))], d.aggregate)


def _cell_value(cells: dict[str, CellResult], cell: str | None, metric: str | None) -> float | None:
    if cell is None or metric is None or cell not in cells:
        return None
    agg = cells[cell].metrics.get(metric)
    return None if agg is None else agg.mean


def evaluate_predictions(prereg: Prereg | None, cells: dict[str, CellResult]) -> list[PredictionResult]:
    """Evaluate machine-checkable predictions (cell mean vs a constant or another cell's mean)."""
    if prereg is None:
        return []
    out = []
    for p in prereg.predictions:
        value = _cell_value(cells, p.cell, p.metric)
        other = _cell_value(cells, p.versus, p.metric) if p.versus else (p.value if p.value is not None else None)
        holds = None
        if p.op is not None and value is not None and other is not None:
            holds = OPS[p.op](value, other)
        out.append(PredictionResult.model_validate(
            {"id": p.id, "text": p.text, "cell": p.cell, "metric": p.metric, "op": p.op,
             "value": value, "versus": p.versus, "compared_to": other, "holds": holds}))
    return out


def _decimals(x: float) -> int:
    """Decimal places of a float as written (at least 1: `0.0` is a one-decimal figure), at most 6."""
    text = repr(float(x))
    if "e" in text or "E" in text:
        return 6
    return max(1, min(len(text.split(".")[1]), 6))


def agrees(claimed: float | int | None, recomputed: float | int | None) -> bool:
    """A claim agrees when it equals the recomputed value at the claim's own precision.

    An integer claim must be exact (a rate claimed as `0` does not agree with 0.3); a decimal claim
    agrees when the recomputed value rounds to it at its number of decimals (`0.0` vs 0.04 agrees,
    vs 0.4 does not). Undefined agrees only with undefined.
    """
    if claimed is None or recomputed is None:
        return claimed is None and recomputed is None
    if isinstance(claimed, int) and not isinstance(claimed, bool):
        return abs(claimed - float(recomputed)) <= 1e-9
    tolerance = 0.5 * 10 ** (-_decimals(float(claimed))) + 1e-12
    return abs(float(claimed) - float(recomputed)) <= tolerance


def check_claims(manifest: Submission | None, cells: dict[str, CellResult], runs: list[RunResult]) -> list[ClaimCheck]:
    """Compare every claimed figure with the recomputed cell mean (a single-seed cell: that run's value)."""
    if manifest is None:
        return []
    out = []
    for claim in manifest.claims:
        recomputed = _cell_value(cells, claim.cell, claim.metric)
        if recomputed is None and claim.metric in ("valid_runs", "runs"):
            recomputed = _count(claim.metric, claim.cell, cells, runs)
        out.append(ClaimCheck(cell=claim.cell, metric=claim.metric, claimed=claim.value, recomputed=recomputed,
                              agrees=agrees(claim.value, recomputed), source=claim.source))
    return out


def _count(metric: str, cell_name: str, cells: dict[str, CellResult], runs: list[RunResult]) -> float:
    """A claimed `valid_runs` or `runs` of a cell, recomputed."""
    if cell_name in cells:  # the cell's own count (comparator runs count only in comparator cells)
        cell = cells[cell_name]
        return float(cell.valid_runs if metric == "valid_runs" else cell.runs)
    counted = [r for r in runs if r.cell == cell_name]
    return float(sum(1 for r in counted if r.verdict in COUNTED_VERDICTS) if metric == "valid_runs" else len(counted))

