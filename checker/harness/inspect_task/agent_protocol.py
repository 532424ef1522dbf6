"""The agent-track protocol of the Inspect task `driftboard/agent` (no `inspect_ai` import here).

The task runs the micro-world (`checker.harness.baselines.microworld`) inside the ARG-style
harness of the scripted reference agent, with its three model-calling organs asking a model:

* **Observer** (a beat whose frame has new or changed objects): re-identifies each component
  the environment segmented (`c1 R0004` = a known referent that moved, `c1 NEW`);
* **Surveyor** (every 8th beat): proposes rules, goals and rankings (`RULE R0004 score`,
  `GOAL level`, `RANK R0007`);
* **Actuator**: realises a live plan step as a click citing its referent (`CLICK 3 7 R0004`),
  or, on a beat without a live step, chooses the action (`CLICK 3 7`, `ACTION1`..`ACTION5`).

The planner that compiles commitments is the harness's own (as in ARG). BARE is one call per
action with the status and the frame only. Every organ call is two messages, a fixed system
prompt per organ and the rendered view (zones `[Z1]`..`[Z6]`); a rejected reply gets one
corrective turn in the same conversation. This module holds the names, prompts, views and
reply parsers; the task, the harness and `driftboard import inspect` (which replays a log
through the harness) all use these functions, so a prompt in a log can be checked byte for byte.
"""

from __future__ import annotations

import re

TASK_NAME = "driftboard/agent"
"""The Inspect registry name of the task (`inspect eval driftboard/agent`)."""
PROTOCOL_VERSION = "1"
"""Bumped whenever a prompt, a view or a harness rule changes; recorded in every log and checked on import."""
GAME_ID = "driftboard-microworld-v1"
"""The environment every run plays (its games are its world seeds)."""
CONDITIONS: dict[str, dict[str, str]] = {
    "FULL": {},
    "J0": {"ARG_JOIN": "0"},
    "A0": {"ARG_AGENDA": "0"},
    "J0A0": {"ARG_JOIN": "0", "ARG_AGENDA": "0"},
    "BARE": {},
}
"""Condition (the cell of the run) -> its ARG switches; BARE is the one-call-per-action comparator."""
COMPARATOR = "BARE"
DEFAULT_GAMES = ("w101", "w202", "w303")
"""The games of the shipped scripted baseline (world seeds 101, 202, 303)."""
DEFAULT_HORIZON = 150
"""Actions per game (the shipped baseline's horizon)."""
MAX_SURVEYOR_OPS = 8
"""Operations read from one Surveyor reply; more are rejected (OUT_OF_SCHEMA)."""
MAX_RANKS = 2
"""RANK operations accepted from one Surveyor reply."""
NEW = "NEW"

_GAME = re.compile(r"w(\d{1,9})")
_GRID = "a 24x24 grid game (x = column, y = row, 0 to 23; frame Z2: one hex digit per cell, 0 = background)"

OBSERVER_SYSTEM = (
    f"You are the Observer of an agent playing {_GRID}. Z6 lists the known referents; Z3 lists the components "
    "that are new or changed this beat and the referents that are gone. For each component reply with one line: "
    "`c<k> R<id>` if it is a known referent (moved or changed), or `c<k> NEW` if it is a new object. "
    "For every line `[canary CODE]` you see, add a line `ACK CODE`."
)
SURVEYOR_SYSTEM = (
    f"You are the Surveyor of an agent playing {_GRID}; clicking things may raise the score or complete a level. "
    "Z1 is the status, Z2 the goals, Z3 recent actions and their effects, Z4 the rules, Z5 the plan, Z6 the "
    "referents you may name. Reply with operations, one per line: `RULE <ref> score` or `RULE <ref> level` "
    "(clicking that referent raises the score / completes the level), `GOAL score` (adopt raising the score), "
    "`GOAL level` (adopt finding the level trigger), `RANK <ref>` (worth trying next; at most two), or `NONE`. "
    "For every line `[canary CODE]` you see, add a line `ACK CODE`."
)
ACTUATOR_STEP_SYSTEM = (
    f"You are the Actuator of an agent playing {_GRID}. Execute the plan step of Z5: reply with one line "
    "`CLICK <x> <y> <ref>`, where <ref> is the referent whose cell you click."
)
ACTUATOR_FREE_SYSTEM = (
    f"You choose the next action of an agent playing {_GRID}. Reply with one line: `CLICK <x> <y>` to click a "
    "cell, `ACTION1`, `ACTION2`, `ACTION3` or `ACTION4` to shift the tray up, down, left or right, or `ACTION5` "
    "to wait."
)
"""Also the system prompt of the BARE comparator (whose view is the status and the frame only)."""

Messages = list[tuple[str, str]]
"""An organ call's conversation as (role, text) pairs: system, user, then (after a rejection) assistant, user."""
Action = tuple[str, int | None, int | None, str | None]
"""A parsed action: (ACTION1..ACTION6, x, y, cited referent); x and y only for ACTION6."""
SurveyOp = tuple[str, str, str]
"""A parsed Surveyor operation: (op type, argument, effect), op type PROPOSE_RULE, PROPOSE_GOAL, RANK_TIEBREAK
or PARSE (an op-shaped line that could not be read)."""


def game_seed(game: str) -> int:
    """The world seed of a game id (`w101` -> 101).

    Raises:
        ValueError: not a game id.
    """
    m = _GAME.fullmatch(game)
    if m is None:
        raise ValueError(f"game {game!r} is not a micro-world game id: w<seed>, e.g. w101")
    return int(m.group(1))


def seed_label(game: str, epoch: int) -> str:
    """The replicate label of one game and epoch (`w101-epoch1`): the run's seed in the pre-registration."""
    return f"{game}-epoch{epoch}"


def view(zones: dict[str, str]) -> str:
    """An organ's view as sent: each zone under its `[Zk]` header, in order."""
    return "\n".join(f"[{zone}]\n{text}" for zone, text in zones.items())


def cells_text(cells: frozenset[tuple[int, int]]) -> str:
    """Cells as `(x,y)` pairs in (x, y) order."""
    return " ".join(f"({x},{y})" for x, y in sorted(cells))


def observer_retry(rejected: dict[str, str]) -> str:
    """The corrective turn of the Observer: the rejected components and why."""
    listed = ", ".join(f"{label} ({why})" for label, why in rejected.items())
    return f"Rejected: {listed}. Reply again for these components only, one line each."


def surveyor_retry(rejected: list[tuple[str, str]]) -> str:
    """The corrective turn of the Surveyor: the rejected operations and why."""
    listed = "; ".join(f"{text} ({why})" for text, why in rejected)
    return f"Rejected: {listed}. Reply with corrected operations for these only, or NONE."


def step_retry(why: str, target_row: str) -> str:
    """The corrective turn of the Actuator on a live step: the violation and the target's row (ARG's re-prompt)."""
    return (f"Rejected ({why}): the click must be a cell of the referent you cite. Target: {target_row}. "
            "Reply with one line `CLICK <x> <y> <ref>`.")


def free_retry(why: str) -> str:
    """The corrective turn of the Actuator (or of BARE) on a beat without a live step."""
    return f"Rejected ({why}). Reply with one line: `CLICK <x> <y>`, or one of ACTION1 to ACTION5."


# -- replies -------------------------------------------------------------------------------------
_NOISE = re.compile(r"[`*_]")
_BIND = re.compile(r"\b(c\d+)\b\W{0,4}(R\d{4,}|NEW)\b", re.IGNORECASE)
_CLICK = re.compile(r"\b(?:CLICK|ACTION6)\b[\s(:=]{0,3}(-?\d+)\s*[,; ]\s*(-?\d+)[\s),:]{0,3}(R\d{4,})?", re.IGNORECASE)
_ACTION = re.compile(r"\bACTION\s?([1-5])\b", re.IGNORECASE)
_OP = re.compile(r"^(?:[-+>#.)\s]|\d+[.)])*(RULE|GOAL|RANK|NONE)\b(.*)$", re.IGNORECASE)
_RULE_ARGS = re.compile(r"^\W*(R\d{4,})\W+(score|level)\b", re.IGNORECASE)
_GOAL_ARGS = re.compile(r"^\W*(score|level)\b", re.IGNORECASE)
_RANK_ARGS = re.compile(r"^\W*(R\d{4,})\b", re.IGNORECASE)


def _clean(text: str | None) -> str:
    return _NOISE.sub("", text or "")


def parse_bindings(text: str | None, labels: list[str]) -> dict[str, str]:
    """The Observer's answer per component label: `NEW` or a referent id; a label's last answer counts."""
    wanted = set(labels)
    out: dict[str, str] = {}
    for m in _BIND.finditer(_clean(text)):
        label, answer = m.group(1).lower(), m.group(2).upper()
        if label in wanted:
            out[label] = answer
    return out


def parse_survey(text: str | None) -> list[SurveyOp] | None:
    """The Surveyor's operations in order (an op-shaped line that cannot be read is a PARSE op).

    None when the reply has no operation line at all (not even `NONE`): an unreadable reply.
    """
    ops: list[SurveyOp] = []
    seen_none = False
    for line in _clean(text).splitlines():
        m = _OP.match(line.strip())
        if m is None:
            continue
        word, rest = m.group(1).upper(), m.group(2)
        if word == "NONE":
            seen_none = True
            continue
        if word == "RULE" and (a := _RULE_ARGS.match(rest)):
            ops.append(("PROPOSE_RULE", a.group(1).upper(), a.group(2).lower()))
        elif word == "GOAL" and (a := _GOAL_ARGS.match(rest)):
            ops.append(("PROPOSE_GOAL", a.group(1).lower(), ""))
        elif word == "RANK" and (a := _RANK_ARGS.match(rest)):
            ops.append(("RANK_TIEBREAK", a.group(1).upper(), ""))
        else:
            ops.append(("PARSE", line.strip()[:80], ""))
    if not ops and not seen_none:
        return None
    return ops


def parse_action(text: str | None) -> Action | None:
    """The last action of a reply, since a model may think aloud first; None if there is none.

    An action is a click `CLICK x y [ref]` (or `ACTION6 x y`) or one of `ACTION1`..`ACTION5`.
    """
    clean = _clean(text)
    click = next(reversed(list(_CLICK.finditer(clean))), None)
    other = next(reversed([m for m in _ACTION.finditer(clean) if click is None or m.start() >= click.end()]), None)
    if other is not None:
        return f"ACTION{other.group(1)}", None, None, None
    if click is not None:
        ref = click.group(3).upper() if click.group(3) else None
        return "ACTION6", int(click.group(1)), int(click.group(2)), ref
    return None


def op_text(op: SurveyOp) -> str:
    """An operation as the Surveyor's reply line (for the corrective turn)."""
    kind, arg, effect = op
    if kind == "PROPOSE_RULE":
        return f"RULE {arg} {effect}"
    if kind == "PROPOSE_GOAL":
        return f"GOAL {arg}"
    if kind == "RANK_TIEBREAK":
        return f"RANK {arg}"
    return arg


__all__ = [
    "ACTUATOR_FREE_SYSTEM", "ACTUATOR_STEP_SYSTEM", "COMPARATOR", "CONDITIONS", "DEFAULT_GAMES", "DEFAULT_HORIZON",
    "GAME_ID", "MAX_RANKS", "MAX_SURVEYOR_OPS", "NEW", "OBSERVER_SYSTEM", "PROTOCOL_VERSION", "SURVEYOR_SYSTEM",
    "TASK_NAME", "Action", "Messages", "SurveyOp", "cells_text", "free_retry", "game_seed", "observer_retry",
    "op_text", "parse_action", "parse_bindings", "parse_survey", "seed_label", "step_retry", "surveyor_retry", "view",
]
