"""The per-turn records of a constraint cell, as a table on its permalink page.

Each row is one model turn as the checker recomputed it (parse, completeness, ledger SAT, answer
vs ledger, correctness, channel) next to the labels the log recorded, so a reader can follow a
model's dialogue turn by turn. A cell with more than `MAX_TURN_ROWS` turns shows none here: each run's
page lists every turn (as turn cards, paged), and the results file holds them all.
"""

from __future__ import annotations

from checker.format.results_model import RunResult
from checker.render.tables import Column, Table

MAX_TURN_ROWS = 100
"""Largest per-turn table put on a cell page. A row is about 100 bytes of HTML, and a cell page must load under the
page-weight budget (300 KB, about 230 KB of it the theme): 2,000 rows once made the reference-lite cell pages 490 KB.
A cell with more turns than this links to its run pages instead (a full DRIFT-Bench test-split run is 5,672 turns)."""


def _flag(v: int | None) -> bool | None:
    return None if v is None else bool(v)


def turn_table(runs: list[RunResult], name: str = "turns") -> Table | None:
    """Per-turn records of the given (constraint) runs, in log order; None when there are none or too many."""
    rows = []
    for run in runs:
        for t in run.turns or []:
            rows.append({
                "run_id": run.run_id, "problem_id": t.problem_id, "domain": t.domain, "turn_number": t.turn_number,
                "parse": t.parse, "complete": t.complete, "ledger_size": t.ledger_size, "ledger_sat": t.ledger_sat,
                "answer_satisfies_ledger": t.answer_satisfies_ledger, "correct": t.correct, "channel": t.channel,
                "recorded_z3_sat": _flag(t.recorded_z3_sat),
                "recorded_answer_correct": _flag(t.recorded_answer_correct),
            })
    if not rows or len(rows) > MAX_TURN_ROWS:
        return None
    return Table(name, "Per-turn records: recomputed by the checker, beside the labels the log recorded",
                 [Column("run_id", "run"), Column("problem_id", "problem"), Column("domain", "domain"),
                  Column("turn_number", "turn", numeric=True), Column("parse", "parsed"),
                  Column("complete", "complete"), Column("ledger_size", "ledger size", numeric=True),
                  Column("ledger_sat", "ledger SAT"), Column("answer_satisfies_ledger", "answer ⊨ ledger"),
                  Column("correct", "correct"), Column("channel", "channel"),
                  Column("recorded_z3_sat", "recorded z3_sat"),
                  Column("recorded_answer_correct", "recorded answer_correct")], rows)
