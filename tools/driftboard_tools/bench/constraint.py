"""`driftboard bench constraint`: the constraint checker on realistic turns, on gold turns, and against Z3.

Workloads (see `driftboard_tools.generate.constraint_turns`):

* **realistic**: the shipped constraint baselines' turns plus seeded non-gold variants (stale,
  partial, swapped answers; conflicting ledgers) of every gold turn of the DRIFT-Bench test
  split, each scored by the real per-turn scorer (`score_turn`: answer extraction, answer check,
  ledger SAT, answer-vs-ledger, deletion MUS of UNSAT ledgers);
* **gold**: ledger SAT and answer check of every gold turn, as the reference benchmark
  (drift-perf.md) times it.

Paths, timed in the same process, each with a cold memo and cold engines:

* `fast` – the checker's path (`ProblemSolver`: memo, finite engines, witnesses, Z3 last);
* `all-z3` – every SAT check on the problem's incremental Z3 solver (no memo, no shortcut);
* `naive` – a fresh Z3 solver per check, as the reference checks (a sample of the realistic turns).

Rates are turns per second of the process's **CPU time** (`time.process_time`: the benchmark is
single-threaded, so this is the rate of one busy core, and it does not count time other jobs on
a shared machine take); wall-clock rates are printed beside them. `verdict_mismatches` counts
realistic turns whose per-turn record differs between fast and all-Z3 (every turn) or fast and
naive (the sample), plus gold turns the fast path does not find SAT and correct.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from checker.constraint.answers import normalize
from checker.constraint.domains import Key
from checker.constraint.domains.finite import clear_engines
from checker.constraint.domains.solver import MEMO_SIZE, ProblemSolver, SolverStats, clear_memo, memo_size, naive_sat
from checker.constraint.problems import Problem, load_problems, problem_set_digest
from checker.constraint.turns import TurnRecord
from checker.format.errors import UsageError
from driftboard_tools.generate.constraint_turns import Case, baseline_cases, generated_cases

Verdict = tuple[str, int, bool, bool]
"""(problem_id, turn_number, ledger SAT, gold solution correct)."""
_PROBLEMS: list[Problem] = []
SHIPPED_RUNS = Path(__file__).resolve().parents[3] / "submissions" / "driftboard-constraint-baselines" / "runs"
"""The shipped constraint baselines' run logs (scored against `problems/driftboard-suite-v1`)."""


class NaiveSolver(ProblemSolver):
    """The reference's way: every SAT check builds a fresh Z3 solver (the MUS is the same deletion loop)."""

    def sat(self, keys: Sequence[Key]) -> bool:
        """SAT(base axioms ∧ keys) on a fresh solver."""
        self.stats.calls += 1
        self.stats.z3 += 1
        return naive_sat(self.domain, keys)


@dataclass
class Timed:
    """One path over a list of cases: per-turn records, solver counts and clocks."""

    records: list[TurnRecord]
    stats: SolverStats
    wall_s: float
    cpu_s: float

    def rate(self) -> float | None:
        """Turns per CPU second (None when nothing was timed)."""
        return len(self.records) / self.cpu_s if self.records and self.cpu_s > 0 else None

    def wall_rate(self) -> float | None:
        """Turns per wall-clock second."""
        return len(self.records) / self.wall_s if self.records and self.wall_s > 0 else None


def score_cases(cases: Sequence[Case], mode: str) -> Timed:
    """Score every case with one checker per problem (`fast`, `all-z3` or `naive`), memo cleared first."""
    from checker.constraint.scorer import _Checker, score_turn

    clear_memo()
    clear_engines()
    checkers: dict[tuple[str, str], _Checker] = {}
    records: list[TurnRecord] = []
    w0, c0 = time.perf_counter(), time.process_time()
    for case in cases:
        key = (case.digest, case.problem.problem_id)
        chk = checkers.get(key)
        if chk is None:
            chk = checkers[key] = _Checker(case.problem)
            if chk.domain is not None and mode != "fast":
                cls = ProblemSolver if mode == "all-z3" else NaiveSolver
                chk.solver = cls(chk.domain, use_shortcuts=False)
        records.append(score_turn(chk, case.turn, case.line))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    stats = SolverStats()
    for chk in checkers.values():
        if chk.solver is not None:
            stats.add(chk.solver.stats)
    return Timed(records, stats, wall, cpu)


def check_problem(problem: Problem) -> tuple[list[Verdict], SolverStats]:
    """Ledger SAT and answer check of every gold turn of one problem (the checker's fast path)."""
    dom = problem.make_domain()
    solver = ProblemSolver(dom)
    out: list[Verdict] = []
    for t in problem.turns:
        keys = [dom.compile_constraint(c) for c in t.cumulative_constraints]
        answer = normalize(dom, t.gold_solution)
        correct = answer is not None and solver.sat(keys + dom.answer_keys(answer))
        out.append((problem.problem_id, t.turn_number, solver.sat(keys), correct))
    return out, solver.stats


def _check_chunk(indices: list[int]) -> tuple[list[Verdict], SolverStats]:
    verdicts: list[Verdict] = []
    stats = SolverStats()
    for i in indices:
        v, s = check_problem(_PROBLEMS[i])
        verdicts += v
        stats.add(s)
    return verdicts, stats


def run_gold(problems: list[Problem], jobs: int) -> tuple[list[Verdict], SolverStats, float, float]:
    """Check every gold turn with `jobs` processes; verdicts, solver stats, wall and CPU seconds.

    With `jobs` > 1 the CPU seconds are the wall seconds times `jobs` (the workers' CPU time is
    not visible from here), so the rate stays per core.
    """
    global _PROBLEMS
    _PROBLEMS = problems
    clear_memo()
    clear_engines()
    w0, c0 = time.perf_counter(), time.process_time()
    if jobs <= 1:
        verdicts, stats = _check_chunk(list(range(len(problems))))
        return verdicts, stats, time.perf_counter() - w0, time.process_time() - c0
    chunks = [list(range(k, len(problems), jobs * 4)) for k in range(jobs * 4)]
    ctx = multiprocessing.get_context("fork")
    verdicts, stats = [], SolverStats()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        for v, s in pool.map(_check_chunk, chunks):
            verdicts += v
            stats.add(s)
    verdicts.sort()
    wall = time.perf_counter() - w0
    return verdicts, stats, wall, wall * jobs


def spread(items: Sequence[Any], limit: int | None) -> list[Any]:
    """`limit` items spread evenly over `items` (all of them when `limit` is None or larger)."""
    if limit is None or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(k * step)] for k in range(limit)]


def _fmt(rate: float | None, digits: int = 0) -> str:
    return "n/a" if rate is None else f"{rate:.{digits}f}"


def _counts(stats: SolverStats) -> str:
    return (f"sat checks {stats.calls}: memo {stats.cached}, engine {stats.enumerated}, pinned {stats.pinned}, "
            f"witness {stats.witness}, z3 {stats.z3}, malformed {stats.trivially_false}")


def load_workload(problems: Path, limit: int | None, seed: int, baselines: Path | None) -> tuple[list[Problem], list[Case]]:
    """The test-split problems (spread to `limit`) and the realistic cases over them.

    Raises:
        UsageError: a problem folder is missing or invalid, or `baselines` has no run logs.
    """
    loaded, errors = load_problems([problems], check_gold=False)
    if errors:
        raise UsageError(f"{len(errors)} problem(s) in {problems}:\n" + "\n".join(errors[:50]))
    test = sorted((p for p in loaded if p.split == "test"), key=lambda p: p.problem_id) or \
        sorted(loaded, key=lambda p: p.problem_id)
    test = spread(test, limit)
    cases: list[Case] = []
    if baselines is not None:
        from checker.harness.baselines.suite import SUITE_DIR

        if not sorted(baselines.glob("*.jsonl")):
            raise UsageError(f"{baselines}: no run logs (*.jsonl)")
        suite, errs = load_problems([SUITE_DIR], check_gold=False)
        if errs:
            raise UsageError(f"{len(errs)} problem(s) in {SUITE_DIR}:\n" + "\n".join(errs[:50]))
        digest = problem_set_digest(p.raw for p in suite)
        cases += baseline_cases(baselines, spread(sorted(suite, key=lambda p: p.problem_id), limit), digest)
    cases += generated_cases(test, problem_set_digest(p.raw for p in test), seed)
    return test, cases


def run(problems: Path, jobs: int, naive_sample: int, limit: int | None = None, seed: int = 0,
        baselines: Path | None = SHIPPED_RUNS) -> int:
    """Run the benchmark; the last line is `turns_per_s_realistic=… z3_fraction=… … verdict_mismatches=…`.

    Raises:
        UsageError: the problem folder is missing or invalid, or `--jobs` < 1.
    """
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    t0 = time.perf_counter()
    test, cases = load_workload(problems, limit, seed, baselines)
    n_gold = sum(len(p.turns) for p in test)
    kinds = Counter(c.source for c in cases)
    click.echo(f"problems: {len(test)} (test split), gold turns: {n_gold}; realistic turns: {len(cases)} "
               f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); load {time.perf_counter() - t0:.2f}s")

    fast = score_cases(cases, "fast")
    st = fast.stats
    lookups = st.calls - st.trivially_false
    hit_rate = st.cached / lookups if lookups else None
    z3_fraction = st.z3 / st.calls if st.calls else None
    click.echo(f"fast (realistic): {len(cases)} turns, {fast.cpu_s:.3f}s CPU = {_fmt(fast.rate())} turns/s "
               f"({fast.wall_s:.3f}s wall = {_fmt(fast.wall_rate())} turns/s); {_counts(st)}")
    click.echo(f"  memo: hit rate {_fmt(hit_rate, 3)} ({st.cached} of {lookups} lookups), "
               f"{memo_size()} entries at the end (LRU bound {MEMO_SIZE}); engine out of budget (sent to Z3): "
               f"{st.undecided}")

    z3_all = score_cases(cases, "all-z3")
    click.echo(f"all-z3 (realistic): {len(cases)} turns, {z3_all.cpu_s:.3f}s CPU = {_fmt(z3_all.rate())} turns/s "
               f"({z3_all.wall_s:.3f}s wall); {_counts(z3_all.stats)}")

    idx = spread(range(len(cases)), naive_sample) if naive_sample > 0 else []
    naive = score_cases([cases[i] for i in idx], "naive")
    click.echo(f"naive (fresh solver per check, {len(idx)} sampled realistic turns): {naive.cpu_s:.3f}s CPU = "
               f"{_fmt(naive.rate())} turns/s ({naive.wall_s:.3f}s wall); z3 checks {naive.stats.z3}")

    verdicts, gst, gwall, gcpu = run_gold(test, jobs)
    wrong_gold = sum(1 for _, _, sat, ok in verdicts if not (sat and ok))
    gold_rate = n_gold / gcpu if gcpu > 0 and n_gold else None
    click.echo(f"gold: {n_gold} turns, {gcpu:.3f}s CPU = {_fmt(gold_rate)} turns/s ({gwall:.3f}s wall, jobs={jobs}); "
               f"{_counts(gst)}")

    vs_z3 = sum(1 for a, b in zip(fast.records, z3_all.records, strict=True) if a != b)
    vs_naive = sum(1 for i, rec in zip(idx, naive.records, strict=True) if fast.records[i] != rec)
    channels = Counter(r.channel for r in fast.records)
    click.echo(f"channels (fast, realistic): {dict(sorted((str(k), v) for k, v in channels.items()))}; "
               f"UNSAT ledgers {sum(1 for r in fast.records if r.ledger_sat is False)}")
    click.echo(f"records differing: fast vs all-z3 {vs_z3}, fast vs naive {vs_naive}; "
               f"gold turns not SAT+correct {wrong_gold}")
    fast_rate, naive_rate = fast.rate(), naive.rate()
    ratio = None if fast_rate is None or naive_rate is None else fast_rate / naive_rate
    click.echo(f"turns_per_s_realistic={_fmt(fast.rate())} z3_fraction={_fmt(z3_fraction, 4)} "
               f"turns_per_s_all_z3={_fmt(z3_all.rate())} turns_per_s_gold={_fmt(gold_rate)} "
               f"verdict_mismatches={vs_z3 + vs_naive + wrong_gold} ratio_vs_naive={_fmt(ratio, 1)} "
               f"memo_hit_rate={_fmt(hit_rate, 3)}")
    return 0


__all__ = ["NaiveSolver", "check_problem", "load_workload", "run", "score_cases", "spread"]
