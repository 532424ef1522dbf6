"""Seating (drift-spec §a.1): a circular ring of n seats, even for "rectangular" tables.

Variables are 0-based seat indices; the outside world uses seats 1..n (and 0, read as seat 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from checker.constraint.domains.base import FALSE, Assignment, Domain, Key, to_int

_PAIR_TAGS = {"adjacent": "adj", "not_adjacent": "nadj", "left_of": "left", "same_side": "same", "opposite_side": "opp"}
"""Constraint type of a relation between two entities -> the tag of its compiled key."""


class Seating(Domain):
    """Circular seating: `Distinct` seats, wrap-around adjacency, `left_of` = immediately at B+1 (mod n)."""

    name = "seating"
    symmetric = frozenset({"adjacent", "not_adjacent", "same_side", "opposite_side"})

    def __init__(self, entities: Sequence[str], table_shape: str = "round") -> None:
        super().__init__(entities)
        self.table_shape = table_shape
        self.sides_ok = table_shape == "rectangular" and self.n % 2 == 0
        self.half = self.n // 2

    def position(self, value: Any) -> int | None:
        """Outside seat number -> 0-based index: 1..n -> p-1, 0 -> 0, else None."""
        p = to_int(value)
        if p is None:
            return None
        if 1 <= p <= self.n:
            return p - 1
        if p == 0:
            return 0
        return None

    def signature(self) -> tuple[Any, ...]:
        """Name, entity count and context (see `Domain.signature`)."""
        return ("seating", self.n, self.table_shape)

    def _compile(self, ctype: str, args: list[Any]) -> Key:
        if ctype in _PAIR_TAGS:
            return self._pair(ctype, args)
        if ctype == "at_position":
            return self._at(args)
        if ctype == "separated_by":
            return self._separated(args)
        return FALSE

    def _at(self, args: list[Any]) -> Key:
        """The entity sits at the seat (1..n, or 0 read as 1)."""
        if len(args) < 2:
            return FALSE
        a, p = self.entity(args[0]), self.position(args[1])
        return FALSE if a is None or p is None else ("at", a, p)

    def _separated(self, args: list[Any]) -> Key:
        """At least k seats between the two entities, the shorter way round the ring."""
        if len(args) < 3:
            return FALSE
        a, b, k = self.entity(args[0]), self.entity(args[1]), to_int(args[2])
        return FALSE if a is None or b is None or k is None else ("sep", a, b, k)

    def _pair(self, ctype: str, args: list[Any]) -> Key:
        """A relation of two entities (`_PAIR_TAGS`); sides only at an even rectangular table."""
        if len(args) < 2:
            return FALSE
        a, b = self.entity(args[0]), self.entity(args[1])
        if a is None or b is None:
            return FALSE
        if ctype in ("same_side", "opposite_side") and not self.sides_ok:
            return FALSE
        return (_PAIR_TAGS[ctype], a, b)

    def answer_keys(self, answer: Any) -> list[Key]:
        """Φ: each given `{entity: seat}` fixes the converted seat (an out-of-range seat is false)."""
        keys: list[Key] = []
        for name, seat in answer.items():
            a, p = self.index.get(name), self.position(seat)
            keys.append(FALSE if a is None or p is None else ("at", a, p))
        return keys

    def complete_assignment(self, keys: Sequence[Key]) -> Assignment | None:
        """The seat tuple when the keys fix every entity exactly once."""
        if len(keys) < self.n:  # every variable needs a fixing key
            return None
        seats: list[int | None] = [None] * self.n
        for k in keys:
            if k[0] != "at":
                continue
            if seats[k[1]] is not None and seats[k[1]] != k[2]:
                return None
            seats[k[1]] = k[2]
        if any(s is None for s in seats):
            return None
        return tuple(seats)

    def is_complete(self, answer: Any) -> bool:
        """Every entity is a key."""
        return isinstance(answer, dict) and all(e in answer for e in self.entities)

    def variables(self) -> list[z3.ArithRef]:
        """One Int per entity: its 0-based seat index."""
        return [z3.Int(f"seat_{i}") for i in range(self.n)]

    def axioms(self, v: list[z3.ArithRef]) -> list[z3.BoolRef]:
        """0 <= seat < n and Distinct."""
        out: list[z3.BoolRef] = [z3.And(x >= 0, x <= self.n - 1) for x in v]
        if len(v) > 1:
            out.append(z3.Distinct(*v))
        return out

    def encode(self, key: Key, v: list[z3.ArithRef]) -> z3.BoolRef:
        """Z3 formula of a compiled seating key."""
        tag, n = key[0], self.n
        if tag == "F":
            return z3.BoolVal(False)
        if tag == "at":
            return v[key[1]] == key[2]
        d = v[key[1]] - v[key[2]]
        if tag in ("adj", "nadj"):
            adj = z3.Or(d == 1, d == -1, d == n - 1, d == -(n - 1))
            return adj if tag == "adj" else z3.Not(adj)
        if tag == "left":
            return z3.Or(d == 1, d == -(n - 1))
        if tag == "sep":
            k1 = key[3] + 1
            return z3.Or(z3.And(d >= 0, d >= k1, n - d >= k1), z3.And(d < 0, -d >= k1, n + d >= k1))
        side_a, side_b = v[key[1]] < self.half, v[key[2]] < self.half
        return side_a == side_b if tag == "same" else side_a != side_b

    def axioms_hold(self, a: Assignment) -> bool:
        """Seats in range and pairwise distinct."""
        return not a or (min(a) >= 0 and max(a) < self.n and len(set(a)) == len(a))

    def holds(self, key: Key, a: Assignment) -> bool:
        """Direct evaluation of a compiled seating key."""
        tag, n = key[0], self.n
        if tag == "F":
            return False
        if tag == "at":
            return bool(a[key[1]] == key[2])
        d = a[key[1]] - a[key[2]]
        if tag == "adj":
            return d in (1, -1, n - 1, -(n - 1))
        if tag == "nadj":
            return d not in (1, -1, n - 1, -(n - 1))
        if tag == "left":
            return d in (1, -(n - 1))
        if tag == "sep":
            ad = abs(d)
            return min(ad, n - ad) >= key[3] + 1
        same = (a[key[1]] < self.half) == (a[key[2]] < self.half)
        return same if tag == "same" else not same

    def assignment_from_model(self, model: z3.ModelRef, v: list[z3.ArithRef]) -> Assignment:
        """Seat indices from a model."""
        return tuple(model.eval(x, model_completion=True).as_long() for x in v)
