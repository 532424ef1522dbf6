"""Issue 29, principle 5: evidence is consistent before it verifies anything.

Forgeries built from the shipped micro-world submission (re-chained so `validate` accepts them) and
verified through the CLI under the leaderboard profile. Hand-computed figures that must not move:
full-s1 has 11 milestone claims of which 1 is verified (`milestone_verified_ratio` 1/11 = 0.091;
its only evidence is the level rise 0 -> 1 at beat 65); the FULL cell's VALID runs are full-s1 and
full-s2 (2 of 11 verified, 0.182), cell mean (0.091 + 0.182) / 2 = 0.137. On be291a9 the forgeries
below made every full-s1 claim VERIFIED (ratio 1.0, cell mean 0.591) with exit 0.
"""

from __future__ import annotations

from typing import Any

from agent_helpers import beat, make_run
from test_evidence import Events, fields, forge, verify

from checker.agent.milestones import milestones
from checker.agent.replay import replay


def _at_each_claim(make: Any) -> Any:
    """A mutation inserting `make(claim)` just before every milestone claim of the run."""
    def mutate(events: Events) -> Events:
        out: Events = []
        for ev in events:
            if ev["type"] == "milestone_claim":
                out.append(make(ev))
            out.append(ev)
        return out
    return mutate


def _digest(claim: dict[str, Any]) -> dict[str, Any]:
    return {"type": "evidence", "turn": claim["turn"], "kind": "file_digest", "irreversible": True,
            "subject": "out/report.txt", "before": "sha-a", "after": "sha-b"}


def _level(claim: dict[str, Any]) -> dict[str, Any]:
    # level 1 is reached at beat 65 only; every other claim beat sees no level rise
    # (no subject: not a transition the digest chain could catch; the beats' counters must catch it)
    return {"type": "evidence", "turn": claim["turn"], "kind": "level", "irreversible": True, "after": "1"}


def _assert_kept(code: int, res: dict[str, Any]) -> None:
    assert code == 0  # the submission verifies; the run is judged INVALID (it counts as worst, intent-to-treat)
    assert res["verdict"] == "INVALID"
    assert (res["metrics"]["milestones_verified"], res["metrics"]["milestone_claims"]) == (1, 11)
    assert res["metrics"]["milestone_verified_ratio"] == 0.091


def test_same_digest_transition_at_every_claim(run_line, tmp_path):
    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(_digest)), "full-s1")
    _assert_kept(code, res)
    breaks = fields(res, "before")
    assert len(breaks) == 10  # the first record starts the chain; each later one contradicts it
    assert "the transitions do not chain, so no record of this subject is evidence" in breaks[0]["reason"]
    (first,) = fields(res, "subject")  # the first record, consistent alone, is disowned by the later ones
    assert "contradict each other" in first["reason"]
    assert (breaks[0]["recorded"], breaks[0]["recomputed"]) == ("sha-a", "sha-b")
    (figure,) = fields(res, "milestones_verified")
    assert (figure["recorded"], figure["recomputed"]) == (11, 1)
    assert len(fields(res, "claim_id")) == 10  # one finding per claim the forgery would have verified
    assert any(r.startswith("evidence:") for r in res["reasons"])


def test_level_evidence_at_beats_where_no_level_rises(run_line, tmp_path):
    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(_level)), "full-s1")
    _assert_kept(code, res)
    late = [m for m in fields(res, "after") if "rises at beat" in m["reason"]]
    early = [m for m in fields(res, "after") if "no beat up to beat" in m["reason"]]
    # claims at beats < 65 see no beat at level 1; claims after 65 see level 1 reached before their beat
    assert late and early and len(late) + len(early) >= 10
    assert "repeats an earlier rise and is not evidence" in late[0]["reason"]
    assert fields(res, "claim_id")


def test_level_evidence_with_a_subject_breaks_its_chain(run_line, tmp_path):
    def make(claim: dict[str, Any]) -> dict[str, Any]:
        return {**_level(claim), "subject": "level_counter", "before": "0"}

    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(make)), "full-s1")
    _assert_kept(code, res)
    assert fields(res, "before")


def test_chained_digest_variant_with_one_subject_per_beat_still_refused(run_line, tmp_path):
    # a variant: the same transition, but the subject's case and whitespace unchanged and the beat moved
    def make(claim: dict[str, Any]) -> dict[str, Any]:
        return {**_digest(claim), "turn": max(0, claim["turn"] - 1)}

    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(make)), "full-s1")
    _assert_kept(code, res)


# ---- one piece of evidence backs at most one claim (unit logs) -------------------------------------

def _claim(turn: int, claim_id: str, **kw: Any) -> dict[str, Any]:
    return {"type": "milestone_claim", "turn": turn, "claim_id": claim_id, **kw}


def test_one_piece_of_evidence_backs_one_claim(tmp_path):
    events = [{"type": "evidence", "turn": 1, "kind": "commit", "irreversible": True, "subject": "abc123"},
              _claim(2, "M1", step_started_turn=0), _claim(3, "M2", step_started_turn=0),
              _claim(4, "M3", step_started_turn=0)]
    ms = milestones(replay(make_run(tmp_path, events)))
    assert [d.status for d in ms.details] == ["VERIFIED", "DECLARED_ONLY", "DECLARED_ONLY"]
    assert ms.figures.milestone_verified_ratio == 0.333
    reused = [m for m in ms.mismatches if m.field == "claim_id"]
    assert [m.recorded for m in reused] == ["M2", "M3"]
    assert "already backs claim M1" in reused[0].reason


def test_rows_recording_one_level_rise_are_one_piece(tmp_path):
    # a level event, the beat whose counter rose and a level evidence row all record the rise to 1 at beat 2
    events = [beat(1, level_counter=0), {"type": "level", "turn": 2, "level_counter": 1}, beat(2, level_counter=1),
              {"type": "evidence", "turn": 2, "kind": "level", "irreversible": True, "subject": "level_counter",
               "before": "0", "after": "1"},
              _claim(3, "M1", step_started_turn=0), _claim(3, "M2", step_started_turn=0),
              _claim(3, "M3", step_started_turn=0)]
    ms = milestones(replay(make_run(tmp_path, events)))
    assert ms.figures.milestones_verified == 1


def test_duplicated_matched_receipts_are_one_piece(tmp_path):
    receipt = {"type": "receipt", "turn": 1, "action": "ACTION6", "target_ref": "R1", "context_class": "C",
               "predictor_kind": "STEP", "match": 1}
    events = [beat(1), receipt, dict(receipt), _claim(2, "M1", step_started_turn=0), _claim(2, "M2", step_started_turn=0)]
    ms = milestones(replay(make_run(tmp_path, events)))
    assert ms.figures.milestones_verified == 1


def test_honest_chain_of_transitions_verifies_each_claim(tmp_path):
    def digest(turn: int, before: str, after: str) -> dict[str, Any]:
        return {"type": "evidence", "turn": turn, "kind": "file_digest", "irreversible": True, "subject": "f",
                "before": before, "after": after}

    events = [digest(1, "a", "b"), _claim(1, "M1", step_started_turn=1), digest(2, "b", "c"),
              _claim(2, "M2", step_started_turn=2)]
    ms = milestones(replay(make_run(tmp_path, events)))
    assert ms.figures.milestones_verified == 2 and not ms.mismatches


# ---- variants (issue 29: rules, not cases) -----------------------------------------------------------

def test_subjects_differing_only_in_case_and_spaces_are_one_subject(run_line, tmp_path):
    n = iter(range(100))

    def make(claim: dict[str, Any]) -> dict[str, Any]:
        k = next(n)
        return {**_digest(claim), "subject": (" OUT/Report.txt" if k % 2 else "out/report.txt ")}

    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(make)), "full-s1")
    _assert_kept(code, res)


def test_level_evidence_that_is_not_an_integer_is_not_evidence(run_line, tmp_path):
    def make(claim: dict[str, Any]) -> dict[str, Any]:
        return {**_level(claim), "after": "1.0"}

    code, res = verify(run_line, forge(tmp_path, "full-s1", _at_each_claim(make)), "full-s1")
    _assert_kept(code, res)
    assert any("as an integer" in m["reason"] for m in fields(res, "after"))


def test_matched_receipts_of_one_beat_are_one_piece(tmp_path):
    def receipt(ctx: str) -> dict[str, Any]:
        return {"type": "receipt", "turn": 1, "action": "ACTION6", "target_ref": "R1", "context_class": ctx,
                "predictor_kind": "STEP", "match": 1}

    events = [beat(1), receipt("C1"), receipt("C2"), receipt("C3"),
              _claim(2, "M1", step_started_turn=0), _claim(2, "M2", step_started_turn=0)]
    ms = milestones(replay(make_run(tmp_path, events)))
    assert ms.figures.milestones_verified == 1


def _claims_over_one_piece(tmp_path, n: int) -> float:
    # one piece of evidence, n claims over one window: every claim after the first finds it taken
    from conftest import cpu_seconds

    events = [{"type": "evidence", "turn": 0, "kind": "commit", "irreversible": True, "subject": "c"}]
    events += [{"type": "evidence", "turn": 0, "kind": "commit", "irreversible": True, "subject": f"c{k}",
                "exit_code": None} for k in range(n)]
    events += [_claim(1, f"M{k}", step_started_turn=0) for k in range(2 * n)]
    state = replay(make_run(tmp_path / str(n), events))
    elapsed, ms = cpu_seconds(lambda: milestones(state))
    assert ms.figures.milestones_verified == n + 1
    return elapsed


def test_claim_pool_cost_is_not_quadratic(tmp_path):
    small = min(_claims_over_one_piece(tmp_path / f"a{k}", 2000) for k in range(3))
    large = min(_claims_over_one_piece(tmp_path / f"b{k}", 8000) for k in range(3))
    assert large / small <= 6, (small, large)
