"""The ARG-style harness of `driftboard/agent` with a model in its organs (no `inspect_ai` import here).

`ModelAgent` is the scripted reference agent (`checker.harness.baselines.scripted_agent`) with its
organ hooks answered by a model through a `Caller`: everything else — the micro-world, the
referent store (it follows the environment's object identity), the planner, landings from the
click geometry, receipts, renders and their captures, canary salts and echoes, the startup
probe, write rejects, levels and milestone claims — is the reference agent's own host code, so
nothing the gate or GDS reads is written by the model. A model's reply only chooses:

* Observer: which known referent each changed component is (checked against the environment's
  identity: a wrong answer is a write reject; the store follows the environment either way);
* Surveyor: which rules, goals and rankings to propose (each checked: a referent outside the
  view is DANGLING_REF, a repeat DUPLICATE, an unreadable line OUT_OF_SCHEMA);
* Actuator: the click of a live step and the referent it cites (ARG's R8 check: inside the grid,
  a cited referent, a cell of it; one corrective turn, then the click goes to the target's
  rounded centroid, stamped FALLBACK) and the action of a beat without a live step (one
  corrective turn, then the deterministic probe, stamped PROBE).

A reply that cannot be parsed is an organ failure: a `write_reject` row and a corrective turn,
never a crash. `ModelBare` is the BARE comparator with its one call per action asked of the model.

`Replay` answers the organ calls from recorded (prompt, output) pairs, checking that each
recorded prompt is the one the harness sends at that point: `driftboard import inspect` replays
an Inspect log through this harness and writes what the harness emits.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from checker.harness.baselines.agent_state import OBSERVER_CANARY_EVERY, AgentConfig, Emit, Step
from checker.harness.baselines.microworld import SIZE, MicroWorld, Obj
from checker.harness.baselines.scripted_agent import BareAgent, Choice, ObserverOp, ScriptedAgent
from checker.harness.inspect_task.agent_protocol import (
    ACTUATOR_FREE_SYSTEM,
    ACTUATOR_STEP_SYSTEM,
    COMPARATOR,
    CONDITIONS,
    MAX_RANKS,
    MAX_SURVEYOR_OPS,
    NEW,
    OBSERVER_SYSTEM,
    SURVEYOR_SYSTEM,
    Action,
    Messages,
    SurveyOp,
    cells_text,
    free_retry,
    game_seed,
    observer_retry,
    op_text,
    parse_action,
    parse_bindings,
    parse_survey,
    seed_label,
    step_retry,
    surveyor_retry,
    view,
)

RULE_EFFECTS: dict[str, dict[str, int | str]] = {
    "score": {"score_event": 1, "cells_changed": "nonzero"},
    "level": {"level_event": 1},
}
"""A proposed rule's effect (the scripted Surveyor's two effect hypotheses)."""


@dataclass(frozen=True)
class Reply:
    """A model's reply to one organ call: its text and the usage the provider reported."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0


def reply_from(text: str | None, usage: Any) -> Reply:
    """A `Reply` from a completion and Inspect's `ModelUsage` (read by attribute; None: no usage reported).

    Prompt tokens are all input tokens, cached ones included (Inspect's `input_tokens` excludes them).
    """
    if usage is None:
        return Reply(text or "")
    cached = (getattr(usage, "input_tokens_cache_read", None) or 0) + (getattr(usage, "input_tokens_cache_write", None) or 0)
    return Reply(text or "", int(getattr(usage, "input_tokens", 0) or 0) + cached,
                 int(getattr(usage, "output_tokens", 0) or 0), int(getattr(usage, "reasoning_tokens", None) or 0))


class Caller(Protocol):
    """Asks the model one organ call (`organ`: OBSERVER, SURVEYOR, ACTUATOR or BASELINE)."""

    def __call__(self, organ: str, messages: Messages) -> Coroutine[Any, Any, Reply]:
        """The model's reply to `messages`."""
        ...


class ReplayStop(Exception):
    """The recorded calls end, or a recorded prompt is not the one the harness sends: the replay stops here."""


@dataclass
class Replay:
    """A `Caller` answering from recorded calls, in order, each checked against the prompt the harness sends."""

    calls: Sequence[tuple[Messages, Reply]]
    i: int = 0
    """The next recorded call."""

    async def __call__(self, organ: str, messages: Messages) -> Reply:
        """The next recorded reply, if its recorded prompt is `messages`.

        Raises:
            ReplayStop: no call left, or the recorded prompt differs.
        """
        if self.i >= len(self.calls):
            raise ReplayStop(f"no model call left for the {organ} call")
        sent, reply = self.calls[self.i]
        if sent != messages:
            raise ReplayStop(f"model call {self.i + 1} ({organ}) was not sent the prompt the harness sends "
                             f"there{_first_difference(sent, messages)}")
        self.i += 1
        return reply


def _first_difference(sent: Messages, expected: Messages) -> str:
    if len(sent) != len(expected):
        return f" ({len(sent)} message(s) instead of {len(expected)})"
    for k, ((role, text), (want_role, want)) in enumerate(zip(sent, expected, strict=True)):
        if role != want_role:
            return f" (message {k + 1} is {role}, not {want_role})"
        if text != want:
            at = next((i for i, (a, b) in enumerate(zip(text, want, strict=False)) if a != b), min(len(text), len(want)))
            return f" (message {k + 1} differs at character {at})"
    return ""


def _centroid(cells: frozenset[tuple[int, int]]) -> tuple[int, int]:
    """ARG's FALLBACK aim: the rounded cell-centroid, clamped to the grid (it may lie outside the shape)."""
    n = len(cells)
    x = round(sum(c[0] for c in cells) / n)
    y = round(sum(c[1] for c in cells) / n)
    return min(max(x, 0), SIZE - 1), min(max(y, 0), SIZE - 1)


def _in_grid(x: int | None, y: int | None) -> bool:
    return x is not None and y is not None and 0 <= x < SIZE and 0 <= y < SIZE


class ModelAgent(ScriptedAgent):
    """The scripted reference agent whose Observer, Surveyor and Actuator ask a model."""

    def __init__(self, cfg: AgentConfig, emit: Emit, call: Caller, salt_key: str) -> None:
        super().__init__(cfg, emit)
        self.call = call
        key = f"nonces|{cfg.cell}|{cfg.seed_label}|{salt_key}".encode()
        self.rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
        """Draws the canary nonces only (fresh per run: the salt key is the Inspect sample's uuid)."""

    # -- helpers ------------------------------------------------------------------------------
    def _llm_call(self, turn: int, organ: str, idx: int, retry: int, reply: Reply, render: int,
                  accepted: int, rejected: int) -> None:
        self.emit({"type": "llm_call", "turn": turn, "organ": organ, "call_idx": idx, "retry_count": retry,
                   "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                   "reasoning_tokens": reply.reasoning_tokens, "render_tokens": render,
                   "ops_accepted": accepted, "ops_rejected": rejected})

    def _reject(self, turn: int, organ: str, op_type: str, violation: str, retry: int) -> None:
        self.emit({"type": "write_reject", "turn": turn, "organ": organ, "op_type": op_type,
                   "violation_class": violation, "retry_count": retry})

    # -- Observer ------------------------------------------------------------------------------
    async def _observer_call(self, turn: int, ops: list[ObserverOp]) -> None:
        """The Observer re-identifies each changed component; each answer is checked against the environment."""
        comps = [(f"c{k}", obj) for k, obj in enumerate((o for _, o in ops if isinstance(o, Obj)), 1)]
        gone = [rid for _, rid in ops if isinstance(rid, str)]
        if not comps:
            return  # only referents that left the frame: the harness marks them DORMANT without a call
        self.calls["OBSERVER"] += 1
        idx = self.calls["OBSERVER"]
        salt = self.nonce() if idx % OBSERVER_CANARY_EVERY == 0 else None
        changes = [f"{label} colour={obj.colour} n={len(obj.cells)} bbox=({min(x for x, _ in obj.cells)},"
                   f"{min(y for _, y in obj.cells)})-({max(x for x, _ in obj.cells)},{max(y for _, y in obj.cells)})"
                   for label, obj in comps]
        zones = {"Z1": f"beat {turn}", "Z2": self.frame_text() + (f"\n[canary {salt}]" if salt else ""),
                 "Z3": "components:\n" + "\n".join(changes) + ("\ngone: " + " ".join(gone) if gone else ""),
                 "Z6": "referents:\n" + self.roster(self.current_refs())}
        render = self.capture(turn, "OBSERVER", idx, zones, shadow=not self.cfg.agenda)
        if salt:
            self.emit({"type": "canary_salt", "turn": turn, "organ": "OBSERVER", "call_idx": idx, "zone": "Z2",
                       "nonce": salt})
        expected = {label: self.by_oid.get(obj.oid, NEW) for label, obj in comps}
        messages: Messages = [("system", OBSERVER_SYSTEM), ("user", view(zones))]
        reply = await self.call("OBSERVER", messages)
        answers = parse_bindings(reply.text, list(expected))
        bad = {label: why for label in expected if (why := self._bind_violation(answers.get(label), expected[label],
                                                                                 gone)) is not None}
        self._llm_call(turn, "OBSERVER", idx, 0, reply, render, len(comps) - len(bad), len(bad))
        if salt:
            echoed = salt in reply.text
            self.emit({"type": "canary_echo", "turn": turn, "organ": "OBSERVER", "call_idx": idx, "zone": "Z2",
                       "nonce": salt, "echoed": echoed, "output_text": reply.text})
            if not echoed:
                self._reject(turn, "OBSERVER", "CANARY", "MISSING_CANARY", 0)
        for why in bad.values():
            self._reject(turn, "OBSERVER", "BIND", why, 0)
        if not bad:
            return
        messages = [*messages, ("assistant", reply.text), ("user", observer_retry(bad))]
        again = await self.call("OBSERVER", messages)
        answers = parse_bindings(again.text, list(bad))
        still = [why for label in bad if (why := self._bind_violation(answers.get(label), expected[label], gone))]
        self._llm_call(turn, "OBSERVER", idx, 1, again, render, len(bad) - len(still), len(still))
        for why in still:
            self._reject(turn, "OBSERVER", "BIND", why, 1)

    def _bind_violation(self, answer: str | None, expected: str, gone: list[str]) -> str | None:
        """Why an Observer answer is wrong (None: it is the environment's identity)."""
        if answer is None:
            return "OUT_OF_SCHEMA"
        if answer == expected:
            return None
        if answer == NEW:
            return "DUPLICATE"
        row = self.refs.get(answer)
        if row is None or row.dormant or answer in gone:
            return "DANGLING_REF"
        return "MISBIND"

    # -- Surveyor -----------------------------------------------------------------------------
    async def survey(self, turn: int) -> None:
        """The Surveyor reads its view and proposes; accepted ops are applied, the others rejected (one retry)."""
        self.calls["SURVEYOR"] += 1
        idx = self.calls["SURVEYOR"]
        salts = {z: self.nonce() for z in ("Z2", "Z3", "Z6")}
        zones = self.surveyor_view(turn, salts)
        render = self.capture(turn, "SURVEYOR", idx, zones, shadow=not self.cfg.agenda)
        for zone, nonce in salts.items():
            self.emit({"type": "canary_salt", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "zone": zone,
                       "nonce": nonce})
        visible = self.visible_refs()
        self.pending = []  # the view showed them: read
        messages: Messages = [("system", SURVEYOR_SYSTEM), ("user", view(zones))]
        reply = await self.call("SURVEYOR", messages)
        checked = self._check_ops(parse_survey(reply.text), visible)
        rejected = [(op, why) for op, why in checked if why]
        self._llm_call(turn, "SURVEYOR", idx, 0, reply, render, len(checked) - len(rejected), len(rejected))
        self._echoes(turn, idx, salts, reply.text)
        self._apply(turn, checked, 0)
        if rejected:
            messages = [*messages, ("assistant", reply.text),
                        ("user", surveyor_retry([(op_text(op) or "(reply)", why) for op, why in rejected]))]
            again = await self.call("SURVEYOR", messages)
            checked = self._check_ops(parse_survey(again.text), visible)
            still = sum(1 for _, why in checked if why)
            self._llm_call(turn, "SURVEYOR", idx, 1, again, render, len(checked) - still, still)
            self._apply(turn, checked, 1)
        if self.cfg.agenda and not self.queue:
            self.compile(turn)

    def _check_ops(self, ops: list[SurveyOp] | None, visible: set[str]) -> list[tuple[SurveyOp, str | None]]:
        """Each operation with why it is rejected (None: accepted), judged in order against the store."""
        if ops is None:
            return [(("PARSE", "", ""), "OUT_OF_SCHEMA")]
        rules: set[tuple[str, str]] = set()
        goals: set[str] = set()
        ranks = 0
        out: list[tuple[SurveyOp, str | None]] = []
        for k, op in enumerate(ops):
            kind, arg, effect = op
            why: str | None = None
            if k >= MAX_SURVEYOR_OPS or kind == "PARSE":
                why = "OUT_OF_SCHEMA"
            elif kind == "PROPOSE_RULE":
                if arg not in visible or self.refs[arg].dormant:
                    why = "DANGLING_REF"
                elif (arg, effect) in rules or self.has_rule(arg, f"{effect}_event"):
                    why = "DUPLICATE"
                else:
                    rules.add((arg, effect))
            elif kind == "PROPOSE_GOAL":
                present = self.score_goal if arg == "score" else self.deficit_goal
                if present is not None or arg in goals:
                    why = "DUPLICATE"
                else:
                    goals.add(arg)
            elif arg not in visible or self.refs[arg].dormant:
                why = "DANGLING_REF"
            elif ranks >= MAX_RANKS:
                why = "OUT_OF_SCHEMA"
            else:
                ranks += 1
            out.append((op, why))
        return out

    def _apply(self, turn: int, checked: list[tuple[SurveyOp, str | None]], retry: int) -> None:
        """Apply the accepted operations in order; a `write_reject` row for each rejected one."""
        for (kind, arg, effect), why in checked:
            if why is not None:
                self._reject(turn, "SURVEYOR", kind, why, retry)
            elif kind == "PROPOSE_RULE":
                self._rule_adder(turn, arg, dict(RULE_EFFECTS[effect]))()
            elif kind == "PROPOSE_GOAL" and arg == "score":
                self._add_goal(turn, "raise the score", "SURVEYOR")
            elif kind == "PROPOSE_GOAL":
                self._add_deficit(turn)
            else:
                self._relevance_adder(turn, arg)()

    # -- Actuator -----------------------------------------------------------------------------
    def step_view(self, turn: int, step: Step) -> dict[str, str]:
        """The Actuator's view of a live step (zones Z1, Z2, Z5 and, with the join on, Z6).

        Z5 holds the step with its compiled cells and, with the join on, the working-set join line
        (the target's current version); Z6 the bound-referent rows (join on only).
        """
        zones = {"Z1": self.world.status_line(turn, self.cfg.horizon), "Z2": self.frame_text()}
        lines = [f"step {step.step_id} {step.kind} ACTION6 target {step.target} predicted "
                 f"{dict(sorted(step.predicted.items()))}", f"cells then: {cells_text(step.cells_at_compile)}"]
        if self.cfg.join:
            row = self.refs[step.target]
            lines.append(f"join {step.target} v{row.version} cells now: {cells_text(row.cells)}")
        zones["Z5"] = "plan:\n" + "\n".join(lines)
        if self.cfg.join:
            zones["Z6"] = "referents:\n" + self.roster(self.current_refs())
        return zones

    def free_view(self, turn: int) -> dict[str, str]:
        """The Actuator's view of a beat without a live step: status, frame, rules, and (join on) the referent rows."""
        zones = {"Z1": self.world.status_line(turn, self.cfg.horizon), "Z2": self.frame_text(), "Z4": self.rules_zone()}
        if self.cfg.join:
            zones["Z6"] = "referents:\n" + self.roster(self.current_refs())
        return zones

    async def realise(self, turn: int, step: Step, cited: frozenset[tuple[int, int]]) -> tuple[int, int, str, int]:
        """The Actuator's click for a live step, R8-checked; after one corrective turn, the target's centroid (FALLBACK)."""
        self.calls["ACTUATOR"] += 1
        idx = self.calls["ACTUATOR"]
        zones = self.step_view(turn, step)
        render = self.capture(turn, "ACTUATOR", idx, zones, shadow=not self.cfg.agenda)
        messages: Messages = [("system", ACTUATOR_STEP_SYSTEM), ("user", view(zones))]
        for retry in (0, 1):
            reply = await self.call("ACTUATOR", messages)
            action = parse_action(reply.text)
            why = self._r8(action, step, cited)
            self._llm_call(turn, "ACTUATOR", idx, retry, reply, render, int(why is None), int(why is not None))
            if why is None and action is not None and action[1] is not None and action[2] is not None:
                return action[1], action[2], "COMMITMENT_STEP", render
            self._reject(turn, "ACTUATOR", "CLICK", why or "OUT_OF_SCHEMA", retry)
            row = self.roster([self.refs[step.target]]) if self.cfg.join else (
                f"{step.target} cells then: {cells_text(step.cells_at_compile)}")
            messages = [*messages, ("assistant", reply.text), ("user", step_retry(why or "OUT_OF_SCHEMA", row))]
        x, y = _centroid(cited)
        return x, y, "FALLBACK", render

    def _r8(self, action: Action | None, step: Step, cited: frozenset[tuple[int, int]]) -> str | None:
        """ARG's pre-emission check of a live step's click (None: it passes)."""
        if action is None or action[0] != "ACTION6" or not _in_grid(action[1], action[2]):
            return "OUT_OF_SCHEMA"
        ref = action[3]
        if ref is None:
            return "NO_CITED_REF"
        if ref == step.target:
            cells = cited
        elif ref in self.refs and not self.refs[ref].dormant:
            cells = self.refs[ref].cells
        else:
            return "DANGLING_REF"
        return None if (action[1], action[2]) in cells else "UNCONTAINED_PARAM"

    async def free_choice(self, turn: int) -> Choice:
        """The Actuator chooses the action of a beat without a live step; after one corrective turn, the probe."""
        shadow = None if self.cfg.agenda else self.shadow_step()
        self.calls["ACTUATOR"] += 1
        idx = self.calls["ACTUATOR"]
        zones = self.free_view(turn)
        render = self.capture(turn, "ACTUATOR", idx, zones, shadow=not self.cfg.agenda)
        messages: Messages = [("system", ACTUATOR_FREE_SYSTEM), ("user", view(zones))]
        for retry in (0, 1):
            reply = await self.call("ACTUATOR", messages)
            action = parse_action(reply.text)
            ok = action is not None and (action[0] != "ACTION6" or _in_grid(action[1], action[2]))
            self._llm_call(turn, "ACTUATOR", idx, retry, reply, render, int(ok), int(not ok))
            if ok and action is not None:
                name, x, y, _ = action
                return Choice(name, -1 if x is None else x, -1 if y is None else y, "ACTUATOR_LLM", render=render,
                              shadow=shadow)
            self._reject(turn, "ACTUATOR", "ACTION", "OUT_OF_SCHEMA", retry)
            messages = [*messages, ("assistant", reply.text), ("user", free_retry("OUT_OF_SCHEMA"))]
        probe = self.probe_choice()
        probe.render = render
        return probe


@dataclass
class ModelBare(BareAgent):
    """The BARE comparator with its one call per action asked of the model (status and frame only)."""

    call: Caller | None = field(default=None, kw_only=True)

    async def decide(self, world: MicroWorld, rng: random.Random,
                     turn: int) -> tuple[str, dict[str, int] | None, int, str]:
        """The model's action; after one corrective turn, waiting (ACTION5, stamped PROBE)."""
        assert self.call is not None
        zones = {"Z1": world.status_line(turn, self.horizon), "Z2": world.frame_text()}
        text = view(zones)
        render = math.ceil(len(text) / 4)
        messages: Messages = [("system", ACTUATOR_FREE_SYSTEM), ("user", text)]
        for retry in (0, 1):
            reply = await self.call("BASELINE", messages)
            action = parse_action(reply.text)
            ok = action is not None and (action[0] != "ACTION6" or _in_grid(action[1], action[2]))
            self.emit({"type": "llm_call", "turn": turn, "organ": "BASELINE", "call_idx": turn, "retry_count": retry,
                       "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                       "reasoning_tokens": reply.reasoning_tokens, "render_tokens": render,
                       "ops_accepted": int(ok), "ops_rejected": int(not ok)})
            if ok and action is not None:
                name, x, y, _ = action
                params = {"x": x, "y": y} if name == "ACTION6" and x is not None and y is not None else None
                return name, params, render, "ACTUATOR_LLM"
            self.emit({"type": "write_reject", "turn": turn, "organ": "BASELINE", "op_type": "ACTION",
                       "violation_class": "OUT_OF_SCHEMA", "retry_count": retry})
            messages = [*messages, ("assistant", reply.text), ("user", free_retry("OUT_OF_SCHEMA"))]
        return "ACTION5", None, render, "PROBE"


@dataclass
class Episode:
    """One game of one condition and epoch, played by the harness with `call` answering the organs."""

    condition: str
    game: str
    epoch: int
    horizon: int
    salt_key: str
    emit: Emit
    call: Caller
    agent: ModelAgent | ModelBare = field(init=False)

    def __post_init__(self) -> None:
        flags = CONDITIONS[self.condition]
        seed = game_seed(self.game)
        label = seed_label(self.game, self.epoch)
        if self.condition == COMPARATOR:
            self.agent = ModelBare(label, seed, self.emit, self.horizon, call=self.call)
        else:
            cfg = AgentConfig(cell=self.condition, seed_label=label, world_seed=seed,
                              join=flags.get("ARG_JOIN") != "0", agenda=flags.get("ARG_AGENDA") != "0",
                              horizon=self.horizon, observer_noise=0.0, surveyor_noise=0.0, actuator_noise=0.0,
                              canary_deafness=0.0)
            self.agent = ModelAgent(cfg, self.emit, self.call, self.salt_key)

    async def run(self) -> None:
        """Play the game to its horizon."""
        await self.agent.run()

    @property
    def turn(self) -> int:
        """The beat being played (0 before the first action)."""
        return self.agent.turn

    @property
    def world(self) -> MicroWorld | None:
        """The environment (its level counter and score are the provisional score); None before the game starts."""
        return self.agent.world


__all__ = ["Caller", "Episode", "ModelAgent", "ModelBare", "Replay", "ReplayStop", "Reply", "reply_from"]
