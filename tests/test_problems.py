"""Problem-set loading, validation and the digest."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from constraint_helpers import seating_problem, write_problems

from checker.constraint.problems import load_problem_sets, problem_set_digest
from checker.format.errors import UsageError


def expected_digest(problems):
    h = hashlib.sha256()
    for p in sorted(problems, key=lambda p: p["problem_id"]):
        h.update(json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
    return h.hexdigest()


def test_digest_definition_and_independence_of_layout(tmp_path):
    a, b = seating_problem("seating_001"), seating_problem("seating_002", split="dev")
    assert problem_set_digest([b, a]) == expected_digest([a, b])
    write_problems(tmp_path / "x", [a, b])
    sets = load_problem_sets([tmp_path / "x"])
    assert expected_digest([a, b]) in sets and expected_digest([a]) in sets and expected_digest([b]) in sets
    # key order and file layout do not matter
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "seating_001.json").write_text(json.dumps(dict(reversed(list(a.items())))), encoding="utf-8")
    assert list(load_problem_sets([flat / "seating_001.json"])) == [expected_digest([a])]


def test_all_problems_are_listed_with_their_location(tmp_path):
    bad_numbers = seating_problem("seating_001")
    bad_numbers["turns"][1]["turn_number"] = 3
    bad_cumulative = seating_problem("seating_002")
    bad_cumulative["turns"][1]["cumulative_constraints"] = bad_cumulative["turns"][1]["new_constraints"]
    unsat = seating_problem("seating_003")
    clash = {"type": "at_position", "args": ["Bob", 1], "nl": "x"}
    unsat["turns"][1]["new_constraints"].append(clash)
    unsat["turns"][1]["cumulative_constraints"].append(clash)
    wrong_gold = seating_problem("seating_004")
    wrong_gold["turns"][0]["gold_solution"] = {"Ann": 2, "Bob": 1, "Cid": 3, "Dee": 4}
    dup = copy.deepcopy(seating_problem("seating_005"))
    write_problems(tmp_path / "p", [bad_numbers, bad_cumulative, unsat, wrong_gold, dup])
    (tmp_path / "p" / "dev").mkdir()
    (tmp_path / "p" / "dev" / "seating_005.json").write_text(json.dumps(dup), encoding="utf-8")
    (tmp_path / "p" / "dev" / "renamed.json").write_text(json.dumps(seating_problem("seating_009")), encoding="utf-8")
    (tmp_path / "p" / "dev" / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        load_problem_sets([tmp_path / "p"])
    text = str(info.value)
    assert "seating_001.json:turns[1].turn_number: is 3, expected 2" in text
    assert "seating_002.json:turns[1].cumulative_constraints: is not turn 1's cumulative" in text
    assert "seating_003.json:turns[1].cumulative_constraints: unsatisfiable" in text
    assert "seating_004.json:turns[0].gold_solution: violates" in text
    assert "problem_id: duplicate id 'seating_005'" in text
    assert "renamed.json:problem_id: 'seating_009' differs from the file name" in text
    assert "broken.json:1: invalid JSON" in text


def test_missing_path_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        load_problem_sets([tmp_path / "nope"])
