"""ARG rows -> canonical agent events (arg-spec.md §a): one function per table or group of tables.

State store: `turn_record` -> beat, `referent` + `locator_gridregion` -> referent, `goal`,
`goal_binding`, `goal_edge`, `rule`, `commitment`, `commitment_step` + `step_premise` ->
plan_step, `relevance_edge`, `deficit_stamp`, `consequence_record` -> receipt, `write_reject`,
`substitution_caught` -> substitution, `status_transition` -> status. Probe store:
`startup_probe`, `api_log` (a comparator's beats), `llm_calls`, `zcr_salt`, `zcr_echo`,
`render_capture` (the view text is kept as its SHA-256 and byte length), `scorecards` -> level.

Every event is queued with its turn and a priority (`EventQueue`): events are ordered by beat,
and within a beat the beat comes first and the rows written while processing it follow, table
by table in the priority order below (that is what lets replay recompute a click's landing
against the referents known *before* the action). Tables are read in a fixed order, so the
first bad value met, and the error that names it, do not depend on anything but the stores.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from checker.format.logio import sha256_hex
from checker.importers.arg_store import RunRows, grid_cells, int_or, json_object, json_value, organ

Fields = dict[str, object]
"""One event's fields as handed to `RunLogWriter.write` (which validates them against the event models)."""


class EventQueue:
    """Collects (turn, priority, order, fields) and gives the events back in log order."""

    def __init__(self) -> None:
        self.items: list[tuple[int, int, int, Fields]] = []

    def add(self, turn: int, prio: int, fields: Fields) -> None:
        """Queue one event of `turn` (its `turn` field is set here)."""
        fields["turn"] = turn
        self.items.append((turn, prio, len(self.items), fields))

    def sorted(self) -> list[Fields]:
        """The events by (turn, priority, order queued)."""
        return [p for _, _, _, p in sorted(self.items, key=lambda t: t[:3])]


def state_events(ev: EventQueue, conn: sqlite3.Connection, rid: str, path: Path) -> None:
    """Queue the events of run `rid` from the state store."""
    q = RunRows(conn, rid, path)
    _beats(ev, q)
    _referents(ev, q)
    _goals(ev, q)
    _rules(ev, q)
    _commitments(ev, q)
    _relevance_and_deficits(ev, q)
    _receipts(ev, q)
    _rejects_and_substitutions(ev, q)
    _statuses(ev, q)


def probe_events(ev: EventQueue, conn: sqlite3.Connection, rid: str, path: Path, comparator: bool) -> None:
    """Queue the events of run `rid` from the probe store (a comparator's beats come from `api_log`)."""
    q = RunRows(conn, rid, path)
    _startup(ev, q)
    if comparator:
        _api_beats(ev, q)
    _llm_calls(ev, q)
    _canaries(ev, q)
    _render_captures(ev, q)
    _scorecards(ev, q)


# -- state store ---------------------------------------------------------------------------------
def _beats(ev: EventQueue, q: RunRows) -> None:
    for r in q("turn_record", "SELECT * FROM turn_record WHERE run_id=? ORDER BY turn_id"):
        params = json_value(r["params_json"])
        ev.add(int_or(r["turn_id"]), 0, {
            "type": "beat", "action": r["action"],
            "params": params if isinstance(params, dict) else None,
            "target_ref": r["target_ref"], "step_id": r["commitment_step_id"],
            "shadow_step_id": r["shadow_step_id"], "drift_ref": r["drift_ref"],
            "source_stamp": r["source_stamp"], "render_tokens": int_or(r["render_tokens"]),
            "match": r["match"], "level_counter": int_or(r["level_counter"]), "score": int_or(r["score"]),
            "lives": r["lives"], "pre_frame_hash": r["pre_frame_hash"], "post_frame_hash": r["post_frame_hash"],
        })


def _referents(ev: EventQueue, q: RunRows) -> None:
    cells: dict[str, list[list[int]]] = {}
    for r in q("locator_gridregion", "SELECT locator_id, cells_json FROM locator_gridregion WHERE run_id=?"):
        cells[r["locator_id"]] = grid_cells(r["cells_json"], q.path, r["locator_id"])
    for r in q("referent", "SELECT * FROM referent WHERE run_id=? ORDER BY rowid"):
        ev.add(int_or(r["created_turn"]), 1, {
            "type": "referent", "ref_id": r["ref_id"], "version": int_or(r["version"], 1), "kind": r["kind"] or "",
            "anchor_cells": cells.get(r["anchor_locator_id"], []), "signature": r["signature"],
            "provenance": r["provenance"] or "OBSERVER_BIND",
        })


def _goals(ev: EventQueue, q: RunRows) -> None:
    """Goals, then their bindings (at the goal's turn) and edges."""
    goal_turns: dict[tuple[str, int], int] = {}
    for r in q("goal", "SELECT * FROM goal WHERE run_id=? ORDER BY rowid"):
        goal_turns[(r["goal_id"], int_or(r["version"], 1))] = int_or(r["created_turn"])
        ev.add(int_or(r["created_turn"]), 2, {
            "type": "goal", "goal_id": r["goal_id"], "version": int_or(r["version"], 1), "parent_goal": r["parent_goal"],
            "statement": r["statement"], "provenance": r["provenance"],
        })
    for r in q("goal_binding", "SELECT * FROM goal_binding WHERE run_id=? ORDER BY rowid"):
        version = int_or(r["goal_version"], 1)
        ev.add(goal_turns.get((r["goal_id"], version), 0), 3, {
            "type": "goal_binding", "goal_id": r["goal_id"], "goal_version": version, "ref_id": r["ref_id"],
        })
    for r in q("goal_edge", "SELECT * FROM goal_edge WHERE run_id=? ORDER BY rowid"):
        ev.add(int_or(r["created_turn"]), 4, {
            "type": "goal_edge", "parent_goal": r["parent_goal"], "child_goal": r["child_goal"],
            "verified": bool(r["verified"]),
        })


def _rules(ev: EventQueue, q: RunRows) -> None:
    for r in q("rule", "SELECT * FROM rule WHERE run_id=? ORDER BY rowid"):
        ev.add(int_or(r["created_turn"]), 5, {
            "type": "rule", "rule_id": r["rule_id"], "version": int_or(r["version"], 1), "template": r["template"],
            "ctx": json_object(r["ctx_pred_json"]) or {}, "effect": json_object(r["effect_pattern_json"]) or {},
            "scope": r["scope"], "ttl_turn": r["ttl_turn"],
        })


def _commitments(ev: EventQueue, q: RunRows) -> None:
    """Commitments, then their steps (at the step's compilation turn, else the commitment's) with their premises."""
    commit_turns: dict[tuple[str, int], int] = {}
    for r in q("commitment", "SELECT * FROM commitment WHERE run_id=? ORDER BY rowid"):
        turn = int_or(r["compiled_turn"] if r["compiled_turn"] is not None else r["created_turn"])
        commit_turns[(r["commit_id"], int_or(r["version"], 1))] = turn
        ev.add(turn, 6, {
            "type": "commitment", "commit_id": r["commit_id"], "version": int_or(r["version"], 1),
            "goal_id": r["goal_id"], "procedure_id": r["procedure_id"],
        })
    premises: dict[tuple[str, int, str], list[list[str]]] = {}
    for r in q("step_premise", "SELECT * FROM step_premise WHERE run_id=? ORDER BY rowid"):
        key = (r["commit_id"], int_or(r["commit_version"], 1), r["step_id"])
        premises.setdefault(key, []).append([str(r["member_kind"]), str(r["member_id"])])
    for r in q("commitment_step", "SELECT * FROM commitment_step WHERE run_id=? ORDER BY rowid"):
        version = int_or(r["commit_version"], 1)
        turn = r["compilation_turn_id"]
        ev.add(int_or(turn) if turn is not None else commit_turns.get((r["commit_id"], version), 0), 7, {
            "type": "plan_step", "commit_id": r["commit_id"], "commit_version": version, "step_id": r["step_id"],
            "step_ord": int_or(r["step_ord"]), "kind": r["kind"] or "", "target_ref": r["target_ref"],
            "action": r["action"], "premises": premises.get((r["commit_id"], version, r["step_id"]), []),
            "predicted_delta": json_object(r["predicted_delta_json"]), "lease_max_beats": r["lease_max_beats"],
        })


def _relevance_and_deficits(ev: EventQueue, q: RunRows) -> None:
    for r in q("relevance_edge", "SELECT * FROM relevance_edge WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 8, {
            "type": "relevance_edge", "goal_id": r["goal_id"], "target_kind": r["target_kind"],
            "target_id": r["target_id"],
        })
    for r in q("deficit_stamp", "SELECT * FROM deficit_stamp WHERE run_id=? ORDER BY seq"):
        holes = json_value(r["holes_json"])
        ev.add(int_or(r["turn_id"]), 9, {
            "type": "deficit_stamp", "goal_id": r["goal_id"],
            "holes": holes if isinstance(holes, dict) or (
                isinstance(holes, list) and all(isinstance(h, dict) for h in holes)) else None,
        })


def _receipts(ev: EventQueue, q: RunRows) -> None:
    for r in q("consequence_record", "SELECT * FROM consequence_record WHERE run_id=? ORDER BY turn_id, seq"):
        ev.add(int_or(r["turn_id"]), 10, {
            "type": "receipt", "action": r["action"], "target_ref": r["target_ref"],
            "context_class": r["context_class_id"], "predicted": json_object(r["predicted_delta_json"]),
            "observed": json_object(r["observed_delta_json"]), "match": r["match"], "predictor_id": r["predictor_id"],
            "predictor_kind": r["predictor_kind"], "score_event": 1 if r["score_event"] else 0,
            "level_event": 1 if r["level_event"] else 0, "life_event": 1 if r["life_event"] else 0,
        })


def _rejects_and_substitutions(ev: EventQueue, q: RunRows) -> None:
    for r in q("write_reject", "SELECT * FROM write_reject WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 11, {
            "type": "write_reject", "organ": organ(r["organ"], q.path), "op_type": r["op_type"],
            "violation_class": r["violation_class"], "retry_count": int_or(r["retry_count"]),
        })
    for r in q("substitution_caught", "SELECT * FROM substitution_caught WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 12, {
            "type": "substitution", "step_target": r["step_target"], "landed_target": r["landed_target"],
        })


def _statuses(ev: EventQueue, q: RunRows) -> None:
    for r in q("status_transition", "SELECT * FROM status_transition WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 13, {
            "type": "status", "entity_kind": r["entity_kind"], "entity_id": r["entity_id"],
            "from_status": r["from_status"], "to_status": r["to_status"], "reason": r["reason"],
        })


# -- probe store ---------------------------------------------------------------------------------
def _startup(ev: EventQueue, q: RunRows) -> None:
    for r in q("startup_probe", "SELECT * FROM startup_probe WHERE run_id=?"):
        ok = r["image_receipt_ok"]
        vocab = json_value(r["signal_vocab_json"])
        ev.add(0, -1, {
            "type": "startup_probe", "image_receipt_ok": None if ok is None else bool(ok),
            "signal_vocab": sorted(vocab) if isinstance(vocab, dict) else vocab if isinstance(vocab, list) else None,
            "action_interface": json_object(r["action_interface_json"]),
        })


def _api_beats(ev: EventQueue, q: RunRows) -> None:
    for r in q("api_log", "SELECT * FROM api_log WHERE run_id=? ORDER BY turn_id, step_id"):
        ev.add(int_or(r["turn_id"]), 0, {
            "type": "beat", "action": r["action"], "source_stamp": r["source_stamp"],
            "level_counter": int_or(r["levels_completed"]), "score": int_or(r["score"]),
        })


def _llm_calls(ev: EventQueue, q: RunRows) -> None:
    for r in q("llm_calls", "SELECT * FROM llm_calls WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 20, {
            "type": "llm_call", "organ": organ(r["organ"], q.path), "call_idx": int_or(r["call_idx"]),
            "retry_count": int_or(r["retry_count"]), "prompt_tokens": int_or(r["prompt_tokens"]),
            "completion_tokens": int_or(r["completion_tokens"]), "reasoning_tokens": int_or(r["reasoning_tokens"]),
            "render_tokens": int_or(r["render_tokens"]), "ops_accepted": int_or(r["ops_accepted"]),
            "ops_rejected": int_or(r["ops_rejected"]),
        })


def _canaries(ev: EventQueue, q: RunRows) -> None:
    for r in q("zcr_salt", "SELECT * FROM zcr_salt WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 21, {
            "type": "canary_salt", "organ": organ(r["organ"], q.path), "call_idx": int_or(r["call_idx"]),
            "zone": str(r["zone_tier"]), "nonce": str(r["nonce"]),
        })
    for r in q("zcr_echo", "SELECT * FROM zcr_echo WHERE run_id=? ORDER BY seq"):
        ev.add(int_or(r["turn_id"]), 22, {
            "type": "canary_echo", "organ": organ(r["organ"], q.path), "call_idx": int_or(r["call_idx"]),
            "zone": str(r["zone_tier"]), "nonce": str(r["nonce"]), "echoed": bool(r["echoed"]),
        })


def _render_captures(ev: EventQueue, q: RunRows) -> None:
    for r in q("render_capture", "SELECT * FROM render_capture WHERE run_id=? ORDER BY rowid"):
        view = r["view_bytes"]
        data = view if isinstance(view, bytes) else str(view if view is not None else "").encode("utf-8")
        ev.add(int_or(r["turn_id"]), 23, {
            "type": "render_capture", "organ": organ(r["organ"], q.path) if r["organ"] else None,
            "call_idx": int_or(r["call_idx"]), "zone": str(r["zone_tier"]), "view_sha256": sha256_hex(data),
            "view_bytes": len(data), "render_tokens": int_or(r["render_tokens"]), "shadow": bool(r["shadow_flag"]),
        })


def _scorecards(ev: EventQueue, q: RunRows) -> None:
    for r in q("scorecards", "SELECT * FROM scorecards WHERE run_id=? ORDER BY seq"):
        card = json_object(r["scorecard_json"]) or {}
        ev.add(int_or(r["turn_id"]), 24, {
            "type": "level", "level_counter": max(int_or(card.get("levels_completed")), 0),
            "score": int_or(card.get("score")),
        })


__all__ = ["EventQueue", "Fields", "probe_events", "state_events"]
