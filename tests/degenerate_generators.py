"""Degenerate-but-well-formed behaviours, per ranked metric, built from the honest logs of the shipped submissions.

Each generator takes one run's events (without chain fields) and returns the events of the same run doing
less: answering less (constraint), committing less (agent), claiming or acting less (completion). A
generator never invents a better answer, plan or tool call: it only removes, repeats, blurs or thins what
the honest run did. `tests/test_degenerate.py` applies them and checks that none ranks above the honest run.

`FORGERIES` is keyed by ranked metric name: a ranked metric declared in the registry without an entry
here fails the property test (`REQUIRED` names the families each track must cover).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Events = list[dict[str, Any]]
Generator = Callable[[Events], Events]

_DECODER = json.JSONDecoder()


# --------------------------------------------------------------------------- constraint: answer less


def honest_answer(raw: str) -> dict[str, Any]:
    """The `solution` object of a shipped scripted response (they all embed `{"solution": {...}}`)."""
    value, _end = _DECODER.raw_decode(raw, raw.index('{"solution"'))
    return dict(value["solution"])


def _answers(transform: Callable[[dict[str, Any], str], str]) -> Generator:
    """Rewrite every turn's response from its honest answer (`transform(answer, domain)` -> new response)."""
    def gen(evs: Events) -> Events:
        domains = {e["problem_id"]: e["domain"] for e in evs if e["type"] == "problem_start"}
        return [{**e, "raw_response": transform(honest_answer(e["raw_response"]), domains[e["problem_id"]])}
                if e["type"] == "turn" else e for e in evs]
    return gen


def _solution(answer: dict[str, Any]) -> str:
    return "Final answer: " + json.dumps({"solution": answer})


def _partial(answer: dict[str, Any], _domain: str) -> str:
    """Every entity but the last: the part the model is sure of."""
    return _solution(dict(list(answer.items())[:-1]))


def _one_variable(answer: dict[str, Any], _domain: str) -> str:
    """One variable per turn (a logic-grid row keeps one category)."""
    name, value = next(iter(answer.items()))
    if isinstance(value, dict):
        value = dict(list(value.items())[:1])
    return _solution({name: value})


def _empty(_answer: dict[str, Any], _domain: str) -> str:
    return "I am not sure yet; I will answer when I know more."


def _unreadable(answer: dict[str, Any], domain: str) -> str:
    """Values the domain cannot read: clock times for slot indices, `"3.0"` for seats, lower-case grid values."""
    if domain == "scheduling":
        out = {k: ({**v, "start": f"{8 + int(v['start'])}:00 AM"} if isinstance(v, dict) else f"{8 + int(v)}:00 AM")
               for k, v in answer.items()}
    elif domain == "seating":
        out = {k: f"{v}.0" for k, v in answer.items()}
    else:
        out = {k: {c: str(x).lower() for c, x in row.items()} for k, row in answer.items()}
    return _solution(out)


def _unreadable_durations(answer: dict[str, Any], domain: str) -> str:
    """Readable starts, durations the domain cannot read (`"2 hours"`): what the reader drops is left free."""
    if domain != "scheduling":
        return _unreadable(answer, domain)
    return _solution({k: {**v, "duration": f"{v['duration']} hours"} if isinstance(v, dict) and "duration" in v else v
                      for k, v in answer.items()})


def _repeated(answer: dict[str, Any], _domain: str) -> str:
    """Every entity named twice (the second spelling in lower case), the first time with another entity's value."""
    names = list(answer)
    hedged: dict[str, Any] = {}
    for i, name in enumerate(names):
        hedged[name] = answer[names[(i + 1) % len(names)]]
        hedged[f" {name.lower()} "] = answer[name]
    return "Final answer: " + json.dumps({"solution": hedged})


def _thinner_ledger(evs: Events) -> Events:
    """Keep only the newest ledger entry of every turn (the answer unchanged)."""
    return [{**e, "ledger": e["ledger"][-1:], "z3_sat": None, "mus": None}
            if e["type"] == "turn" and e.get("ledger") else e for e in evs]


# --------------------------------------------------------------------------- agent: commit to less


_PLAN = {"commitment", "plan_step", "goal_binding"}


def _targetless_steps(evs: Events) -> Events:
    """Every plan step names no target (its TARGET_REF premise dropped); the beats are unchanged."""
    return [{**e, "target_ref": None, "premises": [p for p in e.get("premises") or [] if p[0] != "TARGET_REF"]}
            if e["type"] == "plan_step" else e for e in evs]


def _no_plan(evs: Events) -> Events:
    """No commitment and no plan step; beats name no step (the agent just probes)."""
    out = []
    for e in evs:
        if e["type"] in _PLAN:
            continue
        if e["type"] == "beat" and e.get("step_id"):
            e = {k: v for k, v in e.items() if k != "step_id"} | {"source_stamp": "PROBE"}
        out.append(e)
    return out


def _never_act(evs: Events) -> Events:
    """The run starts, probes its startup and ends: no beat but the opening RESET, nothing else."""
    keep = {"run_start", "startup_probe", "run_end"}
    return [e for e in evs if e["type"] in keep or (e["type"] == "beat" and e.get("action") == "RESET")]


# --------------------------------------------------------------------------- completion: claim or act less


def _claim_less(evs: Events) -> Events:
    """The closing reply and the user's `###STOP###` are dropped: the episode claims nothing."""
    last_user = max(i for i, e in enumerate(evs) if e["type"] == "message" and e.get("role") == "user")
    return [e for i, e in enumerate(evs) if not (e["type"] == "message" and i >= last_user - 1)]


def _claim_twice(evs: Events) -> Events:
    """The closing reply and the `###STOP###` are said twice (the same claim twice)."""
    msgs = [i for i, e in enumerate(evs) if e["type"] == "message"]
    a, b = msgs[-2], msgs[-1]
    return [*evs[:b + 1], evs[a], evs[b], *evs[b + 1:]]


def _act_less(evs: Events) -> Events:
    """No tool is ever called (the dialogue kept, every tool call and result dropped)."""
    return [e for e in evs if e["type"] not in ("tool_call", "tool_result")]


@dataclass(frozen=True)
class Forgery:
    """Where a ranked metric's degenerate behaviours are built: a shipped submission and what one unit is."""

    submission: str
    unit: str
    """`problem`: generators go round-robin over problems (compared per problem); `seed`: over runs."""
    generators: dict[str, Generator]


FORGERIES: dict[str, Forgery] = {
    "complete_accuracy": Forgery("driftboard-reference-lite", "problem", {
        "partial": _answers(_partial), "one_variable": _answers(_one_variable), "empty": _answers(_empty),
        "unreadable": _answers(_unreadable), "unreadable_durations": _answers(_unreadable_durations),
        "repeated": _answers(_repeated), "thinner_ledger": _thinner_ledger}),
    "drift_total": Forgery("driftboard-microworld-agent", "seed", {
        "targetless_steps": _targetless_steps, "no_plan": _no_plan, "never_act": _never_act}),
    "verified": Forgery("tau-bench-gpt-4o-airline", "seed", {
        "claim_less": _claim_less, "claim_twice": _claim_twice, "act_less": _act_less}),
}
"""Per ranked metric (registry name), the submission its generators forge and the generators."""

REQUIRED: dict[str, set[str]] = {
    "constraint": {"partial", "one_variable", "empty", "unreadable", "repeated", "thinner_ledger"},
    "agent": {"targetless_steps", "no_plan", "never_act"},
    "completion": {"claim_less", "claim_twice", "act_less"},
}
"""The families of degenerate behaviour each track's ranked metric must be tried against (issue 29)."""
