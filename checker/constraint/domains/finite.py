"""Exact satisfiability without Z3, by enumeration over the small finite domains of the three domains.

Every variable of every domain ranges over a small finite set, so SAT(base axioms ∧ keys) can
be decided by looking at assignments, not approximated:

* **Permutation blocks** (seating: one block, the seats of the n entities; logic grid: one block
  per category, the value indices of the n entities). Every key constrains variables of one
  block. A block's n! permutations are numbered once per n, and each key becomes a bitmask over
  them (bit set = the key holds on that permutation, evaluated with the domain's own `holds`).
  SAT is "the AND of every block's masks is non-zero": a few big-integer ANDs per check.
  Used while n! <= `MAX_PERMUTATIONS`.
* **Scheduling** (independent intervals, no global constraint): a small CSP, one variable per
  event over its (start, duration) pairs that fit, unary keys as value masks, binary keys as
  compatibility masks; complete backtracking search with forward checking (smallest domain
  first). The search is bounded by `MAX_NODES`; past it the engine answers None and the caller
  asks Z3.

Both are complete enumerations, not heuristics: a mask bit or a search branch is an assignment
that satisfies the base axioms, and a key's mask is its `holds` on exactly those assignments
(property tests keep `holds` equal to Z3 and the engine equal to Z3 and to brute force).
A SAT verdict is also certified on the spot: the engine builds the model its masks or search
found and checks it with the domain's `satisfied_by`; if that check ever failed (an engine bug)
the engine would answer None and Z3 would decide. An UNSAT verdict rests on the enumeration
being complete.

`engine_for(domain)` shares one engine (and its per-key masks) between every problem with the
same `Domain.signature()`: compiled keys are index-based, so the verdict depends on nothing else.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from checker.constraint.domains.base import FALSE, Domain, Key
from checker.constraint.domains.logic_grid import LogicGrid
from checker.constraint.domains.scheduling import Scheduling
from checker.constraint.domains.seating import Seating

MAX_PERMUTATIONS = 40_320
"""Largest block enumerated (8! = 40,320 permutations, 5 KB per mask); larger blocks go to Z3."""
MAX_NODES = 20_000
"""Search nodes per scheduling check before the engine gives up (None: Z3 decides)."""
MAX_ENGINES = 64
"""Engines kept (LRU, one per domain signature); DRIFT-Bench's test split has 20 signatures."""
MAX_KEY_MASKS = 4_096
"""Per-key masks kept per engine, emptied when full: numbers in keys come from untrusted ledgers, so
the distinct keys are unbounded (at most 20 MB per engine for 8-seat tables)."""


class _Budget(Exception):
    """The scheduling search went past `MAX_NODES`."""


@lru_cache(maxsize=8)
def at_masks(n: int) -> tuple[tuple[int, ...], ...]:
    """`at[i][v]`: bitmask over the permutations of range(n) (itertools order) with position i = v."""
    perms = list(itertools.permutations(range(n)))
    zero_one = [bytes.maketrans(bytes(range(n)), bytes(ord("1") if x == v else ord("0") for x in range(n)))
                for v in range(n)]
    out = []
    for i in range(n):
        column = bytes(p[i] for p in reversed(perms))  # the last permutation is the most significant bit
        out.append(tuple(int(column.translate(zero_one[v]), 2) for v in range(n)))
    return tuple(out)


def nth_permutation(n: int, k: int) -> tuple[int, ...]:
    """The k-th permutation of range(n) in `itertools.permutations` (lexicographic) order."""
    items = list(range(n))
    out = []
    for i in range(n, 0, -1):
        q, k = divmod(k, math.factorial(i - 1))
        out.append(items.pop(q))
    return tuple(out)


class Engine(ABC):
    """Exact SAT of compiled keys for one domain signature (see the module docstring)."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.fallbacks = 0
        """Checks past the search budget (answered None)."""
        self.unverified = 0
        """SAT verdicts whose model failed the direct check (never expected; answered None)."""

    @abstractmethod
    def sat(self, keys: Sequence[Key]) -> bool | None:
        """SAT(base axioms ∧ keys), or None when this engine cannot decide it within its bounds."""


class PermutationEngine(Engine):
    """Seating (one block) and logic grid (one block per category): bitmasks over permutations."""

    def __init__(self, domain: Domain, blocks: int, n: int, place: Callable[[Key], tuple[int, tuple[int, ...]]],
                 fake: Callable[[Key, tuple[int, ...]], tuple[int, ...]],
                 assemble: Callable[[list[tuple[int, ...]]], tuple[int, ...]]) -> None:
        super().__init__(domain)
        self.blocks = blocks
        self.n = n
        self.at = at_masks(n)
        self.full = (1 << math.factorial(n)) - 1
        self._place = place
        self._fake = fake
        self._assemble = assemble
        self._masks: dict[Key, tuple[int, int]] = {}

    def mask(self, key: Key) -> tuple[int, int]:
        """(block, bitmask of the block's permutations on which `key` holds)."""
        found = self._masks.get(key)
        if found is not None:
            return found
        block, pos = self._place(key)
        if len(pos) == 1 or (len(pos) == 2 and pos[0] == pos[1]):
            m = self._unary_mask(key, pos[0])
        else:
            m = self._binary_mask(key, pos[0], pos[1])
        if len(self._masks) >= MAX_KEY_MASKS:
            self._masks.clear()
        found = self._masks[key] = (block, m)
        return found

    def _unary_mask(self, key: Key, i: int) -> int:
        """The permutations whose position i holds a value on which `key` holds."""
        holds, fake, at = self.domain.holds, self._fake, self.at
        m = 0
        for v in range(self.n):
            if holds(key, fake(key, (v, v))):
                m |= at[i][v]
        return m

    def _binary_mask(self, key: Key, i: int, j: int) -> int:
        """The permutations whose positions i and j hold a pair of values on which `key` holds."""
        holds, fake, at, n = self.domain.holds, self._fake, self.at, self.n
        m = 0
        for vi in range(n):
            for vj in range(n):
                if vi != vj and holds(key, fake(key, (vi, vj))):
                    m |= at[i][vi] & at[j][vj]
        return m

    def sat(self, keys: Sequence[Key]) -> bool | None:
        """AND of each block's key masks; SAT when no block ends empty."""
        acc = [self.full] * self.blocks
        for k in keys:
            if k == FALSE:
                return False
            block, m = self.mask(k)
            acc[block] &= m
            if not acc[block]:
                return False
        # SAT: the first permutation left in each block is a model; check it directly (a certificate)
        perms = [nth_permutation(self.n, (m & -m).bit_length() - 1) for m in acc]
        if self.domain.satisfied_by(keys, self._assemble(perms)):
            return True
        self.unverified += 1  # pragma: no cover - would be an engine bug: let Z3 decide
        return None  # pragma: no cover


def _seating_engine(dom: Seating) -> PermutationEngine:
    def place(key: Key) -> tuple[int, tuple[int, ...]]:
        return 0, (key[1],) if key[0] == "at" else (key[1], key[2])

    def fake(key: Key, vals: tuple[int, ...]) -> tuple[int, ...]:
        a = [0] * dom.n
        a[key[1]] = vals[0]
        if key[0] != "at":
            a[key[2]] = vals[1]
        return tuple(a)

    return PermutationEngine(dom, 1, dom.n, place, fake, lambda perms: perms[0])


def _grid_engine(dom: LogicGrid) -> PermutationEngine:
    nc = dom.nc

    def place(key: Key) -> tuple[int, tuple[int, ...]]:
        if key[0] in ("eq", "ne"):
            return key[2], (key[1],)
        return key[3], (key[1], key[2])

    def fake(key: Key, vals: tuple[int, ...]) -> tuple[int, ...]:
        a = [0] * (dom.n * nc)
        if key[0] in ("eq", "ne"):
            a[key[1] * nc + key[2]] = vals[0]
        else:
            a[key[1] * nc + key[3]] = vals[0]
            a[key[2] * nc + key[3]] = vals[1]
        return tuple(a)

    def assemble(perms: list[tuple[int, ...]]) -> tuple[int, ...]:
        return tuple(perms[c][e] for e in range(dom.n) for c in range(nc))

    return PermutationEngine(dom, nc, dom.n, place, fake, assemble)


class SchedulingEngine(Engine):
    """Backtracking with forward checking over each event's fitting (start, duration) pairs."""

    def __init__(self, domain: Scheduling) -> None:
        super().__init__(domain)
        self.dom = domain
        self.values = [(s, d) for s in range(1, domain.slots + 1) for d in range(1, domain.max_duration + 1)
                       if s + d - 1 <= domain.slots]
        self.full = (1 << len(self.values)) - 1
        self._keys: dict[Key, Any] = {}
        self._shapes: dict[Key, tuple[Any, Any]] = {}

    def compile(self, key: Key) -> Any:
        """A unary key as (event, value mask); a binary one as (a, b, masks of b per a value, of a per b value)."""
        found = self._keys.get(key)
        if found is not None:
            return found
        a = key[1]
        b = key[2] if key[0] in ("before", "nsim", "gap") else a
        # the relation depends on the tag and the numbers only: event 0 (and 1) stand in for a (and b)
        if key[0] not in ("before", "nsim", "gap"):
            shape: Key = (key[0], 0, *key[2:])
        else:
            shape = (key[0], 0, 0 if a == b else 1, *key[3:])
        rel = self._shapes.get(shape)
        if rel is None:
            if len(self._shapes) >= MAX_KEY_MASKS:
                self._shapes.clear()
            rel = self._shapes[shape] = self._relation(shape, a == b)
        found = (a, rel[0]) if a == b else (a, b, rel[0], rel[1])
        if len(self._keys) >= MAX_KEY_MASKS:
            self._keys.clear()
        self._keys[key] = found
        return found

    def _relation(self, shape: Key, unary: bool) -> tuple[Any, Any]:
        """(value mask, None) of a unary shape on event 0; (fwd, bwd) masks of a binary shape on events 0, 1."""
        holds, vals = self.dom.holds, self.values
        fake = [0] * max(4, 2 * self.dom.n)  # events other than 0 and 1 stay 0: `holds` reads only the key's
        if unary:
            m = 0
            for i, (s, d) in enumerate(vals):
                fake[0], fake[1] = s, d
                if holds(shape, tuple(fake)):
                    m |= 1 << i
            return m, None
        fwd = [0] * len(vals)
        bwd = [0] * len(vals)
        for i, (sa, da) in enumerate(vals):
            fake[0], fake[1] = sa, da
            for j, (sb, db) in enumerate(vals):
                fake[2], fake[3] = sb, db
                if holds(shape, tuple(fake)):
                    fwd[i] |= 1 << j
                    bwd[j] |= 1 << i
        return fwd, bwd

    @staticmethod
    def _supported(masks: list[int], dom_x: int, dom_y: int) -> int:
        """The values of x (in `dom_x`) with a compatible value of y in `dom_y`."""
        out = 0
        m = dom_x
        while m:
            low = m & -m
            m ^= low
            if masks[low.bit_length() - 1] & dom_y:
                out |= low
        return out

    def _arc_consistent(self, doms: list[int], links: list[list[tuple[int, list[int]]]]) -> bool:
        """Prune `doms` in place to arc consistency (AC-3); False when a domain empties (UNSAT).

        `links[x]` holds `(y, masks)` with `masks[i]` = the values of y compatible with x's value i;
        only values without any compatible value are removed, so no solution is lost.
        """
        queue = [y for y in range(len(doms)) if links[y]]
        queued = set(queue)
        while queue:
            y = queue.pop()
            queued.discard(y)
            for x, _ in links[y]:
                m = doms[x]
                for z, masks in links[x]:
                    if z == y:
                        m = self._supported(masks, m, doms[y])
                if m != doms[x]:
                    if not m:
                        return False
                    doms[x] = m
                    if x not in queued:
                        queue.append(x)
                        queued.add(x)
        return True

    def sat(self, keys: Sequence[Key]) -> bool | None:
        """Unary masks, then a complete search over the events that binary keys connect."""
        posted = self._post(keys)
        if posted is None:
            return False
        doms, links = posted
        if not self._arc_consistent(doms, links):
            return False
        todo = frozenset(e for e in range(self.dom.n) if links[e])
        try:
            found = _search(doms, todo, links, [0])
        except _Budget:
            self.fallbacks += 1
            return None
        return False if found is None else self._certified(keys, found)

    def _certified(self, keys: Sequence[Key], found: list[int]) -> bool | None:
        """SAT: the lowest value left for each event is a model; check it directly (a certificate)."""
        vals = [self.values[(m & -m).bit_length() - 1] for m in found]
        if self.dom.satisfied_by(keys, tuple(x for sd in vals for x in sd)):
            return True
        self.unverified += 1  # pragma: no cover - would be an engine bug: let Z3 decide
        return None  # pragma: no cover

    def _post(self, keys: Sequence[Key]) -> tuple[list[int], list[list[tuple[int, list[int]]]]] | None:
        """(each event's value mask after the unary keys, each event's binary links); None when UNSAT already."""
        n = self.dom.n
        doms = [self.full] * n
        links: list[list[tuple[int, list[int]]]] = [[] for _ in range(n)]
        for k in keys:
            if k == FALSE:
                return None
            c = self.compile(k)
            if len(c) == 2:
                doms[c[0]] &= c[1]
                if not doms[c[0]]:
                    return None
            else:
                a, b, fwd, bwd = c
                links[a].append((b, fwd))
                links[b].append((a, bwd))
        return doms, links


def _search(doms: list[int], todo: frozenset[int], links: list[list[tuple[int, list[int]]]],
            nodes: list[int]) -> list[int] | None:
    """Backtracking with forward checking over the events in `todo` (smallest domain first).

    Returns the domains with one value per event of `todo`, or None (no assignment exists).
    `nodes[0]` counts the values tried; past `MAX_NODES` the search raises `_Budget`.
    """
    if not todo:
        return doms
    x = min(todo, key=lambda e: doms[e].bit_count())
    rest = todo - {x}
    m = doms[x]
    while m:
        low = m & -m
        m ^= low
        nodes[0] += 1
        if nodes[0] > MAX_NODES:
            raise _Budget
        i = low.bit_length() - 1
        nd = list(doms)
        nd[x] = low
        for y, masks in links[x]:
            if y in rest:
                nd[y] &= masks[i]
                if not nd[y]:
                    break
        else:
            found = _search(nd, rest, links, nodes)
            if found is not None:
                return found
    return None


_ENGINES: OrderedDict[tuple[object, ...], Engine | None] = OrderedDict()


def clear_engines() -> None:
    """Forget every shared engine and its masks (benchmarks time cold engines)."""
    _ENGINES.clear()
    at_masks.cache_clear()


def make_engine(domain: Domain) -> Engine | None:
    """A fresh engine for the domain, or None when its blocks are too large to enumerate."""
    if isinstance(domain, (Seating, LogicGrid)):
        if domain.n > 12 or math.factorial(domain.n) > MAX_PERMUTATIONS:
            return None
        return _seating_engine(domain) if isinstance(domain, Seating) else _grid_engine(domain)
    if isinstance(domain, Scheduling):
        return SchedulingEngine(domain)
    return None


def engine_for(domain: Domain) -> Engine | None:
    """The shared engine of the domain's signature (an LRU of `MAX_ENGINES`), or None."""
    sig = domain.signature()
    if sig in _ENGINES:
        _ENGINES.move_to_end(sig)
        return _ENGINES[sig]
    engine = _ENGINES[sig] = make_engine(domain)
    if len(_ENGINES) > MAX_ENGINES:
        _ENGINES.popitem(last=False)
    return engine
