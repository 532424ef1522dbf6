"""`driftboard import drift-bench`: transcripts and SQLite results databases."""

from __future__ import annotations

import json
import shutil
import sqlite3

from constraint_helpers import seating_problem, write_problems, write_transcript

GOLD = seating_problem()
LEDGER = [{"id": "C001", "type": "at_position", "args": ["Ann", 1], "nl": "Ann at 1", "source_turn": 1}]
SCHEMA = """CREATE TABLE results (id INTEGER PRIMARY KEY AUTOINCREMENT, model TEXT NOT NULL, method TEXT NOT NULL,
 domain TEXT NOT NULL, problem_id TEXT NOT NULL, turn_number INTEGER NOT NULL, raw_response TEXT, tokens_in INTEGER,
 tokens_out INTEGER, latency_ms REAL, finish_reason TEXT, response_truncated INTEGER DEFAULT 0, answer_correct INTEGER,
 extraction_null INTEGER, ledger_size INTEGER, ledger_json TEXT, constraint_extraction_success INTEGER, z3_sat INTEGER,
 mus_size INTEGER, mus_json TEXT, repair_attempted INTEGER, repair_trigger TEXT, repair_trigger_count INTEGER,
 repair_reason_json TEXT, z3_error INTEGER DEFAULT 0, timestamp TEXT DEFAULT (datetime('now')))"""


def make_db(path):
    con = sqlite3.connect(path)
    con.execute(SCHEMA)
    rows = [
        ("qwen3-8b", "mus_repair", 1, '{"solution": {"Ann": 1, "Bob": 2, "Cid": 3, "Dee": 4}}', 1, json.dumps(LEDGER), 1,
         json.dumps([{"attempt": 1, "codes": ["answer_ledger_conflict"], "candidate_is_sat": 1, "reasons": []}]),
         "2026-04-01 10:00:00"),
        ("qwen3-8b", "mus_repair", 2, "garbage", 0, json.dumps(LEDGER), 1, None, "2026-04-01 10:05:00"),
        ("qwen3-8b", "direct", 1, '{"Ann": 1}', 1, None, None, None, "2026-04-02 09:00:00"),
    ]
    con.executemany(
        "INSERT INTO results (model, method, domain, problem_id, turn_number, raw_response, answer_correct, ledger_json,"
        " z3_sat, repair_reason_json, timestamp) VALUES (?, ?, 'seating', 'seating_001', ?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return path


def test_sqlite_import_validates_and_verifies(tmp_path, run_line):
    problems = write_problems(tmp_path / "problems", [GOLD])
    db = make_db(tmp_path / "results.db")
    out = tmp_path / "subs" / "from-db"
    assert run_line(["import", "drift-bench", str(db), "--problems", str(problems), "--out", str(out)]).exit_code == 0
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "qwen3-8b--direct--seed42.jsonl", "qwen3-8b--mus_repair--seed42.jsonl"]
    first = json.loads((out / "runs" / "qwen3-8b--mus_repair--seed42.jsonl").read_text().splitlines()[0])
    assert first["started_at"] == "2026-04-01T10:00:00Z" and first["source"]["importer"] == "drift-bench-sqlite@1"
    assert run_line(["validate", str(out)]).exit_code == 0
    res = run_line(["verify", "--no-results", str(out), "--problems", str(problems), "--format", "json"])
    runs = {r["cell"]: r for r in json.loads(res.output)["submissions"][0]["runs"]}
    turns = runs["qwen3-8b/mus_repair"]["turns"]
    assert [(t["correct"], t["ledger_sat"], t["recorded_z3_sat"]) for t in turns] == [(True, True, 1), (False, True, 1)]
    assert runs["qwen3-8b/direct"]["turns"][0]["correct"] is True
    assert runs["qwen3-8b/mus_repair"]["mismatches"] == []


def test_import_is_deterministic(tmp_path, run_line):
    problems = write_problems(tmp_path / "problems", [GOLD])
    src = write_transcript(tmp_path / "t.jsonl", GOLD, [
        {"model": "m", "turn_number": 1, "response_snippet": '{"Ann": 1}', "ledger": LEDGER, "z3_sat": 1,
         "answer_correct": 1, "repair_events": [{"attempt": 1, "codes": ["incomplete_assignment"]}]}])
    out = tmp_path / "subs" / "det"
    args = ["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(out)]
    assert run_line(args).exit_code == 0
    first = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    shutil.rmtree(out)
    assert run_line(args).exit_code == 0
    assert first == {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert run_line(args).exit_code == 2  # out is not empty now


def test_bad_inputs_are_usage_errors(tmp_path, run_line):
    problems = write_problems(tmp_path / "problems", [GOLD])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "problem_intro", "problem_id": "seating_001"}\n{oops\n', encoding="utf-8")
    res = run_line(["import", "drift-bench", str(bad), "--problems", str(problems), "--out", str(tmp_path / "o1")])
    assert res.exit_code == 2 and "bad.jsonl:2: invalid JSON" in res.output
    other = seating_problem("seating_404")
    src = write_transcript(tmp_path / "t.jsonl", other, [{"model": "m", "turn_number": 1, "response_snippet": "{}"}])
    res = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o2")])
    assert res.exit_code == 2 and "seating_404" in res.output
    notdb = tmp_path / "x.db"
    notdb.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    res = run_line(["import", "drift-bench", str(notdb), "--problems", str(problems), "--out", str(tmp_path / "o3")])
    assert res.exit_code == 2 and "Traceback" not in res.output


def test_several_sources_make_one_submission(tmp_path, run_line):
    other = seating_problem("seating_002")
    problems = write_problems(tmp_path / "problems", [GOLD, other])
    trace = {"model": "m", "turn_number": 1, "response_snippet": '{"Ann": 1}', "ledger": LEDGER, "z3_sat": 1,
             "answer_correct": 1}
    for folder in "abc":
        (tmp_path / folder).mkdir()
    both = [trace, {**trace, "turn_number": 2}]  # every turn of each problem (a gap would make the run INCOMPLETE)
    a = write_transcript(tmp_path / "a" / "one.jsonl", GOLD, both)
    b = write_transcript(tmp_path / "b" / "two.jsonl", other, both)
    out = tmp_path / "subs" / "both"
    assert run_line(["import", "drift-bench", str(a), str(b), "--problems", str(problems), "--out", str(out)]).exit_code == 0
    (log,) = sorted((out / "runs").iterdir())
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert sorted(lines[0]["source"]["files"]) == ["one.jsonl", "two.jsonl"]
    assert [(e["problem_id"], e["turn_number"]) for e in lines if e["type"] == "turn"] == [
        ("seating_001", 1), ("seating_001", 2), ("seating_002", 1), ("seating_002", 2)]
    prereg = (out / "prereg.yaml").read_text()
    assert "written_after_runs: true" in prereg
    manifest = (out / "submission.yaml").read_text()
    assert "citation: " in manifest and "Kawada" in manifest and "synthetic: false" in manifest
    assert run_line(["verify", "--no-results", str(out), "--problems", str(problems)]).exit_code == 0
    # the same turn in two sources is refused; so are two different files under one name
    copy = a.with_name("copy.jsonl")
    copy.write_bytes(a.read_bytes())
    res = run_line(["import", "drift-bench", str(a), str(copy), "--problems", str(problems),
                    "--out", str(tmp_path / "subs" / "dup")])
    assert res.exit_code == 2 and "second trace for m/mus_repair seating_001 turn 1" in res.output
    clash = write_transcript(tmp_path / "c" / "one.jsonl", other, [trace])
    res = run_line(["import", "drift-bench", str(a), str(clash), "--problems", str(problems),
                    "--out", str(tmp_path / "subs" / "clash")])
    assert res.exit_code == 2 and "another source file is also named 'one.jsonl'" in res.output


def test_cell_names_never_merge_two_runs(tmp_path, run_line):
    problems = write_problems(tmp_path / "problems", [GOLD])
    base = {"turn_number": 1, "response_snippet": '{"Ann": 1}'}
    src = write_transcript(tmp_path / "t.jsonl", GOLD, [
        {**base, "model": "org/m", "method": "x"}, {**base, "model": "org", "method": "m/x"}])
    res = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "would share the cell name 'org/m/x'" in res.output
    assert not (tmp_path / "o").exists()
