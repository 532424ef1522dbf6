"""Intervals, paired tests, Holm and rank ranges against values computed by hand (or from textbooks)."""

from __future__ import annotations

import pytest

from checker.stages.statistics import (
    cluster_bootstrap,
    holm,
    mcnemar_exact,
    paired_bootstrap,
    rank_ranges,
    wilson,
)


@pytest.mark.parametrize(("k", "n", "lo", "hi"), [
    (0, 10, 0.0, 0.2775),   # the "rule of three"-like bound of Wilson at 0/10
    (5, 10, 0.2366, 0.7634),  # symmetric around 1/2
    (10, 10, 0.7225, 1.0),
    (1, 1, 0.2065, 1.0),
])
def test_wilson_textbook_values(k: int, n: int, lo: float, hi: float) -> None:
    interval = wilson(k, n)
    assert interval is not None
    assert interval[0] == pytest.approx(lo, abs=5e-5) and interval[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_needs_trials() -> None:
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_mcnemar_counts_only_discordant_pairs() -> None:
    # 5 units only a solved, none only b: p = 2 * (1/2)^5
    a = [True] * 5 + [True] * 7 + [False] * 3
    b = [False] * 5 + [True] * 7 + [False] * 3
    assert mcnemar_exact(a, b) == pytest.approx(2 / 32)
    # 3 vs 1 discordant: P(Bin(4, .5) <= 1) = 5/16, doubled
    assert mcnemar_exact([True, True, True, False], [False, False, False, True]) == pytest.approx(10 / 16)
    assert mcnemar_exact([True, False], [True, False]) == 1.0


def test_holm_steps_down_and_stops() -> None:
    p = {("A", "X"): 0.01, ("B", "X"): 0.04, ("C", "X"): 0.03}
    # 0.01 <= .05/3 rejects; 0.03 > .05/2 stops: it and 0.04 are kept
    assert holm(p) == {("A", "X"): True, ("C", "X"): False, ("B", "X"): False}
    assert holm({("A", "B"): 0.001, ("A", "C"): 0.02}) == {("A", "B"): True, ("A", "C"): True}


def test_rank_ranges_tie_and_separate() -> None:
    scores = {"A": 0.9, "B": 0.8, "C": 0.1}
    sig = {("A", "C")}  # only A is significantly better than C

    ranges = rank_ranges(scores, lambda x, y: (x, y) in sig)
    assert {k: v.label for k, v in ranges.items()} == {"A": "1–2", "B": "1–3", "C": "2–3"}
    everything = {("A", "B"), ("A", "C"), ("B", "C")}
    separated = rank_ranges(scores, lambda x, y: (x, y) in everything)
    assert {k: v.label for k, v in separated.items()} == {"A": "1", "B": "2", "C": "3"}


def test_cluster_bootstrap_resamples_whole_problems() -> None:
    # every problem has the same rate: any resample pools to it
    same = [(1.0, 2.0), (2.0, 4.0), (3.0, 6.0), (1.0, 2.0), (5.0, 10.0)]
    assert cluster_bootstrap(same, "k") == (0.5, 0.5)
    assert cluster_bootstrap(same[:4], "k") is None  # fewer than 5 problems
    mixed = [(0.0, 3.0), (3.0, 3.0), (1.0, 3.0), (2.0, 3.0), (3.0, 3.0), (0.0, 3.0)]
    lo, hi = cluster_bootstrap(mixed, "k") or (None, None)
    assert lo is not None and hi is not None and 0.0 <= lo < 9 / 18 < hi <= 1.0
    assert cluster_bootstrap(mixed, "k") == cluster_bootstrap(mixed, "k")  # seeded by the key


def test_paired_bootstrap_identical_and_separated() -> None:
    assert paired_bootstrap([0.3, 0.5, 0.7], [0.3, 0.5, 0.7], "k") == 1.0
    assert paired_bootstrap([1.0] * 20, [0.0] * 20, "k") == 0.0  # a constant difference: no resample reaches 0
    noisy = paired_bootstrap([0.5, 0.6, 0.4, 0.55, 0.45, 0.5], [0.5, 0.55, 0.45, 0.5, 0.5, 0.5], "k")
    assert 0.2 < noisy <= 1.0
