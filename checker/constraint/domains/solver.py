"""The solver layer: exact SAT of compiled keys, Z3 as the last resort.

* `sat(keys)` decides SAT(base axioms ∧ keys). In order: a `FALSE` key -> UNSAT; the memo (a
  process-wide LRU keyed by the domain's signature and the exact key set); when the
  value-fixing keys pin every variable, direct evaluation of that single candidate; the finite
  engine of the domain (`checker.constraint.domains.finite`: enumeration over permutations, or a complete
  search over scheduling intervals); a known witness (an earlier model or complete answer) that
  satisfies every key; otherwise `check(assumptions)` on the problem's incremental Z3 solver
  (one assumption literal per key). Every shortcut is exact: a witness is a model, a fully
  pinned set has one candidate, and the engine enumerates every assignment.
* `mus(entries)` is the reference's deletion-based MUS (ledger order, base axioms kept),
  so it returns exactly the subset the reference would.
* `naive_sat` is the reference's approach (a fresh solver per check), kept for the benchmark.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from checker.constraint.domains.base import FALSE, Assignment, Domain, Key
from checker.constraint.domains.finite import Engine, engine_for

TIMEOUT_MS = 30_000
"""Per-check timeout, as in the reference (`unknown` is a solver error, never SAT or UNSAT)."""
MAX_WITNESSES = 8
MEMO_SIZE = 16_384
"""Entries of the process-wide SAT memo (least recently used out first): about 20 MB when full
(1.2 KB per entry measured on the benchmark's realistic workload). Its hit rate there is 0.30 at
this bound, 0.30 unbounded (72,301 distinct sets) and 0.30 at 4,096: most hits repeat a set
within one turn (the MUS re-asks the whole ledger) or across runs of the same problem."""

MemoKey = tuple[tuple[Any, ...], frozenset[Key]]
_MEMO: OrderedDict[MemoKey, bool] = OrderedDict()


def clear_memo() -> None:
    """Empty the process-wide SAT memo (benchmarks time a cold memo)."""
    _MEMO.clear()


def memo_size() -> int:
    """Entries in the process-wide SAT memo."""
    return len(_MEMO)


class SolverError(RuntimeError):
    """Z3 answered `unknown` (timeout or resource limit): the reference's `z3_error`."""


@dataclass
class SolverStats:
    """How each `sat` call was decided."""

    calls: int = 0
    cached: int = 0
    """Answered by the memo."""
    pinned: int = 0
    enumerated: int = 0
    """Answered by the finite engine."""
    undecided: int = 0
    """The finite engine gave up (search budget): decided by a witness or Z3 instead."""
    witness: int = 0
    z3: int = 0
    trivially_false: int = 0

    def add(self, other: SolverStats) -> None:
        """Accumulate another instance's counts."""
        for name in ("calls", "cached", "pinned", "enumerated", "undecided", "witness", "z3", "trivially_false"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class ProblemSolver:
    """The incremental solver and caches for one problem's domain."""

    domain: Domain
    use_shortcuts: bool = True
    """False: every check goes to Z3, memo included (tests and the benchmark's all-Z3 figure)."""
    timeout_ms: int = TIMEOUT_MS
    stats: SolverStats = field(default_factory=SolverStats)
    use_memo: bool = True
    """False: the memo is neither read nor written (tests of the other shortcuts)."""
    use_engine: bool = True
    """False: no finite engine (pinned and witness shortcuts only, as before the engine)."""
    _solver: z3.Solver | None = None
    _vars: list[z3.ArithRef] = field(default_factory=list)
    _lits: dict[Key, z3.BoolRef] = field(default_factory=dict)
    _witnesses: list[Assignment] = field(default_factory=list)
    _engine: Engine | None = None
    _signature: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        self._signature = self.domain.signature()
        if self.use_shortcuts and self.use_engine:
            self._engine = engine_for(self.domain)

    def _ensure(self) -> z3.Solver:
        if self._solver is None:
            solver = z3.Solver()
            solver.set("timeout", self.timeout_ms)
            self._vars = self.domain.variables()
            solver.add(*self.domain.axioms(self._vars))
            self._solver = solver
        return self._solver

    def _lit(self, key: Key) -> z3.BoolRef:
        lit = self._lits.get(key)
        if lit is None:
            solver = self._ensure()
            lit = z3.Bool(f"k{len(self._lits)}")
            solver.add(z3.Implies(lit, self.domain.encode(key, self._vars)))
            self._lits[key] = lit
        return lit

    def sat(self, keys: Sequence[Key]) -> bool:
        """SAT(base axioms ∧ keys).

        Raises:
            SolverError: Z3 returned `unknown`.
        """
        st = self.stats
        st.calls += 1
        if FALSE in keys:
            st.trivially_false += 1
            return False
        if not self.use_shortcuts:
            return self._z3(keys)
        if not self.use_memo:
            return self._decide(keys)
        mk: MemoKey = (self._signature, frozenset(keys))
        hit = _MEMO.get(mk)
        if hit is not None:
            _MEMO.move_to_end(mk)
            st.cached += 1
            return hit
        result = _MEMO[mk] = self._decide(keys)
        if len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
        return result

    def _decide(self, keys: Sequence[Key]) -> bool:
        """The shortcuts in order (pinned candidate or latest witness, engine, other witnesses), then Z3."""
        result = self._pinned_or_latest(keys)
        if result is None:
            result = self._by_engine(keys)
        if result is None:
            result = self._by_witness(keys)
        return self._z3(keys) if result is None else result

    def _pinned_or_latest(self, keys: Sequence[Key]) -> bool | None:
        """The verdict on the one candidate when the keys pin every variable; True when the latest witness holds."""
        dom, st = self.domain, self.stats
        pinned = dom.complete_assignment(keys)
        if pinned is not None:
            st.pinned += 1
            result = dom.satisfied_by(keys, pinned)
            if result:
                self._remember(pinned)
            return result
        if self._witnesses and all(dom.holds(k, self._witnesses[0]) for k in keys):
            st.witness += 1  # the latest witness: on a dialogue, usually the answer just checked
            return True
        return None

    def _by_engine(self, keys: Sequence[Key]) -> bool | None:
        """The finite engine's verdict, or None (no engine, or past its search budget)."""
        if self._engine is None:
            return None
        result = self._engine.sat(keys)
        if result is None:
            self.stats.undecided += 1
        else:
            self.stats.enumerated += 1
        return result

    def _by_witness(self, keys: Sequence[Key]) -> bool | None:
        """True when an earlier witness (they satisfy the base axioms already) satisfies every key, else None."""
        dom = self.domain
        for w in self._witnesses[1:]:
            if all(dom.holds(k, w) for k in keys):
                self.stats.witness += 1
                return True
        return None

    def _z3(self, keys: Sequence[Key]) -> bool:
        solver = self._ensure()
        lits = [self._lit(k) for k in dict.fromkeys(keys)]
        self.stats.z3 += 1
        r = solver.check(*lits)
        if r == z3.sat:
            if self.use_shortcuts:
                self._remember(self.domain.assignment_from_model(solver.model(), self._vars))
            return True
        if r == z3.unsat:
            return False
        raise SolverError(f"z3 returned unknown ({solver.reason_unknown()})")

    def _remember(self, a: Assignment) -> None:
        """Keep `a`, a model of the base axioms (a Z3 model or a checked pinned candidate), as a witness."""
        if a in self._witnesses:
            return
        self._witnesses.insert(0, a)
        del self._witnesses[MAX_WITNESSES:]

    def mus(self, entries: Sequence[tuple[str, Key]]) -> list[str]:
        """The reference's deletion-based MUS of ledger entries `(id, key)`, in ledger order.

        Returns [] when the list is empty or satisfiable.

        Raises:
            SolverError: Z3 returned `unknown` on one of the checks.
        """
        if not entries or self.sat([k for _, k in entries]):
            return []
        current = list(entries)
        i = 0
        while i < len(current):
            rest = current[:i] + current[i + 1:]
            if rest and not self.sat([k for _, k in rest]):
                current = rest
            else:
                i += 1
        return [cid for cid, _ in current]


def naive_sat(domain: Domain, keys: Sequence[Key], timeout_ms: int = TIMEOUT_MS) -> bool:
    """SAT(base axioms ∧ keys) with a fresh solver, the way the reference checks every time.

    Raises:
        SolverError: Z3 returned `unknown`.
    """
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    v = domain.variables()
    solver.add(*domain.axioms(v))
    for k in keys:
        solver.add(domain.encode(k, v))
    r = solver.check()
    if r == z3.unsat:
        return False
    if r == z3.sat:
        return True
    raise SolverError(f"z3 returned unknown ({solver.reason_unknown()})")
