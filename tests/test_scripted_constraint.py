"""The scripted model's constraint behaviours (issue 34): perfect, forgetful, contradicting, offline through Inspect.

Each behaviour plays the first problems of the lite split through `inspect eval` (in-process), the
logs are imported and verified, and each turn's recomputed channel is what the behaviour's rule
says, from the problem files alone: `perfect` answers each turn's gold solution and extracts its
gold constraints (every turn correct and `consistent`); `forgetful` answers turn 1's solution on
every even turn (correct exactly where it still satisfies the gold ledger); `contradicting` commits
an impossible pair from turn 2 on (turn 1 `consistent`, every later turn `contradiction`).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e '.[test,inspect]' (make test does)")

from click.testing import CliRunner
from inspect_ai._cli.main import inspect as inspect_cli

pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in. <function MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]
LITE = REPO / "problems" / "drift-bench-v1-lite"
LIMIT = 4


def _turns(tmp_path: Path, run_line, behaviour: str) -> list[tuple[str, int, str | None, bool]]:
    logs = tmp_path / "logs"
    res = CliRunner().invoke(inspect_cli, [
        "eval", "driftboard/constraint", "--model", "driftboard/scripted", "-M", f"behaviour={behaviour}",
        "-M", f"problems={LITE}", "-T", f"problems={LITE}", "-T", "method=ledger_only", "--limit", str(LIMIT),
        "--log-dir", str(logs)], catch_exceptions=False)
    gc.collect()
    assert res.exit_code == 0, res.output
    out = tmp_path / "subs" / f"scripted-{behaviour}"
    done = run_line(["import", "inspect", *map(str, logs.glob("*.eval")), "--problems", str(LITE), "--out", str(out)])
    assert done.exit_code == 0, done.output
    verified = run_line(["verify", str(out), "--problems", str(LITE), "--no-cache", "--out", str(tmp_path / "res")])
    assert verified.exit_code == 0, verified.output
    doc = json.loads((tmp_path / "res" / f"scripted-{behaviour}.json").read_text())
    (run,) = doc["runs"]
    return [(t["problem_id"], t["turn_number"], t["channel"], t["correct"]) for t in run["turns"]]


def _lengths() -> dict[str, int]:
    """Turns per problem of the first LIMIT problems (sample ids in order), from the problem files."""
    problems = sorted((json.loads(p.read_text()) for p in LITE.rglob("*.json")), key=lambda p: p["problem_id"])
    return {p["problem_id"]: len(p["turns"]) for p in problems[:LIMIT]}


def test_perfect_answers_every_turn_and_keeps_the_gold_ledger(tmp_path, run_line):
    turns = _turns(tmp_path, run_line, "perfect")
    assert len(turns) == sum(_lengths().values())
    assert {(c, ok) for *_, c, ok in turns} == {("consistent", True)}


def test_contradicting_makes_every_ledger_after_turn_one_unsatisfiable(tmp_path, run_line):
    turns = _turns(tmp_path, run_line, "contradicting")
    expected = [(pid, t, "consistent" if t == 1 else "contradiction", True)
                for pid, n in _lengths().items() for t in range(1, n + 1)]
    assert turns == expected


def test_forgetful_drifts_on_even_turns_only(tmp_path, run_line):
    turns = _turns(tmp_path, run_line, "forgetful")
    assert len(turns) == sum(_lengths().values())
    for pid, t, channel, correct in turns:
        if t % 2 == 1:
            assert (channel, correct) == ("consistent", True), (pid, t)
        else:  # the ledger is the gold one: an answer satisfies it exactly when it is correct
            assert channel == ("consistent" if correct else "drift"), (pid, t)
    assert any(c == "drift" for *_, c, _ in turns)


def _inspect_program(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """`inspect eval ...` as a program (its own error hook prints a PrerequisiteError as its message alone)."""
    program = Path(sys.executable).parent / "inspect"
    if not program.exists():
        pytest.skip("the inspect program is not installed beside this Python")
    done = subprocess.run([str(program), "eval", "driftboard/constraint", *args, "--log-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, check=False, cwd=tmp_path, env={**os.environ, **(env or {})})
    return done.stdout + done.stderr


def test_constraint_behaviours_need_the_problem_set(tmp_path):
    out = _inspect_program(tmp_path, "--model", "driftboard/scripted", "-M", "behaviour=perfect",
                           "-T", f"problems={LITE}", "--limit", "1")
    assert "-M behaviour=perfect answers from a problem set's gold solutions: give -M problems=DIR" in " ".join(out.split())
    assert "Traceback" not in out


def test_a_wrong_problems_path_is_one_line(tmp_path):
    out = _inspect_program(tmp_path, "--model", "driftboard/scripted", "-T", "problems=nope")
    assert " ".join(out.split()) == ("-T problems=nope: nope: no such file or directory (give the folder of a problem "
                                     "set, e.g. problems/drift-bench-v1-lite)")


def test_offline_mockllm_is_one_line_naming_the_scripted_model(tmp_path):
    out = _inspect_program(tmp_path, "--model", "mockllm/model", "-T", f"problems={LITE}", "--limit", "1",
                           env={"TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache")})
    assert "use --model driftboard/scripted -M behaviour=perfect -M problems=DIR" in " ".join(out.split())
    assert "Traceback" not in out


def test_import_exits_1_when_the_kept_preregistration_names_another_problem_set(tmp_path, run_line):
    """`init` pre-registered the suite; the logs ran on the lite split: the import says where, and exits 1."""
    logs = tmp_path / "logs"
    res = CliRunner().invoke(inspect_cli, [
        "eval", "driftboard/constraint", "--model", "driftboard/scripted", "-M", "behaviour=perfect",
        "-M", f"problems={LITE}", "-T", f"problems={LITE}", "-T", "method=ledger_only", "--limit", "1",
        "--log-dir", str(logs)], catch_exceptions=False)
    gc.collect()
    assert res.exit_code == 0, res.output
    subs = tmp_path / "subs"
    made = run_line(["init", "mylab-x", "--track", "constraint", "--out", str(subs),
                     "--split", str(REPO / "problems" / "driftboard-suite-v1")])
    assert made.exit_code == 0, made.output
    prereg = subs / "mylab-x" / "prereg.yaml"
    line = next(n for n, text in enumerate(prereg.read_text().splitlines(), 1) if text.startswith("problem_set:"))
    done = run_line(["import", "inspect", *map(str, logs.glob("*.eval")), "--problems", str(LITE),
                     "--out", str(subs / "mylab-x")])
    assert done.exit_code == 1, done.output
    # digests as problems/README.md publishes them
    assert (f"{prereg}:{line}: problem_set is cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0, but "
            "the logs ran on drift-bench-v1-lite (c97c5fc3c39e9faa136cb9340687ddff0a1180a5dfcf7aedf9f48be0cd045001)") \
        in done.output
