"""Constraint-track scorer (profile `drift-bench-v1`): recompute every turn with Z3.

Per turn, from the raw response, the recorded ledger and the problem set named by digest:

* `parse`: an answer was extracted (drift-spec §b.1); `complete`: reference `Complete()` (§b.2), and
  every value the answer gives is readable (`checker.constraint.answers.read_answer`);
* `correct`: SAT(base ∧ gold cumulative constraints ∧ Φ(answer)); false when unparsed or on a
  solver error (§b.3, partial answers count when they extend to a solution);
* `ledger_sat`: SAT(base ∧ ledger); `answer_satisfies_ledger`: SAT(base ∧ ledger ∧ Φ(answer));
* `channel`: `other` on a solver error; none without a ledger; `contradiction` when the ledger is
  UNSAT; `other` when the answer is unparseable; `consistent` when the answer satisfies the
  ledger; else `drift`; in profile `driftboard`, `unverifiable` instead of consistent when the
  ledger leaves out a constraint the dialogue stated (a ledger is judged against the dialogue);
* `mus`: the reference's deletion MUS (constraint ids) for every UNSAT ledger.

Constraint runs have no validity gate: a run is VALID unless it is INCOMPLETE (no run_end) or
cannot be scored against its problem set, logs a turn twice, or logs a turn whose user message
is not the problem set's (INVALID, with the reason). Each finding is recorded as a `Fact`;
the verdict is decided from them by `checker.stages.verdict.judged_run`, never here.

`score_turn` fills a `checker.constraint.turns.TurnRecord`; `score_run` walks the run's events
(`_Walk`), lets coverage mark ledger-less turns (`checker.constraint.coverage`), then converts
each record once, validated, to the `TurnResult` the results file stores. `cell_tables` pools
the VALID runs of each cell.
"""

from __future__ import annotations

from collections import OrderedDict

from checker.constraint.answers import read_answer
from checker.constraint.commitments import Stated, answer_grid, broken_by_answer, commitments, stated_constraints
from checker.constraint.coverage import Coverage, check_coverage, coverage_metrics, mark_missing_ledgers
from checker.constraint.domains import Domain, DomainError, Key
from checker.constraint.domains.solver import ProblemSolver, SolverError
from checker.constraint.metrics import UNVERIFIABLE, aggregate, depth_table, rate, rate_pairs
from checker.constraint.problems import Problem, ProblemSet
from checker.constraint.ranked import ranked_figures, ranked_pairs
from checker.constraint.turns import TurnRecord, channel_of, mismatches_of
from checker.format.cell_tables import ConstraintAggregate, ConstraintCellTables, DepthTable
from checker.format.errors import MissingInputError
from checker.format.results_model import MetricValue, Mismatch, RunResult, TurnResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.common import ProblemSetRef
from checker.format.schema.constraint import LedgerEntry, ProblemStart, Turn
from checker.stages.boards import RANKED_PROFILE
from checker.stages.tracks import RunRecord, VerifyContext, incomplete_reason
from checker.stages.verdict import judged_run


class _Checker:
    """Domain, solver and compiled gold keys of one problem (shared by every run in a process)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.error: str | None = None
        self.domain: Domain | None = None
        self.solver: ProblemSolver | None = None
        self.gold: list[list[Key]] = []
        self._stated: Stated | None = None
        try:
            self.domain = problem.make_domain()
        except DomainError as exc:
            self.error = str(exc)
            return
        self.solver = ProblemSolver(self.domain)
        self.gold = [[self.domain.compile_constraint(c) for c in t.cumulative_constraints] for t in problem.turns]

    @property
    def stated(self) -> Stated:
        """The constraints the problem's user messages state, with the turn of each (built on first use)."""
        if self._stated is None:
            assert self.domain is not None
            self._stated = stated_constraints(self.domain, self.problem)
        return self._stated


CHECKERS_SIZE = 1024
"""Problems whose checker (domain, finite engine, Z3 solver, compiled gold keys) is kept, least
recently used out first: solver state is bounded whatever the number of problems or submissions.
Verify also empties the cache after each submission (`release`), so it never outlives
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
    """Drop every cached problem checker."""
    _CHECKERS.clear()


def release() -> None:
    """Drop the problem checkers kept for one submission (`TrackScorer.release`: verify calls it when it is done)."""
    release_checkers()


def score_turn(chk: _Checker, turn: Turn, line: int, stated: bool = False) -> TurnRecord:
    """Recompute one turn; returns its working record (`TurnRecord.result` is what results files store).

    With `stated` (profile `driftboard`) a ledger is judged against what the dialogue stated: an answer
    that satisfies a ledger which leaves out a constraint stated so far (the turn's gold cumulative
    constraints, compiled) is `unverifiable`, not consistent — a thinner ledger is never a better channel.
    """
    rec = TurnRecord(line, turn.problem_id, chk.problem.domain, turn.turn_number,
                     None if turn.ledger is None else len(turn.ledger), turn.z3_sat, turn.answer_correct)
    if chk.domain is None or chk.solver is None:
        rec.solver_error = chk.error
        rec.channel = "other"
        return rec
    dom = chk.domain
    answer, readable = read_answer(dom, turn.raw_response)
    rec.parse = answer is not None
    rec.complete = answer is not None and readable and dom.is_complete(answer)
    phi = dom.answer_keys(answer) if answer is not None else None
    try:
        keys = _solve(rec, chk, dom, chk.solver, turn, phi)
    except SolverError as exc:
        rec.solver_error = str(exc)
        rec.correct = False
        keys = None
    rec.channel = channel_of(rec)
    if answer is not None:
        rec.answer = answer_grid(answer)
    if keys is not None and turn.ledger is not None:
        _commitments(rec, chk, dom, chk.solver, turn.ledger, keys, phi)
    if stated and rec.channel == "consistent" and keys is not None and not set(chk.gold[turn.turn_number - 1]) <= set(keys):
        rec.channel = UNVERIFIABLE
    return rec


def _commitments(rec: TurnRecord, chk: _Checker, dom: Domain, solver: ProblemSolver, ledger: list[LedgerEntry],
                 keys: list[Key], phi: list[Key] | None) -> None:
    """The ledger entries at issue: those a drift answer breaks, or a contradiction's MUS (`checker.constraint.commitments`)."""
    if rec.channel == "contradiction" and rec.mus is not None:
        where = {e.id: i for i, e in reversed(list(enumerate(ledger)))}
        rec.broken = commitments(dom, chk.stated, ledger, keys, [where[m] for m in rec.mus if m in where])
    elif rec.channel == "drift" and phi is not None:
        try:
            rec.broken = commitments(dom, chk.stated, ledger, keys, broken_by_answer(dom, solver, keys, phi))
        except SolverError:
            rec.broken = None  # the channel stands; which entries are broken is not known


def _solve(rec: TurnRecord, chk: _Checker, dom: Domain, solver: ProblemSolver, turn: Turn,
           phi: list[Key] | None) -> list[Key] | None:
    """The SAT checks of one turn: correctness (with an answer), then the ledger's SAT and MUS (with a ledger).

    Returns the ledger's compiled keys (None without a ledger).
    """
    if phi is not None:
        rec.correct = solver.sat(chk.gold[turn.turn_number - 1] + phi)
    if turn.ledger is None:
        return None
    keys = [dom.compile(e.type, e.args) for e in turn.ledger]
    if phi is not None:
        rec.answer_satisfies_ledger = solver.sat(keys + phi)
    rec.ledger_sat = True if rec.answer_satisfies_ledger else solver.sat(keys)
    if not rec.ledger_sat:
        rec.mus = solver.mus([(e.id, k) for e, k in zip(turn.ledger, keys, strict=True)])
    return keys


class _Walk:
    """One pass over a run's events: the turns scored, their mismatches, and the facts found on the way.

    A turn is scored when its problem is in the set, its number is within the problem's turns and
    it is not logged twice; every other irregularity is an `invalid` fact naming its line.
    """

    def __init__(self, run: RunRecord, pset: ProblemSet, digest: str, stated: bool = False) -> None:
        self.run, self.pset, self.digest, self.stated = run, pset, digest, stated
        self.facts: list[Fact] = []
        self.records: list[TurnRecord] = []
        self.mismatches: list[Mismatch] = []
        self._current: str | None = None
        self._seen: dict[tuple[str, int], int] = {}
        for event, line in zip(run.events, run.lines, strict=True):
            if isinstance(event, ProblemStart):
                self._problem_start(event, line)
            elif isinstance(event, Turn):
                self._turn(event, line)

    def _invalid(self, line: int, what: str) -> None:
        self.facts.append(Fact("inconsistent", f"{self.run.path}:{line}: {what}"))

    def _problem_start(self, event: ProblemStart, line: int) -> None:
        self._current = event.problem_id
        problem = self.pset.problems.get(event.problem_id)
        if problem is None:
            self._invalid(line, f"problem {event.problem_id!r} is not in the problem set")
        elif problem.domain != event.domain:
            self._invalid(line, f"problem {event.problem_id!r} is {problem.domain}, not {event.domain}")
        elif event.n_turns != len(problem.turns):
            self._invalid(line, f"problem {event.problem_id!r} has {len(problem.turns)} turns, "
                                f"problem_start says {event.n_turns}")

    def _turn(self, event: Turn, line: int) -> None:
        problem = self._scored_problem(event, line)
        if problem is None:
            return
        rec = score_turn(checker_for(self.digest, problem), event, line, self.stated)
        self.records.append(rec)
        self.mismatches.extend(mismatches_of(rec))
        asked = problem.turns[event.turn_number - 1].user_message
        if asked and event.user_message != asked:
            # the answer is scored against this turn's gold constraints, so the model must have been asked them
            self._invalid(line, f"turn {event.turn_number} of {event.problem_id!r} logs a user_message that "
                                "differs from the problem set's: the model was asked something else")
            shown = event.user_message if len(event.user_message) <= 200 else event.user_message[:200] + "…"
            self.mismatches.append(rec.mismatch("user_message", shown, asked,
                                                "the problem set's user message for this turn differs"))

    def _scored_problem(self, event: Turn, line: int) -> Problem | None:
        """The problem of a turn to score, or None (a fact says why it is not scored)."""
        problem = self.pset.problems.get(event.problem_id)
        if problem is None:
            self._invalid(line, f"turn of unknown problem {event.problem_id!r}")
            return None
        if event.problem_id != self._current:
            self._invalid(line, f"turn of {event.problem_id!r} outside its problem_start")
        if event.turn_number > len(problem.turns):
            self._invalid(line, f"{event.problem_id} has {len(problem.turns)} turns, not {event.turn_number}")
            return None
        first = self._seen.setdefault((event.problem_id, event.turn_number), line)
        if first != line:  # a repeated turn would be counted twice (e.g. an easy turn logged many times)
            self._invalid(line, f"turn {event.turn_number} of {event.problem_id!r} is logged again "
                                f"(first at line {first})")
            return None
        return problem


def _run_fields(run: RunRecord) -> dict[str, object]:
    """The `RunResult` fields every constraint run has, whether or not it can be scored."""
    start = run.start
    return {
        "end_status": run.end.status if run.end is not None else None,
        "path": run.path, "log_sha256": run.sha256, "prereg_sha256": start.prereg_sha256, "comparator": start.comparator,
        "run_id": start.run_id, "track": "constraint", "cell": start.cell, "seed": start.seed,
        "method": start.method, "backbone": start.backbone,
        "problem_set": start.problem_set.model_dump() if start.problem_set else None,
    }


def _problem_set(run: RunRecord, ctx: VerifyContext, named: ProblemSetRef) -> ProblemSet:
    """The problem set a run names, by digest.

    Raises:
        MissingInputError: no `--problems` path provides it.
    """
    pset = ctx.problem_sets.get(named.digest)
    if pset is None:
        known = ", ".join(f"{d[:12]}… ({p.name})" for d, p in sorted(ctx.problem_sets.items())) or "none given"
        raise MissingInputError(
            f"run {run.start.run_id!r} uses problem set {named.name!r} "
            f"(digest {named.digest}); no --problems path provides it (loaded: {known})"
        )
    return pset


TOKEN_KEYS = ("llm_tokens", "llm_input_tokens", "llm_output_tokens")


def token_figures(run: RunRecord) -> dict[str, MetricValue]:
    """Σ `tokens_in` + `tokens_out`, Σ `tokens_in`, Σ `tokens_out` over every logged turn (declared with the agent's).

    Undefined (None) unless every turn records both: a sum over some turns would understate what the
    run cost. These are the harness's counts as logged (the provider's usage), not recomputed.
    """
    tokens_in = tokens_out = turns = 0
    for event in run.events:
        if isinstance(event, Turn):
            if event.tokens_in is None or event.tokens_out is None:
                return dict.fromkeys(TOKEN_KEYS)
            tokens_in += event.tokens_in
            tokens_out += event.tokens_out
            turns += 1
    if not turns:
        return dict.fromkeys(TOKEN_KEYS)
    return dict(zip(TOKEN_KEYS, (tokens_in + tokens_out, tokens_in, tokens_out), strict=True))


def _run_metrics(turns: list[TurnResult], mismatches: int, pset: ProblemSet, cov: Coverage) -> dict[str, MetricValue]:
    """The per-run metrics of a scored run (`checker.constraint.metrics`, `checker.constraint.coverage`)."""
    metrics: dict[str, MetricValue] = {**aggregate(turns)}
    metrics["mismatches"] = mismatches
    # coverage: a run may answer only part of the set it names; shown so a partial run is not read as complete
    metrics["problems_covered"] = len({t.problem_id for t in turns})
    metrics["turn_coverage"] = rate(len(turns), pset.n_turns)
    metrics.update(coverage_metrics(turns, pset, cov))
    metrics.update(ranked_figures(turns, pset.n_turns))  # the ranked figure: complete, readable answers only
    metrics["problems_in_set"] = len(pset.problems)  # the N of "n of N" shown beside small runs
    metrics["turns_in_set"] = pset.n_turns
    return metrics


def score_run(run: RunRecord, ctx: VerifyContext) -> RunResult:
    """Recompute every turn of one constraint run; its verdict is judged from the facts found (`judged_run`).

    Raises:
        MissingInputError: the run names a problem set that no `--problems` path provides.
    """
    fields = _run_fields(run)
    named = run.start.problem_set
    if named is None:
        unnamed = [Fact("inconsistent", "run_start names no problem_set: the run cannot be recomputed")]
        return judged_run(unnamed, **fields, metrics=aggregate([]), turns=[], mismatches=[])
    pset = _problem_set(run, ctx, named)
    facts: list[Fact] = []
    if ctx.prereg is not None and ctx.prereg.problem_set is not None and ctx.prereg.problem_set != named.digest:
        facts.append(Fact("inconsistent", f"run uses problem set {named.digest[:12]}…, "
                                     f"the pre-registration names {ctx.prereg.problem_set[:12]}…"))
    walk = _Walk(run, pset, named.digest, stated=ctx.profile == RANKED_PROFILE)
    facts += walk.facts
    cov = check_coverage(run, pset)  # every turn of every started problem, in order; a ledger on every turn
    findings = mark_missing_ledgers(run, walk.records, cov)
    turns = [rec.result() for rec in walk.records]
    facts.extend(Fact("inconsistent", reason) for reason in cov.invalid)
    facts.extend(Fact("incomplete", reason) for reason in cov.incomplete)
    if (why := incomplete_reason(run)) is not None:
        facts.append(Fact("incomplete", why))
    metrics = {**_run_metrics(turns, len(walk.mismatches), pset, cov), **token_figures(run)}
    return judged_run(facts, **fields, metrics=metrics, rates={**rate_pairs(metrics), **ranked_pairs(metrics)}, turns=turns,
                      mismatches=walk.mismatches, findings=findings)


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
