"""The data behind the site's charts, and the chart references pages carry (`ChartRef`).

Each chart's data is also given as a table beside it (the same numbers, for readers who cannot see
the chart); its Vega-Lite spec is written to `assets/charts/...` with the data inlined
(`checker.render.charts`). Values are raw: None is undefined and is left out of a chart, never drawn as 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypedDict

from markupsafe import Markup

from checker.format.gate_results import STATUS_LABELS, GateConditions
from checker.format.results_model import CellResult, ResultsFile, RunResult
from checker.render import chart_svg, charts, completion
from checker.render.cell_rows import AGENT_COMPONENTS, CONSTRAINT_CHANNELS, mech_cells, overall_of
from checker.render.charts import Datasets
from checker.render.context import ChartRef
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table


class GateCount(TypedDict):
    """Runs with one status on one gate condition."""

    condition: str
    status: str
    runs: int
    order: int
    """Stacking order of the status (PASS, FAIL, N/A)."""


def chart(name: str, kind: str, datasets: Datasets, alt: str, table: Table, out: dict[str, str],
          prefix: str, empty: str = "No data to draw.") -> ChartRef:
    """Write the spec of a chart into `out` (site path -> text) and return the page's reference to it.

    The page shows the chart as a static SVG (`checker.render.chart_svg`); with nothing to draw it shows
    `empty` (why) in text instead, and neither the SVG nor the spec is written.
    """
    path = f"{prefix}/{name}.vl.json"
    drawn = chart_svg.draw(kind, datasets)
    if drawn is not None:
        out[path] = charts.dumps(charts.spec(kind, datasets))
    return {"name": name, "spec": path if drawn is not None else "", "alt": alt, "table": table,
            "svg": Markup(drawn) if drawn is not None else None, "empty": empty}


def _seed_points(c: CellResult) -> list[Row]:
    """Each valid seed's own bind and bind + abandon boundaries of an agent cell."""
    bind, abandon = c.metrics.get("gds_bind"), c.metrics.get("gds_abandon")
    points: list[Row] = []
    for seed in sorted(bind.values if bind else {}):
        b = bind.values.get(seed) if bind else None
        a = abandon.values.get(seed) if abandon else None
        if b is None:
            continue
        points.append({"cell": c.cell, "seed": seed, "component": "bind", "value": b, "y": b})
        if a is not None:
            points.append({"cell": c.cell, "seed": seed, "component": "abandon", "value": a, "y": b + a})
    return points


def decomposition_data(r: ResultsFile) -> tuple[list[Row], list[Row]]:
    """(means, points) for the stacked decomposition chart of an agent submission."""
    means: list[Row] = []
    points: list[Row] = []
    for c in mech_cells(r):
        for order, comp in enumerate(AGENT_COMPONENTS):
            agg = c.metrics.get(f"gds_{comp}")
            if agg is not None and agg.mean is not None:
                means.append({"cell": c.cell, "component": comp, "share": agg.mean, "order": order,
                              "n_defined": agg.n_defined, "n": agg.n})
        points += _seed_points(c)
    return means, points


def gate_counts(runs: Iterable[RunResult]) -> list[GateCount]:
    """Runs per (gate condition, status), in condition order."""
    counts: Counter[tuple[str, str]] = Counter()
    for run in runs:
        for cond, val in run.gate.items() if run.gate is not None else ():
            counts[(cond, STATUS_LABELS[val.status])] += 1
    order = {"PASS": 0, "FAIL": 1, "N/A": 2}
    return [{"condition": cond, "status": st, "runs": counts[(cond, st)], "order": order.get(st, 3)}
            for cond in GateConditions.model_fields for st in ("PASS", "FAIL", "N/A") if counts[(cond, st)]]


def gate_table(rows: list[GateCount], caption: str) -> Table:
    """The gate outcomes' counts as a table (the chart's data)."""
    return Table("gate-outcomes", caption, [Column("condition", "condition"), Column("status", "status"),
                                            Column("runs", "runs", numeric=True)], rows, empty="No gated run.")


def channel_data(results: Iterable[Listing]) -> list[Row]:
    """Channel counts and shares per model x method (= constraint cell)."""
    rows: list[Row] = []
    for r in results:
        for c in r.cells:
            overall = overall_of(c)
            if overall is None:
                continue
            rows += [{"group": c.cell, "submission": r.submission_id, "channel": ch, "turns": overall.count(ch),
                      "share": overall.share(ch), "ledger_turns": overall.ledger_turns, "order": order}
                     for order, ch in enumerate(CONSTRAINT_CHANNELS)]
    return rows


def depth_data(results: Iterable[Listing]) -> list[Row]:
    """Accuracy per turn depth per model x method."""
    rows: list[Row] = []
    for r in results:
        for c in r.cells:
            tables = c.constraint_tables
            rows += [{"group": c.cell, "submission": r.submission_id, "turn": d.depth, "accuracy": d.accuracy,
                      "turns": d.n_turns, "correct": d.correct}
                     for d in (tables.by_depth.per_turn if tables is not None else []) if d.accuracy is not None]
    return rows


def _agent_charts(results: Sequence[Listing], files: dict[str, str], prefix: str) -> list[ChartRef]:
    rows = gate_counts(run for r in results for run in r.runs)
    total = sum(x["runs"] for x in rows if x["status"] == "FAIL")
    return [chart("gate-outcomes", "gate", {"gate": rows},
                  f"Bar chart of gate outcomes per condition over every agent run; {total} condition "
                  "failures in total. The same numbers are in the table below.",
                  gate_table(rows, "Gate outcomes: runs per condition and status"), files, prefix)]


def constraint_charts(results: Sequence[Listing], files: dict[str, str], prefix: str) -> list[ChartRef]:
    """The channel shares and the accuracy by depth of constraint cells."""
    ch = channel_data(results)
    dp = depth_data(results)
    turns = sorted({t for r in dp if isinstance(t := r["turn"], int)})
    span = f"turns {turns[0]}–{turns[-1]}" if len(turns) > 1 else f"turn {turns[0]}" if turns else "no turn"
    return [
        chart("channels", "channels", {"channels": ch},
              "Normalised bars: share of ledger turns per channel for each model × method cell. "
              "The same numbers are in the table below.",
              Table("channels", "Channel shares per model × method",
                    [Column("submission", "submission"), Column("group", "model × method"),
                     Column("channel", "channel"), Column("turns", "turns", numeric=True),
                     Column("share", "share", numeric=True)], ch), files, prefix,
              empty="no constraint cell has turns with a ledger, so there are no channel shares to draw."),
        chart("depth", "depth", {"depth": dp},
              f"Line chart of accuracy by turn depth ({span}, as the axis shows) per model × method cell; each "
              "point's area shows how many turns stand behind it. The same numbers are in the table below.",
              Table("depth", "Accuracy by turn depth",
                    [Column("submission", "submission"), Column("group", "model × method"),
                     Column("turn", "turn", numeric=True), Column("correct", "correct", numeric=True),
                     Column("turns", "turns", numeric=True),
                     Column("accuracy", "accuracy", numeric=True)], dp), files, prefix,
              empty="no constraint cell has a scored turn with a defined accuracy, so there is no accuracy by "
                    "depth to draw.")]


def track_charts(track: str, results: Sequence[Listing], files: dict[str, str], prefix: str) -> list[ChartRef]:
    """Charts of a track leaderboard (aggregated over submissions; the completion track has its board's chart only)."""
    if track == "agent":
        return _agent_charts(results, files, prefix)
    if track == "completion":
        return []
    return constraint_charts(results, files, prefix)


def _agent_parts(label: str, c: CellResult, ci: list[Row]) -> tuple[list[tuple[str, float | None]], str]:
    """(part, mean share) of an agent cell's decomposition and its note; its intervals go into `ci`."""
    bind = c.metrics.get("gds_bind")
    k, n = (bind.n_defined, bind.n) if bind is not None else (0, c.valid_runs)
    values = [(p, agg.mean if (agg := c.metrics.get(f"gds_{p}")) is not None else None) for p in AGENT_COMPONENTS]
    for boundary, name in (("bind", "gds_bind"), ("bind + abandon", "drift_total")):
        agg = c.metrics.get(name)
        if agg is not None and agg.ci95 is not None:
            ci.append({"label": label, "boundary": boundary, "lo": agg.ci95[0], "hi": agg.ci95[1]})
    return values, f"{k} of {n} valid seeds defined"


def _constraint_parts(c: CellResult) -> tuple[list[tuple[str, float | None]], str]:
    """(channel, share) of a constraint cell's decomposition and its note."""
    overall = overall_of(c)
    values = [(ch, overall.share(ch) if overall else None) for ch in CONSTRAINT_CHANNELS]
    return values, f"{(overall.ledger_turns if overall else None) or 0} turns with a ledger"


def parts_data(track: str, items: list[tuple[str, CellResult, str]]) -> dict[str, list[Row]]:
    """Datasets of the per-cell decomposition chart (`charts._cells`): means, intervals, undefined marks.

    `items` are (label, cell, why-undefined) in the order the chart lists them.
    """
    out: dict[str, list[Row]] = {"means": [], "ci": [], "undefined": []}
    for label, c, why in items:
        if track == "agent":
            values, note = _agent_parts(label, c, out["ci"])
        elif track == "completion":
            values, bounds, note = completion.parts(c)
            out["ci"] += [{"label": label, **b} for b in bounds]
        else:
            values, note = _constraint_parts(c)
        if all(v is None for _p, v in values):
            out["undefined"].append({"label": label, "why": why or "undefined"})
            continue
        out["means"] += [{"label": label, "part": part, "share": v, "order": order, "n": note}
                         for order, (part, v) in enumerate(values) if v is not None]
    return out
