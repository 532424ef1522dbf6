"""Inspect AI entry point (`[project.entry-points.inspect_ai] driftboard = "driftboard._registry"`).

Registers the tasks `driftboard/constraint` and `driftboard/agent` and the offline scripted model
provider `driftboard` (`--model driftboard/scripted`, for both tasks); Inspect loads this module
only when a `driftboard/...` name is asked for, so the rest of the checker never imports `inspect_ai`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task

from checker.harness.inspect_task import scripted_model  # noqa: F401  (registers the model provider `driftboard`)


def _constraint(problems: str, method: str = "direct", seed: int | None = None) -> Task:
    """Constraint track: one sample per problem of folder `problems`, the dialogue protocol of `method`.

    Args:
        problems: a problem-set folder, e.g. `problems/driftboard-suite-v1`.
        method: `direct`, `cot` or `ledger_only`.
        seed: if set, epoch e asks the provider for seed `seed + e - 1` (seeds as epochs).
    """
    from checker.harness.inspect_task.task import build_task

    return build_task(problems, method, seed)


def _agent(condition: str = "FULL", games: str = "w101,w202,w303", horizon: int = 150) -> Task:
    """Agent track: the micro-world's games (samples) with the model in the ARG-style harness; epochs are seeds.

    Args:
        condition: `FULL`, `J0` (binding join off), `A0` (agenda off), `J0A0` or `BARE` (the comparator).
        games: comma-separated game ids `w<world seed>` (default: the shipped baseline's three games).
        horizon: actions per game.
    """
    from checker.harness.inspect_task.agent_task import build_task

    return build_task(condition, games, horizon)


def _name(fn: Callable[..., Any], short: str) -> str:
    """The name to register so that the task is `driftboard/<short>` however this package was found.

    Inspect prefixes a task's name with its top-level package only when it finds that package installed
    (in site-packages, or editable by its metadata). `python -m pytest` in a checkout puts the checkout
    first on the path, where the `driftboard.egg-info` of an editable install hides the install's
    metadata: the prefix is then missing, so the full name is given here.
    """
    try:
        from inspect_ai._util.package import get_installed_package_name
    except ImportError:  # moved in a later Inspect: assume the usual, installed case
        return short
    return short if get_installed_package_name(fn) == "driftboard" else f"driftboard/{short}"


constraint = task(name=_name(_constraint, "constraint"))(_constraint)
agent = task(name=_name(_agent, "agent"))(_agent)
