"""`driftboard import arg`: read-only, deterministic, every run imported, clean errors."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from conftest import shared_data, shared_data_reason

from checker.format.errors import UsageError
from checker.importers.arg import derive_cell, import_submission, thresholds_from_arg
from checker.stages.validate import validate_paths

CASES = shared_data() / "arg" / "cases"


def case(name: str) -> Path:
    path = CASES / name
    if not (path / "state.db").exists():
        pytest.skip(shared_data_reason(f"ARG case {name} (state.db)", path))
    return path


def test_multi_run_store_imports_every_run_deterministically(tmp_path):
    src = case("d_multi_a0_full")
    for out in ("a", "b"):
        assert import_submission(src / "state.db", src / "probe.db", tmp_path / out / "multi") == 0
    a, b = tmp_path / "a" / "multi", tmp_path / "b" / "multi"
    files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert files == ["prereg.yaml", "runs/arg-mk02-1795980764.jsonl", "runs/arg-mk03-1795980773.jsonl",
                     "submission.yaml"]
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    report = validate_paths([a])
    assert report.ok, [f.render() for f in report.findings]


def test_run_header_keeps_store_digests_and_prereg_digest(tmp_path):
    src = case("d_full_r1")
    out = tmp_path / "full"
    import_submission(src / "state.db", src / "probe.db", out)
    start = json.loads((out / "runs" / "arg-mk10-1795980707.jsonl").read_bytes().split(b"\n", 1)[0])
    truth = json.loads((src / "truth.json").read_text())
    assert start["source"] == {"importer": "arg@1", "native_run_id": "arg-mk10-1795980707",
                               "files": {k: v["sha256"] for k, v in truth["files"].items()},
                               "details": {"model": start["backbone"]}}  # the store's recorded model (principle 8)
    assert start["backbone"] not in ("", "unknown")
    assert start["prereg_sha256"] == hashlib.sha256((out / "prereg.yaml").read_bytes()).hexdigest()
    assert (start["cell"], start["seed"], start["comparator"]) == ("FULL", "r1", False)
    prereg = yaml.safe_load((out / "prereg.yaml").read_text())
    assert prereg["profile"] == "arg-v1.0"
    assert prereg["thresholds"] == {"render_ceiling_B": 6000, "wer_floor": 0.25, "wer_min_ops": 5,
                                    "canary_floor": 0.9, "canary_warmup": 2}


def test_thresholds_option(tmp_path):
    src = case("d_j0a0_r2")
    th = thresholds_from_arg({"ARG_B": "40"})
    import_submission(src / "state.db", src / "probe.db", tmp_path / "r2", thresholds=th)
    assert yaml.safe_load((tmp_path / "r2" / "prereg.yaml").read_text())["thresholds"]["render_ceiling_B"] == 40


def test_store_without_runs_is_a_usage_error(tmp_path):
    src = case("t_pather_unit_norun")
    with pytest.raises(UsageError, match="NO_RUN"):
        import_submission(src / "state.db", src / "probe.db", tmp_path / "norun")
    assert not (tmp_path / "norun").exists()


def test_unreadable_input_is_a_usage_error_without_traceback(tmp_path, run_line):
    bad = tmp_path / "state.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    result = run_line(["import", "arg", str(bad), str(bad), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output + result.stderr
    assert "not a readable SQLite database" in result.stderr or "not an ARG store" in result.stderr
    missing = run_line(["import", "arg", str(tmp_path / "nope.db"), str(bad), "--out", str(tmp_path / "o2")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr


def test_non_empty_output_folder_is_refused(tmp_path):
    out = tmp_path / "sub"
    out.mkdir()
    (out / "x").write_text("keep")
    with pytest.raises(UsageError, match="not empty"):
        import_submission(tmp_path / "a.db", tmp_path / "b.db", out)


def test_probe_only_runs_become_comparators(tmp_path):
    state, probe = tmp_path / "s.db", tmp_path / "p.db"
    sqlite3.connect(state).close()
    conn = sqlite3.connect(probe)
    conn.executescript("""
        CREATE TABLE run_config (run_id TEXT PRIMARY KEY, card_id TEXT, game_id TEXT, guid TEXT, cell_json TEXT,
          baseline TEXT, backbone TEXT, seed INTEGER, config_json TEXT, arm TEXT, comparison_group TEXT,
          started_at TEXT, ended_at TEXT);
        CREATE TABLE llm_calls (run_id TEXT, seq INTEGER, turn_id INTEGER, organ TEXT, backbone TEXT, call_idx INTEGER,
          retry_count INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, reasoning_tokens INTEGER,
          render_tokens INTEGER, ops_accepted INTEGER, ops_rejected INTEGER, effort TEXT, zcr_json TEXT, ts TEXT);
        INSERT INTO run_config VALUES ('argbare-ls20-1', 'c', 'ls20', 'g', '{}', 'bare', 'm', 0, '{}', 'baseline',
          'ls20-0-m', '2026-01-01', '2026-01-02');
        INSERT INTO llm_calls VALUES ('argbare-ls20-1', 1, 1, 'baseline', 'm', 0, 0, 100, 20, NULL, 50, 0, 0,
          'medium', '[]', 't');
    """)
    conn.commit()
    conn.close()
    import_submission(state, probe, tmp_path / "bare")
    start = json.loads((tmp_path / "bare" / "runs" / "argbare-ls20-1.jsonl").read_bytes().split(b"\n", 1)[0])
    assert (start["cell"], start["comparator"]) == ("BARE", True)


def test_derive_cell():
    gates = {"join": True, "agenda": True, "seeds": True}
    assert derive_cell({"gates": gates}) == "FULL"
    assert derive_cell({"gates": {**gates, "join": False, "agenda": False}}) == "J0A0"
    assert derive_cell({"gates": {**gates, "agenda": False, "goals": False}}) == "A0+GOALS0"
    assert derive_cell({"gates": gates, "baseline": "bcache"}) == "BASELINE-BCACHE"
    assert derive_cell({}) == "UNKNOWN"
