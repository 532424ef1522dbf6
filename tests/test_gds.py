"""GDS bind / aligned / abandon (arg-spec.md §c.2) and attribution mismatches (§e)."""

from __future__ import annotations

from agent_helpers import beat, click, context, make_run, plan_step, referent, scored, startup

from checker.agent.gds import attribution_mismatches, gds, landings
from checker.agent.replay import replay

SHADOW = "G0001|ACTION6|R0001|RU0001"


def fixture_events(with_geometry: bool = False):
    """ARG's hermetic GDS fixture (tests/test_arg_chain3.py): 3 shadow beats + 2 live beats."""
    events = [plan_step("C0001-S0", "R0001", "ACTION1"), plan_step("C0001-S1", "R0001", "ACTION6")]
    if with_geometry:
        events += [referent(0, "R0001", [[1, 1], [2, 2], [5, 5]]), referent(0, "R0002", [[9, 9]])]
    events += [
        beat(1, "ACTION1", shadow_step_id=SHADOW, drift_ref="SHADOW"),  # off plan -> abandon
        click(2, 1, 1, target_ref="R0002", shadow_step_id=SHADOW, drift_ref="SHADOW"),  # landed elsewhere -> bind
        click(3, 2, 2, target_ref="R0001", shadow_step_id=SHADOW, drift_ref="SHADOW"),  # -> aligned
        beat(4, "ACTION1", step_id="C0001-S0"),  # live, not aimed -> aligned
        click(5, 5, 5, target_ref="R0002", step_id="C0001-S1"),  # live, landed elsewhere -> bind
    ]
    return events


def test_fixture_reproduces_bind_04_abandon_02(tmp_path):
    st = replay(make_run(tmp_path, fixture_events()))
    g = gds(st, landings(st, recomputed=False))
    assert (g.reference_beats, g.live, g.shadow, g.bind, g.aligned, g.abandon) == (5, 2, 3, 2, 2, 1)
    assert g.rates().table() == {"drift_ref_beats": 5, "gds_bind": 0.4, "gds_abandon": 0.2, "drift_total": 0.6,
                                 "gds_aligned": 0.4}


def test_arg_profile_uses_recorded_landing_driftboard_recomputes(tmp_path):
    # no referents at all: every click recomputes to background
    run = make_run(tmp_path, [startup(), *fixture_events()])
    arg = scored(run, context("arg-v1.0"))["metrics"]
    assert (arg["gds_bind"], arg["gds_abandon"]) == (0.4, 0.2)
    res = scored(run, context("driftboard"))
    # beats 2, 3, 5 land on background (bind); beat 4 carries out its live step unaimed: in profile driftboard
    # it cannot be checked against the step's target, so it is bind too, never a free aligned beat (issue 29)
    assert (res["metrics"]["gds_bind"], res["metrics"]["gds_abandon"]) == (0.8, 0.2)
    assert [(m["recorded"], m["recomputed"]) for m in res["mismatches"] if m["field"] == "target_ref"] == [
        ("R0002", None), ("R0001", None), ("R0002", None)]
    assert res["metrics"]["attribution_mismatches"] == 3
    # the fixture's shadow step names a goal, rule and target the log never defines (evidence condition)
    assert {m["field"] for m in res["mismatches"] if m["field"] != "target_ref"} == {"shadow_step_id"}
    assert res["gate"]["evidence"]["by_check"] == {"reference": 3}


def test_containment_bug_class_is_caught(tmp_path):
    # the harness attributes a click inside small R0089 to the enclosing board R0004
    board = [[x, y] for x in range(10) for y in range(10)]
    events = [startup(), referent(0, "R0004", board), referent(0, "R0089", [[3, 3], [3, 4]]),
              plan_step("C1-S0", "R0089", "ACTION6"), click(1, 3, 3, target_ref="R0004", step_id="C1-S0")]
    run = make_run(tmp_path, events)
    arg = scored(run, context("arg-v1.0"))
    assert arg["metrics"]["gds_bind"] == 1.0  # recorded landing: a false bind
    db = scored(run, context("driftboard"))
    assert db["metrics"]["gds_bind"] == 0.0
    assert db["mismatches"] == [{"line": 6, "field": "target_ref", "recorded": "R0004", "recomputed": "R0089",
                                 "reason": "the smallest current, non-dormant referent containing the click differs"}]


def test_no_reference_beats_is_undefined_not_zero(tmp_path):
    events = [startup(), beat(1), beat(2, step_id="C9-S0"), beat(3, shadow_step_id="G1|ACTION1")]
    m = scored(make_run(tmp_path, events), context())["metrics"]
    assert m["drift_ref_beats"] == 0
    assert (m["gds_bind"], m["gds_abandon"], m["drift_total"], m["gds_aligned"]) == (None, None, None, None)


def test_reset_is_never_a_reference_beat_and_dash_means_no_target(tmp_path):
    events = [beat(0, "RESET", shadow_step_id="G1|ACTION1|-|RU1"), beat(1, "ACTION1", shadow_step_id="G1|ACTION1|-|RU1"),
              beat(2, "ACTION2", shadow_step_id="G1||-|RU1")]
    st = replay(make_run(tmp_path, events))
    g = gds(st, landings(st, recomputed=True))
    assert (g.reference_beats, g.aligned, g.abandon, g.bind) == (2, 2, 0, 0)


def test_live_beat_is_never_abandon(tmp_path):
    events = [plan_step("C1-S0", "R1", "ACTION6"), beat(1, "ACTION2", step_id="C1-S0")]
    st = replay(make_run(tmp_path, events))
    g = gds(st, landings(st, recomputed=False))
    assert (g.aligned, g.abandon) == (1, 0)


def test_attribution_mismatch_on_untargeted_action(tmp_path):
    st = replay(make_run(tmp_path, [beat(1, "ACTION6", target_ref="R1")]))
    (m,) = attribution_mismatches(st)
    assert m.recomputed is None and "untargeted" in m.reason


def test_every_beats_outcome_is_coded_in_log_order(tmp_path):
    # the fixture's beats by its comments: abandon, bind, aligned, aligned (live, unaimed), bind
    st = replay(make_run(tmp_path, [plan_step("C9-S0", None, None), *fixture_events()]))
    g = gds(st, landings(st, recomputed=False)).counts()
    assert g.outcomes == "xba2b"
    assert [(b.line, b.outcome) for b in g.drifted] == [(st.beat_lines[0], "abandon"), (st.beat_lines[1], "bind"),
                                                        (st.beat_lines[4], "bind")]


def test_a_run_record_keeps_the_first_50_drifted_beats_and_every_outcome(tmp_path):
    """A run that drifts on every beat: its record does not grow with the beats (issue 32: 1,000 such runs held 2 GB)."""
    def record(n: int):
        events = [plan_step("C1-S0", "R0001", "ACTION6"), beat(0, "RESET")]
        events += [click(t, 1, 1, target_ref="R0002", step_id="C1-S0") for t in range(1, n + 1)]
        st = replay(make_run(tmp_path, events, name=f"r{n}.jsonl"))
        return st, gds(st, landings(st, recomputed=False)).counts()

    st, small = record(60)
    assert (small.reference_beats, small.bind, small.outcomes) == (60, 60, ".b60")  # RESET: not a reference beat
    assert [b.line for b in small.drifted] == st.beat_lines[1:51]
    assert {(b.aimed_at, b.landed) for b in small.drifted} == {("R0001", "R0002")}
    _, large = record(3000)
    assert (large.bind, large.outcomes, len(large.drifted)) == (3000, ".b3000", 50)
    assert len(large.model_dump_json()) - len(small.model_dump_json()) < 50  # the line numbers' digits and the count


def test_the_outcome_code_reads_back_and_refuses_what_is_not_a_code():
    from itertools import islice

    from checker.format.beat_outcomes import decode, each_beat, encode

    assert encode([".", "a", "a", "a", "b", "x", "x"]) == ".a3bx2"
    assert list(each_beat(decode(".a3bx2") or [])) == [None, "aligned", "aligned", "aligned", "bind", "abandon", "abandon"]
    assert decode("") == []
    for bad in ("a0", "a01", "q", "a3 ", "3a", "a-1"):
        assert decode(bad) is None, bad
    # a huge count is read as a count, never expanded up front: memory stays the code's
    segments = decode("b999999999")
    assert segments == [("bind", 999_999_999)]
    assert list(islice(each_beat(segments), 3)) == ["bind"] * 3
