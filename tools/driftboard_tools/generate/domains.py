"""Hypothesis strategies for the constraint domains: small problems, raw constraints and answer texts.

`domain_problem()` draws a small problem context (seating n <= 6, scheduling n <= 3 in <= 5
slots, logic grid n <= 4 with <= 2 categories), small enough for brute force; `raw_constraint`
draws a constraint of its domain, mostly well formed and sometimes not (the evaluators must
fail closed); `answer_text` draws a model response holding a possibly partial or wrong answer.
Used by the `domains` fuzz target and by the domain property tests.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
CATEGORIES = {"color": ["Red", "Blue", "Green", "Gold"], "pet": ["Cat", "Dog", "Bird", "Fish"]}
TYPES = {
    "seating": ("adjacent", "not_adjacent", "at_position", "left_of", "separated_by", "same_side", "opposite_side"),
    "scheduling": ("before", "at_time", "not_simultaneous", "within", "duration", "gap"),
    "logic_grid": ("assign", "not_assign", "same_as", "different", "ordered"),
}


@st.composite
def domain_problem(draw: st.DrawFn) -> dict[str, Any]:
    """A small problem context: seating n <= 6, scheduling n <= 3 in <= 5 slots, logic grid n <= 4, <= 2 categories."""
    domain = draw(st.sampled_from(sorted(TYPES)))
    if domain == "seating":
        n = draw(st.integers(1, 6))
        return {"domain": domain, "entities": list(NAMES[:n]), "table_shape": draw(st.sampled_from(["round", "rectangular"]))}
    if domain == "scheduling":
        n = draw(st.integers(1, 3))
        return {"domain": domain, "entities": list(NAMES[:n]), "num_slots": draw(st.integers(1, 5)),
                "max_duration": draw(st.integers(1, 3))}
    n = draw(st.integers(1, 4))
    cats = draw(st.lists(st.sampled_from(sorted(CATEGORIES)), min_size=1, max_size=2, unique=True))
    return {"domain": domain, "entities": list(NAMES[:n]), "categories": {c: CATEGORIES[c][:n] for c in cats}}


@st.composite
def raw_constraint(draw: st.DrawFn, problem: dict[str, Any]) -> dict[str, Any]:
    """A constraint of the problem's domain: mostly well formed, sometimes not (it must fail closed)."""
    ctype = draw(st.sampled_from(TYPES[problem["domain"]]))
    ents = problem["entities"]
    e = st.one_of(st.sampled_from(ents), st.sampled_from(ents), st.sampled_from(["Zed", "ann", 3]))
    num = st.one_of(st.integers(-2, 8), st.sampled_from(["2", " 3 ", "3.0", True, 2.5, None]))
    if problem["domain"] == "logic_grid":
        cat = draw(st.sampled_from(sorted(problem["categories"])))
        if ctype in ("assign", "not_assign"):
            return {"type": ctype, "args": [draw(e), cat, draw(st.sampled_from([*problem["categories"][cat], "red"]))]}
        return {"type": ctype, "args": [draw(e), draw(e), cat]}
    if ctype in ("at_position", "at_time", "duration"):
        args = [draw(e), draw(num)]
    elif ctype in ("separated_by", "gap", "within"):
        args = [draw(e), draw(e) if ctype != "within" else draw(num), draw(num)]
    else:
        args = [draw(e), draw(e)]
    if draw(st.integers(0, 9)) == 0:
        args = args[: draw(st.integers(0, len(args)))]
    return {"type": ctype, "args": args}


@st.composite
def answer_text(draw: st.DrawFn, problem: dict[str, Any]) -> str:
    """A model response holding a (possibly partial or wrong) answer for the problem."""
    ents = problem["entities"]
    if problem["domain"] == "seating":
        value: st.SearchStrategy[Any] = st.integers(0, len(ents) + 1)
    elif problem["domain"] == "scheduling":
        value = st.one_of(st.integers(0, 6), st.fixed_dictionaries(
            {"start": st.integers(0, 6)}, optional={"duration": st.integers(0, 4)}))
    else:
        value = st.fixed_dictionaries({}, optional={c: st.sampled_from([*v, "x"]) for c, v in problem["categories"].items()})
    answer = draw(st.dictionaries(st.sampled_from([*ents, "Nobody"]), value, max_size=len(ents) + 1))
    style = draw(st.sampled_from(["plain", "solution", "fenced", "prose"]))
    if style == "solution":
        return json.dumps({"solution": answer})
    if style == "fenced":
        return "Here it is:\n```json\n" + json.dumps(answer) + "\n```"
    if style == "prose":
        return "\n".join(f"{k}: {v}" for k, v in answer.items() if isinstance(v, int))
    return json.dumps(answer)


__all__ = ["CATEGORIES", "NAMES", "TYPES", "answer_text", "domain_problem", "raw_constraint"]
