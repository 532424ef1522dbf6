"""How sure a figure and a rank are: intervals that fit their n, paired comparisons, Holm, rank ranges.

Pure functions over numbers (no I/O, no pandas), deterministic for the same inputs (every resample is
drawn from a generator seeded by a caller-given key). The methods, with their references and minimum n,
are stated on the metrics page:

* **Binary rates** (a share of episodes, of turns, of runs): the Wilson score interval
  (Wilson 1927; recommended over the normal and the percentile-bootstrap intervals for small n and
  rates near 0 or 1 by Bowyer, Aitchison and Ivanova, ICML 2025). Defined for n >= 1.
* **Rates over turns nested in problems**: a cluster bootstrap that resamples problems (with every
  turn of a drawn problem) and pools the rate (Miller 2024, "Adding Error Bars to Evals",
  arXiv:2411.00640). Needs at least `MIN_CLUSTERS` problems.
* **Means over seeds**: the percentile bootstrap of `checker.stages.aggregate.bootstrap_ci`, from
  at least 5 defined values.
* **Two entries of one board**: paired, on the units both have (problems or seeds): the exact
  McNemar test for binary outcomes per unit, a paired bootstrap of the mean difference otherwise;
  p-values Holm-corrected across every pair of the board (Holm 1979).
* **Ranks**: an entry's rank range runs from 1 + the number of entries significantly better (the
  upper-bound rank of LMArena) to N - the number significantly worse; entries whose ranges overlap
  are not separable.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal: a two-sided 95% interval."""
RESAMPLES = 2000
MIN_CLUSTERS = 5
"""No cluster bootstrap from fewer problems (or seeds) than this: n is shown instead, with the reason."""
ALPHA = 0.05


def seeded(key: str) -> random.Random:
    """A generator seeded from a string (a board or cell key), so every resample is reproducible."""
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of k successes in n trials; None when n is 0 (no rate to bound)."""
    if n <= 0:
        return None
    if not 0 <= k <= n:
        raise ValueError(f"{k} successes in {n} trials")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _percentiles(values: list[float]) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles (linear interpolation between order statistics, as numpy's default)."""
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = q * (len(ordered) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(ordered) - 1)
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)

    return at(0.025), at(0.975)


def cluster_bootstrap(clusters: Sequence[tuple[float, float]], key: str,
                      resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """95% interval of a pooled rate sum(numerators) / sum(denominators), resampling whole clusters.

    `clusters` holds one (numerator, denominator) per problem (its turns pooled), so turns of one
    problem are resampled together; None with fewer than `MIN_CLUSTERS` clusters or no denominator.
    """
    if len(clusters) < MIN_CLUSTERS or sum(d for _, d in clusters) <= 0:
        return None
    rng = seeded(key)
    n = len(clusters)
    rates: list[float] = []
    for _ in range(resamples):
        num = den = 0.0
        for _ in range(n):
            a, b = clusters[rng.randrange(n)]
            num += a
            den += b
        if den > 0:
            rates.append(num / den)
    return _percentiles(rates)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Two-sided exact McNemar p-value of paired binary outcomes (a[i], b[i] on the same unit).

    Only the discordant pairs count: with `x` units where only a succeeded and `y` where only b did,
    p = min(1, 2 * P(Binomial(x + y, 1/2) <= min(x, y))); 1.0 when no pair is discordant.
    """
    if len(a) != len(b):
        raise ValueError("paired outcomes of unequal length")
    x = sum(1 for u, v in zip(a, b, strict=True) if u and not v)
    y = sum(1 for u, v in zip(a, b, strict=True) if v and not u)
    m = x + y
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(x, y) + 1)) / 2**m
    return min(1.0, 2 * tail)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], key: str, resamples: int = RESAMPLES) -> float:
    """Two-sided p-value that mean(a - b) is 0, by a paired bootstrap over the shared units.

    The differences are centred on 0 (the null), resampled, and the share of resampled means at
    least as far from 0 as the observed one is the p-value (with the usual +1 correction).
    """
    if len(a) != len(b):
        raise ValueError("paired values of unequal length")
    diffs = [u - v for u, v in zip(a, b, strict=True)]
    n = len(diffs)
    if n == 0:
        return 1.0
    observed = sum(diffs) / n
    centred = [d - observed for d in diffs]
    if all(abs(c) < 1e-15 for c in centred):
        return 1.0 if abs(observed) < 1e-15 else 0.0
    rng = seeded(key)
    extreme = 0
    for _ in range(resamples):
        mean = sum(centred[rng.randrange(n)] for _ in range(n)) / n
        if abs(mean) >= abs(observed) - 1e-15:
            extreme += 1
    return (extreme + 1) / (resamples + 1)


def holm(pvalues: Mapping[tuple[str, str], float], alpha: float = ALPHA) -> dict[tuple[str, str], bool]:
    """Holm's step-down procedure: which of the pairs' hypotheses are rejected at family-wise `alpha`.

    Sorted ascending (ties by pair, for determinism), p_(i) is compared with alpha / (m - i); the
    first that fails stops the procedure and it and every larger one are kept.
    """
    ordered = sorted(pvalues.items(), key=lambda kv: (kv[1], kv[0]))
    m = len(ordered)
    out: dict[tuple[str, str], bool] = {}
    rejecting = True
    for i, (pair, p) in enumerate(ordered):
        rejecting = rejecting and p <= alpha / (m - i)
        out[pair] = rejecting
    return out


@dataclass(frozen=True)
class RankRange:
    """Where an entry may rank, given which pairwise differences are significant."""

    best: int
    """1 + the number of entries significantly better (LMArena's upper-bound rank)."""
    worst: int
    """N - the number of entries significantly worse."""

    @property
    def label(self) -> str:
        """`3` when the rank is pinned, `1–3` when it is not."""
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


def rank_ranges(scores: Mapping[str, float], better: Callable[[str, str], bool]) -> dict[str, RankRange]:
    """Each entry's rank range; `better(x, y)` says x is significantly better than y (after correction)."""
    names = list(scores)
    n = len(names)
    out: dict[str, RankRange] = {}
    for x in names:
        above = sum(1 for y in names if y != x and better(y, x))
        below = sum(1 for y in names if y != x and better(x, y))
        out[x] = RankRange(best=1 + above, worst=n - below)
    return out


__all__ = ["ALPHA", "MIN_CLUSTERS", "RESAMPLES", "Z95", "RankRange", "cluster_bootstrap", "holm", "mcnemar_exact",
           "paired_bootstrap", "rank_ranges", "seeded", "wilson"]
