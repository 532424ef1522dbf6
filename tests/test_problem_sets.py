"""Problem sets loaded on demand (`checker.constraint.problem_sets`): the same sets, read only when needed."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from constraint_helpers import seating_problem, write_problems
from test_problems import expected_digest

from checker.constraint.problem_sets import LazyProblemSets
from checker.constraint.problems import load_problem_sets
from checker.format.errors import UsageError
from checker.pipeline.verify import default_problem_dirs, is_task_set

REPO = Path(__file__).resolve().parent.parent


def two_sets(tmp_path):
    small = [seating_problem("seating_001")]
    large = [seating_problem(f"seating_{i:03d}") for i in range(10, 14)]
    write_problems(tmp_path / "a-large", large)  # sorts first by name, loads last by size
    write_problems(tmp_path / "b-small", small)
    return tmp_path / "a-large", tmp_path / "b-small", small, large


def test_a_run_of_the_small_set_never_reads_the_large_one(tmp_path):
    large_dir, small_dir, small, large = two_sets(tmp_path)
    sets = LazyProblemSets([large_dir, small_dir])
    assert sets.loaded == []
    assert sets[expected_digest(small)].name == "b-small"
    assert sets.loaded == ["b-small"]
    assert sets.get(expected_digest(large)) is not None
    assert sets.loaded == ["a-large", "b-small"]


def test_same_mapping_as_the_eager_loader(tmp_path):
    large_dir, small_dir, _, _ = two_sets(tmp_path)
    eager = load_problem_sets([large_dir, small_dir])
    lazy = LazyProblemSets([large_dir, small_dir])
    assert sorted(lazy) == sorted(eager)
    assert {d: (p.name, sorted(p.problems)) for d, p in lazy.items()} == {
        d: (p.name, sorted(p.problems)) for d, p in eager.items()}


def test_unknown_digest_loads_everything_and_is_absent(tmp_path):
    large_dir, small_dir, _, _ = two_sets(tmp_path)
    sets = LazyProblemSets([large_dir, small_dir])
    assert sets.get("0" * 64) is None
    assert "0" * 64 not in sets
    assert sets.loaded == ["a-large", "b-small"]


def test_fingerprint_follows_every_byte_and_name(tmp_path):
    large_dir, small_dir, _, _ = two_sets(tmp_path)
    before = LazyProblemSets([large_dir, small_dir]).fingerprint
    assert LazyProblemSets([large_dir, small_dir]).fingerprint == before
    f = small_dir / "test" / "seating_001.json"
    f.write_text(json.dumps(json.loads(f.read_text())) + " ", encoding="utf-8")  # same digest, other bytes
    assert LazyProblemSets([large_dir, small_dir]).fingerprint != before
    assert LazyProblemSets([large_dir]).fingerprint != LazyProblemSets([small_dir]).fingerprint


def test_errors_are_reported_when_the_set_is_read(tmp_path):
    large_dir, small_dir, small, _ = two_sets(tmp_path)
    (large_dir / "test" / "seating_010.json").write_text("{", encoding="utf-8")
    sets = LazyProblemSets([large_dir, small_dir])
    assert sets[expected_digest(small)].name == "b-small"  # the broken set is not needed
    with pytest.raises(UsageError, match=r"seating_010.json:1: invalid JSON"):
        sets.get("0" * 64)
    with pytest.raises(UsageError, match="no such file"):
        LazyProblemSets([tmp_path / "nope"])


def test_pickles_for_worker_processes(tmp_path):
    large_dir, small_dir, small, _ = two_sets(tmp_path)
    sets = pickle.loads(pickle.dumps(LazyProblemSets([large_dir, small_dir])))
    assert sets[expected_digest(small)].name == "b-small"


def test_shipped_sets_are_found_by_the_default_folders(monkeypatch):
    """Every sub-folder of problems/ is a set, the DRIFT-Bench one with its splits in sub-folders.

    The completion track's task set is one of them; verify reads it as a task set, never as constraint problems.
    """
    monkeypatch.chdir(REPO)
    found = default_problem_dirs()
    assert [d.as_posix() for d in found] == [
        "problems/drift-bench-v1", "problems/drift-bench-v1-lite", "problems/driftboard-suite-v1",
        "problems/tau-bench-airline"]
    assert [d.as_posix() for d in found if is_task_set(d)] == ["problems/tau-bench-airline"]
    dirs = [d for d in found if not is_task_set(d)]
    sets = LazyProblemSets(dirs)
    suite = "cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0"
    assert sets[suite].name == "driftboard-suite-v1" and sets.loaded == ["driftboard-suite-v1"]
