"""`driftboard bench constraint` and its realistic workload: smoke tests (tiny workloads), not timings."""

from __future__ import annotations

import re
from pathlib import Path

from constraint_helpers import drift_bench_dir, seating_problem, write_problems
from driftboard_tools.bench.constraint import score_cases
from driftboard_tools.generate.constraint_turns import KINDS, generated_cases

from checker.constraint.problems import load_problems

LAST_LINE = re.compile(
    r"turns_per_s_realistic=(\d+) z3_fraction=([0-9.]+) turns_per_s_all_z3=(\d+) turns_per_s_gold=(\d+) "
    r"verdict_mismatches=(\d+) ratio_vs_naive=([0-9.]+) memo_hit_rate=([0-9.]+)$"
)


def _problems(tmp_path: Path):
    folder = write_problems(tmp_path / "problems", [seating_problem()])
    problems, errors = load_problems([folder])
    assert errors == []
    return folder, problems


def test_generated_cases_by_hand(tmp_path):
    _, problems = _problems(tmp_path)
    cases = generated_cases(problems, "d" * 64, seed=0)
    # turn 1: partial, swapped, conflict (no earlier answer to be stale); turn 2: all four kinds
    assert [(c.turn.turn_number, c.source) for c in cases] == [
        (1, "generated/partial"), (1, "generated/swapped"), (1, "generated/conflict"),
        (2, "generated/stale"), (2, "generated/partial"), (2, "generated/swapped"), (2, "generated/conflict")]
    stale = cases[3].turn
    assert stale.raw_response == '{"solution": {"Ann": 1, "Bob": 2, "Cid": 3, "Dee": 4}}'  # turn 1's gold answer
    assert [(e.type, e.args) for e in stale.ledger] == [
        ("at_position", ["Ann", 1]), ("left_of", ["Bob", "Ann"]), ("not_adjacent", ["Cid", "Bob"])]
    conflict = cases[6].turn
    assert len(conflict.ledger) == 4  # the gold ledger plus one misread copy
    assert generated_cases(problems, "d" * 64, seed=0) == cases
    assert generated_cases(problems, "d" * 64, seed=1) != cases
    assert {c.source.split("/")[1] for c in cases} == set(KINDS)


def test_scored_cases_agree_on_every_path(tmp_path):
    _, problems = _problems(tmp_path)
    cases = generated_cases(problems, "d" * 64, seed=0)
    fast, z3_all, naive = (score_cases(cases, mode) for mode in ("fast", "all-z3", "naive"))
    assert fast.records == z3_all.records == naive.records
    # hand-checked: turn 2's stale answer seats Cid (3) next to Bob (2), against "Cid not next to Bob"
    stale = fast.records[3]
    assert (stale.correct, stale.ledger_sat, stale.answer_satisfies_ledger, stale.channel) == (
        False, True, False, "drift")
    assert z3_all.stats.z3 > 0 and fast.stats.z3 == 0


def test_smoke_tiny_problem_set(run_line, tmp_path):
    folder, _ = _problems(tmp_path)
    res = run_line(["bench", "constraint", "--problems", str(folder), "--no-baselines", "--naive-sample", "3"])
    assert res.exit_code == 0, res.output
    m = LAST_LINE.match(res.output.splitlines()[-1])
    assert m, res.output.splitlines()[-1]
    assert m.group(5) == "0"
    assert "realistic turns: 7 " in res.output


def test_smoke_drift_bench_subset_with_baselines(run_line):
    problems = drift_bench_dir() / "problems"
    res = run_line(["bench", "constraint", "--problems", str(problems), "--limit", "6", "--naive-sample", "10"])
    assert res.exit_code == 0, res.output
    last = res.output.splitlines()[-1]
    m = LAST_LINE.match(last)
    assert m, last
    assert m.group(5) == "0"
    assert "baselines/oracle" in res.output and "generated/conflict" in res.output
    assert "records differing: fast vs all-z3 0, fast vs naive 0; gold turns not SAT+correct 0" in res.output


def test_bad_usage_exits_2(run_line, tmp_path):
    res = run_line(["bench", "constraint", "--problems", str(tmp_path / "absent")])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    res = run_line(["bench", "constraint", "--problems", str(tmp_path), "--jobs", "0"])
    assert res.exit_code == 2



