"""The constraint-track dialogue protocol run by the Inspect task (no `inspect_ai` import here).

One conversation per problem: a system prompt for the method, then one user message per turn
that reveals that turn's constraints and asks for the current full answer. Earlier turns stay in
the conversation, so the model must carry every earlier constraint itself.

Methods (the track's, after DRIFT-Bench's):

* `direct` — JSON answer only; no ledger.
* `cot` — up to three short bullets of reasoning, then the JSON answer; no ledger.
* `ledger_only` — each turn shows the committed ledger (the constraints extracted so far). After
  the answer, a second call to the same model, outside the conversation, extracts the new
  constraints of the turn from the user message and the answer; at most three, numbered C001, ...
  in order, with `source_turn`, are appended to the ledger. Nothing is removed or repaired.

Both the task (to build prompts and commit the ledger) and `driftboard import inspect` (to
rebuild the prompts the model must have been sent, and to re-derive every ledger from the
recorded extraction outputs) use these functions, so an import never takes a prompt or a ledger
on trust. The wording is Driftboard's own; the protocol, not the text, follows DRIFT-Bench.
"""

from __future__ import annotations

import json
from typing import TypedDict

from checker.constraint.answers import extract_json
from checker.constraint.problems import Problem

METHODS = ("direct", "cot", "ledger_only")
"""Methods the Inspect task runs (`mus_repair`, with its solver-driven retries, is not implemented)."""
LEDGER_METHODS = frozenset({"ledger_only"})
MAX_NEW_CONSTRAINTS = 3
"""Constraints kept from one extraction (as the reference)."""
TASK_NAME = "driftboard/constraint"
"""The Inspect registry name of the task (`inspect eval driftboard/constraint`)."""
PROTOCOL_VERSION = "1"
"""Bumped whenever a prompt or the ledger rule changes; recorded in every sample and checked on import."""



class Extracted(TypedDict):
    """One constraint read from an extraction output."""

    type: str
    args: list[object]
    nl: str | None


class LedgerEntry(TypedDict):
    """One committed ledger entry, numbered in commit order (`C001`, ...)."""

    id: str
    type: str
    args: list[object]
    nl: str | None
    source_turn: int


_INTRO = "You are solving a constraint problem whose constraints are revealed over several turns. "
SYSTEM_PROMPTS = {
    "direct": _INTRO + ("Every constraint from an earlier turn still holds. Keep your assignment consistent with all "
                        "constraints given so far and reply with the JSON solution only."),
    "cot": _INTRO + ("Every constraint from an earlier turn still holds. Think briefly first, in at most three short "
                     "bullet points, then give the JSON solution."),
    "ledger_only": _INTRO + ("You are shown a ledger of the constraints committed so far. Treat it as binding, keep "
                             "your answer consistent with it and with the new constraints, and reply with JSON only."),
}
EXTRACTION_SYSTEM = ("You convert one turn of a constraint dialogue into formal constraints. Extract only the "
                     "constraints stated in the latest user message, not the solution.")

VOCABULARY = {
    "seating": ["adjacent(A, B)", "not_adjacent(A, B)", "at_position(A, seat)", "left_of(A, B)",
                "separated_by(A, B, k)", "same_side(A, B)", "opposite_side(A, B)"],
    "scheduling": ["before(A, B)", "at_time(A, slot)", "not_simultaneous(A, B)", "within(A, first, last)",
                   "duration(A, d)", "gap(A, B, g)"],
    "logic_grid": ["assign(entity, category, value)", "not_assign(entity, category, value)",
                   "different(entity1, entity2, category)", "ordered(entity1, entity2, category)"],
}


def setup_lines(problem: Problem) -> list[str]:
    """The problem's setup: domain, entities, and the domain's context (seats, slots, categories)."""
    raw = problem.raw
    lines = [f"Domain: {problem.domain}", f"Entities: {', '.join(problem.entities)}"]
    if problem.domain == "seating":
        lines.append(f"Table shape: {raw.get('table_shape', 'round')}")
        lines.append(f"Seats: numbered 1 to {len(problem.entities)}")
    elif problem.domain == "scheduling":
        lines.append(f"Time slots: 1 to {raw.get('num_slots')}")
        lines.append(f"Longest duration of an event: {raw.get('max_duration')} slots")
    elif problem.domain == "logic_grid":
        for cat, values in (raw.get("categories") or {}).items():
            lines.append(f"Category {cat}: {', '.join(str(v) for v in values)}")
    return lines


def answer_format(problem: Problem) -> str:
    """The requested answer shape for the problem's domain."""
    if problem.domain == "seating":
        return 'Answer as JSON {"solution": {"<person>": <seat number>, ...}} covering every person.'
    if problem.domain == "scheduling":
        return ('Answer as JSON {"solution": {"<event>": {"start": <slot>, "duration": <slots>}, ...}} '
                "covering every event.")
    cats = ", ".join((problem.raw.get("categories") or {}).keys())
    return (f'Answer as JSON {{"solution": {{"<entity>": {{"<category>": "<value>", ...}}, ...}}}} covering every '
            f"entity and every category ({cats}).")


def render_ledger(ledger: list[LedgerEntry]) -> str:
    """The ledger as shown to the model."""
    if not ledger:
        return "(empty)"
    return json.dumps({"constraints": ledger}, ensure_ascii=False, indent=2)


def turn_prompt(problem: Problem, turn_number: int, method: str, ledger: list[LedgerEntry] | None) -> str:
    """The user message of one turn: setup (turn 1) or a reminder, the ledger, the new constraints, the format."""
    turn = problem.turns[turn_number - 1]
    if turn_number == 1:
        chunks = ["Problem setup:\n" + "\n".join(setup_lines(problem))]
    else:
        chunks = [f"Turn {turn_number}. Domain: {problem.domain}. Entities: {', '.join(problem.entities)}."]
    if method in LEDGER_METHODS:
        chunks.append("Committed ledger:\n" + render_ledger(ledger or []))
    chunks.append("New constraints:\n" + turn.user_message)
    chunks.append(answer_format(problem))
    return "\n\n".join(chunks)


def extraction_prompt(problem: Problem, turn_number: int, response: str) -> str:
    """The user message of the ledger extraction call of one turn."""
    turn = problem.turns[turn_number - 1]
    extra = ""
    if problem.domain == "logic_grid":
        extra = f"Categories: {', '.join((problem.raw.get('categories') or {}).keys())}\n"
    return (
        f"Domain: {problem.domain}\nTurn: {turn_number}\nEntities: {', '.join(problem.entities)}\n{extra}\n"
        f"Latest user message:\n{turn.user_message}\n\nAssistant answer:\n{response}\n\n"
        "Constraint types (arguments in this order):\n" + "\n".join(f"- {v}" for v in VOCABULARY[problem.domain])
        + "\n\nUse the type names exactly as written. Return at most 3 constraints, only those of this turn, as JSON "
        '{"constraints": [{"type": "...", "args": [...], "nl": "..."}]}; '
        'return {"constraints": []} if there are none.'
    )


def parse_extraction(text: str | None) -> list[Extracted] | None:
    """The constraints of one extraction output, or None when none can be read.

    The first JSON value of the text (the answer extractor's rules); its `constraints` list (or
    the value itself when it is a list); entries with a string `type` and a list `args`; exact
    duplicates dropped; at most `MAX_NEW_CONSTRAINTS`, in order. An empty result is None.
    """
    if not text:
        return None
    found = extract_json(text)
    if isinstance(found, dict):
        found = found.get("constraints")
    if not isinstance(found, list):
        return None
    out: list[Extracted] = []
    seen: set[str] = set()
    for item in found:
        entry = _extracted(item)
        if entry is None:
            continue
        sig = json.dumps([entry["type"], entry["args"]], sort_keys=True)
        if sig in seen:
            continue
        seen.add(sig)
        out.append(entry)
        if len(out) == MAX_NEW_CONSTRAINTS:
            break
    return out or None


def _extracted(item: object) -> Extracted | None:
    """An item of the extraction's list as a constraint: an object with a string `type` and a list `args`, else None."""
    if not isinstance(item, dict):
        return None
    ctype, args, nl = item.get("type"), item.get("args"), item.get("nl")
    if not isinstance(ctype, str) or not isinstance(args, list):
        return None
    return {"type": ctype, "args": args, "nl": nl if isinstance(nl, str) else None}


def commit(ledger: list[LedgerEntry], new: list[Extracted] | None, turn_number: int) -> list[LedgerEntry]:
    """The ledger after a turn: the committed entries, then the new ones numbered on (`C001`, ...)."""
    out = list(ledger)
    for entry in new or []:
        out.append({"id": f"C{len(out) + 1:03d}", "type": entry["type"], "args": entry["args"],
                    "nl": entry.get("nl"), "source_turn": turn_number})
    return out
