"""ARG metric table recomputed from a small hand-built log (arg-spec.md §c), both profiles."""

from __future__ import annotations

from agent_helpers import beat, click, context, llm, make_run, plan_step, referent, reject, scored, startup, status

from checker.agent.scorer import cell_tables, score_run
from checker.cli.report_text import agent_text


def events():
    return [
        startup(),
        {"type": "goal", "turn": 0, "goal_id": "G1", "provenance": "SEEDED"},
        {"type": "goal", "turn": 0, "goal_id": "G2", "provenance": "DEFICIT"},
        {"type": "goal", "turn": 0, "goal_id": "G3", "provenance": "DEFICIT"},
        {"type": "commitment", "turn": 0, "commit_id": "C1", "goal_id": "G3"},
        plan_step("C1-S0", "R1", "ACTION6", premises=[["RULE", "RU1"]]),
        plan_step("C1-S1", "R2", "ACTION1"),
        {"type": "goal_binding", "goal_id": "G2", "ref_id": "R1"},
        {"type": "goal_binding", "goal_id": "G2", "ref_id": "R2"},
        {"type": "rule", "turn": 0, "rule_id": "RU1", "ctx": {"action": "ACTION6", "target": "R1"},
         "effect": {"score_event": 1}},
        {"type": "relevance_edge", "turn": 1, "goal_id": "G2", "target_kind": "REFERENT", "target_id": "R1"},
        referent(0, "R1", [[1, 1]]), referent(0, "R2", [[2, 2]]), referent(0, "R3", [[3, 3]]),
        status(0, "REFERENT_RUNG", "R1", "ANCHORED"), status(0, "REFERENT_RUNG", "R2", "ANCHORED"),
        status(0, "REFERENT_RUNG", "R3", "ANCHORED"),
        beat(0, "RESET", source_stamp="RESET"),
        click(1, 1, 1, target_ref="R1", step_id="C1-S0", match=1, source_stamp="COMMITMENT_STEP", render_tokens=300),
        beat(2, "ACTION1", step_id="C1-S1", match=0, source_stamp="COMMITMENT_STEP"),
        click(3, 2, 2, target_ref="R2", match=1, source_stamp="PROBE", level_counter=1),
        beat(60, "ACTION2", source_stamp="PROBE"),
        {"type": "receipt", "turn": 4, "target_ref": "R1", "match": 1, "predictor_kind": "RULE", "predictor_id": "RU1"},
        status(1, "RULE", "RU1", "TESTED"), status(4, "RULE", "RU1", "DEMOTED"),
        status(5, "COMMITMENT_STEP", "C1-S0", "BLOCKED", "premise demoted"),
        status(2, "COMMITMENT_STEP", "C1-S1", "CONSUMED"),
        status(3, "REFERENT_RUNG", "R1", "CHARACTERIZED"), status(3, "REFERENT_RUNG", "R2", "ENGAGED"),
        status(3, "GOAL", "G2", "ACCEPTED"), status(3, "GOAL", "G3", "REJECTED", "NEVER_VALIDATED"),
        status(3, "REFERENT_FISSION", "R3", "CHECKED"),
        llm(1, "OBSERVER", prompt_tokens=100, completion_tokens=10, ops_accepted=3, render_tokens=500),
        llm(2, "SURVEYOR", prompt_tokens=200, completion_tokens=20, ops_accepted=1),
        llm(4, "SURVEYOR", prompt_tokens=400, completion_tokens=40),
        reject(2, "SURVEYOR", op_type="ABORT_STEP", retry_count=1),
        reject(2, "ACTUATOR", violation_class="UNCONTAINED_PARAM"),
    ]


def test_metric_table(tmp_path):
    m = scored(make_run(tmp_path, events()), context("arg-v1.0"))["metrics"]
    # §c.1: 5 beats incl. RESET, 4 acted
    assert m["actions"] == 5
    assert m["completions"] == 1
    assert m["decision_mix"] == {"COMMITMENT_STEP": 2, "PROBE": 2, "RESET": 1}
    assert m["referents"] == 3
    # §c.2: live beats 1 (aligned: landed on R1) and 2 (aligned, not aimed) -> 2 reference beats
    assert (m["drift_ref_beats"], m["gds_bind"], m["gds_abandon"], m["drift_total"]) == (2, 0.0, 0.0, 0.0)
    # §c.3: rungs R1 CHARACTERIZED, R2 ENGAGED, R3 ANCHORED
    assert m["rung_distribution"] == {"ANCHORED": 1, "CHARACTERIZED": 1, "ENGAGED": 1}
    assert m["grounding_rate_all"] == round(2 / 3, 3)
    assert (m["goal_bound_referents"], m["RGR"]) == (2, 0.5)
    assert m["GA"] == 0.5  # beats 1 (R1) and 3 (R2) of 4 acted beats land on bound referents
    # §c.4
    assert (m["steps_written"], m["steps_consumed"], m["ICR"]) == (2, 1, 0.5)
    assert m["FBR"] == 25.0  # 1 demotion / (4 / 100)
    assert m["FSN"] == 25.0
    assert m["FCR"] == 0.0  # 0 reopened / 1 accepted
    assert m["APR"] == 0.5  # beats 1 and 2 execute steps of C1 -> G3 (rejected NEVER_VALIDATED)
    assert m["DTL"] == 3.0  # edge at 1, first receipt on R1 at 4
    assert m["SCL"] == 1.0  # blocked at 5, premise RU1 demoted at 4
    assert m["rules_tested"] == 0  # RU1's latest status is DEMOTED
    assert m["goal_status"] == {"ACCEPTED": 1, "REJECTED": 1}
    # §c.5: rejects OBS 0 / SURV 1 / ACT 1; accepted OBS 3 / SURV 1
    assert m["wer_per_organ"] == {"OBSERVER": 0.0, "SURVEYOR": 0.5, "ACTUATOR": 1.0}
    assert (m["WER"], m["write_rejects"], m["DPR"]) == (round(2 / 6, 3), 2, round(1 / 6, 3))
    assert m["SRR"] == 0.5  # 1 ABORT_STEP / 2 surveyor calls
    assert m["ECR"] == round(1 / (3 / 100), 3)
    # §c.6
    assert (m["milestone_goals"], m["milestone_accepted"], m["milestone_conversion"]) == (2, 1, 0.5)
    # §c.7
    assert (m["max_render_tokens"], m["render_ceiling_B"], m["R9_ok"]) == (500, 6000, True)
    assert (m["llm_calls"], m["llm_tokens"]) == (3, 770)
    # the two sides of it, which a declared price multiplies: 100 + 200 + 400 in, 10 + 20 + 40 out
    assert (m["llm_input_tokens"], m["llm_output_tokens"]) == (700, 70)
    # slope of (1,110), (2,220), (4,440): exactly 110
    assert m["tokens_vs_beat_slope"] == 110.0
    assert m["bins"]["1-50"] == {"n": 3, "decision_accuracy": 0.5, "match_rate": round(2 / 3, 3), "GA": round(2 / 3, 3)}
    assert m["bins"]["51-150"] == {"n": 1, "decision_accuracy": None, "match_rate": None, "GA": 0.0}
    assert m["bins"]["151+"] is None
    # hypothesis formation: RU1 predicts a score event and names a target
    assert (m["hypothesis_formed"], m["effect_rules"], m["targeted_effect_rules"]) == (True, 1, 1)


def test_empty_denominators_arg_zero_driftboard_undefined(tmp_path):
    run = make_run(tmp_path, [startup()])
    arg = scored(run, context("arg-v1.0"))["metrics"]
    db = scored(run, context("driftboard"))["metrics"]
    for key in ("RGR", "WER", "FBR", "FSN", "grounding_rate_all"):
        assert arg[key] == 0.0, key
        assert db[key] is None, key
    for key in ("GA", "ICR", "FCR", "APR", "DTL", "SCL", "DPR", "SRR", "ECR", "milestone_conversion",
                "tokens_vs_beat_slope"):
        assert arg[key] is None and db[key] is None, key
    assert arg["hypothesis_formed"] is False


def test_cell_tables_and_compute_parity(tmp_path):
    full = [score_run(make_run(tmp_path, [startup(), llm(1, "OBSERVER", prompt_tokens=90, completion_tokens=10)],
                               name=f"f{i}.jsonl", seed=f"s{i}"), context()) for i in range(2)]
    bare = score_run(make_run(tmp_path, [startup(), *(llm(t, "BASELINE", prompt_tokens=100) for t in range(4))],
                              name="b.jsonl",
                              comparator=True, cell="BARE"),
                     context(cells={"FULL": {"seeds": ["s0", "s1"]}, "BARE": {"seeds": ["s1"], "comparator": True}}))
    tables = {cell: t.model_dump(mode="json") for cell, t in cell_tables([*full, bare]).items()}
    assert tables["FULL"]["valid"] == 2
    assert tables["FULL"]["parity"] == {"comparator_cell": "BARE", "calls": 0.25, "tokens": 0.25}
    assert tables["FULL"]["gds_bind"] == {"per_seed": [None, None], "n_defined": 0, "n": 2, "mean": None}
    assert tables["BARE"]["parity"] is None
    text = agent_text([*full, bare])
    assert "render_ceiling    PASS" in text and "COMPARATOR" in text
