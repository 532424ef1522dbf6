"""Helpers for the constraint-track tests: tiny problem sets and transcripts written to tmp folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_data, shared_data_reason


def drift_bench_dir() -> Path:
    """`<shared data>/drift-bench`, or skip the test with the reason."""
    root = shared_data() / "drift-bench"
    if not (root / "problems").is_dir():
        pytest.skip(shared_data_reason("DRIFT-Bench problems", root / "problems"))
    return root


def seating_problem(pid: str = "seating_001", split: str = "test") -> dict[str, Any]:
    """A 4-seat round table with two turns (gold solutions satisfy the code semantics)."""
    c1 = {"type": "at_position", "args": ["Ann", 1], "nl": "Ann must sit at position 1"}
    c2 = {"type": "left_of", "args": ["Bob", "Ann"], "nl": "Bob is left of Ann"}
    c3 = {"type": "not_adjacent", "args": ["Cid", "Bob"], "nl": "Cid cannot sit next to Bob"}
    return {
        "problem_id": pid, "domain": "seating", "split": split, "num_entities": 4,
        "entities": ["Ann", "Bob", "Cid", "Dee"], "table_shape": "round",
        "turns": [
            {"turn_number": 1, "user_message": "t1", "new_constraints": [c1, c2], "cumulative_constraints": [c1, c2],
             "gold_solution": {"Ann": 1, "Bob": 2, "Cid": 3, "Dee": 4}, "is_satisfiable": True},
            {"turn_number": 2, "user_message": "t2", "new_constraints": [c3], "cumulative_constraints": [c1, c2, c3],
             "gold_solution": {"Ann": 1, "Bob": 2, "Cid": 4, "Dee": 3}, "is_satisfiable": True},
        ],
    }


def write_problems(folder: Path, problems: list[dict[str, Any]]) -> Path:
    """Write each problem to `folder/<split>/<problem_id>.json`."""
    for p in problems:
        path = folder / str(p.get("split", "test")) / f"{p['problem_id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(p, indent=1), encoding="utf-8")
    return folder


def write_transcript(path: Path, problem: dict[str, Any], traces: list[dict[str, Any]]) -> Path:
    """A DRIFT-Bench transcript JSONL with one problem_intro and the given model_trace rows."""
    lines = [{"type": "problem_intro", "problem_id": problem["problem_id"], "domain": problem["domain"],
              "entities": problem["entities"], "n_turns": len(problem["turns"])}]
    lines += [{"type": "model_trace", **t} for t in traces]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path
