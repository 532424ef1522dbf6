"""Constraint-track coverage (issue 14): every turn of every problem a run starts, in order; a ledger on every turn.

Selection is a submitter's lever: deleting the turns a model got wrong raises accuracy over the
turns logged, and setting the ledger to null on exactly the turns whose ledger is unsatisfiable
empties the contradiction channel. So coverage is part of validity:

* a run that starts a problem (`problem_start`) must log each of its turns, 1..n, in that order.
  A turn left out makes the run INCOMPLETE (its missing turns count as wrong in the all-declared
  figure); turns logged out of order make it INVALID;
* a run *declares a ledger* when its method is a ledger method (`ledger_only`, `mus_repair`) or
  when any of its turns logs a ledger. Such a run must log a ledger on every turn: a turn without
  one is a finding (verification fails) and its channel is `unverifiable`, never `consistent`.

Per-run metrics (None-vs-0, for the all-declared figure):

* `turns_declared`: turns of the problem set the run names (its intent-to-treat denominator);
* `turns_missing`: declared turns with no scored record (gaps, and problems never started);
* `turns_missing_in_started`: the part of `turns_missing` inside problems the run started (> 0
  makes the run INCOMPLETE);
* `ledger_declared`: whether the run declares a ledger;
* `ledger_missing`: turns logged without a ledger by a run that declares one; None when the run
  declares no ledger (not applicable), 0 when every turn has its ledger;
* `unverifiable`, `unverifiable_share` (set by `checker.constraint.metrics.aggregate`, per run and per cell): turns
  whose channel is `unverifiable`, and their share of the channel turns (None when there is none);
* `turn_accuracy_all_declared`: correct turns / `turns_declared` (every missing turn counts as
  wrong); None when the problem set has no turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from checker.constraint.metrics import UNVERIFIABLE, Figure
from checker.constraint.problems import ProblemSet
from checker.constraint.turns import TurnRecord
from checker.format.results_model import FindingRecord, TurnResult
from checker.format.schema.constraint import ProblemStart, Turn
from checker.stages.tracks import RunRecord

LEDGER_METHODS = ("ledger_only", "mus_repair")
"""DRIFT-Bench's ledger methods (drift-spec.md §c): they commit a ledger on every turn."""
MAX_LISTED = 10
"""Problems / lines named in one coverage reason or finding (the rest are counted)."""


@dataclass
class Coverage:
    """What the coverage pass found in one constraint run."""

    incomplete: list[str] = field(default_factory=list)
    """Reasons that make the run INCOMPLETE (gaps in started problems)."""
    invalid: list[str] = field(default_factory=list)
    """Reasons that make the run INVALID (turns out of order)."""
    missing_in_started: int = 0
    ledger_declared: bool = False


def declares_ledger(run: RunRecord) -> bool:
    """A ledger method by name, or any turn of the run logs a ledger."""
    if run.start.method in LEDGER_METHODS:
        return True
    return any(isinstance(e, Turn) and e.ledger is not None for e in run.events)


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def check_coverage(run: RunRecord, pset: ProblemSet) -> Coverage:
    """Gaps and order of the turns of every problem the run starts (problems of the set only)."""
    cov = Coverage(ledger_declared=declares_ledger(run))
    logged = _logged_turns(run, pset)
    gaps = []
    for pid, turns in logged.items():
        n = len(pset.problems[pid].turns)
        seen = {tn for tn, _ in turns}
        missing = [tn for tn in range(1, n + 1) if tn not in seen]
        if missing:
            cov.missing_in_started += len(missing)
            gaps.append(f"{pid} turn{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {n}")
        if (unordered := _out_of_order(turns)) is not None:
            tn, line, previous = unordered
            cov.invalid.append(f"{run.path}:{line}: turn {tn} of {pid!r} is logged after turn {previous}: "
                               "a problem's turns are logged in order")
    if gaps:
        cov.incomplete.append(f"{cov.missing_in_started} turn(s) of the problems the run started are not logged "
                              f"({_listed(gaps)}): a run logs every turn of every problem it starts")
    return cov


def _logged_turns(run: RunRecord, pset: ProblemSet) -> dict[str, list[tuple[int, int]]]:
    """Problem of the set the run starts -> its logged (turn number, line), in log order; problems in start order."""
    logged: dict[str, list[tuple[int, int]]] = {}
    for event, line in zip(run.events, run.lines, strict=True):
        if isinstance(event, ProblemStart):
            if event.problem_id in pset.problems:
                logged.setdefault(event.problem_id, [])
        elif isinstance(event, Turn) and event.problem_id in logged:
            logged[event.problem_id].append((event.turn_number, line))
    return logged


def _out_of_order(turns: list[tuple[int, int]]) -> tuple[int, int, int] | None:
    """The first (turn number, line, highest turn before it) logged after a later turn, or None."""
    previous = 0
    for tn, line in turns:
        if tn < previous:
            return tn, line, previous
        previous = max(previous, tn)
    return None


def mark_missing_ledgers(run: RunRecord, turns: Sequence[TurnRecord], cov: Coverage) -> list[FindingRecord]:
    """Set the channel of every ledger-less turn of a ledger-declaring run to `unverifiable`; findings for them.

    Returns the findings (at most one per run, naming the first lines).
    """
    if not cov.ledger_declared:
        return []
    lines = []
    for rec in turns:
        if rec.ledger_size is None:
            rec.channel = UNVERIFIABLE
            lines.append(rec.line)
    if not lines:
        return []
    why = (f"method {run.start.method!r} is a ledger method" if run.start.method in LEDGER_METHODS
           else "other turns of the run log a ledger")
    return [FindingRecord(path=run.path, line=lines[0],
                          message=f"{len(lines)} turn(s) log no ledger although the run declares one ({why}), "
                                  f"at line(s) {_listed([str(x) for x in lines])}: each counts as unverifiable, "
                                  "not consistent")]


def coverage_metrics(turns: Sequence[TurnResult], pset: ProblemSet, cov: Coverage) -> dict[str, Figure | bool]:
    """The per-run coverage metrics (see the module docstring)."""
    declared = pset.n_turns
    correct = sum(t.correct for t in turns)
    return {
        "turns_declared": declared,
        "turns_missing": max(declared - len(turns), 0),
        "turns_missing_in_started": cov.missing_in_started,
        "ledger_declared": cov.ledger_declared,
        "ledger_missing": sum(t.ledger_size is None for t in turns) if cov.ledger_declared else None,
        "turn_accuracy_all_declared": correct / declared if declared else None,
    }


__all__ = ["LEDGER_METHODS", "UNVERIFIABLE", "Coverage", "check_coverage", "coverage_metrics", "declares_ledger",
           "mark_missing_ledgers"]
