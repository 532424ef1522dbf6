"""Regression tests from the review of the constraint track, the site renderer and the CI glue."""

from __future__ import annotations

import json
import re
from pathlib import Path

from constraint_helpers import seating_problem, write_problems, write_transcript

from checker.cli.ci_summary import code, parse_document, render_summary
from checker.format.logio import RunLogWriter

GOLD = seating_problem()
C1 = {"id": "C001", "type": "at_position", "args": ["Ann", 1]}


def _imported(tmp_path: Path, run_line) -> tuple[Path, Path, Path]:
    problems = write_problems(tmp_path / "problems", [GOLD])
    traces = [
        {"model": "m1", "turn_number": 1, "response_snippet": '{"Ann":1}', "ledger": [C1], "z3_sat": 1,
         "answer_correct": 1},
        {"model": "m1", "turn_number": 2, "response_snippet": "no idea", "ledger": [C1], "z3_sat": 1,
         "answer_correct": 0},
    ]
    src = write_transcript(tmp_path / "t.jsonl", GOLD, traces)
    out = tmp_path / "subs" / "toy"
    assert run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(out)]).exit_code == 0
    (log,) = sorted((out / "runs").glob("*.jsonl"))
    return problems, out, log


def _rewrite(log: Path, events: list[dict]) -> None:
    """Rewrite a run log (valid hash chain) with the same run_start and the given events."""
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    start = {k: v for k, v in lines[0].items() if k not in ("seq", "prev", "type", "format_version")}
    log.unlink()
    with RunLogWriter(log, start) as w:
        for e in events:
            w.write(e)
        w.end("COMPLETED", "rewritten")


def _events(log: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(x).items() if k not in ("seq", "prev")}
            for x in log.read_text().splitlines()[1:-1]]


def test_a_turn_logged_twice_makes_the_run_invalid_and_is_counted_once(tmp_path, run_line):
    problems, out, log = _imported(tmp_path, run_line)
    problem_start, turn1, _turn2 = _events(log)
    # the easy, correct turn 1 logged five times, the wrong turn 2 left out: accuracy would read 1.0
    _rewrite(log, [problem_start, *[turn1] * 5])
    assert run_line(["validate", str(out)]).exit_code == 0
    res = run_line(["verify", "--no-results", str(out), "--problems", str(problems), "--format", "json"])
    (run,) = json.loads(res.output)["submissions"][0]["runs"]
    assert run["verdict"] == "INVALID"
    assert run["metrics"]["turns"] == 1
    assert any(f"{log}:4: turn 1 of 'seating_001' is logged again (first at line 3)" in r for r in run["reasons"])


def test_ci_summary_code_cells_do_not_render_markdown():
    evil = "[click](https://evil.example) *b* _i_ `c` ~~s~~ \\"
    out = code(evil)
    for ch in "[]*_`~\\":
        assert ch not in out, ch
    assert out.startswith("<code>") and out.endswith("</code>")
    # a cell name reaches the summary through code(): no live link can come out of it
    doc = parse_document({"submissions": [{
        "path": "submissions/x", "submission_id": "x", "profile": "driftboard", "cached": False,
        "runs": [{"path": "submissions/x/runs/a.jsonl", "run_id": evil, "cell": evil, "verdict": "VALID"}],
        "claims": [{"cell": evil, "metric": "turn_accuracy", "claimed": 1, "recomputed": 0, "agrees": False}]}]}, "test")
    text = render_summary(doc)
    assert not re.search(r"(?<!\\)\[click(?<!\\)\]\(", text), text


DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_json_is_an_error_message_not_a_traceback(tmp_path, run_line):
    # a problem file
    bad = tmp_path / "deep" / "seating_001.json"
    bad.parent.mkdir()
    bad.write_text(DEEP)
    problems, out, _log = _imported(tmp_path, run_line)
    res = run_line(["verify", "--no-results", str(out), "--problems", str(bad.parent)])
    assert res.exit_code == 2
    assert f"{bad.as_posix()}: invalid JSON" in res.output
    # a transcript line and a transcript ledger string
    src = tmp_path / "deep.jsonl"
    src.write_text(DEEP + "\n")
    res = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o1")])
    assert res.exit_code == 2 and f"{src}:1: invalid JSON" in res.output
    write_transcript(src, GOLD, [{"model": "m", "turn_number": 1, "response_snippet": "{}", "ledger": DEEP}])
    res = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o2")])
    assert res.exit_code == 2 and "ledger is not valid JSON" in res.output
    # a verify document given to ci-summary
    doc = tmp_path / "verify.json"
    doc.write_text(DEEP)
    res = run_line(["ci-summary", str(doc)])
    assert res.exit_code == 2 and "not JSON" in res.output


def test_a_malformed_gold_constraint_is_named_not_reported_as_unsatisfiable():
    from checker.constraint.problems import validate_problem

    p = seating_problem()
    bad = {"type": "adjacent", "args": ["Ann", "Zed"], "nl": "Ann sits next to Zed"}
    p["turns"][1]["new_constraints"] = [bad]
    p["turns"][1]["cumulative_constraints"] = [*p["turns"][0]["cumulative_constraints"], bad]
    problem, errs = validate_problem(p, "f.json", "seating_001")
    assert problem is None
    assert len(errs) == 1 and errs[0].startswith("f.json:turns[1].new_constraints[0]: malformed constraint 'adjacent'")
