"""The six gate conditions, both profiles, thresholds from the pre-registration (arg-spec.md §b)."""

from __future__ import annotations

from agent_helpers import beat, context, echo, llm, make_run, reject, scored, startup

from checker.agent.gate import run_gate
from checker.agent.replay import replay
from checker.format.schema.manifest import Thresholds


def gate(tmp_path, events, profile="driftboard", **th):
    return run_gate(replay(make_run(tmp_path, events)), Thresholds(**th), profile)


def test_empty_run_with_startup_row_is_valid_and_says_not_applicable(tmp_path):
    g = gate(tmp_path, [startup(None)])
    assert g.verdict == "VALID"
    assert {k: c.status for k, c in g.conditions.items()} == {
        "render_ceiling": "NOT_APPLICABLE", "silent_degrade": "NOT_APPLICABLE", "startup_probe": "NOT_APPLICABLE",
        "shadow_identity": "NOT_APPLICABLE", "canary_echo": "NOT_APPLICABLE", "write_error_rate": "NOT_APPLICABLE",
        "evidence": "NOT_APPLICABLE",  # run_gate without evidence checks (score_run runs them in profile driftboard)
    }
    assert g.legibility.startup_ok is True


def test_missing_startup_row_invalidates(tmp_path):
    g = gate(tmp_path, [])
    assert g.verdict == "INVALID"
    assert g.reasons == ["startup probe: no startup_probe event"]


def test_startup_tri_state(tmp_path):
    assert gate(tmp_path, [startup(True)]).conditions.startup_probe.status == "PASS"
    g = gate(tmp_path / "x", [startup(False)])
    assert g.conditions.startup_probe.status == "FAIL"
    assert g.verdict == "INVALID"


def test_render_ceiling_is_strict_and_counts_beats_and_calls(tmp_path):
    events = [startup(), beat(1, render_tokens=40), beat(2, render_tokens=41), llm(2, "SURVEYOR", render_tokens=99)]
    g = gate(tmp_path, events, render_ceiling_B=40)
    c = g.conditions.render_ceiling
    assert (c.status, c.breaches, c.beat_breaches, c.call_breaches, c.max_render_tokens) == (
        "FAIL", 2, 1, 1, 99)
    assert g.legibility.r9_breaches == 2
    assert gate(tmp_path / "b", events, render_ceiling_B=99).verdict == "VALID"


def test_silent_degrade_ignores_reset_rows(tmp_path):
    events = [startup(), beat(0, "RESET", drift_ref=None), beat(1, drift_ref=None), beat(2)]
    g = gate(tmp_path, events)
    c = g.conditions.silent_degrade
    assert (c.status, c.count, c.acted_beats) == ("FAIL", 1, 2)


def capture(turn, shadow, digest, organ="SURVEYOR", call_idx=1):
    return {"type": "render_capture", "turn": turn, "organ": organ, "call_idx": call_idx, "zone": "Z2",
            "view_sha256": digest * 64, "shadow": shadow}


def test_shadow_identity_vacuous_pass_and_fail(tmp_path):
    assert gate(tmp_path / "a", [startup(), capture(1, False, "a")]).conditions.shadow_identity.status == \
        "NOT_APPLICABLE"
    assert gate(tmp_path / "b", [startup(), capture(1, False, "a"), capture(1, True, "a")]).verdict == "VALID"
    g = gate(tmp_path / "c", [startup(), capture(1, False, "a"), capture(1, True, "b")])
    assert g.conditions.shadow_identity.differing == 1
    assert g.legibility.shadow_ok is False


def test_shadow_identity_needs_a_live_and_a_shadow_capture(tmp_path):
    # only shadow captures (or only live ones), however their digests differ: no pair in either profile
    for k, profile in enumerate(("driftboard", "arg-v1.0")):
        for flag in (True, False):
            events = [startup(), capture(1, flag, "a"), capture(1, flag, "b"), capture(2, flag, "c", call_idx=2)]
            cond = gate(tmp_path / f"{k}{flag}", events, profile).conditions.shadow_identity
            assert (cond.status, cond.paired_groups, cond.differing) == ("NOT_APPLICABLE", 0, 0)


def test_shadow_identity_profiles_differ_on_earlier_captures(tmp_path):
    # two shadow captures in one (turn, zone) from different calls: arg-v1.0 keeps only the last one
    events = [startup(), capture(1, False, "a", call_idx=1), capture(1, True, "b", call_idx=1),
              capture(1, True, "a", call_idx=2), capture(1, False, "a", call_idx=2)]
    assert gate(tmp_path / "a", events, "arg-v1.0").verdict == "VALID"
    assert gate(tmp_path / "b", events, "driftboard").verdict == "INVALID"


def test_canary_warmup_and_profiles(tmp_path):
    # call_idx 1-2 are warm-up and ignored; after it Z2 echoes 1/2, Z3 2/2
    events = [startup(), echo(1, "Z2", 1, False), echo(1, "Z3", 2, False),
              echo(3, "Z2", 3, True), echo(3, "Z2", 4, False), echo(3, "Z3", 3, True), echo(4, "Z3", 4, True)]
    arg = gate(tmp_path / "a", events, "arg-v1.0")
    assert arg.conditions.canary_echo.rates == {"Z2": 0.5, "Z3": 1.0}
    assert arg.conditions.canary_echo.rows_used == 4
    assert arg.verdict == "VALID"  # ARG's code: fails only when every zone is below the floor
    db = gate(tmp_path / "b", events, "driftboard")
    assert db.verdict == "INVALID"  # the paper's rule: any zone below the floor
    assert db.conditions.canary_echo.zones_below == ["Z2"]


def test_canary_every_zone_below_floor_fails_in_both_profiles(tmp_path):
    events = [startup(), echo(3, "Z2", 3, False), echo(3, "Z3", 3, True), echo(4, "Z3", 4, False)]
    for profile in ("arg-v1.0", "driftboard"):
        g = gate(tmp_path / profile, events, profile)
        assert g.verdict == "INVALID"
        assert g.legibility.zcr_uniform_fail is True


def test_canary_short_run_falls_back_to_all_rows(tmp_path):
    g = gate(tmp_path, [startup(), echo(1, "Z2", 1, False), echo(1, "Z2", 2, True)], "arg-v1.0")
    c = g.conditions.canary_echo
    assert c.fallback_all_rows is True
    assert c.rates == {"Z2": 0.5}
    assert g.verdict == "INVALID"


def test_canary_echo_recomputed_from_output_text(tmp_path):
    events = [startup(), echo(3, "Z2", 3, True, nonce="ZQ1", output_text="no nonce here")]
    db = gate(tmp_path / "a", events, "driftboard")
    assert db.verdict == "INVALID"
    assert db.echo_mismatches[0].recorded is True and db.echo_mismatches[0].recomputed is False
    arg = gate(tmp_path / "b", events, "arg-v1.0")
    assert arg.verdict == "VALID"  # arg-v1.0 takes the recorded value, but still lists the mismatch
    assert len(arg.echo_mismatches) == 1


def test_wer_min_ops_guard_and_strict_floor(tmp_path):
    # OBSERVER: 1 reject + 3 accepted = 4 ops < 5: not judged even though 0.25 < WER
    events = [startup(), reject(1, "OBSERVER"), llm(1, "OBSERVER", ops_accepted=3)]
    g = gate(tmp_path / "a", events)
    assert g.conditions.write_error_rate.status == "NOT_APPLICABLE"
    assert g.conditions.write_error_rate.organs["OBSERVER"].ops == 4
    # 2 rejects + 6 accepted = 8 ops: 0.25, not above the floor (strict >)
    events = [startup(), reject(1, "SURVEYOR"), reject(1, "SURVEYOR"), llm(1, "SURVEYOR", ops_accepted=6)]
    assert gate(tmp_path / "b", events).verdict == "VALID"
    events.append(reject(2, "SURVEYOR"))
    g = gate(tmp_path / "c", events)
    assert g.verdict == "INVALID"
    assert g.legibility.wer_by_organ == {"SURVEYOR": 0.333}
    assert "SURVEYOR 3/9 = 0.333" in g.reasons[0]


def test_thresholds_come_from_the_prereg(tmp_path):
    run = make_run(tmp_path, [startup(), beat(1, render_tokens=100)])
    assert scored(run, context(render_ceiling_B=99))["verdict"] == "INVALID"
    assert scored(run, context(render_ceiling_B=100))["verdict"] == "VALID"


def test_every_reason_is_listed(tmp_path):
    events = [beat(1, drift_ref=None, render_tokens=7000), reject(1, "ACTUATOR", retry_count=0)] + \
        [reject(1, "ACTUATOR") for _ in range(5)]
    res = scored(make_run(tmp_path, events), context())
    assert res["verdict"] == "INVALID"
    assert [r.split(":")[0] for r in res["reasons"]] == [
        "render ceiling", "silent degrade", "startup probe", "write-error rate above 0.25 (min ops 5)",
        "evidence"]  # 6 ACTUATOR reject rows that no LLM call records as rejected ops


def test_incomplete_run_keeps_its_gate(tmp_path):
    res = scored(make_run(tmp_path, [startup(), beat(1)], end=False), context())
    assert res["verdict"] == "INCOMPLETE"
    assert res["gate_verdict"] == "VALID"


def test_comparator_runs_are_gated_as_arg_gates_them(tmp_path):
    # issue 29: ARG's legibility probe gates a comparator's store pair too (no startup row: INVALID)
    ctx = context(cells={"BARE": {"seeds": ["s1"], "comparator": True}})
    res = scored(make_run(tmp_path / "a", [llm(1, "BASELINE", prompt_tokens=10)], comparator=True, cell="BARE"), ctx)
    assert res["verdict"] == "INVALID" and res["gate_verdict"] == "INVALID"
    assert res["legibility"]["verdict"] == "INVALID" and res["legibility"]["startup_ok"] is False
    assert res["metrics"]["llm_tokens"] == 10
    ok = scored(make_run(tmp_path / "b", [startup(), llm(1, "BASELINE", prompt_tokens=10)], comparator=True,
                         cell="BARE"), ctx)
    assert ok["verdict"] == "COMPARATOR" and ok["gate_verdict"] == "VALID"
