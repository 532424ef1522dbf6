"""Conformance: importing every ARG case and verifying it under `arg-v1.0` reproduces truth.json.

Expectations come only from each case's `truth.json` (what ARG's own probes printed). A case made
with changed probe thresholds (`probe_env`, e.g. ARG_B=40) is imported with those thresholds
(`import_submission(..., thresholds=thresholds_from_arg(truth["probe_thresholds"]))`), and, when
the case records it, imported again with the defaults to check `truth_under_default_env` too.
Without the shared data (DRIFTBOARD_SHARED_DATA) every case is still collected, from the case list
shipped below, and each one is skipped with a reason naming the variable and the data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import require_shared, shared_data

from checker.format.errors import UsageError
from checker.importers.arg import import_submission, thresholds_from_arg
from checker.pipeline.verify import verify_paths

CASES = shared_data() / "arg" / "cases"
# The cases of the reference data (its INDEX.md), so that each is collected, and skipped, one by one without it.
SHIPPED_CASE_NAMES = (
    "d_a0_goals0", "d_a0_r1", "d_bcache_r1", "d_full_b120relaxed", "d_full_dormant", "d_full_r1", "d_full_win",
    "d_j0_r1", "d_j0a0_r1", "d_j0a0_r2", "d_multi_a0_full", "t_agenda_agenda-3", "t_agenda_unit_u2",
    "t_chain1_unit_cold", "t_chain2_g2-test", "t_chain3_unit_gds", "t_gaps1_d1-lives", "t_gaps4_bcache",
    "t_gaps4_zcr-diff", "t_integration_integ", "t_loop_m2-test", "t_metrics_metrics-live",
    "t_metrics_metrics-shadow", "t_pather_unit_norun", "t_probes_m8", "t_zcr_zcr-deaf", "t_zcr_zcr-echo",
)
FOUND = sorted(p.name for p in CASES.iterdir() if (p / "truth.json").exists()) if CASES.is_dir() else []
CASE_NAMES = sorted(set(SHIPPED_CASE_NAMES) | set(FOUND))

pytestmark = pytest.mark.shared_data


def _truth(name: str) -> dict[str, Any]:
    """The case's truth.json, or skip naming the case, the variable and where the data comes from."""
    path = require_shared(CASES / name / "truth.json", f"ARG conformance case {name}")
    return json.loads(path.read_text())


def _verify(name: str, out: Path, thresholds: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    src = CASES / name
    sub = out / name.lower()
    th = thresholds_from_arg(thresholds) if thresholds else None
    assert import_submission(src / "state.db", src / "probe.db", sub, thresholds=th) == 0
    report = verify_paths([sub], profile="arg-v1.0")
    assert report.exit_code == 0, [f.render() for f in report.findings]
    (submission,) = report.submissions
    return {r.native_run_id: r.model_dump(mode="json") for r in submission.runs}


def _diff(expected: dict[str, Any], got: dict[str, Any], where: str) -> list[str]:
    return [f"{where}.{k}: truth {v!r}, got {got.get(k, '<missing>')!r}" for k, v in expected.items()
            if k not in got or got[k] != v or type(got[k]) is not type(v)]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_reproduces_truth(name, tmp_path):
    truth = _truth(name)
    if not truth["runs"]:
        assert truth["default_selection"]["legibility_verdict"] == "NO_RUN"
        with pytest.raises(UsageError, match="NO_RUN"):
            import_submission(CASES / name / "state.db", CASES / name / "probe.db", tmp_path / "x")
        return
    runs = _verify(name, tmp_path / "probe-env", truth["probe_thresholds"])
    assert sorted(runs) == sorted(truth["runs"])
    problems: list[str] = []
    for run_id, expected in truth["runs"].items():
        res = runs[run_id]
        problems += _diff(expected["metrics"], res["metrics"], f"{run_id}.metrics")
        problems += _diff(expected["legibility"], res["legibility"], f"{run_id}.legibility")
        assert res["gate_verdict"] == expected["legibility"]["verdict"]
        if res["verdict"] != "INCOMPLETE":
            assert res["verdict"] == expected["legibility"]["verdict"]
        if expected.get("cell_from_config"):
            assert res["cell"] == expected["cell_from_config"]
    assert not problems, "\n".join(problems)
    default = truth.get("truth_under_default_env")
    if default:
        runs = _verify(name, tmp_path / "default-env", default["probe_thresholds"])
        for run_id, expected in default["runs"].items():
            problems += _diff(expected["legibility"], runs[run_id]["legibility"], f"{run_id}.default.legibility")
            problems += _diff(expected["metrics_subset"], runs[run_id]["metrics"], f"{run_id}.default.metrics")
        assert not problems, "\n".join(problems)


def test_the_shipped_case_list_is_the_reference_data():
    require_shared(CASES, "ARG conformance cases")
    assert sorted(SHIPPED_CASE_NAMES) == FOUND


def test_repository_gds_fixture_is_among_the_cases(tmp_path):
    assert "t_chain3_unit_gds" in CASE_NAMES
    expected = _truth("t_chain3_unit_gds")["runs"]["gds"]["metrics"]
    assert (expected["drift_ref_beats"], expected["gds_bind"], expected["gds_abandon"]) == (5, 0.4, 0.2)
    got = _verify("t_chain3_unit_gds", tmp_path, None)["gds"]
    counts = {k: got["gds"][k] for k in ("reference_beats", "live", "shadow", "bind", "aligned", "abandon")}
    assert counts == {"reference_beats": 5, "live": 2, "shadow": 3, "bind": 2, "aligned": 2, "abandon": 1}
    # the beats the run viewer shows agree with the counts: 2 aligned, 1 abandon + 2 bind drifted
    drifted = sorted(d["outcome"] for d in got["gds"]["drifted"])
    beats = "".join(s * int(n or 1) for s, n in re.findall(r"([.abx])(\d*)", got["gds"]["outcomes"]))
    assert ([beats.count(s) for s in "abx"], drifted) == ([2, 2, 1], ["abandon", "bind", "bind"])


def test_verify_text_prints_gate_table_and_gds(tmp_path, run_line):
    src = require_shared(CASES / "t_chain3_unit_gds", "ARG conformance case t_chain3_unit_gds")
    import_submission(src / "state.db", src / "probe.db", tmp_path / "gds")
    result = run_line(["verify", "--no-results", str(tmp_path / "gds")])
    assert result.exit_code == 0
    out = result.output
    assert "startup_probe     FAIL  no startup probe" in out
    assert "canary_echo       N/A" in out
    assert "GDS: 5 reference beat(s) (2 live, 3 shadow): bind 2 (0.4)  aligned 2 (0.4)  abandon 1 (0.2)" in out
