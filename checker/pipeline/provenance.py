"""Where and when a submission's results come from: dates and the commit, read from git, never the clock.

`verify` records them in the results file (`ResultsFile.provenance`) so that a build of the same
tree gives the same bytes on any day: the *submitted* date is the commit date of the first commit
that added the submission folder, the *verified* date the commit date of the last commit that
touched it, and `commit` is that last commit (the one a citation pins; the logs at that commit
reproduce the numbers). Outside a git checkout, or for uncommitted folders, every field is None.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from checker.format.results_model import Provenance

GIT_TIMEOUT = 20
"""Seconds a single git query may take (a submission folder's history is a handful of commits)."""


def git_output(root: Path, *args: str) -> str | None:
    """Stripped stdout of `git -C root ARGS` (decoded as UTF-8, bad bytes replaced), or None if git fails or times out."""
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.decode("utf-8", "replace").strip() if out.returncode == 0 else None


def submission_provenance(folder: Path) -> Provenance:
    """Submitted date, verified date and pinned commit of a submission folder (None where git cannot say)."""
    folder = folder.resolve()
    root = folder if folder.is_dir() else folder.parent
    if git_output(root, "rev-parse", "--git-dir") is None:
        return Provenance()
    # --first-parent: the commits of the branch being published (a merged pull request is its merge
    # commit, dated when it was merged), never the submitter's own commits and the dates they set
    last = git_output(root, "log", "--first-parent", "-1", "--format=%H %cI", "--", str(folder))
    if not last:
        return Provenance()
    commit, verified = last.split(" ", 1)
    first = git_output(root, "log", "--first-parent", "--diff-filter=A", "--format=%cI", "--", str(folder))
    submitted = first.splitlines()[-1] if first else verified
    dirty = git_output(root, "status", "--porcelain", "--", str(folder))
    return Provenance(submitted=submitted[:10], verified=verified[:10], commit=commit, uncommitted=bool(dirty))
