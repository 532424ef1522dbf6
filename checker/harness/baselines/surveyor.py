"""The scripted agent's Surveyor: every `EPOCH` beats, canaries, proposals (with noise and one retry), then the agenda.

One Surveyor call reads its view (zones Z1..Z6, salted in Z2, Z3 and Z6), then proposes, in
this order: an effect rule for each referent a recent observation scored or levelled on (only a
referent the view names: bound rows with the join on, plan-step targets with the agenda on),
the score goal, a DEFICIT milestone goal (find the level trigger), and relevance rankings of
the two least-tried visible referents. Each proposal is rejected with the configured noise
(a `write_reject` row) and retried once; an echo that misses a canary is a MISSING_CANARY
reject. With the agenda on and the plan empty it then compiles a commitment (`compile`).
"""

from __future__ import annotations

from collections.abc import Callable

from checker.harness.baselines.agent_state import LEASE, AgentState, Delta, GoalRow, RuleRow, Step

Proposal = tuple[str, Callable[[], None]]
"""(op type, what accepting it does)."""


class Surveyor(AgentState):
    """The Surveyor organ and the agenda's compiler, on the agent's state."""

    async def survey(self, turn: int) -> None:
        """Surveyor epoch: canaries, proposals (with noise and one retry), then compilation.

        The organ hook of the Surveyor: this scripted stand-in proposes from the evidence and draws its
        rejections from the seeded RNG; `checker.harness.inspect_task.agent_harness` asks a model instead.
        """
        self.calls["SURVEYOR"] += 1
        idx = self.calls["SURVEYOR"]
        salts = {z: self.nonce() for z in ("Z2", "Z3", "Z6")}
        zones = self.surveyor_view(turn, salts)
        render = self.capture(turn, "SURVEYOR", idx, zones, shadow=not self.cfg.agenda)
        for zone, nonce in salts.items():
            self.emit({"type": "canary_salt", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "zone": zone,
                       "nonce": nonce})
        ops = self._proposals(turn)
        first = [(op, fn, self.rng.random() < self.cfg.surveyor_noise) for op, fn in ops]
        deaf = {z for z in salts if self.rng.random() < self.cfg.canary_deafness}
        acks = ", ".join(f'"{n}"' for z, n in salts.items() if z not in deaf)
        output = f'{{"proposals": {len(ops)}, "acks": [{acks}]}}'
        self.emit({"type": "llm_call", "turn": turn, "organ": "SURVEYOR", "call_idx": idx,
                   "prompt_tokens": render + 1400, "completion_tokens": 80 + 60 * len(ops), "render_tokens": render,
                   "ops_accepted": sum(1 for _, _, bad in first if not bad),
                   "ops_rejected": sum(1 for _, _, bad in first if bad)})
        self._echoes(turn, idx, salts, output)
        retry = self._accept(turn, first)
        if retry:
            self._retry(turn, idx, render, retry)
        if self.cfg.agenda and not self.queue:
            self.compile(turn)

    def _proposals(self, turn: int) -> list[Proposal]:
        """Rules from the pending observations (which are then read), goals, relevance rankings."""
        visible = self.visible_refs()
        ops = self._rule_proposals(turn, visible)
        self.pending = []
        if (self.score_rule() or ops) and self.score_goal is None:
            ops.append(("PROPOSE_GOAL", lambda: self._add_goal(turn, "raise the score", "SURVEYOR")))
        if self.score_goal and self.deficit_goal is None and not self.level_rule():
            ops.append(("PROPOSE_GOAL", lambda: self._add_deficit(turn)))
        ranked = sorted(visible, key=lambda r: (self.tried_ref.get(r, 0), len(self.refs[r].cells), r))[:2]
        for rid in ranked:
            ops.append(("RANK_TIEBREAK", self._relevance_adder(turn, rid)))
        return ops

    def _rule_proposals(self, turn: int, visible: set[str]) -> list[Proposal]:
        """A score rule and a level rule per visible referent a pending observation scored or levelled on."""
        ops: list[Proposal] = []
        seen: set[tuple[str, str]] = set()
        for p in self.pending:
            if p.ref is None or p.ref not in visible or self.refs[p.ref].dormant:
                continue
            if p.score_event and not self.has_rule(p.ref, "score_event") and (p.ref, "s") not in seen:
                seen.add((p.ref, "s"))
                effect: Delta = {"score_event": 1, "cells_changed": "nonzero"}
                ops.append(("PROPOSE_RULE", self._rule_adder(turn, p.ref, effect)))
            if p.level_event and not self.has_rule(p.ref, "level_event") and (p.ref, "l") not in seen:
                seen.add((p.ref, "l"))
                ops.append(("PROPOSE_RULE", self._rule_adder(turn, p.ref, {"level_event": 1})))
        return ops

    def _echoes(self, turn: int, idx: int, salts: dict[str, str], output: str) -> None:
        """One canary_echo per salted zone; a nonce missing from the output is a MISSING_CANARY reject."""
        for zone, nonce in salts.items():
            echoed = nonce in output
            self.emit({"type": "canary_echo", "turn": turn, "organ": "SURVEYOR", "call_idx": idx, "zone": zone,
                       "nonce": nonce, "echoed": echoed, "output_text": output})
            if not echoed:
                self.emit({"type": "write_reject", "turn": turn, "organ": "SURVEYOR", "op_type": "CANARY",
                           "violation_class": "MISSING_CANARY", "retry_count": 0})

    def _accept(self, turn: int, first: list[tuple[str, Callable[[], None], bool]]) -> list[Proposal]:
        """Apply the accepted proposals in order; reject the others (returned, to retry)."""
        retry: list[Proposal] = []
        for op_type, apply, bad in first:
            if bad:
                self.emit({"type": "write_reject", "turn": turn, "organ": "SURVEYOR", "op_type": op_type,
                           "violation_class": self.rng.choice(["OUT_OF_SCHEMA", "DUPLICATE", "DANGLING_REF"]),
                           "retry_count": 0})
                retry.append((op_type, apply))
            else:
                apply()
        return retry

    def _retry(self, turn: int, idx: int, render: int, retry: list[Proposal]) -> None:
        """The one retry call: each rejected proposal is accepted, or rejected for good."""
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

    # -- what accepting a proposal does ---------------------------------------------------------
    def _rule_adder(self, turn: int, ref: str, effect: Delta) -> Callable[[], None]:
        def apply() -> None:
            if self.has_rule(ref, next(k for k in effect if k != "cells_changed")):
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
        self.goals[gid] = GoalRow(statement, "ACTIVE")
        self.score_goal = gid
        self.emit({"type": "goal", "turn": turn, "goal_id": gid, "version": 1, "parent_goal": "G0001",
                   "statement": statement, "provenance": provenance})
        self.status(turn, "GOAL", gid, None, "PROPOSED", "surveyor proposal")
        self.status(turn, "GOAL", gid, "PROPOSED", "ACTIVE", "admitted")

    def _add_deficit(self, turn: int) -> None:
        if self.deficit_goal is not None:
            return
        gid = self.mint("G")
        self.goals[gid] = GoalRow("find the level trigger", "ACTIVE")
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
        goal, steps = self._plan()
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

    def _plan(self) -> tuple[str, list[tuple[str, str, Delta, str | None]]]:
        """(goal, steps as (kind, target, predicted delta, rule)): score twice then find or trigger the level, else probe."""
        rule = self.score_rule()
        if rule is None or rule.target is None or self.score_goal is None:
            cands = sorted(self.current_refs(), key=lambda r: (self.tried_ref[r.ref_id], len(r.cells), r.ref_id))[:2]
            return "G0001", [("PROBE", r.ref_id, {"cells_changed": "nonzero"}, None) for r in cands]
        steps: list[tuple[str, str, Delta, str | None]] = [("INTERACT", rule.target, {"score_event": 1}, rule.rule_id)] * 2
        level = self.level_rule()
        if level is not None and level.target is not None:
            steps.append(("INTERACT", level.target, {"level_event": 1}, level.rule_id))
        else:
            others = [r for r in self.current_refs() if r.ref_id != rule.target]
            cand = min(others, key=lambda r: (self.tried_ref[r.ref_id], len(r.cells), r.ref_id))
            steps.append(("PROBE", cand.ref_id, {"level_event": 1}, None))
        return self.score_goal, steps

    def shadow_step(self) -> str | None:
        """The step the agenda would compile now (`goal|action|target|rule`), or None."""
        rule: RuleRow | None = self.score_rule()
        if rule is None or rule.target is None or self.score_goal is None:
            return None
        return f"{self.score_goal}|ACTION6|{rule.target}|{rule.rule_id}"


__all__ = ["Surveyor"]
