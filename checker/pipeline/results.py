"""Results stage: turn a verified submission into its results file; write results files and their index.

One results file per submission, `<results dir>/<submission-id>.json`, plus `index.json`.
Files are canonical JSON (sorted keys, 2-space indent, no wall-clock time), so the same inputs
give the same bytes, and `driftboard merge` of shard outputs equals a single run's output.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Protocol, TypedDict

from checker import __version__
from checker.agent.metrics import efficiency
from checker.completion.metrics import completion_headline
from checker.format.cell_tables import TrackTables
from checker.format.errors import DriftboardError
from checker.format.report import plural
from checker.format.results_io import INDEX, canonical_json, canonical_with_digest, content_digest, is_results_name, read_results
from checker.format.results_model import (
    CellResult,
    FindingRecord,
    LogDigest,
    NullResults,
    PreregCheck,
    ProblemSetRef,
    Provenance,
    ResultsFile,
    ResultsSummary,
    RunResult,
    SeedOutcome,
)
from checker.format.schema.manifest import Cell, Prereg, Submission
from checker.format.seeds import seed_labels
from checker.pipeline.metrics import RANK_BY, claim_names, declarations, get
from checker.pipeline.provenance import submission_provenance
from checker.pipeline.scorers import scorer_for
from checker.stages.aggregate import (
    COUNTED_VERDICTS,
    aggregate_metrics,
    all_declared,
    counted_runs,
    declared_outcomes,
    is_number,
)
from checker.stages.boards import CellInput, cell_ranking
from checker.stages.precheck import claim_disagreement
from checker.stages.preregistration import (
    check_claims,
    check_declared,
    commit_order,
    evaluate_defeaters,
    evaluate_predictions,
)
from checker.stages.rules import is_comparator_cell, rank_status

DIGEST_REMEDY = ("prereg.yaml was changed after the run started: restore the prereg.yaml the runs were started "
                 "with (a pre-registration is not edited once runs have started)")


class SubmissionInput(Protocol):
    """What the results stage reads of a verified submission (`checker.pipeline.verify.SubmissionResult` provides it)."""

    path: str
    manifest: Submission | None
    prereg: Prereg | None
    profile: str
    runs: list[RunResult]
    prereg_sha256: str | None


def pooled_rates(runs: list[RunResult]) -> dict[str, dict[str, list[float]]]:
    """Metric -> seed label -> [numerator, denominator], from the `rates` record of each counted run.

    Labels are `seed_labels` of the counted runs, the same keys `aggregate_metrics` uses.
    """
    out: dict[str, dict[str, list[float]]] = {}
    counted = counted_runs(runs)
    for run, label in zip(counted, seed_labels(counted), strict=True):
        for metric, pair in run.rates.items():
            if len(pair) == 2 and all(is_number(x) for x in pair):
                out.setdefault(metric, {})[label] = [float(pair[0]), float(pair[1])]
    return out


def _cell_names(prereg: Prereg | None, runs: list[RunResult]) -> set[str]:
    """Every cell the pre-registration declares or a run names."""
    named = {str(r.cell) for r in runs if r.cell is not None}
    return named | set(prereg.cells) if prereg is not None else named


def _comparator_cells(prereg: Prereg | None, runs: list[RunResult]) -> set[str]:
    """Cells whose ungated COMPARATOR runs count: the prereg's comparator cells, else cells of comparator runs only."""
    return {name for name in _cell_names(prereg, runs) if _is_comparator(prereg, name, runs)}


def _is_comparator(prereg: Prereg | None, name: str, runs: list[RunResult]) -> bool:
    """A declared cell: when of a comparator kind, declared so; a cell the prereg does not declare: comparator runs only."""
    if prereg is not None and name in prereg.cells:
        return is_comparator_cell(prereg, name)
    cell_runs = [r for r in runs if r.cell == name]
    return bool(cell_runs) and all(r.comparator for r in cell_runs)


def _counts(run: RunResult, comparator_cells: set[str]) -> bool:
    """A run counts toward its cell: VALID, or COMPARATOR in a comparator cell (never beside gated runs)."""
    return run.verdict == "VALID" or (run.cell in comparator_cells and run.verdict in COUNTED_VERDICTS)


def with_efficiency(runs: list[RunResult], comparator_cells: set[str]) -> list[RunResult]:
    """Counted agent runs gain `actions_per_level` and `tokens_per_level` (the results file stores them)."""
    return [r.model_copy(update={"metrics": {**r.metrics, **efficiency(r)}})
            if _counts(r, comparator_cells) and r.track in ("agent", None) else r for r in runs]


def build_cells(submission_id: str, prereg: Prereg | None, runs: list[RunResult],
                track_tables: Mapping[str, TrackTables], track: str = "agent") -> list[CellResult]:
    """One `CellResult` per declared or reported cell, in name order."""
    comparators = _comparator_cells(prereg, runs)
    return [_cell(submission_id, name, prereg.cells.get(name) if prereg is not None else None,
                  [r for r in runs if r.cell == name], comparators, track_tables.get(name), track)
            for name in sorted(_cell_names(prereg, runs))]


def _cell(submission_id: str, name: str, spec: Cell | None, cell_runs: list[RunResult], comparators: set[str],
          tables: TrackTables | None, track: str) -> CellResult:
    """The `CellResult` of one cell: its declaration `spec` (None: undeclared), its runs, the track's `tables` of it."""
    result_id = f"{submission_id}/{name}"
    comparator = name in comparators
    flags, seeds, withdrawn = (dict(spec.flags), list(spec.seeds), dict(spec.withdrawn)) if spec else ({}, [], {})
    counted = [r for r in cell_runs if _counts(r, comparators)]
    outcomes, chosen = declared_outcomes(list(seeds), withdrawn, cell_runs, comparator)
    cell: dict[str, object] = {
        "result_id": result_id,
        "cell": name,
        "flags": flags,
        "comparator": comparator,
        "seeds_declared": seeds,
        **_reported(cell_runs),
        "valid_runs": len(counted),
        "declared": [o.model_dump() for o in outcomes],
        "n_declared": sum(1 for o in outcomes if o.status != "WITHDRAWN"),
        # intent to treat: every declared seed counts, a missing one as the worst value (not for comparator cells)
        "all_declared": _intent_to_treat(track, chosen, withdrawn) if outcomes and not comparator else {},
        "metrics": {k: v.model_dump() for k, v in aggregate_metrics(result_id, counted, pooled_rates(counted)).items()},
        "tables": tables.model_dump(mode="json") if tables is not None else {},
    }
    cell["digest"] = content_digest(cell)
    return CellResult.model_validate(cell)


def _turn_credit(metric: str) -> str:
    """The turn field that credits a turn in `metric`'s per-problem units (constraint track; `correct` otherwise)."""
    decl = get(metric)
    return decl.turn_credit if decl is not None and decl.turn_credit else "correct"


def with_rankings(cells: list[CellResult], runs: list[RunResult], track: str, profile: str,
                  status: tuple[bool, str | None], problem_set: str | None) -> list[CellResult]:
    """Each cell with its board verdict (`checker.stages.boards.cell_ranking`) and its digest recomputed."""
    out = []
    for c in cells:
        ranking = cell_ranking(CellInput(track=track, profile=profile, submission_ranked=status[0],
                                         unranked_reason=status[1], prereg_problem_set=problem_set, cell=c,
                                         runs=[r for r in runs if r.cell == c.cell], rank_metric=RANK_BY[track],
                                         turn_credit=_turn_credit(RANK_BY[track])))
        data = c.model_dump(mode="json")
        data["ranking"] = ranking.model_dump(mode="json")
        data["digest"] = content_digest({k: v for k, v in data.items() if k != "digest"})
        out.append(CellResult.model_validate(data))
    return out


def _reported(cell_runs: list[RunResult]) -> dict[str, object]:
    """What a cell's record says of the runs reported in it: seed labels, count, verdicts, log digests."""
    return {
        "seeds_reported": sorted(str(r.seed) for r in cell_runs),
        "runs": len(cell_runs),
        "verdicts": dict(sorted(Counter(str(r.verdict) for r in cell_runs).items())),
        "log_sha256": sorted(r.log_sha256 for r in cell_runs if r.log_sha256),
    }


def _intent_to_treat(track: str, chosen: dict[str, RunResult | None], withdrawn: dict[str, str]) -> dict[str, object]:
    """Metric -> its all-declared figure (`AllDeclared`, as JSON) over a cell's declared seeds, for `track`'s metrics."""
    figures = {m.name: a for m in declarations() if m.track in (track, "both")
               and (a := all_declared(m, chosen, withdrawn, False)) is not None}
    return {k: v.model_dump() for k, v in sorted(figures.items())}


def null_results(track: str, runs: list[RunResult], triggered: list[str]) -> NullResults:
    """Completions first: "0 completions across N valid runs" (agent), correct turns (constraint), verified episodes.

    The completion track's line counts verified episodes, then the claims and how many of them the database verifies.
    """
    valid = [r for r in runs if r.verdict == "VALID"]
    if track == "agent":
        completions = sum(_int(r.metric("completions")) for r in valid)
        headline = f"{plural(completions, 'completion')} across {plural(len(valid), 'valid run')}"
        if not valid:
            headline = f"no valid runs ({len(runs)} reported): no completion can be counted"
        return NullResults(valid_runs=len(valid), runs=len(runs), completions=completions if valid else None,
                           headline=headline, triggered_defeaters=triggered)
    if track == "completion":
        verified, headline = completion_headline(valid, len(runs))
        return NullResults(valid_runs=len(valid), runs=len(runs), completions=verified if valid else None,
                           headline=headline, triggered_defeaters=triggered)
    correct = sum(_int(r.metric("correct_turns")) for r in valid)
    turns = sum(_int(r.metric("turns")) for r in valid)
    headline = f"{correct} of {plural(turns, 'turn')} correct across {plural(len(valid), 'valid run')}"
    return NullResults(valid_runs=len(valid), runs=len(runs), completions=None, headline=headline,
                       triggered_defeaters=triggered)


def _int(value: object) -> int:
    return int(value) if is_number(value) else 0


def build_results(sub: SubmissionInput, findings: list[FindingRecord], root: Path | None,
                  text_out: list[str] | None = None) -> ResultsFile:
    """Assemble a `ResultsFile` from a verified submission (`checker.pipeline.verify.SubmissionResult`).

    `root`: the git repository holding the submission (None: none, so no commit-order check and no provenance).
    `text_out`: when given, the results file's canonical JSON (what `write_results` writes) is appended to it.
    """
    manifest, prereg = sub.manifest, sub.prereg
    if manifest is None:
        raise DriftboardError(f"{sub.path}: cannot write results without a valid submission.yaml")
    runs = sorted(sub.runs, key=lambda r: r.path)
    runs = with_efficiency(runs, _comparator_cells(prereg, runs))
    cells = build_cells(manifest.id, prereg, runs, _track_tables(manifest.track, runs), manifest.track)
    by_name = {c.cell: c for c in cells}
    defeaters = evaluate_defeaters(prereg, runs)
    ranked, unranked_reason = rank_status(sub.profile, prereg, manifest.track)
    cells = with_rankings(cells, runs, manifest.track, sub.profile, (ranked, unranked_reason),
                          prereg.problem_set if prereg is not None else None)
    results = ResultsFile(
        checker_version=__version__,
        submission_id=manifest.id,
        title=manifest.title,
        authors=[a.name for a in manifest.authors],
        track=manifest.track,
        synthetic=manifest.synthetic,
        prereg_written_after_runs=False,  # set below: declared, or derived from the commit order
        profile=sub.profile,
        thresholds=prereg.thresholds.model_dump() if prereg is not None else {},
        thresholds_source=_thresholds_source(prereg),
        ranked=ranked,
        unranked_reason=unranked_reason,
        prereg_sha256=sub.prereg_sha256,  # as the load stage read it: never re-read through a link or a FIFO
        problem_sets=_problem_sets(runs),
        logs=_log_digests(runs),
        null_results=null_results(manifest.track, runs, [d.id for d in defeaters if d.triggered]),
        runs=runs,
        cells=cells,
        prereg_check=_prereg_check(sub, runs, root),
        defeaters=defeaters,
        predictions=evaluate_predictions(prereg, by_name),
        claims=check_claims(manifest, by_name, runs),
        findings=findings,
        manifest=manifest.record(),
        reproduce=f"driftboard verify {sub.path}",
        provenance=submission_provenance(Path(sub.path)) if root is not None else Provenance(),
    )
    # written after the runs: as the pre-registration says, or as the publishing branch's history shows it
    late = results.prereg_check.commit_order.get("status") in ("together", "violated")
    after = (prereg is not None and prereg.written_after_runs) or late
    return _normalised(results.model_copy(update={"prereg_written_after_runs": after}), text_out)


def _track_tables(track: str, runs: list[RunResult]) -> Mapping[str, TrackTables]:
    """The track's per-cell tables of the runs that were read (none when every run is MALFORMED)."""
    scored = [r for r in runs if r.verdict != "MALFORMED"]
    return scorer_for(track).cell_tables(scored) if scored else {}


def _problem_sets(runs: list[RunResult]) -> list[str]:
    """Digests of the problem sets the runs used, sorted."""
    return sorted({_problem_set_digest(r.problem_set) for r in runs if r.problem_set})


def _log_digests(runs: list[RunResult]) -> list[LogDigest]:
    """The digest of every log that was read, in run order."""
    return [LogDigest(path=r.path, sha256=r.log_sha256, run_id=r.run_id) for r in runs if r.log_sha256]


def _thresholds_source(prereg: Prereg | None) -> Literal["prereg", "defaults"]:
    """Where a submission's thresholds come from: `prereg` when its pre-registration sets them, else `defaults`."""
    return "prereg" if prereg is not None and "thresholds" in prereg.model_fields_set else "defaults"


def _prereg_check(sub: SubmissionInput, runs: list[RunResult], root: Path | None) -> PreregCheck:
    """The pre-registration check; with the submission's repository (`root`), the commit order too."""
    check = check_declared(sub.prereg, runs, sub.prereg_sha256)
    if root is None or sub.prereg_sha256 is None:
        return check
    # a log stored by reference arrives with the commit that declares its digest (`blobs:`)
    blobs = sub.manifest.blobs if sub.manifest is not None else {}
    referenced = {Path(r.path): blobs[rel].sha256 for r in runs
                  if (rel := r.path.removeprefix(f"{sub.path}/")) in blobs}
    order = commit_order(root, Path(sub.path) / "prereg.yaml", [Path(r.path) for r in runs], referenced)
    return check.model_copy(update={"commit_order": order})


def _normalised(results: ResultsFile, text_out: list[str] | None) -> ResultsFile:
    """`results` as its file holds it (normalised through canonical JSON), with its digest; its text to `text_out`."""
    # compact: the same values as the indented canonical form, parsed back, at C speed
    data = json.loads(json.dumps(results.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, allow_nan=False))
    text = canonical_with_digest(data)  # the file's bytes: the digest's text and the file's, encoded once
    if text_out is not None:
        text_out.append(text)
    return ResultsFile.model_validate(data)


def results_problems(results: ResultsSummary) -> list[str]:
    """What makes verification fail beyond format errors: claims, undeclared runs, digest, order."""
    return _claim_problems(results) + _declaration_problems(results) + _digest_problems(results)


def _claim_problems(results: ResultsSummary) -> list[str]:
    """Claims the recomputation disagrees with."""
    cells = [c.cell for c in results.cells]
    names = claim_names(results.track)
    return [claim_disagreement(results.track, c.cell, c.metric, c.claimed, c.recomputed, cells, names)
            for c in results.claims if not c.agrees]


def seed_problems(results: ResultsSummary) -> dict[str, tuple[str, str]]:
    """The declared-seed problems of `results_problems` -> (cell, seed), to locate each in prereg.yaml."""
    return {problem: (cell.cell, o.seed) for cell in results.cells for o in cell.declared
            if (problem := _seed_problem(cell.cell, o))}


def _declaration_problems(results: ResultsSummary) -> list[str]:
    """Runs the pre-registration does not declare, declared seeds missing or withdrawn too late, seeds reported twice."""
    out = [f"undeclared run {u['run_id']} (cell {u['cell']}, seed {u['seed']})" for u in results.prereg_check.undeclared]
    out += [problem for cell in results.cells for o in cell.declared if (problem := _seed_problem(cell.cell, o))]
    repeated = Counter((str(r.cell), str(r.seed)) for r in results.runs if r.cell is not None)
    return out + [f"cell {cell}, seed {seed}: {n} runs carry this seed label (a seed is reported once)"
                  for (cell, seed), n in sorted(repeated.items()) if n > 1]


def _digest_problems(results: ResultsSummary) -> list[str]:
    """Runs started under another pre-registration, and a pre-registration committed after its runs."""
    out = [f"run {m['run_id']}: prereg digest in the header differs from prereg.yaml; {DIGEST_REMEDY}"
           for m in results.prereg_check.digest_mismatch]
    if results.prereg_check.commit_order.get("status") == "violated":
        out.append(str(results.prereg_check.commit_order.get("detail")))
    return out


def _seed_problem(cell: str, outcome: SeedOutcome) -> str | None:
    """What is wrong with a declared seed's outcome: missing, or withdrawn yet reported (None: nothing)."""
    if outcome.status == "MISSING":
        return (f"cell {cell}, seed {outcome.seed}: declared in prereg.yaml but no readable run log is "
                "reported for it; every declared run counts (as the worst outcome while missing): add its "
                "log, or withdraw the seed in prereg.yaml (cells.<cell>.withdrawn) before it runs")
    if outcome.status == "WITHDRAWN" and outcome.run_id is not None:
        return (f"cell {cell}, seed {outcome.seed}: withdrawn in prereg.yaml but run {outcome.run_id} is reported; "
                "a seed is withdrawn before it runs, never after: remove the withdrawal or the run")
    return None


def _problem_set_digest(ref: ProblemSetRef | str) -> str:
    """A run's problem set as its digest (scorers record either the digest or {name, digest})."""
    return ref.digest if isinstance(ref, ProblemSetRef) else ref


def write_results(results: ResultsFile, out: Path) -> Path:
    """Write `<out>/<submission-id>.json` (canonical bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{results.submission_id}.json"
    path.write_text(canonical_json(results.model_dump(mode="json")), encoding="utf-8")
    return path


class IndexRow(TypedDict):
    """One row of `index.json`: what the site's lists show of a results file, and the file's name."""

    submission_id: str
    title: str
    track: str
    synthetic: bool
    prereg_written_after_runs: bool
    profile: str
    headline: str
    valid_runs: int
    runs: int
    completions: int | None
    cells: list[str]
    digest: str | None
    file: str


def index_row(r: ResultsSummary, file: str) -> IndexRow:
    """The `index.json` row of results file `file` (a summary gives the same row as the full file)."""
    return {
        "submission_id": r.submission_id, "title": r.title, "track": r.track, "synthetic": r.synthetic,
        "prereg_written_after_runs": r.prereg_written_after_runs,
        "profile": r.profile, "headline": r.null_results.headline, "valid_runs": r.null_results.valid_runs,
        "runs": r.null_results.runs, "completions": r.null_results.completions,
        "cells": [c.cell for c in r.cells], "digest": r.digest, "file": file,
    }


def write_index(out: Path, known: dict[str, IndexRow] | None = None) -> Path:
    """`index.json`: one summary row per results file in `out`, derived only from those files.

    `known`: rows of files this process has just written (file name -> `index_row`), not read back.
    """
    rows = []
    for path in sorted(out.glob("*.json")):
        if not is_results_name(path.name):
            continue
        known_row = (known or {}).get(path.name)
        rows.append(known_row if known_row is not None else index_row(read_results(path), path.name))
    index = {"results_format": "1.0", "checker_version": __version__, "submissions": rows}
    index["digest"] = content_digest(index)
    path = out / INDEX
    path.write_text(canonical_json(index), encoding="utf-8")
    return path
