"""Seed labels: one distinct name per run of a cell, shared by the scorers' tables and the aggregate stage.

Kept apart from `aggregate` so that scoring never imports the stage after it (nor pandas).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class Seeded(Protocol):
    """Anything with a seed label (a `checker.format.results_model.RunResult`)."""

    @property
    def seed(self) -> str | None:
        """The run's seed label."""
        ...


def seed_labels(runs: Iterable[Seeded]) -> list[str]:
    """One distinct label per run, in order: its seed, or `<seed> (k)` for the k-th run of a repeated seed.

    Two runs of one cell may carry the same seed label (a rerun, or a mistake); keyed by the bare
    label, the later would silently replace the earlier in per-seed values and pooled rates.
    """
    seen: set[str] = set()
    out = []
    for run in runs:
        seed = str(run.seed)
        label, k = seed, 1
        while label in seen:
            k += 1
            label = f"{seed} ({k})"
        seen.add(label)
        out.append(label)
    return out
