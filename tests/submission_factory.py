"""Build small, valid agent-track submissions on disk for pipeline tests (through RunLogWriter)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from checker.format.logio import RunLogWriter


def make_agent_submission(
    root: Path,
    sid: str,
    cells: dict[str, list[str]],
    runs: list[tuple[str, str]] | None = None,
    *,
    completions: dict[tuple[str, str], int] | None = None,
    defeaters: list[dict] | None = None,
    claims: list[dict] | None = None,
    header_prereg: dict[tuple[str, str], str] | None = None,
    title: str | None = None,
    withdrawn: dict[str, dict[str, str]] | None = None,
    game_id: str | None = None,
    prices: dict | None = None,
) -> Path:
    """A submission folder: prereg declares `cells` (name -> seeds); `runs` (default: all declared).

    `game_id`: the world the run headers name (None: none, so no cell has a board). `prices`: the manifest's
    declared prices (None: none). Every run header names the backbone `toy`; each run makes 4 LLM calls of 500
    prompt and 50 completion tokens.
    """
    folder = root / sid
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    prereg = {
        "format_version": "1.0", "submission_id": sid, "track": "agent", "profile": "driftboard",
        "cells": {name: {"seeds": seeds, "flags": {"ARG_JOIN": "0"} if "J0" in name else {},
                         **({"withdrawn": withdrawn[name]} if withdrawn and name in withdrawn else {})}
                  for name, seeds in cells.items()},
        "horizon": 20,
        "defeaters": defeaters if defeaters is not None else [
            {"id": "zero-completions", "text": "~0 completions", "metric": "completions", "op": "<=", "value": 0}
        ],
    }
    prereg_bytes = yaml.safe_dump(prereg, sort_keys=True).encode()
    (folder / "prereg.yaml").write_bytes(prereg_bytes)
    digest = hashlib.sha256(prereg_bytes).hexdigest()
    runs = runs if runs is not None else [(c, s) for c, seeds in cells.items() for s in seeds]
    files = []
    for cell, seed in runs:
        name = f"runs/{cell.lower()}-{seed}.jsonl"
        files.append(name)
        level = (completions or {}).get((cell, seed), 0)
        start = {
            "run_id": f"{sid}-{cell}-{seed}", "submission_id": sid, "track": "agent", "cell": cell, "seed": seed,
            "backbone": "toy", "prereg_sha256": (header_prereg or {}).get((cell, seed), digest),
            "started_at": "2026-11-01T00:00:00Z", "horizon": 20, **({"game_id": game_id} if game_id else {}),
        }
        with RunLogWriter(folder / name, start) as log:
            log.write({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
            # each run sees its own first frame: runs with identical events would be copies (checker.stages.copies)
            log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
                       "post_frame_hash": hashlib.sha256(f"{sid}/{cell}/{seed}".encode()).hexdigest()[:16]})
            log.write({"type": "referent", "turn": 0, "ref_id": "R0001", "version": 1, "kind": "percept-cluster",
                       "anchor_cells": [[1, 1], [1, 2]]})
            log.write({"type": "commitment", "turn": 1, "commit_id": "C0001", "goal_id": "G0001"})
            log.write({"type": "plan_step", "turn": 1, "commit_id": "C0001", "step_id": "C0001-S0", "step_ord": 0,
                       "kind": "INTERACT", "target_ref": "R0001", "action": "ACTION6"})
            for turn in range(1, 5):
                log.write({"type": "llm_call", "turn": turn, "organ": "SURVEYOR", "prompt_tokens": 500,
                           "completion_tokens": 50, "render_tokens": 300, "ops_accepted": 2})
                for _ in range(2):  # what the two accepted Surveyor proposals wrote (issue 29: counts are checked)
                    log.write({"type": "relevance_edge", "turn": turn, "goal_id": "G0001", "target_kind": "REFERENT",
                               "target_id": "R0001"})
                # each beat sees its own frame: runs differing in one event would be near-copies (issue 29)
                log.write({"type": "beat", "turn": turn, "action": "ACTION6", "params": {"x": 1, "y": 2},
                           "target_ref": "R0001", "step_id": "C0001-S0", "drift_ref": "LIVE",
                           "source_stamp": "COMMITMENT_STEP", "level_counter": min(level, turn),
                           "post_frame_hash": hashlib.sha256(f"{sid}/{cell}/{seed}/{turn}".encode()).hexdigest()[:16]})
            for k in range(level):
                log.write({"type": "level", "turn": 4, "level_counter": k + 1, "score": k + 1})
    # titles are unique across submissions (principle 3, tests/test_identity.py)
    manifest = {
        "format_version": "1.0", "id": sid, "title": title if title is not None else f"Factory submission {sid}",
        "authors": [{"name": "Ada Example"}],
        "contact": "ada@example.org", "track": "agent", "system": "toy", "backbone": "toy",
        "harness": {"name": "factory", "version": "1.0", "commit": "0123abcd"}, "license": "CC-BY-4.0",
        "files": files, "claims": claims or [], **({"prices": prices} if prices is not None else {}),
    }
    (folder / "submission.yaml").write_text(yaml.safe_dump(manifest, sort_keys=True))
    return folder
