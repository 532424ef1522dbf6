"""The realistic workload of `driftboard bench constraint`: non-gold turns, as the scorer sees them.

Gold turns prove their own ledger satisfiable (the gold answer is a witness), so a benchmark on
gold turns alone never reaches a solver. This module builds turns that do, in two parts:

* **baselines**: the turns of the shipped `driftboard-constraint-baselines` submission (four
  scripted methods over `driftboard-suite-v1`: forgotten, dropped and corrupted constraints,
  UNSAT ledgers with their MUS, answers that drift from their ledger);
* **generated**: per gold turn of the given problems (the DRIFT-Bench test split), seeded
  variants of four kinds: `stale` (the previous turn's gold answer; from turn 2), `partial`
  (the gold answer with some entities left out), `swapped` (two entities' answers exchanged)
  and `conflict` (the gold ledger plus a corrupted copy of one of its constraints, usually
  UNSAT, so the MUS is computed; the answer is the gold one).

Each case is a `Turn` event scored by `checker.constraint.scorer.score_turn`, exactly as
`driftboard verify` scores a logged turn (answer extraction included). The benchmark
(`driftboard_tools.bench.constraint`) times them; the tests check their kinds and verdicts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from checker.constraint.problems import Problem
from checker.format.schema.constraint import Turn

if TYPE_CHECKING:
    from checker.harness.baselines.suite import Constraint

KINDS = ("stale", "partial", "swapped", "conflict")
_PREV = "0" * 64


@dataclass(frozen=True)
class Case:
    """One turn to score, with the problem (and problem-set digest) it belongs to."""

    source: str
    """`baselines/<method>` or `generated/<kind>`."""
    digest: str
    problem: Problem
    turn: Turn
    line: int


def make_turn(problem_id: str, turn_number: int, user_message: str, answer: Any,
              ledger: Sequence[dict[str, Any]]) -> Turn:
    """A `Turn` event whose raw response is `{"solution": answer}` and whose ledger is `ledger`."""
    entries = [{"id": f"C{i + 1:03d}", "type": c.get("type"), "args": c.get("args")} for i, c in enumerate(ledger)]
    return Turn.model_validate({
        "seq": 1, "prev": _PREV, "type": "turn", "problem_id": problem_id, "turn_number": turn_number,
        "user_message": user_message, "raw_response": json.dumps({"solution": answer}, ensure_ascii=False),
        "ledger": entries,
    })


def _misread(c: dict[str, Any], rng: random.Random) -> Constraint | None:
    """The baselines' extraction error (negated type, swapped order or shifted number), or None."""
    from checker.harness.baselines.constraint_baselines import corrupt

    # the gold constraint as the baselines' extractor holds it (a malformed one fails in `corrupt`: None)
    entry = cast("Constraint", {"type": c.get("type"), "args": list(c.get("args") or []), "nl": ""})
    try:
        return corrupt(entry, rng)
    except (ValueError, IndexError, TypeError, KeyError):
        return None


def generated_cases(problems: Sequence[Problem], digest: str, seed: int = 0) -> list[Case]:
    """The seeded non-gold variants of every gold turn (see the module docstring), in problem order.

    Each problem draws from its own generator (`seed`, problem id), so a subset of the problems
    yields the same cases for those problems.
    """
    out: list[Case] = []
    for p in problems:
        rng = random.Random(f"{seed}-{p.problem_id}")
        prev: Any = None
        for t in p.turns:
            gold, sol = t.cumulative_constraints, t.gold_solution
            variants: list[tuple[str, Any, list[dict[str, Any]]]] = []
            if prev is not None:
                variants.append(("stale", prev, gold))
            if isinstance(sol, dict) and len(sol) >= 2:
                names = sorted(sol)
                kept = rng.sample(names, rng.randrange(1, len(names)))
                variants.append(("partial", {k: sol[k] for k in names if k in kept}, gold))
                a, b = rng.sample(names, 2)
                variants.append(("swapped", {**sol, a: sol[b], b: sol[a]}, gold))
            if gold:
                bad = _misread(gold[rng.randrange(len(gold))], rng)
                if bad is not None:
                    ledger: list[dict[str, Any]] = list(gold)
                    ledger.insert(rng.randrange(len(ledger) + 1), dict(bad.items()))
                    variants.append(("conflict", sol, ledger))
            for kind, answer, ledger in variants:
                out.append(Case(f"generated/{kind}", digest, p,
                                make_turn(p.problem_id, t.turn_number, t.user_message, answer, ledger), len(out) + 1))
            prev = sol
    return out


def baseline_cases(runs: Path, problems: Sequence[Problem], digest: str) -> list[Case]:
    """The turns of the run logs under `runs` (`*.jsonl`), for problems in `problems`, in file order."""
    from checker.format.logio import read_events

    by_id = {p.problem_id: p for p in problems}
    out: list[Case] = []
    for path in sorted(runs.glob("*.jsonl")):
        method = path.stem.rsplit("-", 1)[0]
        for line, event in read_events(path):
            if isinstance(event, Turn) and event.problem_id in by_id:
                out.append(Case(f"baselines/{method}", digest, by_id[event.problem_id], event, line))
    return out
