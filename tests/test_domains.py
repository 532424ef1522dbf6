"""Domain semantics as drift-spec §a (the reference CODE, not its README), and direct == Z3."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.constraint.domains import FALSE, DomainError, LogicGrid, Scheduling, Seating, to_int
from checker.constraint.domains.solver import ProblemSolver, naive_sat

PEOPLE = ["A", "B", "C", "D", "E", "F", "G"]


def sat(dom, constraints, pins=()):
    keys = [dom.compile(t, a) for t, a in constraints] + list(pins)
    return naive_sat(dom, keys)


def seats(dom, **where):
    return [("at", dom.index[e], p - 1) for e, p in where.items()]


@pytest.mark.parametrize(("value", "expected"), [
    (True, 1), (False, 0), (3.9, 3), (-2.5, -2), ("7", 7), ("+4", 4), ("-1", -1), ("3.0", None),
    ("x", None), (None, None), ([1], None), (float("nan"), None),
])
def test_to_int(value, expected):
    assert to_int(value) == expected


def test_left_of_is_immediately_on_the_higher_side_cyclically():
    dom = Seating(PEOPLE)  # n = 7
    assert sat(dom, [("left_of", ["A", "B"])], seats(dom, A=2, B=1))
    assert not sat(dom, [("left_of", ["A", "B"])], seats(dom, A=1, B=2))
    assert sat(dom, [("left_of", ["A", "B"])], seats(dom, A=1, B=7))
    assert not sat(dom, [("left_of", ["A", "B"])], seats(dom, A=4, B=1))  # README's "<" would accept


def test_adjacency_wraps_and_separated_by_is_circular_at_least_k():
    dom = Seating(PEOPLE)
    assert sat(dom, [("adjacent", ["A", "B"])], seats(dom, A=1, B=7))
    assert not sat(dom, [("not_adjacent", ["A", "B"])], seats(dom, A=7, B=1))
    # drift-spec §e: Tina at 7, Frank at 2 is a circular distance of 2 -> "at least 2 between" fails
    assert not sat(dom, [("separated_by", ["A", "B", 2])], seats(dom, A=7, B=2))
    assert sat(dom, [("separated_by", ["A", "B", 2])], seats(dom, A=1, B=4))  # 2 seats between
    assert sat(dom, [("separated_by", ["A", "B", 1])], seats(dom, A=1, B=5))  # more than k is fine


def test_position_zero_is_seat_one_and_out_of_range_fails_closed():
    dom = Seating(PEOPLE)
    assert dom.compile("at_position", ["A", 0]) == ("at", 0, 0)
    assert dom.compile("at_position", ["A", 1]) == ("at", 0, 0)
    assert dom.compile("at_position", ["A", 8]) == FALSE
    assert dom.compile("at_position", ["A", "3.0"]) == FALSE
    # a 0-based answer collides on index 0
    answer = {e: i for i, e in enumerate(PEOPLE)}
    assert not naive_sat(dom, dom.answer_keys(answer))


def test_sides_only_on_even_rectangular_tables():
    rect = Seating(PEOPLE[:6], "rectangular")
    assert sat(rect, [("same_side", ["A", "B"])], seats(rect, A=1, B=3))
    assert not sat(rect, [("same_side", ["A", "B"])], seats(rect, A=3, B=4))
    assert sat(rect, [("opposite_side", ["A", "B"])], seats(rect, A=3, B=4))
    assert sat(rect, [("adjacent", ["A", "B"])], seats(rect, A=3, B=4))  # still cyclic across sides
    assert Seating(PEOPLE[:6]).compile("same_side", ["A", "B"]) == FALSE  # round table
    assert Seating(PEOPLE, "rectangular").compile("same_side", ["A", "B"]) == FALSE  # odd n


@pytest.mark.parametrize(("ctype", "args"), [
    ("sits_near", ["A", "B"]), ("adjacent", "A,B"), ("adjacent", ["A"]), ("adjacent", ["A", "Zed"]),
    ("separated_by", ["A", "B"]), ("separated_by", ["A", "B", "1.5"]), (None, ["A", "B"]),
])
def test_malformed_seating_constraints_fail_closed(ctype, args):
    dom = Seating(PEOPLE)
    assert dom.compile(ctype, args) == FALSE
    assert not sat(dom, [(ctype, args)])


def sched():
    return Scheduling(["A", "B", "C"], num_slots=7, max_duration=3)


def test_scheduling_intervals_overlap_freely_and_durations_are_free():
    dom = sched()
    pin = [("at", 0, 1), ("dur", 0, 2), ("at", 1, 3)]
    assert sat(dom, [("before", ["A", "B"])], pin)  # B may start right after A's last slot
    assert not sat(dom, [("before", ["A", "B"])], [("at", 0, 1), ("dur", 0, 3), ("at", 1, 3)])
    # not_simultaneous only compares starts
    assert sat(dom, [("not_simultaneous", ["A", "B"])], [("at", 0, 1), ("dur", 0, 3), ("at", 1, 2)])
    assert not sat(dom, [("not_simultaneous", ["A", "B"])], [("at", 0, 2), ("at", 1, 2)])
    # no default duration: a start alone extends; the fit axiom limits the duration at the end
    assert sat(dom, [("duration", ["A", 3])], [("at", 0, 5)])
    assert not sat(dom, [("duration", ["A", 3])], [("at", 0, 6)])
    assert sat(dom, [("at_time", ["A", 1]), ("at_time", ["B", 1]), ("at_time", ["C", 1])])


def test_gap_is_symmetric_and_within_sorts_its_bounds():
    dom = sched()
    both = [("dur", 0, 1), ("dur", 1, 1)]
    assert sat(dom, [("gap", ["A", "B", 2])], [("at", 0, 5), ("at", 1, 2), *both])  # B first, 2 empty slots
    assert not sat(dom, [("gap", ["A", "B", 2])], [("at", 0, 4), ("at", 1, 2), *both])
    assert not sat(dom, [("gap", ["A", "B", 0])], [("at", 0, 2), ("dur", 0, 2), ("at", 1, 3)])  # overlap
    assert dom.compile("within", ["A", 5, 2]) == ("within", 0, 2, 5)
    assert sat(dom, [("within", ["A", 5, 2])], [("at", 0, 3)])
    assert dom.compile("within", ["A", 5]) == FALSE
    assert dom.compile("gap", ["A", "B"]) == FALSE
    assert dom.compile("before", ["A"]) == FALSE


def grid():
    return LogicGrid(["P", "Q", "R", "S"], {"color": ["Red", "Blue", "Green", "Yellow"],
                                           "pet": ["Cat", "Dog", "Bird", "Fish"]})


def test_logic_grid_semantics():
    dom = grid()
    assert not sat(dom, [("same_as", ["P", "Q", "pet"])])  # always UNSAT for A != B
    assert sat(dom, [("different", ["P", "Q", "pet"])])  # vacuous
    assert not sat(dom, [("ordered", ["P", "Q", "pet"]), ("assign", ["P", "pet", "Bird"]),
                         ("assign", ["Q", "pet", "Dog"])])  # Bird before Dog is false
    assert sat(dom, [("ordered", ["P", "Q", "pet"]), ("assign", ["P", "pet", "Cat"]),
                     ("assign", ["Q", "pet", "Fish"])])  # strict, not necessarily adjacent
    assert dom.compile("assign", ["P", "color", "red"]) == FALSE  # case-sensitive values
    assert dom.compile("same_category", ["P", "Q", "pet"]) == FALSE
    assert dom.answer_keys({"P": {"color": "red"}}) == [FALSE]
    with pytest.raises(DomainError):
        LogicGrid(["P", "Q"], {"color": ["Red", "Blue", "Green"]})


def test_mus_is_the_reference_deletion_result():
    dom = Seating(PEOPLE[:4])
    entries = [("C1", dom.compile("at_position", ["A", 1])), ("C2", dom.compile("at_position", ["B", 1])),
               ("C3", dom.compile("at_position", ["C", 2])), ("C4", dom.compile("at_position", ["A", 2]))]
    assert ProblemSolver(dom).mus(entries) == ["C3", "C4"]
    assert ProblemSolver(dom).mus(entries[:1]) == []
    assert ProblemSolver(dom).mus([("X", FALSE), ("C1", entries[0][1])]) == ["X"]


# ---------------------------------------------------------------- property tests: direct == Z3
NAMES = st.sampled_from(["A", "B", "C", "D", "E", "F", "G", "Zed", 3, None])
NUMS = st.one_of(st.integers(-3, 12), st.sampled_from(["2", "3.0", "x", True, 2.7]))
ARG = st.one_of(NAMES, NUMS, st.sampled_from(["color", "pet", "Red", "Dog", "Fish", "green"]))
ARGS = st.one_of(st.lists(ARG, max_size=4), st.just("A,B"), st.none())
TYPES = {
    "seating": ["adjacent", "not_adjacent", "at_position", "left_of", "separated_by", "same_side",
                "opposite_side", "sits_near"],
    "scheduling": ["before", "at_time", "not_simultaneous", "within", "duration", "gap", "overlaps"],
    "logic_grid": ["assign", "not_assign", "same_as", "different", "ordered", "same_category"],
}


@st.composite
def instances(draw):
    kind = draw(st.sampled_from(sorted(TYPES)))
    if kind == "seating":
        n = draw(st.integers(3, 7))
        dom = Seating(PEOPLE[:n], draw(st.sampled_from(["round", "rectangular"])))
        if draw(st.integers(0, 4)):  # mostly valid (a permutation), sometimes not
            a = tuple(draw(st.permutations(range(n))))
        else:
            a = tuple(draw(st.integers(-1, n)) for _ in range(n))
    elif kind == "scheduling":
        n = draw(st.integers(2, 5))
        slots = draw(st.integers(n, 9))
        dom = Scheduling(PEOPLE[:n], num_slots=slots, max_duration=3)
        if draw(st.integers(0, 4)):  # mostly valid intervals
            durs = [draw(st.integers(1, min(3, slots))) for _ in range(n)]
            a = tuple(x for d in durs for x in (draw(st.integers(1, slots - d + 1)), d))
        else:
            a = tuple(x for _ in range(n) for x in (draw(st.integers(0, 10)), draw(st.integers(0, 4))))
    else:
        dom = LogicGrid(PEOPLE[:4], {"color": ["Red", "Blue", "Green", "Yellow"], "pet": ["Cat", "Dog", "Bird", "Fish"]})
        if draw(st.integers(0, 4)):
            cols = [draw(st.permutations(range(4))) for _ in range(2)]
            a = tuple(cols[c][e] for e in range(4) for c in range(2))
        else:
            a = tuple(draw(st.integers(-1, 4)) for _ in range(8))
    constraints = draw(st.lists(constraint(dom, kind), max_size=5))
    return dom, constraints, a


@st.composite
def constraint(draw, dom, kind):
    """Mostly well-formed constraints of the domain; sometimes malformed ones (fail closed)."""
    ctype = draw(st.sampled_from(TYPES[kind]))
    if not draw(st.integers(0, 7)):
        return ctype, draw(ARGS)
    e = st.sampled_from(dom.entities)
    num = st.integers(-1, 11)
    if kind == "logic_grid":
        cat = draw(st.sampled_from(dom.cat_names))
        if ctype in ("assign", "not_assign"):
            return ctype, [draw(e), cat, draw(st.sampled_from([*dom.categories[cat], "red"]))]
        return ctype, [draw(e), draw(e), cat]
    if ctype in ("at_position", "at_time", "duration"):
        return ctype, [draw(e), draw(num)]
    if ctype in ("separated_by", "gap"):
        return ctype, [draw(e), draw(e), draw(st.integers(-1, 4))]
    if ctype == "within":
        return ctype, [draw(e), draw(num), draw(num)]
    return ctype, [draw(e), draw(e)]


def pins_for(dom, a):
    if isinstance(dom, Seating):
        return [("at", i, x) for i, x in enumerate(a)]
    if isinstance(dom, Scheduling):
        return [("at" if i % 2 == 0 else "dur", i // 2, x) for i, x in enumerate(a)]
    return [("eq", i // dom.nc, i % dom.nc, x) for i, x in enumerate(a)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_direct_evaluation_equals_z3_on_complete_assignments(inst):
    dom, constraints, a = inst
    keys = [dom.compile(t, args) for t, args in constraints]
    pins = pins_for(dom, a)
    assert dom.complete_assignment(pins) == a
    assert dom.satisfied_by(keys, a) == naive_sat(dom, keys + pins)
    if dom.axioms_hold(a):  # each constraint on its own, so that every type is exercised
        for k in keys:
            assert dom.holds(k, a) == naive_sat(dom, [k, *pins]), k


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.data())
def test_incremental_solver_equals_fresh_solver(inst, data):
    dom, constraints, a = inst
    keys = [dom.compile(t, args) for t, args in constraints]
    pins = pins_for(dom, a)
    partial = data.draw(st.lists(st.sampled_from(pins), max_size=len(pins)))
    fast = ProblemSolver(dom)
    for subset in (keys, keys + partial, keys + pins, partial):
        assert fast.sat(subset) == naive_sat(dom, subset)


def all_keys(dom):
    """Every well-formed compiled key over the domain's names and a small range of numbers."""
    n = range(dom.n)
    if isinstance(dom, Seating):
        pairs = [(t, a, b) for t in ("adj", "nadj", "left", "same", "opp") for a in n for b in n]
        return pairs + [("at", a, p) for a in n for p in n] + [("sep", a, b, k) for a in n for b in n for k in range(-1, 4)]
    if isinstance(dom, Scheduling):
        out = [(t, a, b) for t in ("before", "nsim") for a in n for b in n]
        out += [("gap", a, b, g) for a in n for b in n for g in range(-1, 3)]
        out += [(t, a, x) for t in ("at", "dur") for a in n for x in range(0, 8)]
        return out + [("within", a, lo, hi) for a in n for lo in range(0, 7) for hi in range(lo, 7)]
    out: list = [(t, e, c, i) for t in ("eq", "ne") for e in n for c in range(dom.nc) for i in n]
    return out + [(t, a, b, c) for t in ("same", "diff", "ord") for a in n for b in n for c in range(dom.nc)]


@pytest.mark.parametrize("dom", [Seating(PEOPLE[:6], "rectangular"), Seating(PEOPLE[:5]),
                                 Scheduling(PEOPLE[:3], num_slots=6), grid()], ids=lambda d: d.name)
def test_direct_evaluation_equals_z3_for_every_key(dom):
    import random

    rng = random.Random(7)
    z3_only = ProblemSolver(dom, use_shortcuts=False)
    for _ in range(3):
        if isinstance(dom, Scheduling):
            durs = [rng.randint(1, 3) for _ in range(dom.n)]
            a = tuple(x for d in durs for x in (rng.randint(1, dom.slots - d + 1), d))
        elif isinstance(dom, Seating):
            a = tuple(rng.sample(range(dom.n), dom.n))
        else:
            cols = [rng.sample(range(dom.n), dom.n) for _ in range(dom.nc)]
            a = tuple(cols[c][e] for e in range(dom.n) for c in range(dom.nc))
        assert dom.axioms_hold(a)
        pins = pins_for(dom, a)
        for k in all_keys(dom):
            assert dom.holds(k, a) == z3_only.sat([k, *pins]), (k, a)


@pytest.mark.parametrize("dom", [Seating(PEOPLE[:6], "rectangular"), Seating(PEOPLE[:5]),
                                 Scheduling(PEOPLE[:3], num_slots=6), grid()], ids=lambda d: d.name)
def test_finite_engine_equals_enumeration_for_every_key(dom):
    """Exhaustive: every key alone, and with each single pin, decided by the engine = by enumerating assignments."""
    from test_properties_domains import universe

    from checker.constraint.domains.finite import make_engine

    engine = make_engine(dom)
    assignments = universe(dom)
    pins = sorted({p for a in assignments for p in pins_for(dom, a)})
    keys = all_keys(dom)
    for k in keys:
        assert engine.sat([k]) is any(dom.holds(k, a) for a in assignments), k
    for k in keys[:: max(1, len(keys) // 40)]:  # a spread of keys against every pin
        for p in pins:
            assert engine.sat([k, p]) is any(dom.holds(k, a) and dom.holds(p, a) for a in assignments), (k, p)
