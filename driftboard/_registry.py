"""Inspect AI entry point (`[project.entry-points.inspect_ai] driftboard = "driftboard._registry"`).

Registers the task `driftboard/constraint`; Inspect loads this module only when a `driftboard/...`
name is asked for, so the rest of the checker never imports `inspect_ai`.
"""

from __future__ import annotations

from inspect_ai import Task, task


def _constraint(problems: str, method: str = "direct", seed: int | None = None) -> Task:
    """Constraint track: one sample per problem of folder `problems`, the dialogue protocol of `method`.

    Args:
        problems: a problem-set folder, e.g. `problems/driftboard-suite-v1`.
        method: `direct`, `cot` or `ledger_only`.
        seed: if set, epoch e asks the provider for seed `seed + e - 1` (seeds as epochs).
    """
    from checker.harness.inspect_task.task import build_task

    return build_task(problems, method, seed)


def _name() -> str:
    """The name to register so that the task is `driftboard/constraint` however this package was found.

    Inspect prefixes a task's name with its top-level package only when it finds that package installed
    (in site-packages, or editable by its metadata). `python -m pytest` in a checkout puts the checkout
    first on the path, where the `driftboard.egg-info` of an editable install hides the install's
    metadata: the prefix is then missing, so the full name is given here.
    """
    try:
        from inspect_ai._util.package import get_installed_package_name
    except ImportError:  # moved in a later Inspect: assume the usual, installed case
        return "constraint"
    return "constraint" if get_installed_package_name(_constraint) == "driftboard" else "driftboard/constraint"


constraint = task(name=_name())(_constraint)
