"""What a turn's answer looks like and which commitments it breaks (the run viewer's drift story).

* `answer_grid`: the answer as the checker read it (`checker.constraint.answers.read_answer`), as
  entity -> slot -> value, each value cut to `ANSWER_VALUE_CHARS`;
* `stated_constraints`: per problem, each constraint the dialogue stated (the problem set's new
  constraints), compiled, with the first turn that stated it and its words;
* `broken_by_answer`: on a drift turn, the ledger entries the answer breaks: every entry the answer
  alone contradicts (SAT(base ∧ Φ(answer) ∧ entry) is false; direct evaluation when the answer pins
  every variable), else, when only their conjunction does, a deletion-minimal subset of the ledger
  that together contradicts the answer. At most 2·|ledger| + 1 checks, on drift turns only;
* `commitments`: ledger entries (by index) as `Commitment`s, with the turn that stated each.

Nothing here is trusted from the log beyond the ledger entries being checked: the stated turn and
the words come from the problem set.
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.constraint.answers import Answer
from checker.constraint.domains import FALSE, Domain, Key
from checker.constraint.domains.solver import ProblemSolver
from checker.constraint.problems import Problem
from checker.format.results_model import AnswerGrid, Commitment
from checker.format.schema.constraint import LedgerEntry

ANSWER_VALUE_CHARS = 60
"""Longest value of an answer kept in the results (a logic-grid value is any string the model wrote)."""
CONSTRAINT_CHARS = 200
"""Longest `type(args)` form of a ledger entry kept in the results."""

Stated = dict[Key, tuple[int, str | None]]
"""A problem's stated constraints: canonical compiled key -> (first turn stating it, the problem set's words)."""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def answer_grid(answer: Answer) -> AnswerGrid:
    """The answer as entity -> slot -> value: a seat (`seat`), an interval (`start`, `duration`) or a logic-grid row."""
    out: AnswerGrid = {}
    for name, value in answer.items():
        if isinstance(value, dict):
            out[name] = {str(k): _cut(str(v), ANSWER_VALUE_CHARS) for k, v in value.items()}
        elif isinstance(value, tuple):
            out[name] = {"start": value[0], "duration": value[1]}
        else:
            out[name] = {"seat": value}
    return out


def canonical(dom: Domain, ctype: object, key: Key) -> Key:
    """A compiled key with the pair of a symmetric constraint type in index order (so `A≠B` and `B≠A` match)."""
    if isinstance(ctype, str) and ctype in dom.symmetric and len(key) >= 3:
        lo, hi = sorted((key[1], key[2]))
        return (key[0], lo, hi, *key[3:])
    return key


def stated_constraints(dom: Domain, problem: Problem) -> Stated:
    """Every constraint the problem's user messages state, compiled, with the first turn stating it and its words."""
    out: Stated = {}
    for turn in problem.turns:
        for c in turn.new_constraints:
            nl = c.get("nl")
            out.setdefault(canonical(dom, c.get("type"), dom.compile_constraint(c)),
                           (turn.turn_number, nl if isinstance(nl, str) else None))
    return out


def _form(entry: LedgerEntry) -> str:
    args = entry.args if isinstance(entry.args, list) else [entry.args]
    return _cut(f"{entry.type}({', '.join(str(a) for a in args)})", CONSTRAINT_CHARS)


def commitments(dom: Domain, stated: Stated, ledger: Sequence[LedgerEntry], keys: Sequence[Key],
                indices: Sequence[int]) -> list[Commitment]:
    """The ledger entries at `indices`, each with the turn that stated it (problem set) and its words."""
    out = []
    for i in indices:
        entry = ledger[i]
        turn, text = stated.get(canonical(dom, entry.type, keys[i]), (None, None))
        out.append(Commitment(id=entry.id, constraint=_form(entry), stated_turn=turn, text=text))
    return out


def broken_by_answer(dom: Domain, solver: ProblemSolver, keys: Sequence[Key], phi: list[Key]) -> list[int]:
    """Indices of the ledger keys a drift answer breaks (module docstring); [] when the answer alone breaks the rules.

    Raises:
        SolverError: Z3 returned `unknown` on one of the checks.
    """
    if FALSE in phi:
        return []
    pinned = dom.complete_assignment(phi)
    if pinned is not None:
        if not dom.axioms_hold(pinned):
            return []
        alone = [i for i, k in enumerate(keys) if not dom.holds(k, pinned)]
    else:
        if not solver.sat(phi):
            return []
        alone = [i for i, k in enumerate(keys) if not solver.sat([k, *phi])]
    if alone:
        return alone
    current = list(range(len(keys)))
    i = 0
    while i < len(current):
        rest = current[:i] + current[i + 1:]
        if rest and not solver.sat([keys[j] for j in rest] + phi):
            current = rest
        else:
            i += 1
    return current
