"""The constraint scorer end to end on a hand-built transcript (expectations worked out by hand)."""

from __future__ import annotations

import json

import pytest
from constraint_helpers import seating_problem, write_problems, write_transcript

GOLD = seating_problem()
C1 = {"id": "C001", "type": "at_position", "args": ["Ann", 1]}
C2 = {"id": "C002", "type": "left_of", "args": ["Bob", "Ann"]}
C3 = {"id": "C003", "type": "not_adjacent", "args": ["Cid", "Bob"]}
C4 = {"id": "C004", "type": "at_position", "args": ["Bob", 1]}
TRACES = [
    # m1: t1 consistent and correct; t2 forgot C003: consistent with its ledger but wrong (recorded as correct)
    {"model": "m1", "turn_number": 1, "response_snippet": '{"solution": {"Ann":1,"Bob":2,"Cid":3,"Dee":4}}',
     "ledger": [C1, C2], "z3_sat": 1, "answer_correct": 1},
    {"model": "m1", "turn_number": 2, "response_snippet": '{"Ann":1,"Bob":2,"Cid":3,"Dee":4}',
     "ledger": [C1, C2], "z3_sat": 1, "answer_correct": 1},
    # m2: t1 unparseable; t2 contradictory ledger (MUS C001+C004) recorded as SAT, right answer
    {"model": "m2", "turn_number": 1, "response_snippet": "I cannot decide.", "ledger": [C1, C2],
     "z3_sat": 1, "answer_correct": 0},
    {"model": "m2", "turn_number": 2, "response_snippet": '<think>{"Ann": 2}</think>{"Ann":1,"Bob":2,"Cid":4,"Dee":3}',
     "ledger": [C1, C2, C3, C4], "z3_sat": 1, "answer_correct": 1},
    # m3 (direct, no ledger): a partial answer that extends to a solution is correct; every turn is logged
    {"model": "m3", "turn_number": 1, "response_snippet": '{"Ann": 1}', "answer_correct": 1},
    {"model": "m3", "turn_number": 2, "response_snippet": '{"Ann":1,"Bob":2,"Cid":4,"Dee":3}', "answer_correct": 1},
]


@pytest.fixture
def verified(tmp_path, run_line):
    problems = write_problems(tmp_path / "problems", [GOLD])
    src = write_transcript(tmp_path / "t.jsonl", GOLD, TRACES)
    out = tmp_path / "subs" / "toy"
    assert run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", str(out)]).exit_code == 0
    res = run_line(["verify", "--no-results", str(out), "--problems", str(problems), "--format", "json"])
    data = json.loads(res.output)
    sub = data["submissions"][0]
    runs = {r["cell"]: r for r in sub["runs"]}
    cells = {c["cell"]: c["tables"] for c in sub["cells"]}
    assert {c["cell"]: c["metrics"]["turn_accuracy"]["pooled"] for c in sub["cells"]} == {
        "m1/mus_repair": 0.5, "m2/mus_repair": 0.5, "m3/direct": 1.0}
    return res, runs, cells, (run_line, out, problems)


def test_per_turn_records(verified):
    _res, runs, _cells, _ = verified
    assert set(runs) == {"m1/mus_repair", "m2/mus_repair", "m3/direct"}
    t = {(c, r["turn_number"]): r for c, run in runs.items() for r in run["turns"]}
    m1t2 = t[("m1/mus_repair", 2)]
    assert (m1t2["ledger_sat"], m1t2["answer_satisfies_ledger"], m1t2["correct"], m1t2["channel"]) == (
        True, True, False, "consistent")
    m2t1 = t[("m2/mus_repair", 1)]
    assert (m2t1["parse"], m2t1["correct"], m2t1["channel"]) == (False, False, "other")
    m2t2 = t[("m2/mus_repair", 2)]
    assert (m2t2["ledger_sat"], m2t2["mus"], m2t2["channel"], m2t2["correct"]) == (
        False, ["C001", "C004"], "contradiction", True)
    m3t1 = t[("m3/direct", 1)]
    assert (m3t1["parse"], m3t1["complete"], m3t1["correct"], m3t1["channel"]) == (True, False, True, None)


def test_mismatches_name_line_turn_and_reason(verified):
    _res, runs, _cells, _ = verified
    m1 = runs["m1/mus_repair"]["mismatches"]
    assert [(m["turn_number"], m["field"], m["recorded"], m["recomputed"]) for m in m1] == [(2, "answer_correct", 1, 0)]
    assert m1[0]["line"] == 4 and "does not extend" in m1[0]["reason"]
    m2 = runs["m2/mus_repair"]["mismatches"]
    assert [(m["turn_number"], m["field"], m["recorded"], m["recomputed"]) for m in m2] == [(2, "z3_sat", 1, 0)]
    assert runs["m3/direct"]["mismatches"] == []


def test_cell_tables_and_undefined_metrics(verified):
    _res, runs, cells, _ = verified
    m1 = cells["m1/mus_repair"]["overall"]
    assert (m1["turns"], m1["correct_turns"], m1["turn_accuracy"]) == (2, 1, 0.5)
    assert (m1["total_residual"], m1["residual_drift"], m1["drift_rate"]) == (1, 1, 1.0)
    m2 = cells["m2/mus_repair"]["overall"]
    # reference residual filters: an unparsed answer under a SAT ledger is "drift" (drift-spec §b.6)
    assert (m2["residual_drift"], m2["residual_other"], m2["residual_contradiction"], m2["unsat_upper_bound"]) == (
        1, 0, 0, 1)
    assert (m2["contradiction"], m2["other"], m2["contradiction_share"]) == (1, 1, 0.5)
    m3 = cells["m3/direct"]["overall"]
    assert m3["drift_rate"] is None and m3["consistent_share"] is None and m3["ledger_turns"] == 0
    assert m3["accuracy_depth_3"] is None and m3["accuracy_depth_1"] == m3["accuracy_depth_2"] == 1.0
    depth = cells["m1/mus_repair"]["by_depth"]["per_turn"]
    assert depth[1] == {"depth": 2, "n_turns": 1, "correct": 0, "accuracy": 0.0}
    assert cells["m1/mus_repair"]["by_domain"]["seating"]["turns"] == 2
    assert all(r["verdict"] == "VALID" for r in runs.values())


def test_text_output_has_tables_and_turn_records(verified):
    _res, _runs, _cells, (run_line, out, problems) = verified
    res = run_line(["verify", "--no-results", str(out), "--problems", str(problems)])
    assert "Channels per cell" in res.output and "Residual decomposition" in res.output
    assert "Per-turn records" in res.output and "C001,C004" in res.output
    assert "answer_correct recorded 1, recomputed 0" in res.output


def test_missing_problem_set_leaves_the_run_unverified(verified, tmp_path):
    """A run whose problem set is not given is reported UNVERIFIED (exit 1); verification goes on."""
    _res, _runs, _cells, (run_line, out, _problems) = verified
    other = write_problems(tmp_path / "other", [seating_problem("seating_777")])
    res = run_line(["verify", str(out), "--problems", str(other), "--no-cache", "--out", str(tmp_path / "res"),
                    "--format", "json"])
    assert res.exit_code == 1
    import json

    doc = json.loads(res.stdout)
    assert {r["verdict"] for s in doc["submissions"] for r in s["runs"]} == {"UNVERIFIED"}
    missing = [p for p in doc["problems"] if "no --problems path provides it" in p["message"]]
    assert [p["line"] for p in missing] == [1] * len(missing) and missing, doc["problems"]


@pytest.mark.parametrize("field, value", [("channel", "consistnet"), ("channel", ""), ("parse", 1), ("correct", None),
                                          ("ledger_sat", "true"), ("mus", "C001"), ("line", "4")])
def test_an_invalid_turn_field_raises(field, value):
    """A turn is validated when the scorer converts its record: a wrong channel or type raises, never passes."""
    from pydantic import ValidationError

    from checker.constraint.turns import TurnRecord

    rec = TurnRecord(4, "seating_001", "seating", 2, 2, 1, 1, parse=True, complete=True, ledger_sat=True,
                     answer_satisfies_ledger=True, correct=True, channel="consistent")
    assert rec.result().channel == "consistent"
    setattr(rec, field, value)
    with pytest.raises(ValidationError, match=field):
        rec.result()


def test_the_scorer_refuses_a_wrong_channel(verified, monkeypatch):
    """End to end: a scorer bug that gives a turn an unknown channel fails verification loudly."""
    from pydantic import ValidationError

    from checker.constraint import scorer

    _res, _runs, _cells, (run_line, out, problems) = verified
    monkeypatch.setattr(scorer, "channel_of", lambda rec: "consistnet")
    with pytest.raises(ValidationError, match="channel"):
        run_line(["verify", "--no-results", "--no-cache", str(out), "--problems", str(problems), "--format", "json"])


def test_tokens_are_undefined_unless_every_turn_records_them(verified):
    """DRIFT-Bench transcripts record no `tokens_in`: the run's token figures are undefined (None), never 0."""
    _res, runs, _cells, _ = verified
    assert {(c, run["metrics"]["llm_tokens"], run["metrics"]["llm_input_tokens"]) for c, run in runs.items()} == {
        (c, None, None) for c in runs}


def test_token_figures_sum_every_turn_or_none():
    from types import SimpleNamespace

    from checker.constraint.scorer import token_figures
    from checker.format.schema.constraint import ProblemStart, Turn

    start, turn = (cls.model_config["json_schema_extra"]["examples"][0] for cls in (ProblemStart, Turn))

    def run(*tokens):
        events = [ProblemStart.model_validate(start)]
        events += [Turn.model_validate({**turn, "tokens_in": i, "tokens_out": o}) for i, o in tokens]
        return SimpleNamespace(events=events)

    assert token_figures(run((812, 64), (900, 70))) == {"llm_tokens": 1846, "llm_input_tokens": 1712,
                                                        "llm_output_tokens": 134}
    assert token_figures(run((812, 64), (900, None))) == dict.fromkeys(("llm_tokens", "llm_input_tokens",
                                                                        "llm_output_tokens"))
    assert token_figures(run()) == dict.fromkeys(("llm_tokens", "llm_input_tokens", "llm_output_tokens"))
