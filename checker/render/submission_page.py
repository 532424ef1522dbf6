"""A submission's page (`submissions/<id>.md`): completions and defeaters first, then everything else.

Built from the whole results file (`ResultsFile`): the pre-registration and what became of every
declared run, the validity gate per run, the per-cell decomposition and its charts, label
mismatches, claims, format findings, the logs behind the figures and how to cite and reproduce
them. The tables shared with the cell pages (gate, logs, BibTeX) are here too.
"""

from __future__ import annotations

import json

from checker.format.errors import visible
from checker.format.gate_results import STATUS_LABELS, GateConditions
from checker.format.results_model import CellResult, ResultsFile, RunResult
from checker.render import completion
from checker.render.cell_rows import decomposition_table, mech_cells, number
from checker.render.chart_data import chart, constraint_charts, decomposition_data, gate_counts, gate_table
from checker.render.context import ChartRef, SubmissionContext, page
from checker.render.evidence import prereg_label, submission_coverage
from checker.render.paths import cell_path, root_of, submission_path, url_of
from checker.render.runs import run_path
from checker.render.tables import LONG_TABLE_ROWS, Column, Row, Table
from checker.render.text import slug


def bibtex(r: ResultsFile, cell: CellResult | None, site_url: str) -> str:
    """A BibTeX entry for a submission or one of its cells (strings are sanitised, not trusted)."""
    def clean(s: str) -> str:
        return visible(" ".join(s.replace("{", "(").replace("}", ")").replace("\\", "/").split()))

    key = slug(r.submission_id) + (f"-{slug(cell.cell)}" if cell else "")
    path = cell_path(r, cell.cell) if cell else submission_path(r)
    title = clean(r.title) + (f" (cell {clean(cell.cell)})" if cell else "")
    digest = cell.digest if cell else r.digest
    lines = [f"@misc{{driftboard:{key},",
             f"  title = {{{title}}},",
             f"  author = {{{' and '.join(clean(a) for a in r.authors) or 'unknown'}}},",
             f"  howpublished = {{Driftboard verified result {clean(cell.result_id if cell else r.submission_id)}}},",
             f"  url = {{{site_url}{url_of(path)}}},",
             f"  note = {{checker {clean(r.checker_version)}, profile {clean(r.profile)}, digest {digest or 'n/a'}}}",
             "}"]
    return "\n".join(lines)


def runs_for_cell(r: ResultsFile, cell: str) -> list[RunResult]:
    """The runs of one cell, in the results file's order."""
    return [run for run in r.runs if run.cell == cell]


def _gate_row(r: ResultsFile, run: RunResult) -> Row:
    row: dict[str, object] = {"run_id": run.run_id, "cell": run.cell, "seed": run.seed, "verdict": run.verdict,
                              "reasons": "; ".join(run.reasons), "run_href": url_of(run_path(r, run))}
    if r.track == "constraint":
        row["turns"] = number(run.metric("turns"))
        row["turn_accuracy"] = number(run.metric("turn_accuracy"))
    for cond, c in run.gate.items() if run.gate is not None else ():
        row[cond] = f"{STATUS_LABELS[c.status]} ({c.note})" if c.note else STATUS_LABELS[c.status]
    return row


def run_gate_table(r: ResultsFile, runs: list[RunResult], name: str = "gate") -> Table:
    """Per run: verdict and PASS / FAIL / N/A per gate condition with its numbers (the condition's note).

    A completion run has no gate: its row is the episode (ending, claim, verification, writes).
    """
    if r.track == "completion":
        return completion.episodes_table(runs, lambda run: run_path(r, run), name)
    conds = list(GateConditions.model_fields) if any(run.gate is not None for run in runs) else []
    cols = [Column("run_id", "run", link="run_href"), Column("cell", "cell"), Column("seed", "seed"),
            Column("verdict", "verdict")]
    if r.track == "constraint":
        cols += [Column("turns", "turns", numeric=True), Column("turn_accuracy", "accuracy", numeric=True)]
    cols += [Column(c, c) for c in conds] + [Column("reasons", "reasons")]
    caption = ("Validity gate per run: PASS / FAIL / N/A per condition, with the numbers" if r.track == "agent"
               else "Runs: constraint runs have no validity gate; VALID unless incomplete or unscorable")
    return Table(name, caption, cols, [_gate_row(r, run) for run in runs], empty="No runs reported.")


def _missing_table(r: ResultsFile) -> Table:
    rows: list[Row] = []
    for kind, items in (("missing (not reported)", r.prereg_check.missing),
                        ("undeclared", r.prereg_check.undeclared),
                        ("prereg digest mismatch", r.prereg_check.digest_mismatch)):
        rows += [{"kind": kind, "cell": item.get("cell"), "seed": item.get("seed"),
                  "detail": item.get("path") or item.get("run_id") or item.get("reason")} for item in items]
    rows += [{"kind": run.verdict.lower(), "cell": run.cell, "seed": run.seed, "detail": "; ".join(run.reasons) or run.path}
             for run in r.runs if run.verdict in ("INCOMPLETE", "MALFORMED")]
    return Table("missing", "Missing, undeclared, incomplete and malformed runs",
                 [Column("kind", "kind"), Column("cell", "cell"), Column("seed", "seed"), Column("detail", "detail")],
                 rows, empty="None: every declared run is reported and complete.")


def _mismatch_table(r: ResultsFile) -> Table:
    rows: list[Row] = [{"run_id": run.run_id, "line": m.line, "field": m.field, "recorded": m.recorded,
                        "recomputed": m.recomputed, "reason": m.reason} for run in r.runs for m in run.mismatches]
    return Table("log-mismatches", "Recorded vs recomputed values in the logs",
                 [Column("run_id", "run"), Column("line", "line", numeric=True), Column("field", "field"),
                  Column("recorded", "recorded"), Column("recomputed", "recomputed"), Column("reason", "reason")],
                 rows, empty="None: every recorded value matches its recomputation.")


def _claims_table(r: ResultsFile) -> Table:
    rows: list[Row] = [{"cell": c.cell, "metric": c.metric, "claimed": c.claimed, "recomputed": c.recomputed,
                        "agrees": c.agrees, "source": c.source} for c in r.claims]
    return Table("claims", "Claimed figures (submission.yaml) vs recomputed",
                 [Column("cell", "cell"), Column("metric", "metric"), Column("claimed", "claimed", numeric=True),
                  Column("recomputed", "recomputed", numeric=True), Column("agrees", "agrees"),
                  Column("source", "source")], rows, empty="No figures claimed.")


def logs_table(r: ResultsFile, paths: set[str] | None = None) -> Table:
    """The logs behind the results (those whose SHA-256 is in `paths` when given)."""
    rows: list[Row] = [{"path": x.path, "run_id": x.run_id, "sha256": x.sha256} for x in r.logs
                       if paths is None or x.sha256 in paths]
    # a completion run's id is its submission and episode, as its path says (page weight: hundreds of episodes)
    run_col = [] if r.track == "completion" else [Column("run_id", "run")]
    return Table("logs", "Run logs behind these results (SHA-256 of the file bytes)",
                 [Column("path", "path"), *run_col, Column("sha256", "sha256")], rows,
                 empty="No logs.", limit=LONG_TABLE_ROWS)


def _defeaters_table(r: ResultsFile) -> Table:
    return Table("defeaters", "Pre-registered defeaters, evaluated",
                 [Column("id", "id"), Column("text", "defeater"), Column("metric", "metric"), Column("op", "op"),
                  Column("threshold", "threshold", numeric=True), Column("value", "value", numeric=True),
                  Column("triggered", "triggered")],
                 [d.model_dump() for d in r.defeaters], empty="No defeaters were pre-registered.")


def _prereg_table(r: ResultsFile) -> Table:
    return Table("prereg", "Pre-registration", [Column("field", "field"), Column("value", "value")],
                 [{"field": "prereg.yaml SHA-256", "value": r.prereg_sha256},
                  {"field": "profile", "value": r.profile},
                  {"field": "thresholds source", "value": r.thresholds_source},
                  {"field": "problem sets", "value": ", ".join(r.problem_sets) or None},
                  {"field": "written", "value": prereg_label(r)}], sortable=False)


def _thresholds_table(r: ResultsFile) -> Table:
    return Table("thresholds", "Gate thresholds used", [Column("name", "threshold"), Column("value", "value")],
                 [{"name": k, "value": v} for k, v in sorted(r.thresholds.items())], empty="None.")


def _declared_row(r: ResultsFile, c: CellResult) -> Row:
    return {"cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)),
            "flags": " ".join(f"{k}={v}" for k, v in sorted(c.flags.items())) or None, "comparator": c.comparator,
            "seeds_declared": _seeds(r, c.seeds_declared), "seeds_reported": _seeds(r, c.seeds_reported),
            "runs": c.runs, "valid_runs": c.valid_runs,
            "verdicts": ", ".join(f"{k} {v}" for k, v in sorted(c.verdicts.items())) or None}


def _seeds(r: ResultsFile, seeds: list[str]) -> str | None:
    """A cell's seed labels for the submission page (a completion cell's hundreds of episodes in a few words)."""
    return completion.seeds_text(seeds) if r.track == "completion" else ", ".join(seeds) or None


def _cells_declared_table(r: ResultsFile) -> Table:
    return Table("cells", "Cells: declared vs reported seeds",
                 [Column("cell", "cell", link="cell_href"), Column("flags", "flags"), Column("comparator", "comparator"),
                  Column("seeds_declared", "seeds declared"), Column("seeds_reported", "seeds reported"),
                  Column("runs", "runs", numeric=True), Column("valid_runs", "valid runs", numeric=True),
                  Column("verdicts", "verdicts")], [_declared_row(r, c) for c in r.cells], empty="No cells.")


def _predictions_table(r: ResultsFile) -> Table:
    return Table("predictions", "Pre-registered predictions",
                 [Column("id", "id"), Column("text", "prediction"), Column("metric", "metric"),
                  Column("cell", "cell"), Column("op", "op"), Column("value", "value", numeric=True),
                  Column("observed", "observed", numeric=True), Column("holds", "holds")],
                 [{**p.model_dump(), "value": p.compared_to, "observed": p.value} for p in r.predictions],
                 empty="No predictions were pre-registered.")


def _findings_table(r: ResultsFile) -> Table:
    return Table("findings", "Format problems found while verifying",
                 [Column("path", "path"), Column("line", "line", numeric=True), Column("message", "message"),
                  Column("severity", "severity")], [f.model_dump() for f in r.findings], empty="None.")


def _commit_order(r: ResultsFile) -> str:
    co = r.prereg_check.commit_order
    return str(co.get("status") or co.get("result") or co.get("message") or "") if co else ""


def _agent_charts(r: ResultsFile, files: dict[str, str], prefix: str) -> list[ChartRef]:
    means, points = decomposition_data(r)
    rows = gate_counts(r.runs)
    return [
        chart("decomposition", "decomposition", {"means": means, "points": points},
              "Stacked bars: mean share of reference beats that are bind, abandon and aligned in each cell; dots "
              "mark each valid seed's own bind and bind + abandon boundaries. The same numbers are in the "
              "decomposition table.",
              Table("decomposition-points", "Per-seed values behind the chart",
                    [Column("cell", "cell"), Column("seed", "seed"), Column("component", "component"),
                     Column("value", "value", numeric=True)], points, empty="No defined per-seed values."),
              files, prefix, empty="no cell of this submission has a defined decomposition (every valid seed's "
                                   "share is undefined, or there is no valid run); the table above says why per cell."),
        chart("gate-outcomes", "gate", {"gate": rows},
              "Bar chart of gate outcomes per condition over this submission's runs. The same numbers are in the "
              "table below.", gate_table(rows, "Gate outcomes per condition"), files, prefix,
              empty="no run of this submission was gated, so there are no gate outcomes to draw.")]


def _manifest_fields(r: ResultsFile) -> list[tuple[str, str]]:
    return [(k, v if isinstance(v, str) else json.dumps(v, sort_keys=True, ensure_ascii=False))
            for k, v in sorted(r.manifest.items()) if k not in ("claims", "files")]


def submission_context(r: ResultsFile, files: dict[str, str], site_url: str) -> SubmissionContext:
    """`submissions/<id>.md` (chart specs are written into `files`)."""
    sid = slug(r.submission_id)
    prefix = f"assets/charts/submissions/{sid}"
    charts = (_agent_charts(r, files, prefix) if r.track == "agent" else
              constraint_charts([r], files, prefix) if r.track == "constraint" else [])
    citation = r.manifest.get("citation")
    return {
        **page(root_of(submission_path(r)), f"Submission {sid}"),
        "sid": r.submission_id, "sid_slug": sid, "title": r.title, "authors": list(r.authors), "track": r.track,
        "synthetic": r.synthetic, "profile": r.profile, "checker_version": r.checker_version,
        "unranked_reason": None if r.ranked else (r.unranked_reason or "not ranked"),
        "late_prereg": r.prereg_written_after_runs, "coverage": submission_coverage(r).text,
        "citation": citation if isinstance(citation, str) else None,
        "headline": r.null_results.headline, "completions": r.null_results.completions,
        "valid_runs": r.null_results.valid_runs, "runs": r.null_results.runs,
        "triggered": list(r.null_results.triggered_defeaters), "defeaters": _defeaters_table(r),
        "prereg": _prereg_table(r), "thresholds": _thresholds_table(r), "cells_declared": _cells_declared_table(r),
        "predictions": _predictions_table(r), "commit_order": _commit_order(r),
        "gate": completion.episodes_summary(r) if r.track == "completion" else run_gate_table(r, r.runs),
        "decomposition": decomposition_table(r, mech_cells(r)), "charts": charts, "missing": _missing_table(r),
        "run_mismatches": _mismatch_table(r), "claims": _claims_table(r), "findings": _findings_table(r),
        "logs": logs_table(r), "bibtex": bibtex(r, None, site_url), "digest": r.digest,
        "prereg_sha256": r.prereg_sha256, "reproduce": visible(r.reproduce), "manifest_fields": _manifest_fields(r),
    }
