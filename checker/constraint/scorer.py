"""Constraint-track scorer (profile `drift-bench-v1`): recompute every turn with Z3.

Per turn, from the raw response, the recorded ledger and the problem set named by digest:

* `parse`: an answer was extracted (drift-spec §b.1); `complete`: reference `Complete()` (§b.2);
* `correct`: SAT(base ∧ gold cumulative constraints ∧ Φ(answer)); false when unparsed or on a
  solver error (§b.3, partial answers count when they extend to a solution);
* `ledger_sat`: SAT(base ∧ ledger); `answer_satisfies_ledger`: SAT(base ∧ ledger ∧ Φ(answer));
* `channel`: `other` on a solver error; none without a ledger; `contradiction` when the ledger is
  UNSAT; `other` when the answer is unparseable; `consistent` when the answer satisfies the
  ledger; else `drift`;
* `mus`: the reference's deletion MUS (constraint ids) for every UNSAT ledger.

Constraint runs have no validity gate: a run is VALID unless it is INCOMPLETE (no run_end) or
cannot be scored against its problem set, logs a turn twice, or logs a turn whose user message
is not the problem set's (INVALID, with the reason).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from checker.constraint.answers import extract_answer
from checker.constraint.coverage import check_coverage, coverage_metrics, mark_missing_ledgers
from checker.constraint.domains import Domain, DomainError, Key
from checker.constraint.domains.solver import ProblemSolver, SolverError
from checker.constraint.metrics import aggregate, depth_table, rate, rate_pairs
from checker.constraint.problems import Problem, ProblemSet
from checker.format.cell_tables import ConstraintAggregate, ConstraintCellTables, DepthTable
from checker.format.errors import MissingInputError
from checker.format.results_model import RunResult, TurnResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.constraint import ProblemStart, Turn
from checker.stages.tracks import RunRecord, VerifyContext, incomplete_reason
from checker.stages.verdict import judged_run

"""The reference's `analyze.py` bins: anything past 6 falls in "7-10"."""


class _Checker:
    """Domain, solver and compiled gold keys of one problem (shared by every run in a process)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.error: str | None = None
        self.domain: Domain | None = None
        self.solver: ProblemSolver | None = None
        self.gold: list[list[Key]] = []
        try:
            self.domain = problem.make_domain()
        except DomainError as exc:
            self.error = str(exc)
            return
        self.solver = ProblemSolver(self.domain)
        self.gold = [[self.domain.compile_constraint(c) for c in t.cumulative_constraints] for t in problem.turns]


CHECKERS_SIZE = 1024
"""Problems whose checker (domain, finite engine, Z3 solver, compiled gold keys) is kept, least
recently used out first: solver state is bounded whatever the number of problems or submissions.
Verify also empties the cache after each submission (`release_checkers`), so it never outlives
the submission it served; a checker holds no verdict a fresh one would not recompute (every
shortcut is exact), so neither bound changes a result."""

_CHECKERS: OrderedDict[tuple[str, str], _Checker] = OrderedDict()


def checker_for(digest: str, problem: Problem) -> _Checker:
    """The cached checker of a problem (keyed by problem-set digest and problem id; LRU of `CHECKERS_SIZE`)."""
    key = (digest, problem.problem_id)
    found = _CHECKERS.get(key)
    if found is None:
        found = _CHECKERS[key] = _Checker(problem)
        while len(_CHECKERS) > CHECKERS_SIZE:
            _CHECKERS.popitem(last=False)
    else:
        _CHECKERS.move_to_end(key)
    return found


def release_checkers() -> None:
    """Drop every cached problem checker (verify calls it when a submission is done)."""
    _CHECKERS.clear()


def score_turn(chk: _Checker, turn: Turn, line: int) -> dict[str, Any]:
    """Recompute one turn; returns its per-turn record."""
    problem = chk.problem
    rec: dict[str, Any] = {
        "line": line, "problem_id": turn.problem_id, "domain": problem.domain, "turn_number": turn.turn_number,
        "parse": False, "complete": False, "ledger_size": None if turn.ledger is None else len(turn.ledger),
        "ledger_sat": None, "answer_satisfies_ledger": None, "correct": False, "channel": None, "mus": None,
        "solver_error": None, "recorded_z3_sat": turn.z3_sat, "recorded_answer_correct": turn.answer_correct,
    }
    if chk.domain is None or chk.solver is None:
        rec["solver_error"] = chk.error
        rec["channel"] = "other"
        return rec
    dom, solver = chk.domain, chk.solver
    answer = extract_answer(dom, turn.raw_response)
    rec["parse"] = answer is not None
    rec["complete"] = answer is not None and dom.is_complete(answer)
    phi = dom.answer_keys(answer) if answer is not None else []
    try:
        if answer is not None:
            rec["correct"] = solver.sat(chk.gold[turn.turn_number - 1] + phi)
        if turn.ledger is not None:
            keys = [dom.compile(e.type, e.args) for e in turn.ledger]
            if answer is not None:
                rec["answer_satisfies_ledger"] = solver.sat(keys + phi)
            rec["ledger_sat"] = True if rec["answer_satisfies_ledger"] else solver.sat(keys)
            if not rec["ledger_sat"]:
                rec["mus"] = solver.mus([(e.id, k) for e, k in zip(turn.ledger, keys, strict=True)])
    except SolverError as exc:
        rec["solver_error"] = str(exc)
        rec["correct"] = False
    rec["channel"] = channel_of(rec)
    return rec


def channel_of(rec: dict[str, Any]) -> str | None:
    """The turn's channel from its recomputed fields (None: the turn has no ledger).

    A ledger already known UNSAT stays a contradiction even when a later step (the MUS) errs.
    """
    if rec["ledger_size"] is not None and rec["ledger_sat"] is False:
        return "contradiction"
    if rec["solver_error"]:
        return "other"
    if rec["ledger_size"] is None:
        return None
    if not rec["parse"]:
        return "other"
    return "consistent" if rec["answer_satisfies_ledger"] else "drift"


def mismatches_of(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """Recorded labels that disagree with the recomputation, with the reason."""
    out: list[dict[str, Any]] = []
    base = {"line": rec["line"], "problem_id": rec["problem_id"], "turn_number": rec["turn_number"]}
    z3_sat = rec["recorded_z3_sat"]
    recomputed_sat = None if rec["ledger_sat"] is None else int(rec["ledger_sat"])
    if z3_sat is not None and z3_sat != recomputed_sat:
        if rec["ledger_size"] is None:
            reason = "z3_sat is recorded but the turn logs no ledger"
        elif rec["solver_error"]:
            reason = f"solver error while recomputing: {rec['solver_error']}"
        else:
            reason = f"SAT(base axioms ∧ recorded ledger) is {'true' if recomputed_sat else 'false'}"
        out.append({**base, "field": "z3_sat", "recorded": z3_sat, "recomputed": recomputed_sat, "reason": reason})
    correct = rec["recorded_answer_correct"]
    if correct is not None and correct != int(rec["correct"]):
        if rec["solver_error"]:
            reason = f"solver error while recomputing: {rec['solver_error']}"
        elif not rec["parse"]:
            reason = ("no answer can be extracted from raw_response (the reference's LLM formatter retry, "
                      "if it ran, is not in the log)")
        else:
            verdict = "extends to" if rec["correct"] else "does not extend to"
            reason = f"the parsed answer {verdict} a solution of the gold cumulative constraints"
        out.append({**base, "field": "answer_correct", "recorded": correct, "recomputed": int(rec["correct"]),
                    "reason": reason})
    return out


def score_run(run: RunRecord, ctx: VerifyContext) -> RunResult:
    """Recompute every turn of one constraint run.

    Raises:
        MissingInputError: the run names a problem set that no `--problems` path provides.
    """
    start = run.start
    result: dict[str, Any] = {
        "end_status": run.end.status if run.end is not None else None,
        "path": run.path, "log_sha256": run.sha256, "prereg_sha256": start.prereg_sha256, "comparator": start.comparator,
        "run_id": start.run_id, "track": "constraint", "cell": start.cell, "seed": start.seed,
        "method": start.method, "backbone": start.backbone,
        "metrics": {}, "turns": [], "mismatches": [],
        "problem_set": start.problem_set.model_dump() if start.problem_set else None,
    }
    facts: list[Fact] = []
    if start.problem_set is None:
        facts.append(Fact("invalid", "run_start names no problem_set: the run cannot be recomputed"))
        result["metrics"] = aggregate([])
        return judged_run(facts, **result)
    digest = start.problem_set.digest
    pset: ProblemSet | None = ctx.problem_sets.get(digest)
    if pset is None:
        known = ", ".join(f"{d[:12]}… ({p.name})" for d, p in sorted(ctx.problem_sets.items())) or "none given"
        raise MissingInputError(
            f"run {start.run_id!r} uses problem set {start.problem_set.name!r} "
            f"(digest {digest}); no --problems path provides it (loaded: {known})"
        )
    if ctx.prereg is not None and ctx.prereg.problem_set is not None and ctx.prereg.problem_set != digest:
        facts.append(Fact("invalid", f"run uses problem set {digest[:12]}…, "
                                     f"the pre-registration names {ctx.prereg.problem_set[:12]}…"))
    recs: list[dict[str, Any]] = []
    current: str | None = None
    seen: dict[tuple[str, int], int] = {}
    for event, line in zip(run.events, run.lines, strict=True):
        if isinstance(event, ProblemStart):
            current = event.problem_id
            problem = pset.problems.get(event.problem_id)
            if problem is None:
                facts.append(Fact("invalid", f"{run.path}:{line}: problem {event.problem_id!r} is not in the problem set"))
            elif problem.domain != event.domain:
                facts.append(Fact("invalid", f"{run.path}:{line}: problem {event.problem_id!r} is {problem.domain}, "
                                             f"not {event.domain}"))
            elif event.n_turns != len(problem.turns):
                facts.append(Fact("invalid", f"{run.path}:{line}: problem {event.problem_id!r} has {len(problem.turns)} "
                                             f"turns, problem_start says {event.n_turns}"))
            continue
        if not isinstance(event, Turn):
            continue
        problem = pset.problems.get(event.problem_id)
        if problem is None:
            facts.append(Fact("invalid", f"{run.path}:{line}: turn of unknown problem {event.problem_id!r}"))
            continue
        if event.problem_id != current:
            facts.append(Fact("invalid", f"{run.path}:{line}: turn of {event.problem_id!r} outside its problem_start"))
        if event.turn_number > len(problem.turns):
            facts.append(Fact("invalid", f"{run.path}:{line}: {event.problem_id} has {len(problem.turns)} turns, "
                                         f"not {event.turn_number}"))
            continue
        first = seen.setdefault((event.problem_id, event.turn_number), line)
        if first != line:  # a repeated turn would be counted twice (e.g. an easy turn logged many times)
            facts.append(Fact("invalid", f"{run.path}:{line}: turn {event.turn_number} of {event.problem_id!r} "
                                         f"is logged again (first at line {first})"))
            continue
        rec = score_turn(checker_for(digest, problem), event, line)
        recs.append(rec)
        result["mismatches"].extend(mismatches_of(rec))
        asked = problem.turns[event.turn_number - 1].user_message
        if asked and event.user_message != asked:
            # the answer is scored against this turn's gold constraints, so the model must have been asked them
            facts.append(Fact("invalid", f"{run.path}:{line}: turn {event.turn_number} of {event.problem_id!r} "
                                         "logs a user_message that differs from the problem set's: "
                                         "the model was asked something else"))
            shown = event.user_message if len(event.user_message) <= 200 else event.user_message[:200] + "…"
            result["mismatches"].append({"line": line, "problem_id": event.problem_id, "turn_number": event.turn_number,
                                         "field": "user_message", "recorded": shown, "recomputed": asked,
                                         "reason": "the problem set's user message for this turn differs"})
    cov = check_coverage(run, pset)  # every turn of every started problem, in order; a ledger on every turn
    result["findings"] = [{**f, "path": run.path} for f in mark_missing_ledgers(run, recs, cov)]
    # built here from recomputed values: no re-validation
    turns = result["turns"] = [TurnResult.model_construct(**rec) for rec in recs]
    facts.extend(Fact("invalid", reason) for reason in cov.invalid)
    facts.extend(Fact("incomplete", reason) for reason in cov.incomplete)
    if (why := incomplete_reason(run)) is not None:
        facts.append(Fact("incomplete", why))
    result["metrics"] = aggregate(turns)
    result["metrics"]["mismatches"] = len(result["mismatches"])
    # coverage: a run may answer only part of the set it names; shown so a partial run is not read as complete
    result["metrics"]["problems_covered"] = len({t.problem_id for t in turns})
    result["metrics"]["turn_coverage"] = rate(len(turns), pset.n_turns)
    result["metrics"].update(coverage_metrics(recs, pset, cov))
    result["metrics"]["problems_in_set"] = len(pset.problems)  # the N of "n of N" shown beside small runs
    result["metrics"]["turns_in_set"] = pset.n_turns
    result["rates"] = rate_pairs(result["metrics"])
    return judged_run(facts, **result)


def cell_tables(run_results: list[RunResult]) -> dict[str, ConstraintCellTables]:
    """Per cell (model/method): pooled metrics, per-domain metrics and the depth table.

    Only VALID runs are pooled; the others are counted under `excluded_runs`.
    """
    cells: dict[str, list[RunResult]] = {}
    for r in run_results:
        if r.track in ("constraint", None) and r.cell is not None:
            cells.setdefault(r.cell, []).append(r)
    out: dict[str, ConstraintCellTables] = {}
    for cell in sorted(cells):
        runs = cells[cell]
        valid = [r for r in runs if r.verdict == "VALID"]
        turns = [t for r in valid for t in r.turns or []]
        domains = sorted({t.domain for t in turns})
        out[cell] = ConstraintCellTables(
            track="constraint", runs=len(runs), valid_runs=len(valid), excluded_runs=len(runs) - len(valid),
            seeds=sorted(str(r.seed) for r in valid),
            overall=ConstraintAggregate.model_validate(aggregate(turns)),
            by_domain={d: ConstraintAggregate.model_validate(aggregate([t for t in turns if t.domain == d]))
                       for d in domains},
            by_depth=DepthTable.model_validate(depth_table(turns)),
            mismatches=sum(len(r.mismatches) for r in valid),
        )
    return out
