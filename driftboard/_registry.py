"""Inspect AI entry point (`[project.entry-points.inspect_ai] driftboard = "driftboard._registry"`).

Registers the task `driftboard/constraint`; Inspect loads this module only when a `driftboard/...`
name is asked for, so the rest of the checker never imports `inspect_ai`.
"""

from __future__ import annotations

from inspect_ai import Task, task


@task
def constraint(problems: str, method: str = "direct", seed: int | None = None) -> Task:
    """Constraint track: one sample per problem of folder `problems`, the dialogue protocol of `method`.

    Args:
        problems: a problem-set folder, e.g. `problems/driftboard-suite-v1`.
        method: `direct`, `cot` or `ledger_only`.
        seed: if set, epoch e asks the provider for seed `seed + e - 1` (seeds as epochs).
    """
    from checker.inspect_task.task import build_task

    return build_task(problems, method, seed)
