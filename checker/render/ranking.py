"""Ranked leaderboards: one row per (non-comparator) cell, ordered by the track's all-declared figure.

The rule (issue 16): a track ranks its cells by the all-declared (intent-to-treat) figure of its
`RANK_BY` metric, in the direction the metric registry declares; ties share a rank (1, 2, 2, 4).
Cells whose figure is undefined follow the ranked ones, unranked, with a badge saying why
("undefined: 0 reference beats"). Comparator cells are not drift results and never appear here.
Submissions whose results say `ranked: false` are listed in a separate, labelled table and never
ranked. A constraint cell that covers less than half of its problem set's turns is *small n*
(`checker.render.evidence`): it is listed after the full cells with that mark and is not ranked
against them. Rows carry the mechanism decomposition right after the cell name, then who and what
produced them (system, backbone, harness, dates, checker version). After the figure, its interval and n: the
models the logs show, the LLM tokens the logs record, and the cost where the manifest declares a price
(`cell_cost`: derived tokens × declared price, marked so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

from checker.format.boards_model import (
    EMPTY,
    NO_LLM,
    BoardDoc,
    BoardRowDoc,
    BoardsDocument,
    backbone_label,
    cell_model_labels,
    cell_models,
)
from checker.format.numbers import fmt, is_number
from checker.format.results_model import CellResult, RunResult
from checker.format.schema.manifest import ModelPrice
from checker.render import completion
from checker.render.evidence import SMALL_N, cell_coverage, prereg_label
from checker.render.metrics import definition, header, higher_is_better, rank_metric
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.stream import Listing
from checker.render.tables import Column, Table, state_once

UNDEFINED_BECAUSE = {"agent": "0 reference beats", "constraint": "0 scored turns", "completion": "0 declared episodes"}
"""Why a track's ranking figure is undefined when the runs behind it have nothing to count."""
KEEP = ("rank", "cell", "figure", "ci95", "n", "models", "submission_id")
"""Columns a board's table always shows; any other column with one value in every row is stated once above it
(`checker.render.tables.state_once`): the board key of a single-board track, a profile, a blank column."""
FACETS = [("board_label", "board"), ("models", "model"), ("backbone", "backbone (declared)"), ("ranked", "ranked"),
          ("data", "data"), ("profile", "profile")]
"""The leaderboard's filters; one is offered only when its value varies across the rows (`Table.facet_options`)."""
CHANNELS = ("consistent", "drift", "contradiction", "other")
LEADERS_LISTED = 3
"""A board's rows ranked first are listed one by one up to this many; more are one line saying how many tie, with
the best figure's row (every row is in the ranked table)."""


class Identity(TypedDict):
    """Who and what produced a submission's cells (the leaderboard's columns after the figures)."""

    system: str | None
    backbone: str
    harness: str | None
    submitted: str | None
    verified: str | None
    checker: str
    profile: str
    data: str
    """`synthetic` or `real`."""
    submission_id: str
    href: str


class BoardRow(Identity, total=False):
    """One leaderboard row (raw values; undefined is None); the mechanism keys are the track's."""

    cell: str
    cell_href: str
    figure: float | None
    """The all-declared figure of the ranking metric; for a partial-coverage row, its figure over the turns it answered."""
    figure_note: str | None
    """What `figure` is over when it is not the all-declared figure (a partial-coverage row); None otherwise."""
    valid_only: float | None
    rank: str | None
    """The rank range on the row's board (`1`, `1–2`; `checker.pipeline.boards`); None: not ranked."""
    rank_best: int | None
    ranked: str
    """`ranked` or `not ranked` (the ranked/unranked filter)."""
    board: str | None
    """The board id (`checker.stages.boards`): rows of different boards never share a rank."""
    board_label: str
    ci95: str | None
    """The ranked figure's 95% interval (and how it was computed), or why there is none."""
    ci_lo: float | None
    ci_hi: float | None
    """The ranked figure's 95% interval as numbers (the forest plot); None: none (see `interval`)."""
    interval: str | None
    """How the interval was computed, or why there is none (the boards document's words)."""
    n: str | None
    """What the ranked figure pools: seeds or problems (and turns)."""
    models: str
    """The language models the logs show (`no LLM — scripted` when no log records a model call)."""
    valid_of_declared: str
    why: str
    """Why the row is not ranked (empty when it is)."""
    prereg: str | None
    coverage: str | None
    small_n: bool
    tokens: float | None
    """LLM tokens the cell's valid runs' logs record (Σ prompt + completion over their LLM calls); None: not derived."""
    cost: float | None
    """USD: the valid runs' input and output tokens times the manifest's declared price of each run's model (`cell_cost`);
    None: no price declared, or the tokens are not known (`cost_why`)."""
    cost_note: str | None
    """`(declared price)` beside a cost; None without one."""
    cost_why: str | None
    """Why there is no cost (None when there is one)."""
    # agent
    drift_total: float | None
    gds_bind: float | None
    gds_abandon: float | None
    gds_aligned: float | None
    ref_beats: float | None
    completions: float | None
    # constraint
    turn_accuracy: float | None
    """The reference code's partial-credit accuracy, all declared: the conformance figure, unranked."""
    consistent_share: float | None
    drift_share: float | None
    contradiction_share: float | None
    other_share: float | None
    turns: int | None
    # completion (`checker.render.completion.row_extras`)
    verified_ci: str | None
    episodes: int | None
    verified_k: int | None
    claimed_rate: float | None
    false_claim_rate: float | None
    false_claims: str | None
    pass_k: float | None
    pass_k_label: str | None
    board_key: str | None


@dataclass
class Board:
    """A track's leaderboard: the ranked table, the table of unranked submissions, and who leads."""

    track: str
    metric: str
    """The ranking metric's key (`RANK_BY`)."""
    table: Table
    unranked: Table
    """Submissions whose results say `ranked: false` (never ranked), with the reason."""
    leaders: list[BoardRow]
    """The row(s) ranked first (several on a tie); empty when nothing is ranked."""
    excluded_because: list[tuple[str, int]]
    """Why submissions are not ranked: (reason, cells) per distinct reason, most cells first."""
    n_ranked: int
    n_undefined: int
    """Rows whose figure is undefined (listed last, with the reason)."""
    boards: list[BoardDoc]
    """The track's boards (`checker.pipeline.boards`): key, rule and methods of each."""
    sections: list[tuple[BoardDoc, list[BoardRow]]] = field(default_factory=list)
    """Each board key that ranks something, with its ranked rows in rank order (they are rows of `table` too)."""
    n_not_ranked: int = 0
    """Rows with a figure that do not rank on their board (too few seeds, partial coverage...), with the reason."""

    def named(self, name: str) -> Board:
        """The same board with its tables named for another page (`<name>`, `<name>-unranked`): new Table objects."""
        return replace(self, table=replace(self.table, name=name),
                       unranked=replace(self.unranked, name=f"{name}-unranked"))


class LeaderGroup(TypedDict):
    """The rows ranked first on one board, as the "who ranks first" summary shows them."""

    board_label: str
    rows: list[BoardRow]
    """Every row ranked first, or only the best figure's when more than `LEADERS_LISTED` tie."""
    tied: int
    """How many rows share rank 1 when they are summed up in one line (more than `LEADERS_LISTED`); 0 otherwise."""
    ranks: str
    """Their rank range (`1–16`), or the narrowest and widest when they differ (`1–2 to 1–16`)."""


def leader_groups(leaders: Sequence[BoardRow]) -> list[LeaderGroup]:
    """The rows ranked first, by board in table order: listed when few, else one line for the tie."""
    groups: list[LeaderGroup] = []
    for x in leaders:
        if not groups or groups[-1]["rows"][0]["board"] != x["board"]:
            groups.append({"board_label": x["board_label"], "rows": [], "tied": 0, "ranks": ""})
        groups[-1]["rows"].append(x)
    for g in groups:
        ranks = sorted({str(x["rank"]) for x in g["rows"]}, key=lambda r: (int(r.split("–")[-1]), r))
        g["ranks"] = ranks[0] if len(ranks) == 1 else f"{ranks[0]} to {ranks[-1]}"
        if len(g["rows"]) > LEADERS_LISTED:
            g["tied"], g["rows"] = len(g["rows"]), g["rows"][:1]
    return groups


def _mean(c: CellResult, name: str) -> float | None:
    agg = c.metrics.get(name)
    return agg.mean if agg is not None else None


def _share(c: CellResult, channel: str) -> float | None:
    """A channel's share of the cell's turns with a ledger (the cell's mean of the runs' shares when undefined)."""
    tables = c.constraint_tables
    value = tables.overall.share(channel) if tables is not None else None
    return value if value is not None else _mean(c, f"{channel}_share")


def _sum(c: CellResult, name: str) -> float | None:
    agg = c.metrics.get(name)
    if agg is None:
        return None
    vals = [v for v in agg.values.values() if v is not None]
    return sum(vals) if vals else None


def is_ranked(r: Listing) -> tuple[bool, str]:
    """(ranked, why not): the integrity rules' verdict in the results file (`ranked`, `unranked_reason`)."""
    return r.ranked, r.unranked_reason or ""


def _counted(run: RunResult, track: str) -> object:
    """What a run's ranking figure counts: its reference beats (agent) or its scored turns (constraint)."""
    if track == "constraint":
        return run.metric("turns") or 0
    return run.gds.reference_beats if run.gds is not None else run.metric("drift_ref_beats")


def _nothing_counted(r: Listing, c: CellResult) -> bool | None:
    """Whether every VALID run of the cell has nothing to count (0 reference beats, 0 turns); None: no VALID run."""
    runs = [run for run in r.runs if run.cell == c.cell and run.verdict == "VALID"]
    if not runs:
        return None
    return r.track in UNDEFINED_BECAUSE and all(_counted(run, r.track) == 0 for run in runs)


def why_undefined(r: Listing, c: CellResult, metric: str) -> str:
    """Why a cell's ranking figure is undefined, in a few words for a badge."""
    if metric not in c.all_declared:
        return "undefined: no declared seeds (no pre-registration)" if not c.n_declared else "undefined: no all-declared figure"
    nothing = _nothing_counted(r, c)
    if nothing is None:
        return "undefined: no valid run"
    if nothing:
        return "undefined: " + UNDEFINED_BECAUSE[r.track]
    return f"undefined: {metric} undefined for every declared seed"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _harness(harness: object) -> str | None:
    if isinstance(harness, dict):
        return " ".join(str(harness[k]) for k in ("name", "version") if harness.get(k)) or None
    return _text(harness)


def data_label(r: Listing) -> str:
    """`reference baseline — no LLM`, `synthetic` or `real`, derived from the logs.

    No run records a model call (nor names a model backbone): a scripted reference baseline when the
    maintainers' generator made it, else synthetic; the manifest's `synthetic: false` alone never makes a
    row `real`.
    """
    models = {m for c in r.cells for m in cell_models(r, c)}
    if models:
        return "synthetic" if r.synthetic else "real"
    harness = r.manifest.get("harness")
    generated = isinstance(harness, dict) and harness.get("name") == "driftboard baselines"
    return "reference baseline — no LLM" if generated else "synthetic"


def _identity(r: Listing) -> Identity:
    m = r.manifest
    backbone = _text(m.get("backbone"))
    return {"system": _text(m.get("system")), "backbone": backbone_label(r, backbone) if backbone else "not stated",
            "harness": _harness(m.get("harness")), "submitted": r.provenance.submitted,
            "verified": r.provenance.verified, "checker": r.checker_version, "profile": r.profile,
            "data": data_label(r), "submission_id": r.submission_id,
            "href": url_of(submission_path(r))}


def _mechanism(r: Listing, c: CellResult, row: BoardRow) -> None:
    """The track's decomposition (and tokens) of the cell, into `row`."""
    if r.track == "completion":
        row.update(completion.row_extras(c))
        return
    if r.track == "agent":
        row.update({"drift_total": _mean(c, "drift_total"), "gds_bind": _mean(c, "gds_bind"),
                    "gds_abandon": _mean(c, "gds_abandon"), "gds_aligned": _mean(c, "gds_aligned"),
                    "ref_beats": _mean(c, "drift_ref_beats"), "completions": _sum(c, "completions"),
                    "tokens": _sum(c, "llm_tokens")})
        return
    tables = c.constraint_tables
    conformance = c.all_declared.get("turn_accuracy")
    row.update({"turn_accuracy": conformance.value if conformance is not None else None,
                "consistent_share": _share(c, "consistent"), "drift_share": _share(c, "drift"),
                "contradiction_share": _share(c, "contradiction"), "other_share": _share(c, "other"),
                "turns": tables.overall.turns if tables is not None else None, "tokens": _sum(c, "llm_tokens")})


PRICED = "(declared price)"
"""Beside every cost: the price is the submitter's word; the tokens are derived from the logs."""
PER_TOKEN = 1e-6
"""Prices are declared per million tokens."""


def _prices(r: Listing) -> dict[str, ModelPrice]:
    """The manifest's declared prices (model -> price); a malformed entry is left out (never a guessed price)."""
    declared = r.manifest.get("prices")
    out: dict[str, ModelPrice] = {}
    if not isinstance(declared, dict):
        return out
    for model, price in declared.items():
        try:
            out[str(model)] = ModelPrice.model_validate(price)
        except ValueError:
            continue
    return out


def cell_cost(r: Listing, c: CellResult) -> tuple[float | None, str | None]:
    """(cost in USD, None) of a cell's valid runs, or (None, why there is none).

    Cost = Σ over the cell's valid runs of the input tokens × the input price + the output tokens × the output
    price of the run's model (the run's backbone), prices per million tokens as the manifest declares them
    (`prices`). Tokens come from the logs' LLM calls (`llm_input_tokens`, `llm_output_tokens`), never from the
    manifest; a declared token count or cost is never read.
    """
    prices = _prices(r)
    if not prices:
        return None, "no price declared"
    runs = [run for run in r.runs if run.cell == c.cell and run.verdict == "VALID"]
    if not runs:
        return None, "no valid run"
    total = 0.0
    for run in runs:
        tokens_in, tokens_out = run.metric("llm_input_tokens"), run.metric("llm_output_tokens")
        if not is_number(tokens_in) or not is_number(tokens_out):
            return None, "tokens not derived from the logs"
        if not run.backbone:
            return None, "a run names no model"
        price = prices.get(run.backbone)
        if price is None:
            return None, f"no price declared for {run.backbone}"
        total += (tokens_in * price.input_usd_per_mtok + tokens_out * price.output_usd_per_mtok) * PER_TOKEN
    return round(total, 9), None


def cell_row(r: Listing, c: CellResult, metric: str) -> BoardRow:
    """One leaderboard row (raw values; undefined is None)."""
    ad = c.all_declared.get(metric)
    figure = ad.value if ad is not None else None
    declared = f"{c.valid_runs} of {c.n_declared or c.runs}" + (" declared" if c.n_declared else " reported")
    models = cell_model_labels(r, c)
    row: BoardRow = {**_identity(r), "cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)), "figure": figure,
                     "valid_only": _mean(c, metric), "rank": None, "rank_best": None,
                     "board": c.ranking.board if c.ranking is not None else None,
                     "board_label": board_label_of(c), "ci95": None, "ci_lo": None, "ci_hi": None,
                     "interval": None, "n": None,
                     "models": ", ".join(models) if models else NO_LLM, "valid_of_declared": declared,
                     "why": "" if figure is not None else why_undefined(r, c, metric), "prereg": prereg_label(r),
                     "coverage": None, "small_n": False, "figure_note": None}
    cost, why = cell_cost(r, c)
    row.update({"tokens": None, "cost": cost, "cost_note": PRICED if cost is not None else None, "cost_why": why})
    _mechanism(r, c, row)
    if r.track == "constraint":
        cov = cell_coverage(r, c)
        row["coverage"], row["small_n"] = cov.text, bool(cov.small_n)
        if row["small_n"] and figure is not None:
            row["why"] = f"{SMALL_N}: under half of the problem set's turns, not ranked"
        if cov.partial and figure is not None:
            # Honest summary (`Coverage.partial`): the coverage and the figure over the turns answered, never a
            # figure divided by turns no run attempted. It never ranks.
            row["figure"], row["n"] = _mean(c, metric), f"{cov.problems:,} problems, {cov.turns:,} turns"
            row["figure_note"] = f"over the {cov.turns:,} turns answered: {cov.problems:,} of {cov.problems_of or 0:,} problems"
            row["turn_accuracy"] = _mean(c, "turn_accuracy")
    return row


def board_label_of(c: CellResult) -> str:
    """The cell's board key in words (— when it has none): track, environment, profile, protocol."""
    key = c.ranking.key if c.ranking is not None else {}
    if not key:
        return "—"
    env = [f"{k.replace('_', ' ')} {v[:12] + '…' if k.endswith('_digest') else v}" for k, v in sorted(key.items())
           if k not in ("track", "profile", "protocol")]
    return " · ".join([f"{key['track']} track", *env, f"profile {key['profile']}", f"protocol {key['protocol']}"])


def _apply(row: BoardRow, doc: BoardRowDoc | None, c: CellResult) -> None:
    """The board's verdict on a row: its rank range, interval and n, or why it is not ranked."""
    if doc is None:
        if c.ranking is not None and c.ranking.reason and row["figure"] is not None:
            row["why"] = "not ranked: " + c.ranking.reason
        return
    row["rank"], row["rank_best"], row["figure"], row["figure_note"] = doc["rank"], doc["rank_best"], doc["figure"], None
    ci = doc["ci95"]
    row["ci95"] = f"[{fmt(ci[0])}, {fmt(ci[1])}]" if ci is not None else doc["interval"]
    row["ci_lo"], row["ci_hi"] = (ci[0], ci[1]) if ci is not None else (None, None)
    row["interval"] = doc["interval"]
    unit = "tasks" if c.completion_tables is not None else "seeds"
    row["n"] = f"{doc['n']} problems, {doc['turns']:,} turns" if doc["turns"] is not None else f"{doc['n']} {unit}"
    row["why"] = ""


def rank_rows(rows: list[BoardRow], higher: bool) -> list[BoardRow]:
    """Ranked rows by board, then rank range and figure; then unranked rows with a figure, small n last; then the rest."""
    sign = -1 if higher else 1
    ranked = sorted((x for x in rows if x["rank"] is not None),
                    key=lambda x: (x["board"] or "", x["rank_best"] or 0, sign * (x["figure"] or 0.0),
                                   x["submission_id"], x["cell"]))
    # a small-n row after every other row with a figure: a few turns never sit above a result with more evidence
    with_figure = sorted((x for x in rows if x["rank"] is None and x["figure"] is not None),
                         key=lambda x: (bool(x.get("small_n")), sign * (x["figure"] or 0.0), x["submission_id"],
                                        x["cell"]))
    undefined = sorted((x for x in rows if x["figure"] is None), key=lambda x: (x["submission_id"], x["cell"]))
    out = ranked + with_figure + undefined
    for x in out:
        x["ranked"] = "ranked" if x["rank"] is not None else "not ranked"
    return out


def columns(track: str, metric: str) -> list[Column]:
    """Rank and cell first, the ranking figure, the mechanism decomposition, then identity."""
    fig = Column("figure", f"{header(metric)} all declared", numeric=True, note="figure_note",
                 help=f"Ranking figure: {definition(metric)} Missing, incomplete or invalid declared runs count "
                      "as the worst value. A row that answered only part of its problem set (every declared run "
                      "valid) shows its figure over the turns it answered, says so, and is not ranked.")
    head = [Column("rank", "#", help="Rank range on the row's board: 1 + rows significantly better, to N − rows "
                                      "significantly worse (paired tests, Holm-corrected); overlapping ranges tie."),
            Column("board", "board", help="Track, environment (world, or problem split and digest), profile, protocol: "
                                          "rows of different boards never share a rank."),
            Column("cell", "cell", link="cell_href"), fig,
            Column("ci95", "95% interval", help="Seeds: bootstrap from ≥ 5 values; problems: cluster bootstrap over "
                                                "problems (Wilson under 5 problems)."),
            Column("n", "n"), Column("models", "model(s) (from the logs)"),
            Column("tokens", "LLM tokens (from the logs)", numeric=True,
                   help="Prompt + completion tokens of the LLM calls the valid runs' logs record (derived, never "
                        "declared)."),
            Column("cost", "cost (USD)", numeric=True, prefix="$", note="cost_note", undefined_note="cost_why",
                   help="The valid runs' input and output tokens (from the logs) times the price per million tokens "
                        "the manifest declares for each run's model: a declared price, never a declared cost or "
                        "token count. — where no price is declared or the tokens are not known, with the reason.")]
    if track == "agent":
        mech = [Column("drift_total", f"{header('drift_total')} valid runs only", numeric=True,
                       help=definition("drift_total")),
                Column("gds_bind", header("gds_bind"), numeric=True, help=definition("gds_bind")),
                Column("gds_abandon", header("gds_abandon"), numeric=True, help=definition("gds_abandon")),
                Column("gds_aligned", header("gds_aligned"), numeric=True, help=definition("gds_aligned")),
                Column("ref_beats", "reference beats (mean)", numeric=True),
                Column("completions", f"{header('completions')} (total, valid runs)", numeric=True,
                       help="Levels completed, summed over the cell's valid runs (one definition everywhere: "
                            "a total with its runs beside it; cell pages also give the mean per run).")]
    elif track == "completion":
        mech = list(completion.COLUMNS)
    else:
        mech = [Column("turn_accuracy", f"{header('turn_accuracy')} all declared (conformance, unranked)", numeric=True,
                       note="figure_note", help=definition("turn_accuracy"))]
        mech += [Column(f"{ch}_share", f"{ch} share", numeric=True) for ch in CHANNELS]
        mech.append(Column("turns", "turns", numeric=True))
        mech.append(Column("coverage", "n of N (problem set)"))
    tail = [Column("valid_of_declared", "valid of declared"), Column("why", "not ranked because", badge=True),
            Column("submission_id", "submission", link="href"), Column("system", "system"),
            Column("backbone", "backbone"), Column("harness", "harness"), Column("data", "data"),
            Column("profile", "profile"), Column("prereg", "pre-registration"),
            Column("submitted", "submitted"), Column("verified", "verified"),
            Column("checker", "checker")]
    return head + mech + tail


def _rows(track: str, results: Sequence[Listing], metric: str,
          docs: dict[str, BoardRowDoc]) -> tuple[list[BoardRow], list[BoardRow]]:
    """(rows of ranked submissions, rows of the others with why) of a track's drift cells."""
    rows: list[BoardRow] = []
    excluded: list[BoardRow] = []
    for r in results:
        if r.track != track:
            continue
        ranked, reason = is_ranked(r)
        for c in r.cells:
            if c.comparator:
                continue
            row = cell_row(r, c, metric)
            if ranked:
                _apply(row, docs.get(c.result_id), c)
                rows.append(row)
            else:
                row["why"] = "not ranked: " + (reason or "excluded by the integrity rules")
                excluded.append(row)
    # small-n rows last here too: a few turns never sit above a result with more evidence
    return rows, sorted(excluded, key=lambda x: (bool(x.get("small_n")), x["submission_id"], x["cell"]))


def board(track: str, results: Sequence[Listing], name: str = "leaderboard", doc: BoardsDocument | None = None) -> Board:
    """The ranked leaderboard of a track over every results file of that track: one board per key, ranks from `doc`.

    `doc`: the boards document of these results (`boards.json`, computed by `checker.pipeline.boards`; None: no
    boards, so nothing is ranked).
    """
    metric = rank_metric(track)
    higher = bool(higher_is_better(metric))
    boards = [b for b in (doc or EMPTY)["boards"] if b["track"] == track]
    docs = {row["result_id"]: row for b in boards for row in b["rows"]}
    ranked, excluded = _rows(track, results, metric, docs)
    rows = rank_rows(ranked, higher)
    arrow = "higher is better ↑" if higher else "lower is better ↓"
    cols = columns(track, metric)
    table = state_once(Table(name, f"Ranked by {metric}, all declared runs ({arrow}), one board per key (rows of "
                                   "different boards never share a rank); unranked rows last, with the reason",
                             cols, rows, empty=f"No {track}-track cells yet.", facets=FACETS, sticky=True), KEEP)
    # the ranked table above it carries each header's definition (its tooltip); said once per page, not twice
    excl = state_once(Table(f"{name}-unranked", "Submissions excluded from ranking by the integrity rules (never ranked)",
                            [replace(c, help=None) for c in cols], excluded, empty="None.", sticky=True), KEEP)
    reasons: dict[str, int] = {}
    for x in excluded:
        reasons[x["why"]] = reasons.get(x["why"], 0) + 1
    because = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    return Board(track, metric, table, excl, [x for x in rows if x["rank_best"] == 1], because,
                 sum(1 for x in rows if x["rank"] is not None), sum(1 for x in rows if x["figure"] is None), boards,
                 _sections(boards, rows),
                 sum(1 for x in rows if x["rank"] is None and x["figure"] is not None))


def _sections(boards: list[BoardDoc], rows: list[BoardRow]) -> list[tuple[BoardDoc, list[BoardRow]]]:
    """Each board with ranked rows, in the boards document's order, with its ranked rows in rank order."""
    out: list[tuple[BoardDoc, list[BoardRow]]] = []
    for b in boards:
        mine = [x for x in rows if x["board"] == b["id"] and x["rank"] is not None]
        if mine:
            out.append((b, mine))
    return out
