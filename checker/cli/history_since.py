"""The default `--since` of `driftboard ci-history`: where the two-pull-request rule begins, as the repository records it.

The repository's `pyproject.toml` names the commit in `[tool.driftboard] two-pr-rule-since`: every
first-parent commit after it must follow the rule (the shipped reference submissions were added
by maintainers before it, each with its runs). It is maintainers' work to move it: a submission's
pull request may only add files in its own folder. In a repository that does not hold that
commit (a fresh copy with a history of its own) the whole history is checked.
"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

KEY = "two-pr-rule-since"
"""The key of `[tool.driftboard]` in `pyproject.toml`."""


def recorded_since(root: Path) -> str | None:
    """The commit `pyproject.toml` records under `[tool.driftboard] two-pr-rule-since` (None: none recorded)."""
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    value = data.get("tool", {}).get("driftboard", {}).get(KEY)
    return value if isinstance(value, str) and value else None


def default_since(root: Path) -> tuple[str | None, str]:
    """(the `--since` to use, a note saying where it came from) when none is given."""
    since = recorded_since(root)
    if since is None:
        return None, "no [tool.driftboard] two-pr-rule-since in pyproject.toml: checking the whole history"
    known = subprocess.run(["git", "-C", str(root), "cat-file", "-e", f"{since}^{{commit}}"],
                           capture_output=True, check=False)
    if known.returncode != 0:
        return None, f"two-pr-rule-since {since[:12]} (pyproject.toml) is not in this history: checking the whole history"
    return since, f"since {since[:12]} (pyproject.toml [tool.driftboard] two-pr-rule-since)"


__all__ = ["KEY", "default_since", "recorded_since"]
