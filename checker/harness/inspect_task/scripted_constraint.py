"""The scripted model's constraint-track behaviours: an oracle over a problem set (no `inspect_ai` import here).

`inspect eval driftboard/constraint --model driftboard/scripted -M behaviour=perfect -M problems=DIR
-T problems=DIR` runs the constraint task offline: the model finds the problem a conversation
is about (its setup and the turns' user messages) in the problem-set folder `-M problems` and
answers from that set's gold solutions. Behaviours:

* `perfect`: every turn the turn's gold solution; every extraction the turn's new constraints (at
  most three, as the protocol keeps), so the ledger is the gold one: every turn correct and
  `consistent`.
* `forgetful`: as `perfect`, but from turn 2 on every even turn answers turn 1's gold solution (it
  forgets what was added since; the ledger still holds it): those turns are `drift` wherever turn
  1's answer breaks a later constraint.
* `contradicting`: answers as `perfect`, but from turn 2 on each extraction commits a pair of
  constraints that cannot both hold (two entities in seat 1; A before B and B before A; an entity
  assigned and not assigned one value) after the turn's first new constraint: the ledger is UNSAT
  from turn 2 on (`contradiction`).

A conversation whose problem is not in the set is answered with an empty solution (unparsed:
wrong), never an exception.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from checker.constraint.problems import Problem, load_problems

CONSTRAINT_BEHAVIOURS = ("perfect", "forgetful", "contradicting")
"""Behaviours of `driftboard/scripted` that answer the constraint task from a problem set's gold solutions."""

Messages = list[tuple[str, str]]
_ENTITIES = re.compile(r"^Entities: (.*)$", re.MULTILINE)
_DOMAIN = re.compile(r"^Domain: (\w+)", re.MULTILINE)
_NEW = re.compile(r"New constraints:\n(.*?)\n\n", re.DOTALL)
_LATEST = re.compile(r"Latest user message:\n(.*?)\n\nAssistant answer:", re.DOTALL)
_TURN = re.compile(r"^Turn: (\d+)$", re.MULTILINE)


class ProblemIndex:
    """The problems of a set, found by (domain, entities, turn 1's user message)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.by_key: dict[tuple[str, str, str], Problem] = {}
        for p in problems:
            self.by_key[(p.domain, ", ".join(p.entities), p.turns[0].user_message)] = p

    def find(self, domain: str, entities: str, first_message: str) -> Problem | None:
        """The problem with this setup and first turn (None: not in the set)."""
        return self.by_key.get((domain, entities, first_message))


@functools.cache
def problem_index(folder: str) -> ProblemIndex:
    """The index of problem-set folder `folder`.

    Raises:
        ValueError: the folder is missing or holds invalid problems (one line).
    """
    try:
        loaded, errors = load_problems([Path(folder)])
    except Exception as exc:  # a UsageError for a missing folder
        raise ValueError(f"-M problems={folder}: {exc}") from None
    if errors or not loaded:
        raise ValueError(f"-M problems={folder}: not a readable problem set ({len(errors)} problem(s) refused)")
    return ProblemIndex(loaded)


def _field(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    return found.group(1).strip() if found else ""


def _first_turn(index: ProblemIndex, setup: str) -> Problem | None:
    return index.find(_field(_DOMAIN, setup), _field(_ENTITIES, setup), _field(_NEW, setup + "\n\n"))


def _answer(problem: Problem, turn: int, behaviour: str) -> dict[str, Any]:
    if behaviour == "forgetful" and turn >= 2 and turn % 2 == 0:
        return dict(problem.turns[0].gold_solution)
    return dict(problem.turns[turn - 1].gold_solution)


def _contradiction(problem: Problem) -> list[dict[str, Any]]:
    """Two constraints that cannot both hold in the problem's domain."""
    a, b = problem.entities[0], problem.entities[1 % len(problem.entities)]
    if problem.domain == "seating":
        return [{"type": "at_position", "args": [a, 1], "nl": f"{a} sits in seat 1"},
                {"type": "at_position", "args": [b, 1], "nl": f"{b} sits in seat 1"}]
    if problem.domain == "scheduling":
        return [{"type": "before", "args": [a, b], "nl": f"{a} before {b}"},
                {"type": "before", "args": [b, a], "nl": f"{b} before {a}"}]
    cats = problem.raw.get("categories") or {}
    cat, values = next(iter(cats.items())) if cats else ("", [""])
    value = values[0] if values else ""
    return [{"type": "assign", "args": [a, cat, value], "nl": f"{a} has {cat} {value}"},
            {"type": "not_assign", "args": [a, cat, value], "nl": f"{a} does not have {cat} {value}"}]


def _extraction(index: ProblemIndex, prompt: str, behaviour: str) -> str:
    domain, entities = _field(_DOMAIN, prompt), _field(_ENTITIES, prompt)
    turn = int(_field(_TURN, prompt) or 0)
    latest = _field(_LATEST, prompt)
    problem = next((p for p in index.by_key.values() if p.domain == domain and ", ".join(p.entities) == entities
                    and 0 < turn <= len(p.turns) and p.turns[turn - 1].user_message == latest), None)
    if problem is None:
        return json.dumps({"constraints": []})
    new = [{"type": c["type"], "args": c["args"], "nl": c.get("nl")} for c in problem.turns[turn - 1].new_constraints]
    if behaviour == "contradicting" and turn >= 2:
        new = new[:1] + _contradiction(problem)
    return json.dumps({"constraints": new[:3]}, ensure_ascii=False)


def constraint_reply(behaviour: str, messages: Messages, problems: str) -> str:
    """The reply of `driftboard/scripted -M behaviour=<behaviour> -M problems=<problems>` to a constraint conversation.

    Raises:
        ValueError: an unknown behaviour, or an unreadable problem set.
    """
    from checker.harness.inspect_task.protocol import EXTRACTION_SYSTEM

    if behaviour not in CONSTRAINT_BEHAVIOURS:
        raise ValueError(f"behaviour {behaviour!r} is not one of {', '.join(CONSTRAINT_BEHAVIOURS)}")
    index = problem_index(problems)
    users = [text for role, text in messages if role == "user"]
    if messages and messages[0][1] == EXTRACTION_SYSTEM:
        return _extraction(index, users[0] if users else "", behaviour)
    problem = _first_turn(index, users[0]) if users else None
    if problem is None or len(users) > len(problem.turns):
        return json.dumps({"solution": {}})
    return json.dumps({"solution": _answer(problem, len(users), behaviour)}, ensure_ascii=False)


__all__ = ["CONSTRAINT_BEHAVIOURS", "ProblemIndex", "constraint_reply", "problem_index"]
