"""A pool of evidence items that claims draw from: each piece of evidence backs at most one claim.

`MinTree` holds one value per item (its log line) and answers "the first item in [lo, hi) whose
value is below a bound" in O(log n); taking an item sets its value to infinity. Claims draw from
the pool in log order, so a log of n claims over n pieces of evidence costs O(n log n), never n².
"""

from __future__ import annotations

INF = 1 << 62
"""The value of a taken item (above any log line)."""


class MinTree:
    """A segment tree of minima over a fixed-length list, with point updates and a first-below search."""

    def __init__(self, values: list[int]) -> None:
        """Build the tree over `values` (O(n))."""
        self.n = len(values)
        size = 1
        while size < max(self.n, 1):
            size *= 2
        self.size = size
        self.tree = [INF] * (2 * size)
        self.tree[size:size + self.n] = values
        for k in range(size - 1, 0, -1):
            self.tree[k] = min(self.tree[2 * k], self.tree[2 * k + 1])

    def take(self, index: int) -> None:
        """Remove item `index` from every later search."""
        k = index + self.size
        self.tree[k] = INF
        k //= 2
        while k:
            self.tree[k] = min(self.tree[2 * k], self.tree[2 * k + 1])
            k //= 2

    def find(self, lo: int, hi: int, bound: int) -> int | None:
        """The first index k in [lo, hi) whose value is below `bound`, or None (O(log n))."""
        if lo >= hi:
            return None
        return self._find(1, 0, self.size, lo, hi, bound)

    def _find(self, node: int, left: int, right: int, lo: int, hi: int, bound: int) -> int | None:
        """Descend into the nodes covering [lo, hi), leftmost first, pruning any whose minimum is not below."""
        if right <= lo or hi <= left or self.tree[node] >= bound:
            return None
        if right - left == 1:
            return left
        mid = (left + right) // 2
        found = self._find(2 * node, left, mid, lo, hi, bound)
        return found if found is not None else self._find(2 * node + 1, mid, right, lo, hi, bound)


__all__ = ["INF", "MinTree"]
