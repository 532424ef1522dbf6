"""The deterministic scripted model of both Inspect tasks (no `inspect_ai` import here).

`inspect eval driftboard/agent --model driftboard/scripted -M behaviour=follow` runs the whole
pipeline offline: the model provider `driftboard` (registered in `driftboard._registry`) answers
every call with `reply`, reading only the conversation it is sent (the view's zones), never the
harness's state. Behaviours (`-M behaviour=...`):

* `follow` (default): the Observer names each component by colour (a known referent of that
  colour, else NEW); the Surveyor proposes a score (level) rule for every referent Z3 shows
  scoring (levelling) that Z4 has no rule for, then the score goal, then the level goal, and
  ranks the two smallest referents of Z6; the Actuator clicks the step's first cell (the join
  line's cells when shown, else the compiled cells) citing the target; on a free beat it clicks
  the target of a score rule it can locate in Z6 (its bounding box's first corner), else
  explores: the colours of the frame in increasing order, colour number `beat mod k`, its first
  cell in reading order. Every canary code seen is acknowledged.
* `bind`: as `follow`, but wherever it would click a referent it can locate in Z6 (a step's
  target, a score rule's target) it clicks and cites the row listed after it instead (the wrong
  referent; without Z6 it cannot, and follows).
* `abandon`: as `follow`, but it answers a live step with `ACTION5` (it will not execute the
  plan) and, on a free beat where it could click a score rule's target, waits (`ACTION5`).
* `mute`: every reply is prose no parser reads (every call is an organ failure).

On the constraint task it answers every turn with a well-formed naive assignment (the i-th
entity gets the i-th value) and extracts no constraint.
"""

from __future__ import annotations

import json
import re

from checker.harness.inspect_task.agent_protocol import (
    ACTUATOR_FREE_SYSTEM,
    ACTUATOR_STEP_SYSTEM,
    OBSERVER_SYSTEM,
    SURVEYOR_SYSTEM,
    Messages,
)

BEHAVIOURS = ("follow", "bind", "abandon", "mute")
MUTE_REPLY = "I am not sure what to do here."

_ZONE = re.compile(r"^\[(Z\d)\]$", re.MULTILINE)
_ROW = re.compile(r"^(R\d+) v\d+ \S+ colour=(\d+) n=(\d+) bbox=\((\d+),(\d+)\)-\((\d+),(\d+)\)", re.MULTILINE)
_COMPONENT = re.compile(r"^(c\d+) colour=(\d+) n=\d+ bbox=", re.MULTILINE)
_CANARY = re.compile(r"\[canary (\S+)\]")
_RECENT = re.compile(r"^t\d+ ACTION\d -> (R\d+|\?) score\+(\d) level\+(\d)$", re.MULTILINE)
_RULE = re.compile(r"^RU\d+ ACTION6@(R\d+) => (.*) \[(\w+)\]$", re.MULTILINE)
_CELL = re.compile(r"\((\d+),(\d+)\)")


def zones_of(text: str) -> dict[str, str]:
    """A view's zones (`[Zk]` headers) -> their text."""
    parts = _ZONE.split(text)
    return {parts[k]: parts[k + 1].strip("\n") for k in range(1, len(parts) - 1, 2)}


def _acks(text: str) -> list[str]:
    return [f"ACK {code}" for code in _CANARY.findall(text)]


def _rows(zones: dict[str, str]) -> list[tuple[str, int, int, tuple[int, int]]]:
    """Z6's referent rows in listed order: (id, colour, cells, bbox corner)."""
    return [(m.group(1), int(m.group(2)), int(m.group(3)), (int(m.group(4)), int(m.group(5))))
            for m in _ROW.finditer(zones.get("Z6", ""))]


def _observer(zones: dict[str, str]) -> str:
    gone = set(re.findall(r"R\d+", zones.get("Z3", "").partition("gone:")[2]))
    by_colour: dict[int, str] = {}
    for rid, colour, _, _ in _rows(zones):
        if rid not in gone:
            by_colour.setdefault(colour, rid)
    lines = [f"{label} {by_colour.get(int(colour), 'NEW')}" for label, colour in _COMPONENT.findall(zones.get("Z3", ""))]
    return "\n".join(lines + _acks(zones.get("Z2", "")))


def _surveyor(zones: dict[str, str]) -> str:
    visible = {rid for rid, *_ in _rows(zones)}
    rules = {(ref, "score" if "'score_event': 1" in effect else "level")
             for ref, effect, _ in _RULE.findall(zones.get("Z4", ""))}  # a demoted rule is still a rule: no repeat
    ops: list[str] = []
    for ref, score, level in _RECENT.findall(zones.get("Z3", "")):
        for effect, happened in (("score", score), ("level", level)):
            if ref in visible and happened == "1" and (ref, effect) not in rules:
                rules.add((ref, effect))
                ops.append(f"RULE {ref} {effect}")
    goals = zones.get("Z2", "")
    score_goal = "raise the score" in goals
    if any(e == "score" for _, e in rules) and not score_goal:
        ops.append("GOAL score")
        score_goal = True
    if score_goal and "find the level trigger" not in goals and not any(e == "level" for _, e in rules):
        ops.append("GOAL level")
    smallest = sorted(_rows(zones), key=lambda r: (r[2], r[0]))[:2]
    ops += [f"RANK {rid}" for rid, *_ in smallest]
    acks = [a for z in ("Z2", "Z3", "Z6") for a in _acks(zones.get(z, ""))]
    return "\n".join((ops or ["NONE"]) + acks)


def _neighbour(zones: dict[str, str], ref: str) -> tuple[str, tuple[int, int]] | None:
    """The Z6 row listed after `ref` (cyclic): the wrong referent of the `bind` behaviour."""
    rows = _rows(zones)
    ids = [r[0] for r in rows]
    if ref not in ids or len(rows) < 2:
        return None
    rid, _, _, corner = rows[(ids.index(ref) + 1) % len(rows)]
    return rid, corner


def _step(zones: dict[str, str], behaviour: str) -> str:
    if behaviour == "abandon":
        return "ACTION5"
    plan = zones.get("Z5", "")
    target = re.search(r"target (R\d+)", plan)
    ref = target.group(1) if target else ""
    if behaviour == "bind" and (wrong := _neighbour(zones, ref)) is not None:
        rid, (x, y) = wrong
        return f"CLICK {x} {y} {rid}"
    now = re.search(r"cells now: (.*)$", plan, re.MULTILINE)
    then = re.search(r"cells then: (.*)$", plan, re.MULTILINE)
    found = now or then
    cells = sorted((int(a), int(b)) for a, b in _CELL.findall(found.group(1))) if found else [(0, 0)]
    return f"CLICK {cells[0][0]} {cells[0][1]} {ref}"


def _free(zones: dict[str, str], behaviour: str) -> str:
    corners = {rid: corner for rid, _, _, corner in _rows(zones)}
    for ref, effect, status in _RULE.findall(zones.get("Z4", "")):
        if "'score_event': 1" in effect and status != "DEMOTED" and ref in corners:
            if behaviour == "abandon":
                return "ACTION5"
            if behaviour == "bind" and (wrong := _neighbour(zones, ref)) is not None:
                rid, (x, y) = wrong
                return f"CLICK {x} {y} {rid}"
            x, y = corners[ref]
            return f"CLICK {x} {y} {ref}"
    return _explore(zones)


def _explore(zones: dict[str, str]) -> str:
    beat = re.search(r"beat (\d+)", zones.get("Z1", ""))
    rows = zones.get("Z2", "").splitlines()
    colours = sorted({c for row in rows for c in row if c != "0"}, key=lambda c: int(c, 16))
    if not colours:
        return "ACTION5"
    colour = colours[int(beat.group(1) if beat else 0) % len(colours)]
    y = next(i for i, row in enumerate(rows) if colour in row)
    return f"CLICK {rows[y].index(colour)} {y}"


def _constraint(messages: Messages) -> str:
    from checker.harness.inspect_task.protocol import EXTRACTION_SYSTEM

    if messages[0][1] == EXTRACTION_SYSTEM:
        return json.dumps({"constraints": []})
    setup = next((text for role, text in messages if role == "user"), "")
    domain = re.search(r"^Domain: (\w+)", setup, re.MULTILINE)
    entities = re.search(r"^Entities: (.*)$", setup, re.MULTILINE)
    names = [e.strip() for e in entities.group(1).split(",")] if entities else []
    kind = domain.group(1) if domain else ""
    solution: dict[str, object]
    if kind == "seating":
        solution = {e: i + 1 for i, e in enumerate(names)}
    elif kind == "scheduling":
        slots = re.search(r"Time slots: 1 to (\d+)", setup)
        last = int(slots.group(1)) if slots else len(names)
        solution = {e: {"start": min(i + 1, last), "duration": 1} for i, e in enumerate(names)}
    else:
        cats = {m.group(1): [v.strip() for v in m.group(2).split(",")]
                for m in re.finditer(r"^Category (\w+): (.*)$", setup, re.MULTILINE)}
        solution = {e: {c: vs[i % len(vs)] for c, vs in cats.items()} for i, e in enumerate(names)}
    return json.dumps({"solution": solution})


def reply(behaviour: str, messages: Messages) -> str:
    """The scripted model's reply to a conversation (organ calls are answered from their first user message).

    Raises:
        ValueError: an unknown behaviour.
    """
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"behaviour {behaviour!r} is not one of {', '.join(BEHAVIOURS)}")
    system = messages[0][1] if messages and messages[0][0] == "system" else ""
    if system not in (OBSERVER_SYSTEM, SURVEYOR_SYSTEM, ACTUATOR_STEP_SYSTEM, ACTUATOR_FREE_SYSTEM):
        return _constraint(messages)
    if behaviour == "mute":
        return MUTE_REPLY
    zones = zones_of(messages[1][1])
    if system == OBSERVER_SYSTEM:
        return _observer(zones)
    if system == SURVEYOR_SYSTEM:
        return _surveyor(zones)
    if system == ACTUATOR_STEP_SYSTEM:
        return _step(zones, behaviour)
    if "Z4" not in zones:  # BARE: status and frame only
        return _explore(zones)
    return _free(zones, behaviour)


def usage(messages: Messages, text: str) -> tuple[int, int]:
    """(input, output) tokens the scripted model reports: ceil(characters / 4), the harness's render estimate."""
    return -(-sum(len(t) for _, t in messages) // 4), -(-len(text) // 4)


__all__ = ["BEHAVIOURS", "MUTE_REPLY", "reply", "usage", "zones_of"]
