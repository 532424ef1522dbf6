"""Submission checks that need no scoring, run by `validate` (and so by `ci` before `verify`).

* claims: every claimed figure names a known metric of the track and a pre-registered cell;
* run headers against `prereg.yaml`: the header's `prereg_sha256` is the SHA-256 of the file as
  it is now (committed or not), and a constraint run names a problem set, the one the
  pre-registration names when it names one;
* coverage: every run is under a declared cell and seed, and no seed label is reported twice.

Left to `verify`: the commit order of `prereg.yaml` and the run logs (git history), whether a
problem set a run names is available (`--problems`), declared runs that are missing (a result
counted as the worst outcome, not an error), and everything scored. Every message ends with
what to do.
"""

from __future__ import annotations

from collections.abc import Callable

from checker.format.errors import Finding
from checker.format.metric_names import closest
from checker.format.schema.manifest import Prereg, Submission

PROBLEM_SET_HELP = "problems/README.md gives the digest of each set shipped under problems/"


def claim_findings(manifest: Submission, prereg: Prereg | None, path: str,
                   metric_names: Callable[[str], list[str]] | None) -> list[Finding]:
    """A claim naming an unknown metric or an undeclared cell, with the valid names.

    `metric_names(track)` gives what a claim may name (`checker.pipeline.metrics.claim_names`); without it
    only the cells are checked.
    """
    found: list[Finding] = []
    metrics = metric_names(manifest.track) if metric_names is not None else None
    cells = sorted(prereg.cells) if prereg is not None else None
    for i, claim in enumerate(manifest.claims):
        where = f"claims[{i}]"
        if metrics is not None and claim.metric not in metrics:
            hint = closest(claim.metric, metrics)
            found.append(Finding(path, None, (
                f"{where}: unknown metric {claim.metric!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                + f"; the {manifest.track}-track metrics are: {', '.join(metrics)}")))
        if cells is not None and claim.cell not in cells:
            hint = closest(claim.cell, cells)
            found.append(Finding(path, None, (
                f"{where}: unknown cell {claim.cell!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                + f"; the cells of prereg.yaml are: {', '.join(cells)}")))
    return found


def header_findings(
    path: str,
    *,
    track: str | None,
    header_prereg_sha256: str | None,
    has_problem_set: bool,
    problem_set_digest: str | None,
    prereg: Prereg | None,
    prereg_sha256: str | None,
) -> list[Finding]:
    """A run header that disagrees with `prereg.yaml` as it is now, or a constraint run without its problem set.

    Args:
        path: the run log as shown in findings.
        track: the header's track.
        header_prereg_sha256: the header's `prereg_sha256`.
        has_problem_set: the header names a `problem_set`.
        problem_set_digest: its digest.
        prereg: the parsed `prereg.yaml` (None when missing or invalid).
        prereg_sha256: SHA-256 of the `prereg.yaml` bytes as read (None when missing or refused).
    """
    found: list[Finding] = []
    if header_prereg_sha256 is not None and prereg_sha256 is not None and header_prereg_sha256 != prereg_sha256:
        found.append(Finding(path, 1, (
            f"prereg_sha256 {header_prereg_sha256[:12]}… is not the SHA-256 of prereg.yaml ({prereg_sha256[:12]}…): "
            "prereg.yaml was changed after this run started (committed or not); restore the prereg.yaml the runs "
            "were started with (`git restore` for an uncommitted edit, else from git history): a pre-registration "
            "is not edited once runs have started")))
    if track != "constraint":
        return found
    if not has_problem_set:
        found.append(Finding(path, 1, (
            "constraint run names no problem_set in run_start, so verify cannot recompute it: write "
            f"`problem_set: {{name, digest}}` into the run header from your harness; {PROBLEM_SET_HELP}")))
    elif prereg is not None and prereg.problem_set is not None and problem_set_digest != prereg.problem_set:
        found.append(Finding(path, 1, (
            f"run uses problem set {str(problem_set_digest)[:12]}…, prereg.yaml names {prereg.problem_set[:12]}…: "
            "run the problem set the pre-registration names")))
    return found


def coverage_findings(runs: list[tuple[str, str, str | None, str | None]], prereg: Prereg | None) -> list[Finding]:
    """Runs under an undeclared cell or seed, and a seed label reported twice in one cell.

    Two logs with one run id are already a duplicate-run-id finding and are not reported again here.

    Args:
        runs: (path as shown, run id, cell, seed) of every run log whose header was read.
        prereg: the parsed `prereg.yaml` (None: nothing to compare with).
    """
    found: list[Finding] = []
    if prereg is None:
        return found
    first: dict[tuple[str, str], tuple[str, str]] = {}
    declared = "; ".join(f"{cell}: {', '.join(spec.seeds)}" for cell, spec in sorted(prereg.cells.items()))
    for path, run_id, cell, seed in sorted(runs, key=lambda r: r[0]):
        if cell is None or seed is None:
            continue
        undeclared = _undeclared(prereg, cell, seed)
        if undeclared is not None:
            found.append(Finding(path, 1, (
                f"{undeclared} is not declared in prereg.yaml (declared: {declared}): report only pre-registered runs; "
                "a run outside the plan belongs in a new submission pre-registered before it ran")))
            continue
        other, other_id = first.setdefault((cell, seed), (path, run_id))
        if other != path and other_id != run_id:
            found.append(Finding(path, 1, (
                f"cell {cell!r}, seed {seed!r} is already reported by {other}: a seed is reported once; remove a "
                "copied log, and report a second real run of this seed in a new submission that pre-registers it")))
    return found


def _undeclared(prereg: Prereg, cell: str, seed: str) -> str | None:
    """`cell 'X'` or `seed 's' of cell 'X'` when the pre-registration does not declare the run's slot, else None."""
    spec = prereg.cells.get(cell)
    if spec is None:
        return f"cell {cell!r}"
    return None if seed in spec.seeds else f"seed {seed!r} of cell {cell!r}"


def claim_disagreement(track: str, cell: str, metric: str, claimed: object, recomputed: object,
                       cells: list[str], metrics: list[str]) -> str:
    """`verify`'s message for a claim that disagrees, naming an unknown metric or cell instead of "recomputed None"."""
    if metric not in metrics:
        hint = closest(metric, metrics)
        return (f"claim {cell}/{metric}: unknown metric {metric!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                + f"; the {track}-track metrics are: {', '.join(metrics)}")
    if cells and cell not in cells:
        hint = closest(cell, cells)
        return (f"claim {cell}/{metric}: unknown cell {cell!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                + f"; the cells are: {', '.join(cells)}")
    return (f"claim {cell}/{metric}: claimed {claimed}, recomputed {recomputed}: correct the claim in "
            "submission.yaml to the recomputed figure, or remove it")
