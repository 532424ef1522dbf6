"""Results stage: turn a verified submission into its results file; write results files and their index.

One results file per submission, `<results dir>/<submission-id>.json`, plus `index.json`.
Files are canonical JSON (sorted keys, 2-space indent, no wall-clock time), so the same inputs
give the same bytes, and `driftboard merge` of shard outputs equals a single run's output.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

from checker import __version__
from checker.agent.metrics import efficiency
from checker.completion.metrics import completion_headline
from checker.format.errors import DriftboardError
from checker.format.report import plural
from checker.format.results_io import INDEX, canonical_json, canonical_with_digest, content_digest, read_results
from checker.format.results_model import (
    CellResult,
    FindingRecord,
    LogDigest,
    NullResults,
    ProblemSetRef,
    Provenance,
    ResultsFile,
    RunResult,
)
from checker.format.schema.manifest import Prereg, Submission
from checker.format.seeds import seed_labels
from checker.pipeline.metrics import claim_names, declarations
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


def _comparator_cells(prereg: Prereg | None, runs: list[RunResult]) -> set[str]:
    """Cells whose ungated COMPARATOR runs count: the prereg's comparator cells, else cells of comparator runs only."""
    names = {str(r.cell) for r in runs if r.cell is not None} | (set(prereg.cells) if prereg is not None else set())
    out = set()
    for name in names:
        spec = prereg.cells.get(name) if prereg is not None else None
        cell_runs = [r for r in runs if r.cell == name]
        # a comparator kind, declared; else (no prereg) cells of comparator runs only
        if (is_comparator_cell(prereg, name) if spec is not None and prereg is not None
                else bool(cell_runs) and all(r.comparator for r in cell_runs)):
            out.add(name)
    return out


def _counts(run: RunResult, comparator_cells: set[str]) -> bool:
    """A run counts toward its cell: VALID, or COMPARATOR in a comparator cell (never beside gated runs)."""
    return run.verdict == "VALID" or (run.cell in comparator_cells and run.verdict in COUNTED_VERDICTS)


def with_efficiency(runs: list[RunResult], comparator_cells: set[str]) -> list[RunResult]:
    """Counted agent runs gain `actions_per_level` and `tokens_per_level` (the results file stores them)."""
    return [r.model_copy(update={"metrics": {**r.metrics, **efficiency(r)}})
            if _counts(r, comparator_cells) and r.track in ("agent", None) else r for r in runs]


def build_cells(submission_id: str, prereg: Prereg | None, runs: list[RunResult],
                track_tables: dict[str, Any], track: str = "agent") -> list[CellResult]:
    """One `CellResult` per declared or reported cell, in name order."""
    names = set(prereg.cells) if prereg is not None else set()
    names |= {str(r.cell) for r in runs if r.cell is not None}
    comparators = _comparator_cells(prereg, runs)
    cells = []
    for name in sorted(names):
        spec = prereg.cells.get(name) if prereg is not None else None
        cell_runs = [r for r in runs if r.cell == name]
        counted = [r for r in cell_runs if _counts(r, comparators)]
        result_id = f"{submission_id}/{name}"
        verdicts = Counter(str(r.verdict) for r in cell_runs)
        withdrawn = dict(spec.withdrawn) if spec is not None else {}
        outcomes, chosen = declared_outcomes(list(spec.seeds) if spec is not None else [], withdrawn, cell_runs,
                                             name in comparators)
        itt = {m.name: a for m in declarations() if m.track in (track, "both")
               and (a := all_declared(m, chosen, withdrawn, False)) is not None} if outcomes and name not in comparators else {}
        cell = {
            "result_id": result_id,
            "cell": name,
            "flags": dict(spec.flags) if spec is not None else {},
            "comparator": name in comparators,
            "seeds_declared": list(spec.seeds) if spec is not None else [],
            "seeds_reported": sorted(str(r.seed) for r in cell_runs),
            "runs": len(cell_runs),
            "valid_runs": len(counted),
            "verdicts": dict(sorted(verdicts.items())),
            "declared": [o.model_dump() for o in outcomes],
            "n_declared": sum(1 for o in outcomes if o.status != "WITHDRAWN"),
            "all_declared": {k: v.model_dump() for k, v in sorted(itt.items())},
            "metrics": {k: v.model_dump() for k, v in
                        aggregate_metrics(result_id, counted, pooled_rates(counted)).items()},
            "tables": track_tables.get(name, {}),
            "log_sha256": sorted(r.log_sha256 for r in cell_runs if r.log_sha256),
        }
        cell["digest"] = content_digest(cell)
        cells.append(CellResult.model_validate(cell))
    return cells


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

    `text_out`: when given, the results file's canonical JSON (what `write_results` writes) is appended to it.
    """
    manifest, prereg = sub.manifest, sub.prereg
    if manifest is None:
        raise DriftboardError(f"{sub.path}: cannot write results without a valid submission.yaml")
    runs = sorted(sub.runs, key=lambda r: r.path)
    runs = with_efficiency(runs, _comparator_cells(prereg, runs))
    scored = [r for r in runs if r.verdict != "MALFORMED"]
    tables: dict[str, Any] = scorer_for(manifest.track).cell_tables(scored) if scored else {}
    cells = build_cells(manifest.id, prereg, runs, tables, manifest.track)
    by_name = {c.cell: c for c in cells}
    defeaters = evaluate_defeaters(prereg, runs)
    prereg_path = Path(sub.path) / "prereg.yaml"
    prereg_sha = sub.prereg_sha256  # as the load stage read it: never re-read through a link or a FIFO
    check = check_declared(prereg, runs, prereg_sha)
    if root is not None and prereg_sha is not None:
        order = commit_order(root, prereg_path, [Path(r.path) for r in runs])
        check = check.model_copy(update={"commit_order": order})
    results = ResultsFile(
        checker_version=__version__,
        submission_id=manifest.id,
        title=manifest.title,
        authors=[a.name for a in manifest.authors],
        track=manifest.track,
        synthetic=manifest.synthetic,
        prereg_written_after_runs=prereg is not None and prereg.written_after_runs,
        profile=sub.profile,
        thresholds=prereg.thresholds.model_dump() if prereg is not None else {},
        thresholds_source="prereg" if prereg is not None and "thresholds" in prereg.model_fields_set else "defaults",
        **dict(zip(("ranked", "unranked_reason"), rank_status(sub.profile, prereg, manifest.track), strict=True)),
        prereg_sha256=prereg_sha,
        problem_sets=sorted({_problem_set_digest(r.problem_set) for r in runs if r.problem_set}),
        logs=[LogDigest(path=r.path, sha256=r.log_sha256, run_id=r.run_id) for r in runs if r.log_sha256],
        null_results=null_results(manifest.track, runs, [d.id for d in defeaters if d.triggered]),
        runs=runs,
        cells=cells,
        prereg_check=check,
        defeaters=defeaters,
        predictions=evaluate_predictions(prereg, by_name),
        claims=check_claims(manifest, by_name, runs),
        findings=findings,
        manifest=manifest.model_dump(mode="json"),
        reproduce=f"driftboard verify {sub.path}",
        provenance=submission_provenance(Path(sub.path)) if root is not None else Provenance(),
    )
    # normalise through canonical JSON (what the file holds), then digest
    # (compact: the same values as the indented canonical form, parsed back, at C speed)
    data = json.loads(json.dumps(results.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, allow_nan=False))
    text = canonical_with_digest(data)  # the file's bytes: the digest's text and the file's, encoded once
    if text_out is not None:
        text_out.append(text)
    return ResultsFile.model_validate(data)


def results_problems(results: ResultsFile) -> list[str]:
    """What makes verification fail beyond format errors: claims, undeclared runs, digest, order."""
    cells = [c.cell for c in results.cells]
    names = claim_names(results.track)
    out = [claim_disagreement(results.track, c.cell, c.metric, c.claimed, c.recomputed, cells, names)
           for c in results.claims if not c.agrees]
    out += [f"undeclared run {u['run_id']} (cell {u['cell']}, seed {u['seed']})" for u in results.prereg_check.undeclared]
    for cell in results.cells:
        for o in cell.declared:
            if o.status == "MISSING":
                out.append(f"cell {cell.cell}, seed {o.seed}: declared in prereg.yaml but no readable run log is "
                           "reported for it; every declared run counts (as the worst outcome while missing): add its "
                           "log, or withdraw the seed in prereg.yaml (cells.<cell>.withdrawn) before it runs")
            elif o.status == "WITHDRAWN" and o.run_id is not None:
                out.append(f"cell {cell.cell}, seed {o.seed}: withdrawn in prereg.yaml but run {o.run_id} is reported; "
                           "a seed is withdrawn before it runs, never after: remove the withdrawal or the run")
    repeated = Counter((str(r.cell), str(r.seed)) for r in results.runs if r.cell is not None)
    out += [f"cell {cell}, seed {seed}: {n} runs carry this seed label (a seed is reported once)"
            for (cell, seed), n in sorted(repeated.items()) if n > 1]
    out += [f"run {m['run_id']}: prereg digest in the header differs from prereg.yaml; {DIGEST_REMEDY}"
            for m in results.prereg_check.digest_mismatch]
    if results.prereg_check.commit_order.get("status") == "violated":
        out.append(str(results.prereg_check.commit_order.get("detail")))
    return out


def _problem_set_digest(ref: ProblemSetRef | str) -> str:
    """A run's problem set as its digest (scorers record either the digest or {name, digest})."""
    return ref.digest if isinstance(ref, ProblemSetRef) else ref


def write_results(results: ResultsFile, out: Path) -> Path:
    """Write `<out>/<submission-id>.json` (canonical bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{results.submission_id}.json"
    path.write_text(canonical_json(results.model_dump(mode="json")), encoding="utf-8")
    return path


def index_row(r: ResultsFile, file: str) -> dict[str, Any]:
    """The `index.json` row of results file `file` (a summary gives the same row as the full file)."""
    return {
        "submission_id": r.submission_id, "title": r.title, "track": r.track, "synthetic": r.synthetic,
        "prereg_written_after_runs": r.prereg_written_after_runs,
        "profile": r.profile, "headline": r.null_results.headline, "valid_runs": r.null_results.valid_runs,
        "runs": r.null_results.runs, "completions": r.null_results.completions,
        "cells": [c.cell for c in r.cells], "digest": r.digest, "file": file,
    }


def write_index(out: Path, known: dict[str, dict[str, Any]] | None = None) -> Path:
    """`index.json`: one summary row per results file in `out`, derived only from those files.

    `known`: rows of files this process has just written (file name -> `index_row`), not read back.
    """
    rows = []
    for path in sorted(out.glob("*.json")):
        if path.name == INDEX or path.name.startswith("shard-"):
            continue
        known_row = (known or {}).get(path.name)
        rows.append(known_row if known_row is not None else index_row(read_results(path), path.name))
    index = {"results_format": "1.0", "checker_version": __version__, "submissions": rows}
    index["digest"] = content_digest(index)
    path = out / INDEX
    path.write_text(canonical_json(index), encoding="utf-8")
    return path
