"""Each gate condition's module returns its typed result model (values worked out by hand on tiny replayed runs).

A run log's line 1 is `run_start`; the events below follow from line 2 on.
"""

from __future__ import annotations

from agent_helpers import beat, echo, llm, make_run, reject, startup

from checker.agent.evidence import check_evidence
from checker.agent.gate import (
    GATE,
    canary_echo,
    evidence,
    render_ceiling,
    run_gate,
    shadow_identity,
    silent_degrade,
    startup_probe,
    write_error_rate,
)
from checker.agent.gate.condition import GateInputs
from checker.agent.replay import replay
from checker.format.results_model import (
    CanaryEchoResult,
    EvidenceConditionResult,
    GateConditions,
    Legibility,
    Mismatch,
    OrganWer,
    RenderCeilingResult,
    ShadowGroupDiff,
    ShadowIdentityResult,
    ShadowPairDiff,
    SilentDegradeResult,
    StartupProbeResult,
    WriteErrorRateResult,
)
from checker.format.schema.manifest import Thresholds


def state_of(tmp_path, events):
    return replay(make_run(tmp_path, events))


def capture(turn, shadow, digest, call_idx=1, **kw):
    return {"type": "render_capture", "turn": turn, "organ": "SURVEYOR", "call_idx": call_idx, "zone": "Z2",
            "view_sha256": digest * 64, "shadow": shadow, **kw}


def test_render_ceiling_returns_its_model(tmp_path):
    # lines 3-6: beat 50, beat 10, call 70, capture 90 against B = 60
    st = state_of(tmp_path, [startup(), beat(1, render_tokens=50), beat(2, render_tokens=10),
                             llm(2, "SURVEYOR", render_tokens=70), capture(2, False, "a", render_tokens=90)])
    assert render_ceiling.evaluate(st, 60, "driftboard") == RenderCeilingResult(
        status="FAIL", note="2 breach(es), max 90 vs B 60",
        reason="render ceiling: 2 render(s) above B=60 tokens (0 beat(s), 1 LLM call(s), 1 render capture(s); max 90)",
        B=60, breaches=2, beat_breaches=0, call_breaches=1, max_render_tokens=90, lines=[5, 6], capture_breaches=1)
    # ARG reads beats and calls only
    assert render_ceiling.evaluate(st, 60, "arg-v1.0") == RenderCeilingResult(
        status="FAIL", note="1 breach(es), max 70 vs B 60",
        reason="render ceiling: 1 render(s) above B=60 tokens (0 beat(s), 1 LLM call(s); max 70)",
        B=60, breaches=1, beat_breaches=0, call_breaches=1, max_render_tokens=70, lines=[5], capture_breaches=None)


def test_silent_degrade_returns_its_model(tmp_path):
    st = state_of(tmp_path, [beat(0, "RESET", drift_ref=None), beat(1, drift_ref=None), beat(2)])
    assert silent_degrade.evaluate(st) == SilentDegradeResult(
        status="FAIL", note="1 of 2 acted beat(s) unstamped",
        reason="silent degrade: 1 acted beat(s) without a reference stamp (drift_ref null)",
        count=1, acted_beats=2, lines=[3])


def test_startup_probe_returns_its_model(tmp_path):
    st = state_of(tmp_path, [startup(True), startup(False)])
    assert startup_probe.evaluate(st, "driftboard") == StartupProbeResult(
        status="FAIL", note="image_receipt_ok no", reason="startup probe: image receipt failed (image_receipt_ok false)",
        present=True, image_receipt_ok=False)
    assert startup_probe.evaluate(st, "arg-v1.0") == StartupProbeResult(
        status="PASS", note="image_receipt_ok yes", reason=None, present=True, image_receipt_ok=True)
    assert startup_probe.evaluate(state_of(tmp_path / "none", []), "driftboard") == StartupProbeResult(
        status="FAIL", note="no startup probe", reason="startup probe: no startup_probe event", present=False,
        image_receipt_ok=None)


def test_shadow_identity_returns_its_model(tmp_path):
    # a live and a shadow capture of call 1 differ (lines 2, 3); call 2's pair agrees (lines 4, 5)
    st = state_of(tmp_path, [capture(1, False, "a"), capture(1, True, "b"), capture(1, False, "c", call_idx=2),
                             capture(1, True, "c", call_idx=2)])
    assert shadow_identity.evaluate(st, "driftboard") == ShadowIdentityResult(
        status="FAIL", note="1 of 2 live/shadow pair(s) differ",
        reason="shadow byte-identity: 1 of 2 live/shadow zone pair(s) differ", paired_groups=2, differing=1,
        examples=[ShadowGroupDiff(turn=1, zone="Z2", organ="SURVEYOR", call_idx=1, lines=[2, 3])])
    # ARG keeps the last capture per flag of (turn, zone): lines 4 and 5, the same digest
    assert shadow_identity.evaluate(st, "arg-v1.0") == ShadowIdentityResult(
        status="PASS", note="0 of 1 live/shadow pair(s) differ", reason=None, paired_groups=1, differing=0, examples=[])
    st = state_of(tmp_path / "b", [capture(1, False, "a"), capture(1, True, "b")])
    assert shadow_identity.evaluate(st, "arg-v1.0").examples == [ShadowPairDiff(turn=1, zone="Z2", lines=[2, 3])]


def test_canary_echo_returns_its_model(tmp_path):
    # call 1 is in the warm-up (2 calls); after it Z2 echoes 1 of 2
    st = state_of(tmp_path, [echo(3, "Z2", 3, True), echo(3, "Z2", 4, False), echo(1, "Z3", 1, False),
                             echo(4, "Z2", 5, True, nonce="N1", output_text="no nonce here")])
    # recorded: Z2 2 of 3 after the warm-up, every judged zone (only Z2) below 0.9
    assert canary_echo.evaluate(st, 0.9, 2, "arg-v1.0") == CanaryEchoResult(
        status="FAIL", note="Z2=0.667 (floor 0.9, warm-up 2)",
        reason="canary echo: every zone below the floor 0.9 after warm-up 2 (Z2 0.667)",
        floor=0.9, warmup=2, rows=4, rows_used=3, fallback_all_rows=False, rates={"Z2": 0.667}, zones_below=["Z2"])
    assert canary_echo.echo_mismatches(st) == [
        Mismatch(line=5, field="echoed", recorded=True, recomputed=False,
                 reason="nonce N1 does not occur in the logged output text")]


def test_canary_echo_before_the_warm_up_uses_every_row(tmp_path):
    st = state_of(tmp_path, [echo(1, "Z2", 1, False), echo(1, "Z2", 2, True)])
    assert canary_echo.evaluate(st, 0.5, 2, "driftboard", derived_echoes=[True, True]) == CanaryEchoResult(
        status="PASS", note="Z2=1 (floor 0.5, warm-up 2, all rows)", reason=None, floor=0.5, warmup=2, rows=2,
        rows_used=2, fallback_all_rows=True, rates={"Z2": 1.0}, zones_below=[])


def test_write_error_rate_returns_its_model(tmp_path):
    st = state_of(tmp_path, [reject(1, "SURVEYOR"), reject(1, "SURVEYOR"), reject(1, "SURVEYOR"),
                             llm(1, "SURVEYOR", ops_accepted=3), llm(1, "OBSERVER", ops_accepted=2)])
    assert write_error_rate.evaluate(st, 0.25, 5) == WriteErrorRateResult(
        status="FAIL", note="OBSERVER 0/2 (below min ops), SURVEYOR 3/6 (floor 0.25, min ops 5)",
        reason="write-error rate above 0.25 (min ops 5): SURVEYOR 3/6 = 0.5", floor=0.25, min_ops=5,
        organs={"OBSERVER": OrganWer(rejects=0, accepted=2, ops=2, judged=False, wer=0.0),
                "SURVEYOR": OrganWer(rejects=3, accepted=3, ops=6, judged=True, wer=0.5)},
        failed=["SURVEYOR"])
    # counts derived from the evidence replace the rows
    assert write_error_rate.evaluate(st, 0.25, 5, rejects={"ACTUATOR": 1}, accepted={"ACTUATOR": 9}) == \
        WriteErrorRateResult(status="PASS", note="ACTUATOR 1/10 (floor 0.25, min ops 5)", reason=None, floor=0.25,
                             min_ops=5, organs={"ACTUATOR": OrganWer(rejects=1, accepted=9, ops=10, judged=True,
                                                                     wer=0.1)}, failed=[])


def test_evidence_condition_returns_its_model(tmp_path):
    assert evidence.evaluate(None) == EvidenceConditionResult(
        status="NOT_APPLICABLE", note="labels read as recorded (arg-v1.0)", reason=None, checked=False, mismatches=0,
        by_check={}, lines=[])
    # the beat on line 2 names a step no plan_step defines
    checked = check_evidence(state_of(tmp_path, [beat(1, step_id="C9-S0")]))
    first = "line 2 step_id: the beat's live stamp names step C9-S0, which no plan_step of the log defines"
    assert evidence.evaluate(checked) == EvidenceConditionResult(
        status="FAIL", note="reference 1",
        reason=f"evidence: 1 recorded label(s) contradict the log's own rows (reference 1); first: {first}",
        checked=True, mismatches=1, by_check={"reference": 1}, lines=[2], first=first)


def test_gate_gathers_each_condition_in_order_with_its_model(tmp_path):
    st = state_of(tmp_path, [startup(), beat(1, render_tokens=7000)])
    inputs = GateInputs(st, Thresholds(), "driftboard", check_evidence(st))
    assert [c.name for c in GATE] == list(GateConditions.model_fields)
    for cond in GATE:
        assert type(cond.evaluate(inputs)) is GateConditions.model_fields[cond.name].annotation, cond.name
    gate = run_gate(st, None, "driftboard", inputs.evidence)
    assert gate.conditions == GateConditions(**{c.name: c.evaluate(inputs) for c in GATE})
    assert gate.legibility == Legibility(verdict="INVALID", r9_breaches=1, silent_degrade=0, startup_ok=True,
                                         shadow_ok=True, beats=1, zcr_rates={}, zcr_uniform_fail=False, wer_by_organ={},
                                         wer_floor_ok=True)
    assert gate.reasons == [gate.conditions.render_ceiling.reason]
