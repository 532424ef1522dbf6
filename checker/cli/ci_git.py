"""What a pull request changes, read from git: the submissions it touches and the rules on its changes.

* `detect_changes`: the paths changed under `submissions/` between the merge base and the head (and,
  when the head is checked out, the work tree's uncommitted and untracked ones), mapped to
  submission folders with their status (added, modified, deleted);
* `problem_set_changes`, `release_changes`: a submission's pull request may not change `problems/`
  or `releases/`;
* `prereg_not_merged`, `first_parent_problems`: the two-pull-request rule (a submission's
  pre-registration is merged before its runs), on a pull request and on the main branch's history;
* `head_tree`: the head's files (the work tree, or a temporary checkout).

Git is called with argument lists, never a shell; paths are read NUL-separated.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from checker.format.errors import UsageError

SUBMISSIONS = "submissions"


class Problem(TypedDict):
    """A problem the check itself finds (the shape of `checker.format.results_model.FindingRecord`)."""

    path: str
    line: int | None
    severity: str
    """`error` (fails the check) or `warning`."""
    message: str


def _problem(path: str, message: str) -> Problem:
    """A failing problem about a path (no line)."""
    return {"path": path, "line": None, "severity": "error", "message": message}


@dataclass(frozen=True)
class Change:
    """A submission folder the pull request touches."""

    path: str
    """`submissions/<id>` (POSIX, relative to the repository root)."""
    status: str
    """`added`, `modified` or `deleted`."""
    uncommitted: bool = False
    """Some of its changes are only in the working tree (local runs)."""


@dataclass
class Detection:
    """What changed between the merge base and the head."""

    changes: list[Change]
    ignored: list[str]
    """Changed paths directly under `submissions/` that belong to no submission folder."""


# --------------------------------------------------------------------------- git


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def repo_root(cwd: Path | None = None) -> Path:
    """The top of the git work tree containing `cwd`.

    Raises:
        UsageError: `cwd` is not inside a git work tree (or git is missing).
    """
    try:
        out = _git(cwd or Path.cwd(), "rev-parse", "--show-toplevel")
    except OSError as exc:
        raise UsageError(f"cannot run git: {exc.strerror}") from None
    if out.returncode != 0 or not out.stdout.strip():
        raise UsageError("not a git repository (run `driftboard ci` inside a clone of the leaderboard)")
    return Path(os.fsdecode(out.stdout.strip()))


def resolve(root: Path, ref: str) -> str:
    """The commit id a ref names.

    Raises:
        UsageError: the ref is empty, looks like an option, or names no commit.
    """
    if not ref or ref.startswith("-"):
        raise UsageError(f"invalid git ref {ref!r}")
    out = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if out.returncode != 0:
        raise UsageError(f"unknown git ref {ref!r} (fetch it first, e.g. `git fetch origin main`)")
    return out.stdout.decode().strip()


def _names(out: subprocess.CompletedProcess[bytes], what: str) -> list[str]:
    if out.returncode != 0:
        raise UsageError(f"git {what} failed: {out.stderr.decode(errors='replace').strip()}")
    return [os.fsdecode(p) for p in out.stdout.split(b"\0") if p]


def _merge_base(root: Path, base: str, head: str) -> str | None:
    """The merge base of `base` and `head` (None when they share no history)."""
    mb = _git(root, "merge-base", base, head)
    return mb.stdout.decode().strip() if mb.returncode == 0 else None


DIFF = ("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff")
"""`git diff` listing changed paths, NUL-separated, renames as a deletion and an addition."""


def _local_changes(root: Path, head: str, folder: str) -> list[str]:
    """Paths under `folder/` changed in the work tree against `head`, and untracked ones."""
    return (_names(_git(root, *DIFF, head, "--", f"{folder}/"), "diff")
            + _names(_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", f"{folder}/"), "ls-files"))


def _folders(names: list[tuple[str, bool]], tree: Path) -> tuple[dict[str, bool], list[str]]:
    """(submission folder -> changed only locally?, changed paths in no submission folder) of changed paths."""
    folders: dict[str, bool] = {}
    ignored: list[str] = []
    for name, uncommitted in names:
        parts = name.split("/")
        folder = "/".join(parts[:2])
        is_folder = len(parts) > 2 or (tree / folder).is_symlink() or (tree / folder).is_dir()
        if len(parts) < 2 or not is_folder:
            if name not in ignored:
                ignored.append(name)
            continue
        folders[folder] = folders.get(folder, False) or uncommitted
    return folders, ignored


def _status(root: Path, merge_base: str, tree: Path, folder: str) -> str:
    """`deleted` (gone from the head's tree), `modified` (in the merge base) or `added`."""
    if not (tree / folder).is_symlink() and not (tree / folder).exists():
        return "deleted"
    return "modified" if _git(root, "cat-file", "-e", f"{merge_base}:{folder}").returncode == 0 else "added"


def detect_changes(root: Path, base: str, head: str, tree: Path, worktree: bool) -> Detection:
    """Map the paths changed under `submissions/` to submission folders, with their status.

    Args:
        root: repository root (where git runs).
        base: commit id of the base.
        head: commit id of the head.
        tree: directory holding the head's files (the work tree, or a checkout of `head`).
        worktree: also count uncommitted and untracked changes in `tree` (HEAD is checked out).

    Raises:
        UsageError: base and head share no history.
    """
    merge_base = _merge_base(root, base, head)
    if merge_base is None:
        raise UsageError("the base and head refs have no common ancestor (fetch full history: fetch-depth 0)")
    committed = _names(_git(root, *DIFF, merge_base, head, "--", f"{SUBMISSIONS}/"), "diff")
    local = _local_changes(root, head, SUBMISSIONS) if worktree else []
    folders, ignored = _folders([(n, False) for n in committed] + [(n, True) for n in local], tree)
    changes = [Change(folder, _status(root, merge_base, tree, folder), uncommitted)
               for folder, uncommitted in sorted(folders.items())]
    return Detection(changes, sorted(ignored))


PROBLEMS = "problems"


def problem_set_changes(root: Path, base: str, head: str) -> list[Problem]:
    """Failing problems for every change under `problems/`.

    The repository's problem sets define the benchmark that constraint runs are verified
    against; a pull request that could change them could also grade itself, so the submission
    check refuses such changes (maintainers change problem sets in their own pull requests).
    """
    return [_problem(name, "problem sets define the benchmark: the submission check does not accept changes under "
                           "problems/ (a maintainer changes them in a separate pull request)")
            for name in _changed_under(root, base, head, PROBLEMS)]


RELEASES = "releases"


def release_changes(root: Path, base: str, head: str) -> list[Problem]:
    """Failing problems for every change under `releases/`.

    A release file records what the site published at a commit (`checker.pipeline.releases`); making one is
    maintainers' work (`driftboard release` on the published branch), and a published one is never
    edited, so the submission check refuses any change there.
    """
    return [_problem(name, "release files record what the site published: the submission check does not accept "
                           "changes under releases/ (a maintainer makes a release with `driftboard release`)")
            for name in _changed_under(root, base, head, RELEASES)]


def _changed_under(root: Path, base: str, head: str, folder: str) -> list[str]:
    """Paths under `folder/` that differ between the merge base of `base` and `head`, and `head`, sorted."""
    merge_base = _merge_base(root, base, head)
    if merge_base is None:
        return []
    return sorted(_names(_git(root, *DIFF, merge_base, head, "--", f"{folder}/"), "diff"))


PREREG_FILE = "prereg.yaml"
NOT_RUN_LOGS = ("submission.yaml", PREREG_FILE)
"""Files of a submission folder whose change is not a change of its runs."""
TWO_PR_RULE = ("the pre-registration lands first, in a pull request of its own; the runs follow in a later one "
               "(see How to submit)")


def _changed_by_folder(names: list[str]) -> dict[str, set[str]]:
    """`submissions/<id>` -> changed paths inside it (relative to the folder)."""
    out: dict[str, set[str]] = {}
    for name in names:
        parts = name.split("/")
        if len(parts) > 2 and parts[0] == SUBMISSIONS:
            out.setdefault("/".join(parts[:2]), set()).add("/".join(parts[2:]))
    return out


def _blob(root: Path, rev: str, path: str) -> bytes | None:
    """The bytes of `path` at commit `rev` (None when it is not a file there)."""
    kind = _git(root, "cat-file", "-t", f"{rev}:{path}")
    if kind.returncode != 0 or kind.stdout.strip() != b"blob":
        return None
    out = _git(root, "cat-file", "blob", f"{rev}:{path}")
    return out.stdout if out.returncode == 0 else None


def prereg_not_merged(root: Path, base: str, head: str, tree: Path, worktree: bool,
                      changes: list[Change]) -> list[Problem]:
    """Failing problems for every touched submission whose runs change while its prereg.yaml is not on `base`.

    Rules fixed before the runs: a pull request that adds or changes anything in a submission
    folder other than `submission.yaml` and `prereg.yaml` (run logs, by intent) passes only when
    that submission's `prereg.yaml` already exists in `base`, byte for byte the same as in the
    head. So the pre-registration is merged, by someone else's hand, before the runs arrive; a
    rewritten branch history cannot back-date it.
    """
    merge_base = _merge_base(root, base, head)
    if merge_base is None:
        return []
    names = _names(_git(root, *DIFF, merge_base, head, "--", f"{SUBMISSIONS}/"), "diff")
    if worktree:
        names += _local_changes(root, head, SUBMISSIONS)
    changed = _changed_by_folder(names)
    out = []
    for change in changes:
        runs = sorted(changed.get(change.path, set()) - set(NOT_RUN_LOGS))
        if change.status != "deleted" and runs:
            why = _prereg_problem(root, base, tree, change.path, len(runs))
            if why is not None:
                out.append(_problem(f"{change.path}/{PREREG_FILE}", why))
    return out


def _prereg_problem(root: Path, base: str, tree: Path, folder: str, runs: int) -> str | None:
    """Why changing `runs` run logs of `folder` breaks the two-pull-request rule (None: its prereg is merged as is)."""
    from checker.stages.load import read_small

    shown = f"{folder}/{PREREG_FILE}"
    merged = _blob(root, base, shown)
    here, _problems = read_small(tree / folder / PREREG_FILE, shown)
    if merged is None:
        return (f"this pull request adds or changes run logs ({runs} file(s)), but {shown} is not on the "
                f"base branch ({base[:12]}): {TWO_PR_RULE}")
    if here != merged:
        return (f"this pull request adds or changes run logs ({runs} file(s)), but {shown} differs from the "
                f"one merged on the base branch ({base[:12]}): a merged pre-registration is fixed; runs are "
                "judged by it")
    return None


def first_parent_problems(root: Path, head: str = "HEAD", since: str | None = None) -> list[Problem]:
    """The two-pull-request rule on the main branch's first-parent history (what the publish job checks).

    Every first-parent commit C after `since` (the whole history when None) that adds or changes
    run logs of a submission must find that submission's `prereg.yaml` in its first parent, byte
    for byte as in C. A merge of a pull request is one first-parent commit, so a squash or a
    rebase inside the pull request cannot move the pre-registration before its runs.

    Raises:
        UsageError: `head` or `since` names no commit.
    """
    head_sha = resolve(root, head)
    rev_range = head_sha if since is None else f"{resolve(root, since)}..{head_sha}"
    log = _git(root, "rev-list", "--first-parent", "--reverse", rev_range)
    if log.returncode != 0:
        raise UsageError(f"git rev-list failed: {log.stderr.decode(errors='replace').strip()}")
    return [problem for commit in log.stdout.decode().split() for problem in _commit_problems(root, commit)]


def _commit_problems(root: Path, commit: str) -> list[Problem]:
    """The two-pull-request rule on one first-parent commit: its run-log changes against its first parent."""
    parent = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^1")
    parent_sha = parent.stdout.decode().strip() if parent.returncode == 0 else None
    diff = [*DIFF, parent_sha, commit] if parent_sha else ["ls-tree", "-r", "-z", "--name-only", commit]
    names = _names(_git(root, *diff, "--", f"{SUBMISSIONS}/"), "diff")
    out = []
    for folder, paths in sorted(_changed_by_folder(names).items()):
        runs = sorted(paths - set(NOT_RUN_LOGS))
        prereg = f"{folder}/{PREREG_FILE}"
        now = _blob(root, commit, prereg) if runs else None
        if now is None:
            continue  # nothing but metadata, or the runs were removed
        before = _blob(root, parent_sha, prereg) if parent_sha else None
        if before is not None and before == now:
            continue
        what = "is not in its first parent" if before is None else "differs from its first parent's"
        out.append(_problem(prereg, f"commit {commit[:12]} adds or changes {len(runs)} run log(s), but {folder}/"
                                    f"{PREREG_FILE} {what}: {TWO_PR_RULE}"))
    return out


@contextmanager
def head_tree(root: Path, head: str) -> Iterator[tuple[Path, bool]]:
    """The files of `head`: the work tree when `head` is checked out, else a temporary checkout.

    Yields (directory, whether it is the live work tree).
    """
    current = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if current.returncode == 0 and current.stdout.decode().strip() == head:
        yield root, True
        return
    with tempfile.TemporaryDirectory(prefix="driftboard-ci-") as tmp:
        where = Path(tmp) / "tree"
        out = _git(root, "worktree", "add", "--detach", "--quiet", str(where), head)
        if out.returncode != 0:
            raise UsageError(f"cannot check out {head}: {out.stderr.decode(errors='replace').strip()}")
        try:
            yield where, False
        finally:
            _git(root, "worktree", "remove", "--force", str(where))
            _git(root, "worktree", "prune")
