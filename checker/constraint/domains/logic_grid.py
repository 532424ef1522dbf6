"""Logic grid (drift-spec §a.3): one bijection per category, values are list indices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import z3

from checker.constraint.domains.base import FALSE, Assignment, Domain, DomainError, Key

_PAIR_TAGS = {"same_as": "same", "different": "diff", "ordered": "ord"}
"""Constraint type of a relation between two entities in one category -> the tag of its compiled key."""


class LogicGrid(Domain):
    """v[e, c] = index of entity e's value in category c's list; `Distinct` per category.

    Assignments are flat tuples indexed `e * C + c` (categories in the problem's order).
    """

    name = "logic_grid"
    symmetric = frozenset({"different", "same_as"})

    def __init__(self, entities: Sequence[str], categories: Mapping[str, Sequence[str]]) -> None:
        super().__init__(entities)
        self.categories: dict[str, tuple[str, ...]] = {c: tuple(vals) for c, vals in categories.items()}
        self.cat_names: tuple[str, ...] = tuple(self.categories)
        self.cat_index = {c: i for i, c in enumerate(self.cat_names)}
        self.value_index: list[dict[str, int]] = []
        for c in self.cat_names:
            vals = self.categories[c]
            if len(vals) != self.n:
                raise DomainError(f"category {c!r} has {len(vals)} values for {self.n} entities")
            idx: dict[str, int] = {}
            for i, val in enumerate(vals):
                idx.setdefault(val, i)
            self.value_index.append(idx)
        self.nc = len(self.cat_names)

    def value(self, c: int, val: Any) -> int | None:
        """Index of `val` in category c's list (exact, case-sensitive), or None."""
        if not isinstance(val, str):
            return None
        return self.value_index[c].get(val)

    def signature(self) -> tuple[Any, ...]:
        """Name, entity count and context (see `Domain.signature`)."""
        return ("logic_grid", self.n, tuple(len(self.categories[c]) for c in self.cat_names))

    def _compile(self, ctype: str, args: list[Any]) -> Key:
        if len(args) < 3:
            return FALSE
        if ctype in ("assign", "not_assign"):
            return self._value_key("eq" if ctype == "assign" else "ne", args)
        if ctype in _PAIR_TAGS:
            return self._pair(_PAIR_TAGS[ctype], args)
        return FALSE

    def _category(self, name: Any) -> int | None:
        return self.cat_index.get(name) if isinstance(name, str) else None

    def _value_key(self, tag: str, args: list[Any]) -> Key:
        """`eq` / `ne`: an entity's value in a category is (is not) the given one."""
        e, c = self.entity(args[0]), self._category(args[1])
        if e is None or c is None:
            return FALSE
        i = self.value(c, args[2])
        return FALSE if i is None else (tag, e, c, i)

    def _pair(self, tag: str, args: list[Any]) -> Key:
        """`same` / `diff` / `ord`: two entities' values in a category are equal, differ, or ordered."""
        a, b, c = self.entity(args[0]), self.entity(args[1]), self._category(args[2])
        return FALSE if a is None or b is None or c is None else (tag, a, b, c)

    def answer_keys(self, answer: Any) -> list[Key]:
        """Φ: each given (entity, category) = the value's index (an unknown value is false)."""
        keys: list[Key] = []
        for name, row in answer.items():
            e = self.index.get(name)
            if e is None:
                keys.append(FALSE)
                continue
            for cat, val in row.items():
                c = self.cat_index.get(cat)
                i = None if c is None else self.value(c, val)
                keys.append(FALSE if c is None or i is None else ("eq", e, c, i))
        return keys

    def complete_assignment(self, keys: Sequence[Key]) -> Assignment | None:
        """The grid when the keys fix every (entity, category) once."""
        if len(keys) < self.n * self.nc:  # every variable needs a fixing key
            return None
        vals: list[int | None] = [None] * (self.n * self.nc)
        for k in keys:
            if k[0] != "eq":
                continue
            slot = k[1] * self.nc + k[2]
            if vals[slot] is not None and vals[slot] != k[3]:
                return None
            vals[slot] = k[3]
        if any(x is None for x in vals):
            return None
        return tuple(vals)

    def is_complete(self, answer: Any) -> bool:
        """Every entity has a row with every category."""
        return isinstance(answer, dict) and all(
            e in answer and all(c in answer[e] for c in self.cat_names) for e in self.entities
        )

    def variables(self) -> list[z3.ArithRef]:
        """One Int per (entity, category)."""
        return [z3.Int(f"v_{e}_{c}") for e in range(self.n) for c in range(self.nc)]

    def axioms(self, v: list[z3.ArithRef]) -> list[z3.BoolRef]:
        """0 <= v < |values| and Distinct per category."""
        out: list[z3.BoolRef] = [z3.And(x >= 0, x < self.n) for x in v]
        if self.n > 1:
            for c in range(self.nc):
                out.append(z3.Distinct(*[v[e * self.nc + c] for e in range(self.n)]))
        return out

    def encode(self, key: Key, v: list[z3.ArithRef]) -> z3.BoolRef:
        """Z3 formula of a compiled logic-grid key."""
        tag, nc = key[0], self.nc
        if tag == "F":
            return z3.BoolVal(False)
        if tag in ("eq", "ne"):
            x = v[key[1] * nc + key[2]]
            return x == key[3] if tag == "eq" else x != key[3]
        xa, xb = v[key[1] * nc + key[3]], v[key[2] * nc + key[3]]
        if tag == "same":
            return xa == xb
        if tag == "diff":
            return xa != xb
        return xa < xb

    def axioms_hold(self, a: Assignment) -> bool:
        """Every value in range; each category a permutation."""
        n, nc = self.n, self.nc
        if not all(0 <= x < n for x in a):
            return False
        return all(len({a[e * nc + c] for e in range(n)}) == n for c in range(nc))

    def holds(self, key: Key, a: Assignment) -> bool:
        """Direct evaluation of a compiled logic-grid key."""
        tag, nc = key[0], self.nc
        if tag == "F":
            return False
        if tag in ("eq", "ne"):
            x = a[key[1] * nc + key[2]]
            return bool(x == key[3]) if tag == "eq" else bool(x != key[3])
        xa, xb = a[key[1] * nc + key[3]], a[key[2] * nc + key[3]]
        if tag == "same":
            return bool(xa == xb)
        if tag == "diff":
            return bool(xa != xb)
        return bool(xa < xb)

    def assignment_from_model(self, model: z3.ModelRef, v: list[z3.ArithRef]) -> Assignment:
        """Value indices from a model."""
        return tuple(model.eval(x, model_completion=True).as_long() for x in v)
