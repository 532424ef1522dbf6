"""Constraint-track reference baselines over `driftboard-suite-v1`: four scripted methods.

Each method is one run (seed `0`) over every problem of the suite, in `problem_id` order, and
writes per turn the raw response (text the checker must parse), the ledger it kept, and its
recorded labels (claims the checker recomputes). Solving uses Z3 through the checker's own
domain encodings (`checker.constraint.domains`, DRIFT-Bench code semantics).

* `oracle`: the ledger is the gold cumulative set; the answer is a Z3 model of it (the previous
  answer is kept while it still satisfies the set). Must score 100%.
* `recency-k` (k = `RECENCY_K`): the ledger keeps only the constraints of the last k turns; the
  answer satisfies that ledger. Older constraints are forgotten: satisfiable drift.
* `lossy-ledger`: each new constraint is dropped (p = `LOSSY_DROP`) or corrupted into a wrong
  one (p = `LOSSY_CORRUPT`) on extraction; when the ledger is UNSAT the answer satisfies the
  ledger minus its MUS. Produces contradictions (UNSAT ledgers) and drift.
* `greedy-repair`: the ledger is extracted correctly, but each answer changes at most
  `GREEDY_MAX_CHANGES` variables of the previous answer; when no such answer satisfies the
  ledger it stops honouring its oldest constraints in the answer until one does, while its
  ledger still records them: the ledger stays SAT and the answer violates it (the *drift*
  channel, as opposed to recency-k's forgetting, which leaves the answer consistent with a
  shrunken ledger but wrong against the gold set).
"""

from __future__ import annotations

import functools
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

import z3

from checker.constraint.answers import extract_answer
from checker.constraint.domains import FALSE, Domain, LogicGrid, Scheduling, make_domain
from checker.constraint.domains.solver import ProblemSolver
from checker.constraint.problems import problem_set_digest
from checker.harness.baselines.common import AUTHOR, CONTACT, LICENSE, Emit, SubmissionWriter, harness, started_at
from checker.harness.baselines.suite import SUITE_NAME, Constraint, ProblemDoc, load_suite

SUBMISSION_ID = "driftboard-constraint-baselines"
MODEL = "scripted"
BACKBONE = "scripted (no LLM)"
METHODS = ("oracle", "recency-k", "lossy-ledger", "greedy-repair")
RECENCY_K = 2
LOSSY_DROP = 0.2
LOSSY_CORRUPT = 0.15
LOSSY_SEED = 7
GREEDY_MAX_CHANGES = 2

Assignment = tuple[int, ...]


class LedgerEntry(TypedDict):
    """One entry of a method's ledger, numbered in the order extracted (`C001`, ...)."""

    id: str
    type: str
    args: list[str | int]
    nl: str | None
    source_turn: int


# -- solving ----------------------------------------------------------------------------------
def solve(dom: Domain, constraints: Sequence[Mapping[str, object]], prev: Assignment | None = None,
          max_changes: int | None = None) -> Assignment | None:
    """A model of base axioms ∧ constraints (within `max_changes` changed variables of `prev` if set).

    Each call uses a fresh Z3 context, so the model found does not depend on what else the
    process asked Z3 before (which keeps regeneration byte-identical in any process).
    """
    keys = [dom.compile_constraint(c) for c in constraints]
    if FALSE in keys:
        return None
    ctx = z3.Context()
    v = [z3.Int(str(x), ctx) for x in dom.variables()]
    solver = z3.Solver(ctx=ctx)
    solver.add(*dom.axioms(v))
    for k in keys:
        solver.add(dom.encode(k, v))
    if prev is not None and max_changes is not None:
        solver.add(z3.Sum([z3.If(x != p, 1, 0) for x, p in zip(v, prev, strict=True)]) <= max_changes)
    if solver.check() != z3.sat:
        return None
    return tuple(int(x) for x in dom.assignment_from_model(solver.model(), v))


def satisfies(dom: Domain, constraints: Sequence[Mapping[str, object]], a: Assignment) -> bool:
    """Direct evaluation of the constraints on a complete assignment."""
    return dom.satisfied_by([dom.compile_constraint(c) for c in constraints], a)


def to_answer(dom: Domain, a: Assignment) -> dict[str, object]:
    """The JSON answer of a complete assignment (seats 1-based, full schedule, full grid)."""
    if isinstance(dom, Scheduling):
        return {e: {"start": a[2 * i], "duration": a[2 * i + 1]} for i, e in enumerate(dom.entities)}
    if isinstance(dom, LogicGrid):
        return {e: {c: dom.categories[c][a[i * dom.nc + k]] for k, c in enumerate(dom.cat_names)}
                for i, e in enumerate(dom.entities)}
    return {e: a[i] + 1 for i, e in enumerate(dom.entities)}


# -- the methods ----------------------------------------------------------------------------------
class Method(ABC):
    """State of one method on one problem; `turn` returns (ledger, answer, note)."""

    name = ""

    def __init__(self, dom: Domain, rng: random.Random, solver: ProblemSolver) -> None:
        self.dom = dom
        self.rng = rng
        self.solver = solver
        self.ledger: list[LedgerEntry] = []
        self.prev: Assignment | None = None
        self.next_id = 1

    def entry(self, c: Constraint, turn: int) -> LedgerEntry:
        """A ledger entry with the next sequential id."""
        e: LedgerEntry = {"id": f"C{self.next_id:03d}", "type": c["type"], "args": list(c["args"]), "nl": c.get("nl"),
             "source_turn": turn}
        self.next_id += 1
        return e

    def keep_or_solve(self, constraints: Sequence[LedgerEntry]) -> Assignment | None:
        """The previous answer while it satisfies `constraints`, else a fresh model."""
        if self.prev is not None and satisfies(self.dom, constraints, self.prev):
            return self.prev
        return solve(self.dom, constraints)

    @abstractmethod
    def turn(self, t: int, new: list[Constraint], gold: list[Constraint]) -> tuple[list[LedgerEntry], Assignment | None, str]:
        """Advance one turn."""


class Oracle(Method):
    """Gold cumulative ledger, Z3 answer."""

    name = "oracle"

    def turn(self, t: int, new: list[Constraint], gold: list[Constraint]) -> tuple[list[LedgerEntry], Assignment | None, str]:
        """Advance one turn."""
        self.ledger += [self.entry(c, t) for c in new]
        self.prev = self.keep_or_solve(self.ledger)
        return self.ledger, self.prev, f"Ledger holds all {len(self.ledger)} constraints; solved with Z3."


class RecencyK(Method):
    """Only the last k turns' constraints."""

    name = "recency-k"

    def turn(self, t: int, new: list[Constraint], gold: list[Constraint]) -> tuple[list[LedgerEntry], Assignment | None, str]:
        """Advance one turn."""
        self.ledger = [e for e in self.ledger if e["source_turn"] > t - RECENCY_K] + [self.entry(c, t) for c in new]
        self.prev = self.keep_or_solve(self.ledger)
        return self.ledger, self.prev, f"Keeping the constraints of the last {RECENCY_K} turns ({len(self.ledger)})."


NEGATE = {"adjacent": "not_adjacent", "not_adjacent": "adjacent", "assign": "not_assign", "not_assign": "assign",
          "same_side": "opposite_side", "opposite_side": "same_side", "different": "same_as",
          "not_simultaneous": "before"}


def corrupt(c: Constraint, rng: random.Random) -> Constraint:
    """A plausible extraction error: negated type, swapped order or a shifted number."""
    args = list(c["args"])
    t = c["type"]
    if t in NEGATE:
        t = NEGATE[t]
    elif t in ("left_of", "before", "ordered"):
        args[0], args[1] = args[1], args[0]
    else:
        i = max(i for i, a in enumerate(args) if isinstance(a, int))
        args[i] = int(args[i]) + rng.choice((1, 2))
    return {"type": t, "args": args, "nl": f"(misread) {c.get('nl', '')}"}


class LossyLedger(Method):
    """Drops or corrupts extracted constraints; answers around the ledger's MUS when it is UNSAT."""

    name = "lossy-ledger"

    def turn(self, t: int, new: list[Constraint], gold: list[Constraint]) -> tuple[list[LedgerEntry], Assignment | None, str]:
        """Advance one turn."""
        dropped = corrupted = 0
        for c in new:
            r = self.rng.random()
            if r < LOSSY_DROP:
                dropped += 1
                continue
            if r < LOSSY_DROP + LOSSY_CORRUPT:
                corrupted += 1
                c = corrupt(c, self.rng)
            self.ledger.append(self.entry(c, t))
        usable = list(self.ledger)
        solver = self.solver
        mus = solver.mus([(e["id"], self.dom.compile_constraint(e)) for e in usable])
        while mus:
            usable = [e for e in usable if e["id"] not in mus]
            mus = solver.mus([(e["id"], self.dom.compile_constraint(e)) for e in usable])
        self.prev = self.keep_or_solve(usable)
        note = f"Extracted {len(new) - dropped} of {len(new)} new constraints"
        return self.ledger, self.prev, note + (f" ({corrupted} uncertain)." if corrupted else ".")


class GreedyRepair(Method):
    """Few changes from the previous answer; ignores (in the answer only) its oldest constraints when stuck."""

    name = "greedy-repair"

    def turn(self, t: int, new: list[Constraint], gold: list[Constraint]) -> tuple[list[LedgerEntry], Assignment | None, str]:
        """Advance one turn."""
        self.ledger += [self.entry(c, t) for c in new]
        if self.prev is None:
            self.prev = solve(self.dom, self.ledger)
            return self.ledger, self.prev, "First answer."
        ignored = 0
        honoured = list(self.ledger)
        while honoured:
            found = solve(self.dom, honoured, self.prev, GREEDY_MAX_CHANGES)
            if found is not None:
                changed = sum(1 for a, b in zip(found, self.prev, strict=True) if a != b)
                self.prev = found
                note = f"Changed {changed} position(s) from my previous answer"
                return self.ledger, found, note + (f", ignoring {ignored} older constraint(s)." if ignored else ".")
            honoured = honoured[1:]
            ignored += 1
        return self.ledger, self.prev, "Kept my previous answer."


METHOD_CLASSES: dict[str, Callable[[Domain, random.Random, ProblemSolver], Method]] = {
    "oracle": Oracle, "recency-k": RecencyK, "lossy-ledger": LossyLedger, "greedy-repair": GreedyRepair,
}


# -- responses ------------------------------------------------------------------------------------
def response(method: str, note: str, answer: dict[str, object] | None) -> str:
    """The raw response text of one turn (formats differ by method; all parse to `answer`)."""
    if answer is None:
        return f"{note} I could not find an assignment."
    body = json.dumps({"solution": answer}, ensure_ascii=False)
    if method == "oracle":
        return body
    if method == "recency-k":
        return f"{note}\n\n```json\n{body}\n```"
    if method == "lossy-ledger":
        return f"<think>{note} Checking the ledger before answering.</think>\nFinal answer: {body}"
    return f"{note}\nFinal: {body}"


def run_method(method: str, problems: Sequence[ProblemDoc], emit: Emit) -> None:
    """Play one method over every problem and emit its events."""
    rng = random.Random(LOSSY_SEED)
    for p in problems:
        dom = make_domain(p)
        checker = ProblemSolver(dom)
        state = METHOD_CLASSES[method](dom, rng, checker)
        emit({"type": "problem_start", "problem_id": p["problem_id"], "domain": p["domain"],
              "n_turns": len(p["turns"])})
        for turn in p["turns"]:
            ledger, assignment, note = state.turn(turn["turn_number"], turn["new_constraints"],
                                                  turn["cumulative_constraints"])
            answer = to_answer(dom, assignment) if assignment is not None else None
            text = response(method, note, answer)
            parsed = extract_answer(dom, text)
            gold_keys = [dom.compile_constraint(c) for c in turn["cumulative_constraints"]]
            correct = parsed is not None and checker.sat(gold_keys + dom.answer_keys(parsed))
            entries = [(e["id"], dom.compile_constraint(e)) for e in ledger]
            ledger_sat = checker.sat([k for _, k in entries])
            emit({"type": "turn", "problem_id": p["problem_id"], "turn_number": turn["turn_number"],
                  "user_message": turn["user_message"], "raw_response": text,
                  "ledger": [dict(e) for e in ledger], "z3_sat": int(ledger_sat),
                  "answer_correct": int(correct), "mus": checker.mus(entries) if not ledger_sat else None,
                  "extraction_null": 0 if parsed is not None else 1, "z3_error": 0, "finish_reason": "stop"})


# -- the submission ---------------------------------------------------------------------------------
def prereg(digest: str) -> dict[str, object]:
    """The pre-registration of the constraint reference submission."""
    return {
        "format_version": "1.0",
        "submission_id": SUBMISSION_ID,
        "track": "constraint",
        # not the ranked profile, on purpose: this reference checks the scorer against DRIFT-Bench's semantics
        # (conformance), shown apart and never ranked (checker/stages/rules.py REPRODUCTION_PROFILES)
        "profile": "drift-bench-v1",
        "cells": {f"{MODEL}/{m}": {"flags": {}, "seeds": ["0"], "comparator": False, "description": d}
                  for m, d in zip(METHODS, (
                      "gold cumulative ledger, Z3 answer (must score 100%)",
                      f"ledger of the last {RECENCY_K} turns only",
                      f"drops {LOSSY_DROP} / corrupts {LOSSY_CORRUPT} of extracted constraints",
                      f"at most {GREEDY_MAX_CHANGES} changed variables per turn; drops oldest constraints when stuck",
                  ), strict=True)},
        "problem_set": digest,
        "predictions": [
            {"id": "oracle-perfect", "text": "the oracle answers every turn correctly", "metric": "turn_accuracy",
             "cell": f"{MODEL}/oracle", "op": "==", "value": 1.0},
        ],
    }


def write(out: Path) -> Path:
    """Write the submission folder into `out`; returns its path."""
    problems = sorted(load_suite(), key=lambda p: str(p["problem_id"]))
    digest = problem_set_digest(problems)
    sub = SubmissionWriter(out, SUBMISSION_ID, prereg(digest))
    for n, method in enumerate(METHODS, start=1):
        start = {"run_id": f"{SUBMISSION_ID}-{method}-0", "track": "constraint", "cell": f"{MODEL}/{method}",
                 "seed": "0", "flags": {}, "backbone": BACKBONE, "started_at": started_at(n),
                 "method": method, "problem_set": {"name": SUITE_NAME, "digest": digest}}
        sub.run(f"runs/{method}-0.jsonl", start, functools.partial(run_method, method, problems),
                reason="all problems answered")
    sub.manifest({
        "title": "Driftboard scripted constraint baselines (synthetic baseline)",
        "authors": [dict(AUTHOR)],
        "contact": CONTACT,
        "track": "constraint",
        "system": "driftboard scripted constraint baselines",
        "backbone": BACKBONE,
        "harness": harness(),
        "license": LICENSE,
        "synthetic": True,
        "description": (
            "Synthetic reference baseline generated by `driftboard baselines`; no LLM is involved. Four scripted "
            f"methods answer every turn of the project's own problem suite {SUITE_NAME} (90 problems; digest "
            f"{digest}; shipped in problems/{SUITE_NAME}/): oracle (gold ledger + Z3), "
            f"recency-k (k={RECENCY_K}), lossy-ledger (drop {LOSSY_DROP}, corrupt {LOSSY_CORRUPT}, seed "
            f"{LOSSY_SEED}) and greedy-repair (at most {GREEDY_MAX_CHANGES} changes per turn)."
        ),
    })
    return sub.root


__all__ = ["METHODS", "SUBMISSION_ID", "prereg", "run_method", "solve", "to_answer", "write"]
