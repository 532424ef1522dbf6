"""Synthetic agent run logs, written through `RunLogWriter`.

`generate(path, beats)` writes a valid, internally consistent run of `beats` beats (about 6.3
events a beat; it passes every evidence cross-check and the gate), used by `driftboard bench
agent --synthetic`, by `bench scale`'s agent half and by the tests; `generate_adversarial`
writes issue 15's adversarial landing shape (many referents on one cell, clicked again and again).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from checker.format.logio import RunLogWriter


def generate(path: Path, beats: int, header: dict[str, Any] | None = None) -> int:
    """Write a synthetic, valid agent run of `beats` beats; returns the number of events.

    `header` overrides fields of the `run_start` event (run id, submission, cell, seed, prereg digest).
    The run is internally consistent, so it exercises every evidence cross-check and passes them all
    (VALID, 0 mismatches; `tests/test_bench_scale.py`): the startup probe declares ACTION6 targeted
    (every click carries x, y inside its ranges), each live beat's second receipt is registered for
    the step it executes (predictor STEP), shadow steps name the log's goal, target and rule, every
    echo's nonce is its salt's, and the calls' `ops_rejected` add up to the reject rows.
    """
    start = {"run_id": f"bench-agent-{beats}", "submission_id": "bench", "track": "agent", "cell": "FULL",
             "seed": "s1", "backbone": "synthetic", "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z",
             **(header or {})}
    n = 0
    with RunLogWriter(path, start) as log:

        def w(ev: dict[str, Any]) -> None:
            nonlocal n
            log.write(ev)
            n += 1

        w({"type": "startup_probe", "turn": 0, "signal_vocab": ["score", "level"],
           "action_interface": {"ACTION6": {"x": [0, 63], "y": [0, 63]}}})
        for r in range(40):
            x, y = (r * 7) % 60, (r * 3) % 60
            w({"type": "referent", "turn": 0, "ref_id": f"R{r:04d}", "version": 1, "kind": "percept-cluster",
               "anchor_cells": [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]})
        w({"type": "plan_step", "turn": 0, "commit_id": "C0001", "step_id": "C0001-S0", "step_ord": 0,
           "kind": "INTERACT", "target_ref": "R0003", "action": "ACTION6", "premises": [["RULE", "RU0001"]]})
        w({"type": "rule", "turn": 0, "rule_id": "RU0001", "ctx": {"action": "ACTION6", "target": "R0003"},
           "effect": {"score_event": 1}})
        w({"type": "goal_binding", "goal_id": "G0001", "ref_id": "R0003"})
        w({"type": "goal", "turn": 0, "goal_id": "G0001", "statement": "synthetic"})
        # each run's own first frame: runs with identical events would be copies (checker.stages.copies)
        first_frame = hashlib.sha256(str(start["run_id"]).encode()).hexdigest()[:16]
        hash_seed = int(first_frame, 16)
        w({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
           "post_frame_hash": first_frame})
        for t in range(1, beats + 1):
            ref = f"R{t % 40:04d}"
            r = t % 40
            x, y = (r * 7) % 60, (r * 3) % 60
            live = t % 3 == 0
            w({"type": "beat", "turn": t, "action": "ACTION6", "params": {"x": x, "y": y}, "target_ref": ref,
               "step_id": "C0001-S0" if live else None,
               "shadow_step_id": None if live else f"G0001|ACTION6|R{(t + 1) % 40:04d}|RU0001",
               "drift_ref": "LIVE" if live else "SHADOW", "source_stamp": "COMMITMENT_STEP" if live else "PROBE",
               "render_tokens": 400 + t % 50, "match": t % 2, "level_counter": t // 1000, "score": t // 500,
               # each run sees its own frames: runs differing in one event would be near-copies (issue 29)
               "post_frame_hash": f"{(hash_seed + t * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF:016x}"})
            w({"type": "receipt", "turn": t, "action": "ACTION6", "target_ref": ref, "context_class": "CC0001",
               "observed": {"cells_changed": 4}})
            w({"type": "receipt", "turn": t, "action": "ACTION6", "target_ref": ref, "context_class": "CC0001",
               "predicted": {"cells_changed": "nonzero"}, "observed": {"cells_changed": 4}, "match": 1,
               "predictor_id": "C0001-S0" if live else "RU0001", "predictor_kind": "STEP" if live else "RULE"})
            w({"type": "status", "turn": t, "entity_kind": "REFERENT_RUNG", "entity_id": ref, "to_status": "ENGAGED"})
            if t % 4 == 0:
                w({"type": "referent", "turn": t, "ref_id": ref, "version": 1 + t // 4, "kind": "percept-cluster",
                   "anchor_cells": [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]})
            if t % 5 == 0:
                for zone in ("Z2", "Z3", "Z6"):
                    w({"type": "canary_salt", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "nonce": f"ZQ{t:08x}"})
                w({"type": "llm_call", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "prompt_tokens": 900 + t % 97,
                   "completion_tokens": 120, "render_tokens": 800, "ops_accepted": 3, "ops_rejected": int(t % 50 == 0)})
                for k in range(3):  # what the three accepted proposals wrote (issue 29: accepted ops are checked)
                    w({"type": "relevance_edge", "turn": t, "goal_id": "G0001", "target_kind": "REFERENT",
                       "target_id": f"R{(t + k) % 40:04d}"})
                for zone in ("Z2", "Z3", "Z6"):
                    w({"type": "canary_echo", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "nonce": f"ZQ{t:08x}", "echoed": True})
                    w({"type": "render_capture", "turn": t, "organ": "SURVEYOR", "call_idx": t // 5, "zone": zone,
                       "view_sha256": f"{t:064x}", "view_bytes": 3000, "render_tokens": 700})
            if t % 50 == 0:
                w({"type": "write_reject", "turn": t, "organ": "SURVEYOR", "op_type": "PROPOSE_GOAL",
                   "violation_class": "OUT_OF_SCHEMA"})
                w({"type": "milestone_claim", "turn": t, "claim_id": f"M{t}", "step_id": "C0001-S0"})
        log.end("COMPLETED", "horizon reached")
    return n + 2


def generate_adversarial(path: Path, referents: int, clicks: int) -> int:
    """Write a run whose `referents` referents all contain cell (5, 5), clicked `clicks` times; returns events."""
    start = {"run_id": f"bench-adversarial-{referents}x{clicks}", "submission_id": "bench", "track": "agent",
             "cell": "FULL", "seed": "s1", "backbone": "synthetic", "prereg_sha256": "0" * 64,
             "started_at": "2026-11-01T00:00:00Z"}
    with RunLogWriter(path, start) as log:
        log.write({"type": "startup_probe", "turn": 0})
        for r in range(referents):
            log.write({"type": "referent", "turn": 0, "ref_id": f"R{r:05d}", "version": 1, "kind": "region",
                       "anchor_cells": [[5, 5], [6 + r % 50, 5]]})
        for t in range(1, clicks + 1):
            log.write({"type": "beat", "turn": t, "action": "ACTION6", "params": {"x": 5, "y": 5},
                       "drift_ref": "LIVE", "source_stamp": "PROBE"})
        log.end("COMPLETED", "horizon reached")
    return referents + clicks + 3
