"""Property tests of the constraint domains against brute force: every assignment of a small problem is enumerated.

`tests/test_domains.py` already checks direct evaluation == Z3 on complete assignments and the
incremental solver == a fresh solver. Here the reference is neither: satisfiability is decided by
enumerating every assignment that satisfies the base axioms (seating: permutations of the seats;
scheduling: every start/duration that fits; logic grid: a permutation per category) and
evaluating the constraints on each, for problems small enough to enumerate.
"""

from __future__ import annotations

import itertools

from driftboard_tools.generate.domains import answer_text, domain_problem, raw_constraint
from hypothesis import given, settings
from hypothesis import strategies as st

import checker.constraint.domains.finite as finite_module
import checker.constraint.domains.solver as solver_module
from checker.constraint.answers import extract_answer
from checker.constraint.domains import LogicGrid, Scheduling, Seating, make_domain
from checker.constraint.domains.finite import engine_for, make_engine
from checker.constraint.domains.solver import ProblemSolver, clear_memo, memo_size, naive_sat


def universe(dom):
    """Every assignment that satisfies the base axioms, in the domain's tuple layout (written from drift-spec §a)."""
    if isinstance(dom, Seating):
        return list(itertools.permutations(range(dom.n)))
    if isinstance(dom, Scheduling):
        fits = [(s, d) for d in range(1, dom.max_duration + 1) for s in range(1, dom.slots + 1) if s + d - 1 <= dom.slots]
        return [tuple(x for sd in combo for x in sd) for combo in itertools.product(fits, repeat=dom.n)]
    assert isinstance(dom, LogicGrid)
    perms = list(itertools.permutations(range(dom.n)))
    return [tuple(cols[c][e] for e in range(dom.n) for c in range(dom.nc)) for cols in itertools.product(perms, repeat=dom.nc)]


def brute_sat(dom, keys, assignments):
    return any(all(dom.holds(k, a) for k in keys) for a in assignments)


@st.composite
def problems_with_constraints(draw, max_constraints=6):
    problem = draw(domain_problem())
    return problem, draw(st.lists(raw_constraint(problem), max_size=max_constraints))


def test_universe_sizes_match_the_combinatorics():
    assert len(universe(Seating(["A", "B", "C", "D"]))) == 24
    # 3 slots, durations 1..2: starts 1..3 for d=1, 1..2 for d=2 -> 5 intervals per event
    assert len(universe(Scheduling(["A", "B"], num_slots=3, max_duration=2))) == 25
    assert len(universe(LogicGrid(["A", "B", "C"], {"x": ["1", "2", "3"], "y": ["a", "b", "c"]}))) == 36
    for dom in (Seating(["A", "B", "C"]), Scheduling(["A", "B"], num_slots=3, max_duration=2),
                LogicGrid(["A", "B"], {"x": ["1", "2"]})):
        assert all(dom.axioms_hold(a) for a in universe(dom))


@settings(max_examples=100)
@given(inst=problems_with_constraints())
def test_every_sat_path_agrees_with_brute_force(inst):
    problem, constraints = inst
    dom = make_domain(problem)
    keys = [dom.compile_constraint(c) for c in constraints]
    expected = brute_sat(dom, keys, universe(dom))
    assert naive_sat(dom, keys) == expected
    assert ProblemSolver(dom, use_shortcuts=False).sat(keys) == expected
    assert ProblemSolver(dom).sat(keys) == expected


@settings(max_examples=100)
@given(inst=problems_with_constraints(), data=st.data())
def test_answer_check_agrees_with_brute_force_and_direct_evaluation(inst, data):
    problem, constraints = inst
    dom = make_domain(problem)
    answer = extract_answer(dom, data.draw(answer_text(problem)))
    if answer is None:
        return
    keys = [dom.compile_constraint(c) for c in constraints] + dom.answer_keys(answer)
    correct = brute_sat(dom, keys, universe(dom))
    assert ProblemSolver(dom).sat(keys) == correct
    pinned = dom.complete_assignment(dom.answer_keys(answer))
    if pinned is not None:  # a complete answer is one assignment: direct evaluation decides it
        assert dom.satisfied_by(keys, pinned) == correct


@settings(max_examples=60)
@given(inst=problems_with_constraints(max_constraints=7))
def test_mus_is_a_minimal_unsatisfiable_subset(inst):
    problem, constraints = inst
    dom = make_domain(problem)
    entries = [(f"C{i}", dom.compile_constraint(c)) for i, c in enumerate(constraints)]
    assignments = universe(dom)
    mus = ProblemSolver(dom).mus(entries)
    if brute_sat(dom, [k for _, k in entries], assignments):
        assert mus == []
        return
    core = [k for cid, k in entries if cid in mus]
    assert mus == [cid for cid, _ in entries if cid in mus]  # in ledger order
    assert not brute_sat(dom, core, assignments)
    for i in range(len(core)):
        assert brute_sat(dom, core[:i] + core[i + 1:], assignments), (mus, i)


@settings(max_examples=60)
@given(inst=problems_with_constraints(max_constraints=8), data=st.data())
def test_one_solver_across_a_dialogue_agrees_with_brute_force_every_turn(inst, data):
    """As the scorer uses it: one solver per problem, a growing ledger, answers checked in between."""
    problem, constraints = inst
    dom = make_domain(problem)
    assignments = universe(dom)
    solver = ProblemSolver(dom)
    keys = []
    for c in constraints:
        keys.append(dom.compile_constraint(c))
        assert solver.sat(keys) == brute_sat(dom, keys, assignments)
        answer = extract_answer(dom, data.draw(answer_text(problem)))
        if answer is not None:
            with_answer = keys + dom.answer_keys(answer)
            assert solver.sat(with_answer) == brute_sat(dom, with_answer, assignments)


# -- the finite engines and the memo (checker/constraint/domains/finite.py, solver.py) ------------------------------------


@settings(max_examples=200)
@given(inst=problems_with_constraints(max_constraints=8), data=st.data())
def test_finite_engine_agrees_with_brute_force_and_every_solver_path(inst, data):
    """The engine on its own (fresh, no shared masks), and each path of the solver with the memo off."""
    problem, constraints = inst
    dom = make_domain(problem)
    keys = [dom.compile_constraint(c) for c in constraints]
    answer = extract_answer(dom, data.draw(answer_text(problem)))
    if answer is not None:
        keys += dom.answer_keys(answer)
    expected = brute_sat(dom, keys, universe(dom))
    engine = make_engine(dom)
    assert engine is not None
    assert engine.sat(keys) is expected
    assert ProblemSolver(dom, use_memo=False).sat(keys) == expected  # engine path
    assert ProblemSolver(dom, use_memo=False, use_engine=False).sat(keys) == expected  # pinned / witness / Z3
    assert ProblemSolver(dom, use_shortcuts=False).sat(keys) == expected  # all Z3


@settings(max_examples=60)
@given(insts=st.lists(problems_with_constraints(max_constraints=6), min_size=2, max_size=6), data=st.data())
def test_memo_shared_across_problems_agrees_with_brute_force(insts, data):
    """One process-wide memo across problems (as across runs and submissions): every answer still exact.

    Each key set is also asked of every other drawn problem of the same domain, whose context
    (entity count, table shape, slots, durations, categories) may differ.
    """
    clear_memo()
    doms = [make_domain(p) for p, _ in insts]
    sets = [[dom.compile_constraint(c) for c in cs] for dom, (_, cs) in zip(doms, insts, strict=True)]
    for _ in range(2):  # the second pass is answered from the memo
        for keys in sets:
            for dom in doms:
                if all(names_fit(k, dom) for k in keys):
                    assert ProblemSolver(dom).sat(keys) == brute_sat(dom, keys, universe(dom)), (dom.signature(), keys)


def names_fit(key, dom):
    """The key's entity (and logic-grid category and value) indices exist in `dom` (keys of another problem)."""
    if key[0] == "F" or key[0] not in dom_tags(dom):
        return key[0] == "F"
    if isinstance(dom, LogicGrid):
        if key[0] in ("eq", "ne"):
            return key[1] < dom.n and key[2] < dom.nc and key[3] < dom.n
        return key[1] < dom.n and key[2] < dom.n and key[3] < dom.nc
    if isinstance(dom, Seating):
        return all(x < dom.n for x in key[1:3])
    return key[1] < dom.n and (key[0] not in ("before", "nsim", "gap") or key[2] < dom.n)


def dom_tags(dom):
    if isinstance(dom, Seating):
        return {"at", "adj", "nadj", "left", "same", "opp", "sep"}
    if isinstance(dom, Scheduling):
        return {"at", "dur", "within", "before", "nsim", "gap"}
    return {"eq", "ne", "same", "diff", "ord"}


def test_memo_key_separates_contexts_with_the_same_compiled_keys():
    """Hand-computed: equal compiled keys, different verdicts; the memo must not carry one to the other."""
    clear_memo()
    # event 0 starting at slot 9 fits in 10 slots, not in 8
    assert ProblemSolver(Scheduling(["A", "B"], num_slots=10)).sat([("at", 0, 9)]) is True
    assert ProblemSolver(Scheduling(["A", "B"], num_slots=8)).sat([("at", 0, 9)]) is False
    # ... and with 9 slots only with duration 1
    assert ProblemSolver(Scheduling(["A", "B"], num_slots=9, max_duration=1)).sat([("at", 0, 9), ("dur", 0, 2)]) is False
    # two people with at least one seat between them: impossible at 3 seats, possible at 4
    assert ProblemSolver(Seating(["A", "B", "C"])).sat([("sep", 0, 1, 1)]) is False
    assert ProblemSolver(Seating(["A", "B", "C", "D"])).sat([("sep", 0, 1, 1)]) is True
    # value index 3 exists for 4 entities, not for 3
    assert ProblemSolver(LogicGrid(["P", "Q", "R", "S"], {"x": ["1", "2", "3", "4"]})).sat([("eq", 0, 0, 3)]) is True
    assert ProblemSolver(LogicGrid(["P", "Q", "R"], {"x": ["1", "2", "3"]})).sat([("eq", 0, 0, 3)]) is False
    # the same context under other entity names shares the verdict (compiled keys are index-based)
    solver = ProblemSolver(Seating(["W", "X", "Y"]))
    assert solver.sat([("sep", 0, 1, 1)]) is False
    assert solver.stats.cached == 1


def test_memo_is_a_bounded_lru(monkeypatch):
    monkeypatch.setattr(solver_module, "MEMO_SIZE", 3)
    clear_memo()
    dom = Seating(["A", "B", "C", "D"])
    sets = [[("at", 0, p)] for p in range(4)] + [[("at", 0, 0), ("at", 1, 0)]]
    solver = ProblemSolver(dom)
    for keys in sets:
        solver.sat(keys)
    assert memo_size() == 3
    solver.sat(sets[-1])  # most recent: a hit
    assert solver.stats.cached == 1
    assert solver.sat(sets[0]) is True  # evicted first: recomputed, and right
    assert solver.stats.cached == 1
    assert solver.sat(sets[-1]) is False  # two people in one seat
    assert memo_size() == 3


def test_scheduling_search_over_budget_goes_to_z3(monkeypatch):
    monkeypatch.setattr(finite_module, "MAX_NODES", 0)
    finite_module.clear_engines()
    try:
        dom = Scheduling(["A", "B", "C"], num_slots=4)
        keys = [("before", 0, 1), ("before", 1, 2)]  # A, B, C in a row: fits only with duration 1 ... 2
        assert make_engine(dom).sat(keys) is None
        solver = ProblemSolver(dom, use_memo=False)
        assert solver.sat(keys) is True
        assert (solver.stats.undecided, solver.stats.z3) == (1, 1)
        assert solver.sat([*keys, ("dur", 0, 3)]) is False  # 3 + 1 + 1 slots > 4
        assert brute_sat(dom, [*keys, ("dur", 0, 3)], universe(dom)) is False
    finally:
        finite_module.clear_engines()


def test_engines_are_shared_by_signature_only():
    assert engine_for(Seating(["A", "B", "C"])) is engine_for(Seating(["X", "Y", "Z"]))
    assert engine_for(Seating(["A", "B", "C"])) is not engine_for(Seating(["A", "B", "C", "D"]))
    assert engine_for(Scheduling(["A"], num_slots=5)) is not engine_for(Scheduling(["A"], num_slots=6))
    assert make_engine(Seating([f"P{i}" for i in range(9)])) is None  # 9! permutations: left to Z3


def test_scheduling_search_beyond_arc_consistency():
    """Pigeonhole: 4 events with pairwise different starts. Arc consistency prunes nothing; the search decides."""
    pairs = [("nsim", a, b) for a in range(4) for b in range(a + 1, 4)]
    three = Scheduling(["A", "B", "C", "D"], num_slots=3, max_duration=1)
    four = Scheduling(["A", "B", "C", "D"], num_slots=4, max_duration=1)
    assert make_engine(three).sat(pairs) is False
    assert make_engine(four).sat(pairs) is True
    assert make_engine(four).sat([*pairs, *(("within", e, 2, 4) for e in range(3))]) is True  # D starts at 1
    assert make_engine(four).sat([*pairs, *(("within", e, 2, 4) for e in range(4))]) is False


@st.composite
def scheduling_keys(draw):
    """4 events in 3..5 slots and 2..9 compiled keys, mostly binary (the search, not unary masks, decides)."""
    slots, dur = draw(st.integers(3, 5)), draw(st.integers(1, 2))
    ev = st.integers(0, 3)
    binary = st.tuples(st.sampled_from(["before", "nsim", "nsim", "gap"]), ev, ev, st.integers(-1, 2)).map(
        lambda t: t if t[0] == "gap" else t[:3])
    unary = st.one_of(st.tuples(st.just("within"), ev, st.integers(1, 3), st.integers(2, slots)),
                      st.tuples(st.sampled_from(["at", "dur"]), ev, st.integers(1, 3)))
    keys = draw(st.lists(st.one_of(binary, binary, binary, unary), min_size=2, max_size=9))
    return Scheduling(["A", "B", "C", "D"], num_slots=slots, max_duration=dur), keys


_UNIVERSES: dict = {}


@settings(max_examples=150)
@given(inst=scheduling_keys())
def test_scheduling_engine_search_agrees_with_brute_force(inst):
    dom, keys = inst
    assignments = _UNIVERSES.setdefault(dom.signature(), universe(dom))
    assert make_engine(dom).sat(keys) is brute_sat(dom, keys, assignments)


def test_nth_permutation_is_itertools_order():
    for n in range(6):
        assert [finite_module.nth_permutation(n, k) for k in range(len(list(itertools.permutations(range(n)))))] == \
            list(itertools.permutations(range(n)))


def test_engine_key_caches_are_bounded(monkeypatch):
    """Numbers in keys come from untrusted ledgers: distinct keys are unbounded, the engines' caches are not."""
    monkeypatch.setattr(finite_module, "MAX_KEY_MASKS", 3)
    seating, sched = Seating(["A", "B", "C", "D"]), Scheduling(["A", "B"], num_slots=4)
    seat_engine, sched_engine = make_engine(seating), make_engine(sched)
    seat_all, sched_all = universe(seating), universe(sched)
    for k in range(-2, 12):
        for keys in ([("sep", 0, 1, k)], [("sep", 0, 1, k), ("at", 0, 0)]):
            assert seat_engine.sat(keys) is brute_sat(seating, keys, seat_all), keys
        for keys in ([("gap", 0, 1, k)], [("within", 1, k, 3), ("gap", 0, 1, k - 3)]):
            assert sched_engine.sat(keys) is brute_sat(sched, keys, sched_all), keys
    assert len(seat_engine._masks) <= 3
    assert len(sched_engine._keys) <= 3 and len(sched_engine._shapes) <= 3
