"""Issue 31 item 1: which commitments a drift answer breaks, and when they were stated (the constraint scorer).

Expectations are hand-computed from the logs and the problem files (arithmetic in the comments),
and the drift turns themselves are the DRIFT-Bench truth files' `answer_vs_ledger=0` rows.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import REPO, shared_data, shared_data_reason

from checker.constraint.commitments import broken_by_answer, canonical, stated_constraints
from checker.constraint.domains.solver import ProblemSolver
from checker.constraint.problems import read_problem

SID = "drift-bench-examples"
TEST_SPLIT = REPO / "problems" / "drift-bench-v1" / "test"

# (model, problem, turn) -> [(ledger id, stated turn, the problem set's words)], by hand:
# * qwen3-32b seating_062 turns 3 and 4: Tina at 7, Frank at 2 on a ring of 7 seats: |7-2| = 5, the shorter way
#   round is min(5, 7-5) = 2 apart, i.e. 1 seat between, fewer than the 2 C005 asks (stated at turn 3). Every other
#   entry holds (turn 3: Karen 3; Karen 3 / Ruby 5 two apart; Charlie 6 / Frank 2 four apart; Karen 3 / Noah 1 one
#   seat between; turn 4 adds Frank 2 / Ruby 5, Noah 1 / Charlie 4 not adjacent and Diana at 6).
# * gpt-oss-120b logic_grid_021 turn 4: pets in order Cat, Dog, Bird, Fish; Finley has Bird (2), Drew Dog (1):
#   C001 "Finley's pet comes before Drew's" (turn 1) fails; the other six entries hold.
EXPECTED = {
    ("qwen3-32b", "seating_062", 3): [("C005", 3, "Tina and Frank must have at least 2 seats between them")],
    ("qwen3-32b", "seating_062", 4): [("C005", 3, "Tina and Frank must have at least 2 seats between them")],
    ("gpt-oss-120b", "logic_grid_021", 4): [("C001", 1, "Finley's pet value comes before Drew's pet value")],
}


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """drift-bench-examples verified from the repository root against the shipped problem sets."""
    from checker.pipeline.verify import default_problem_dirs, verify_paths

    out = tmp_path_factory.mktemp("examples-results")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        report = verify_paths([Path("submissions") / SID], problem_dirs=default_problem_dirs(), results_dir=out)
    assert report.exit_code == 0
    return json.loads((out / f"{SID}.json").read_text(encoding="utf-8"))


def test_drift_turns_name_the_commitment_broken_and_its_turn(examples: dict) -> None:
    got = {(run["backbone"], t["problem_id"], t["turn_number"]): t for run in examples["runs"] for t in run["turns"]}
    drift = {k for k, t in got.items() if t["channel"] == "drift"}
    assert drift == set(EXPECTED)
    for key, want in EXPECTED.items():
        assert [(c["id"], c["stated_turn"], c["text"]) for c in got[key]["broken"]] == want, key
    assert all(t["broken"] is None for k, t in got.items() if k not in EXPECTED), "only drift/contradiction turns"


@pytest.mark.shared_data
def test_the_drift_turns_are_the_reference_truths(examples: dict) -> None:
    """The turns named above are exactly the truth files' rows with answer_vs_ledger=0 (DRIFT-Bench's own check)."""
    root = shared_data() / "drift-bench" / "transcripts"
    if not root.is_dir():
        pytest.skip(shared_data_reason("DRIFT-Bench example transcripts and truth files", root))
    truth = set()
    for domain in ("seating", "logic_grid", "scheduling"):
        with (root / f"{domain}_example.truth.csv").open(encoding="utf-8") as fh:
            truth |= {(r["model"], r["problem_id"], int(r["turn"])) for r in csv.DictReader(fh)
                      if "answer_vs_ledger=0" in r["note"]}
    assert truth == set(EXPECTED)


def test_the_answer_is_read_into_a_grid(examples: dict) -> None:
    run = next(r for r in examples["runs"] if r["backbone"] == "qwen3-32b")
    t = next(t for t in run["turns"] if (t["problem_id"], t["turn_number"]) == ("seating_062", 3))
    # the log's raw response: {"Diana": 4, "Ruby": 5, "Tina": 7, "Noah": 1, "Frank": 2, "Charlie": 6, "Karen": 3}
    assert t["answer"] == {"Diana": {"seat": 4}, "Ruby": {"seat": 5}, "Tina": {"seat": 7}, "Noah": {"seat": 1},
                           "Frank": {"seat": 2}, "Charlie": {"seat": 6}, "Karen": {"seat": 3}}


def _seating() -> tuple:
    problem, errors = read_problem(TEST_SPLIT / "seating_062.json", "seating_062.json")
    assert problem is not None and not errors
    dom = problem.make_domain()
    return problem, dom, ProblemSolver(dom)


def test_a_conflict_only_together_gives_a_minimal_subset() -> None:
    """A partial answer (Karen at 3) breaks no entry alone, but `Ruby next to Karen` ∧ `Ruby at 6` together."""
    _problem, dom, solver = _seating()
    keys = [dom.compile("adjacent", ["Ruby", "Karen"]), dom.compile("at_position", ["Diana", 1]),
            dom.compile("at_position", ["Ruby", 6])]
    phi = dom.answer_keys({"Karen": 3})
    assert broken_by_answer(dom, solver, keys, phi) == [0, 2]


def test_entries_broken_alone_are_all_listed() -> None:
    _problem, dom, solver = _seating()
    answer = {"Diana": 4, "Ruby": 5, "Tina": 7, "Noah": 1, "Frank": 2, "Charlie": 6, "Karen": 3}
    keys = [dom.compile("at_position", ["Karen", 3]), dom.compile("adjacent", ["Karen", "Ruby"]),
            dom.compile("at_position", ["Diana", 6])]
    # Karen is at 3 (holds); Karen 3 / Ruby 5 are two apart, not adjacent (broken); Diana is at 4, not 6 (broken)
    assert broken_by_answer(dom, solver, keys, dom.answer_keys(answer)) == [1, 2]
    # two entities in one seat break the puzzle's own rules: no commitment is singled out
    assert broken_by_answer(dom, solver, keys, dom.answer_keys({**answer, "Ruby": 3})) == []


def test_stated_turns_match_a_symmetric_pair_either_way_round() -> None:
    problem, dom, _solver = _seating()
    stated = stated_constraints(dom, problem)
    # seating_062 turn 1: "Karen cannot sit next to Ruby"; a ledger may write the pair the other way round
    swapped = canonical(dom, "not_adjacent", dom.compile("not_adjacent", ["Ruby", "Karen"]))
    assert stated[swapped] == (1, "Karen cannot sit next to Ruby")
    assert canonical(dom, "left_of", dom.compile("left_of", ["Ruby", "Karen"])) not in stated

