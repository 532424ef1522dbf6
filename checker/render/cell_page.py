"""A cell's permalink page (`results/<id>/<cell>.md`): the citable per-cell result.

Built from the whole results file: what became of every declared seed, the all-declared
(intent-to-treat) figures beside the valid-only ones, every metric over the valid seeds, the
cell's runs (and, for a constraint cell, their turns), its decomposition chart, its scorer's tables
as stored (shown as tables: `checker.render.scorer_tables`), and how to cite it (byte for byte what
`driftboard cite ID/CELL` prints).
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.format.boards_model import ranking_line
from checker.format.errors import visible
from checker.format.numbers import fmt
from checker.format.release_model import ReleaseFile
from checker.format.results_model import CellResult, MetricAggregate, ResultsFile
from checker.render import completion, ranking
from checker.render.cell_rows import decomposition_table
from checker.render.chart_data import chart, parts_data
from checker.render.citation import cite_text
from checker.render.context import CellContext, ChartRef, page
from checker.render.evidence import cell_coverage
from checker.render.metrics import header, is_count, metric_href, rank_metric, worst_means
from checker.render.paths import cell_path, root_of, submission_path, url_of
from checker.render.runs import run_path
from checker.render.scorer_tables import scorer_tables
from checker.render.submission_page import bibtex, logs_table, run_gate_table, runs_for_cell
from checker.render.tables import LONG_TABLE_ROWS, Column, Row, Table
from checker.render.text import slug
from checker.render.turns import turn_table


def _charts(r: ResultsFile, c: CellResult, files: dict[str, str], md: str) -> list[ChartRef]:
    """The cell's own decomposition chart (an explicit "undefined" mark when it has none)."""
    if c.comparator:
        return []
    metric = ranking.rank_metric(r.track)
    why = ranking.cell_row(r, c, metric).get("why") or ranking.why_undefined(r, c, metric)
    data = parts_data(r.track, [(c.cell, c, why)])
    table = Table("parts", "Decomposition of this cell (the chart's data)",
                  [Column("part", "part"), Column("share", "share", numeric=True), Column("n", "n")],
                  data["means"], empty=why or "Undefined.")
    return [chart("parts", f"cells-{r.track}", data,
                  ("Stacked bar of this cell's decomposition: bind / abandon / aligned shares of reference beats "
                   "(means over valid seeds) with 95% bootstrap intervals when there are enough seeds"
                   if r.track == "agent" else
                   "Stacked bar of this cell's claimed / verified decomposition: shares of its declared episodes "
                   f"({' / '.join(completion.PARTS)}), with the Wilson 95% interval of the verified rate"
                   if r.track == "completion" else
                   "Stacked bar of this cell's decomposition: consistent / drift / contradiction / other shares of "
                   "the turns with a ledger")
                  + "; an undefined decomposition is drawn as an explicit 'undefined' mark. The same numbers are in "
                  "the table below.", table, files,
                  "assets/charts/" + md.removesuffix(".md"))]


def verified_note(r: ResultsFile) -> str:
    """One line: what the checker recomputed for this page and where the evidence is (the verified badge's tooltip)."""
    p = r.provenance
    pinned = "not yet committed" if not p.commit or p.uncommitted else f"commit {p.commit[:12]}"
    return (f"Verified: checker {r.checker_version} recomputed every gate, figure, interval and rank here from the "
            f"run logs (no submitted number is used); evidence: the logs' SHA-256 under Cite and reproduce, {pinned}.")


PER_SEED_SHOWN = 12
"""Most per-seed values listed in a metric's row. A cell of 200 τ-bench episodes listed 200 per metric (60 KB of a
cell page); past this, the row says how many and where they are (each run's page, the results file)."""


def _metric_row(name: str, agg: MetricAggregate) -> Row:
    values = sorted(agg.values.items())
    per_seed = (", ".join(f"{s}: {'—' if v is None else v}" for s, v in values) if len(values) <= PER_SEED_SHOWN else
                f"{len(values)} values: on each run's page and in the results file")
    return {"metric": name, "metric_href": metric_href(name), "mean": agg.mean, "min": agg.min, "max": agg.max,
            "ci95_low": agg.ci95[0] if agg.ci95 else None, "ci95_high": agg.ci95[1] if agg.ci95 else None,
            "n_defined": agg.n_defined, "n": agg.n, "pooled": agg.pooled, "per_seed": per_seed}


def _metrics_table(c: CellResult) -> Table:
    return Table("metrics", "Every metric over the valid seeds (undefined seeds left out, shown as —; "
                            "a name links to its definition)",
                 [Column("metric", "metric", link="metric_href"), Column("mean", "mean", numeric=True),
                  Column("min", "min", numeric=True), Column("max", "max", numeric=True),
                  Column("ci95_low", "95% CI low", numeric=True), Column("ci95_high", "95% CI high", numeric=True),
                  Column("n_defined", "defined", numeric=True), Column("n", "valid seeds", numeric=True),
                  Column("pooled", "pooled", numeric=True), Column("per_seed", "per seed")],
                 [_metric_row(name, agg) for name, agg in sorted(c.metrics.items())],
                 empty="No metric: the cell has no valid run.")


def _declared_table(c: CellResult) -> Table:
    rows: list[Row] = [o.model_dump() for o in c.declared]
    if len(rows) > LONG_TABLE_ROWS:  # the page shows the first rows: those left out of the valid-only figure first
        rows = [r for r in rows if r["reason"]] + [r for r in rows if not r["reason"]]
    return Table("declared", "Every declared run (intent-to-treat): what became of each declared seed"
                             + (", those left out of the valid-only figure first" if len(rows) > LONG_TABLE_ROWS else ""),
                 [Column("seed", "seed"), Column("status", "status"), Column("run_id", "run"),
                  Column("reason", "why not in the valid-only figure")],
                 rows, empty="No pre-registration declares this cell's seeds.", limit=LONG_TABLE_ROWS)


def _all_declared_table(c: CellResult) -> Table:
    # A count's all-declared and valid-only figures are means per run (the boards show its total over valid runs).
    rows: list[Row] = [{"metric": header(name) + (" (mean per run)" if is_count(name) else ""),
                        "metric_href": metric_href(name), "all_declared": a.value,
                        "valid_only": c.metrics[name].mean if name in c.metrics else None,
                        "n_declared": a.n_declared, "n_worst": a.n_worst, "n_undefined": a.n_undefined,
                        "worst": worst_means(name)} for name, a in sorted(c.all_declared.items())]
    return Table("all-declared", "All-declared figures (ranked) beside the valid-only ones",
                 [Column("metric", "metric", link="metric_href"), Column("all_declared", "all declared", numeric=True),
                  Column("valid_only", "valid runs only", numeric=True),
                  Column("n_declared", "declared", numeric=True),
                  Column("n_worst", "counted as worst", numeric=True),
                  Column("n_undefined", "undefined", numeric=True), Column("worst", "a failed run counts as")],
                 rows, empty="No all-declared figure (a comparator cell, or no pre-registration).")


def _partial(r: ResultsFile, c: CellResult) -> str | None:
    """A partial-coverage cell's honest headline (issue 30, item 5); None when the cell is not partial.

    What its runs answered, its figure over those turns, and why the all-declared figure below is not a
    measure of the model.
    """
    cov = cell_coverage(r, c)
    metric = rank_metric(r.track)
    agg, ad = c.metrics.get(metric), c.all_declared.get(metric)
    if not cov.partial or agg is None or agg.mean is None:
        return None
    missing = (cov.turns_of or 0) - cov.turns
    record = f" ({fmt(ad.value)})" if ad is not None and ad.value is not None else ""
    return (f"Partial coverage: the runs answered {cov.turns:,} of {cov.turns_of or 0:,} turns ({cov.problems:,} of "
            f"{cov.problems_of or 0:,} problems). Over the turns answered, {metric} is {fmt(agg.mean)}. The "
            f"all-declared figures below{record} count the {missing:,} turns no run attempted as wrong: they are of "
            "record, not a measure of the model, and the cell is not ranked.")


def cell_context(r: ResultsFile, c: CellResult, site_url: str, files: dict[str, str] | None = None,
                 releases: Sequence[ReleaseFile] = ()) -> CellContext:
    """`results/<id>/<cell>.md`: the permalink of one per-cell result (its Cite block names the release in `releases`)."""
    md = cell_path(r, c.cell)
    runs = runs_for_cell(r, c.cell)
    sid = slug(r.submission_id)
    constraint = r.track == "constraint"
    return {
        **page(root_of(md), f"Result {sid}/{slug(c.cell)}"),
        "sid": r.submission_id, "sid_slug": sid, "cell_slug": slug(c.cell),
        "submission_href": url_of(submission_path(r)), "title": r.title,
        "cell": c.cell, "result_id": c.result_id, "track": r.track, "comparator": c.comparator,
        "flags": sorted(c.flags.items()), "runs": c.runs, "valid_runs": c.valid_runs,
        "verdicts": sorted(c.verdicts.items()), "seeds_declared": completion.seeds_text(list(c.seeds_declared)),
        "seeds_reported": completion.seeds_text(list(c.seeds_reported)), "n_declared": c.n_declared,
        "declared": _declared_table(c),
        "all_declared": _all_declared_table(c), "decomposition": None if r.track == "completion" else decomposition_table(r, [c]),
        "metrics": _metrics_table(c), "run_table": run_gate_table(r, runs, name="runs"),
        # a completion cell's hundreds of episodes, one row per task; `run_table` is then their download only
        "task_table": (completion.tasks_table(runs, lambda run: run_path(r, run)) if r.track == "completion"
                       else None),
        "turn_table": turn_table(runs) if constraint else None,
        "n_turns": sum(len(run.turns or []) for run in runs) if constraint else 0,
        "coverage": cell_coverage(r, c).text if constraint else None,
        "partial": _partial(r, c) if constraint else None,
        "late_prereg": r.prereg_written_after_runs,
        "board": ranking.board_label_of(c), "ranking": ranking_line(c.ranking),
        "logs": logs_table(r, set(c.log_sha256)),
        "track_tables": scorer_tables(c.tables.model_dump(mode="json")),
        "bibtex": bibtex(r, c, site_url), "digest": c.digest, "reproduce": visible(r.reproduce),
        "cite": cite_text(r, c.cell, site_url, releases), "verified": r.provenance.verified, "commit": r.provenance.commit,
        "verified_note": verified_note(r),
        "charts": _charts(r, c, files, md) if files is not None else [],
        "run_links": [],
        "completion": completion.cell_claims(r, c) if r.track == "completion" else None,
    }
