"""Build the typed context of every page from the verified results files.

Everything is gathered here first (style.md §9); templates only format. Keys the scorers may or
may not emit are read defensively: a missing key or None becomes an undefined value, shown as
"—" on the page and left empty/null in downloads, never 0.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from checker.format.errors import visible
from checker.format.release_model import ReleaseFile
from checker.format.report import safe_json
from checker.format.results_model import STATUS_LABELS, CellResult, GateConditions, MetricAggregate, ResultsFile, RunResult
from checker.render import charts, completion, ranking
from checker.render.citation import cite_text
from checker.render.context import (
    BoardRef,
    CellContext,
    ChartRef,
    HomeContext,
    Link,
    Release,
    SubmissionContext,
    SubmissionsContext,
    SummaryRow,
    TrackContext,
    page,
)
from checker.render.evidence import cell_coverage, prereg_label, submission_coverage
from checker.render.metrics import header, higher_is_better, worst_means
from checker.render.paths import cell_path, root_of, submission_path, url_of
from checker.render.runs import run_path
from checker.render.tables import Column, Table
from checker.render.text import slug
from checker.render.turns import turn_table

TRACK_LABELS = {"agent": "Agent track: commitment vs binding drift",
                "constraint": "Constraint track: satisfiable drift vs contradiction",
                "completion": "Completion track: claimed vs verified completion"}
AGENT_COMPONENTS = ("bind", "abandon", "aligned")
CONSTRAINT_CHANNELS = ("consistent", "drift", "contradiction", "other")


# ---------------------------------------------------------------- helpers


def _get(d: Any, *keys: str) -> Any:
    """Nested lookup that yields None for anything missing or of the wrong type."""
    cur = d
    for k in keys:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(k)
    return cur


def _correct(overall: dict[str, Any]) -> Any:
    """Correct turns of a constraint cell (`correct_turns`; older results: `correct`)."""
    return _num(overall.get("correct_turns", overall.get("correct")))


def _num(v: Any) -> float | int | None:
    return v if isinstance(v, int | float) and not isinstance(v, bool) else None


def _metric(cell: CellResult, name: str) -> MetricAggregate | None:
    return cell.metrics.get(name)


def _mean(cell: CellResult, name: str) -> float | None:
    agg = _metric(cell, name)
    if agg is not None:
        return agg.mean
    return _num(_get(cell.tables, name, "mean"))


def _n_defined(cell: CellResult, name: str) -> str | None:
    agg = _metric(cell, name)
    if agg is not None:
        return f"{agg.n_defined} of {agg.n}"
    t = _get(cell.tables, name)
    if isinstance(t, dict) and "n_defined" in t and "n" in t:
        return f"{t['n_defined']} of {t['n']}"
    return None


def _mech_cells(r: ResultsFile) -> list[CellResult]:
    return [c for c in r.cells if not c.comparator]


# ---------------------------------------------------------------- summary (null results first)


def summary_row(r: ResultsFile) -> SummaryRow:
    """One submission's null-result line."""
    nr = r.null_results
    return {"submission_id": r.submission_id, "href": url_of(submission_path(r)), "title": r.title, "track": r.track,
            "synthetic": r.synthetic, "headline": nr.headline, "valid_runs": nr.valid_runs, "runs": nr.runs,
            "completions": nr.completions, "triggered_defeaters": len(nr.triggered_defeaters)}


def null_table(results: Iterable[ResultsFile], name: str = "null-results") -> Table:
    """Completions (or correct turns) and defeaters per submission: the first table of every index."""
    rows = []
    for r in results:
        row: dict[str, Any] = dict(summary_row(r))
        row["title_href"] = row["href"]
        row["prereg"] = prereg_label(r)
        row["coverage"] = submission_coverage(r)["short"]
        rows.append(row)
    return Table(
        name=name, caption="Null results first: completions, valid runs and triggered defeaters per submission",
        columns=[Column("submission_id", "submission", link="href"), Column("title", "title"),
                 Column("track", "track"), Column("headline", "headline"),
                 Column("completions", "completions", numeric=True), Column("valid_runs", "valid runs", numeric=True),
                 Column("runs", "runs", numeric=True),
                 Column("triggered_defeaters", "defeaters triggered", numeric=True),
                 Column("synthetic", "synthetic"), Column("prereg", "pre-registration"),
                 Column("coverage", "n of N (constraint)")],
        rows=rows, empty="No verified submissions yet.")


def agent_cell_rows(results: Iterable[ResultsFile]) -> list[dict[str, Any]]:
    """One leaderboard row per agent cell: completions first, then the decomposition."""
    rows = []
    for r in results:
        for c in r.cells:
            completions = _metric(c, "completions")
            rows.append({
                "submission_id": r.submission_id, "href": url_of(submission_path(r)), "cell": c.cell,
                "cell_href": url_of(cell_path(r, c.cell)), "comparator": c.comparator,
                "valid_runs": c.valid_runs, "runs": c.runs,
                "completions": (sum(v for v in completions.values.values() if v is not None)
                                if completions is not None and completions.n_defined else None),
                "gds_bind": _mean(c, "gds_bind"), "gds_aligned": _mean(c, "gds_aligned"),
                "gds_abandon": _mean(c, "gds_abandon"), "drift_total": _mean(c, "drift_total"),
                "n_defined": _n_defined(c, "gds_bind"), "drift_ref_beats": _mean(c, "drift_ref_beats"),
            })
    return rows


def constraint_cell_rows(results: Iterable[ResultsFile]) -> list[dict[str, Any]]:
    """One leaderboard row per constraint cell: accuracy first, then the channel shares."""
    rows = []
    for r in results:
        for c in r.cells:
            overall = _get(c.tables, "overall") or {}
            row: dict[str, Any] = {
                "submission_id": r.submission_id, "href": url_of(submission_path(r)), "cell": c.cell,
                "cell_href": url_of(cell_path(r, c.cell)), "valid_runs": c.valid_runs, "runs": c.runs,
                "turns": _num(overall.get("turns")), "correct": _correct(overall),
                "turn_accuracy": _num(overall.get("turn_accuracy")) if overall else _mean(c, "turn_accuracy"),
            }
            for ch in CONSTRAINT_CHANNELS:
                key = f"{ch}_share"
                row[key] = _num(overall.get(key)) if overall else _mean(c, key)
            coverage = cell_coverage(r, c)
            row["coverage"], row["small_n"] = coverage["text"], coverage["small_n"]
            row["prereg"] = prereg_label(r)
            rows.append(row)
    return rows


AGENT_CELL_COLUMNS = [
    Column("submission_id", "submission", link="href"), Column("cell", "cell", link="cell_href"),
    Column("completions", "completions", numeric=True), Column("valid_runs", "valid runs", numeric=True),
    Column("runs", "runs", numeric=True), Column("gds_bind", "bind", numeric=True),
    Column("gds_aligned", "aligned", numeric=True), Column("gds_abandon", "abandon", numeric=True),
    Column("drift_total", "drift total", numeric=True), Column("n_defined", "seeds defined"),
    Column("drift_ref_beats", "reference beats (mean)", numeric=True)]
CONSTRAINT_CELL_COLUMNS = [
    Column("submission_id", "submission", link="href"), Column("cell", "cell", link="cell_href"),
    Column("correct", "correct turns", numeric=True), Column("turns", "turns", numeric=True),
    Column("turn_accuracy", "accuracy", numeric=True), Column("valid_runs", "valid runs", numeric=True),
    Column("runs", "runs", numeric=True),
    *[Column(f"{ch}_share", ch, numeric=True) for ch in CONSTRAINT_CHANNELS],
    Column("coverage", "n of N"), Column("prereg", "pre-registration")]


def cell_table(track: str, results: list[ResultsFile], name: str = "cells") -> Table:
    """The per-cell leaderboard of a track."""
    if track == "agent":
        return Table(name, "Agent cells: completions, then bind / aligned / abandon (means over valid seeds)",
                     AGENT_CELL_COLUMNS, agent_cell_rows(results), empty="No agent-track cells yet.")
    if track == "completion":
        per = [(r, completion.decomposition_table(r, r.cells, cell_path, name)) for r in results]
        rows = [{**row, "submission_id": r.submission_id, "href": url_of(submission_path(r))} for r, t in per for row in t.rows]
        return Table(name, "Completion cells: claimed vs verified over the declared episodes",
                     [Column("submission_id", "submission", link="href"), *completion.DECOMPOSITION_COLUMNS], rows,
                     empty="No completion-track cells yet.")
    # small-n cells after all others (stable): a few turns never sit above a result with more evidence
    rows = sorted(constraint_cell_rows(results), key=lambda row: bool(row.get("small_n")))
    return Table(name, "Constraint cells: accuracy, then consistent / drift / contradiction / other (share of "
                 "turns with a ledger); n of N = problems and turns answered of the declared problem set, cells "
                 "marked small n (under half of it) listed last and not ranked", CONSTRAINT_CELL_COLUMNS, rows,
                 empty="No constraint-track cells yet.")


# ---------------------------------------------------------------- charts


def _chart(name: str, kind: str, datasets: dict[str, list[dict[str, Any]]], alt: str, table: Table,
           out: dict[str, str], prefix: str) -> ChartRef:
    path = f"{prefix}/{name}.vl.json"
    out[path] = charts.dumps(charts.spec(kind, datasets))
    return {"name": name, "spec": path, "alt": alt, "table": table}


def decomposition_data(r: ResultsFile) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(means, points) for the stacked decomposition chart of an agent submission."""
    means: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    for c in _mech_cells(r):
        for order, comp in enumerate(AGENT_COMPONENTS):
            agg = _metric(c, f"gds_{comp}")
            if agg is None or agg.mean is None:
                continue
            means.append({"cell": c.cell, "component": comp, "share": agg.mean, "order": order,
                          "n_defined": agg.n_defined, "n": agg.n})
        bind, abandon = _metric(c, "gds_bind"), _metric(c, "gds_abandon")
        for seed in sorted(bind.values if bind else {}):
            b = bind.values.get(seed) if bind else None
            a = abandon.values.get(seed) if abandon else None
            if b is None:
                continue
            points.append({"cell": c.cell, "seed": seed, "component": "bind", "value": b, "y": b})
            if a is not None:
                points.append({"cell": c.cell, "seed": seed, "component": "abandon", "value": a, "y": b + a})
    return means, points


def gate_counts(runs: Iterable[RunResult]) -> list[dict[str, Any]]:
    """Runs per (gate condition, status), in condition order."""
    counts: Counter[tuple[str, str]] = Counter()
    names: list[str] = list(GateConditions.model_fields)
    for run in runs:
        if run.gate is None:
            continue
        for cond, val in run.gate.items():
            counts[(cond, STATUS_LABELS[val.status])] += 1
    order = {"PASS": 0, "FAIL": 1, "N/A": 2}
    return [{"condition": cond, "status": st, "runs": counts[(cond, st)], "order": order.get(st, 3)}
            for cond in names for st in ("PASS", "FAIL", "N/A") if counts[(cond, st)]]


def channel_data(results: Iterable[ResultsFile]) -> list[dict[str, Any]]:
    """Channel counts and shares per model x method (= constraint cell)."""
    rows = []
    for r in results:
        for c in r.cells:
            overall = _get(c.tables, "overall")
            if not isinstance(overall, dict):
                continue
            ledger = _num(overall.get("ledger_turns"))
            for order, ch in enumerate(CONSTRAINT_CHANNELS):
                n = _num(overall.get(ch))
                if n is None:
                    continue
                rows.append({"group": c.cell, "submission": r.submission_id, "channel": ch, "turns": n,
                             "share": _num(overall.get(f"{ch}_share")), "ledger_turns": ledger, "order": order})
    return rows


def depth_data(results: Iterable[ResultsFile]) -> list[dict[str, Any]]:
    """Accuracy per turn depth per model x method."""
    rows = []
    for r in results:
        for c in r.cells:
            per_turn = _get(c.tables, "by_depth", "per_turn")
            if not isinstance(per_turn, list):
                continue
            for row in per_turn:
                acc = _num(_get(row, "accuracy"))
                if acc is None:
                    continue
                rows.append({"group": c.cell, "submission": r.submission_id, "turn": _num(_get(row, "depth")),
                             "accuracy": acc, "turns": _num(_get(row, "n_turns")),
                             "correct": _num(_get(row, "correct"))})
    return rows


def track_charts(track: str, results: list[ResultsFile], files: dict[str, str], prefix: str) -> list[ChartRef]:
    """Charts of a track leaderboard (aggregated over submissions)."""
    out: list[ChartRef] = []
    if track == "agent":
        rows = gate_counts(run for r in results for run in r.runs)
        table = Table("gate-outcomes", "Gate outcomes: runs per condition and status",
                      [Column("condition", "condition"), Column("status", "status"),
                       Column("runs", "runs", numeric=True)], rows, empty="No gated run.")
        total = sum(x["runs"] for x in rows if x["status"] == "FAIL")
        out.append(_chart("gate-outcomes", "gate", {"gate": rows},
                          f"Bar chart of gate outcomes per condition over every agent run; {total} condition "
                          "failures in total. The same numbers are in the table below.", table, files, prefix))
    else:
        ch = channel_data(results)
        out.append(_chart("channels", "channels", {"channels": ch},
                          "Normalised bars: share of ledger turns per channel for each model × method cell. "
                          "The same numbers are in the table below.",
                          Table("channels", "Channel shares per model × method",
                                [Column("submission", "submission"), Column("group", "model × method"),
                                 Column("channel", "channel"), Column("turns", "turns", numeric=True),
                                 Column("share", "share", numeric=True)], ch), files, prefix))
        dp = depth_data(results)
        out.append(_chart("depth", "depth", {"depth": dp},
                          "Line chart of accuracy by turn depth (1–10) per model × method cell. "
                          "The same numbers are in the table below.",
                          Table("depth", "Accuracy by turn depth",
                                [Column("submission", "submission"), Column("group", "model × method"),
                                 Column("turn", "turn", numeric=True), Column("correct", "correct", numeric=True),
                                 Column("turns", "turns", numeric=True),
                                 Column("accuracy", "accuracy", numeric=True)], dp), files, prefix))
    return out


def _track_charts_of(track: str, results: list[ResultsFile], files: dict[str, str], prefix: str) -> list[ChartRef]:
    """A track's extra charts (the completion track has its decomposition chart only)."""
    return [] if track == "completion" else track_charts(track, results, files, prefix)


# ---------------------------------------------------------------- ranked boards and their charts


def release_of(results: list[ResultsFile]) -> Release:
    """The release the results make up: the newest verification date and its commit (never the clock).

    The id is `<YYYY-MM-DD>+<commit[:7]>` of the most recently verified submission (ties: the larger
    commit id), so the same results give the same id; without committed results it says so.
    """
    dated = sorted((r.provenance.verified, r.provenance.commit or "") for r in results if r.provenance.verified)
    if not dated:
        return {"id": "unreleased (results not committed)", "as_of": None}
    day, commit = dated[-1]
    return {"id": f"{day}+{commit[:7]}" if commit else str(day), "as_of": day}


def parts_data(track: str, items: list[tuple[str, ResultsFile, CellResult, str]]) -> dict[str, list[dict[str, Any]]]:
    """Datasets of the per-cell decomposition chart (`charts._cells`): means, intervals, undefined marks.

    `items` are (label, results, cell, why-undefined) in the order the chart lists them.
    """
    means: list[dict[str, Any]] = []
    ci: list[dict[str, Any]] = []
    undefined: list[dict[str, Any]] = []
    for label, _r, c, why in items:
        if track == "agent":
            parts = [(p, c.metrics.get(f"gds_{p}")) for p in AGENT_COMPONENTS]
            k = c.metrics["gds_bind"].n_defined if "gds_bind" in c.metrics else 0
            n = c.metrics["gds_bind"].n if "gds_bind" in c.metrics else c.valid_runs
            values = [(p, agg.mean if agg is not None else None) for p, agg in parts]
            note = f"{k} of {n} valid seeds defined"
            for boundary, name in (("bind", "gds_bind"), ("bind + abandon", "drift_total")):
                agg = c.metrics.get(name)
                if agg is not None and agg.ci95 is not None:
                    ci.append({"label": label, "boundary": boundary, "lo": agg.ci95[0], "hi": agg.ci95[1]})
        elif track == "completion":
            values, bounds, note = completion.parts(c)
            ci.extend({"label": label, **b} for b in bounds)
        else:
            overall = _get(c.tables, "overall") or {}
            values = [(ch, _num(overall.get(f"{ch}_share"))) for ch in CONSTRAINT_CHANNELS]
            note = f"{_num(overall.get('ledger_turns')) or 0} turns with a ledger"
        if all(v is None for _p, v in values):
            undefined.append({"label": label, "why": why or "undefined"})
            continue
        for order, (part, v) in enumerate(values):
            if v is not None:
                means.append({"label": label, "part": part, "share": v, "order": order, "n": note})
    return {"means": means, "ci": ci, "undefined": undefined}


def _board_chart(b: Any, results: list[ResultsFile], files: dict[str, str], prefix: str) -> ChartRef:
    by_id = {r.submission_id: r for r in results}
    items = []
    for row in b.table.rows:
        r = by_id[row["submission_id"]]
        cell = next(c for c in r.cells if c.cell == row["cell"])
        rank = f"#{row['rank']} " if row["rank"] is not None else "— "
        items.append((f"{rank}{row['cell']} · {row['submission_id']}", r, cell, row["why"]))
    data = parts_data(b.track, items)
    what = {"agent": "bind / abandon / aligned", "completion": " / ".join(completion.PARTS)}.get(
        b.track, "consistent / drift / contradiction / other")
    table = Table(f"parts-{b.track}", "Decomposition per cell, in rank order (the chart's data)",
                  [Column("label", "cell"), Column("part", "part"), Column("share", "share", numeric=True),
                   Column("n", "n")], data["means"] + [{"label": u["label"], "part": u["why"]} for u in data["undefined"]],
                  empty="No cells.")
    return _chart(f"parts-{b.track}", f"cells-{b.track}", data,
                  f"Stacked bars, one per cell in rank order: {what} shares (means over valid seeds), with 95% "
                  "bootstrap intervals where a cell has enough seeds and the number of seeds or turns behind each "
                  f"bar in its tooltip; {len(data['undefined'])} cell(s) drawn as an explicit 'undefined' mark. "
                  "The same numbers are in the table below.", table, files, prefix)


def board_ref(track: str, results: list[ResultsFile], files: dict[str, str] | None, prefix: str,
              name: str = "leaderboard") -> BoardRef:
    """A track's ranked leaderboard (and, when `files` is given, its decomposition chart)."""
    b = ranking.board(track, results, name=name)
    higher = higher_is_better(b.metric)
    ref: BoardRef = {"track": track, "label": TRACK_LABELS[track], "href": f"leaderboards/{track}/", "metric": b.metric,
                     "direction": "higher is better ↑" if higher else "lower is better ↓", "table": b.table,
                     "unranked": b.unranked, "leaders": b.leaders, "n_ranked": b.n_ranked,
                     "n_undefined": b.n_undefined, "n_unranked": len(b.unranked.rows),
                     "excluded_because": b.excluded_because}
    if files is not None:
        ref["chart"] = _board_chart(b, results, files, prefix)
    return ref


# ---------------------------------------------------------------- pages


HOME_ROWS = 10
"""Rows of each track's leaderboard shown on the home page (the track page lists them all)."""


def _home_board(b: BoardRef) -> BoardRef:
    """The home page's cut of a board: the first `HOME_ROWS` rows, saying how many more the track page lists."""
    t = b["table"]
    n = len(t.rows)
    if n > HOME_ROWS:
        t.rows = t.rows[:HOME_ROWS]
        t.caption += f" (first {HOME_ROWS} of {n} rows; the track's leaderboard lists every row)"
    return b


def home_context(results: list[ResultsFile], tracks: list[str], files: dict[str, str]) -> HomeContext:
    """The home page: what is measured, the tracks, null results first, then the mechanism tables."""
    valid = sum(r.null_results.valid_runs for r in results)
    agent = [r for r in results if r.track == "agent"]
    completions = [r.null_results.completions for r in agent if r.null_results.completions is not None]
    mech: list[Table] = []  # the ranked boards replaced the per-submission mechanism tables on the home page
    boards = [board_ref(t, results, None, "", name=f"{t}-leaderboard") for t in tracks]
    return {
        **page("", "Home"),  # type: ignore[typeddict-item]
        "n_submissions": len(results), "n_runs": sum(r.null_results.runs for r in results), "n_valid": valid,
        "completions": sum(completions) if completions else None,
        "agent_valid_runs": sum(r.null_results.valid_runs for r in agent),
        "constraint_valid_runs": sum(r.null_results.valid_runs for r in results if r.track == "constraint"),
        "null_table": null_table(results), "mechanism_tables": mech, "charts": [],
        "tracks": [{"text": TRACK_LABELS[t], "href": f"leaderboards/{t}.md"} for t in tracks],
        "ranked_models": ranked_models(boards),
        "boards": [_home_board(b) for b in boards],
        "release": release_of(results),
    }


def ranked_models(boards: list[BoardRef]) -> list[dict[str, str]]:
    """The language models ranked on a board: the backbone of every ranked row of real (not synthetic) runs."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for b in boards:
        for row in b["table"].rows:
            model = row.get("backbone")
            if row.get("rank") is None or row.get("data") != "real" or not model or model == "not stated":
                continue
            out.setdefault((str(model), b["track"]), {"model": str(model), "track": b["track"], "cell": str(row["cell"]),
                                                        "href": str(row["cell_href"]), "rank": str(row["rank"])})
    return [out[k] for k in sorted(out)]


def _track_headline(track: str, subset: list[ResultsFile]) -> str:
    """The track's null-result line: completions (agent) and valid runs, before any mechanism number."""
    valid = sum(r.null_results.valid_runs for r in subset)
    runs = sum(r.null_results.runs for r in subset)
    defeaters = sum(len(r.null_results.triggered_defeaters) for r in subset)
    if track == "agent":
        done = [r.null_results.completions for r in subset if r.null_results.completions is not None]
        head = f"{sum(done) if done else '—'} completions across {valid} valid runs"
    elif track == "completion":
        done = [r.null_results.completions for r in subset if r.null_results.completions is not None]
        head = f"{sum(done) if done else '—'} verified episodes across {valid} valid runs"
    else:
        head = f"{valid} valid runs"
    return f"{head} ({runs} reported, {len(subset)} submissions); {defeaters} pre-registered defeaters triggered."


def track_context(track: str, results: list[ResultsFile], files: dict[str, str], has_definition: bool) -> TrackContext:
    """`leaderboards/<track>.md`."""
    md = f"leaderboards/{track}.md"
    subset = [r for r in results if r.track == track]
    return {
        **page(root_of(md), f"{track.capitalize()} track leaderboard"),  # type: ignore[typeddict-item]
        "track": track, "track_label": TRACK_LABELS[track], "n_submissions": len(subset),
        "null_table": null_table(subset), "cell_table": cell_table(track, subset),
        "charts": _track_charts_of(track, subset, files, f"assets/charts/leaderboards/{track}"),
        "definition": f"../tracks/{track}.md" if has_definition else "",
        "board": board_ref(track, subset, files, f"assets/charts/leaderboards/{track}"),
        "release": release_of(results), "headline": _track_headline(track, subset),
    }


def submissions_context(results: list[ResultsFile]) -> SubmissionsContext:
    """`submissions/index.md`."""
    return {**page(root_of("submissions/index.md"), "Submissions"),  # type: ignore[typeddict-item]
            "table": null_table(results, name="submissions")}


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


def _runs_for_cell(r: ResultsFile, cell: str) -> list[RunResult]:
    return [run for run in r.runs if run.cell == cell]


def gate_table(r: ResultsFile, runs: list[RunResult], name: str = "gate") -> Table:
    """Per run: verdict and PASS / FAIL / N/A per gate condition with its numbers (the condition's note)."""
    if r.track == "completion":
        return completion.episodes_table(runs, lambda run: run_path(r, run), name)
    conds = list(GateConditions.model_fields) if any(run.gate is not None for run in runs) else []
    rows = []
    for run in runs:
        row: dict[str, Any] = {"run_id": run.run_id, "cell": run.cell, "seed": run.seed, "verdict": run.verdict,
                               "reasons": "; ".join(run.reasons), "run_href": url_of(run_path(r, run))}
        if r.track == "constraint":
            row["turns"] = _num(run.metric("turns"))
            row["turn_accuracy"] = _num(run.metric("turn_accuracy"))
        for cond, c in run.gate.items() if run.gate is not None else ():
            row[cond] = f"{STATUS_LABELS[c.status]} ({c.note})" if c.note else STATUS_LABELS[c.status]
        rows.append(row)
    cols = [Column("run_id", "run", link="run_href"), Column("cell", "cell"), Column("seed", "seed"),
            Column("verdict", "verdict")]
    if r.track == "constraint":
        cols += [Column("turns", "turns", numeric=True), Column("turn_accuracy", "accuracy", numeric=True)]
    cols += [Column(c, c) for c in conds] + [Column("reasons", "reasons")]
    caption = ("Validity gate per run: PASS / FAIL / N/A per condition, with the numbers" if r.track == "agent"
               else "Runs: constraint runs have no validity gate; VALID unless incomplete or unscorable")
    return Table(name, caption, cols, rows, empty="No runs reported.")


def decomposition_table(r: ResultsFile, cells: list[CellResult], name: str = "decomposition") -> Table:
    """Per cell: the track's decomposition (agent, constraint, or the completion track's claimed vs verified)."""
    if r.track == "completion":
        return completion.decomposition_table(r, cells, cell_path, name)
    if r.track == "agent":
        rows = [row for row in agent_cell_rows([r]) if row["cell"] in {c.cell for c in cells}]
        cols = [c for c in AGENT_CELL_COLUMNS if c.key != "submission_id"]
        return Table(name, "Per-cell decomposition: bind / aligned / abandon, means over valid seeds", cols, rows,
                     empty="No cells.")
    rows = []
    for c in cells:
        overall = _get(c.tables, "overall") or {}
        row: dict[str, Any] = {"cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)),
                               "valid_runs": c.valid_runs, "runs": c.runs,
                               "turns": _num(overall.get("turns")), "correct": _correct(overall),
                               "turn_accuracy": _num(overall.get("turn_accuracy")),
                               "ledger_turns": _num(overall.get("ledger_turns"))}
        for ch in CONSTRAINT_CHANNELS:
            row[ch] = _num(overall.get(ch))
            row[f"{ch}_share"] = _num(overall.get(f"{ch}_share"))
        for k in ("drift_rate", "contradiction_rate", "other_rate"):
            row[k] = _num(overall.get(k))
        rows.append(row)
    cols = [Column("cell", "cell", link="cell_href"), Column("correct", "correct turns", numeric=True),
            Column("turns", "turns", numeric=True), Column("turn_accuracy", "accuracy", numeric=True),
            Column("valid_runs", "valid runs", numeric=True), Column("runs", "runs", numeric=True),
            Column("ledger_turns", "turns with ledger", numeric=True),
            *[Column(ch, ch, numeric=True) for ch in CONSTRAINT_CHANNELS],
            *[Column(f"{ch}_share", f"{ch} share", numeric=True) for ch in CONSTRAINT_CHANNELS],
            Column("drift_rate", "residual drift rate", numeric=True),
            Column("contradiction_rate", "residual contradiction rate", numeric=True),
            Column("other_rate", "residual other rate", numeric=True)]
    return Table(name, "Per-cell decomposition: consistent / drift / contradiction / other (counts and shares of "
                 "turns with a ledger; residual rates = share of wrong turns)", cols, rows, empty="No cells.")


def _missing_table(r: ResultsFile) -> Table:
    rows: list[dict[str, Any]] = []
    for kind, items in (("missing (not reported)", r.prereg_check.missing),
                        ("undeclared", r.prereg_check.undeclared),
                        ("prereg digest mismatch", r.prereg_check.digest_mismatch)):
        for item in items:
            rows.append({"kind": kind, "cell": item.get("cell"), "seed": item.get("seed"),
                         "detail": item.get("path") or item.get("run_id") or item.get("reason")})
    for run in r.runs:
        if run.verdict in ("INCOMPLETE", "MALFORMED"):
            rows.append({"kind": run.verdict.lower(), "cell": run.cell, "seed": run.seed,
                         "detail": "; ".join(run.reasons) or run.path})
    return Table("missing", "Missing, undeclared, incomplete and malformed runs",
                 [Column("kind", "kind"), Column("cell", "cell"), Column("seed", "seed"), Column("detail", "detail")],
                 rows, empty="None: every declared run is reported and complete.")


def _mismatch_table(r: ResultsFile) -> Table:
    rows = []
    for run in r.runs:
        for m in run.mismatches:
            rows.append({"run_id": run.run_id, "line": m.line, "field": m.field,
                         "recorded": m.recorded, "recomputed": m.recomputed, "reason": m.reason})
    return Table("log-mismatches", "Recorded vs recomputed values in the logs",
                 [Column("run_id", "run"), Column("line", "line", numeric=True), Column("field", "field"),
                  Column("recorded", "recorded"), Column("recomputed", "recomputed"), Column("reason", "reason")],
                 rows, empty="None: every recorded value matches its recomputation.")


def _claims_table(r: ResultsFile) -> Table:
    rows = [{"cell": c.cell, "metric": c.metric, "claimed": c.claimed, "recomputed": c.recomputed,
             "agrees": c.agrees, "source": c.source} for c in r.claims]
    return Table("claims", "Claimed figures (submission.yaml) vs recomputed",
                 [Column("cell", "cell"), Column("metric", "metric"), Column("claimed", "claimed", numeric=True),
                  Column("recomputed", "recomputed", numeric=True), Column("agrees", "agrees"),
                  Column("source", "source")], rows, empty="No figures claimed.")


def _logs_table(r: ResultsFile, paths: set[str] | None = None) -> Table:
    rows = [{"path": x.path, "run_id": x.run_id, "sha256": x.sha256} for x in r.logs
            if paths is None or x.sha256 in paths]
    # a completion run's id is its submission and episode, as its path says (page weight: hundreds of episodes)
    run_col = [] if r.track == "completion" else [Column("run_id", "run")]
    return Table("logs", "Run logs behind these results (SHA-256 of the file bytes)",
                 [Column("path", "path"), *run_col, Column("sha256", "sha256")], rows,
                 empty="No logs.")


def submission_context(r: ResultsFile, files: dict[str, str], site_url: str) -> SubmissionContext:
    """`submissions/<id>.md`."""
    md = submission_path(r)
    sid = slug(r.submission_id)
    defeaters = Table("defeaters", "Pre-registered defeaters, evaluated",
                      [Column("id", "id"), Column("text", "defeater"), Column("metric", "metric"), Column("op", "op"),
                       Column("threshold", "threshold", numeric=True), Column("value", "value", numeric=True),
                       Column("triggered", "triggered")],
                      [d.model_dump() for d in r.defeaters], empty="No defeaters were pre-registered.")
    prereg = Table("prereg", "Pre-registration",
                   [Column("field", "field"), Column("value", "value")],
                   [{"field": "prereg.yaml SHA-256", "value": r.prereg_sha256},
                    {"field": "profile", "value": r.profile},
                    {"field": "thresholds source", "value": r.thresholds_source},
                    {"field": "problem sets", "value": ", ".join(r.problem_sets) or None},
                    {"field": "written", "value": prereg_label(r)}], sortable=False)
    thresholds = Table("thresholds", "Gate thresholds used", [Column("name", "threshold"), Column("value", "value")],
                       [{"name": k, "value": v} for k, v in sorted(r.thresholds.items())], empty="None.")
    cells_declared = Table(
        "cells", "Cells: declared vs reported seeds",
        [Column("cell", "cell", link="cell_href"), Column("flags", "flags"), Column("comparator", "comparator"),
         Column("seeds_declared", "seeds declared"), Column("seeds_reported", "seeds reported"),
         Column("runs", "runs", numeric=True), Column("valid_runs", "valid runs", numeric=True),
         Column("verdicts", "verdicts")],
        [{"cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)),
          "flags": " ".join(f"{k}={v}" for k, v in sorted(c.flags.items())) or None, "comparator": c.comparator,
          "seeds_declared": _seeds(r, c.seeds_declared), "seeds_reported": _seeds(r, c.seeds_reported),
          "runs": c.runs, "valid_runs": c.valid_runs,
          "verdicts": ", ".join(f"{k} {v}" for k, v in sorted(c.verdicts.items())) or None} for c in r.cells],
        empty="No cells.")
    predictions = Table("predictions", "Pre-registered predictions",
                        [Column("id", "id"), Column("text", "prediction"), Column("metric", "metric"),
                         Column("cell", "cell"), Column("op", "op"), Column("value", "value", numeric=True),
                         Column("observed", "observed", numeric=True), Column("holds", "holds")],
                        [{**p.model_dump(), "value": p.compared_to, "observed": p.value} for p in r.predictions],
                        empty="No predictions were pre-registered.")
    co = r.prereg_check.commit_order
    commit_order = str(co.get("status") or co.get("result") or co.get("message") or "") if co else ""
    findings = Table("findings", "Format problems found while verifying",
                     [Column("path", "path"), Column("line", "line", numeric=True), Column("message", "message"),
                      Column("severity", "severity")], [f.model_dump() for f in r.findings], empty="None.")
    prefix = f"assets/charts/submissions/{sid}"
    chart_refs: list[ChartRef] = []
    mech = _mech_cells(r)
    if r.track == "agent":
        means, points = decomposition_data(r)
        chart_refs.append(_chart(
            "decomposition", "decomposition", {"means": means, "points": points},
            "Stacked bars: mean share of reference beats that are bind, abandon and aligned in each cell; dots "
            "mark each valid seed's own bind and bind + abandon boundaries. The same numbers are in the "
            "decomposition table.",
            Table("decomposition-points", "Per-seed values behind the chart",
                  [Column("cell", "cell"), Column("seed", "seed"), Column("component", "component"),
                   Column("value", "value", numeric=True)], points, empty="No defined per-seed values."),
            files, prefix))
        rows = gate_counts(r.runs)
        chart_refs.append(_chart(
            "gate-outcomes", "gate", {"gate": rows},
            "Bar chart of gate outcomes per condition over this submission's runs. The same numbers are in the "
            "table below.",
            Table("gate-outcomes", "Gate outcomes per condition",
                  [Column("condition", "condition"), Column("status", "status"),
                   Column("runs", "runs", numeric=True)], rows, empty="No gated run."), files, prefix))
    elif r.track == "constraint":
        chart_refs.extend(track_charts("constraint", [r], files, prefix))
    return {
        **page(root_of(md), f"Submission {sid}"),  # type: ignore[typeddict-item]
        "sid": r.submission_id, "sid_slug": sid, "title": r.title, "authors": list(r.authors), "track": r.track,
        "synthetic": r.synthetic, "profile": r.profile, "checker_version": r.checker_version,
        "unranked_reason": None if r.ranked else (r.unranked_reason or "not ranked"),
        "late_prereg": r.prereg_written_after_runs, "coverage": submission_coverage(r)["text"],
        "citation": r.manifest.get("citation") if isinstance(r.manifest.get("citation"), str) else None,
        "headline": r.null_results.headline, "completions": r.null_results.completions,
        "valid_runs": r.null_results.valid_runs, "runs": r.null_results.runs,
        "triggered": list(r.null_results.triggered_defeaters), "defeaters": defeaters, "prereg": prereg,
        "thresholds": thresholds, "cells_declared": cells_declared, "predictions": predictions,
        "commit_order": commit_order, "decomposition": decomposition_table(r, mech),
        "gate": completion.episodes_summary(r, cell_path) if r.track == "completion" else gate_table(r, r.runs),
        "charts": chart_refs, "missing": _missing_table(r), "run_mismatches": _mismatch_table(r),
        "claims": _claims_table(r), "findings": findings, "logs": _logs_table(r),
        "bibtex": bibtex(r, None, site_url), "digest": r.digest, "prereg_sha256": r.prereg_sha256,
        "reproduce": visible(r.reproduce),
        "manifest_fields": [(k, v if isinstance(v, str) else json.dumps(v, sort_keys=True, ensure_ascii=False))
                            for k, v in sorted(r.manifest.items()) if k not in ("claims", "files")],
    }


def _seeds(r: ResultsFile, seeds: list[str]) -> str | None:
    """A cell's seed labels for the submission page (a completion cell's hundreds of episodes in a few words)."""
    return completion.seeds_text(seeds) if r.track == "completion" else ", ".join(seeds) or None


def _cell_charts(r: ResultsFile, c: CellResult, files: dict[str, str], md: str) -> list[ChartRef]:
    """The cell's own decomposition chart (an explicit "undefined" mark when it has none)."""
    if c.comparator:
        return []
    b = ranking.cell_row(r, c, ranking.rank_metric(r.track))
    why = b["why"] or ranking.why_undefined(r, c, ranking.rank_metric(r.track))
    data = parts_data(r.track, [(c.cell, r, c, why)])
    table = Table("parts", "Decomposition of this cell (the chart's data)",
                  [Column("part", "part"), Column("share", "share", numeric=True), Column("n", "n")],
                  data["means"], empty=why or "Undefined.")
    return [_chart("parts", f"cells-{r.track}", data,
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


def cell_context(r: ResultsFile, c: CellResult, site_url: str, files: dict[str, str] | None = None,
                 releases: Sequence[ReleaseFile] = ()) -> CellContext:
    """`results/<id>/<cell>.md`: the permalink of one per-cell result (its Cite block names the release in `releases`)."""
    md = cell_path(r, c.cell)
    rows = []
    for name, agg in sorted(c.metrics.items()):
        rows.append({"metric": name, "mean": agg.mean, "min": agg.min, "max": agg.max,
                     "ci95_low": agg.ci95[0] if agg.ci95 else None, "ci95_high": agg.ci95[1] if agg.ci95 else None,
                     "n_defined": agg.n_defined, "n": agg.n, "pooled": agg.pooled,
                     "per_seed": ", ".join(f"{s}: {'—' if v is None else v}" for s, v in sorted(agg.values.items()))})
    metrics = Table("metrics", "Every metric over the valid seeds (undefined seeds left out, shown as —)",
                    [Column("metric", "metric"), Column("mean", "mean", numeric=True),
                     Column("min", "min", numeric=True), Column("max", "max", numeric=True),
                     Column("ci95_low", "95% CI low", numeric=True), Column("ci95_high", "95% CI high", numeric=True),
                     Column("n_defined", "defined", numeric=True), Column("n", "valid seeds", numeric=True),
                     Column("pooled", "pooled", numeric=True), Column("per_seed", "per seed")], rows,
                    empty="No metric: the cell has no valid run.")
    runs = _runs_for_cell(r, c.cell)
    sid = slug(r.submission_id)
    declared = Table("declared", "Every declared run (intent-to-treat): what became of each declared seed",
                     [Column("seed", "seed"), Column("status", "status"), Column("run_id", "run"),
                      Column("reason", "why not in the valid-only figure")],
                     [o.model_dump() for o in c.declared], empty="No pre-registration declares this cell's seeds.")
    itt_rows = [{"metric": header(name), "all_declared": a.value,
                 "valid_only": c.metrics[name].mean if name in c.metrics else None,
                 "n_declared": a.n_declared, "n_worst": a.n_worst, "n_undefined": a.n_undefined,
                 "worst": worst_means(name)} for name, a in sorted(c.all_declared.items())]
    all_declared = Table("all-declared", "All-declared figures (ranked) beside the valid-only ones",
                         [Column("metric", "metric"), Column("all_declared", "all declared", numeric=True),
                          Column("valid_only", "valid runs only", numeric=True),
                          Column("n_declared", "declared", numeric=True),
                          Column("n_worst", "counted as worst", numeric=True),
                          Column("n_undefined", "undefined", numeric=True), Column("worst", "a failed run counts as")],
                         itt_rows, empty="No all-declared figure (a comparator cell, or no pre-registration).")
    return {
        **page(root_of(md), f"Result {sid}/{slug(c.cell)}"),  # type: ignore[typeddict-item]
        "sid": r.submission_id, "sid_slug": sid, "cell_slug": slug(c.cell),
        "submission_href": url_of(submission_path(r)), "title": r.title,
        "cell": c.cell, "result_id": c.result_id, "track": r.track, "comparator": c.comparator,
        "flags": sorted(c.flags.items()), "runs": c.runs, "valid_runs": c.valid_runs,
        "verdicts": sorted(c.verdicts.items()), "seeds_declared": list(c.seeds_declared),
        "seeds_reported": list(c.seeds_reported), "n_declared": c.n_declared, "declared": declared,
        "all_declared": all_declared, "decomposition": decomposition_table(r, [c]),
        "metrics": metrics, "run_table": gate_table(r, runs, name="runs"),
        "turn_table": turn_table(runs) if r.track == "constraint" else None,
        "coverage": cell_coverage(r, c)["text"] if r.track == "constraint" else None,
        "late_prereg": r.prereg_written_after_runs,
        "logs": _logs_table(r, set(c.log_sha256)),
        "track_tables": safe_json(c.tables).rstrip("\n"),
        "bibtex": bibtex(r, c, site_url), "digest": c.digest, "reproduce": visible(r.reproduce),
        "cite": cite_text(r, c.cell, site_url, releases), "verified": r.provenance.verified, "commit": r.provenance.commit,
        "charts": _cell_charts(r, c, files, md) if files is not None else [],
        "run_links": [],
        "completion": ({"decomposition": completion.decomposition_table(r, [c], cell_path, "claims"),
                        "pass_k": completion.pass_k_table(c), "writes": completion.writes_table(c),
                        "board": completion.board_key_text(completion.table(c))}
                       if r.track == "completion" else None),
    }


__all__ = ["Link", "cell_context", "home_context", "submission_context", "submissions_context", "track_context"]
