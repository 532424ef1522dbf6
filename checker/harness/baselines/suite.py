"""The project's own constraint problem suite, `driftboard-suite-v1`, in DRIFT-Bench's JSON format.

A seeded generator (`SUITE_SEED`) writes `PER_DOMAIN` problems for each of the three domains
(seating, scheduling, logic_grid) into `problems/driftboard-suite-v1/` (repository root), one
file per problem, `{domain}_{NNN}.json`, exactly in DRIFT-Bench's problem schema (drift-spec
§d): top-level `problem_id, domain, num_entities, entities, <domain context>, split, turns`;
every turn `turn_number, user_message, new_constraints, cumulative_constraints, gold_solution,
is_satisfiable`; every constraint `type, args, nl`.

How a problem is made: draw a hidden complete solution, then for each of 4-8 turns add 1-3
constraints, drawn at random from the domain's vocabulary, that the hidden solution satisfies
under the reference's code semantics (checked with `checker.constraint.domains`' direct evaluator), with
no canonical duplicate within the problem and no entity paired with itself. The gold
solution of every turn is the hidden solution. Every turn is then re-checked with Z3
(`checker.constraint.problems.validate_problem`: the cumulative set is SAT and the gold solution correct).

Regenerate with `python -m checker.harness.baselines.suite` (byte-identical; the test suite checks it).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from checker.constraint.domains import make_domain
from checker.constraint.problems import problem_set_digest, validate_problem

SUITE_NAME = "driftboard-suite-v1"
SUITE_DIR = Path(__file__).resolve().parents[3] / "problems" / SUITE_NAME
"""`problems/driftboard-suite-v1/` at the repository root (the default `--problems` of `driftboard verify`)."""
SUITE_SEED = 20260101
PER_DOMAIN = 30
SPLIT = "test"
DOMAINS = ("seating", "scheduling", "logic_grid")

PEOPLE = ("Ada", "Bea", "Cyd", "Dov", "Eli", "Fay", "Gus", "Hal", "Ines", "Jon", "Kit", "Lou", "Mae", "Ned")
EVENTS = ("Standup", "Review", "Lunch", "Demo", "Retro", "Planning", "Interview", "Training", "Budget", "Sync")
GRID_PEOPLE = ("Alba", "Boris", "Chen", "Dara", "Emil", "Fumi", "Goran", "Hana")
CATEGORIES = {
    "color": ["Red", "Blue", "Green", "Yellow"],
    "pet": ["Cat", "Dog", "Bird", "Fish"],
    "profession": ["Doctor", "Artist", "Teacher", "Chef"],
}
SYMMETRIC = frozenset({"adjacent", "not_adjacent", "same_side", "opposite_side", "not_simultaneous", "different"})

Solution = dict[str, Any]  # a gold solution's value per entity is a seat, a {start, duration} or a {category: value}
"""Entity -> its gold value (DRIFT-Bench's `gold_solution`, by domain)."""


class Constraint(TypedDict):
    """A constraint in DRIFT-Bench's problem schema."""

    type: str
    args: list[str | int]
    nl: str


class TurnDoc(TypedDict):
    """A turn in DRIFT-Bench's problem schema."""

    turn_number: int
    user_message: str
    new_constraints: list[Constraint]
    cumulative_constraints: list[Constraint]
    gold_solution: Solution
    is_satisfiable: bool


class ProblemDoc(TypedDict):
    """A problem in DRIFT-Bench's problem schema (the domain's context keys only in that domain)."""

    problem_id: str
    domain: str
    num_entities: int
    entities: list[str]
    table_shape: NotRequired[str]
    num_slots: NotRequired[int]
    max_duration: NotRequired[int]
    categories: NotRequired[dict[str, list[str]]]
    split: str
    turns: NotRequired[list[TurnDoc]]
    """Added once drawn (`make_problem`)."""
    _hidden: NotRequired[Solution]
    """The planted solution while the turns are drawn (removed before the problem is written)."""


def _canon(c: Constraint) -> tuple[object, ...]:
    args = [str(a) for a in c["args"]]
    if c["type"] in SYMMETRIC:
        args[:2] = sorted(args[:2])
    return (c["type"], *args)


def _seating(rng: random.Random, pid: str) -> ProblemDoc:
    n = rng.choice((6, 7, 8))
    shape = "rectangular" if n % 2 == 0 and rng.random() < 0.3 else "round"
    people = rng.sample(PEOPLE, n)
    seats = list(range(1, n + 1))
    rng.shuffle(seats)
    return {"problem_id": pid, "domain": "seating", "num_entities": n, "entities": people, "table_shape": shape,
            "split": SPLIT, "_hidden": dict(zip(people, seats, strict=True))}


def _seating_candidate(rng: random.Random, p: ProblemDoc) -> Constraint:
    ents, n = p["entities"], p["num_entities"]
    a, b = rng.sample(ents, 2)
    types = ["adjacent", "not_adjacent", "at_position", "left_of", "separated_by"]
    if p["table_shape"] == "rectangular":
        types += ["same_side", "opposite_side"]
    t = rng.choice(types)
    if t == "at_position":
        pos = rng.randint(1, n)
        return {"type": t, "args": [a, pos], "nl": f"{a} must sit in seat {pos}"}
    if t == "separated_by":
        k = rng.randint(1, max(1, n // 2 - 1))
        return {"type": t, "args": [a, b, k], "nl": f"{a} and {b} must have at least {k} seats between them"}
    nl = {
        "adjacent": f"{a} must sit next to {b}",
        "not_adjacent": f"{a} cannot sit next to {b}",
        "left_of": f"{a} must sit immediately to the left of {b}",
        "same_side": f"{a} and {b} must sit on the same side of the table",
        "opposite_side": f"{a} and {b} must sit on opposite sides of the table",
    }[t]
    return {"type": t, "args": [a, b], "nl": nl}


def _scheduling(rng: random.Random, pid: str) -> ProblemDoc:
    n = rng.choice((5, 6, 7))
    slots = n + rng.choice((2, 3, 4))
    events = rng.sample(EVENTS, n)
    hidden = {}
    for e in events:
        d = rng.randint(1, 3)
        hidden[e] = {"start": rng.randint(1, slots - d + 1), "duration": d}
    return {"problem_id": pid, "domain": "scheduling", "num_entities": n, "entities": events, "num_slots": slots,
            "max_duration": 3, "split": SPLIT, "_hidden": hidden}


def _scheduling_candidate(rng: random.Random, p: ProblemDoc) -> Constraint:
    ents, slots = p["entities"], p["num_slots"]
    a, b = rng.sample(ents, 2)
    t = rng.choice(["before", "at_time", "not_simultaneous", "within", "duration", "gap"])
    if t == "before":
        return {"type": t, "args": [a, b], "nl": f"{a} must finish before {b} starts"}
    if t == "at_time":
        s = rng.randint(1, slots)
        return {"type": t, "args": [a, s], "nl": f"{a} must start at slot {s}"}
    if t == "not_simultaneous":
        return {"type": t, "args": [a, b], "nl": f"{a} and {b} cannot start at the same time"}
    if t == "within":
        lo = rng.randint(1, slots)
        hi = rng.randint(lo, min(slots, lo + 3))
        return {"type": t, "args": [a, lo, hi], "nl": f"{a} must start between slot {lo} and slot {hi}"}
    if t == "duration":
        d = rng.randint(1, 3)
        return {"type": t, "args": [a, d], "nl": f"{a} lasts {d} slot{'s' if d > 1 else ''}"}
    g = rng.randint(0, 2)
    return {"type": t, "args": [a, b, g], "nl": f"{a} and {b} need at least {g} free slots between them"}


def _logic_grid(rng: random.Random, pid: str) -> ProblemDoc:
    people = rng.sample(GRID_PEOPLE, 4)
    hidden: dict[str, dict[str, str]] = {e: {} for e in people}
    for cat, vals in CATEGORIES.items():
        perm = list(vals)
        rng.shuffle(perm)
        for e, v in zip(people, perm, strict=True):
            hidden[e][cat] = v
    return {"problem_id": pid, "domain": "logic_grid", "num_entities": 4, "entities": people,
            "categories": {c: list(v) for c, v in CATEGORIES.items()}, "split": SPLIT, "_hidden": hidden}


def _logic_candidate(rng: random.Random, p: ProblemDoc) -> Constraint:
    a, b = rng.sample(p["entities"], 2)
    cat = rng.choice(list(CATEGORIES))
    val = rng.choice(CATEGORIES[cat])
    t = rng.choice(["assign", "not_assign", "ordered", "different", "not_assign", "ordered"])
    if t == "assign":
        return {"type": t, "args": [a, cat, val], "nl": f"{a}'s {cat} is {val}"}
    if t == "not_assign":
        return {"type": t, "args": [a, cat, val], "nl": f"{a}'s {cat} is not {val}"}
    if t == "ordered":
        order = ", ".join(CATEGORIES[cat])
        return {"type": t, "args": [a, b, cat], "nl": f"{a}'s {cat} comes before {b}'s in the order {order}"}
    return {"type": t, "args": [a, b, cat], "nl": f"{a} and {b} have different {cat}s"}


MAKERS = {"seating": (_seating, _seating_candidate), "scheduling": (_scheduling, _scheduling_candidate),
          "logic_grid": (_logic_grid, _logic_candidate)}


def make_problem(rng: random.Random, domain: str, number: int) -> ProblemDoc:
    """One problem of a domain (see the module docstring for how it is drawn)."""
    make, candidate = MAKERS[domain]
    p = make(rng, f"{domain}_{number:03d}")
    hidden = p.pop("_hidden")
    dom = make_domain(p)
    planted = dom.complete_assignment(dom.answer_keys(_normal(domain, hidden)))
    assert planted is not None
    seen: set[tuple[object, ...]] = set()
    cumulative: list[Constraint] = []
    turns: list[TurnDoc] = []
    for t in range(1, rng.randint(4, 8) + 1):
        new: list[Constraint] = []
        want = rng.randint(1, 3)
        while len(new) < want:
            c = candidate(rng, p)
            key = _canon(c)
            if key in seen or not dom.holds(dom.compile_constraint(c), planted):
                continue
            seen.add(key)
            new.append(c)
        cumulative = cumulative + new
        message = " ".join([new[0]["nl"] + "."] + [f"Also, {c['nl']}." for c in new[1:]])
        turns.append({"turn_number": t, "user_message": message, "new_constraints": new,
                      "cumulative_constraints": list(cumulative), "gold_solution": hidden, "is_satisfiable": True})
    p["turns"] = turns
    return p


def _normal(domain: str, hidden: Solution) -> dict[str, object]:
    """The checker's normalised answer of a hidden solution (for the planted assignment)."""
    if domain == "scheduling":
        return {e: (v["start"], v["duration"]) for e, v in hidden.items()}
    return dict(hidden)


def generate() -> list[ProblemDoc]:
    """Every problem of the suite, in file order."""
    rng = random.Random(SUITE_SEED)
    return [make_problem(rng, domain, k) for domain in DOMAINS for k in range(1, PER_DOMAIN + 1)]


def problem_bytes(problem: Mapping[str, object]) -> bytes:
    """A problem file's bytes (2-space indent, UTF-8, final newline)."""
    return (json.dumps(problem, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_suite(dst: Path = SUITE_DIR) -> str:
    """Generate, Z3-validate and write the suite into `dst`; returns its digest.

    Raises:
        ValueError: a generated problem fails validation (never expected).
    """
    problems = generate()
    for p in problems:
        _, errs = validate_problem(json.loads(problem_bytes(p)), p["problem_id"], p["problem_id"])
        if errs:
            raise ValueError("; ".join(errs))
    dst.mkdir(parents=True, exist_ok=True)
    for old in sorted(dst.glob("*.json")):
        old.unlink()
    for p in problems:
        (dst / f"{p['problem_id']}.json").write_bytes(problem_bytes(p))
    return problem_set_digest(problems)


def load_suite(src: Path = SUITE_DIR) -> list[ProblemDoc]:
    """The shipped suite's problems, sorted by file name."""
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(src.glob("*.json"))]


def suite_digest(src: Path = SUITE_DIR) -> str:
    """The shipped suite's problem-set digest (`checker.constraint.problems.problem_set_digest`)."""
    return problem_set_digest(load_suite(src))


if __name__ == "__main__":  # pragma: no cover - a maintenance entry point
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else SUITE_DIR
    print(f"{SUITE_NAME}: {write_suite(out)}")
