"""The common interface of the three DRIFT-Bench domains (profile `drift-bench-v1`).

A domain turns raw constraints (`{"type", "args"}`) into *compiled keys*: small hashable
tuples with entity names resolved to indices and numbers converted, or `FALSE` when the
constraint is malformed (the reference checker fails closed). A compiled key is all the
solver layer needs: it has one Z3 encoding (`encode`) and one direct, pure-Python
evaluation on a complete assignment (`holds`); the two are kept equal by a property test.

Answers compile to the same keys (seating `at`, scheduling `at`/`dur`, logic grid `eq`), so
"the answer satisfies these constraints" is a satisfiability check of one key set.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import z3

Key = tuple[Any, ...]
"""A compiled constraint: `(tag, ...ints)`; `FALSE` for anything malformed."""
FALSE: Key = ("F",)
"""The compiled form of a malformed constraint (unknown type/name, bad args): always false."""
Assignment = tuple[Any, ...]
"""A complete assignment of every variable (domain-specific tuple layout)."""

_INT_RE = re.compile(r"[+-]?\d+")


class DomainError(ValueError):
    """The problem context itself is unusable (the reference raises; the runner records a z3 error)."""


def to_int(value: Any) -> int | None:
    """Convert an argument to int exactly as the reference does, or None.

    bool -> 0/1; float -> truncated (NaN/inf fail); a string of digits with an optional
    sign (surrounding blanks allowed) -> int; anything else (e.g. `"3.0"`) fails.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if _INT_RE.fullmatch(text):
            return int(text)
    return None


class Domain(ABC):
    """One problem's domain: entities, context, compilation, Z3 encoding and direct evaluation."""

    name: str = ""
    symmetric: frozenset[str] = frozenset()

    def __init__(self, entities: Sequence[str]) -> None:
        self.entities: tuple[str, ...] = tuple(entities)
        self.n = len(self.entities)
        self.index: dict[str, int] = {e: i for i, e in enumerate(self.entities)}
        self.index_ci: dict[str, int] = {}
        for i, e in enumerate(self.entities):
            self.index_ci.setdefault(e.strip().lower(), i)

    @abstractmethod
    def signature(self) -> tuple[Any, ...]:
        """Everything the meaning of a compiled key depends on: domain name, entity count, context.

        Compiled keys name entities and values by index, so two problems with equal signatures
        give every key set the same verdict (the solver's memo and engines are shared by signature).
        """

    # -- compilation -------------------------------------------------------------------
    def entity(self, value: Any) -> int | None:
        """Index of an entity named exactly `value` in a constraint, or None."""
        if isinstance(value, str):
            return self.index.get(value)
        return None

    def compile(self, ctype: Any, args: Any) -> Key:
        """Compile one raw constraint; malformed input compiles to `FALSE` (fail closed)."""
        if not isinstance(ctype, str) or not isinstance(args, list):
            return FALSE
        try:
            return self._compile(ctype, args)
        except (TypeError, ValueError, KeyError, IndexError):  # pragma: no cover - defensive
            return FALSE

    def compile_constraint(self, constraint: Any) -> Key:
        """Compile a constraint object (a dict with `type` and `args`; other keys are ignored)."""
        if isinstance(constraint, dict):
            return self.compile(constraint.get("type"), constraint.get("args"))
        ctype = getattr(constraint, "type", None)
        args = getattr(constraint, "args", None)
        return self.compile(ctype, args)

    @abstractmethod
    def _compile(self, ctype: str, args: list[Any]) -> Key: ...

    @abstractmethod
    def answer_keys(self, answer: Any) -> list[Key]:
        """Φ(answer): the keys fixing every component the (normalised) answer gives."""

    @abstractmethod
    def complete_assignment(self, keys: Sequence[Key]) -> Assignment | None:
        """The complete assignment fixed by the value-fixing keys among `keys`, or None.

        Value-fixing keys are seating `at`, scheduling `at`/`dur` and logic-grid `eq`; other
        keys are skipped. None when some variable is left free or is fixed to two values.
        When an assignment comes back, it is the only candidate model of the whole key set.
        """

    @abstractmethod
    def is_complete(self, answer: Any) -> bool:
        """Reference `Complete()` (drift-spec §b.2) on a normalised answer."""

    # -- semantics ---------------------------------------------------------------------
    @abstractmethod
    def variables(self) -> list[z3.ArithRef]:
        """Fresh Z3 variables (in a stable order) for one solver."""

    @abstractmethod
    def axioms(self, v: list[z3.ArithRef]) -> list[z3.BoolRef]:
        """Base axioms (ranges, Distinct, ...), always asserted."""

    @abstractmethod
    def encode(self, key: Key, v: list[z3.ArithRef]) -> z3.BoolRef:
        """Z3 formula of a compiled key over the variables `v`."""

    @abstractmethod
    def axioms_hold(self, a: Assignment) -> bool:
        """Direct check of the base axioms on a complete assignment."""

    @abstractmethod
    def holds(self, key: Key, a: Assignment) -> bool:
        """Direct evaluation of a compiled key on a complete assignment (equal to Z3)."""

    @abstractmethod
    def assignment_from_model(self, model: z3.ModelRef, v: list[z3.ArithRef]) -> Assignment:
        """The complete assignment of a Z3 model."""

    def satisfied_by(self, keys: Sequence[Key], a: Assignment) -> bool:
        """All keys and the base axioms hold on the complete assignment `a`."""
        return self.axioms_hold(a) and all(self.holds(k, a) for k in keys)
