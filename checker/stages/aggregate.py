"""Aggregate stage: per-cell figures over VALID runs, with undefined kept apart from 0.

For every numeric metric a cell reports "n defined of N" VALID seeds, the per-seed values,
mean, min/max and a seeded percentile-bootstrap 95% interval of the mean. Seeds where the
metric is undefined (None) are left out, never counted as 0. For rates over beats or turns the
pooled rate (sum of numerators / sum of denominators) is given beside the mean of per-seed
rates, because the ARG record never says which one it used.

Plain Python over a few values per cell (no pandas: it cost more to import than the whole
aggregation of a submission takes); numpy only for the bootstrap, imported when a cell has
enough values for an interval.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable

from checker.format.metricdef import Metric
from checker.format.numbers import clean as _clean
from checker.format.numbers import is_number
from checker.format.results_model import AllDeclared, MetricAggregate, RunResult, SeedOutcome
from checker.format.seeds import seed_labels

BOOTSTRAP_RESAMPLES = 2000
MIN_CI_VALUES = 5
"""No bootstrap interval from fewer defined values than this (n is shown instead, with the reason)."""
COUNTED_VERDICTS = frozenset({"VALID", "COMPARATOR"})
"""Runs that count toward a cell: VALID runs, and ungated comparator runs in comparator cells."""


def seed_for(key: str) -> int:
    """A stable 64-bit seed derived from a string (the result id), so intervals are reproducible."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def bootstrap_ci(values: list[float], key: str, resamples: int = BOOTSTRAP_RESAMPLES) -> list[float] | None:
    """Percentile bootstrap 95% interval of the mean; None with fewer than `MIN_CI_VALUES` values.

    A bootstrap over two to four values mostly resamples the same few points and states a
    precision the data cannot carry: below five defined values the page shows n and says why.
    """
    if len(values) < MIN_CI_VALUES:
        return None
    # imported here, not at the top: numpy is a tenth of a second of start-up that a command verifying
    # a run or two (no cell with five values) never needs
    import numpy as np

    arr = np.sort(np.asarray(values, dtype=float))  # depends on the values only, not on file order
    if len({float(v).hex() for v in values}) == 1:  # bit for bit (0.0 and -0.0 are two values here)
        # every resample is the sample itself: the interval is its mean, reduced exactly as each resample's
        # is below (one row of the same shape), and the percentiles of equal means are that mean
        mean = float(arr[np.zeros((1, len(arr)), dtype=np.intp)].mean(axis=1)[0])
        if math.isfinite(mean):  # (a sum that overflows is left to the full path, whatever it makes of it)
            return [_clean(mean), _clean(mean)]
    rng = np.random.default_rng(seed_for(key))
    idx = rng.integers(0, len(arr), size=(resamples, len(arr)))
    means = arr[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return [_clean(float(lo)), _clean(float(hi))]


def counted_runs(runs: Iterable[RunResult]) -> list[RunResult]:
    """The runs that count toward a cell's figures (verdict VALID or COMPARATOR), in order."""
    return [r for r in runs if r.verdict in COUNTED_VERDICTS]


def metric_values(runs: Iterable[RunResult]) -> dict[str, dict[str, float | None]]:
    """Metric -> seed label -> value (None: undefined) of every scalar metric of the counted runs.

    Metrics in name order, seeds in run order; `seed` is the run's label from `seed_labels`
    (distinct even when a seed is repeated).
    """
    table: dict[str, dict[str, float | None]] = {}
    counted = counted_runs(runs)
    for run, label in zip(counted, seed_labels(counted), strict=True):
        for name, value in run.metrics.items():
            if value is None or is_number(value):
                table.setdefault(name, {})[label] = None if value is None else float(value)
    return dict(sorted(table.items()))


def aggregate_metrics(
    result_id: str, cell_runs: list[RunResult], rates: dict[str, dict[str, list[float]]] | None = None
) -> dict[str, MetricAggregate]:
    """Aggregate every scalar metric of one cell's counted runs.

    Args:
        result_id: the cell's stable id (seeds the bootstrap).
        cell_runs: the cell's per-run records (any verdict; only counted ones are used).
        rates: optional metric -> seed label (`seed_labels` of the counted runs) -> [numerator,
            denominator] for pooled rates.
    """
    n = sum(1 for r in cell_runs if r.verdict in COUNTED_VERDICTS)
    out: dict[str, MetricAggregate] = {}
    for name, by_seed in metric_values(cell_runs).items():
        values: dict[str, float | int | None] = {s: (None if v is None else _num(v)) for s, v in by_seed.items()}
        defined = [float(v) for v in values.values() if v is not None]
        mean, low, high = _spread(defined)
        pooled, num, den = _pooled(rates.get(name) if rates else None, values)
        out[name] = MetricAggregate(
            n_defined=len(defined), n=n, values=dict(sorted(values.items())), mean=mean, min=low, max=high,
            ci95=bootstrap_ci(defined, f"{result_id}:{name}"), pooled=pooled, pooled_num=num, pooled_den=den,
        )
    return out


def _spread(defined: list[float]) -> tuple[float | None, float | None, float | None]:
    """(mean, min, max) of the defined values; all None without any."""
    if not defined:
        return None, None, None
    return _clean(sum(defined) / len(defined)), _clean(min(defined)), _clean(max(defined))


def _pooled(rate: dict[str, list[float]] | None, seeds: Iterable[str]) -> tuple[float | None, float | None, float | None]:
    """(pooled rate, sum of numerators, sum of denominators) over the seeds with a positive denominator.

    All None without such a seed (or without a rate for the metric).
    """
    pairs = [rate[s] for s in seeds if s in rate and rate[s][1] > 0] if rate is not None else []
    if not pairs:
        return None, None, None
    num, den = float(sum(p[0] for p in pairs)), float(sum(p[1] for p in pairs))
    return _clean(num / den), num, den


def counts(verdict: str, comparator: bool) -> bool:
    """A run of this verdict counts toward its cell: VALID, or COMPARATOR in a comparator cell."""
    return verdict == "VALID" or (comparator and verdict in COUNTED_VERDICTS)


def _num(v: float) -> float | int:
    f = float(v)
    return int(f) if f.is_integer() and abs(f) < 2**53 else _clean(f)


def declared_outcomes(declared: list[str], withdrawn: dict[str, str], runs: list[RunResult],
                      comparator: bool) -> tuple[list[SeedOutcome], dict[str, RunResult | None]]:
    """Each declared seed's outcome, and the run that stands for it (None: missing or withdrawn).

    A seed reported twice is represented by its first run in path order (the repeat is a finding).
    """
    by_seed: dict[str, RunResult] = {}
    for reported in runs:
        by_seed.setdefault(str(reported.seed), reported)
    outcomes: list[SeedOutcome] = []
    chosen: dict[str, RunResult | None] = {}
    for seed in declared:
        run = by_seed.get(seed)
        if seed in withdrawn:
            outcomes.append(SeedOutcome(seed=seed, status="WITHDRAWN", run_id=run.run_id if run else None,
                                        reason=withdrawn[seed]))
            chosen[seed] = None
        elif run is None:
            outcomes.append(SeedOutcome(seed=seed, status="MISSING", reason="declared, no run log reported"))
            chosen[seed] = None
        else:
            counted = counts(run.verdict, comparator)
            outcomes.append(SeedOutcome(seed=seed, status=run.verdict, run_id=run.run_id,
                                        reason=None if counted else (run.reasons[0] if run.reasons else run.verdict)))
            chosen[seed] = run
    return outcomes, chosen


def _declared_value(metric: Metric, run: RunResult | None, comparator: bool) -> tuple[float | None, bool]:
    """(the value a declared seed's run gives the metric, True when the worst value stands in for it)."""
    if run is None:
        return None, True
    if counts(run.verdict, comparator):
        v = run.metric(metric.declared_variant or metric.name)
        if metric.declared_variant and v is None:
            v = run.metric(metric.name)
        return (float(v) if is_number(v) else None), False
    if run.verdict == "INCOMPLETE" and metric.declared_variant:
        v = run.metric(metric.declared_variant)
        if is_number(v):
            return float(v), False
    return None, True


def all_declared(metric: Metric, chosen: dict[str, RunResult | None], withdrawn: dict[str, str],
                 comparator: bool) -> AllDeclared | None:
    """The intent-to-treat figure of one metric over a cell's declared seeds (None without a worst value).

    VALID (or, in a comparator cell, COMPARATOR) runs give their value — the metric's declared
    variant when it has one, which already counts the run's own missing parts as worst; an
    INCOMPLETE run gives its declared variant when the metric has one (its logged part counts,
    the rest is worst), else the worst value; every other outcome, and a missing run, is worst.
    A counted run whose ranked metric is undefined (e.g. no reference beat) is worst too: doing
    nothing must not drop a seed out of the ranked mean.
    """
    if metric.worst is None:
        return None
    values: dict[str, float | None] = {}
    n_worst = 0
    for seed, run in chosen.items():
        if seed in withdrawn:
            continue
        value, substituted = _declared_value(metric, run, comparator)
        if value is None and metric.ranked and not comparator:
            substituted = True  # committing to nothing (no plan, never acting) never leaves the ranked mean
        if substituted:
            value = metric.worst
            n_worst += 1
        values[seed] = None if value is None else _clean(value)
    defined = [v for v in values.values() if v is not None]
    return AllDeclared(value=_clean(sum(defined) / len(defined)) if defined else None, worst=metric.worst,
                       n_declared=len(values), n_worst=n_worst, n_undefined=len(values) - len(defined),
                       values=dict(sorted(values.items())))
