"""Intent-to-treat: every declared run is of record; missing, incomplete and invalid runs count as worst.

Built from the shipped micro-world submission (copied out of the tree). The per-seed figures of
its runs are pinned by tests/test_baselines.py; the all-declared figures below are computed by
hand from them:

    cell  seed  verdict   drift_total              completions
    FULL  s1    VALID     r3(1/49)  = 0.020         2
    FULL  s2    VALID     r3(2/51)  = 0.039         2
    FULL  s3    INVALID   (WER 32/69 above 0.25)    3 (not counted)
    J0    s1    VALID     r3(19/48) = 0.396         1
    J0    s2    VALID     r3(9/43)  = 0.209         2
    J0    s3    VALID     r3(28/54) = 0.519         0
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from submission_factory import make_agent_submission

from checker.format.results_model import CellResult
from checker.pipeline.report import VerifyReport
from checker.pipeline.verify import verify_paths

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "submissions" / "driftboard-microworld-agent"


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "submissions" / SHIPPED.name
    shutil.copytree(SHIPPED, dest)
    return dest


def _verify(sub: Path, tmp_path: Path) -> tuple[VerifyReport, dict[str, CellResult]]:
    report = verify_paths([sub], None, [], results_dir=tmp_path / "results")
    (s,) = report.submissions
    assert s.results is not None
    return report, {c.cell: c for c in s.results.load().cells}


def _messages(report: VerifyReport) -> list[str]:
    return [f.message for f in report.findings]


def test_shipped_invalid_seed_counts_as_worst(tmp_path: Path) -> None:
    report, cells = _verify(_copy(tmp_path), tmp_path)
    assert report.exit_code == 0
    full = cells["FULL"]
    assert (full.valid_runs, full.n_declared) == (2, 3)
    assert [(o.seed, o.status) for o in full.declared] == [("s1", "VALID"), ("s2", "VALID"), ("s3", "INVALID")]
    assert full.declared[2].reason == "write-error rate above 0.25 (min ops 5): SURVEYOR 32/69 = 0.464"
    drift = full.all_declared["drift_total"]
    assert drift.value == pytest.approx((0.020 + 0.039 + 1.0) / 3)  # 0.353; valid-only mean 0.0295
    assert (drift.n_declared, drift.n_worst, drift.n_undefined) == (3, 1, 0)
    assert full.metrics["drift_total"].mean == pytest.approx(0.0295)
    # the invalid seed completed 3 levels, but an invalid run counts as 0 completions
    assert full.all_declared["completions"].value == pytest.approx((2 + 2 + 0) / 3)
    # an undefined figure of a VALID run stays undefined (J0A0: no reference beats), never 0 ...
    j0a0 = cells["J0A0"].all_declared["gds_bind"]
    assert (j0a0.value, j0a0.n_undefined, j0a0.n_worst) == (None, 3, 0)
    # ... except in the ranked figure, where committing to nothing is worst (issue 29: no plan never ranks)
    j0a0 = cells["J0A0"].all_declared["drift_total"]
    assert (j0a0.value, j0a0.n_undefined, j0a0.n_worst) == (1.0, 0, 3)
    # comparator cells have no drift figures
    assert cells["BARE"].all_declared == {}


def test_deleted_declared_run_fails_and_counts_as_worst(tmp_path: Path) -> None:
    sub = _copy(tmp_path)
    (sub / "runs" / "full-s2.jsonl").unlink()
    report, cells = _verify(sub, tmp_path)
    assert report.exit_code == 1
    assert ("cell FULL, seed s2: declared in prereg.yaml but no readable run log is reported for it; every declared run counts "
            "(as the worst outcome while missing): add its log, or withdraw the seed in prereg.yaml "
            "(cells.<cell>.withdrawn) before it runs") in _messages(report)
    full = cells["FULL"]
    assert [(o.seed, o.status) for o in full.declared] == [("s1", "VALID"), ("s2", "MISSING"), ("s3", "INVALID")]
    assert full.all_declared["drift_total"].value == pytest.approx((0.020 + 1.0 + 1.0) / 3)
    # the valid-only figure would have improved (one valid seed, 0.020): it is not the ranked one
    assert full.metrics["drift_total"].mean == pytest.approx(0.020)


def test_truncated_seed_is_incomplete_and_counts_as_worst(tmp_path: Path) -> None:
    sub = _copy(tmp_path)
    log = sub / "runs" / "j0-s1.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    assert b'"run_end"' in lines[-1]
    log.write_bytes(b"".join(lines[:-1]))
    _report, cells = _verify(sub, tmp_path)
    j0 = cells["J0"]
    assert j0.declared[0].status == "INCOMPLETE"
    assert j0.all_declared["drift_total"].value == pytest.approx((1.0 + 0.209 + 0.519) / 3)
    assert j0.metrics["drift_total"].mean == pytest.approx((0.209 + 0.519) / 2)  # valid-only, beside it


def test_withdrawn_seed_is_published_and_leaves_the_figure(tmp_path: Path) -> None:
    sub = make_agent_submission(tmp_path, "wd", {"FULL": ["s1", "s2"]}, runs=[("FULL", "s1")],
                                withdrawn={"FULL": {"s2": "compute quota ran out before the run started"}})
    report, cells = _verify(sub, tmp_path)
    assert report.exit_code == 0, _messages(report)
    full = cells["FULL"]
    assert [(o.seed, o.status, o.reason) for o in full.declared] == [
        ("s1", "VALID", None), ("s2", "WITHDRAWN", "compute quota ran out before the run started")]
    assert full.n_declared == 1
    assert full.all_declared["completions"].n_declared == 1


def test_withdrawing_a_seed_that_ran_fails(tmp_path: Path) -> None:
    sub = make_agent_submission(tmp_path, "wd2", {"FULL": ["s1", "s2"]}, withdrawn={"FULL": {"s2": "bad run"}})
    report, _cells = _verify(sub, tmp_path)
    assert report.exit_code == 1
    assert ("cell FULL, seed s2: withdrawn in prereg.yaml but run wd2-FULL-s2 is reported; a seed is withdrawn "
            "before it runs, never after: remove the withdrawal or the run") in _messages(report)


def test_withdrawn_seed_must_be_declared(tmp_path: Path, run_line) -> None:
    sub = make_agent_submission(tmp_path, "wd3", {"FULL": ["s1"]}, withdrawn={"FULL": {"s9": "typo"}})
    result = run_line(["validate", str(sub)])
    assert result.exit_code == 1
    assert "withdrawn seed(s) s9 are not among the declared seeds" in result.output


def test_text_json_and_summary_show_the_accounting(tmp_path: Path, run_line) -> None:
    sub = _copy(tmp_path)
    (sub / "runs" / "full-s2.jsonl").unlink()
    text = run_line(["verify", str(sub), "--no-cache", "--out", str(tmp_path / "r")])
    assert text.exit_code == 1
    assert ("   cell FULL: valid 1 of 3 declared; drift_total ↓ all declared 0.673 (valid runs only 0.02)"
            in text.output.splitlines())
    assert "     excluded: s2 MISSING (declared, no run log reported)" in text.output.splitlines()
    doc = run_line(["verify", str(sub), "--no-cache", "--no-results", "--format", "json"])
    path = tmp_path / "v.json"
    path.write_text(doc.output, encoding="utf-8")
    (entry,) = [c for c in json.loads(doc.output)["submissions"][0]["cells"] if c["cell"] == "FULL"]
    assert entry["n_declared"] == 3 and entry["all_declared"]["drift_total"]["n_worst"] == 2
    summary = run_line(["ci-summary", str(path), "--no-annotations"])
    assert summary.exit_code == 1  # the missing declared run fails the check
    assert "| valid of declared | 3 of 3 | 1 of 1 | 1 of 3 | 3 of 3 | 3 of 3 |" in summary.stdout
    assert "| drift_total ↓ all declared | 0.983 (0 worst) | — | 0.673 (2 worst) |" in summary.stdout


def test_aborted_run_is_never_valid_and_says_so(tmp_path: Path, run_line) -> None:
    """A harness crash logged as run_end ABORTED: INCOMPLETE (counted as worst), with ABORTED and its reason shown."""
    sub = _copy(tmp_path)
    log = sub / "runs" / "j0-s2.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    end = json.loads(lines[-1])
    assert end["type"] == "run_end" and end["status"] == "COMPLETED"
    end.update(status="ABORTED", reason="ConnectionError: harness crashed at beat 6")
    lines[-1] = json.dumps(end, separators=(",", ":")).encode() + b"\n"  # the last line: no later line hashes it
    log.write_bytes(b"".join(lines))
    _report, cells = _verify(sub, tmp_path)
    j0 = cells["J0"]
    assert [(o.seed, o.status) for o in j0.declared] == [("s1", "VALID"), ("s2", "INCOMPLETE"), ("s3", "VALID")]
    why = ("run ended ABORTED (ConnectionError: harness crashed at beat 6): INCOMPLETE, never VALID "
           "(an aborted or failed run did not complete)")
    assert j0.declared[1].reason == why
    assert j0.all_declared["drift_total"].value == pytest.approx((0.396 + 1.0 + 0.519) / 3)
    text = run_line(["verify", str(sub), "--no-cache", "--no-results"])
    assert f"     excluded: s2 INCOMPLETE ({why})" in text.output.splitlines()
    assert f"  reason: {why}" in text.output.splitlines()
    doc = json.loads(run_line(["verify", str(sub), "--no-cache", "--no-results", "--format", "json"]).output)
    (run,) = [r for r in doc["submissions"][0]["runs"] if r["seed"] == "s2" and r["cell"] == "J0"]
    assert (run["verdict"], run["end_status"], run["reasons"][0]) == ("INCOMPLETE", "ABORTED", why)
