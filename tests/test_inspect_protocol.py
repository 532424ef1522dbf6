"""The Inspect task's dialogue protocol (no Inspect needed): ledger extraction, numbering, prompts."""

from __future__ import annotations

from conftest import REPO

from checker.constraint.problems import load_problems
from checker.harness.inspect_task.protocol import commit, parse_extraction, turn_prompt

SUITE = REPO / "problems" / "driftboard-suite-v1"


def test_extraction_keeps_three_distinct_well_formed_constraints():
    text = ('Sure: {"constraints": [{"type": "adjacent", "args": ["A", "B"], "nl": "A by B"}, '
            '{"type": "adjacent", "args": ["A", "B"]}, {"type": 3, "args": []}, {"type": "x", "args": "A"}, '
            '{"type": "before", "args": ["C", "D"]}, {"type": "gap", "args": ["C", "D", 1]}, '
            '{"type": "at_time", "args": ["C", 2]}]} done')
    assert parse_extraction(text) == [
        {"type": "adjacent", "args": ["A", "B"], "nl": "A by B"},
        {"type": "before", "args": ["C", "D"], "nl": None},
        {"type": "gap", "args": ["C", "D", 1], "nl": None},
    ]


def test_extraction_that_finds_nothing_is_none():
    assert parse_extraction(None) is None
    assert parse_extraction("no JSON at all") is None
    assert parse_extraction('{"constraints": []}') is None
    assert parse_extraction('{"solution": {"A": 1}}') is None
    assert parse_extraction('[{"type": "adjacent", "args": ["A", "B"]}]') == [
        {"type": "adjacent", "args": ["A", "B"], "nl": None}]


def test_commit_numbers_on_and_records_the_turn():
    ledger = commit([], [{"type": "a", "args": [1], "nl": None}, {"type": "b", "args": [2], "nl": "two"}], 1)
    ledger = commit(ledger, None, 2)
    ledger = commit(ledger, [{"type": "c", "args": [3], "nl": None}], 3)
    assert [(e["id"], e["type"], e["source_turn"]) for e in ledger] == [("C001", "a", 1), ("C002", "b", 1), ("C003", "c", 3)]


def test_turn_prompt_reveals_only_that_turns_constraints():
    (problem,), errors = load_problems([SUITE / "seating_007.json"])
    assert errors == []
    first = turn_prompt(problem, 1, "direct", None)
    assert first.startswith("Problem setup:\nDomain: seating\nEntities: Jon, Hal, Fay, Cyd, Bea, Ned\nTable shape: round")
    assert "New constraints:\nJon must sit immediately to the left of Cyd. Also, Bea cannot sit next to Jon." in first
    second = turn_prompt(problem, 2, "ledger_only", [{"id": "C001"}])
    assert "New constraints:\nHal must sit next to Bea.\n" in second and "Jon must sit" not in second
    assert 'Committed ledger:\n{\n  "constraints": [\n    {\n      "id": "C001"' in second
    assert "Committed ledger" not in first
