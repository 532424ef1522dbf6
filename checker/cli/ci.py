"""`driftboard ci`: what the pull-request check runs, runnable locally.

1. Find the submissions the pull request touches: `git diff --name-only BASE...HEAD -- submissions/`
   (merge-base semantics), each path mapped to its `submissions/<id>` folder. When HEAD is the
   checked-out commit, uncommitted and untracked files under `submissions/` count too, so a
   submitter can run the check before committing.
   A touched submission whose run logs change must already have its `prereg.yaml`, byte for
   byte, on the base branch (two pull requests: pre-registration first, runs later).
2. `driftboard validate submissions/` over everything (fast; catches duplicate run ids across
   submissions).
3. `driftboard verify --format json` over the touched submissions only.
4. One Markdown summary (stdout, and `--summary FILE`), plus GitHub annotations when running in
   GitHub Actions.

The checker runs as a child process (`python -m checker`), so its JSON is exactly what a
submitter gets from the command line. Git is called with argument lists, never a shell.

Exit codes: 0 every touched submission verified; 1 format problems, chain breaks, unreadable
files or claimed figures that disagree; 2 usage (not a git repository, unknown ref).
INVALID and INCOMPLETE runs are results, not failures.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from checker.cli.ci_summary import (
    annotation_lines,
    ci_summary_command,
    code,
    outcome,
    parse_document,
    render_summary,
    table,
    workflow_command,
)
from checker.format.errors import UsageError
from checker.format.report import safe_json
from checker.format.results_model import VerifyDocument

__all__ = ["Change", "ci_command", "ci_summary_command", "detect_changes", "first_parent_problems", "prereg_not_merged"]

SUBMISSIONS = "submissions"
MAX_LISTED = 50
"""Ignored paths listed in the summary (the rest are counted)."""


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
    mb = _git(root, "merge-base", base, head)
    if mb.returncode != 0:
        raise UsageError("the base and head refs have no common ancestor (fetch full history: fetch-depth 0)")
    merge_base = mb.stdout.decode().strip()
    diff = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff"]
    committed = _names(_git(root, *diff, merge_base, head, "--", f"{SUBMISSIONS}/"), "diff")
    local: list[str] = []
    if worktree:
        local = _names(_git(root, *diff, head, "--", f"{SUBMISSIONS}/"), "diff")
        local += _names(_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", f"{SUBMISSIONS}/"),
                        "ls-files")
    folders: dict[str, bool] = {}
    ignored: list[str] = []
    for name, uncommitted in [(n, False) for n in committed] + [(n, True) for n in local]:
        parts = name.split("/")
        folder = "/".join(parts[:2])
        is_folder = len(parts) > 2 or (tree / folder).is_symlink() or (tree / folder).is_dir()
        if len(parts) < 2 or not is_folder:
            if name not in ignored:
                ignored.append(name)
            continue
        folders[folder] = folders.get(folder, False) or uncommitted
    changes = []
    for folder, uncommitted in sorted(folders.items()):
        if not (tree / folder).is_symlink() and not (tree / folder).exists():
            status = "deleted"
        elif _git(root, "cat-file", "-e", f"{merge_base}:{folder}").returncode == 0:
            status = "modified"
        else:
            status = "added"
        changes.append(Change(folder, status, uncommitted))
    return Detection(changes, sorted(ignored))


PROBLEMS = "problems"


def problem_set_changes(root: Path, base: str, head: str) -> list[dict[str, Any]]:
    """Failing problems for every change under `problems/`.

    The repository's problem sets define the benchmark that constraint runs are verified
    against; a pull request that could change them could also grade itself, so the submission
    check refuses such changes (maintainers change problem sets in their own pull requests).
    """
    return [{"path": name, "line": None, "severity": "error",
             "message": "problem sets define the benchmark: the submission check does not accept changes under "
                        "problems/ (a maintainer changes them in a separate pull request)"}
            for name in _changed_under(root, base, head, PROBLEMS)]


RELEASES = "releases"


def release_changes(root: Path, base: str, head: str) -> list[dict[str, Any]]:
    """Failing problems for every change under `releases/`.

    A release file records what the site published at a commit (`checker.pipeline.releases`); making one is
    maintainers' work (`driftboard release` on the published branch), and a published one is never
    edited, so the submission check refuses any change there.
    """
    return [{"path": name, "line": None, "severity": "error",
             "message": "release files record what the site published: the submission check does not accept "
                        "changes under releases/ (a maintainer makes a release with `driftboard release`)"}
            for name in _changed_under(root, base, head, RELEASES)]


def _changed_under(root: Path, base: str, head: str, folder: str) -> list[str]:
    """Paths under `folder/` that differ between the merge base of `base` and `head`, and `head`, sorted."""
    mb = _git(root, "merge-base", base, head)
    if mb.returncode != 0:
        return []
    diff = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff"]
    return sorted(_names(_git(root, *diff, mb.stdout.decode().strip(), head, "--", f"{folder}/"), "diff"))


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
                      changes: list[Change]) -> list[dict[str, Any]]:
    """Failing problems for every touched submission whose runs change while its prereg.yaml is not on `base`.

    Rules fixed before the runs: a pull request that adds or changes anything in a submission
    folder other than `submission.yaml` and `prereg.yaml` (run logs, by intent) passes only when
    that submission's `prereg.yaml` already exists in `base`, byte for byte the same as in the
    head. So the pre-registration is merged, by someone else's hand, before the runs arrive; a
    rewritten branch history cannot back-date it.
    """
    from checker.stages.load import read_small

    mb = _git(root, "merge-base", base, head)
    if mb.returncode != 0:
        return []
    diff = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff"]
    names = _names(_git(root, *diff, mb.stdout.decode().strip(), head, "--", f"{SUBMISSIONS}/"), "diff")
    if worktree:
        names += _names(_git(root, *diff, head, "--", f"{SUBMISSIONS}/"), "diff")
        names += _names(_git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", f"{SUBMISSIONS}/"),
                        "ls-files")
    changed = _changed_by_folder(names)
    out = []
    for change in changes:
        runs = sorted(changed.get(change.path, set()) - set(NOT_RUN_LOGS))
        if change.status == "deleted" or not runs:
            continue
        shown = f"{change.path}/{PREREG_FILE}"
        merged = _blob(root, base, shown)
        here, _problems = read_small(tree / change.path / PREREG_FILE, shown)
        if merged is None:
            why = (f"this pull request adds or changes run logs ({len(runs)} file(s)), but {shown} is not on the "
                   f"base branch ({base[:12]}): {TWO_PR_RULE}")
        elif here != merged:
            why = (f"this pull request adds or changes run logs ({len(runs)} file(s)), but {shown} differs from the "
                   f"one merged on the base branch ({base[:12]}): a merged pre-registration is fixed; runs are "
                   "judged by it")
        else:
            continue
        out.append({"path": shown, "line": None, "severity": "error", "message": why})
    return out


def first_parent_problems(root: Path, head: str = "HEAD", since: str | None = None) -> list[dict[str, Any]]:
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
    out = []
    for commit in log.stdout.decode().split():
        parent = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^1")
        parent_sha = parent.stdout.decode().strip() if parent.returncode == 0 else None
        diff = (["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", parent_sha, commit] if parent_sha
                else ["ls-tree", "-r", "-z", "--name-only", commit])
        names = _names(_git(root, *diff, "--", f"{SUBMISSIONS}/"), "diff")
        for folder, paths in sorted(_changed_by_folder(names).items()):
            runs = sorted(paths - set(NOT_RUN_LOGS))
            if not runs or _blob(root, commit, f"{folder}/{PREREG_FILE}") is None:
                continue  # nothing but metadata, or the runs were removed
            before = _blob(root, parent_sha, f"{folder}/{PREREG_FILE}") if parent_sha else None
            if before is not None and before == _blob(root, commit, f"{folder}/{PREREG_FILE}"):
                continue
            what = "is not in its first parent" if before is None else "differs from its first parent's"
            out.append({"path": f"{folder}/{PREREG_FILE}", "line": None, "severity": "error",
                        "message": f"commit {commit[:12]} adds or changes {len(runs)} run log(s), but {folder}/"
                                   f"{PREREG_FILE} {what}: {TWO_PR_RULE}"})
    return out


def ci_history_command(head: str, since: str | None, fmt: str = "text") -> int:
    """`driftboard ci-history`: the two-pull-request rule on the first-parent history; 1 when violated.

    With `fmt="json"`: `{command: "ci-history", ok, exit_code, head, since, problems}`.

    Raises:
        UsageError: not a git repository, or an unknown ref.
    """
    root = repo_root()
    found = first_parent_problems(root, head, since)
    if fmt == "json":
        click.echo(safe_json({"command": "ci-history", "ok": not found, "exit_code": 1 if found else 0,
                              "head": resolve(root, head), "since": resolve(root, since) if since else None,
                              "problems": found}), nl=False)
        return 1 if found else 0
    for p in found:
        click.echo(f"{p['path']}: {p['message']}")
    if not found:
        click.echo("every run log on the first-parent history follows its merged pre-registration")
    return 1 if found else 0


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


# --------------------------------------------------------------------------- running the checker


def run_validate(tree: Path) -> dict[str, Any]:
    """`driftboard validate submissions/` (in-process: it is fast), paths relative to `tree`."""
    from checker.pipeline.metrics import claim_names
    from checker.stages.validate import validate_paths

    report = validate_paths([tree / SUBMISSIONS], claim_names)
    prefix = tree.as_posix().rstrip("/") + "/"
    problems = [{**f.to_json(), "path": f.path.removeprefix(prefix), "message": f.message.replace(prefix, "")}
                for f in report.unreadable + report.findings]
    return {"command": "validate", "exit_code": report.exit_code, "problems": problems}


def run_checker(args: Sequence[str], cwd: Path) -> dict[str, Any]:
    """Run `python -m checker ARGS --format json` in `cwd`; a crash becomes a failing problem."""
    # -P: import the installed checker, never a `checker/` folder that happens to be in `cwd`.
    command = [sys.executable, "-P", "-m", "checker", *args, "--format", "json"]
    out = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        return doc
    err = out.stderr.decode(errors="replace").strip().splitlines()
    tail = err[-1] if err else f"exit code {out.returncode}, no output"
    located = re.fullmatch(r"Error: (submissions/[^:]+): (.+)", tail)
    if located:  # a usage error about one file (e.g. a problem set that was not given)
        problem = {"path": located[1], "line": None, "severity": "error", "message": located[2]}
    else:
        problem = {"path": "(checker)", "line": None, "severity": "error",
                   "message": f"driftboard {args[0]} did not produce a report: {tail}"}
    return {"command": args[0], "ok": False, "exit_code": 1, "submissions": [], "problems": [problem]}


# --------------------------------------------------------------------------- the command


def changes_section(detection: Detection, base: str, head: str) -> list[str]:
    """What the pull request touches, for the top of the summary."""
    out = [f"Compared `{base[:12]}...{head[:12]}` (merge base to head).", ""]
    if not detection.changes:
        out += ["This pull request changes no submission under `submissions/`.", ""]
    else:
        rows = ([code(c.path), c.status + (" (uncommitted)" if c.uncommitted else ""),
                 "reported only: not verified" if c.status == "deleted" else "verified"]
                for c in detection.changes)
        out += ["### Submissions touched", "", *table(["submission", "change", "check"], rows,
                                                        len(detection.changes))]
    if detection.ignored:
        shown = ", ".join(code(p) for p in detection.ignored[:MAX_LISTED])
        more = f" and {len(detection.ignored) - MAX_LISTED} more" if len(detection.ignored) > MAX_LISTED else ""
        out += [f"- Ignored (not inside a submission folder): {shown}{more}", ""]
    return out


def _touching(problem: dict[str, Any], folders: list[str]) -> bool:
    """Does a problem concern one of the touched submission folders (by path or by mention)?"""
    path, message = str(problem.get("path") or ""), str(problem.get("message") or "")
    return any(path == f or path.startswith(f + "/") or f + "/" in message or message.endswith(f) for f in folders)


def split_validate(validate: dict[str, Any], touched: list[str]) -> dict[str, Any]:
    """Turn validate's problems about untouched submissions into warnings.

    A pull request changes no file outside the folders it touches, so such a problem is already
    on the base branch: it is reported but does not fail the submitter's check. Problems about a
    touched folder (including a duplicate run id that names one) stay errors.
    """
    problems = []
    for p in validate.get("problems", []):
        if isinstance(p, dict) and not _touching(p, touched) and p.get("severity", "error") == "error":
            p = {**p, "severity": "warning", "message": f"already on the base branch: {p.get('message')}"}
        problems.append(p)
    return {**validate, "problems": problems}


def _merge(verify: dict[str, Any], validate: dict[str, Any], extra: list[dict[str, Any]]) -> dict[str, Any]:
    """One document: verify's submissions, and every problem from verify, validate and ci itself, once."""
    problems: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for p in [*extra, *verify.get("problems", []), *validate.get("problems", [])]:
        if not isinstance(p, dict):
            continue
        key = (p.get("path"), p.get("line"), p.get("message"))
        if key not in seen:
            seen.add(key)
            problems.append(p)
    exit_code = 2 if verify.get("exit_code") == 2 else None
    return {**verify, "problems": problems, "exit_code": exit_code}


def ci_command(base: str, head: str, summary: Path | None, problems: list[Path], fmt: str = "text") -> int:
    """`driftboard ci`: detect touched submissions, validate all, verify the touched ones, summarise.

    With `fmt="json"` it prints, instead of the Markdown summary, the document the summary is
    rendered from (see `ci_json`); `--summary` still writes the Markdown.

    Raises:
        UsageError: not a git repository, an unknown ref, or a problem-set path that does not exist.
    """
    root = repo_root()
    base_sha, head_sha = resolve(root, base), resolve(root, head)
    problem_dirs = []
    for p in problems:
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
        problem_dirs.append(str(p.resolve()))
    extra: list[dict[str, Any]] = []
    with head_tree(root, head_sha) as (tree, live):
        detection = detect_changes(root, base_sha, head_sha, tree, worktree=live)
        extra += problem_set_changes(root, base_sha, head_sha)
        extra += release_changes(root, base_sha, head_sha)
        extra += prereg_not_merged(root, base_sha, head_sha, tree, live, detection.changes)
        validate: dict[str, Any] = {}
        if (tree / SUBMISSIONS).is_dir():
            validate = run_validate(tree)
        targets = []
        for change in detection.changes:
            if change.status == "deleted":
                continue
            if (tree / change.path).is_symlink() or not (tree / change.path).is_dir():
                extra.append({"path": change.path, "line": None, "severity": "error",
                              "message": "a submission must be a folder (symbolic links are refused)"})
                continue
            targets.append(change.path)
        verify: dict[str, Any] = {"submissions": [], "problems": []}
        if targets:
            args = ["verify", *targets]
            for d in problem_dirs:
                args += ["--problems", d]
            # --no-cache: a pull request could ship a forged .driftboard-cache/; recompute everything.
            with tempfile.TemporaryDirectory(prefix="driftboard-results-") as results:
                verify = run_checker([*args, "--no-cache", "--out", results], tree)
    validate = split_validate(validate, [c.path for c in detection.changes])
    doc = parse_document(_merge(verify, validate, extra), "driftboard ci")
    text = render_summary(doc, "Driftboard: pull-request check", changes_section(detection, base_sha, head_sha))
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(text, encoding="utf-8")
    exit_code = 1 if outcome(doc).failed else 0
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if fmt == "json":
        # every line of indented JSON starts with a bracket or a quote: no `::command::` for the runner
        click.echo(ci_json(doc, detection, base_sha, head_sha, exit_code), nl=False)
    elif in_actions:
        # Submitted text is printed below: stop the runner from obeying any `::command::` in it.
        token = secrets.token_hex(16)
        click.echo(f"::stop-commands::{token}")
        click.echo(text, nl=False)
        click.echo(f"::{token}::")
        for line in annotation_lines(doc):
            click.echo(line)
        for change in detection.changes:
            if change.status == "deleted":
                click.echo(workflow_command("warning", f"{change.path} is deleted by this pull request "
                                            "(reported, not verified)"))
    else:
        click.echo(text, nl=False)
    return exit_code


def ci_json(doc: VerifyDocument, detection: Detection, base: str, head: str, exit_code: int) -> str:
    """`driftboard ci --format json`: the merged verify/validate document the summary is rendered from.

    `{command: "ci", ok, exit_code, base, head, changes: [{path, status, uncommitted}], ignored,
    problems, submissions}`: `problems` holds every problem of validate, verify and the check itself
    (errors fail the check, warnings do not), `submissions` verify's records of the touched ones.
    """
    body = doc.model_dump(mode="json", include={"problems", "submissions"})
    return safe_json({
        "command": "ci", "ok": exit_code == 0, "exit_code": exit_code, "base": base, "head": head,
        "changes": [{"path": c.path, "status": c.status, "uncommitted": c.uncommitted} for c in detection.changes],
        "ignored": list(detection.ignored), **body,
    })
