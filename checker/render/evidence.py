"""How much evidence a result rests on, said where the result is shown.

Two labels, both derived from the verified results file only:

* **pre-registration timing**: "written after the runs" when the pre-registration says so
  (`written_after_runs`, e.g. every import of existing runs); otherwise what the commit-order
  check found ("committed before the runs", or a violation); undefined (—) without git history.
* **coverage, "n of N"** (constraint track): problems and gold turns a cell's runs answer, against
  the whole problem set the pre-registration names, counting every declared run (intent to treat:
  a declared run that is missing covers nothing). A cell covering less than `SMALL_N_SHARE` of
  its set's turns is **small n**: it is listed after every other cell and is not ranked against
  them (site/tracks/constraint.md, "Ranking and small n").
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.format.results_model import CellResult, RunResult
from checker.render.stream import Listing

SMALL_N_SHARE = 0.5
"""A constraint cell whose runs answer less than this share of the declared set's turns is "small n"."""
LATE_PREREG = "written after the runs"
LATE_PREREG_BADGE = "pre-registration written after the runs"
SMALL_N = "small n"


@dataclass(frozen=True)
class Coverage:
    """How much of its problem set a constraint cell's runs answer (the counts behind "n of N")."""

    problems: int
    """Distinct problems answered by the cell's VALID runs."""
    problems_of: int | None
    """Problems in the named set (None: no run reports the set's size)."""
    turns: int
    turns_of: int | None
    """The set's turns times the declared runs: the most the cell could answer."""
    runs_of: int
    """Declared runs (reported ones when none is declared)."""
    share: float | None
    small_n: bool | None
    """Under `SMALL_N_SHARE` of `turns_of` (None: undefined)."""
    text: str | None
    """`n of N problems, n of N turns` and the small-n mark (None: undefined)."""
    partial: bool = False
    """Every declared run valid, some turns answered but fewer than `turns_of`: the cell's honest headline is its
    figure over the turns answered (issue 30, item 5). A failed declared run is not partial coverage: it still
    counts as the worst value."""


@dataclass(frozen=True)
class SubmissionCoverage:
    """A constraint submission's evidence in one line (`text`), in a few words for listings (`short`)."""

    text: str | None
    short: str | None
    small_n: bool | None


NO_COVERAGE = SubmissionCoverage(None, None, None)


def prereg_label(r: Listing) -> str | None:
    """When the pre-registration was written, relative to the runs (None: not known)."""
    if r.prereg_written_after_runs:
        return LATE_PREREG
    status = r.prereg_check.commit_order.get("status") if r.prereg_check.commit_order else None
    if status == "ok":
        return "committed before the runs"
    if status == "violated":
        return "committed after the runs (violation)"
    return None


def _count(n: int) -> str:
    return f"{n:,}"


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _set_sizes(runs: list[RunResult]) -> tuple[int | None, int | None]:
    """(problems, turns) of the named set, from the first scored run that reports them."""
    for run in runs:
        problems, turns = _int(run.metric("problems_in_set")), _int(run.metric("turns_in_set"))
        if problems is not None and turns is not None:
            return problems, turns
    return None, None


def _covered(runs: list[RunResult]) -> tuple[int, int]:
    """(distinct problems, turns) answered by the VALID runs (the ones a cell's figures pool)."""
    problems: set[str] = set()
    turns = 0
    for run in runs:
        if run.verdict != "VALID":
            continue
        for t in run.turns or []:
            problems.add(t.problem_id)
            turns += 1
    return len(problems), turns


def cell_coverage(r: Listing, cell: CellResult) -> Coverage:
    """The `Coverage` of a constraint cell.

    `turns_of` counts every declared seed (or every reported one when none is declared), so a cell
    that reports one of its three declared runs covers at most a third. Undefined (None) when no
    run reports the set's size (e.g. its problem set was not given).
    """
    runs = [run for run in r.runs if run.cell == cell.cell]
    set_problems, set_turns = _set_sizes(runs)
    problems, turns = _covered(runs)
    declared = len(cell.seeds_declared) or len(cell.seeds_reported) or 1
    if set_problems is None or set_turns is None:
        return Coverage(problems, None, turns, None, declared, None, None, None)
    turns_of = set_turns * declared
    share = turns / turns_of if turns_of else None
    small = share is not None and share < SMALL_N_SHARE
    text = f"{_count(problems)} of {_count(set_problems)} problems, {_count(turns)} of {_count(turns_of)} turns"
    partial = 0 < turns < turns_of and cell.valid_runs == declared
    return Coverage(problems, set_problems, turns, turns_of, declared, share, small, text + _runs_of(declared, small),
                    partial)


def _runs_of(declared: int, small: bool) -> str:
    """What follows a cell's "n of N": how many runs it was declared with, and the small-n mark."""
    return (f" ({declared} runs)" if declared > 1 else "") + (f" · {SMALL_N}" if small else "")


def submission_coverage(r: Listing) -> SubmissionCoverage:
    """The submission's evidence in one line, and in a few words for listings.

    Constraint track only; undefined (None) elsewhere (agent evidence is its valid runs, shown beside it).
    """
    known = _known(r) if r.track == "constraint" else []
    if not known:
        return NO_COVERAGE
    turns = sum(c.turns for c in known)
    turns_of = sum(c.turns_of or 0 for c in known)
    small = any(c.small_n for c in known)
    short = f"{_count(turns)} of {_count(turns_of)} turns" + (f" · {SMALL_N}" if small else "")
    return SubmissionCoverage(_submission_text(r, known, turns, turns_of, small), short, small)


def _known(r: Listing) -> list[Coverage]:
    """The coverage of every drift cell of `r` whose problem set's size is known."""
    cells = [cell_coverage(r, c) for c in r.cells if not c.comparator]
    return [c for c in cells if c.turns_of is not None]


def _submission_text(r: Listing, known: list[Coverage], turns: int, turns_of: int, small: bool) -> str:
    """`SubmissionCoverage.text` (the cells in `known` cover `turns` of `turns_of`)."""
    set_problems, set_turns = _set_sizes(r.runs)
    problems, _ = _covered(r.runs)
    runs = sum(c.runs_of for c in known)
    text = (f"{_count(problems)} of {_count(set_problems or 0)} problems and {_count(turns)} of {_count(turns_of)} "
            f"turns ({100 * turns / turns_of:.1f}%) over {len(known)} cell{'s' * (len(known) != 1)} and "
            f"{runs} declared run{'s' * (runs != 1)} ({_count(set_turns or 0)} turns per run of the set)")
    if small:
        text += (f" · {SMALL_N}: a cell covering less than {SMALL_N_SHARE:.0%} of its problem set's turns is listed "
                 "after the others and not ranked against them")
    return text
