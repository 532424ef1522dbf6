"""`driftboard bench constraint`: check every gold turn of the DRIFT-Bench test split.

Per turn, as the reference benchmark (drift-perf.md): ledger SAT of the gold cumulative set and
the answer check of the gold solution against it. Three figures are printed:

* `fast` – the real checker path: one incremental solver per problem (assumption literal per
  constraint), result cache, direct evaluation of complete assignments, and witnesses (a model
  or complete answer already known to satisfy the set proves SAT without a solver call). The
  answer is checked first, so a correct gold solution is the witness for its ledger;
* `z3-ledger` – the same, but every ledger SAT check goes to the incremental Z3 solver;
* `naive` – a fresh solver per check (the reference's approach), on a sample of turns.

`verdict_mismatches` counts sampled turns where fast and naive disagree, plus turns where the
fast path does not find the gold set SAT and the gold solution correct (the reference finds all
5,672 SAT and correct).
"""

from __future__ import annotations

import math
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import click

from checker.answers import normalize
from checker.domains.solver import ProblemSolver, SolverStats, naive_sat
from checker.errors import UsageError
from checker.problems import Problem, load_problems

Verdict = tuple[str, int, bool, bool]
"""(problem_id, turn_number, ledger SAT, gold solution correct)."""
_PROBLEMS: list[Problem] = []


def check_problem(problem: Problem, shortcuts: bool = True) -> tuple[list[Verdict], SolverStats]:
    """Ledger SAT and answer check of every gold turn of one problem (the checker's fast path)."""
    dom = problem.make_domain()
    solver = ProblemSolver(dom)
    ledger_solver = solver if shortcuts else ProblemSolver(dom, use_shortcuts=False)
    out: list[Verdict] = []
    for t in problem.turns:
        keys = [dom.compile_constraint(c) for c in t.cumulative_constraints]
        answer = normalize(dom, t.gold_solution)
        correct = answer is not None and solver.sat(keys + dom.answer_keys(answer))
        out.append((problem.problem_id, t.turn_number, ledger_solver.sat(keys), correct))
    stats = SolverStats()
    stats.add(solver.stats)
    if ledger_solver is not solver:
        stats.add(ledger_solver.stats)
    return out, stats


def _check_chunk(indices: list[int]) -> tuple[list[Verdict], SolverStats]:
    verdicts: list[Verdict] = []
    stats = SolverStats()
    for i in indices:
        v, s = check_problem(_PROBLEMS[i])
        verdicts += v
        stats.add(s)
    return verdicts, stats


def run_fast(problems: list[Problem], jobs: int) -> tuple[list[Verdict], SolverStats, float]:
    """Check every turn with `jobs` processes; returns verdicts, solver stats and wall seconds."""
    global _PROBLEMS
    _PROBLEMS = problems
    t0 = time.perf_counter()
    if jobs <= 1:
        verdicts, stats = _check_chunk(list(range(len(problems))))
    else:
        chunks = [list(range(k, len(problems), jobs * 4)) for k in range(jobs * 4)]
        ctx = multiprocessing.get_context("fork")
        verdicts, stats = [], SolverStats()
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for v, s in pool.map(_check_chunk, chunks):
                verdicts += v
                stats.add(s)
        verdicts.sort()
    return verdicts, stats, time.perf_counter() - t0


def run(problems: Path, jobs: int, naive_sample: int) -> int:
    """Run the benchmark and print `turns_per_s=<x> ratio_vs_naive=<r> verdict_mismatches=<m>` last.

    Raises:
        UsageError: the problem folder is missing or invalid, or `--jobs` < 1.
    """
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    t0 = time.perf_counter()
    loaded, errors = load_problems([problems], check_gold=False)
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors[:50]))
    test = sorted((p for p in loaded if p.split == "test"), key=lambda p: p.problem_id)
    split = "test"
    if not test:
        test, split = sorted(loaded, key=lambda p: p.problem_id), "all"
    n_turns = sum(len(p.turns) for p in test)
    click.echo(f"problems: {len(test)} ({split} split), gold turns: {n_turns}, load {time.perf_counter() - t0:.2f}s")

    verdicts, stats, wall = run_fast(test, jobs)
    fast_rate = n_turns / wall
    click.echo(f"fast: {n_turns} turns in {wall:.3f}s = {fast_rate:.0f} turns/s (jobs={jobs}); "
               f"sat calls {stats.calls}: cached {stats.cached}, pinned {stats.pinned}, "
               f"witness {stats.witness}, z3 {stats.z3}")

    t1 = time.perf_counter()
    z3_stats = SolverStats()
    for p in test:
        _, s = check_problem(p, shortcuts=False)
        z3_stats.add(s)
    z3_wall = time.perf_counter() - t1
    click.echo(f"z3-ledger: {n_turns} turns in {z3_wall:.3f}s = {n_turns / z3_wall:.0f} turns/s (1 process; "
               f"every ledger check on the incremental solver, z3 calls {z3_stats.z3})")

    by_key = {(pid, tn): (sat, ok) for pid, tn, sat, ok in verdicts}
    wrong_gold = sum(1 for sat, ok in by_key.values() if not (sat and ok))
    all_turns = [(p, t) for p in test for t in p.turns]
    step = max(1, math.ceil(len(all_turns) / max(1, naive_sample)))
    sample = all_turns[::step][:naive_sample] if naive_sample > 0 else []
    disagree = 0
    t2 = time.perf_counter()
    for p, t in sample:
        dom = p.make_domain()
        keys = [dom.compile_constraint(c) for c in t.cumulative_constraints]
        answer = normalize(dom, t.gold_solution)
        sat = naive_sat(dom, keys)
        ok = answer is not None and naive_sat(dom, keys + dom.answer_keys(answer))
        disagree += by_key.get((p.problem_id, t.turn_number)) != (sat, ok)
    naive_wall = time.perf_counter() - t2
    naive_rate = len(sample) / naive_wall if sample and naive_wall > 0 else None
    click.echo(f"naive: {len(sample)} sampled turns in {naive_wall:.3f}s = "
               f"{'n/a' if naive_rate is None else f'{naive_rate:.0f}'} turns/s (fresh solver per check)")
    click.echo(f"gold turns not SAT+correct on the fast path: {wrong_gold}; fast/naive disagreements: {disagree}")
    ratio = "n/a" if naive_rate is None else f"{fast_rate / naive_rate:.1f}"
    click.echo(f"turns_per_s={fast_rate:.0f} ratio_vs_naive={ratio} verdict_mismatches={wrong_gold + disagree}")
    return 0
