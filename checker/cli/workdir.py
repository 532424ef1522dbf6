"""Run from the wrong folder: one line naming the project root (the folder holding mkdocs.yml) or the option to pass.

`cite`, `serve` and `build` read and write paths relative to the project root (`build/results`,
`build/site`, `submissions/`). Run from elsewhere, the first missing path would be reported as if
the file were the problem; when the current folder holds no `mkdocs.yml`, the folder is named as
the problem instead.
"""

from __future__ import annotations

from pathlib import Path

from checker.format.errors import UsageError


def check_workdir(command: str, paths: dict[str, Path], project: Path | None = None, also: str = "") -> None:
    """Refuse to run `driftboard COMMAND` outside a project root when one of `paths` (option -> path) is missing.

    Raises:
        UsageError: a path is missing and neither the current folder nor `project` holds mkdocs.yml (exit 2).
    """
    missing = [(option, path) for option, path in paths.items() if not path.exists()]
    if not missing or (Path.cwd() / "mkdocs.yml").is_file() or (project is not None and (project / "mkdocs.yml").is_file()):
        return
    options = " and ".join([*([also] if also else []), *(f"{option} DIR" for option, _ in missing)])
    raise UsageError(f"{missing[0][1]}: not found, and {Path.cwd()} holds no mkdocs.yml: run `driftboard {command}` "
                     f"from the project root (the folder holding mkdocs.yml), or pass {options}")


__all__ = ["check_workdir"]
