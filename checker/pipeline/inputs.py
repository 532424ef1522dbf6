"""The inputs verify scores runs against: constraint problem sets and completion task sets, read on first need.

`default_problem_dirs` lists the sets shipped under `problems/` (used when `--problems` is not given);
a folder holding `taskset.json` is a completion task set, any other a constraint problem set.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

PROBLEMS_ROOT = Path("problems")
"""Problem sets shipped with the repository (one sub-folder each), used when `--problems` is not given."""


def default_problem_dirs() -> list[Path]:
    """Each sub-folder of the repository's `problems/` that holds problem files (at any depth), as its own set.

    A set may keep its splits in sub-folders (`problems/drift-bench-v1/{dev,test}`): the folder is
    one set, and each split of it one more (see `checker.constraint.problems.load_problem_sets`).
    A folder holding `taskset.json` is a completion task set (`checker.completion.tasks`), read by that track.
    """
    if not PROBLEMS_ROOT.is_dir():
        return []
    return [p for p in sorted(PROBLEMS_ROOT.iterdir()) if p.is_dir() and any(p.rglob("*.json"))]


def is_task_set(path: Path) -> bool:
    """A folder holding a completion task set (`taskset.json`), not a constraint problem set."""
    return path.is_dir() and (path / "taskset.json").is_file()


def load_task_sets(paths: list[Path]) -> Mapping[str, Any]:
    """Digest -> completion task set, each folder read only when a run needs it (`checker.completion.tasks`)."""
    if not paths:
        return {}
    from checker.completion.tasks import LazyTaskSets

    return LazyTaskSets(paths)


def load_problem_sets(paths: list[Path]) -> Mapping[str, Any]:
    """Digest -> problem set, each path read only when a run needs it (`checker.constraint.problem_sets`)."""
    if not paths:
        return {}
    from checker.constraint.problem_sets import LazyProblemSets

    return LazyProblemSets(paths)
