"""The shipped real-model submission `drift-bench-examples` (issue 20).

* it is exactly what its one documented import command writes (re-run here, every byte compared);
* it verifies against the shipped problem set with no option, as real runs with a pre-registration
  written after them;
* its verified per-turn labels equal the reference checker's truth files on all 52 rows (the
  truth CSVs are read from the shared data, never from our own output).
"""

from __future__ import annotations

import csv
import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from conftest import REPO, shared_data

from checker.verify import default_problem_dirs, verify_paths

SID = "drift-bench-examples"
SUB = REPO / "submissions" / SID
TEST_SPLIT = "ed6f3c57e5a7d409c1dd07fe92fcd7e4506337a29fbd429b813d6b51bff90976"
"""Digest of DRIFT-Bench's test split (problems/README.md), which the three example problems are in."""
MODELS = ["gpt-oss-120b", "gpt-oss-20b", "qwen3-32b", "qwen3-8b"]
DOMAINS = ("seating", "logic_grid", "scheduling")


def documented_command() -> list[str]:
    """The import command as the submission's own description states it."""
    description = yaml.safe_load((SUB / "submission.yaml").read_text(encoding="utf-8"))["description"]
    found = re.findall(r"`(driftboard import drift-bench [^`]+)`", description)
    assert len(found) == 1, description
    return shlex.split(found[0])


def test_the_documented_command_reproduces_every_byte(tmp_path, run_line, monkeypatch):
    args = documented_command()
    assert args[args.index("--out") + 1] == f"submissions/{SID}"
    args[args.index("--out") + 1] = str(tmp_path / SID)
    monkeypatch.chdir(REPO)  # the command's paths are relative to the repository root
    res = run_line(args[1:])
    assert res.exit_code == 0, res.output
    shipped = {p.relative_to(SUB).as_posix(): p.read_bytes() for p in sorted(SUB.rglob("*")) if p.is_file()}
    made = {p.relative_to(tmp_path / SID).as_posix(): p.read_bytes()
            for p in sorted((tmp_path / SID).rglob("*")) if p.is_file()}
    assert sorted(made) == sorted(shipped)
    assert made == shipped


def test_contributing_shows_the_same_command():
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8").replace("\\\n", " ")
    commands = [shlex.split(line.replace(".venv/bin/", "")) for line in text.splitlines()
                if "import drift-bench" in line and SID in line]
    assert documented_command() in commands


def test_credits_and_labels_in_manifest_and_prereg():
    manifest = yaml.safe_load((SUB / "submission.yaml").read_text(encoding="utf-8"))
    prereg = yaml.safe_load((SUB / "prereg.yaml").read_text(encoding="utf-8"))
    assert manifest["synthetic"] is False and manifest["license"] == "MIT"
    assert "Kawada" in manifest["citation"] and "MIT" in manifest["citation"]
    assert manifest["harness"]["url"] == "https://github.com/kaons-research/drift-bench"
    assert prereg["written_after_runs"] is True
    assert prereg["problem_set"] == TEST_SPLIT
    assert sorted(prereg["cells"]) == [f"{m}/mus_repair" for m in MODELS]
    for folder in (REPO / "problems" / "drift-bench-v1", REPO / "examples" / "drift-bench"):
        assert "MIT License" in (folder / "LICENSE").read_text(encoding="utf-8")
        assert "Kawada" in (folder / "CITATION.cff").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The shipped submission verified the way `make site` does it: shipped problem sets, no option, no cache."""
    out = tmp_path_factory.mktemp("examples-results")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        report = verify_paths([Path("submissions") / SID], problem_dirs=default_problem_dirs(), results_dir=out)
    assert report.exit_code == 0, [f.render() for f in report.findings]
    return json.loads((out / f"{SID}.json").read_text(encoding="utf-8"))


def test_verifies_as_real_runs_with_a_late_prereg(results):
    assert results["synthetic"] is False
    assert results["prereg_written_after_runs"] is True
    assert results["problem_sets"] == [TEST_SPLIT]
    assert [(r["backbone"], r["verdict"], r["metrics"]["turns"]) for r in results["runs"]] == [
        (m, "VALID", 13) for m in MODELS]
    assert all(r["mismatches"] == [] for r in results["runs"])
    assert all(c["agrees"] for c in results["claims"]) and len(results["claims"]) == 4
    # coverage against the named set: 3 of 816 problems, 13 of 5,672 turns per run
    assert {(r["metrics"]["problems_covered"], r["metrics"]["problems_in_set"], r["metrics"]["turns_in_set"])
            for r in results["runs"]} == {(3, 816, 5672)}


@pytest.mark.shared_data
def test_per_turn_labels_equal_the_reference_truth_on_all_52_rows(results):
    root = shared_data() / "drift-bench" / "transcripts"
    if not root.is_dir():
        pytest.skip(f"DRIFT-Bench truth files absent at {root} (set DRIFTBOARD_SHARED_DATA to the reference data)")
    truth = []
    for domain in DOMAINS:
        with (root / f"{domain}_example.truth.csv").open(encoding="utf-8") as fh:
            truth += list(csv.DictReader(fh))
    got = {(r["backbone"], t["problem_id"], t["turn_number"]): t for r in results["runs"] for t in r["turns"]}
    assert len(truth) == 52 and len(got) == 52
    assert {(row["model"], row["problem_id"], int(row["turn"])) for row in truth} == set(got)
    for row in truth:
        t = got[(row["model"], row["problem_id"], int(row["turn"]))]
        assert int(t["ledger_sat"]) == int(row["recomputed_z3_sat"]) == int(row["recorded_z3_sat"]), row
        assert int(t["correct"]) == int(row["recomputed_answer_correct"]) == int(row["recorded_answer_correct"]), row
        assert int(t["parse"]) == int(row["parse_ok"]), row
        note = dict(part.strip().split("=", 1) for part in row["note"].split(";"))
        assert int(t["answer_satisfies_ledger"]) == int(note["answer_vs_ledger"]), row
        expected = ("contradiction" if row["recomputed_z3_sat"] == "0"
                    else "consistent" if note["answer_vs_ledger"] == "1" else "drift")
        assert t["channel"] == expected, row
