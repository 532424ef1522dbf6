"""A track's leaderboard page (`leaderboards/<track>.md`) and the ranked board the home page shows too.

The board (`checker.render.ranking.board`) is computed once per track by the build and handed to
both pages (`BoardRef`); the track page adds its forest plot, the decomposition chart of the rows not
ranked, the null results and the track's charts (`checker.render.chart_data`). Each row appears in one
table only: a submission's cells, with their decomposition, are on its own page.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from checker.render import completion, ranking
from checker.render.cell_rows import TRACK_LABELS
from checker.render.chart_data import chart, parts_data, track_charts
from checker.render.context import BoardRef, ChartRef, TrackContext, page
from checker.render.metrics import higher_is_better
from checker.render.null_results import null_table, release_of
from checker.render.paths import root_of
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table


def board_chart(b: ranking.Board, results: Sequence[Listing], files: dict[str, str], prefix: str) -> ChartRef | None:
    """The decomposition of the rows that do not rank (one stacked bar each, in table order).

    None when every row ranks, or when no row that does not rank has a decomposition to draw (every one is
    undefined: the chart would repeat the ranked table's "not ranked because" column as dashed boxes). A
    ranked row's decomposition is beside its ranked figure in the forest plot (`forest_chart`).
    """
    cells = {(r.submission_id, c.cell): c for r in results for c in r.cells}
    items = []
    for row in b.table.rows:
        if row["rank"] is not None:
            continue
        rank = "— "
        items.append((f"{rank}{row['cell']} · {row['submission_id']}", cells[(str(row["submission_id"]), str(row["cell"]))],
                      str(row["why"])))
    if not items:
        return None
    data = parts_data(b.track, items)
    if not data["means"]:
        return None
    what = {"agent": "bind / abandon / aligned", "completion": " / ".join(completion.PARTS)}.get(
        b.track, "consistent / drift / contradiction / other")
    table = Table(f"parts-{b.track}", "Decomposition of each row not ranked (the chart's data)",
                  [Column("label", "cell"), Column("part", "part"), Column("share", "share", numeric=True),
                   Column("n", "n")], data["means"] + [{"label": u["label"], "part": u["why"]} for u in data["undefined"]],
                  empty="No cells.")
    return chart(f"parts-{b.track}", f"cells-{b.track}", data,
                 f"Stacked bars, one per row that does not rank, in the table's order: {what} shares (means over "
                 "valid seeds), with 95% bootstrap intervals where a cell has enough seeds and the number of seeds or "
                 f"turns behind each bar in its tooltip; {len(data['undefined'])} cell(s) drawn as an explicit 'undefined' mark. "
                 "The same numbers are in the table below.", table, files, prefix)


def forest_chart(b: ranking.Board, results: Sequence[Listing], files: dict[str, str], prefix: str) -> ChartRef:
    """The ranked figure with its 95% interval, one row per ranked cell grouped by board, the decomposition beside it."""
    cells = {(r.submission_id, c.cell): c for r in results for c in r.cells}
    ranked: list[Row] = []
    items = []
    for i, (doc, rows) in enumerate(b.sections, 1):
        ranked.append({"label": f"Board {i}: {doc['label']}", "header": True, "figure": None, "lo": None, "hi": None,
                       "interval": None, "why_no_interval": None, "board": i, "rank": None, "n": None})
        for row in rows:
            label = f"#{row['rank']} {row['cell']} · {row['submission_id']}"
            ranked.append({"label": label, "header": False, "figure": row["figure"], "lo": row["ci_lo"],
                           "hi": row["ci_hi"], "interval": row["interval"], "board": i, "rank": row["rank"],
                           "n": row["n"],
                           "why_no_interval": None if row["ci_lo"] is not None else row["interval"] or "none"})
            items.append((label, cells[(str(row["submission_id"]), str(row["cell"]))], str(row["why"])))
    data = parts_data(b.track, items)
    points = [x for x in ranked if not x["header"]]
    bare = sum(1 for x in points if x["lo"] is None)
    table = Table(f"forest-{b.track}", "Ranked figure and its 95% interval per ranked cell, by board (the chart's data)",
                  [Column("board", "board", numeric=True), Column("label", "rank, cell, submission"),
                   Column("figure", f"{b.metric} all declared", numeric=True), Column("lo", "95% low", numeric=True),
                   Column("hi", "95% high", numeric=True), Column("why_no_interval", "no interval because"),
                   Column("n", "n")], points, empty="Nothing ranked yet.")
    ref = chart(f"forest-{b.track}", f"forest-{b.track}", {"ranked": ranked, **data},
                f"Forest plot: one row per ranked cell ({len(points)} on {len(b.sections)} board(s), grouped under "
                f"each board's label, in rank order): the all-declared {b.metric} as a point and its 95% interval as "
                f"a bar; {bare} row(s) without an interval show the point and say why. Beside it, each row's "
                "decomposition (shares). The same numbers are in the table below.", table, files, prefix,
                empty="nothing is ranked on this track yet, so there is no ranked figure to plot (every row, and "
                      "why it is not ranked, is in the table below).")
    if ref["svg"] is not None and b.track in ("agent", "constraint"):
        # every point, interval, n and share is a cell of the ranked table on the same page: point there (the
        # completion board's table has no column per part of its decomposition, so its chart keeps its own table)
        ref["data_in"] = f"table-{b.table.name}"
    return ref


def _channels_in_board(charts: list[ChartRef], b: ranking.Board) -> None:
    """Point the channel shares chart to the board's tables when they hold every share it draws.

    Each cell's consistent / drift / contradiction / other shares are columns of the ranked table or of the table
    of submissions not ranked, the same numbers: the chart's data is those tables, pointed to, not a third table.
    """
    shares = {(str(row["submission_id"]), str(row["cell"])): row for t in (b.table, b.unranked) for row in t.rows}
    for ref in charts:
        if ref["name"] != "channels" or ref["svg"] is None:
            continue
        rows = ref["table"].rows
        if all(shares.get((str(r["submission"]), str(r["group"])), {}).get(f"{r['channel']}_share", "?") == r["share"]
               for r in rows):
            ref.pop("shown", None)
            ref["data_in"] = f"table-{b.table.name}"
            ref["data_note"] = Markup(
                "Every share this chart draws is a share column (consistent, drift, contradiction, other) of the "
                f'<a href="#table-{b.table.name}">ranked table</a> or of the <a href="#table-{b.unranked.name}">table '
                "of submissions not ranked</a>; the downloads also hold each channel's turns.")


def board_ref(b: ranking.Board, chart_ref: ChartRef | None = None) -> BoardRef:
    """A track's ranked leaderboard as a page shows it (with its decomposition chart when given)."""
    higher = higher_is_better(b.metric)
    ref: BoardRef = {"track": b.track, "label": TRACK_LABELS[b.track], "href": f"leaderboards/{b.track}/",
                     "metric": b.metric, "direction": "higher is better ↑" if higher else "lower is better ↓",
                     "table": b.table, "unranked": b.unranked, "leader_groups": ranking.leader_groups(b.leaders),
                     "n_ranked": b.n_ranked,
                     "n_undefined": b.n_undefined, "n_not_ranked": b.n_not_ranked, "n_unranked": len(b.unranked.rows),
                     "excluded_because": b.excluded_because,
                     "boards": [(doc, len(rows)) for doc, rows in b.sections]}
    if chart_ref is not None:
        ref["chart"] = chart_ref
    return ref


def _track_headline(track: str, subset: Sequence[Listing]) -> str:
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


def track_context(track: str, results: Sequence[Listing], files: dict[str, str], has_definition: bool,
                  board: ranking.Board | None = None) -> TrackContext:
    """`leaderboards/<track>.md` (`board`: the track's board, built here when None)."""
    md = f"leaderboards/{track}.md"
    prefix = f"assets/charts/leaderboards/{track}"
    subset = [r for r in results if r.track == track]
    b = board if board is not None else ranking.board(track, subset)
    # the accuracy by depth draws the ranked rows, in rank order (its table lists every cell)
    charts = track_charts(track, subset, files, prefix,
                          [(str(row["submission_id"]), str(row["cell"])) for _doc, rows in b.sections for row in rows])
    _channels_in_board(charts, b)
    return {
        **page(root_of(md), f"{track.capitalize()} track leaderboard"),
        "track": track, "track_label": TRACK_LABELS[track], "n_submissions": len(subset),
        "null_table": null_table(subset),
        "charts": charts,
        "forest": forest_chart(b, subset, files, prefix),
        "definition": f"../tracks/{track}.md" if has_definition else "",
        "board": board_ref(b, board_chart(b, subset, files, prefix)),
        "release": release_of(results), "headline": _track_headline(track, subset), "comparisons_href": "",
    }
