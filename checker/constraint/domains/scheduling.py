"""Scheduling (drift-spec §a.2): independent integer intervals, free durations, overlaps allowed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from checker.constraint.domains.base import FALSE, Assignment, Domain, Key, to_int


class Scheduling(Domain):
    """Events with a start in 1..S and a duration in 1..M that fit (start + dur - 1 <= S).

    Assignments are flat tuples `(start_0, dur_0, start_1, dur_1, ...)`.
    """

    name = "scheduling"
    symmetric = frozenset({"not_simultaneous"})

    def __init__(self, entities: Sequence[str], num_slots: int, max_duration: int = 3) -> None:
        super().__init__(entities)
        self.slots = num_slots
        self.max_duration = max_duration

    def signature(self) -> tuple[Any, ...]:
        """Name, entity count and context (see `Domain.signature`)."""
        return ("scheduling", self.n, self.slots, self.max_duration)

    def _compile(self, ctype: str, args: list[Any]) -> Key:
        if ctype in ("before", "not_simultaneous"):
            return self._pair("before" if ctype == "before" else "nsim", args)
        if ctype in ("at_time", "duration"):
            return self._fixed("at" if ctype == "at_time" else "dur", args)
        if ctype == "within":
            return self._within(args)
        if ctype == "gap":
            return self._gap(args)
        return FALSE

    def _pair(self, tag: str, args: list[Any]) -> Key:
        """`before` (A ends before B starts) and `nsim` (different starts) of two events."""
        if len(args) < 2:
            return FALSE
        a, b = self.entity(args[0]), self.entity(args[1])
        return FALSE if a is None or b is None else (tag, a, b)

    def _fixed(self, tag: str, args: list[Any]) -> Key:
        """`at` (the start) and `dur` (the duration) of an event."""
        if len(args) < 2:
            return FALSE
        a, t = self.entity(args[0]), to_int(args[1])
        return FALSE if a is None or t is None else (tag, a, t)

    def _within(self, args: list[Any]) -> Key:
        """The event starts between two slots, given in either order."""
        if len(args) < 3:
            return FALSE
        a, t1, t2 = self.entity(args[0]), to_int(args[1]), to_int(args[2])
        return FALSE if a is None or t1 is None or t2 is None else ("within", a, min(t1, t2), max(t1, t2))

    def _gap(self, args: list[Any]) -> Key:
        """At least g free slots between the two events, in either order."""
        if len(args) < 3:
            return FALSE
        a, b, g = self.entity(args[0]), self.entity(args[1]), to_int(args[2])
        return FALSE if a is None or b is None or g is None else ("gap", a, b, g)

    def answer_keys(self, answer: Any) -> list[Key]:
        """Φ: the start, and the duration if given, of each answered event."""
        keys: list[Key] = []
        for name, (start, dur) in answer.items():
            a = self.index.get(name)
            if a is None:
                keys.append(FALSE)
                continue
            if start is not None:
                keys.append(("at", a, start))
            if dur is not None:
                keys.append(("dur", a, dur))
        return keys

    def complete_assignment(self, keys: Sequence[Key]) -> Assignment | None:
        """The flat (start, dur) tuple when every start and every duration is fixed once."""
        if len(keys) < 2 * self.n:  # every variable needs a fixing key
            return None
        vals: list[int | None] = [None] * (2 * self.n)
        for k in keys:
            if k[0] not in ("at", "dur"):
                continue
            slot = 2 * k[1] + (0 if k[0] == "at" else 1)
            if vals[slot] is not None and vals[slot] != k[2]:
                return None
            vals[slot] = k[2]
        if any(x is None for x in vals):
            return None
        return tuple(vals)

    def is_complete(self, answer: Any) -> bool:
        """Every event is present with a start (the duration is optional)."""
        if not isinstance(answer, dict):
            return False
        return all(e in answer and answer[e][0] is not None for e in self.entities)

    def variables(self) -> list[z3.ArithRef]:
        """`start_e, dur_e` for each event, interleaved."""
        out: list[z3.ArithRef] = []
        for i in range(self.n):
            out += [z3.Int(f"start_{i}"), z3.Int(f"dur_{i}")]
        return out

    def axioms(self, v: list[z3.ArithRef]) -> list[z3.BoolRef]:
        """1 <= start <= S, 1 <= dur <= M, start + dur - 1 <= S."""
        out: list[z3.BoolRef] = []
        for i in range(self.n):
            s, d = v[2 * i], v[2 * i + 1]
            out += [s >= 1, s <= self.slots, d >= 1, d <= self.max_duration, s + d - 1 <= self.slots]
        return out

    def encode(self, key: Key, v: list[z3.ArithRef]) -> z3.BoolRef:
        """Z3 formula of a compiled scheduling key."""
        tag = key[0]
        if tag == "F":
            return z3.BoolVal(False)
        sa, da = v[2 * key[1]], v[2 * key[1] + 1]
        if tag == "at":
            return sa == key[2]
        if tag == "dur":
            return da == key[2]
        if tag == "within":
            return z3.And(sa >= key[2], sa <= key[3])
        sb, db = v[2 * key[2]], v[2 * key[2] + 1]
        if tag == "before":
            return sa + da <= sb
        if tag == "nsim":
            return sa != sb
        g = key[3]
        return z3.Or(sa + da + g <= sb, sb + db + g <= sa)

    def axioms_hold(self, a: Assignment) -> bool:
        """Every interval is in range and fits."""
        s_max, m = self.slots, self.max_duration
        for i in range(0, len(a), 2):
            s, d = a[i], a[i + 1]
            if not (1 <= s <= s_max and 1 <= d <= m and s + d - 1 <= s_max):
                return False
        return True

    def holds(self, key: Key, a: Assignment) -> bool:
        """Direct evaluation of a compiled scheduling key."""
        tag = key[0]
        if tag == "F":
            return False
        sa, da = a[2 * key[1]], a[2 * key[1] + 1]
        if tag == "at":
            return bool(sa == key[2])
        if tag == "dur":
            return bool(da == key[2])
        if tag == "within":
            return bool(key[2] <= sa <= key[3])
        sb, db = a[2 * key[2]], a[2 * key[2] + 1]
        if tag == "before":
            return bool(sa + da <= sb)
        if tag == "nsim":
            return bool(sa != sb)
        g = key[3]
        return bool(sa + da + g <= sb or sb + db + g <= sa)

    def assignment_from_model(self, model: z3.ModelRef, v: list[z3.ArithRef]) -> Assignment:
        """Starts and durations from a model."""
        return tuple(model.eval(x, model_completion=True).as_long() for x in v)
