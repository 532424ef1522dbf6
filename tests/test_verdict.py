"""The one verdict function, row by row of its precedence table (expectations written by hand)."""

from __future__ import annotations

import itertools

import pytest

from checker.format.results_model import RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.stages.verdict import PRECEDENCE, judge, judged_run, with_fact

# The table as the issue and the module docstring state it, highest first (written out, not read from the code).
EXPECTED_ORDER = [
    ("malformed", "MALFORMED"),
    ("unverified", "UNVERIFIED"),
    ("copy", "INVALID"),
    ("inconsistent", "INVALID"),
    ("incomplete", "INCOMPLETE"),
    ("invalid", "INVALID"),
    ("comparator", "COMPARATOR"),  # issue 29: a comparator run the gate fails is INVALID, as ARG's probe says
]


def test_the_table_is_the_documented_one() -> None:
    assert [(r.kind, r.verdict) for r in PRECEDENCE] == EXPECTED_ORDER


def test_no_fact_is_valid() -> None:
    assert judge([]) == ("VALID", [])


@pytest.mark.parametrize(("kind", "verdict"), EXPECTED_ORDER)
def test_each_row_alone(kind: str, verdict: str) -> None:
    assert judge([Fact(kind, "why")]) == (verdict, ["why"])  # type: ignore[arg-type]


@pytest.mark.parametrize(("high", "low"), list(itertools.combinations(range(len(EXPECTED_ORDER)), 2)))
def test_every_pair_the_higher_row_wins_in_either_order(high: int, low: int) -> None:
    (hk, hv), (lk, _) = EXPECTED_ORDER[high], EXPECTED_ORDER[low]
    assert judge([Fact(hk, "a"), Fact(lk, "b")]) == (hv, ["a", "b"])  # type: ignore[arg-type]
    assert judge([Fact(lk, "b"), Fact(hk, "a")]) == (hv, ["b", "a"])  # type: ignore[arg-type]


def test_reasons_keep_the_order_the_stages_recorded() -> None:
    facts = [Fact("incomplete", "no run_end"), Fact("invalid", "gate c1 failed"), Fact("invalid", "gate c2 failed")]
    assert judge(facts) == ("INCOMPLETE", ["no run_end", "gate c1 failed", "gate c2 failed"])


def test_a_contradiction_outranks_an_unfinished_run_a_gate_failure_does_not() -> None:
    assert judge([Fact("incomplete", "no run_end"), Fact("inconsistent", "turn logged twice")])[0] == "INVALID"
    assert judge([Fact("incomplete", "no run_end"), Fact("invalid", "render ceiling")])[0] == "INCOMPLETE"


def test_a_copy_fact_added_later_is_judged_with_the_others() -> None:
    valid = judged_run([], path="r.jsonl")
    assert valid.verdict == "VALID"
    copied = with_fact(valid, Fact("copy", "a copy of a.jsonl"))
    assert (copied.verdict, copied.reasons) == ("INVALID", ["a copy of a.jsonl"])
    # a comparator copy is INVALID (copy outranks comparator); an unverified one stays UNVERIFIED
    comparator = judged_run([Fact("comparator", "not gated")], path="r.jsonl")
    assert with_fact(comparator, Fact("copy", "c")).verdict == "INVALID"
    unverified = judged_run([Fact("unverified", "too large")], path="r.jsonl")
    assert with_fact(unverified, Fact("copy", "c")).verdict == "UNVERIFIED"


def test_facts_stay_in_memory_only() -> None:
    run = judged_run([Fact("invalid", "x")], path="r.jsonl")
    assert run.verdict_facts == (Fact("invalid", "x"),)
    assert "verdict_facts" not in run.model_dump_json()
    assert RunResult.model_validate_json(run.model_dump_json()).verdict_facts == ()


def test_no_other_module_writes_a_verdict() -> None:
    """Only `checker.stages.verdict` turns facts into a verdict: no scorer or stage sets one itself."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1] / "checker"
    writes = re.compile(r"""(\bverdict\s*=\s*["'](VALID|INVALID|INCOMPLETE|MALFORMED|UNVERIFIED|COMPARATOR)["']"""
                        r"""|["']verdict["']\s*:\s*["'](VALID|INVALID|INCOMPLETE|MALFORMED|UNVERIFIED|COMPARATOR)["'])""")
    offenders = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in ("stages/verdict.py", "harness/baselines/reported.py"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if writes.search(line) and "gate_verdict" not in line:
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []
