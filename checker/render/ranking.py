"""Ranked leaderboards: one row per (non-comparator) cell, ordered by the track's all-declared figure.

The rule (issue 16): a track ranks its cells by the all-declared (intent-to-treat) figure of its
`RANK_BY` metric, in the direction the metric registry declares; ties share a rank (1, 2, 2, 4).
Cells whose figure is undefined follow the ranked ones, unranked, with a badge saying why
("undefined: 0 reference beats"). Comparator cells are not drift results and never appear here.
Submissions whose results say `ranked: false` are listed in a separate, labelled table and never
ranked. A constraint cell that covers less than half of its problem set's turns is *small n*
(`checker.render.evidence`): it is listed after the full cells with that mark and is not ranked
against them. Rows carry the mechanism decomposition right after the cell name, then who and what
produced them (system, backbone, harness, dates, checker version, tokens where logged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker.format.results_model import CellResult, ResultsFile
from checker.render import completion
from checker.render.evidence import SMALL_N, cell_coverage, prereg_label
from checker.render.metrics import definition, header, higher_is_better, rank_metric
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.tables import Column, Table

UNDEFINED_BECAUSE = {"agent": "0 reference beats", "constraint": "0 scored turns", "completion": "0 declared episodes"}
"""Why a track's ranking figure is undefined when the runs behind it have nothing to count."""
FACETS = [("backbone", "backbone"), ("data", "data"), ("profile", "profile")]


@dataclass
class Board:
    """A track's leaderboard: the ranked table, the table of unranked submissions, and who leads."""

    track: str
    metric: str
    """The ranking metric's key (`RANK_BY`)."""
    table: Table
    unranked: Table
    """Submissions whose results say `ranked: false` (never ranked), with the reason."""
    leaders: list[dict[str, Any]]
    """The row(s) ranked first (several on a tie); empty when nothing is ranked."""
    excluded_because: list[tuple[str, int]]
    """Why submissions are not ranked: (reason, cells) per distinct reason, most cells first."""
    n_ranked: int
    n_undefined: int
    """Rows listed after the ranked ones: undefined figure or small n."""


def _mean(c: CellResult, name: str) -> float | None:
    agg = c.metrics.get(name)
    return agg.mean if agg is not None else None


def _share(c: CellResult, key: str) -> float | None:
    overall = c.tables.get("overall")
    v = overall.get(key) if isinstance(overall, dict) else None
    return v if isinstance(v, int | float) and not isinstance(v, bool) else _mean(c, key)


def _sum(c: CellResult, name: str) -> float | None:
    agg = c.metrics.get(name)
    if agg is None:
        return None
    vals = [v for v in agg.values.values() if v is not None]
    return sum(vals) if vals else None


def is_ranked(r: ResultsFile) -> tuple[bool, str]:
    """(ranked, why not): the integrity rules' verdict in the results file (`ranked`, `unranked_reason`)."""
    return r.ranked, r.unranked_reason or ""


def why_undefined(r: ResultsFile, c: CellResult, metric: str) -> str:
    """Why a cell's ranking figure is undefined, in a few words for a badge."""
    if metric not in c.all_declared:
        return "undefined: no declared seeds (no pre-registration)" if not c.n_declared else "undefined: no all-declared figure"
    runs = [run for run in r.runs if run.cell == c.cell and run.verdict == "VALID"]
    if not runs:
        return "undefined: no valid run"
    if r.track == "agent" and all((run.gds.reference_beats if run.gds is not None else run.metric("drift_ref_beats")) == 0
                                  for run in runs):
        return "undefined: " + UNDEFINED_BECAUSE["agent"]
    if r.track == "constraint" and all((run.metric("turns") or 0) == 0 for run in runs):
        return "undefined: " + UNDEFINED_BECAUSE["constraint"]
    return f"undefined: {metric} undefined for every declared seed"


def _identity(r: ResultsFile) -> dict[str, Any]:
    m = r.manifest
    harness = m.get("harness")
    harness_s = None
    if isinstance(harness, dict):
        harness_s = " ".join(str(harness[k]) for k in ("name", "version") if harness.get(k)) or None
    elif isinstance(harness, str):
        harness_s = harness
    return {"system": m.get("system") if isinstance(m.get("system"), str) else None,
            "backbone": m.get("backbone") if isinstance(m.get("backbone"), str) and m.get("backbone") else "not stated",
            "harness": harness_s, "submitted": r.provenance.submitted, "verified": r.provenance.verified,
            "checker": r.checker_version, "profile": r.profile, "data": "synthetic" if r.synthetic else "real",
            "submission_id": r.submission_id, "href": url_of(submission_path(r))}


def cell_row(r: ResultsFile, c: CellResult, metric: str) -> dict[str, Any]:
    """One leaderboard row (raw values; undefined is None)."""
    ad = c.all_declared.get(metric)
    figure = ad.value if ad is not None else None
    row: dict[str, Any] = {**_identity(r), "cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)),
                           "figure": figure, "valid_only": _mean(c, metric), "rank": None,
                           "valid_of_declared": f"{c.valid_runs} of {c.n_declared or c.runs}"
                           + (" declared" if c.n_declared else " reported"),
                           "why": "" if figure is not None else why_undefined(r, c, metric)}
    row["prereg"] = prereg_label(r)
    row["coverage"] = None
    row["small_n"] = False
    if r.track == "constraint":
        cov = cell_coverage(r, c)
        row["coverage"], row["small_n"] = cov["text"], bool(cov["small_n"])
        if row["small_n"] and figure is not None:
            row["why"] = f"{SMALL_N}: under half of the problem set's turns, not ranked"
    if r.track == "agent":
        row.update(drift_total=_mean(c, "drift_total"), gds_bind=_mean(c, "gds_bind"),
                   gds_abandon=_mean(c, "gds_abandon"), gds_aligned=_mean(c, "gds_aligned"),
                   ref_beats=_mean(c, "drift_ref_beats"), completions=_sum(c, "completions"),
                   tokens=_sum(c, "llm_tokens"))
    elif r.track == "completion":
        row.update(completion.row_extras(c))
        placed = completion.board_of(completion.table(c))
        row["board"] = placed
        if placed is None and figure is not None:
            row["small_n"] = True  # listed after the ranked cells, unranked: not comparable with them
            board = completion.table(c).get("board") or {}
            row["why"] = f"not on a board: {board.get('why') or 'no task set'}"
    else:
        for ch in ("consistent", "drift", "contradiction", "other"):
            row[f"{ch}_share"] = _share(c, f"{ch}_share")
        overall = c.tables.get("overall") if isinstance(c.tables.get("overall"), dict) else {}
        row["turns"] = overall.get("turns") if isinstance(overall, dict) else None
        row["tokens"] = _sum(c, "llm_tokens")
    return row


def rank_rows(rows: list[dict[str, Any]], higher: bool) -> list[dict[str, Any]]:
    """Ranked rows, then small-n rows, then undefined ones.

    Ranked rows are ordered by figure in the metric's direction (ties share a rank); small-n rows
    follow by figure, unranked and marked; undefined rows come last, unranked, with why.
    """
    defined = [x for x in rows if x["figure"] is not None and not x.get("small_n")]
    small = [x for x in rows if x["figure"] is not None and x.get("small_n")]
    undefined = [x for x in rows if x["figure"] is None]
    small.sort(key=lambda x: (-x["figure"] if higher else x["figure"], x["submission_id"], x["cell"]))
    defined.sort(key=lambda x: (-x["figure"] if higher else x["figure"], x["submission_id"], x["cell"]))
    prev: float | None = None
    for i, x in enumerate(defined):
        x["rank"] = i + 1 if prev is None or x["figure"] != prev else defined[i - 1]["rank"]
        prev = x["figure"]
    undefined.sort(key=lambda x: (x["submission_id"], x["cell"]))
    return defined + small + undefined


def columns(track: str, metric: str) -> list[Column]:
    """Rank and cell first, the ranking figure, the mechanism decomposition, then identity."""
    fig = Column("figure", f"{header(metric)} all declared", numeric=True,
                 help=f"Ranking figure: {definition(metric)} Missing, incomplete or invalid declared runs count "
                      "as the worst value.")
    head = [Column("rank", "#", numeric=True), Column("cell", "cell", link="cell_href"), fig]
    if track == "agent":
        mech = [Column("drift_total", f"{header('drift_total')} valid runs only", numeric=True,
                       help=definition("drift_total")),
                Column("gds_bind", header("gds_bind"), numeric=True, help=definition("gds_bind")),
                Column("gds_abandon", header("gds_abandon"), numeric=True, help=definition("gds_abandon")),
                Column("gds_aligned", header("gds_aligned"), numeric=True, help=definition("gds_aligned")),
                Column("ref_beats", "reference beats (mean)", numeric=True),
                Column("completions", header("completions"), numeric=True)]
    else:
        mech = [Column(f"{ch}_share", f"{ch} share", numeric=True)
                for ch in ("consistent", "drift", "contradiction", "other")]
        mech.append(Column("turns", "turns", numeric=True))
        mech.append(Column("coverage", "n of N (problem set)"))
    if track == "completion":
        mech = list(completion.COLUMNS)
    tail = [Column("valid_of_declared", "valid of declared"), Column("why", "not ranked because", badge=True),
            Column("submission_id", "submission", link="href"), Column("system", "system"),
            Column("backbone", "backbone"), Column("harness", "harness"), Column("data", "data"),
            Column("profile", "profile"), Column("prereg", "pre-registration"),
            Column("submitted", "submitted"), Column("verified", "verified"),
            Column("checker", "checker"), Column("tokens", "LLM tokens", numeric=True)]
    return head + mech + tail


def _one_board(rows: list[dict[str, Any]]) -> None:
    """Rank like with like: completion cells on the board most cells are on (task set, trials per task); others apart."""
    counts: dict[Any, int] = {}
    for x in rows:
        if x.get("board") is not None:
            counts[x["board"]] = counts.get(x["board"], 0) + 1
    if not counts:
        return
    main = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
    for x in rows:
        if x.get("board") is not None and x["board"] != main and x["figure"] is not None:
            x["small_n"] = True
            x["why"] = (f"another board (task set {str(x['board'][0])[:8]}…, {x['board'][1]} trials per task): "
                        "not ranked with these")


def board(track: str, results: list[ResultsFile], name: str = "leaderboard") -> Board:
    """The ranked leaderboard of a track over every results file of that track."""
    metric = rank_metric(track)
    higher = bool(higher_is_better(metric))
    rows: list[dict[str, Any]] = []
    excluded: list[dict[str, Any]] = []
    for r in results:
        if r.track != track:
            continue
        ranked, reason = is_ranked(r)
        for c in r.cells:
            if c.comparator:
                continue
            row = cell_row(r, c, metric)
            if ranked:
                rows.append(row)
            else:
                row["why"] = "not ranked: " + (reason or "excluded by the integrity rules")
                excluded.append(row)
    if track == "completion":
        _one_board(rows)
    rows = rank_rows(rows, higher)
    arrow = "higher is better ↑" if higher else "lower is better ↓"
    cols = columns(track, metric)
    table = Table(name, f"Ranked by {metric}, all declared runs ({arrow}); small n and undefined figures last, unranked",
                  cols, rows, empty=f"No {track}-track cells yet.", facets=FACETS, sticky=True)
    excl = Table(f"{name}-unranked", "Submissions excluded from ranking by the integrity rules (never ranked)",
                 cols, sorted(excluded, key=lambda x: (x["submission_id"], x["cell"])),
                 empty="None.", sticky=True)
    leaders = [x for x in rows if x["rank"] == 1]
    reasons: dict[str, int] = {}
    for x in excluded:
        reasons[x["why"]] = reasons.get(x["why"], 0) + 1
    because = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    return Board(track, metric, table, excl, leaders, because, sum(1 for x in rows if x["rank"] is not None),
                 sum(1 for x in rows if x["rank"] is None))
