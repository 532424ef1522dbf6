"""Issue 29, principle 5: every count a gate condition reads is derived from the log's rows or cross-checked.

Hand-computed figures of the shipped full-s3 (micro-world, profile driftboard): SURVEYOR 30 reject rows +
2 MISSING_CANARY rows = 32 rejects; its calls record 37 accepted ops; the log holds 38 rows such ops write
(rule versions + goal versions + relevance edges), so 37 stand; WER 32 / 69 = 0.464 > 0.25: INVALID. The
FULL cell has 2 VALID runs (full-s1, full-s2). On be291a9, inflating `ops_accepted` on each call made
full-s3 VALID (FULL: 3 VALID runs) with exit 0.
"""

from __future__ import annotations

import json
import shutil

from agent_helpers import llm, make_run, startup
from test_evidence import SUB, Events, fields, forge, verify

from checker.agent.gate import run_gate
from checker.agent.replay import replay
from checker.format.schema.manifest import Thresholds


def _inflate(organs: tuple[str, ...], factor: int):
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "llm_call" and ev["organ"] in organs:
                ev["ops_accepted"] = ev.get("ops_accepted", 0) * factor + 3
    return mutate


def test_surveyor_ops_accepted_inflated_on_each_call(run_line, tmp_path):
    code, res = verify(run_line, forge(tmp_path, "full-s3", _inflate(("SURVEYOR",), 4)), "full-s3")
    assert code == 0 and res["verdict"] == "INVALID"
    (m,) = [m for m in fields(res, "ops_accepted") if "store row(s)" in m["reason"]]
    assert m["recomputed"] == 38 and m["recorded"] > 96
    assert "an accepted op writes at least one" in m["reason"]
    wer = res["gate"]["write_error_rate"]
    assert wer["status"] == "FAIL" and wer["organs"]["SURVEYOR"]["rejects"] == 32
    assert wer["organs"]["SURVEYOR"]["accepted"] == 38 and wer["organs"]["SURVEYOR"]["wer"] == 0.457


def test_every_organ_inflated_keeps_the_full_cell_at_two_valid_runs(run_line, tmp_path):
    sub = forge(tmp_path, "full-s3", _inflate(("SURVEYOR", "OBSERVER"), 4))
    res = run_line(["verify", str(sub), "--format", "json", "--no-cache", "--no-results"])
    (doc,) = json.loads(res.stdout)["submissions"]
    full = [r for r in doc["runs"] if r["cell"] == "FULL"]
    assert sum(r["verdict"] == "VALID" for r in full) == 2
    bad = next(r for r in full if r["run_id"].endswith("full-s3"))
    organs = {m["reason"].split()[1] for m in fields(bad, "ops_accepted") if "store row(s)" in m["reason"]}
    assert organs == {"SURVEYOR"}  # the Observer's accepted ops have no row bound (trusted, see written_rows)


def test_honest_counts_raise_nothing(run_line, tmp_path):
    code, res = verify(run_line, forge(tmp_path, "full-s1", lambda e: None), "full-s1")
    assert code == 0 and res["verdict"] == "VALID" and not fields(res, "ops_accepted")


def test_min_ops_zero_with_an_organ_of_no_op_does_not_divide_by_zero(tmp_path):
    state = replay(make_run(tmp_path, [startup(), llm(1, "OBSERVER", prompt_tokens=10)]))
    gate = run_gate(state, Thresholds(wer_min_ops=0), "driftboard")
    wer = gate.conditions.write_error_rate
    assert wer.status == "NOT_APPLICABLE" and wer.organs["OBSERVER"].wer is None and not wer.organs["OBSERVER"].judged


# ---- reproduction profiles keep the reference system's trust, never silently ---------------------------

def test_arg_profile_lists_landings_the_geometry_contradicts(run_line, tmp_path):
    # the shipped j0-s2 records 9 click landings its geometry contradicts (actuator noise logged as the
    # intended target); profile driftboard derives landings (J0 gds_bind mean 0.375 = (0.396 + 0.209 + 0.519) / 3),
    # arg-v1.0 reads them as recorded, as ARG does (0.305): the figure may stay, but never silently
    sub = tmp_path / SUB.name
    shutil.copytree(SUB, sub)
    res = run_line(["verify", str(sub), "--format", "json", "--no-cache", "--no-results", "--profile", "arg-v1.0"])
    assert "Traceback" not in res.output and res.exit_code == 0
    doc = json.loads(res.stdout)
    (warning,) = [p for p in doc["problems"] if p["path"].endswith("j0-s2.jsonl")]
    assert warning["severity"] == "warning"
    assert "profile arg-v1.0 reproduces the reference system, and 9 recorded label(s) disagree" in warning["message"]
    assert "target_ref × 9" in warning["message"] and "profile driftboard derives every one from the log" in warning["message"]
    (submission,) = doc["submissions"]
    j0 = next(c for c in submission["cells"] if c["cell"] == "J0")
    assert round(j0["metrics"]["gds_bind"]["mean"], 3) == 0.305
    text = run_line(["verify", str(sub), "--no-cache", "--no-results", "--profile", "arg-v1.0"])
    assert "warning: " in text.output and "target_ref × 9" in text.output


def test_leaderboard_profile_has_no_such_warning(run_line, tmp_path):
    sub = tmp_path / SUB.name
    shutil.copytree(SUB, sub)
    res = run_line(["verify", str(sub), "--format", "json", "--no-cache", "--no-results"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and not [p for p in doc["problems"] if "reproduces the reference system" in p["message"]]
    j0 = next(c for c in doc["submissions"][0]["cells"] if c["cell"] == "J0")
    assert round(j0["metrics"]["gds_bind"]["mean"], 3) == 0.375


def test_reject_rows_and_call_counts_deleted_together_leave_the_retries(run_line, tmp_path):
    # both records of the SURVEYOR's rejections removed consistently (rows deleted, ops_rejected zeroed); its
    # 11 corrective retry calls remain, and a retry follows a rejected op: rejects >= 2 MISSING_CANARY + 11,
    # WER >= 13 / (13 + 37) = 0.26 > 0.25, so full-s3 stays INVALID (FULL: 2 VALID runs)
    def mutate(events: Events) -> Events:
        for ev in events:
            if ev["type"] == "llm_call" and ev["organ"] == "SURVEYOR":
                ev["ops_rejected"] = 0
        return [ev for ev in events if not (ev["type"] == "write_reject" and ev["organ"] == "SURVEYOR"
                                            and ev.get("violation_class") != "MISSING_CANARY")]

    code, res = verify(run_line, forge(tmp_path, "full-s3", mutate), "full-s3")
    assert code == 0 and res["verdict"] == "INVALID"
    (m,) = fields(res, "retry_count")
    assert (m["recorded"], m["recomputed"]) == (0, 11) and "a retry follows a rejected op" in m["reason"]
    surveyor = res["gate"]["write_error_rate"]["organs"]["SURVEYOR"]
    assert (surveyor["rejects"], surveyor["accepted"], surveyor["wer"]) == (13, 37, 0.26)


def test_every_reproduction_profile_reports_its_disagreements():
    from checker.format.results_model import Mismatch
    from checker.stages.reproduction import disagreement_finding

    found = [Mismatch(line=12, field="answer_correct", recorded=1, recomputed=0, reason="Z3: unsatisfied")]
    for profile in ("arg-v1.0", "drift-bench-v1"):
        f = disagreement_finding("s/runs/r.jsonl", profile, found)
        assert f is not None and f.severity == "warning" and f.line == 12
        assert f"profile {profile} reproduces the reference system" in f.message and "answer_correct × 1 (line 12)" in f.message
    assert disagreement_finding("s/runs/r.jsonl", "driftboard", found) is None  # there the log decides, and fails
    assert disagreement_finding("s/runs/r.jsonl", "arg-v1.0", []) is None
