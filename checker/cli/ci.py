"""`driftboard ci`: what the pull-request check runs, runnable locally.

1. Find the submissions the pull request touches: `git diff --name-only BASE...HEAD -- submissions/`
   (merge-base semantics), each path mapped to its `submissions/<id>` folder. When HEAD is the
   checked-out commit, uncommitted and untracked files under `submissions/` count too, so a
   submitter can run the check before committing.
   The whole diff (every path, not only `submissions/`) is judged by a whitelist
   (`checker.cli.ci_scope`): a new folder holding exactly `submission.yaml` + `prereg.yaml`
   ("pre-registered; awaiting runs"); runs and appended manifest entries for ONE submission whose
   `prereg.yaml` is on the base byte for byte; or its `withdrawal.yaml`. Anything else fails, one
   message per file (`--maintainer`: warnings, except edits of merged logs and preregs).
2. `driftboard validate submissions/` over everything (fast; catches duplicate run ids across
   submissions).
3. `driftboard verify --format json` over the touched submissions only.
4. One Markdown summary (stdout, and `--summary FILE`), plus GitHub annotations when running in
   GitHub Actions.

The checker runs as a child process (`python -m checker`), so its JSON is exactly what a
submitter gets from the command line. Git is called with argument lists, never a shell
(`checker.cli.ci_git` reads the changes and applies the rules on them).

`driftboard ci-history` checks the two-pull-request rule on the main branch's history (and that no
merged run log or prereg was deleted or rewritten, and no results file is committed), and
`driftboard ci-summary` renders a saved verify document as the same summary and annotations.

Exit codes: 0 every touched submission verified; 1 a file outside the whitelist, format problems,
chain breaks, unreadable files or claimed figures that disagree; 2 usage (not a git repository, unknown ref).
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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

import click

from checker.cli.ci_annotations import annotation_lines, workflow_command
from checker.cli.ci_git import (
    SUBMISSIONS,
    Change,
    Detection,
    Problem,
    detect_changes,
    first_parent_problems,
    head_tree,
    prereg_not_merged,
    repo_root,
    resolve,
)
from checker.cli.ci_scope import Scope, committed_results_in_tree, first_parent_rewrites, scope_check, scope_line
from checker.cli.ci_summary import code, load_document, outcome, parse_document, render_summary, table
from checker.format.errors import UsageError
from checker.format.report import safe_json
from checker.format.verify_document import VerifyDocument

__all__ = ["Change", "ci_command", "ci_summary_command", "detect_changes", "first_parent_problems", "prereg_not_merged"]

MAX_LISTED = 50
"""Ignored paths listed in the summary (the rest are counted)."""
ChildDoc = dict[str, Any]  # Any: JSON as the child checker printed it, validated once merged (`parse_document`)


class ValidateDoc(TypedDict, total=False):
    """What `run_validate` reports (empty when the tree has no `submissions/`)."""

    command: str
    exit_code: int
    problems: list[Problem]


def ci_history_command(head: str, since: str | None, fmt: str = "text") -> int:
    """`driftboard ci-history`: the two-pull-request rule on the first-parent history; 1 when violated.

    With `fmt="json"`: `{command: "ci-history", ok, exit_code, head, since, problems}`.

    Raises:
        UsageError: not a git repository, or an unknown ref.
    """
    root = repo_root()
    found = first_parent_problems(root, head, since)
    found += first_parent_rewrites(root, resolve(root, head), resolve(root, since) if since else None)
    found += committed_results_in_tree(root, resolve(root, head))
    if fmt == "json":
        click.echo(safe_json({"command": "ci-history", "ok": not found, "exit_code": 1 if found else 0,
                              "head": resolve(root, head), "since": resolve(root, since) if since else None,
                              "problems": found}), nl=False)
        return 1 if found else 0
    for p in found:
        click.echo(f"{p['path']}: {p['message']}")
    if not found:
        click.echo("every run log on the first-parent history follows its merged pre-registration, no merged run "
                   "log or pre-registration was deleted or rewritten, and no results file is committed")
    return 1 if found else 0


# --------------------------------------------------------------------------- running the checker


def run_validate(tree: Path) -> ValidateDoc:
    """`driftboard validate submissions/` (in-process: it is fast), paths relative to `tree`."""
    from checker.pipeline.metrics import claim_names
    from checker.stages.validate import validate_paths

    report = validate_paths([tree / SUBMISSIONS], claim_names)
    prefix = tree.as_posix().rstrip("/") + "/"
    problems: list[Problem] = [{"path": f.path.removeprefix(prefix), "line": f.line, "severity": f.severity,
                                "message": f.message.replace(prefix, "")} for f in report.unreadable + report.findings]
    return {"command": "validate", "exit_code": report.exit_code, "problems": problems}


def run_checker(args: Sequence[str], cwd: Path) -> ChildDoc:
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
        problem: Problem = {"path": located[1], "line": None, "severity": "error", "message": located[2]}
    else:
        problem = {"path": "(checker)", "line": None, "severity": "error",
                   "message": f"driftboard {args[0]} did not produce a report: {tail}"}
    return {"command": args[0], "ok": False, "exit_code": 1, "submissions": [], "problems": [problem]}


# --------------------------------------------------------------------------- the command


def changes_section(detection: Detection, base: str, head: str, scope: Scope | None = None) -> list[str]:
    """What the pull request touches, for the top of the summary."""
    out = [f"Compared `{base[:12]}...{head[:12]}` (merge base to head).", ""]
    said = scope_line(scope) if scope is not None else None
    if said:
        out += [said, ""]
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
        out += [f"- Not inside a submission folder (refused by the whitelist below): {shown}{more}", ""]
    return out


def _touching(problem: Mapping[str, object], folders: list[str]) -> bool:
    """Does a problem concern one of the touched submission folders (by path or by mention)?"""
    path, message = str(problem.get("path") or ""), str(problem.get("message") or "")
    return any(path == f or path.startswith(f + "/") or f + "/" in message or message.endswith(f) for f in folders)


def split_validate(validate: ValidateDoc, touched: list[str]) -> ValidateDoc:
    """Turn validate's problems about untouched submissions into warnings.

    A pull request changes no file outside the folders it touches, so such a problem is already
    on the base branch: it is reported but does not fail the submitter's check. Problems about a
    touched folder (including a duplicate run id that names one) stay errors.
    """
    problems: list[Problem] = []
    for p in validate.get("problems", []):
        if not _touching(p, touched) and p.get("severity", "error") == "error":
            p = {**p, "severity": "warning", "message": f"already on the base branch: {p.get('message')}"}
        problems.append(p)
    return {**validate, "problems": problems}


def _merge(verify: ChildDoc, validate: ValidateDoc, extra: list[Problem]) -> ChildDoc:
    """One document: verify's submissions, and every problem from verify, validate and ci itself, once."""
    problems: list[Mapping[str, object]] = []
    seen: set[tuple[object, ...]] = set()
    for p in [*extra, *verify.get("problems", []), *validate.get("problems", [])]:
        if not isinstance(p, dict):
            continue
        key = (p.get("path"), p.get("line"), p.get("message"))
        if key not in seen:
            seen.add(key)
            problems.append(p)
    exit_code = 2 if verify.get("exit_code") == 2 else None
    return {**verify, "problems": problems, "exit_code": exit_code}


def _problem_dirs(problems: list[Path]) -> list[str]:
    """The `--problems` paths, absolute (the checker runs in the head's tree).

    Raises:
        UsageError: a path does not exist.
    """
    for p in problems:
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
    return [str(p.resolve()) for p in problems]


def _targets(tree: Path, changes: list[Change]) -> tuple[list[str], list[Problem]]:
    """(the touched submission folders to verify, problems with the ones refused): deleted ones are reported only."""
    targets: list[str] = []
    refused: list[Problem] = []
    for change in changes:
        if change.status == "deleted":
            continue
        if (tree / change.path).is_symlink() or not (tree / change.path).is_dir():
            refused.append({"path": change.path, "line": None, "severity": "error",
                            "message": "a submission must be a folder (symbolic links are refused)"})
        else:
            targets.append(change.path)
    return targets, refused


def _verify(targets: list[str], tree: Path, problem_dirs: list[str]) -> ChildDoc:
    """`driftboard verify --format json` of the touched submissions, in a child process (nothing to verify: empty)."""
    if not targets:
        return {"submissions": [], "problems": []}
    args = ["verify", *targets]
    for d in problem_dirs:
        args += ["--problems", d]
    # --no-cache: a pull request could ship a forged .driftboard-cache/; recompute everything.
    with tempfile.TemporaryDirectory(prefix="driftboard-results-") as results:
        return run_checker([*args, "--no-cache", "--out", results], tree)


def _check(root: Path, base: str, head: str, problem_dirs: list[str],
           maintainer: bool = False) -> tuple[Detection, VerifyDocument, Scope]:
    """The whitelist over the whole diff, validate all, verify the touched submissions: the merged document."""
    with head_tree(root, head) as (tree, live):
        detection = detect_changes(root, base, head, tree, worktree=live)
        scope = scope_check(root, base, head, tree, live, maintainer)
        extra = list(scope.problems)
        validate = run_validate(tree) if (tree / SUBMISSIONS).is_dir() else ValidateDoc()
        targets, refused = _targets(tree, detection.changes)
        verify = _verify(targets, tree, problem_dirs)
    validate = split_validate(validate, [c.path for c in detection.changes])
    return detection, parse_document(_merge(verify, validate, extra + refused), "driftboard ci"), scope


def _print_in_actions(doc: VerifyDocument, detection: Detection, text: str) -> None:
    """The summary, then the annotations, in GitHub Actions (submitted text cannot issue runner commands)."""
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


def ci_command(base: str, head: str, summary: Path | None, problems: list[Path], fmt: str = "text",
               maintainer: bool = False) -> int:
    """`driftboard ci`: the whitelist over the whole diff, validate all, verify the touched submissions, summarise.

    `maintainer`: changes outside a submission pull request's whitelist are reported as warnings
    (`checker.cli.ci_scope`), except edits and deletions of merged run logs and pre-registrations.

    With `fmt="json"` it prints, instead of the Markdown summary, the document the summary is
    rendered from (see `ci_json`); `--summary` still writes the Markdown.

    Raises:
        UsageError: not a git repository, an unknown ref, or a problem-set path that does not exist.
    """
    root = repo_root()
    base_sha, head_sha = resolve(root, base), resolve(root, head)
    detection, doc, scope = _check(root, base_sha, head_sha, _problem_dirs(problems), maintainer)
    text = render_summary(doc, "Driftboard: pull-request check", changes_section(detection, base_sha, head_sha, scope))
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(text, encoding="utf-8")
    exit_code = 1 if outcome(doc).failed else 0
    if fmt == "json":
        # every line of indented JSON starts with a bracket or a quote: no `::command::` for the runner
        click.echo(ci_json(doc, detection, base_sha, head_sha, exit_code), nl=False)
    elif os.environ.get("GITHUB_ACTIONS") == "true":
        _print_in_actions(doc, detection, text)
    else:
        click.echo(text, nl=False)
    return exit_code


def ci_summary_command(verify_json: Path, annotations: bool) -> int:
    """`driftboard ci-summary`: Markdown on stdout, annotations on stderr; 1 if the check fails.

    Annotations go to stderr so that `driftboard ci-summary v.json >> "$GITHUB_STEP_SUMMARY"`
    keeps them out of the summary; the Actions runner reads workflow commands from both streams.
    """
    doc = load_document(verify_json)
    click.echo(render_summary(doc), nl=False)
    if annotations:
        for line in annotation_lines(doc):
            click.echo(line, err=True)
    return 1 if outcome(doc).failed else 0


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
