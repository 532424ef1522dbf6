"""Seed labels: one distinct name per run of a cell, shared by the scorers' tables and the aggregate stage.

Kept apart from `aggregate` so that scoring never imports the stage after it (nor pandas).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

SEED_PATTERN = re.compile(r"task(\d{3,})-trial(\d+)")
"""A completion seed label: the task id (at least three digits) and the trial number."""


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


def seed_label(task_id: int, trial: int) -> str:
    """The seed label of a completion episode: `task007-trial2`."""
    return f"task{task_id:03d}-trial{trial}"


def parse_seed(label: str) -> tuple[int, int] | None:
    """(task id, trial) of a canonical completion seed label, else None."""
    m = SEED_PATTERN.fullmatch(label)
    if m is None or label != seed_label(int(m.group(1)), int(m.group(2))):
        return None
    return int(m.group(1)), int(m.group(2))


def episode_parts(seed: str) -> tuple[str, str]:
    """(task, trial) labels of a completion seed: `task007-trial2` -> (`task007`, `trial2`).

    Split at the last `-trial`; a seed without one is its own task, with trial "". The boards pool a task's
    trials by it (`checker.stages.boards`) and the cell pages group them by it (`checker.render.completion`).
    """
    task, sep, trial = seed.rpartition("-trial")
    return (task, "trial" + trial) if sep else (seed, "")
