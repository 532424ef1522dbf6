"""Build small agent-track run logs with `RunLogWriter` for unit tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from checker.format.schema.manifest import Prereg
from checker.pipeline.run_log import read_run
from checker.stages.tracks import RunRecord, VerifyContext

SHA = "0" * 64


def run_start(**over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "run_id": "t/r1", "submission_id": "t", "track": "agent", "cell": "FULL", "seed": "s1",
        "backbone": "test/model", "prereg_sha256": SHA, "started_at": "2026-01-01T00:00:00Z",
    }
    fields.update(over)
    return fields


def write_log(path: Path, events: list[dict[str, Any]], *, end: bool = True, **start: Any) -> Path:
    """Write a chained run log; `end=False` leaves it without run_end (INCOMPLETE)."""
    from checker.format.logio import RunLogWriter

    log = RunLogWriter(path, run_start(**start))
    for ev in events:
        log.write(ev)
    if end:
        log.end("COMPLETED", "horizon reached")
    log.close()
    return path


def make_run(tmp_path: Path, events: list[dict[str, Any]], name: str = "r1.jsonl", **kw: Any) -> RunRecord:
    """Write the events and read them back as the pipeline would."""
    path = write_log(tmp_path / name, events, **kw)
    return read_run(path, path.name)


def context(profile: str = "driftboard", *, cells: dict[str, Any] | None = None, **thresholds: Any) -> VerifyContext:
    prereg = Prereg.model_validate({
        "format_version": "1.0", "submission_id": "t", "track": "agent", "profile": profile,
        "cells": cells or {"FULL": {"seeds": ["s1"]}}, "thresholds": thresholds,
    })
    return VerifyContext(profile=profile, prereg=prereg)


def beat(turn: int, action: str = "ACTION1", **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "beat", "turn": turn, "action": action, "drift_ref": "LIVE"}
    ev.update(kw)
    return ev


def click(turn: int, x: int, y: int, **kw: Any) -> dict[str, Any]:
    return beat(turn, "ACTION6", params={"x": x, "y": y}, **kw)


def referent(turn: int, ref_id: str, cells: list[list[int]], version: int = 1) -> dict[str, Any]:
    return {"type": "referent", "turn": turn, "ref_id": ref_id, "version": version, "kind": "percept-cluster",
            "anchor_cells": cells}


def status(turn: int, kind: str, entity: str, to: str, reason: str | None = None) -> dict[str, Any]:
    return {"type": "status", "turn": turn, "entity_kind": kind, "entity_id": entity, "to_status": to,
            "reason": reason}


def startup(ok: bool | None = None) -> dict[str, Any]:
    return {"type": "startup_probe", "turn": 0, "image_receipt_ok": ok}


def llm(turn: int, organ: str, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "llm_call", "turn": turn, "organ": organ}
    ev.update(kw)
    return ev


def reject(turn: int, organ: str, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "write_reject", "turn": turn, "organ": organ}
    ev.update(kw)
    return ev


def echo(turn: int, zone: str, call_idx: int, echoed: bool, organ: str = "SURVEYOR", **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "canary_echo", "turn": turn, "organ": organ, "call_idx": call_idx, "zone": zone,
                          "nonce": f"ZQ{turn:04d}{call_idx:04d}", "echoed": echoed}
    ev.update(kw)
    return ev


def plan_step(step_id: str, target: str | None, action: str | None, turn: int = 0, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "plan_step", "turn": turn, "commit_id": step_id.split("-")[0], "step_id": step_id,
                          "step_ord": 0, "kind": "INTERACT", "target_ref": target, "action": action}
    ev.update(kw)
    return ev


def scored(run: RunRecord, ctx: VerifyContext) -> dict[str, Any]:
    """`score_run` of the agent track, as the JSON the results file stores for the run."""
    from checker.agent.scorer import score_run

    return score_run(run, ctx).model_dump(mode="json")
