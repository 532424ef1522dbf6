"""Issue 15, item 4: ARG's own undefined values stay undefined, and a run missing from the state store is scored.

* An older state store without the `deficit_stamp` / `goal_edge` tables: ARG reports `deficit_stamps`,
  `deficit_goals`, `edges_verified` and `edges_unverified` as None (arg-spec.md §c.6), not 0.
* A run the probe store knows (`run_config`) but the state store does not, with an id that is not
  one of ARG's baselines (`argbare-` / `argraw-`): ARG's probes still score it (no beats, so counts
  of 0; no startup row, so legibility INVALID). It is imported as a gated run, not as a comparator.

The first part reuses the shared case d_full_r1 (skipped without `DRIFTBOARD_SHARED_DATA`), with
the two tables dropped from a copy of its state store; every other figure must stay ARG's.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import shared_data

from checker.importers.arg import import_submission
from checker.pipeline.verify import verify_paths

CASE = shared_data() / "arg" / "cases" / "d_full_r1"
CHAIN = ("deficit_stamps", "deficit_goals", "edges_verified", "edges_unverified")


def _runs(sub: Path, profile: str = "arg-v1.0") -> list[dict]:
    report = verify_paths([sub], profile=profile)
    assert report.exit_code == 0, [f.render() for f in report.findings]
    (submission,) = report.submissions
    return [r.model_dump(mode="json") for r in submission.runs]


@pytest.mark.skipif(not (CASE / "state.db").exists(),
                    reason=f"ARG case not found at {CASE} (shared data absent; set DRIFTBOARD_SHARED_DATA)")
def test_older_store_without_stamp_and_edge_tables(tmp_path):
    truth = json.loads((CASE / "truth.json").read_text())
    (expected,) = truth["runs"].values()
    state = tmp_path / "state.db"
    shutil.copy(CASE / "state.db", state)
    conn = sqlite3.connect(state)
    conn.executescript("DROP TABLE deficit_stamp; DROP TABLE goal_edge;")
    conn.close()
    assert import_submission(state, CASE / "probe.db", tmp_path / "old") == 0
    (res,) = _runs(tmp_path / "old")
    assert all(res["metrics"][k] is None for k in CHAIN)
    assert all(expected["metrics"][k] is not None for k in CHAIN)  # the full store defines them
    others = {k: v for k, v in expected["metrics"].items() if k not in CHAIN}
    assert {k: res["metrics"][k] for k in others} == others
    assert res["legibility"] == expected["legibility"]


def _store_pair(tmp_path: Path, run_id: str) -> tuple[Path, Path]:
    state, probe = tmp_path / "s.db", tmp_path / "p.db"
    conn = sqlite3.connect(state)
    conn.executescript("""
        CREATE TABLE run (run_id TEXT PRIMARY KEY, game_id TEXT, backbone TEXT, started_at TEXT, status TEXT,
          config_json TEXT, render_ceiling_B INTEGER, seed INTEGER);
        CREATE TABLE deficit_stamp (run_id TEXT, seq INTEGER, turn_id INTEGER, goal_id TEXT, holes_json TEXT);
        CREATE TABLE goal_edge (run_id TEXT, parent_goal TEXT, child_goal TEXT, verified INTEGER, turn_id INTEGER);
    """)
    conn.close()
    conn = sqlite3.connect(probe)
    conn.executescript(f"""
        CREATE TABLE run_config (run_id TEXT PRIMARY KEY, card_id TEXT, game_id TEXT, guid TEXT, cell_json TEXT,
          baseline TEXT, backbone TEXT, seed INTEGER, config_json TEXT, arm TEXT, comparison_group TEXT,
          started_at TEXT, ended_at TEXT);
        CREATE TABLE llm_calls (run_id TEXT, seq INTEGER, turn_id INTEGER, organ TEXT, backbone TEXT, call_idx INTEGER,
          retry_count INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, reasoning_tokens INTEGER,
          render_tokens INTEGER, ops_accepted INTEGER, ops_rejected INTEGER, effort TEXT, zcr_json TEXT, ts TEXT);
        INSERT INTO run_config VALUES ('{run_id}', 'c', 'ls20', 'g', '{{}}', NULL, 'm', 0, '{{}}', 'FULL',
          'ls20-0-m', '2026-01-01', '2026-01-02');
        INSERT INTO llm_calls VALUES ('{run_id}', 1, 1, 'observer', 'm', 0, 0, 100, 20, NULL, 50, 3, 0,
          'medium', '[]', 't');
    """)
    conn.close()
    return state, probe


def test_probe_only_agent_run_is_imported_and_gated(tmp_path):
    state, probe = _store_pair(tmp_path, "arg-ls20-1795979999")
    assert import_submission(state, probe, tmp_path / "probe-only") == 0
    (log,) = (tmp_path / "probe-only" / "runs").glob("*.jsonl")
    start = json.loads(log.read_bytes().split(b"\n", 1)[0])
    assert start["comparator"] is False and start["cell"] not in ("BARE", "RAW")  # cell from config_json
    (res,) = _runs(tmp_path / "probe-only")
    assert res["verdict"] == "INVALID" and res["legibility"]["verdict"] == "INVALID"
    assert res["legibility"]["startup_ok"] is False and res["legibility"]["beats"] == 0
    m = res["metrics"]
    assert (m["actions"], m["completions"], m["drift_ref_beats"], m["llm_calls"], m["WER"]) == (0, 0, 0, 1, 0.0)
    assert (m["deficit_stamps"], m["edges_verified"]) == (0, 0)  # the tables exist: 0 rows, not undefined


def test_probe_only_baseline_without_a_startup_row_is_invalid_as_arg_says(tmp_path):
    # issue 29: ARG's own probe, given this store pair, prints INVALID (no startup row); so do we, in both
    # profiles, and the run does not count toward compute parity (before: COMPARATOR, no gate run)
    state, probe = _store_pair(tmp_path, "argbare-ls20-1")
    assert import_submission(state, probe, tmp_path / "bare") == 0
    (res,) = _runs(tmp_path / "bare")
    assert (res["verdict"], res["cell"], res["comparator"]) == ("INVALID", "BARE", True)
    assert res["legibility"]["verdict"] == "INVALID" and res["legibility"]["startup_ok"] is False
    assert any("startup" in r for r in res["reasons"])
