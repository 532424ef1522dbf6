"""Issue 15: labels the gate and the metrics read are derived from, or checked against, the log's own rows.

Every forgery is built from a copy of the shipped micro-world submission (the edited run is
re-chained, so `validate` accepts it) and verified through the CLI. Each case asserts the named
mismatch, the verdict, the exit code and the figure that must not move. The honest figures are the
ones the checker published for the shipped logs before these checks existed (profile driftboard):

* a0-s1: 110 reference beats, bind 17, aligned 2, abandon 91 (gds_abandon 0.827, drift 0.982);
* j0-s1: 48 reference beats, bind 19 (gds_bind 0.396), 19 substitution rows;
* full-s1: milestones 1/11 verified; the first level reached at beat 65;
* full-s3: INVALID, SURVEYOR 32 rejected of 69 ops (30 reject rows + 2 MISSING_CANARY rows).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import beat, click, context, make_run, plan_step, referent, scored, startup, status
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.agent.evidence import receipt_match, reject_counts
from checker.agent.replay import _Geometry
from checker.format.logio import genesis, sha256_hex
from checker.format.schema.agent import Receipt, Referent

SUB = REPO / "submissions" / "driftboard-microworld-agent"
RUN_ID = "driftboard-microworld-agent-{}"
Events = list[dict[str, Any]]


def _read(path: Path) -> Events:
    return [{k: v for k, v in json.loads(x).items() if k not in ("seq", "prev")}
            for x in path.read_bytes().splitlines()]


def _write(path: Path, events: Events) -> None:
    """Serialise with seq and prev re-chained from the run id (what a forger would do)."""
    prev = genesis(events[0]["run_id"])
    out = []
    for k, ev in enumerate(events):
        line = json.dumps({"seq": k, "prev": prev, **ev}, separators=(",", ":"), ensure_ascii=False).encode()
        out.append(line)
        prev = sha256_hex(line)
    path.write_bytes(b"\n".join(out) + b"\n")


def forge(tmp_path: Path, run: str, mutate: Callable[[Events], Events | None]) -> Path:
    """A copy of the shipped submission whose `runs/<run>.jsonl` went through `mutate` (in place or returned)."""
    sub = tmp_path / SUB.name
    shutil.copytree(SUB, sub)
    path = sub / "runs" / f"{run}.jsonl"
    events = _read(path)
    _write(path, mutate(events) or events)
    return sub


def verify(run_line, sub: Path, run: str, profile: str | None = None) -> tuple[int, dict[str, Any]]:
    args = ["verify", str(sub), "--format", "json", "--no-cache", "--no-results"]
    res = run_line(args + (["--profile", profile] if profile else []))
    assert "Traceback" not in res.output
    doc = json.loads(res.stdout)
    (submission,) = doc["submissions"]
    (result,) = [r for r in submission["runs"] if r["run_id"] == RUN_ID.format(run)]
    return res.exit_code, result


def fields(result: dict[str, Any], field: str) -> list[dict[str, Any]]:
    return [m for m in result["mismatches"] if m["field"] == field]


def evidence_reason(result: dict[str, Any]) -> str:
    (reason,) = [r for r in result["reasons"] if r.startswith("evidence:")]
    return reason


# ---- shadow references ------------------------------------------------------------------------------

def _drop_drifting_shadow_steps(events: Events) -> None:
    """Keep the SHADOW stamp, drop the shadow step of every beat that did not follow it (off-plan beats)."""
    for ev in events:
        sid = ev.get("shadow_step_id")
        if ev["type"] == "beat" and sid and ev["action"] != sid.split("|")[1]:
            del ev["shadow_step_id"]


def test_dropped_shadow_steps_are_restored_and_fail_the_run(run_line, tmp_path):
    sub = forge(tmp_path, "a0-s1", _drop_drifting_shadow_steps)
    code, res = verify(run_line, sub, "a0-s1")
    assert code == 0  # an INVALID run is a result of record, not a format problem
    assert res["verdict"] == "INVALID"
    dropped = fields(res, "shadow_step_id")
    # 91 beats lost their step; the first of them (beat 41) is the beat the step first appears on, so
    # nothing before it says a step was in force: 90 are restored, beat 41 stays out
    assert len(dropped) == 90 and all(m["recorded"] is None for m in dropped)
    assert "still in force" in dropped[0]["reason"] and "drops the beat from the reference set" in dropped[0]["reason"]
    assert "evidence: 90 recorded label(s)" in evidence_reason(res) and "reference 90" in evidence_reason(res)
    # the figure barely moves (was 110 reference beats, 91 abandon): the restored steps put the beats back
    assert (res["gds"]["reference_beats"], res["gds"]["abandon"], res["gds"]["bind"]) == (109, 90, 17)
    assert res["metrics"]["drift_total"] == 0.982


def test_arg_profile_reads_shadow_steps_as_recorded(run_line, tmp_path):
    # arg-v1.0 reproduces ARG, which trusts the stamps: the forgery moves its figure (documented)
    sub = forge(tmp_path, "a0-s1", _drop_drifting_shadow_steps)
    _, res = verify(run_line, sub, "a0-s1", profile="arg-v1.0")
    assert res["verdict"] == "VALID" and res["gate"]["evidence"]["status"] == "NOT_APPLICABLE"
    assert (res["gds"]["reference_beats"], res["gds"]["abandon"]) == (19, 0)  # 91 abandon beats gone


def test_shadow_step_naming_entities_the_log_lacks(run_line, tmp_path):
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "beat" and ev.get("shadow_step_id"):
                ev["shadow_step_id"] = "G0002|ACTION6|R9999|RU0001"

    _, res = verify(run_line, forge(tmp_path, "a0-s1", mutate), "a0-s1")
    assert res["verdict"] == "INVALID"
    assert "target R9999 is not a referent of the log" in fields(res, "shadow_step_id")[0]["reason"]


# ---- live references ---------------------------------------------------------------------------------

def _substituted_turns(events: Events) -> set[int]:
    return {ev["turn"] for ev in events if ev["type"] == "substitution"}


def test_dropped_live_step_is_restored_from_the_substitution_row(run_line, tmp_path):
    def mutate(events: Events) -> None:
        bind = _substituted_turns(events)
        for ev in events:
            if ev["type"] == "beat" and ev["turn"] in bind:
                del ev["step_id"]

    _, res = verify(run_line, forge(tmp_path, "j0-s1", mutate), "j0-s1")
    assert res["verdict"] == "INVALID"
    dropped = fields(res, "step_id")
    assert len(dropped) == 19 and "substitution row" in dropped[0]["reason"]
    assert (res["gds"]["reference_beats"], res["gds"]["bind"], res["metrics"]["gds_bind"]) == (48, 19, 0.396)


def test_live_stamp_naming_no_plan_step(run_line, tmp_path):
    def mutate(events: Events) -> None:
        bind = _substituted_turns(events)
        for ev in events:
            if ev["type"] == "beat" and ev["turn"] in bind:
                ev["step_id"] = "C9999-S0"

    _, res = verify(run_line, forge(tmp_path, "j0-s1", mutate), "j0-s1")
    assert res["verdict"] == "INVALID"
    dangling = fields(res, "step_id")
    assert {m["recorded"] for m in dangling} == {"C9999-S0"}
    assert "which no plan_step of the log defines" in dangling[0]["reason"]
    assert res["metrics"]["gds_bind"] == 0.396  # the substitution rows still make them bind


def test_step_id_swapped_for_another_plan_step_follows_the_step_receipt(run_line, tmp_path):
    # the first step-executing beat that has a STEP receipt claims another (existing) step
    def mutate(events: Events) -> None:
        receipts = {ev["turn"]: ev["predictor_id"] for ev in events
                    if ev["type"] == "receipt" and ev.get("predictor_kind") == "STEP"}
        for ev in events:
            if ev["type"] == "beat" and ev.get("step_id") and ev["turn"] in receipts:
                ev["step_id"] = "C0001-S1" if receipts[ev["turn"]] != "C0001-S1" else "C0001-S0"
                return

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    (m,) = [m for m in fields(res, "step_id") if "STEP receipt" in m["reason"]]
    assert m["recorded"] in ("C0001-S0", "C0001-S1") and m["recomputed"] != m["recorded"]


def test_consumed_step_without_an_executing_beat(run_line, tmp_path):
    # every live step of full-s1 that the log marks CONSUMED was executed by an earlier beat; hide one
    def mutate(events: Events) -> None:
        consumed = next(ev["entity_id"] for ev in events
                        if ev["type"] == "status" and ev["entity_kind"] == "COMMITMENT_STEP"
                        and ev["to_status"] == "CONSUMED")
        for ev in events:
            if ev["type"] == "beat" and ev.get("step_id") == consumed:
                del ev["step_id"]
                ev["source_stamp"] = "PROBE"
        for ev in list(events):
            if ev["type"] == "receipt" and ev.get("predictor_id") == consumed:
                events.remove(ev)

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    assert any("is marked CONSUMED here, but no beat before this line carries its step_id" in m["reason"]
               for m in fields(res, "step_id"))


# ---- aim ---------------------------------------------------------------------------------------------

def test_stripped_coordinates_of_a_targeted_action(run_line, tmp_path):
    def mutate(events: Events) -> None:
        bind = _substituted_turns(events)
        for ev in events:
            if ev["type"] == "beat" and ev["turn"] in bind:
                ev.pop("params", None)
                ev.pop("target_ref", None)

    _, res = verify(run_line, forge(tmp_path, "j0-s1", mutate), "j0-s1")
    assert res["verdict"] == "INVALID"
    stripped = fields(res, "params")
    assert len(stripped) == 19 and "ACTION6 is a targeted action in the run's startup probe" in stripped[0]["reason"]
    assert "aim 19" in evidence_reason(res)
    assert (res["gds"]["bind"], res["metrics"]["gds_bind"]) == (19, 0.396)  # still aimed: still bind


def test_click_outside_the_declared_range(run_line, tmp_path):
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "beat" and ev.get("params"):
                ev["params"] = {"x": 40, "y": ev["params"]["y"]}
                return

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    (m,) = fields(res, "params.x")
    assert (m["recorded"], m["recomputed"]) == (40, [0, 23])


# ---- canary ------------------------------------------------------------------------------------------

def _deafen_z3(events: Events) -> None:
    """An honest deaf Surveyor: after warm-up, its Z3 nonce is never echoed (the run fails the canary floor)."""
    for ev in events:
        if ev["type"] == "canary_echo" and ev["zone"] == "Z3" and ev["call_idx"] > 2:
            ev["output_text"] = ev["output_text"].replace(ev["nonce"], "")
            ev["echoed"] = False


def test_canary_nonce_rewritten_to_a_common_word(run_line, tmp_path):
    _, honest = verify(run_line, forge(tmp_path / "honest", "full-s1", _deafen_z3), "full-s1")
    assert honest["verdict"] == "INVALID" and honest["gate"]["canary_echo"]["zones_below"] == ["Z3"]

    def mutate(events: Events) -> None:
        _deafen_z3(events)
        for ev in events:
            if ev["type"] == "canary_echo" and ev["zone"] == "Z3" and ev["call_idx"] > 2:
                ev["nonce"], ev["echoed"] = "proposals", True  # a word every Surveyor output contains

    _, res = verify(run_line, forge(tmp_path / "forged", "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    assert res["gate"]["canary_echo"]["rates"] == honest["gate"]["canary_echo"]["rates"]  # does not move
    nonces = fields(res, "nonce")
    assert nonces and all(m["recorded"] == "proposals" and m["recomputed"].startswith("ZQ") for m in nonces)
    assert "the salt row of SURVEYOR call" in nonces[0]["reason"]
    assert any(r.startswith("canary echo: zone(s) Z3 below the floor") for r in res["reasons"])


# ---- receipts and levels -----------------------------------------------------------------------------

def test_receipt_match_contradicting_its_own_fields(run_line, tmp_path):
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "receipt" and ev.get("predictor_kind") and ev.get("match") == 0:
                ev["match"] = 1

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    flipped = fields(res, "match")
    assert flipped and all((m["recorded"], m["recomputed"]) == (1, 0) for m in flipped)
    assert "the prediction failed" in flipped[0]["reason"]
    assert (res["metrics"]["milestones_verified"], res["metrics"]["milestone_claims"]) == (1, 11)


def test_level_event_before_any_beat_reaches_the_level(run_line, tmp_path):
    # a level event (and its evidence row) inserted at beat 27, 38 beats before beat 65 reaches level 1
    def mutate(events: Events) -> Events:
        k = next(i for i, ev in enumerate(events) if ev.get("claim_id") == "M0001")
        return [*events[:k], {"type": "level", "turn": 27, "level_counter": 1, "score": 9},
                {"type": "evidence", "turn": 27, "kind": "level", "irreversible": True,
                 "subject": "level_counter", "before": "0", "after": "1"}, *events[k:]]

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    assert "a later beat cannot back it" in fields(res, "level_counter")[0]["reason"]
    # the evidence row is refused: by the beats' counters, or (issue 29) because the honest row at beat 65
    # then starts from the level this one claims to end at (the subject's transitions do not chain)
    assert [m["recorded"] for m in fields(res, "after")] == ["1"] or fields(res, "before")
    (figure,) = fields(res, "milestones_verified")
    assert (figure["recorded"], figure["recomputed"]) == (2, 1)
    assert res["metrics"]["milestones_verified"] == 1


# ---- write rejects -----------------------------------------------------------------------------------

def test_reject_rows_deleted_while_calls_record_them(run_line, tmp_path):
    def mutate(events: Events) -> Events:
        return [ev for ev in events if not (ev["type"] == "write_reject" and ev["organ"] == "SURVEYOR"
                                            and ev.get("violation_class") != "MISSING_CANARY")]

    _, res = verify(run_line, forge(tmp_path, "full-s3", mutate), "full-s3")
    assert res["verdict"] == "INVALID"
    surveyor = res["gate"]["write_error_rate"]["organs"]["SURVEYOR"]
    assert (surveyor["rejects"], surveyor["ops"]) == (32, 69)  # does not move
    (m,) = fields(res, "ops_rejected")
    assert (m["recorded"], m["recomputed"]) == (30, 0) and "SURVEYOR calls record 30 rejected op(s)" in m["reason"]


def test_ops_rejected_understated_on_the_calls(run_line, tmp_path):
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "llm_call":
                ev["ops_rejected"] = 0

    _, res = verify(run_line, forge(tmp_path, "full-s3", mutate), "full-s3")
    assert res["verdict"] == "INVALID"
    assert res["gate"]["write_error_rate"]["organs"]["SURVEYOR"]["rejects"] == 32
    assert {m["recomputed"] for m in fields(res, "ops_rejected")} >= {30}


def test_actuator_accepted_ops_inflated(run_line, tmp_path):
    # an Actuator call realises one click: one op, accepted or rejected (j0-s1: ACTUATOR 2 rejected of 50 ops)
    def mutate(events: Events) -> None:
        for ev in events:
            if ev["type"] == "llm_call" and ev["organ"] == "ACTUATOR" and ev["ops_accepted"] == 1:
                ev["ops_accepted"] = 5

    _, res = verify(run_line, forge(tmp_path, "j0-s1", mutate), "j0-s1")
    assert res["verdict"] == "INVALID"
    actuator = res["gate"]["write_error_rate"]["organs"]["ACTUATOR"]
    assert (actuator["rejects"], actuator["ops"]) == (2, 50)  # does not move (forged: 2 of 242)
    inflated = fields(res, "ops_accepted")
    assert len(inflated) == 48 and {(m["recorded"], m["recomputed"]) for m in inflated} == {(5, 1)}


def test_missing_canary_rows_deleted_for_deaf_calls(tmp_path):
    # ARG writes one MISSING_CANARY reject per salted call that echoed none of its nonces (t_zcr_zcr-deaf)
    salt = [{"type": "canary_salt", "turn": t, "organ": "OBSERVER", "call_idx": 8 * t, "zone": "Z2",
             "nonce": f"ZQ{t:08x}"} for t in (1, 2, 3)]
    echoes = [{"type": "canary_echo", "turn": t, "organ": "OBSERVER", "call_idx": 8 * t, "zone": "Z2",
               "nonce": f"ZQ{t:08x}", "echoed": False, "output_text": "{}"} for t in (1, 2, 3)]
    calls = [{"type": "llm_call", "turn": t, "organ": "OBSERVER", "call_idx": 8 * t, "ops_accepted": 1}
             for t in (1, 2, 3)]
    missing = [{"type": "write_reject", "turn": t, "organ": "OBSERVER", "op_type": "CANARY",
                "violation_class": "MISSING_CANARY"} for t in (1, 2, 3)]
    honest = scored(make_run(tmp_path / "a", [startup(), *salt, *calls, *echoes, *missing]), context())
    assert honest["gate"]["write_error_rate"]["organs"]["OBSERVER"]["rejects"] == 3
    assert honest["gate"]["evidence"]["status"] == "PASS"
    forged = scored(make_run(tmp_path / "b", [startup(), *salt, *calls, *echoes, missing[0]]), context())
    assert forged["gate"]["write_error_rate"]["organs"]["OBSERVER"]["rejects"] == 3  # does not move
    (m,) = fields(forged, "MISSING_CANARY")
    assert (m["recorded"], m["recomputed"]) == (1, 3) and "echoed none of their nonces" in m["reason"]
    assert forged["verdict"] == "INVALID"


# ---- render ceiling ----------------------------------------------------------------------------------

def test_render_capture_above_the_ceiling(run_line, tmp_path):
    def mutate(events: Events) -> None:
        cap = next(ev for ev in events if ev["type"] == "render_capture")
        cap["render_tokens"] = 9000

    _, res = verify(run_line, forge(tmp_path, "full-s1", mutate), "full-s1")
    assert res["verdict"] == "INVALID"
    c = res["gate"]["render_ceiling"]
    assert (c["breaches"], c["capture_breaches"], c["max_render_tokens"]) == (1, 1, 9000)
    assert "1 render capture(s)" in res["reasons"][0]
    assert res["metrics"]["R9_ok"] is False


def test_shipped_submission_passes_every_check(run_line, tmp_path):
    sub = tmp_path / SUB.name
    shutil.copytree(SUB, sub)
    res = run_line(["verify", str(sub), "--format", "json", "--no-cache", "--no-results"])
    runs = json.loads(res.stdout)["submissions"][0]["runs"]
    assert {r["gate"]["evidence"]["status"] for r in runs if r["gate"]} == {"PASS"}


# ---- unit and property tests -------------------------------------------------------------------------

@pytest.mark.parametrize(("predicted", "observed", "columns", "expected"), [
    ({"cells_changed": "nonzero"}, {"cells_changed": 4}, {}, 1),
    ({"cells_changed": "nonzero"}, {"cells_changed": 0}, {}, 0),
    ({"cells_changed": "zero"}, {"cells_changed": 0}, {}, 1),
    ({"level_event": 1}, {"cells_changed": 140, "level_event": 1}, {}, 1),
    # ARG stores score_event in the receipt's column, not in observed (d_full_r1, match 1)
    ({"cells_changed": "nonzero", "score_event": 1}, {"cells_changed": 1}, {"score_event": 1}, 1),
    ({"score_event": 1}, {"cells_changed": 16}, {"score_event": 0}, 0),
    ({"cells_changed": "nonzero"}, {"cells_changed": "lots"}, {}, 0),
    (None, {"cells_changed": 1}, {}, None),
])
def test_receipt_match(predicted, observed, columns, expected):
    rc = Receipt.model_validate({"seq": 0, "prev": "0" * 64, "type": "receipt", "turn": 1, "predicted": predicted,
                                 "observed": observed, **columns})
    assert receipt_match(rc) == expected


def test_shadow_step_not_in_force_after_its_goal_is_accepted(tmp_path):
    # ARG's own A0 runs (d_a0_r1 beats 15-16): the goal is ACCEPTED, later beats carry no shadow step
    shadow = "G1|ACTION1|-|RU1"
    events = [startup(), {"type": "goal", "turn": 0, "goal_id": "G1"},
              {"type": "rule", "turn": 0, "rule_id": "RU1"}, status(0, "GOAL", "G1", "ACTIVE"),
              beat(1, shadow_step_id=shadow, drift_ref="SHADOW"), status(1, "GOAL", "G1", "ACCEPTED"),
              beat(2, "ACTION2", drift_ref="SHADOW")]
    res = scored(make_run(tmp_path / "a", events), context())
    assert res["gate"]["evidence"]["status"] == "PASS" and res["gds"]["reference_beats"] == 1
    events[5] = status(1, "GOAL", "G1", "ACTIVE")  # still open: the dropped step is restored
    res = scored(make_run(tmp_path / "b", events), context())
    assert res["gate"]["evidence"]["by_check"] == {"reference": 1}
    assert (res["gds"]["reference_beats"], res["gds"]["abandon"]) == (2, 1)


def test_untargeted_interface_declares_nothing(tmp_path):
    # ARG's probe lists actions without ranges: no action is declared targeted, the aim check does not apply
    events = [{"type": "startup_probe", "turn": 0, "action_interface": {"actions": ["ACTION1", "ACTION6"]}},
              plan_step("C1-S0", "R1", "ACTION6"), referent(0, "R1", [[1, 1]]),
              beat(1, "ACTION6", step_id="C1-S0")]
    res = scored(make_run(tmp_path, events), context())
    assert res["gate"]["evidence"]["status"] == "PASS"
    # not aimed: the live beat cannot be checked against its step's target, so it is bind, never a free
    # aligned beat (issue 29, profile driftboard); ARG counts it aligned
    assert (res["gds"]["aligned"], res["gds"]["bind"]) == (0, 1)


def _brute_landing(refs: dict[str, tuple[frozenset[tuple[int, int]], int]], dormant: set[str],
                   x: int, y: int) -> str | None:
    """arg-spec.md §e by definition: smallest containing, non-dormant referent; ties to the earliest version."""
    holders = [(len(cells), order, rid) for rid, (cells, order) in refs.items()
               if (x, y) in cells and rid not in dormant]
    return min(holders)[2] if holders else None


_cell = st.tuples(st.integers(0, 1), st.integers(0, 1))  # a small grid: referents overlap, clicks hit them
_op = st.one_of(
    st.tuples(st.just("ref"), st.sampled_from("ABC"), st.frozensets(_cell, min_size=1, max_size=4)),
    st.tuples(st.just("life"), st.sampled_from("ABC"), st.booleans()),
    st.tuples(st.just("click"), _cell, st.none()),
)


@settings(max_examples=300)
@given(st.lists(_op, max_size=40))
def test_spatial_index_lands_like_the_definition(ops):
    geo = _Geometry()
    refs: dict[str, tuple[frozenset[tuple[int, int]], int]] = {}
    dormant: set[str] = set()
    for position, (kind, a, b) in enumerate(ops):
        if kind == "ref":
            ev = Referent.model_validate({"seq": 0, "prev": "0" * 64, "type": "referent", "turn": 0, "ref_id": a,
                                          "version": 1, "kind": "region", "anchor_cells": sorted(map(list, b))})
            geo.update(ev, position)
            refs[a] = (b, position)
        elif kind == "life":
            (dormant.add if b else dormant.discard)(a)
            geo.set_dormant(a, b)
        else:
            assert geo.land(a[0], a[1]) == _brute_landing(refs, dormant, a[0], a[1])


def test_click_helper_still_lands(tmp_path):
    res = scored(make_run(tmp_path, [startup(), referent(0, "R1", [[2, 2]]), click(1, 2, 2)]), context())
    assert res["mismatches"][0]["recomputed"] == "R1"


_organ = st.sampled_from(["OBSERVER", "SURVEYOR", "ACTUATOR"])


@given(rows=st.lists(st.tuples(st.integers(1, 5), _organ, st.booleans()), max_size=12),
       calls=st.lists(st.tuples(st.integers(1, 5), _organ, st.integers(0, 3)), max_size=12))
def test_reject_counts_never_fall_below_either_record(rows, calls):
    # whichever record a forger thins out (reject rows or the calls' ops_rejected), the count keeps the other
    from checker.agent.replay import AgentState
    from checker.format.schema.agent import LlmCall, WriteReject

    state = AgentState()
    for turn, organ, canary in rows:
        state.write_rejects.append(WriteReject.model_validate({
            "seq": 0, "prev": "0" * 64, "type": "write_reject", "turn": turn, "organ": organ,
            "violation_class": "MISSING_CANARY" if canary else "OUT_OF_SCHEMA"}))
    for k, (turn, organ, rejected) in enumerate(calls):
        state.llm_calls.append(LlmCall.model_validate({"seq": 0, "prev": "0" * 64, "type": "llm_call", "turn": turn,
                                                       "organ": organ, "ops_rejected": rejected}))
        state.llm_lines.append(k + 2)
    counts, mismatches = reject_counts(state)
    for organ in ("OBSERVER", "SURVEYOR", "ACTUATOR"):
        plain = sum(1 for _, o, c in rows if o == organ and not c)
        canary = sum(1 for _, o, c in rows if o == organ and c)
        called = sum(r for _, o, r in calls if o == organ)
        assert counts.get(organ, 0) == max(plain, called) + canary
        flagged = [c for c in mismatches if organ in c.mismatch.reason]
        assert len(flagged) == (plain != called)
