"""Claimed vs verified milestones: a claim is verified only by deterministic evidence in its window."""

from __future__ import annotations

from agent_helpers import beat, make_run
from hypothesis import given
from hypothesis import strategies as st

from checker.agent.evidence_pool import MinTree
from checker.agent.milestones import milestones
from checker.agent.replay import replay


def claim(turn, claim_id="M1", **kw):
    ev = {"type": "milestone_claim", "turn": turn, "claim_id": claim_id}
    ev.update(kw)
    return ev


def evidence(turn, kind, irreversible, **kw):
    ev = {"type": "evidence", "turn": turn, "kind": kind, "irreversible": irreversible}
    ev.update(kw)
    return ev


def run_ms(tmp_path, events, **kw):
    return milestones(replay(make_run(tmp_path, events)), **kw)


def test_level_event_in_window_verifies(tmp_path):
    # beat 2 (at the level event's beat) backs level 1: the environment's own counter reaches it
    ms = run_ms(tmp_path, [beat(1, step_id="C1-S0"), {"type": "level", "turn": 2, "level_counter": 1},
                           beat(2, level_counter=1), claim(3, step_id="C1-S0")])
    assert (ms.figures.milestone_claims, ms.figures.milestones_verified, ms.figures.milestones_declared_only) == (1, 1, 0)
    assert ms.figures.milestone_verified_ratio == 1.0
    assert ms.details[0].window == [1, 3] and ms.details[0].evidence_kind == "level"


def test_level_event_backed_only_by_a_later_beat_is_not_evidence(tmp_path):
    # issue 15: the only beat reporting level 1 comes two beats after the level event (and the claim)
    ms = run_ms(tmp_path, [beat(1, step_id="C1-S0"), {"type": "level", "turn": 2, "level_counter": 1},
                           claim(3, step_id="C1-S0"), beat(4, level_counter=1)])
    assert (ms.figures.milestones_verified, ms.figures.milestones_declared_only) == (0, 1)
    (m,) = ms.mismatches
    assert (m.line, m.field, m.recorded, m.recomputed) == (3, "level_counter", 1, 0)
    assert "a later beat cannot back it" in m.reason


def test_evidence_before_the_step_start_does_not_verify(tmp_path):
    ms = run_ms(tmp_path, [{"type": "level", "turn": 1, "level_counter": 1}, beat(2, step_id="C1-S0"),
                           claim(3, step_id="C1-S0")])
    assert ms.figures.milestones_declared_only == 1
    assert ms.details[0].status == "DECLARED_ONLY"


def test_evidence_after_the_claim_does_not_verify(tmp_path):
    ms = run_ms(tmp_path, [claim(3, step_started_turn=0), evidence(3, "commit", True)])
    assert ms.figures.milestones_verified == 0


def test_reversible_evidence_verifies_only_when_allowed(tmp_path):
    events = [evidence(1, "read", False, subject="a.txt"), claim(2, step_started_turn=0)]
    assert run_ms(tmp_path / "a", events).figures.milestones_verified == 0
    assert run_ms(tmp_path / "b", events, include_reversible=True).figures.milestones_verified == 1


def test_exit_code_and_file_digest_need_success_and_change(tmp_path):
    events = [evidence(1, "exit_code", True, exit_code=1), evidence(1, "file_digest", True, before="a", after="a"),
              claim(2, "M1", step_started_turn=0),
              evidence(3, "exit_code", True, exit_code=0), claim(4, "M2", step_started_turn=3)]
    ms = run_ms(tmp_path, events)
    assert [d.status for d in ms.details] == ["DECLARED_ONLY", "VERIFIED"]
    assert ms.figures.milestone_verified_ratio == 0.5


def test_matched_receipt_and_score_rise_are_evidence(tmp_path):
    events = [beat(1, score=0), {"type": "receipt", "turn": 1, "match": 1, "predictor_kind": "STEP"},
              claim(1, "M1", step_started_turn=1), beat(2, score=0), beat(3, score=5), claim(3, "M2", step_started_turn=2)]
    ms = run_ms(tmp_path, events)
    assert [d.evidence_kind for d in ms.details] == ["receipt", "score"]


def test_no_claims_is_undefined(tmp_path):
    ms = run_ms(tmp_path, [beat(1)])
    assert ms.figures.milestone_claims == 0 and ms.figures.milestone_verified_ratio is None


# ---------------------------------------------------------------- the window search (no n^2 on hostile logs)

@given(st.lists(st.integers(0, 60), max_size=70), st.lists(st.integers(0, 75), max_size=10), st.integers(0, 75),
       st.integers(0, 75), st.integers(-1, 65))
def test_min_tree_finds_what_the_linear_scan_finds(values, taken, lo, hi, bound):
    """The segment tree finds the first k in [lo, hi) below the bound among the items not taken."""
    lo, hi = min(lo, len(values)), min(hi, len(values))
    tree = MinTree(values)
    gone = {k for k in taken if k < len(values)}
    for k in gone:
        tree.take(k)
    want = next((k for k in range(lo, hi) if k not in gone and values[k] < bound), None)
    assert tree.find(lo, hi, bound) == want
