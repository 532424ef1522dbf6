"""Regression tests from the agent-track / results-pipeline review (each failed before its fix)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from agent_helpers import click, context, llm, make_run, referent, scored, startup

from checker.agent.scorer import cell_tables, score_run
from checker.format.logio import RunLogWriter

STEP = [
    {"type": "commitment", "turn": 0, "commit_id": "C1", "goal_id": "G1"},
    {"type": "plan_step", "turn": 0, "commit_id": "C1", "step_id": "S1", "step_ord": 0, "kind": "INTERACT",
     "target_ref": "R1", "action": "ACTION6"},
]


def _events(binds: int, beats: int = 4, *, probe: bool = True, render: int = 10) -> list[dict[str, Any]]:
    """`beats` live clicks on step S1 (target R1); the first `binds` of them land on the background."""
    out = ([startup()] if probe else []) + [referent(0, "R1", [[1, 1]]), *STEP]
    for t in range(1, beats + 1):
        out.append(llm(t, "SURVEYOR", ops_accepted=2, prompt_tokens=100))
        out += [{"type": "relevance_edge", "turn": t, "goal_id": "G1", "target_kind": "REFERENT", "target_id": "R1"}
                for _ in range(2)]  # what the two accepted proposals wrote (issue 29: accepted ops are checked)
        x = 9 if t <= binds else 1
        # each run sees its own frames: runs differing in one click would be near-copies (issue 29)
        frame = hashlib.sha256(f"{binds}/{beats}/{probe}/{render}/{t}".encode()).hexdigest()[:16]
        out.append(click(t, x, 1, step_id="S1", target_ref="R1", render_tokens=render, post_frame_hash=frame))
    return out


def _submission(root: Path, sid: str, cells: dict[str, Any], runs: list[dict[str, Any]],
                claims: list[dict[str, Any]] | None = None) -> Path:
    folder = root / sid
    (folder / "runs").mkdir(parents=True)
    prereg = yaml.safe_dump({"format_version": "1.0", "submission_id": sid, "track": "agent",
                             "profile": "driftboard", "cells": cells}, sort_keys=True).encode()
    (folder / "prereg.yaml").write_bytes(prereg)
    files = []
    for i, run in enumerate(runs):
        name = f"runs/r{i}.jsonl"
        files.append(name)
        log = RunLogWriter(folder / name, {
            "run_id": f"{sid}-{i}", "submission_id": sid, "track": "agent", "cell": run["cell"],
            "seed": run["seed"], "backbone": "toy", "prereg_sha256": hashlib.sha256(prereg).hexdigest(),
            "started_at": "2026-11-01T00:00:00Z", "comparator": run.get("comparator", False)})
        for ev in run["events"]:
            log.write(ev)
        if run.get("end", True):
            log.end("COMPLETED", "done")
        log.close()
    (folder / "submission.yaml").write_text(yaml.safe_dump({
        "format_version": "1.0", "id": sid, "title": "T", "authors": [{"name": "A"}], "contact": "a@example.org",
        "track": "agent", "system": "toy", "backbone": "toy", "license": "CC-BY-4.0",
        "harness": {"name": "h", "version": "1", "commit": "0123abcd"}, "files": files, "claims": claims or []}))
    return folder


def _verify(run_line, root: Path, out: Path, sid: str) -> tuple[Any, dict[str, Any]]:
    result = run_line(["verify", str(root / sid), "--out", str(out), "--no-cache"])
    return result, json.loads((out / f"{sid}.json").read_text())


def _cell(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["cells"] if c["cell"] == name)


def test_run_cannot_exempt_itself_from_the_gate_by_claiming_comparator(tmp_path, run_line):
    # an INVALID run (no startup probe, render ceiling breached) self-labelled comparator in a gated cell
    _submission(tmp_path, "s-bypass", {"FULL": {"seeds": ["s1", "s2"]}}, [
        {"cell": "FULL", "seed": "s1", "events": _events(0)},
        {"cell": "FULL", "seed": "s2", "events": _events(4, probe=False, render=99999), "comparator": True},
    ], claims=[{"cell": "FULL", "metric": "valid_runs", "value": 2}])
    result, doc = _verify(run_line, tmp_path, tmp_path / "res", "s-bypass")
    bad = next(r for r in doc["runs"] if r["seed"] == "s2")
    assert bad["verdict"] == "INVALID"
    assert {"line": 1, "field": "comparator", "recorded": True, "recomputed": False} \
        .items() <= next(m for m in bad["mismatches"] if m["field"] == "comparator").items()
    full = _cell(doc, "FULL")
    assert full["valid_runs"] == 1
    assert full["metrics"]["gds_bind"]["values"] == {"s1": 0}
    assert result.exit_code == 1
    assert "claim FULL/valid_runs: claimed 2, recomputed 1.0" in result.output


def test_declared_comparator_cell_still_exempts_its_runs(tmp_path):
    ok = make_run(tmp_path / "ok", [startup(), llm(1, "BASELINE", prompt_tokens=10)], comparator=True, cell="BARE")
    assert scored(ok, context(cells={"BARE": {"seeds": ["s1"], "comparator": True}}))["verdict"] == "COMPARATOR"
    run = make_run(tmp_path, [llm(1, "BASELINE", prompt_tokens=10)], comparator=True, cell="BARE")
    gated = scored(run, context())  # BARE not declared: the run's own flag is not enough
    assert gated["verdict"] == "INVALID" and gated["comparator"] is False


def test_repeated_seed_keeps_every_run_and_is_a_problem(tmp_path, run_line):
    _submission(tmp_path, "s-dup", {"FULL": {"seeds": ["s1", "s2"]}}, [
        {"cell": "FULL", "seed": "s1", "events": _events(0)},
        {"cell": "FULL", "seed": "s1", "events": _events(2)},
        {"cell": "FULL", "seed": "s2", "events": _events(1)},
    ])
    result, doc = _verify(run_line, tmp_path, tmp_path / "res", "s-dup")
    agg = _cell(doc, "FULL")["metrics"]["gds_bind"]
    assert (agg["n"], agg["n_defined"]) == (3, 3)  # no run silently replaced by another with the same label
    assert agg["values"] == {"s1": 0, "s1 (2)": 0.5, "s2": 0.25}
    assert agg["mean"] == 0.25
    assert _cell(doc, "FULL")["tables"]["seeds"] == {"s1": "VALID", "s1 (2)": "VALID", "s2": "VALID"}
    assert result.exit_code == 1
    assert "cell FULL, seed s1: 2 runs carry this seed label" in result.output


def test_agent_cells_pool_rates_over_reference_beats(tmp_path, run_line):
    _submission(tmp_path, "s-pool", {"FULL": {"seeds": ["s1", "s2"]}}, [
        {"cell": "FULL", "seed": "s1", "events": _events(1, beats=2)},   # bind 1/2
        {"cell": "FULL", "seed": "s2", "events": _events(0, beats=8)},   # bind 0/8
    ])
    result, doc = _verify(run_line, tmp_path, tmp_path / "res", "s-pool")
    assert result.exit_code == 0
    agg = _cell(doc, "FULL")["metrics"]["gds_bind"]
    assert agg["mean"] == 0.25
    assert (agg["pooled"], agg["pooled_num"], agg["pooled_den"]) == (0.1, 1.0, 10.0)


def test_incomplete_comparator_run_is_incomplete_and_left_out_of_parity(tmp_path):
    cells = {"FULL": {"seeds": ["s1"]}, "BARE": {"seeds": ["b1", "b2"], "comparator": True}}
    ctx = context(cells=cells)
    full = score_run(make_run(tmp_path, [startup(), llm(1, "OBSERVER", prompt_tokens=100)], name="f.jsonl"), ctx)
    done = score_run(make_run(tmp_path, [startup(), *(llm(t, "BASELINE", prompt_tokens=100) for t in range(4))],
                              name="b1.jsonl",
                              comparator=True, cell="BARE", seed="b1"), ctx)
    cut = score_run(make_run(tmp_path, [llm(1, "BASELINE", prompt_tokens=100)], name="b2.jsonl", end=False,
                             comparator=True, cell="BARE", seed="b2"), ctx)
    assert cut.verdict == "INCOMPLETE" and cut.gate_verdict == "INVALID"  # gated like any run (no startup row)
    assert cut.reasons[0] == "run has no run_end event: INCOMPLETE"
    tables = {cell: t.model_dump(mode="json") for cell, t in cell_tables([full, done, cut]).items()}
    assert tables["FULL"]["parity"]["calls"] == 0.25  # 1 call / 4 (the truncated comparator run is not counted)
    # a comparator cell's table counts its COMPARATOR runs (not "0 valid")
    assert tables["BARE"]["valid"] == 1
    assert tables["BARE"]["llm_calls"]["per_seed"] == [4]


def test_empty_nonce_is_not_echoed_by_every_output(tmp_path):
    # recorded as not echoed; recomputing "" in text must not turn a deaf organ into a passing one
    echoes = [{"type": "canary_echo", "turn": 1, "organ": "SURVEYOR", "call_idx": 3, "zone": "Z2", "nonce": "",
               "echoed": False, "output_text": "ignored the prompt"} for _ in range(5)]
    res = scored(make_run(tmp_path, [startup(), *echoes]), context())
    assert res["gate"]["canary_echo"]["rates"] == {"Z2": 0.0}
    assert res["verdict"] == "INVALID"


def test_a_read_never_verifies_a_milestone_by_default(tmp_path):
    events = [startup(), {"type": "beat", "turn": 1, "action": "ACTION1", "drift_ref": "LIVE"},
              {"type": "evidence", "turn": 1, "kind": "read", "irreversible": True, "subject": "README"},
              {"type": "milestone_claim", "turn": 2, "claim_id": "c1"}]
    res = scored(make_run(tmp_path, events), context())
    assert res["milestones"][0]["status"] == "DECLARED_ONLY"
    assert res["metrics"]["milestones_verified"] == 0


def test_a_later_failed_startup_probe_fails_the_driftboard_gate():
    from checker.agent.gate import startup_probe
    from checker.agent.replay import AgentState
    from checker.format.schema.agent import StartupProbe

    state = AgentState()
    state.startup = StartupProbe(seq=1, prev="0" * 64, type="startup_probe", image_receipt_ok=True)
    state.startup_failed = True  # a second probe reported false
    assert startup_probe.evaluate(state, "driftboard").status == "FAIL"
    assert startup_probe.evaluate(state, "arg-v1.0").status == "PASS"  # ARG reads its one (first) row
