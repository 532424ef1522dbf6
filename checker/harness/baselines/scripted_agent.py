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
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from checker.harness.baselines.microworld import ACTIONS, SIZE, MicroWorld

EPOCH = 8
"""Beats between Surveyor calls."""
OBSERVER_CANARY_EVERY = 8
"""The Observer is salted when its call counter is a multiple of this."""
LEASE = 20

Emit = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class AgentConfig:
    """One run's configuration."""

    cell: str
    seed_label: str
    world_seed: int
    join: bool = True
    agenda: bool = True
    horizon: int = 150
    observer_noise: float = 0.03
    """Chance that one Observer bind op is rejected (then retried once)."""
    surveyor_noise: float = 0.06
    """Chance that one Surveyor proposal is rejected (then retried once)."""
    actuator_noise: float = 0.05
    """Chance that the Actuator's first click proposal falls outside the cited referent."""
    canary_deafness: float = 0.015
    """Chance that the Surveyor's output omits one zone's canary nonce."""
    records_believed_landing: bool = False
    """Harness defect: record the step's cited target when the click was inside its (stale) cells."""


@dataclass
class RefRow:
    """A referent as the agent's store holds it."""

    ref_id: str
    oid: str
    kind: str
    colour: int
    cells: frozenset[tuple[int, int]]
    version: int = 1
    dormant: bool = False
    rung: str = "ANCHORED"


@dataclass
class RuleRow:
    """An effect hypothesis."""

    rule_id: str
    action: str
    target: str | None
    effect: dict[str, Any]
    status: str = "PROPOSED"
    matches: int = 0


@dataclass
class Step:
    """A compiled plan step."""

    step_id: str
    commit_id: str
    kind: str
    target: str
    cells_at_compile: frozenset[tuple[int, int]]
    predicted: dict[str, Any]
    goal_id: str
    rule_id: str | None
    last: bool = False
    substitutions: int = 0
    started: int | None = None


@dataclass
class Pending:
    """An observation the Surveyor has not read yet."""

    turn: int
    action: str
    ref: str | None
    score_event: int
    level_event: int


@dataclass
class ScriptedAgent:
    """Runs one episode in a fresh micro-world and emits its events."""

    cfg: AgentConfig
    emit: Emit
    world: MicroWorld = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.world = MicroWorld(self.cfg.world_seed)
        digest = hashlib.sha256(f"{self.cfg.cell}|{self.cfg.seed_label}".encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))
        self.counters: dict[str, int] = {}
        self.refs: dict[str, RefRow] = {}
        self.by_oid: dict[str, str] = {}
        self.rules: dict[str, RuleRow] = {}
        self.goals: dict[str, dict[str, Any]] = {}
        self.queue: list[Step] = []
        self.plan_targets: set[str] = set()
        self.pending: list[Pending] = []
        self.tried_action: dict[str, int] = {a: 0 for a in ACTIONS}
        self.tried_ref: dict[str, int] = {}
        self.calls: dict[str, int] = {"OBSERVER": 0, "SURVEYOR": 0, "ACTUATOR": 0}
        self.score_goal: str | None = None
        self.deficit_goal: str | None = None
        self.level_rule_refs: set[str] = set()

    # -- helpers ------------------------------------------------------------------------
    def mint(self, prefix: str) -> str:
        """Next id for a prefix, zero-padded to width 4 (ARG's minting)."""
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return f"{prefix}{n:04d}"

    def nonce(self) -> str:
        """A canary nonce, `ZQ` + 8 hex."""
        return "ZQ" + f"{self.rng.getrandbits(32):08x}"

    def status(self, turn: int, kind: str, entity: str, old: str | None, new: str, reason: str | None = None) -> None:
        """Emit a status transition."""
        self.emit({"type": "status", "turn": turn, "entity_kind": kind, "entity_id": entity,
                   "from_status": old, "to_status": new, "reason": reason})

    def current_refs(self) -> list[RefRow]:
        """Current, non-dormant referents in id order."""
        return [r for r in self.refs.values() if not r.dormant]

    def landing(self, x: int, y: int) -> str | None:
        """The harness's landing: smallest current non-dormant referent containing (x, y)."""
        best: RefRow | None = None
        for r in self.refs.values():
            if r.dormant or (x, y) not in r.cells:
                continue
            if best is None or len(r.cells) < len(best.cells):
                best = r
        return best.ref_id if best else None

    # -- rendering ------------------------------------------------------------------------
    def frame_text(self) -> str:
        """Z2: the frame as 24 rows of hex digits."""
        return "\n".join("".join(f"{v:x}" for v in row) for row in self.world.grid())

    def roster(self, rows: list[RefRow]) -> str:
        """Z6: referent rows."""
        out = []
        for r in rows:
            xs = [c[0] for c in r.cells]
            ys = [c[1] for c in r.cells]
            out.append(f"{r.ref_id} v{r.version} {r.kind} colour={r.colour} n={len(r.cells)} "
                       f"bbox=({min(xs)},{min(ys)})-({max(xs)},{max(ys)}) rung={r.rung}")
        return "\n".join(out)

    def surveyor_view(self, turn: int, salts: dict[str, str]) -> dict[str, str]:
        """The Surveyor's zones Z1..Z6 (salts appended to their zones)."""
        visible = self.visible_refs()
        zones = {
            "Z1": f"beat {turn}/{self.cfg.horizon}; level {self.world.level_counter}; score {self.world.score}",
            "Z2": "goals:\n" + "\n".join(f"{g} {d['statement']} [{d['status']}]" for g, d in self.goals.items()),
            "Z3": "recent:\n" + "\n".join(
                f"t{p.turn} {p.action} -> {p.ref if p.ref in visible else '?'} score+{p.score_event} "
                f"level+{p.level_event}" for p in self.pending[-12:]),
            "Z4": "rules:\n" + "\n".join(
                f"{r.rule_id} {r.action}@{r.target or '-'} => {r.effect} [{r.status}]" for r in self.rules.values()),
            "Z5": "plan:\n" + "\n".join(f"{s.step_id} {s.kind} ACTION6@{s.target}" for s in self.queue),
            "Z6": "referents:\n" + self.roster([self.refs[r] for r in sorted(visible)]),
        }
        for zone, salt in salts.items():
            zones[zone] += f"\n[canary {salt}]"
        return zones

    def visible_refs(self) -> set[str]:
        """Referents the Surveyor can name: bound rows (join) or plan-step targets (agenda)."""
        visible: set[str] = set()
        if self.cfg.join:
            visible |= {r.ref_id for r in self.current_refs()}
        if self.cfg.agenda:
            visible |= {t for t in self.plan_targets if not self.refs[t].dormant}
        return visible

    def capture(self, turn: int, organ: str, call_idx: int, zones: dict[str, str], shadow: bool) -> int:
        """Emit one render_capture per zone; returns the view's render tokens (ceil(chars / 4))."""
        total = 0
        for zone, text in zones.items():
            data = text.encode()
            tokens = math.ceil(len(text) / 4)
            total += len(text)
            self.emit({"type": "render_capture", "turn": turn, "organ": organ, "call_idx": call_idx, "zone": zone,
                       "view_sha256": hashlib.sha256(data).hexdigest(), "view_bytes": len(data),
                       "render_tokens": tokens, "shadow": shadow})
        return math.ceil(total / 4)

    # -- organs -----------------------------------------------------------------------------
    def observe(self, turn: int) -> None:
        """Observer: sync the store with the frame (mint, re-version, dormant)."""
        ops: list[tuple[str, Any]] = []
        live_oids = set(self.world.objects)
        for oid, obj in self.world.objects.items():
            rid = self.by_oid.get(oid)
            if rid is None:
                ops.append(("MINT", obj))
            elif self.refs[rid].cells != obj.cells:
                ops.append(("MOVE", obj))
        for oid, rid in sorted(self.by_oid.items()):
            if oid not in live_oids and not self.refs[rid].dormant:
                ops.append(("DORMANT", rid))
        if not ops:
            return
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
        for op, payload in ops:
            if op == "DORMANT":
                rid = payload
                self.refs[rid].dormant = True
                self.status(turn, "REFERENT_LIFE", rid, "LIVE", "DORMANT", "vanished from the frame")
                continue
            obj = payload
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

    def survey(self, turn: int) -> None:
        """Surveyor epoch: canaries, proposals (with noise and one retry), then compilation."""
        self.calls["SURVEYOR"] += 1
        idx = self.calls["SURVEYOR"]
        salts = {z: self.nonce() for z in ("Z2", "Z3", "Z6")}
        zones = self.surveyor_view(turn, salts)
        render = self.capture(turn, "SURVEYOR", idx, zones, shadow=not self.cfg.agenda)
        for zone, nonce in salts.items():
            self.emit({"type": "canary_salt", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "zone": zone,
                       "nonce": nonce})
        visible = self.visible_refs()
        ops: list[tuple[str, Callable[[], None]]] = []
        seen: set[tuple[str, str]] = set()
        for p in self.pending:
            if p.ref is None or p.ref not in visible or self.refs[p.ref].dormant:
                continue
            if p.score_event and not self._has_rule(p.ref, "score_event") and (p.ref, "s") not in seen:
                seen.add((p.ref, "s"))
                effect = {"score_event": 1, "cells_changed": "nonzero"}
                ops.append(("PROPOSE_RULE", self._rule_adder(turn, p.ref, effect)))
            if p.level_event and not self._has_rule(p.ref, "level_event") and (p.ref, "l") not in seen:
                seen.add((p.ref, "l"))
                ops.append(("PROPOSE_RULE", self._rule_adder(turn, p.ref, {"level_event": 1})))
        self.pending = []
        if (self._score_rule() or ops) and self.score_goal is None:
            ops.append(("PROPOSE_GOAL", lambda: self._add_goal(turn, "raise the score", "SURVEYOR")))
        if self.score_goal and self.deficit_goal is None and not self._level_rule():
            ops.append(("PROPOSE_GOAL", lambda: self._add_deficit(turn)))
        ranked = sorted(visible, key=lambda r: (self.tried_ref.get(r, 0), len(self.refs[r].cells), r))[:2]
        for rid in ranked:
            ops.append(("RANK_TIEBREAK", self._relevance_adder(turn, rid)))
        first = [(op, fn, self.rng.random() < self.cfg.surveyor_noise) for op, fn in ops]
        deaf = {z for z in salts if self.rng.random() < self.cfg.canary_deafness}
        acks = ", ".join(f'"{n}"' for z, n in salts.items() if z not in deaf)
        output = f'{{"proposals": {len(ops)}, "acks": [{acks}]}}'
        self.emit({"type": "llm_call", "turn": turn, "organ": "SURVEYOR", "call_idx": idx,
                   "prompt_tokens": render + 1400, "completion_tokens": 80 + 60 * len(ops), "render_tokens": render,
                   "ops_accepted": sum(1 for _, _, bad in first if not bad),
                   "ops_rejected": sum(1 for _, _, bad in first if bad)})
        for zone, nonce in salts.items():
            echoed = nonce in output
            self.emit({"type": "canary_echo", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "zone": zone,
                       "nonce": nonce, "echoed": echoed, "output_text": output})
            if not echoed:
                self.emit({"type": "write_reject", "turn": turn, "organ": "SURVEYOR", "op_type": "CANARY",
                           "violation_class": "MISSING_CANARY", "retry_count": 0})
        retry: list[tuple[str, Callable[[], None]]] = []
        for op_type, apply, bad in first:
            if bad:
                self.emit({"type": "write_reject", "turn": turn, "organ": "SURVEYOR", "op_type": op_type,
                           "violation_class": self.rng.choice(["OUT_OF_SCHEMA", "DUPLICATE", "DANGLING_REF"]),
                           "retry_count": 0})
                retry.append((op_type, apply))
            else:
                apply()
        if retry:
            second = [(op, fn, self.rng.random() < self.cfg.surveyor_noise) for op, fn in retry]
            self.emit({"type": "llm_call", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "retry_count": 1,
                       "prompt_tokens": render + 1500, "completion_tokens": 60 * len(retry), "render_tokens": render,
                       "ops_accepted": sum(1 for _, _, bad in second if not bad),
                       "ops_rejected": sum(1 for _, _, bad in second if bad)})
            for op_type, apply, bad in second:
                if bad:
                    self.emit({"type": "write_reject", "turn": turn, "organ": "SURVEYOR", "op_type": op_type,
                               "violation_class": "OUT_OF_SCHEMA", "retry_count": 1})
                else:
                    apply()
        if self.cfg.agenda and not self.queue:
            self.compile(turn)

    # Internal builders ------------------------------------------------------------------
    def _has_rule(self, ref: str, effect: str) -> bool:
        return any(r.target == ref and r.effect.get(effect) == 1 for r in self.rules.values())

    def _level_rule(self) -> RuleRow | None:
        for r in self.rules.values():
            if r.target and not self.refs[r.target].dormant and r.effect.get("level_event") == 1 and r.status != "DEMOTED":
                return r
        return None

    def _score_rule(self) -> RuleRow | None:
        for r in self.rules.values():
            if r.target and not self.refs[r.target].dormant and r.effect.get("score_event") == 1 and r.status != "DEMOTED":
                return r
        return None

    def _rule_adder(self, turn: int, ref: str, effect: dict[str, Any]) -> Callable[[], None]:
        def apply() -> None:
            if self._has_rule(ref, next(k for k in effect if k != "cells_changed")):
                return
            rid = self.mint("RU")
            self.rules[rid] = RuleRow(rid, "ACTION6", ref, effect)
            self.emit({"type": "rule", "turn": turn, "rule_id": rid, "version": 1, "template": "CLICK_EFFECT",
                       "ctx": {"action": "ACTION6", "target": ref, "when": None}, "effect": effect,
                       "scope": "WITHIN_LIFE"})
            self.status(turn, "RULE", rid, None, "PROPOSED", "surveyor proposal")
        return apply

    def _add_goal(self, turn: int, statement: str, provenance: str) -> None:
        if self.score_goal is not None:
            return
        gid = self.mint("G")
        self.goals[gid] = {"statement": statement, "status": "ACTIVE"}
        self.score_goal = gid
        self.emit({"type": "goal", "turn": turn, "goal_id": gid, "version": 1, "parent_goal": "G0001",
                   "statement": statement, "provenance": provenance})
        self.status(turn, "GOAL", gid, None, "PROPOSED", "surveyor proposal")
        self.status(turn, "GOAL", gid, "PROPOSED", "ACTIVE", "admitted")

    def _add_deficit(self, turn: int) -> None:
        if self.deficit_goal is not None:
            return
        gid = self.mint("G")
        self.goals[gid] = {"statement": "find the level trigger", "status": "ACTIVE"}
        self.deficit_goal = gid
        self.emit({"type": "goal", "turn": turn, "goal_id": gid, "version": 1, "parent_goal": "G0001",
                   "statement": "find the level trigger", "provenance": "DEFICIT"})
        self.status(turn, "GOAL", gid, None, "PROPOSED", "deficit milestone")
        self.emit({"type": "deficit_stamp", "turn": turn, "goal_id": "G0001",
                   "holes": [{"missing": "level trigger"}]})
        self.emit({"type": "goal_edge", "turn": turn, "parent_goal": "G0001", "child_goal": gid, "verified": False})

    def _relevance_adder(self, turn: int, rid: str) -> Callable[[], None]:
        def apply() -> None:
            self.emit({"type": "relevance_edge", "turn": turn, "goal_id": self.score_goal or "G0001",
                       "target_kind": "REFERENT", "target_id": rid})
        return apply

    # -- planning -----------------------------------------------------------------------------
    def compile(self, turn: int) -> None:
        """Agenda: compile a commitment (toward the score goal when a targeted rule exists)."""
        rule = self._score_rule()
        steps: list[tuple[str, str, dict[str, Any], str | None]] = []
        if rule is not None and rule.target is not None and self.score_goal is not None:
            goal = self.score_goal
            steps = [("INTERACT", rule.target, {"score_event": 1}, rule.rule_id)] * 2
            level = self._level_rule()
            if level is not None and level.target is not None:
                steps.append(("INTERACT", level.target, {"level_event": 1}, level.rule_id))
            else:
                others = [r for r in self.current_refs() if r.ref_id != rule.target]
                cand = min(others, key=lambda r: (self.tried_ref[r.ref_id], len(r.cells), r.ref_id))
                steps.append(("PROBE", cand.ref_id, {"level_event": 1}, None))
        else:
            goal = "G0001"
            cands = sorted(self.current_refs(), key=lambda r: (self.tried_ref[r.ref_id], len(r.cells), r.ref_id))[:2]
            steps = [("PROBE", r.ref_id, {"cells_changed": "nonzero"}, None) for r in cands]
        cid = self.mint("C")
        self.emit({"type": "commitment", "turn": turn, "commit_id": cid, "version": 1, "goal_id": goal})
        if goal != "G0001":
            for target in sorted({t for _, t, _, _ in steps}):
                self.emit({"type": "goal_binding", "turn": turn, "goal_id": goal, "goal_version": 1, "ref_id": target})
        for k, (kind, target, predicted, rule_id) in enumerate(steps):
            sid = f"{cid}-S{k}"
            premises = [["TARGET_REF", target]] + ([["RULE", rule_id]] if rule_id else [])
            if goal != "G0001":
                premises.append(["GOAL_BINDING", goal])
            self.emit({"type": "plan_step", "turn": turn, "commit_id": cid, "commit_version": 1, "step_id": sid,
                       "step_ord": k, "kind": kind, "target_ref": target, "action": "ACTION6",
                       "premises": premises, "predicted_delta": predicted, "lease_max_beats": LEASE})
            self.status(turn, "COMMITMENT_STEP", sid, None, "PENDING", "compiled")
            self.queue.append(Step(sid, cid, kind, target, self.refs[target].cells, predicted, goal, rule_id,
                                   last=k == len(steps) - 1))
            self.plan_targets.add(target)

    def shadow_step(self) -> str | None:
        """The step the agenda would compile now (`goal|action|target|rule`), or None."""
        rule = self._score_rule()
        if rule is None or rule.target is None or self.score_goal is None:
            return None
        return f"{self.score_goal}|ACTION6|{rule.target}|{rule.rule_id}"

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

    # -- one beat -------------------------------------------------------------------------------
    def act(self, turn: int) -> None:
        """Choose, realise and record one action, then its receipts and lifecycle rows."""
        step: Step | None = None
        while self.cfg.agenda and self.queue:
            head = self.queue[0]
            if self.refs[head.target].dormant:
                self.status(turn, "COMMITMENT_STEP", head.step_id, "PENDING", "BLOCKED", "target dormant")
                self.queue.pop(0)
                continue
            step = head
            break
        render = 0
        params: dict[str, int] | None = None
        shadow: str | None = None
        cited: frozenset[tuple[int, int]] = frozenset()
        if step is not None:
            action = "ACTION6"
            cited = self.refs[step.target].cells if self.cfg.join else step.cells_at_compile
            x, y = self.actuate(turn, step, cited)
            render = math.ceil((len(self.frame_text()) + 80 * (1 if self.cfg.join else 0) + 120) / 4)
            source = "COMMITMENT_STEP"
            if step.started is None:
                step.started = turn
                self.status(turn, "COMMITMENT_STEP", step.step_id, "PENDING", "ACTIVE", "executing")
        else:
            action, px, py = self.probe()
            x, y = (px, py) if px is not None and py is not None else (-1, -1)
            source = "PROBE"
            if not self.cfg.agenda:
                shadow = self.shadow_step()
        if action == "ACTION6":
            params = {"x": x, "y": y}
        self.tried_action[action] += 1
        landed = self.landing(x, y) if params else None
        truth = self.world.land(x, y) if params else None
        if (truth and self.by_oid.get(truth)) != landed:  # pragma: no cover - the store is synced every beat
            raise AssertionError("store and world disagree on a landing")
        recorded = landed
        if step is not None and self.cfg.records_believed_landing and (x, y) in cited:
            recorded = step.target
        if landed is not None:
            self.tried_ref[landed] += 1
        pre = self.world.frame_digest()
        out = self.world.step(action, x if params else None, y if params else None)
        post = self.world.frame_digest()
        observed = {"cells_changed": out.cells_changed, "score_event": out.score_event, "level_event": out.level_event}
        believed_ok = step is not None and recorded == step.target
        step_match = _match(step.predicted, observed) if step is not None and believed_ok else None
        rule_rows = [r for r in self.rules.values() if r.action == action and r.target is not None
                     and r.target == recorded and r.status != "DEMOTED"]
        ordered = sorted(rule_rows, key=lambda r: (r.status != "TESTED", r.rule_id))
        rule_matches = [(r, _match(r.effect, observed)) for r in ordered]
        first = step_match if step_match is not None else (rule_matches[0][1] if rule_matches else None)
        self.emit({"type": "beat", "turn": turn, "action": action, "params": params, "target_ref": recorded,
                   "step_id": step.step_id if step else None, "shadow_step_id": shadow,
                   "drift_ref": "LIVE" if self.cfg.agenda else "SHADOW", "source_stamp": source,
                   "render_tokens": render, "match": first, "level_counter": self.world.level_counter,
                   "score": self.world.score, "pre_frame_sha256": pre, "post_frame_sha256": post})
        self.emit({"type": "receipt", "turn": turn, "action": action, "target_ref": recorded,
                   "context_class": f"CC-{action}", "observed": observed, "score_event": out.score_event,
                   "level_event": out.level_event})
        if step is not None and believed_ok:
            self.emit({"type": "receipt", "turn": turn, "action": action, "target_ref": recorded,
                       "context_class": f"CC-{action}", "predicted": step.predicted, "observed": observed,
                       "match": step_match, "predictor_id": step.step_id, "predictor_kind": "STEP",
                       "score_event": out.score_event, "level_event": out.level_event})
        characterized = False
        for rule, match in rule_matches:
            self.emit({"type": "receipt", "turn": turn, "action": action, "target_ref": recorded,
                       "context_class": f"CC-{action}", "predicted": rule.effect, "observed": observed,
                       "match": match, "predictor_id": rule.rule_id, "predictor_kind": "RULE",
                       "score_event": out.score_event, "level_event": out.level_event})
            if match:
                rule.matches += 1
                if rule.status == "PROPOSED" and rule.matches >= 2:
                    self.status(turn, "RULE", rule.rule_id, "PROPOSED", "TESTED", "two matched predictions")
                    rule.status = "TESTED"
                characterized = characterized or rule.status == "TESTED"
            elif rule.status == "TESTED":
                self.status(turn, "RULE", rule.rule_id, "TESTED", "DEMOTED", "prediction failed")
                rule.status = "DEMOTED"
        if recorded is not None:
            row = self.refs[recorded]
            if row.rung == "ANCHORED":
                self.status(turn, "REFERENT_RUNG", recorded, "ANCHORED", "ENGAGED", "receipt in scope")
                row.rung = "ENGAGED"
            if characterized and row.rung == "ENGAGED":
                self.status(turn, "REFERENT_RUNG", recorded, "ENGAGED", "CHARACTERIZED", "tested rule matched")
                row.rung = "CHARACTERIZED"
        if out.level_event:
            self.emit({"type": "level", "turn": turn, "level_counter": self.world.level_counter, "score": self.world.score})
            self.emit({"type": "evidence", "turn": turn, "kind": "level", "irreversible": True,
                       "subject": "level_counter", "before": str(self.world.level_counter - 1),
                       "after": str(self.world.level_counter)})
            if self.deficit_goal is not None:
                self.status(turn, "GOAL", self.deficit_goal, "PROPOSED", "ACCEPTED", "level event observed")
                self.emit({"type": "goal_edge", "turn": turn, "parent_goal": "G0001", "child_goal": self.deficit_goal,
                           "verified": True})
                self.deficit_goal = None
        if step is not None:
            self.finish_step(turn, step, believed_ok, recorded)
        self.pending.append(Pending(turn, action, recorded, out.score_event, out.level_event))

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
    def run(self) -> None:
        """Play one episode of `horizon` beats after the initial RESET."""
        self.emit({"type": "startup_probe", "turn": 0, "image_receipt_ok": None,
                   "signal_vocab": ["score", "level"],
                   "action_interface": {"ACTION6": {"x": [0, SIZE - 1], "y": [0, SIZE - 1]},
                                        "untargeted": [a for a in ACTIONS if a != "ACTION6"]}})
        self.emit({"type": "goal", "turn": 0, "goal_id": self.mint("G"), "version": 1, "statement": "win the game",
                   "provenance": "SEEDED"})
        self.goals["G0001"] = {"statement": "win the game", "status": "ACTIVE"}
        self.status(0, "GOAL", "G0001", None, "ACTIVE", "seeded")
        digest = self.world.frame_digest()
        self.emit({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE" if self.cfg.agenda else "SHADOW",
                   "source_stamp": "RESET", "pre_frame_sha256": digest, "post_frame_sha256": digest})
        self.observe(0)
        # offline byte-identity check: with no plan, the agenda-on and agenda-off views are rendered
        zones = self.surveyor_view(0, {})
        self.capture(0, "SURVEYOR", 0, zones, shadow=False)
        self.capture(0, "SURVEYOR", 0, zones, shadow=True)
        for turn in range(1, self.cfg.horizon + 1):
            self.observe(turn)
            if turn % EPOCH == 1:
                self.survey(turn)
            self.act(turn)


def _match(predicted: dict[str, Any], observed: dict[str, Any]) -> int:
    """1 when every predicted component holds in the observed delta."""
    for key, want in predicted.items():
        got = observed.get(key, 0)
        if want == "nonzero":
            ok = bool(got)
        elif want == "zero":
            ok = not got
        else:
            ok = got == want
        if not ok:
            return 0
    return 1


@dataclass
class BareAgent:
    """The BARE comparator: one scripted 'LLM' call per action, no store, no plan."""

    seed_label: str
    world_seed: int
    emit: Emit
    horizon: int = 150

    def run(self) -> None:
        """Play one episode."""
        world = MicroWorld(self.world_seed)
        rng = random.Random(int.from_bytes(hashlib.sha256(f"BARE|{self.seed_label}".encode()).digest()[:8], "big"))
        self.emit({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
        digest = world.frame_digest()
        self.emit({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
                   "pre_frame_sha256": digest, "post_frame_sha256": digest})
        for turn in range(1, self.horizon + 1):
            grid = world.grid()
            frame = "\n".join("".join(f"{v:x}" for v in row) for row in grid)
            render = math.ceil(len(frame) / 4)
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
            pre = world.frame_digest()
            world.step(action, params["x"] if params else None, params["y"] if params else None)
            self.emit({"type": "beat", "turn": turn, "action": action, "params": params, "drift_ref": "LIVE",
                       "source_stamp": "ACTUATOR_LLM", "render_tokens": render,
                       "level_counter": world.level_counter, "score": world.score, "pre_frame_sha256": pre,
                       "post_frame_sha256": world.frame_digest()})


__all__ = ["AgentConfig", "BareAgent", "ScriptedAgent"]
