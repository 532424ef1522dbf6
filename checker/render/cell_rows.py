"""The per-cell rows several page kinds show: a submission's decomposition table, a cell's figures.

One row per cell, raw values (None when undefined, shown as "—"), read from the cell's aggregates
(`CellResult.metrics`) and its track's typed tables (`checker.format.cell_tables`): the agent
decomposition (bind / aligned / abandon), the constraint channels (consistent / drift /
contradiction / other) or the completion track's claimed / verified decomposition
(`checker.render.completion`), completions, correct turns or verified episodes first.
"""

from __future__ import annotations

from collections.abc import Iterable

from checker.format.cell_tables import ConstraintAggregate
from checker.format.results_model import CellResult, ResultsFile
from checker.render import completion
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table

TRACK_LABELS = {"agent": "Agent track: commitment vs binding drift",
                "constraint": "Constraint track: satisfiable drift vs contradiction",
                "completion": "Completion track: claimed vs verified completion"}
AGENT_COMPONENTS = ("bind", "abandon", "aligned")
CONSTRAINT_CHANNELS = ("consistent", "drift", "contradiction", "other")


def number(v: object) -> float | int | None:
    """`v` when it is a number (a flag is not), else None."""
    return v if isinstance(v, int | float) and not isinstance(v, bool) else None


def mean_of(cell: CellResult, name: str) -> float | None:
    """The cell's mean of a metric: its aggregate's, else its agent table's figure (None when neither has it)."""
    agg = cell.metrics.get(name)
    if agg is not None:
        return agg.mean
    figure = cell.agent_tables.figure(name) if cell.agent_tables is not None else None
    return figure.mean if figure is not None else None


def n_defined_of(cell: CellResult, name: str) -> str | None:
    """`k of n`: the seeds where a metric is defined, of the counted ones (None when the cell has no such figure)."""
    agg = cell.metrics.get(name)
    if agg is not None:
        return f"{agg.n_defined} of {agg.n}"
    figure = cell.agent_tables.figure(name) if cell.agent_tables is not None else None
    return f"{figure.n_defined} of {figure.n}" if figure is not None else None


def overall_of(cell: CellResult) -> ConstraintAggregate | None:
    """A constraint cell's pooled figures over its VALID runs (None for any other cell)."""
    tables = cell.constraint_tables
    return tables.overall if tables is not None else None


def mech_cells(r: ResultsFile) -> list[CellResult]:
    """The cells that are drift results (every cell but the comparators)."""
    return [c for c in r.cells if not c.comparator]


def _completions(cell: CellResult) -> float | None:
    agg = cell.metrics.get("completions")
    if agg is None or not agg.n_defined:
        return None
    return sum(v for v in agg.values.values() if v is not None)


def agent_cell_rows(results: Iterable[Listing]) -> list[Row]:
    """One row per agent cell: completions first, then the decomposition."""
    return [{"submission_id": r.submission_id, "href": url_of(submission_path(r)), "cell": c.cell,
             "cell_href": url_of(cell_path(r, c.cell)), "comparator": c.comparator,
             "valid_runs": c.valid_runs, "runs": c.runs, "completions": _completions(c),
             "gds_bind": mean_of(c, "gds_bind"), "gds_aligned": mean_of(c, "gds_aligned"),
             "gds_abandon": mean_of(c, "gds_abandon"), "drift_total": mean_of(c, "drift_total"),
             "n_defined": n_defined_of(c, "gds_bind"), "drift_ref_beats": mean_of(c, "drift_ref_beats")}
            for r in results for c in r.cells]


AGENT_CELL_COLUMNS = [
    Column("submission_id", "submission", link="href"), Column("cell", "cell", link="cell_href"),
    Column("completions", "completions (total)", numeric=True), Column("valid_runs", "valid runs", numeric=True),
    Column("runs", "runs", numeric=True), Column("gds_bind", "bind", numeric=True),
    Column("gds_aligned", "aligned", numeric=True), Column("gds_abandon", "abandon", numeric=True),
    Column("drift_total", "drift total", numeric=True), Column("n_defined", "seeds defined"),
    Column("drift_ref_beats", "reference beats (mean)", numeric=True)]
def _decomposition_row(r: ResultsFile, c: CellResult) -> Row:
    overall = overall_of(c)
    row: dict[str, object] = {"cell": c.cell, "cell_href": url_of(cell_path(r, c.cell)),
                              "valid_runs": c.valid_runs, "runs": c.runs}
    keys = ("turns", "correct_turns", "turn_accuracy", "ledger_turns", *CONSTRAINT_CHANNELS,
            *(f"{ch}_share" for ch in CONSTRAINT_CHANNELS), "drift_rate", "contradiction_rate", "other_rate")
    for key in keys:
        row["correct" if key == "correct_turns" else key] = getattr(overall, key) if overall else None
    return row


DECOMPOSITION_COLUMNS = [
    Column("cell", "cell", link="cell_href"), Column("correct", "correct turns", numeric=True),
    Column("turns", "turns", numeric=True), Column("turn_accuracy", "accuracy", numeric=True),
    Column("valid_runs", "valid runs", numeric=True), Column("runs", "runs", numeric=True),
    Column("ledger_turns", "turns with ledger", numeric=True),
    *[Column(ch, ch, numeric=True) for ch in CONSTRAINT_CHANNELS],
    *[Column(f"{ch}_share", f"{ch} share", numeric=True) for ch in CONSTRAINT_CHANNELS],
    Column("drift_rate", "residual drift rate", numeric=True),
    Column("contradiction_rate", "residual contradiction rate", numeric=True),
    Column("other_rate", "residual other rate", numeric=True)]
"""The constraint decomposition table's columns."""


def decomposition_table(r: ResultsFile, cells: list[CellResult], name: str = "decomposition") -> Table:
    """Per cell: the track's decomposition (agent, constraint, or the completion track's claimed vs verified)."""
    if r.track == "completion":
        return completion.decomposition_table(r, cells, name)
    if r.track == "agent":
        wanted = {c.cell for c in cells}
        rows = [row for row in agent_cell_rows([r]) if row["cell"] in wanted]
        cols = [c for c in AGENT_CELL_COLUMNS if c.key != "submission_id"]
        return Table(name, "Per-cell decomposition: bind / aligned / abandon, means over valid seeds", cols, rows,
                     empty="No cells.")
    return Table(name, "Per-cell decomposition: consistent / drift / contradiction / other (counts and shares of "
                 "turns with a ledger; residual rates = share of wrong turns)", DECOMPOSITION_COLUMNS,
                 [_decomposition_row(r, c) for c in cells], empty="No cells.")
