"""DRIFT-Bench constraint domains (profile `drift-bench-v1`): Z3 encodings and direct evaluators."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from checker.constraint.domains.base import FALSE, Assignment, Domain, DomainError, Key, to_int
from checker.constraint.domains.logic_grid import LogicGrid
from checker.constraint.domains.scheduling import Scheduling
from checker.constraint.domains.seating import Seating

DOMAINS = ("seating", "scheduling", "logic_grid")


def make_domain(problem: Mapping[str, Any]) -> Domain:
    """The domain of a problem JSON object, with the reference's context (`get_problem_context`).

    Defaults as in the reference: `table_shape` "round"; `num_slots` max(6, n + 1);
    `max_duration` 3 (every released problem carries these fields).

    Raises:
        DomainError: unknown domain, or a logic-grid category whose size differs from the entity count.
    """
    domain = problem.get("domain")
    entities = [str(e) for e in problem.get("entities") or []]
    if domain == "seating":
        return Seating(entities, str(problem.get("table_shape") or "round"))
    if domain == "scheduling":
        n = len(entities)
        slots = problem.get("num_slots")
        dur = problem.get("max_duration")
        return Scheduling(
            entities,
            slots if isinstance(slots, int) and not isinstance(slots, bool) else max(6, n + 1),
            dur if isinstance(dur, int) and not isinstance(dur, bool) else 3,
        )
    if domain == "logic_grid":
        cats = problem.get("categories")
        if not isinstance(cats, Mapping):
            raise DomainError("logic_grid problem has no categories")
        return LogicGrid(entities, {str(c): [str(v) for v in vals] for c, vals in cats.items()})
    raise DomainError(f"unknown domain {domain!r}")


__all__ = [
    "DOMAINS", "FALSE", "Assignment", "Domain", "DomainError", "Key", "LogicGrid", "Scheduling", "Seating",
    "make_domain", "to_int",
]
