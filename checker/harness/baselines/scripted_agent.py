"""A scripted ARG-style agent for the micro-world, with switchable binding join and agenda.

It is deterministic (one seeded RNG for organ noise) and writes canonical agent events through
an `emit` callback (the baseline generator passes `RunLogWriter.write`). It never writes a
drift figure: reference steps, landings and receipts are written the way a harness would, and
the checker derives the decomposition from them.

Organs (scripted stand-ins for the LLM calls, each logged as an `llm_call`):

* **Observer**: binds the frame's objects to referents. New objects are minted (`R####`), moved
  ones get a new version, vanished ones go DORMANT. Salted with a canary (zone Z2) on every
  8th call.
* **Surveyor**: every `EPOCH` beats reads its view and proposes rules (effect hypotheses),
  goals, milestone (DEFICIT) goals and relevance rankings. Salted in Z2, Z3, Z6 on every call.
  It can only name a referent that appears in its view: the bound-referent rows (binding
  join on) or the targets of compiled plan steps (agenda on). With both off it cannot name
  the referent behind an effect, so it forms no targeted hypothesis.
* **Actuator**: realises each aimed live step as a click; the harness checks the click is
  inside the cited referent (R8) and re-prompts once if not.

Switches:

* `join` (ARG_JOIN): when on, a live step's target is re-joined to the referent's *current*
  version before the click; when off, the Actuator aims at the cells the target had when the
  plan was compiled (stale when the object moved since), and the Surveyor loses the
  bound-referent rows.
* `agenda` (ARG_AGENDA): when on, commitments are compiled and executed as live steps
  (`drift_ref` LIVE); when off, every beat is a deterministic probe and the step the agenda
  would have compiled is stamped as a shadow step (`drift_ref` SHADOW).

Probe policy (deterministic): the least-tried action (ties: lowest number); for a click, the
least-tried, then smallest, then lowest-id current referent, aimed at its minimum cell.

The store and the views are in `checker.harness.baselines.agent_state`, the Surveyor and the
agenda's compiler in `checker.harness.baselines.surveyor`; this module has the Observer, the
beat (choose, realise, record), the Actuator and the episode, and the BARE comparator.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

from checker.harness.baselines.agent_state import (
    EPOCH,
    OBSERVER_CANARY_EVERY,
    AgentConfig,
    Emit,
    GoalRow,
    Observed,
    Pending,
    RefRow,
    RuleRow,
    Step,
    match,
)
from checker.harness.baselines.microworld import ACTIONS, SIZE, MicroWorld, Obj
from checker.harness.baselines.surveyor import Surveyor

ObserverOp = tuple[str, Obj | str]
"""(MINT | MOVE, the world object) or (DORMANT, the referent id)."""


@dataclass
class Choice:
    """The action of one beat and how it was chosen."""

    action: str
    x: int
    y: int
    source: str
    cited: frozenset[tuple[int, int]] = frozenset()
    """The cells the Actuator aimed at (a live step's target, current or as compiled)."""
    render: int = 0
    shadow: str | None = None

    @property
    def params(self) -> dict[str, int] | None:
        """A click's coordinates; None for the untargeted actions."""
        return {"x": self.x, "y": self.y} if self.action == "ACTION6" else None


class ScriptedAgent(Surveyor):
    """Runs one episode in a fresh micro-world and emits its events."""

    # -- Observer -----------------------------------------------------------------------------
    async def observe(self, turn: int) -> None:
        """Observer: sync the store with the frame (mint, re-version, dormant)."""
        ops = self._observer_ops()
        if not ops:
            return
        await self._observer_call(turn, ops)
        for op, payload in ops:
            if isinstance(payload, str):
                self.refs[payload].dormant = True
                self.status(turn, "REFERENT_LIFE", payload, "LIVE", "DORMANT", "vanished from the frame")
            else:
                self._bind(turn, op, payload)

    def _observer_ops(self) -> list[ObserverOp]:
        """New objects (MINT) and moved ones (MOVE) in world order, then vanished referents (DORMANT) by object."""
        ops: list[ObserverOp] = []
        for oid, obj in self.world.objects.items():
            rid = self.by_oid.get(oid)
            if rid is None:
                ops.append(("MINT", obj))
            elif self.refs[rid].cells != obj.cells:
                ops.append(("MOVE", obj))
        for oid, rid in sorted(self.by_oid.items()):
            if oid not in self.world.objects and not self.refs[rid].dormant:
                ops.append(("DORMANT", rid))
        return ops

    async def _observer_call(self, turn: int, ops: list[ObserverOp]) -> None:
        """The Observer's call: its view, canary (every `OBSERVER_CANARY_EVERY`th call), rejects and one retry.

        The organ hook of the Observer: this scripted stand-in draws its rejections from the seeded
        RNG; `checker.harness.inspect_task.agent_harness` asks a model instead.
        """
        self.calls["OBSERVER"] += 1
        idx = self.calls["OBSERVER"]
        salt = self.nonce() if idx % OBSERVER_CANARY_EVERY == 0 else None
        zones = {"Z1": f"beat {turn}", "Z2": self.frame_text() + (f"\n[canary {salt}]" if salt else ""),
                 "Z6": self.roster(self.current_refs())}
        render = self.capture(turn, "OBSERVER", idx, zones, shadow=not self.cfg.agenda)
        rejected = [op for op in ops if op[0] != "DORMANT" and self.rng.random() < self.cfg.observer_noise]
        if salt:
            self.emit({"type": "canary_salt", "turn": turn, "organ": "OBSERVER", "call_idx": idx, "zone": "Z2",
                       "nonce": salt})
        output = "{\"ops\": [" + ", ".join(f"\"{k}\"" for k, _ in ops) + "]" + (f", \"ack\": \"{salt}\"" if salt else "") + "}"
        self.emit({"type": "llm_call", "turn": turn, "organ": "OBSERVER", "call_idx": idx,
                   "prompt_tokens": render + 600, "completion_tokens": 20 + 30 * len(ops), "render_tokens": render,
                   "ops_accepted": len(ops) - len(rejected), "ops_rejected": len(rejected)})
        if salt:
            self.emit({"type": "canary_echo", "turn": turn, "organ": "OBSERVER", "call_idx": idx, "zone": "Z2",
                       "nonce": salt, "echoed": salt in output, "output_text": output})
        if rejected:
            for _ in rejected:
                self.emit({"type": "write_reject", "turn": turn, "organ": "OBSERVER", "op_type": "BIND",
                           "violation_class": "DANGLING_REF", "retry_count": 0})
            self.emit({"type": "llm_call", "turn": turn, "organ": "OBSERVER", "call_idx": idx, "retry_count": 1,
                       "prompt_tokens": render + 650, "completion_tokens": 20 + 30 * len(rejected),
                       "render_tokens": render, "ops_accepted": len(rejected)})

    def _bind(self, turn: int, op: str, obj: Obj) -> None:
        """Mint a referent for a new object, or give a moved one's referent a new version."""
        if op == "MINT":
            rid = self.mint("R")
            self.by_oid[obj.oid] = rid
            self.refs[rid] = RefRow(rid, obj.oid, obj.kind, obj.colour, obj.cells)
            self.tried_ref[rid] = 0
            version = 1
        else:
            rid = self.by_oid[obj.oid]
            row = self.refs[rid]
            row.version += 1
            row.cells = obj.cells
            version = row.version
        self.emit({"type": "referent", "turn": turn, "ref_id": rid, "version": version, "kind": obj.kind,
                   "anchor_cells": [list(c) for c in sorted(obj.cells)],
                   "signature": hashlib.sha1(f"{obj.colour}:{len(obj.cells)}".encode()).hexdigest()[:12],
                   "provenance": "OBSERVER_BIND"})
        if op == "MINT":
            self.status(turn, "REFERENT_RUNG", rid, None, "ANCHORED", "minted")
            self.status(turn, "REFERENT_LIFE", rid, None, "LIVE", "minted")

    # -- one beat -------------------------------------------------------------------------------
    def probe(self) -> tuple[str, int | None, int | None]:
        """Deterministic probe: least-tried action; clicks aim at the least-tried referent's minimum cell."""
        action = min(ACTIONS, key=lambda a: (self.tried_action[a], a))
        if action != "ACTION6":
            return action, None, None
        refs = self.current_refs()
        if not refs:
            return action, 0, 0
        ref = min(refs, key=lambda r: (self.tried_ref[r.ref_id], len(r.cells), r.ref_id))
        x, y = min(ref.cells)
        return action, x, y

    async def act(self, turn: int) -> None:
        """Choose, realise and record one action, then its receipts and lifecycle rows."""
        step = self._next_step(turn)
        c = await self._live_choice(turn, step) if step is not None else await self.free_choice(turn)
        self.tried_action[c.action] += 1
        recorded = self._recorded_landing(c, step)
        pre = self.world.frame_digest()
        out = self.world.step(c.action, c.x if c.params else None, c.y if c.params else None)
        post = self.world.frame_digest()
        observed: Observed = {"cells_changed": out.cells_changed, "score_event": out.score_event,
                              "level_event": out.level_event}
        believed = step if step is not None and recorded == step.target else None
        step_match = match(believed.predicted, observed) if believed is not None else None
        rule_matches = self._rule_matches(c.action, recorded, observed)
        first = step_match if step_match is not None else (rule_matches[0][1] if rule_matches else None)
        self.emit({"type": "beat", "turn": turn, "action": c.action, "params": c.params, "target_ref": recorded,
                   "step_id": step.step_id if step else None, "shadow_step_id": c.shadow,
                   "drift_ref": "LIVE" if self.cfg.agenda else "SHADOW", "source_stamp": c.source,
                   "render_tokens": c.render, "match": first, "level_counter": self.world.level_counter,
                   "score": self.world.score, "pre_frame_sha256": pre, "post_frame_sha256": post})
        receipt = {"type": "receipt", "turn": turn, "action": c.action, "target_ref": recorded,
                   "context_class": f"CC-{c.action}"}
        events = {"score_event": out.score_event, "level_event": out.level_event}
        self.emit({**receipt, "observed": observed, **events})
        if believed is not None:
            self.emit({**receipt, "predicted": believed.predicted, "observed": observed, "match": step_match,
                       "predictor_id": believed.step_id, "predictor_kind": "STEP", **events})
        characterized = self._rule_receipts(turn, receipt, observed, events, rule_matches)
        if recorded is not None:
            self._climb_rungs(turn, recorded, characterized)
        if out.level_event:
            self._level_up(turn)
        if step is not None:
            self.finish_step(turn, step, believed is not None, recorded)
        self.pending.append(Pending(turn, c.action, recorded, out.score_event, out.level_event))

    def _next_step(self, turn: int) -> Step | None:
        """The plan's next live step (agenda on); steps whose target went dormant are BLOCKED and dropped."""
        while self.cfg.agenda and self.queue:
            head = self.queue[0]
            if not self.refs[head.target].dormant:
                return head
            self.status(turn, "COMMITMENT_STEP", head.step_id, "PENDING", "BLOCKED", "target dormant")
            self.queue.pop(0)
        return None

    async def _live_choice(self, turn: int, step: Step) -> Choice:
        """A live step's click, aimed by the Actuator at the target's current cells (join on) or its compiled ones."""
        cited = self.refs[step.target].cells if self.cfg.join else step.cells_at_compile
        x, y, source, render = await self.realise(turn, step, cited)
        if step.started is None:
            step.started = turn
            self.status(turn, "COMMITMENT_STEP", step.step_id, "PENDING", "ACTIVE", "executing")
        return Choice("ACTION6", x, y, source, cited, render)

    async def realise(self, turn: int, step: Step, cited: frozenset[tuple[int, int]]) -> tuple[int, int, str, int]:
        """The Actuator's organ hook for an aimed live step: (x, y, source stamp, render tokens of its view)."""
        x, y = self.actuate(turn, step, cited)
        return x, y, "COMMITMENT_STEP", math.ceil((len(self.frame_text()) + 80 * (1 if self.cfg.join else 0) + 120) / 4)

    async def free_choice(self, turn: int) -> Choice:
        """The beat without a live step (organ hook): here the deterministic probe.

        With the agenda off, the step it would have compiled is stamped as a shadow step.
        """
        return self.probe_choice()

    def probe_choice(self) -> Choice:
        """A deterministic probe, stamped PROBE (and with its shadow step when the agenda is off)."""
        action, px, py = self.probe()
        x, y = (px, py) if px is not None and py is not None else (-1, -1)
        return Choice(action, x, y, "PROBE", shadow=None if self.cfg.agenda else self.shadow_step())

    def _recorded_landing(self, c: Choice, step: Step | None) -> str | None:
        """The landing the harness records (the believed one with the defect on); counts the landed referent as tried."""
        landed = self.landing(c.x, c.y) if c.params else None
        truth = self.world.land(c.x, c.y) if c.params else None
        if (truth and self.by_oid.get(truth)) != landed:  # pragma: no cover - the store is synced every beat
            raise AssertionError("store and world disagree on a landing")
        recorded = landed
        if step is not None and self.cfg.records_believed_landing and (c.x, c.y) in c.cited:
            recorded = step.target
        if landed is not None:
            self.tried_ref[landed] += 1
        return recorded

    def _rule_matches(self, action: str, recorded: str | None, observed: Observed) -> list[tuple[RuleRow, int]]:
        """The live rules about this action on the recorded target (TESTED first), each with whether it matched."""
        rule_rows = [r for r in self.rules.values() if r.action == action and r.target is not None
                     and r.target == recorded and r.status != "DEMOTED"]
        ordered = sorted(rule_rows, key=lambda r: (r.status != "TESTED", r.rule_id))
        return [(r, match(r.effect, observed)) for r in ordered]

    def _rule_receipts(self, turn: int, receipt: dict[str, object], observed: Observed, events: dict[str, int],
                       rule_matches: list[tuple[RuleRow, int]]) -> bool:
        """One receipt per rule; two matches promote a rule to TESTED, a miss demotes a TESTED one.

        Returns whether a TESTED rule matched (the target is then characterized).
        """
        characterized = False
        for rule, matched in rule_matches:
            self.emit({**receipt, "predicted": rule.effect, "observed": observed, "match": matched,
                       "predictor_id": rule.rule_id, "predictor_kind": "RULE", **events})
            if matched:
                rule.matches += 1
                if rule.status == "PROPOSED" and rule.matches >= 2:
                    self.status(turn, "RULE", rule.rule_id, "PROPOSED", "TESTED", "two matched predictions")
                    rule.status = "TESTED"
                characterized = characterized or rule.status == "TESTED"
            elif rule.status == "TESTED":
                self.status(turn, "RULE", rule.rule_id, "TESTED", "DEMOTED", "prediction failed")
                rule.status = "DEMOTED"
        return characterized

    def _climb_rungs(self, turn: int, recorded: str, characterized: bool) -> None:
        """A receipt engages an anchored referent; a matched TESTED rule characterizes an engaged one."""
        row = self.refs[recorded]
        if row.rung == "ANCHORED":
            self.status(turn, "REFERENT_RUNG", recorded, "ANCHORED", "ENGAGED", "receipt in scope")
            row.rung = "ENGAGED"
        if characterized and row.rung == "ENGAGED":
            self.status(turn, "REFERENT_RUNG", recorded, "ENGAGED", "CHARACTERIZED", "tested rule matched")
            row.rung = "CHARACTERIZED"

    def _level_up(self, turn: int) -> None:
        """A level event: its row and evidence; the deficit goal it answers is accepted."""
        self.emit({"type": "level", "turn": turn, "level_counter": self.world.level_counter, "score": self.world.score})
        self.emit({"type": "evidence", "turn": turn, "kind": "level", "irreversible": True,
                   "subject": "level_counter", "before": str(self.world.level_counter - 1),
                   "after": str(self.world.level_counter)})
        if self.deficit_goal is not None:
            self.status(turn, "GOAL", self.deficit_goal, "PROPOSED", "ACCEPTED", "level event observed")
            self.emit({"type": "goal_edge", "turn": turn, "parent_goal": "G0001", "child_goal": self.deficit_goal,
                       "verified": True})
            self.deficit_goal = None

    def actuate(self, turn: int, step: Step, cited: frozenset[tuple[int, int]]) -> tuple[int, int]:
        """Actuator call(s) for an aimed live step; R8 containment check with one re-prompt."""
        self.calls["ACTUATOR"] += 1
        idx = self.calls["ACTUATOR"]
        cells = sorted(cited)
        tokens = math.ceil((len(self.frame_text()) + 200) / 4)
        if self.rng.random() < self.cfg.actuator_noise:
            mx = max(c[0] for c in cells)
            bad = (min(mx + 1, SIZE - 1), cells[0][1])
            if bad not in cited:
                self.emit({"type": "llm_call", "turn": turn, "organ": "ACTUATOR", "call_idx": idx,
                           "prompt_tokens": tokens + 300, "completion_tokens": 24, "render_tokens": tokens,
                           "ops_rejected": 1})
                self.emit({"type": "write_reject", "turn": turn, "organ": "ACTUATOR", "op_type": "CLICK",
                           "violation_class": "UNCONTAINED_PARAM", "retry_count": 0})
                self.emit({"type": "llm_call", "turn": turn, "organ": "ACTUATOR", "call_idx": idx, "retry_count": 1,
                           "prompt_tokens": tokens + 340, "completion_tokens": 24, "render_tokens": tokens,
                           "ops_accepted": 1})
                return self.rng.choice(cells)
        self.emit({"type": "llm_call", "turn": turn, "organ": "ACTUATOR", "call_idx": idx,
                   "prompt_tokens": tokens + 300, "completion_tokens": 24, "render_tokens": tokens, "ops_accepted": 1})
        return self.rng.choice(cells)

    def finish_step(self, turn: int, step: Step, believed_ok: bool, recorded: str | None) -> None:
        """Consume a step the harness believes landed, or record a substitution."""
        if believed_ok:
            self.status(turn, "COMMITMENT_STEP", step.step_id, "ACTIVE", "CONSUMED", "landed on target")
            self.queue.pop(0)
            if step.last and step.goal_id != "G0001":
                text = "level trigger fired" if step.predicted.get("level_event") else "score raised"
                self.emit({"type": "milestone_claim", "turn": turn, "claim_id": self.mint("M"),
                           "step_id": step.step_id, "step_started_turn": step.started, "text": text})
            return
        self.emit({"type": "substitution", "turn": turn, "step_target": step.target, "landed_target": recorded})
        step.substitutions += 1
        if step.substitutions >= 2:
            self.status(turn, "COMMITMENT_STEP", step.step_id, "ACTIVE", "BLOCKED", "substituted twice")
            dropped = [s for s in self.queue if s.commit_id == step.commit_id]
            for s in dropped[1:]:
                self.status(turn, "COMMITMENT_STEP", s.step_id, "PENDING", "ABANDONED", "commitment revised")
            self.queue = [s for s in self.queue if s.commit_id != step.commit_id]

    # -- episode ---------------------------------------------------------------------------------
    async def run(self) -> None:
        """Play one episode of `horizon` beats after the initial RESET."""
        self.emit({"type": "startup_probe", "turn": 0, "image_receipt_ok": None,
                   "signal_vocab": ["score", "level"],
                   "action_interface": {"ACTION6": {"x": [0, SIZE - 1], "y": [0, SIZE - 1]},
                                        "untargeted": [a for a in ACTIONS if a != "ACTION6"]}})
        self.emit({"type": "goal", "turn": 0, "goal_id": self.mint("G"), "version": 1, "statement": "win the game",
                   "provenance": "SEEDED"})
        self.goals["G0001"] = GoalRow("win the game", "ACTIVE")
        self.status(0, "GOAL", "G0001", None, "ACTIVE", "seeded")
        digest = self.world.frame_digest()
        self.emit({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE" if self.cfg.agenda else "SHADOW",
                   "source_stamp": "RESET", "pre_frame_sha256": digest, "post_frame_sha256": digest})
        await self.observe(0)
        # offline byte-identity check: with no plan, the agenda-on and agenda-off views are rendered
        zones = self.surveyor_view(0, {})
        self.capture(0, "SURVEYOR", 0, zones, shadow=False)
        self.capture(0, "SURVEYOR", 0, zones, shadow=True)
        for turn in range(1, self.cfg.horizon + 1):
            self.turn = turn
            await self.observe(turn)
            if turn % EPOCH == 1:
                await self.survey(turn)
            await self.act(turn)


@dataclass
class BareAgent:
    """The BARE comparator: one scripted 'LLM' call per action, no store, no plan."""

    seed_label: str
    world_seed: int
    emit: Emit
    horizon: int = 150
    turn: int = field(default=0, init=False)
    """The beat being played."""
    world: MicroWorld | None = field(default=None, init=False)
    """The environment, once the episode started."""

    async def run(self) -> None:
        """Play one episode."""
        world = self.world = MicroWorld(self.world_seed)
        rng = random.Random(int.from_bytes(hashlib.sha256(f"BARE|{self.seed_label}".encode()).digest()[:8], "big"))
        self.emit({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
        digest = world.frame_digest()
        self.emit({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
                   "pre_frame_sha256": digest, "post_frame_sha256": digest})
        for turn in range(1, self.horizon + 1):
            self.turn = turn
            await self._beat(world, rng, turn)

    async def _beat(self, world: MicroWorld, rng: random.Random, turn: int) -> None:
        """One call (`decide`), then the action it chose."""
        action, params, render, source = await self.decide(world, rng, turn)
        pre = world.frame_digest()
        world.step(action, params["x"] if params else None, params["y"] if params else None)
        self.emit({"type": "beat", "turn": turn, "action": action, "params": params, "drift_ref": "LIVE",
                   "source_stamp": source, "render_tokens": render,
                   "level_counter": world.level_counter, "score": world.score, "pre_frame_sha256": pre,
                   "post_frame_sha256": world.frame_digest()})

    async def decide(self, world: MicroWorld, rng: random.Random,
                     turn: int) -> tuple[str, dict[str, int] | None, int, str]:
        """The organ hook: (action, click parameters, render tokens, source stamp) after the call's `llm_call` row.

        This scripted stand-in clicks a random non-background cell or plays a random untargeted action.
        """
        grid = world.grid()
        render = math.ceil(len(world.frame_text()) / 4)
        self.emit({"type": "llm_call", "turn": turn, "organ": "BASELINE", "prompt_tokens": 1200 + render + 30 * turn,
                   "completion_tokens": 90, "render_tokens": render, "ops_accepted": 1})
        params: dict[str, int] | None = None
        if rng.random() < 0.5:
            cells = sorted((x, y) for y, row in enumerate(grid) for x, v in enumerate(row) if v)
            x, y = rng.choice(cells)
            params = {"x": x, "y": y}
            action = "ACTION6"
        else:
            action = rng.choice([a for a in ACTIONS if a != "ACTION6"])
        return action, params, render, "ACTUATOR_LLM"


__all__ = ["AgentConfig", "BareAgent", "Choice", "ObserverOp", "ScriptedAgent"]
