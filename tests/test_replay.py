"""Replay folds events into state; landings are recomputed from geometry (arg-spec.md §e)."""

from __future__ import annotations

from agent_helpers import beat, click, make_run, referent, status

from checker.agent.replay import aim_of, replay

BIG = [[x, y] for x in range(4) for y in range(4)]  # 16 cells containing (1, 1)
SMALL = [[1, 1], [1, 2]]  # 2 cells containing (1, 1)


def test_status_is_the_latest_transition_in_log_order(tmp_path):
    run = make_run(tmp_path, [
        status(1, "RULE", "RU1", "PROPOSED"), status(2, "RULE", "RU1", "TESTED"), status(3, "RULE", "RU1", "DEMOTED"),
        status(3, "GOAL", "G1", "ACCEPTED"),
    ])
    st = replay(run)
    assert st.latest("RULE", "RU1") == "DEMOTED"
    assert st.latest("GOAL", "G1") == "ACCEPTED"
    assert st.latest("GOAL", "G2") is None
    assert len(st.transitions) == 4


def test_referent_versions_keep_the_latest(tmp_path):
    run = make_run(tmp_path, [referent(0, "R1", BIG), referent(2, "R1", SMALL, version=2)])
    st = replay(run)
    assert st.referents["R1"].version == 2
    assert list(st.referent_ids) == ["R1"]


def test_landing_is_the_smallest_containing_referent(tmp_path):
    run = make_run(tmp_path, [referent(0, "R1", BIG), referent(0, "R2", SMALL), click(1, 1, 1, target_ref="R2")])
    assert replay(run).landings[0].ref == "R2"


def test_landing_ignores_dormant_referents_and_falls_back_to_background(tmp_path):
    run = make_run(tmp_path, [
        referent(0, "R1", BIG), referent(0, "R2", SMALL), status(0, "REFERENT_LIFE", "R2", "DORMANT"),
        click(1, 1, 1), click(2, 9, 9), status(2, "REFERENT_LIFE", "R2", "ACTIVE"), click(3, 1, 1),
    ])
    st = replay(run)
    assert [land.ref for land in st.landings] == ["R1", None, "R2"]


def test_landing_uses_only_referents_known_before_the_beat(tmp_path):
    # R2 is minted after the click of beat 1 (it appears later in the log)
    run = make_run(tmp_path, [referent(0, "R1", BIG), click(1, 1, 1), referent(1, "R2", SMALL), click(2, 1, 1)])
    assert [land.ref for land in replay(run).landings] == ["R1", "R2"]


def test_moved_referent_leaves_its_old_cells(tmp_path):
    run = make_run(tmp_path, [referent(0, "R2", SMALL), referent(1, "R2", [[7, 7]], version=2), click(2, 1, 1)])
    assert replay(run).landings[0].ref is None


def test_ties_go_to_the_referent_first_in_the_log(tmp_path):
    run = make_run(tmp_path, [referent(0, "R9", SMALL), referent(0, "R1", SMALL), click(1, 1, 1)])
    assert replay(run).landings[0].ref == "R9"


def test_untargeted_actions_land_nowhere(tmp_path):
    run = make_run(tmp_path, [referent(0, "R1", BIG), beat(1, "ACTION1"), beat(2, "ACTION6", params={"z": 1})])
    st = replay(run)
    assert [(land.aimed, land.ref) for land in st.landings] == [(False, None), (False, None)]


def test_landing_keeps_the_aim_it_was_computed_from(tmp_path):
    # the aim check reads the beat's (x, y) from its landing: exactly aim_of(params), None when untargeted
    run = make_run(tmp_path, [referent(0, "R1", BIG), click(1, 3, 2), beat(2, "ACTION6", params={"x": True, "y": 1}),
                              beat(3, "ACTION1")])
    assert [(land.aimed, land.aim, land.ref) for land in replay(run).landings] == [
        (True, (3, 2), "R1"), (False, None, None), (False, None, None)]


def test_step_start_is_the_first_beat_executing_it(tmp_path):
    run = make_run(tmp_path, [beat(3, step_id="C1-S0"), beat(4, step_id="C1-S0")])
    assert replay(run).step_first_beat == {"C1-S0": 3}


def test_aim_of_rejects_booleans_and_non_integers():
    assert aim_of({"x": 1, "y": 2}) == (1, 2)
    assert aim_of({"x": True, "y": 2}) is None
    assert aim_of({"x": 1.5, "y": 2}) is None
    assert aim_of(None) is None
