"""The harness examples run as they stand (scripted models, no network) and write submissions that verify."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

SUITE = REPO / "problems" / "driftboard-suite-v1"


def run_example(name: str, out: Path, *args: str) -> Path:
    """Run `examples/<name>.py --out OUT` the way a user does (a fresh interpreter, the checkout on the path)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, str(REPO / "examples" / f"{name}.py"), "--out", str(out), *args],
                          capture_output=True, text=True, env=env, cwd=out, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote ")
    return Path(done.stdout.split(" ", 1)[1].strip())


def verify_json(run_line, folder: Path, *extra: str) -> dict:
    result = run_line(["verify", str(folder), "--no-cache", "--no-results", "--format", "json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no problems/ here: the constraint test names its problem set
    return tmp_path


def test_agent_example_writes_a_submission_that_validates_and_verifies(workdir, run_line):
    folder = run_example("agent_harness", workdir)
    assert folder == workdir / "example-agent"
    assert sorted(p.name for p in folder.iterdir()) == ["prereg.yaml", "runs", "submission.yaml"]
    validated = run_line(["validate", str(folder)])
    assert validated.exit_code == 0, validated.output
    assert validated.output.startswith("ok: no problems (1 submission, 2 run logs")
    doc = verify_json(run_line, folder)
    (sub,) = doc["submissions"]
    assert [r["verdict"] for r in sub["runs"]] == ["VALID", "VALID"]
    # the scripted model clicks where the button was: bind drift is recomputed from geometry, not 0
    bind = sub["cells"][0]["metrics"]["gds_bind"]
    assert bind["n_defined"] == 2 and 0 < bind["mean"] < 1
    # the harness's own claim agrees with the recomputed figure
    (claim,) = sub["claims"]
    assert claim["metric"] == "completions" and claim["agrees"] is True and claim["recomputed"] > 0


def test_constraint_example_plays_the_problem_set_turn_by_turn(workdir, run_line):
    folder = run_example("constraint_harness", workdir, "--limit", "6")
    validated = run_line(["validate", str(folder)])
    assert validated.exit_code == 0, validated.output
    prereg = yaml.safe_load((folder / "prereg.yaml").read_text())
    assert prereg["problem_set"] == "cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0"  # problems/README
    doc = verify_json(run_line, folder, "--problems", str(SUITE))
    (sub,) = doc["submissions"]
    (run,) = sub["runs"]
    assert run["verdict"] == "VALID", run.get("reasons")
    first_six = sorted(p.name for p in SUITE.glob("*.json"))[:6]
    n_turns = sum(len(json.loads((SUITE / name).read_text())["turns"]) for name in first_six)
    assert run["metrics"]["turns"] == n_turns and run["metrics"]["problems_covered"] == 6
    # every 4th turn the scripted model ignores its own (satisfiable) ledger: those turns are drift
    forgotten = sum(t // 4 for name in first_six for t in [len(json.loads((SUITE / name).read_text())["turns"])])
    assert run["metrics"]["drift"] == forgotten > 0
    assert run["metrics"]["contradiction"] == 0


def test_constraint_example_takes_any_model_function(tmp_path):
    """The model is pluggable: a function from the chat so far to the reply text."""
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import constraint_harness
    finally:
        sys.path.remove(str(REPO / "examples"))
    seen: list[list[dict[str, str]]] = []

    def silent(messages: list[dict[str, str]]) -> str:
        seen.append([dict(m) for m in messages])
        return "I cannot answer that."

    folder = constraint_harness.play(tmp_path, silent, "silent", limit=1)
    lines = [json.loads(x) for x in (folder / "runs" / "ledger_only-0.jsonl").read_text().splitlines()]
    turns = [e for e in lines if e["type"] == "turn"]
    assert len(turns) == len(seen) > 0
    assert seen[0][0]["role"] == "system" and seen[0][-1] == {"role": "user", "content": turns[0]["user_message"]}
    assert all(t["raw_response"] == "I cannot answer that." and "ledger" not in t for t in turns)
    assert lines[-1]["type"] == "run_end" and lines[-1]["status"] == "COMPLETED"
