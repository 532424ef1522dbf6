"""The agent-track reference submission: the scripted micro-world agent, FULL/J0/A0/J0A0 x 3 + BARE.

The factorial crosses the binding join (ARG_JOIN) with the agenda (ARG_AGENDA). Replicate
`sK` plays the same world seed in every cell (paired design), so cells differ only by the
switches. Two runs carry a documented defect on purpose, so the launch leaderboard shows what
the checker does with them:

* `FULL/s3` runs with a noisy Surveyor (`SURVEYOR_NOISE_NOISY` proposal-error rate): the gate's
  write-error-rate condition makes it INVALID;
* `J0/s2` runs with a harness that records the step's cited target as the landing whenever the
  click fell inside the target's (stale) plan-time cells: the recorded `target_ref` then
  disagrees with geometry, and the checker reports attribution mismatches.
"""

from __future__ import annotations

import functools
from pathlib import Path

from checker.harness.baselines.common import AUTHOR, CONTACT, LICENSE, Emit, SubmissionWriter, harness, run_sync, started_at
from checker.harness.baselines.scripted_agent import AgentConfig, BareAgent, ScriptedAgent

SUBMISSION_ID = "driftboard-microworld-agent"
GAME_ID = "driftboard-microworld-v1"
BACKBONE = "scripted (no LLM)"
HORIZON = 150
SEEDS = {"s1": 101, "s2": 202, "s3": 303}
"""Replicate label -> micro-world seed (the same world in every cell)."""
CELLS = {
    "FULL": {},
    "J0": {"ARG_JOIN": "0"},
    "A0": {"ARG_AGENDA": "0"},
    "J0A0": {"ARG_JOIN": "0", "ARG_AGENDA": "0"},
}
SURVEYOR_NOISE_NOISY = 0.45
NOISY_RUN = ("FULL", "s3")
BELIEVED_LANDING_RUN = ("J0", "s2")
BARE_SEED = "s1"


def config(cell: str, seed: str) -> AgentConfig:
    """The agent configuration of one (cell, seed) run."""
    flags = CELLS[cell]
    return AgentConfig(
        cell=cell, seed_label=seed, world_seed=SEEDS[seed], join=flags.get("ARG_JOIN") != "0",
        agenda=flags.get("ARG_AGENDA") != "0", horizon=HORIZON,
        surveyor_noise=SURVEYOR_NOISE_NOISY if (cell, seed) == NOISY_RUN else 0.06,
        records_believed_landing=(cell, seed) == BELIEVED_LANDING_RUN,
    )


def prereg() -> dict[str, object]:
    """The pre-registration of the agent reference submission."""
    cells: dict[str, dict[str, object]] = {
        name: {"flags": dict(flags), "seeds": list(SEEDS), "comparator": False,
               "description": desc}
        for (name, flags), desc in zip(CELLS.items(), (
            "binding join and agenda on", "binding join off (plan targets are not re-joined to current versions)",
            "agenda off (every beat a deterministic probe; shadow steps stamped)", "both off"), strict=True)
    }
    cells["BARE"] = {"flags": {}, "seeds": [BARE_SEED], "comparator": True,
                     "description": "one scripted call per action, no store, no plan (compute parity only)"}
    return {
        "format_version": "1.0",
        "submission_id": SUBMISSION_ID,
        "track": "agent",
        "profile": "driftboard",
        "cells": cells,
        "horizon": HORIZON,
        "thresholds": {"render_ceiling_B": 6000, "wer_floor": 0.25, "wer_min_ops": 5, "canary_floor": 0.9,
                       "canary_warmup": 2},
        "defeaters": [
            {"id": "zero-completions", "text": "~0 completions across all valid runs", "metric": "completions",
             "op": "<=", "value": 0},
        ],
        "predictions": [
            {"id": "a0-raises-abandon", "text": "switching the agenda off raises GDS-abandon over FULL",
             "metric": "gds_abandon", "cell": "A0", "op": ">", "versus": "FULL"},
            {"id": "j0-raises-bind", "text": "switching the binding join off raises GDS-bind over FULL",
             "metric": "gds_bind", "cell": "J0", "op": ">", "versus": "FULL"},
        ],
    }


def _play(cfg: AgentConfig, emit: Emit) -> None:
    run_sync(ScriptedAgent(cfg, emit).run())


def _play_bare(emit: Emit) -> None:
    run_sync(BareAgent(BARE_SEED, SEEDS[BARE_SEED], emit, HORIZON).run())


def write(out: Path) -> Path:
    """Write the submission folder into `out`; returns its path."""
    sub = SubmissionWriter(out, SUBMISSION_ID, prereg())
    n = 0
    for cell, flags in CELLS.items():
        for seed in SEEDS:
            n += 1
            cfg = config(cell, seed)
            start = {"run_id": f"{SUBMISSION_ID}-{cell.lower()}-{seed}", "track": "agent", "cell": cell,
                     "seed": seed, "flags": dict(flags), "backbone": BACKBONE, "started_at": started_at(n),
                     "horizon": HORIZON, "game_id": GAME_ID}
            sub.run(f"runs/{cell.lower()}-{seed}.jsonl", start, functools.partial(_play, cfg))
    start = {"run_id": f"{SUBMISSION_ID}-bare-{BARE_SEED}", "track": "agent", "cell": "BARE", "seed": BARE_SEED,
             "flags": {}, "backbone": BACKBONE, "started_at": started_at(n + 1), "comparator": True,
             "horizon": HORIZON, "game_id": GAME_ID}
    sub.run(f"runs/bare-{BARE_SEED}.jsonl", start, _play_bare)
    sub.manifest({
        "title": "Driftboard micro-world reference agent (synthetic baseline)",
        "authors": [dict(AUTHOR)],
        "contact": CONTACT,
        "track": "agent",
        "system": "driftboard scripted micro-world agent",
        "backbone": BACKBONE,
        "harness": harness(),
        "license": LICENSE,
        "synthetic": True,
        "description": (
            "Synthetic reference baseline generated by `driftboard baselines`; no LLM is involved. A scripted "
            "ARG-style agent (Observer/Surveyor/Actuator stand-ins, commitment store, binding join) plays a "
            "deterministic 24x24 grid micro-world (nested board/tray/ring objects, a key, a switch, decoys). "
            "Cells FULL/J0/A0/J0A0 x seeds s1-s3 play the same worlds; BARE is a one-call-per-action comparator. "
            f"Deliberate defects: {NOISY_RUN[0]}/{NOISY_RUN[1]} uses a noisy Surveyor (proposal error rate "
            f"{SURVEYOR_NOISE_NOISY}); {BELIEVED_LANDING_RUN[0]}/{BELIEVED_LANDING_RUN[1]} uses a harness that "
            "records the cited target as the landing when the click was inside its plan-time cells. "
            "No figure in these logs is a drift figure: the checker derives every number."
        ),
    })
    return sub.root


__all__ = ["CELLS", "SEEDS", "SUBMISSION_ID", "config", "prereg", "write"]
