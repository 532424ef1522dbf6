"""Property tests of the constraint domains against brute force: every assignment of a small problem is enumerated.

`tests/test_domains.py` already checks direct evaluation == Z3 on complete assignments and the
incremental solver == a fresh solver. Here the reference is neither: satisfiability is decided by
enumerating every assignment that satisfies the base axioms (seating: permutations of the seats;
scheduling: every start/duration that fits; logic grid: a permutation per category) and
evaluating the constraints on each, for problems small enough to enumerate.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.answers import extract_answer
from checker.bench.fuzz_targets import answer_text, domain_problem, raw_constraint
from checker.domains import LogicGrid, Scheduling, Seating, make_domain
from checker.domains.solver import ProblemSolver, naive_sat


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
