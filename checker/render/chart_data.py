"""The data behind the site's charts, and the chart references pages carry (`ChartRef`).

Each chart's data is also given as a table beside it (the same numbers, for readers who cannot see
the chart); its Vega-Lite spec is written to `assets/charts/...` with the data inlined
(`checker.render.charts`). Values are raw: None is undefined and is left out of a chart, never drawn as 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
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
from checker.render.text import fmt


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
    """Accuracy per turn depth per model x method.

    `series` names each line: the cell, and its submission when the rows come from more than one.
    """
    rows: list[Row] = []
    for r in results:
        for c in r.cells:
            tables = c.constraint_tables
            rows += [{"group": c.cell, "submission": r.submission_id, "turn": d.depth, "accuracy": d.accuracy,
                      "turns": d.n_turns, "correct": d.correct}
                     for d in (tables.by_depth.per_turn if tables is not None else []) if d.accuracy is not None]
    many = len({row["submission"] for row in rows}) > 1
    return [{**row, "series": f"{row['group']} · {row['submission']}" if many else str(row["group"])} for row in rows]


def _long_to_wide(rows: Sequence[Row], column: Callable[[Row], str], text: Callable[[Row], str],
                  keep: tuple[str, ...] = ()) -> dict[tuple[str, str], dict[str, object]]:
    """One row per (submission, cell) of a chart's points, in first-seen order: `column(point)` -> `text(point)`.

    `keep`: columns of the points copied as they are (the first point's value).
    """
    wide: dict[tuple[str, str], dict[str, object]] = {}
    for r in rows:
        row = wide.setdefault((str(r["submission"]), str(r["group"])),
                              {"submission": r["submission"], "group": r["group"], **{k: r[k] for k in keep}})
        row[column(r)] = text(r)
    return wide


def channel_table(rows: Sequence[Row], name: str = "channels") -> Table:
    """The channel shares long to wide: one row per cell, one column per channel (`share · turns`).

    The downloads of the chart's own table (`channels`, one row per cell and channel) hold the same numbers as
    numbers, this table's its rows.
    """
    wide = _long_to_wide(rows, lambda r: str(r["channel"]), lambda r: f"{fmt(r['share'])} · {r['turns']}",
                         ("ledger_turns",))
    return Table(f"{name}-wide", "Channel shares per model × method: share · turns of each channel, of the turns "
                 "with a ledger", [Column("submission", "submission"), Column("group", "model × method"),
                                   Column("ledger_turns", "turns with a ledger", numeric=True),
                                   *[Column(ch, ch) for ch in CONSTRAINT_CHANNELS]],
                 list(wide.values()), sortable=False)


def depth_table(rows: Sequence[Row], name: str = "depth", first: Sequence[tuple[str, str]] | None = None) -> Table:
    """The accuracy by depth long to wide: one row per cell, one column per turn (`accuracy · correct/turns`).

    16 cells over 10 turns were 132 rows of six columns (18 KB of a leaderboard page); the downloads of the
    chart's own table (`depth`, one row per point) hold the same numbers as numbers, this table's its rows.
    `first`: the cells the chart draws (a leaderboard's ranked rows): the page shows those rows, in that order
    (`Table.limit`), and its downloads every cell (each one not ranked is also on its submission's page).
    """
    turns = sorted({t for r in rows if isinstance(t := r["turn"], int)})
    wide = _long_to_wide(rows, lambda r: f"turn-{r['turn']}", lambda r: f"{fmt(r['accuracy'])} · {r['correct']}/{r['turns']}")
    order = list(wide)
    limit = None
    if first is not None:
        drawn = [key for key in first if key in wide]
        order = drawn + [key for key in wide if key not in set(drawn)]
        limit = len(drawn) if 0 < len(drawn) < len(order) else None
    return Table(f"{name}-wide", "Accuracy by turn depth per cell: accuracy · correct / turns at each turn" +
                 (", the cells the chart draws first" if limit is not None else ""),
                 [Column("submission", "submission"), Column("group", "model × method"),
                  *[Column(f"turn-{t}", f"turn {t}") for t in turns]],
                 [wide[key] for key in order], sortable=False, limit=limit)


def _agent_charts(results: Sequence[Listing], files: dict[str, str], prefix: str) -> list[ChartRef]:
    rows = gate_counts(run for r in results for run in r.runs)
    total = sum(x["runs"] for x in rows if x["status"] == "FAIL")
    return [chart("gate-outcomes", "gate", {"gate": rows},
                  f"Bar chart of gate outcomes per condition over every agent run; {total} condition "
                  "failures in total. The same numbers are in the table below.",
                  gate_table(rows, "Gate outcomes: runs per condition and status"), files, prefix)]


def constraint_charts(results: Sequence[Listing], files: dict[str, str], prefix: str,
                      drawn: Sequence[tuple[str, str]] | None = None) -> list[ChartRef]:
    """The channel shares and the accuracy by depth of constraint cells.

    `drawn`: the (submission, cell) pairs whose accuracy by depth is drawn, in this order (a leaderboard's ranked
    rows: 16 lines in 8 colours read as none); None draws every cell. The table under the chart lists every cell.
    """
    ch = channel_data(results)
    dp = depth_data(results)
    turns = sorted({t for r in dp if isinstance(t := r["turn"], int)})
    span = f"turns {turns[0]}–{turns[-1]}" if len(turns) > 1 else f"turn {turns[0]}" if turns else "no turn"
    lines = dp
    which = "per model × method cell"
    if drawn:  # none ranked: every cell is drawn
        order = {key: i for i, key in enumerate(drawn)}
        lines = sorted((r for r in dp if (r["submission"], r["group"]) in order),
                       key=lambda r: order[(str(r["submission"]), str(r["group"]))])
        cells = {(r["submission"], r["group"]) for r in dp}
        which = (f"per ranked cell, in rank order ({len({(r['submission'], r['group']) for r in lines})} of the "
                 f"{len(cells)} cells; the table below lists them first, its downloads every cell)")
    depth = chart("depth", "depth", {"depth": lines},
                  f"Line chart of accuracy by turn depth ({span}, as the axis shows) {which}; each point's area "
                  "shows how many turns stand behind it. The same numbers are in the table below.",
                  Table("depth", "Accuracy by turn depth",
                        [Column("submission", "submission"), Column("group", "model × method"),
                         Column("turn", "turn", numeric=True), Column("correct", "correct", numeric=True),
                         Column("turns", "turns", numeric=True),
                         Column("accuracy", "accuracy", numeric=True)], dp), files, prefix,
                  empty="no constraint cell has a scored turn with a defined accuracy, so there is no accuracy by "
                        "depth to draw." if not dp else "no ranked cell has a scored turn with a defined accuracy: "
                        "every cell's accuracy by depth is in the table below.")
    if dp:
        depth["shown"] = depth_table(dp, first=drawn)
    out = [
        chart("channels", "channels", {"channels": ch},
              "Normalised bars: share of ledger turns per channel for each model × method cell. "
              "The same numbers are in the table below.",
              Table("channels", "Channel shares per model × method",
                    [Column("submission", "submission"), Column("group", "model × method"),
                     Column("channel", "channel"), Column("turns", "turns", numeric=True),
                     Column("share", "share", numeric=True)], ch), files, prefix,
              empty="no constraint cell has turns with a ledger, so there are no channel shares to draw."),
        depth]
    if ch:
        out[0]["shown"] = channel_table(ch)
    return out


def track_charts(track: str, results: Sequence[Listing], files: dict[str, str], prefix: str,
                 drawn: Sequence[tuple[str, str]] | None = None) -> list[ChartRef]:
    """Charts of a track leaderboard (aggregated over submissions; the completion track has its board's chart only)."""
    if track == "agent":
        return _agent_charts(results, files, prefix)
    if track == "completion":
        return []
    return constraint_charts(results, files, prefix, drawn)


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
