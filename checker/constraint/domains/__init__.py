"""DRIFT-Bench constraint domains (profile `drift-bench-v1`): Z3 encodings and direct evaluators."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

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
    make = _MAKERS.get(domain) if isinstance(domain, str) else None
    if make is None:
        raise DomainError(f"unknown domain {domain!r}")
    return make(problem, entities)


def _seating(problem: Mapping[str, Any], entities: list[str]) -> Domain:
    return Seating(entities, str(problem.get("table_shape") or "round"))


def _scheduling(problem: Mapping[str, Any], entities: list[str]) -> Domain:
    slots, dur = problem.get("num_slots"), problem.get("max_duration")
    return Scheduling(entities, slots if _is_int(slots) else max(6, len(entities) + 1), dur if _is_int(dur) else 3)


def _logic_grid(problem: Mapping[str, Any], entities: list[str]) -> Domain:
    cats = problem.get("categories")
    if not isinstance(cats, Mapping):
        raise DomainError("logic_grid problem has no categories")
    return LogicGrid(entities, {str(c): [str(v) for v in vals] for c, vals in cats.items()})


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_MAKERS: dict[str, Callable[[Mapping[str, Any], list[str]], Domain]] = {
    "seating": _seating, "scheduling": _scheduling, "logic_grid": _logic_grid,
}
"""Domain name -> the maker of its domain object from the problem's context fields."""


__all__ = [
    "DOMAINS", "FALSE", "Assignment", "Domain", "DomainError", "Key", "LogicGrid", "Scheduling", "Seating",
    "make_domain", "to_int",
]
