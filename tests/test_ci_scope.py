# ruff: noqa: F811  (the shared fixtures `repo` and `ci` are imported from test_ci, then requested by name)
"""A submission pull request's scope is a whitelist (issue 29, principle 2; issue 34, item 1).

Every test builds a throw-away git repository (`test_ci.repo`: `main` holds submissions keep, mod
and gone, each pre-registered with one run), makes one change on the pull-request branch and runs
`driftboard ci --base main`: a change outside the whitelist fails (exit 1) with a message naming
the file and the rule; the allowed kinds pass (exit 0). The expected messages are the rules as the
issue states them, not read back from the code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_ci import MANIFEST, PREREG, ci, commit, git, make_submission, repo  # noqa: F401 (fixtures)

MAINTAINER = "needs a maintainer's pull request"
APPEND_ONLY = "merged run logs and pre-registrations are append-only"


def problems(result) -> list[dict]:
    return json.loads(result.stdout)["problems"]


def run_json(ci, *args: str) -> tuple[int, list[dict]]:
    result = ci("--base", "main", "--format", "json", *args)
    return result.exit_code, problems(result)


def errors_for(found: list[dict], path: str) -> list[str]:
    return [p["message"] for p in found if p["path"] == path and p["severity"] == "error"]


def prereg_only(repo: Path, sid: str) -> Path:
    """The first pull request as documented: submission.yaml (files: []) and prereg.yaml, nothing else."""
    folder = repo / "submissions" / sid
    folder.mkdir(parents=True)
    (folder / "prereg.yaml").write_text(PREREG.format(sid=sid, ceiling=6000))
    (folder / "submission.yaml").write_text(MANIFEST.format(sid=sid).replace("files:\n  - runs/r1.jsonl\n", "files: []\n"))
    return folder


def merge_into_main(repo: Path, message: str) -> None:
    """Merge the pull-request branch into main with a merge commit (as GitHub does), then branch again."""
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", message, "pr")
    git(repo, "branch", "-q", "-D", "pr")
    git(repo, "checkout", "-q", "-b", "pr")


# --------------------------------------------------------------------------- the allowed kinds


def test_two_pull_request_flow_passes(repo, ci, monkeypatch):
    """PR 1: submission.yaml + prereg.yaml (pre-registered; awaiting runs); PR 2: the run and its manifest entry."""
    __import__("checker.agent.scorer")
    base = git(repo, "rev-parse", "main").strip()  # the fixture's base adds runs and preregs together
    prereg_only(repo, "fresh")
    commit(repo, "pre-register fresh")
    first = ci("--base", "main")
    assert first.exit_code == 0, first.output
    assert "`submissions/fresh`: pre-registered; awaiting runs" in first.stdout
    merge_into_main(repo, "Merge pull request #1: pre-register fresh")
    make_submission(repo, "fresh")  # the same prereg bytes; runs/r1.jsonl and files: [runs/r1.jsonl]
    commit(repo, "runs of fresh")
    code, found = run_json(ci)
    assert code == 0, found
    assert [p for p in found if p["severity"] == "error"] == []
    merge_into_main(repo, "Merge pull request #2: runs of fresh")
    history = ci_history(repo, base)
    assert history.exit_code == 0, history.output


def test_a_withdrawal_record_passes_and_closes_the_submission(repo, ci):
    (repo / "submissions" / "keep" / "withdrawal.yaml").write_text("reason: the harness had a bug\n")
    commit(repo, "withdraw keep")
    result = ci("--base", "main")
    assert result.exit_code == 0, result.output
    assert "`submissions/keep`: withdrawal recorded" in result.stdout
    merge_into_main(repo, "Merge: withdraw keep")
    log = repo / "submissions" / "keep" / "runs" / "r2.jsonl"
    log.write_text("{}\n")
    commit(repo, "more runs after the withdrawal")
    code, found = run_json(ci)
    assert code == 1
    assert any("is withdrawn" in m for m in errors_for(found, "submissions/keep/runs/r2.jsonl"))


# --------------------------------------------------------------------------- what fails


def edit_log(repo: Path) -> list[str]:
    log = repo / "submissions" / "keep" / "runs" / "r1.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"score":1', b'"score":2'))
    return ["submissions/keep/runs/r1.jsonl"]


def delete_log(repo: Path) -> list[str]:
    git(repo, "rm", "-q", "submissions/keep/runs/r1.jsonl")
    return ["submissions/keep/runs/r1.jsonl"]


def rename_log(repo: Path) -> list[str]:
    git(repo, "mv", "submissions/keep/runs/r1.jsonl", "submissions/keep/runs/r9.jsonl")
    return ["submissions/keep/runs/r1.jsonl"]


def edit_prereg(repo: Path) -> list[str]:
    p = repo / "submissions" / "keep" / "prereg.yaml"
    p.write_text(p.read_text().replace("horizon: 10", "horizon: 11"))
    return ["submissions/keep/prereg.yaml"]


def delete_prereg(repo: Path) -> list[str]:
    git(repo, "rm", "-q", "submissions/keep/prereg.yaml")
    return ["submissions/keep/prereg.yaml"]


FORBIDDEN_MERGED = {"edit a merged log": edit_log, "delete a merged log": delete_log,
                    "rename a merged log": rename_log, "edit a merged prereg": edit_prereg,
                    "delete a merged prereg": delete_prereg}


@pytest.mark.parametrize("change", FORBIDDEN_MERGED, ids=list(FORBIDDEN_MERGED))
def test_merged_logs_and_preregs_are_append_only(repo, ci, change):
    paths = FORBIDDEN_MERGED[change](repo)
    commit(repo, change)
    code, found = run_json(ci)
    assert code == 1
    for path in paths:
        (message,) = [m for m in errors_for(found, path) if APPEND_ONLY in m]
        assert message.startswith(path) and MAINTAINER in message
    # a maintainer may not do it either: published records are append-only
    code, found = run_json(ci, "--maintainer")
    assert code == 1 and any(APPEND_ONLY in m for m in errors_for(found, paths[0]))


def test_manifest_changes_other_than_appending_fail(repo, ci):
    m = repo / "submissions" / "mod" / "submission.yaml"
    m.write_text(m.read_text().replace("Toy submission", "Best agent ever"))
    commit(repo, "retitle")
    code, found = run_json(ci)
    assert code == 1
    (message,) = errors_for(found, "submissions/mod/submission.yaml")
    assert "changes the merged manifest's title" in message and "may only append entries" in message


def test_manifest_entries_removed_fail(repo, ci):
    m = repo / "submissions" / "mod" / "submission.yaml"
    m.write_text(m.read_text().replace("files:\n  - runs/r1.jsonl\n", "files: []\n"))
    commit(repo, "drop an entry")
    code, found = run_json(ci)
    assert code == 1
    assert any("files (existing entries must stay" in m for m in errors_for(found, "submissions/mod/submission.yaml"))


def test_merged_manifest_may_get_appended_entries(repo, ci):
    """Kind (b): a new run log and its entry appended to files: (and a claim) pass the whitelist."""
    folder = repo / "submissions" / "mod"
    (folder / "runs" / "r2.jsonl").write_bytes((folder / "runs" / "r1.jsonl").read_bytes())
    m = folder / "submission.yaml"
    m.write_text(m.read_text() + "  - runs/r2.jsonl\n")
    commit(repo, "append a run")
    _code, found = run_json(ci)
    assert not any(p["path"] == "submissions/mod/submission.yaml" for p in found), found
    assert not any(p["path"] == "submissions/mod/runs/r2.jsonl" and "may only" in p["message"] for p in found)


def test_a_compressed_run_log_may_be_added(repo, ci):
    """Kind (b) with the log stored as .jsonl.zst (checker.format.storage): the same whitelist as a plain log."""
    import zstandard

    folder = repo / "submissions" / "mod"
    (folder / "runs" / "r2.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress((folder / "runs" / "r1.jsonl")
                                                                                       .read_bytes()))
    m = folder / "submission.yaml"
    m.write_text(m.read_text() + "  - runs/r2.jsonl.zst\n")
    commit(repo, "append a compressed run")
    _code, found = run_json(ci)
    # the log is a copy of r1 (validate says so); the scope rules say nothing against it
    assert not any(p["path"] == "submissions/mod/runs/r2.jsonl.zst" and ("may add" in p["message"]
                   or "limit for plain logs" in p["message"]) for p in found), found


def test_a_plain_run_log_over_the_limit_fails_with_the_remedy(repo, ci, monkeypatch):
    """50 MiB is the limit for a plain log (GitHub warns at 50 MB); patched to 1 KiB here, so the test stays small."""
    from checker.cli import ci_scope

    monkeypatch.setattr(ci_scope, "MAX_PLAIN_LOG_BYTES", 1024)
    folder = repo / "submissions" / "mod"
    big = folder / "runs" / "r2.jsonl"
    big.write_bytes((folder / "runs" / "r1.jsonl").read_bytes())
    assert big.stat().st_size > 1024
    m = folder / "submission.yaml"
    m.write_text(m.read_text() + "  - runs/r2.jsonl\n")
    commit(repo, "append a large plain run")
    code, found = run_json(ci)
    assert code == 1
    (message,) = [m for m in errors_for(found, "submissions/mod/runs/r2.jsonl") if "limit" in m]  # (and a copy)
    assert "over the 1,024-byte limit for plain logs: compress it (driftboard compress submissions/mod)" in message


@pytest.mark.parametrize(("path", "rule"), [
    ("README.md", "outside submissions/<id>/"),
    ("checker/evil.py", "outside submissions/<id>/"),
    ("problems/suite/easy.json", "problem sets define the benchmark"),
    ("releases/2026-01-01-aaaaaaa.json", "release files record what the site published"),
    (".github/workflows/publish.yml", "outside submissions/<id>/"),
])
def test_files_outside_a_submission_folder_fail(repo, ci, path, rule):
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("changed\n")
    commit(repo, "outside")
    code, found = run_json(ci)
    assert code == 1
    (message,) = errors_for(found, path)
    assert message.startswith(path) and rule in message and MAINTAINER in message
    # a maintainer's pull request: reported as a warning, the check passes
    code, found = run_json(ci, "--maintainer")
    assert code == 0, found
    assert [p["severity"] for p in found if p["path"] == path] == ["warning"]


RESULTS_DOC = json.dumps({"results_format": "1.0", "checker_version": "0.1.0", "submission_id": "keep",
                          "cells": [{"cell": "FULL", "gds_bind": 0.0}]})


@pytest.mark.parametrize("path", ["build/results/keep.json", "results.json", "docs/boards.txt",
                                  "submissions/keep/results.json", "submissions/keep/runs/verified.json"])
def test_a_committed_results_file_fails_under_any_name(repo, ci, path):
    """Publication computes, never reads: a results-looking file in a pull request is refused, named as such."""
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(RESULTS_DOC)
    commit(repo, "forged results")
    code, found = run_json(ci)
    assert code == 1
    (message,) = [m for m in errors_for(found, path) if "it looks like a results file" in m]  # the scope rule's
    assert "a committed results file is never read" in message
    if path.startswith("submissions/keep/"):  # and verify's own finding, on the touched submission
        assert any("a results-looking file committed in the tree" in m for m in errors_for(found, path))


def test_a_second_submission_fails_every_file_of_both(repo, ci):
    prereg_only(repo, "one")
    prereg_only(repo, "two")
    commit(repo, "two at once")
    code, found = run_json(ci)
    assert code == 1
    for sid in ("one", "two"):
        for name in ("prereg.yaml", "submission.yaml"):
            # the scope rule's message (the identity rules may add their own: both fixtures share a title)
            (message,) = [m for m in errors_for(found, f"submissions/{sid}/{name}") if "touches 2" in m]
            assert "touches 2 submission folders (submissions/one, submissions/two)" in message


def test_a_first_pull_request_with_runs_fails(repo, ci):
    make_submission(repo, "eager")
    commit(repo, "prereg and runs together")
    code, found = run_json(ci)
    assert code == 1
    (message,) = errors_for(found, "submissions/eager/runs/r1.jsonl")
    assert "first pull request holds exactly submission.yaml and prereg.yaml" in message
    assert errors_for(found, "submissions/eager/prereg.yaml") == []


def test_a_readme_in_a_first_pull_request_fails(repo, ci):
    folder = prereg_only(repo, "chatty")
    (folder / "README.md").write_text("hello\n")
    commit(repo, "prereg with a readme")
    code, found = run_json(ci)
    assert code == 1
    assert errors_for(found, "submissions/chatty/README.md")


@pytest.mark.parametrize(("path", "expected"), [
    ("submission/mylab/prereg.yaml", "submissions/mylab/"),
    ("Submissions/mylab/prereg.yaml", "submissions/mylab/"),
    ("submissions/mylab.yaml", "submissions/mylab/"),
    ("mylab/prereg.yaml", "submissions/<id>/"),
])
def test_a_mistyped_folder_names_the_folder_it_expected(repo, ci, path, expected):
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(PREREG.format(sid="mylab", ceiling=6000))
    commit(repo, "mistyped")
    code, found = run_json(ci)
    assert code == 1
    (message,) = errors_for(found, path)
    assert f"expected it under {expected}" in message


def test_a_symbolic_link_fails(repo, ci):
    folder = prereg_only(repo, "linky")
    os.symlink("../keep/prereg.yaml", folder / "extra.yaml")
    commit(repo, "a link")
    code, found = run_json(ci)
    assert code == 1
    assert errors_for(found, "submissions/linky/extra.yaml")


def test_uncommitted_changes_are_judged_too(repo, ci):
    """Under submissions/ the work tree counts (a submitter checks before committing); elsewhere only what is
    committed is in the pull request (an eval's untracked log folder is not)."""
    (repo / "submissions" / "keep" / "notes.txt").write_text("draft\n")  # untracked, never committed
    (repo / "logs").mkdir()
    (repo / "logs" / "eval.json").write_text("{}\n")  # untracked, outside submissions/: not in the pull request
    code, found = run_json(ci)
    assert code == 1
    assert errors_for(found, "submissions/keep/notes.txt")
    assert not [p for p in found if p["path"].startswith("logs/")], found
    git(repo, "add", "logs")
    git(repo, "commit", "-q", "-m", "commit the logs folder")
    code, found = run_json(ci)
    assert errors_for(found, "logs/eval.json")  # committed: outside every submission folder


# --------------------------------------------------------------------------- main's history


def ci_history(repo: Path, since: str):
    from click.testing import CliRunner

    from checker.cli.main import cli

    assert Path.cwd().resolve() == repo.resolve()
    return CliRunner().invoke(cli, ["ci-history", "--head", "main", "--since", since], catch_exceptions=False)


def test_ci_history_flags_a_deleted_or_rewritten_merged_log(repo, monkeypatch):
    monkeypatch.chdir(repo)
    base = git(repo, "rev-parse", "main").strip()
    git(repo, "checkout", "-q", "main")
    edit_log(repo)
    git(repo, "rm", "-q", "submissions/mod/prereg.yaml")
    commit(repo, "a maintainer rewrites history forward")
    result = ci_history(repo, base)
    assert result.exit_code == 1
    assert ("submissions/keep/runs/r1.jsonl: commit " in result.output
            and "rewrites the merged file submissions/keep/runs/r1.jsonl: " + APPEND_ONLY in result.output)
    assert "deletes the merged file submissions/mod/prereg.yaml" in result.output


def test_ci_history_flags_a_results_file_committed_on_main(repo, monkeypatch):
    monkeypatch.chdir(repo)
    base = git(repo, "rev-parse", "main").strip()
    git(repo, "checkout", "-q", "main")
    (repo / "docs").mkdir()
    (repo / "docs" / "numbers.yaml").write_text("results_format: '1.0'\nsubmission_id: keep\ncompletions: 86420\n")
    (repo / "releases").mkdir()
    (repo / "releases" / "2026-01-01-aaaaaaa.json").write_text(RESULTS_DOC)  # a maintainer's release record
    commit(repo, "numbers")
    result = ci_history(repo, base)
    assert result.exit_code == 1
    assert "docs/numbers.yaml: a results-looking file committed in the tree" in result.output
    assert "releases/" not in result.output


def test_a_run_log_stored_by_reference_may_be_appended_and_stays_fixed(repo, ci, monkeypatch, tmp_path):
    """Kind (b) with the log outside the repository (`blobs:`): the check fetches it; a merged entry is fixed."""
    import hashlib

    from test_blobs import Server

    from checker.stages import fetch

    monkeypatch.setenv(fetch.LOOPBACK_ENV, "1")  # the verify child inherits it
    monkeypatch.setenv("DRIFTBOARD_CACHE_DIR", str(tmp_path / "cache"))
    server = Server()
    try:
        folder = repo / "submissions" / "mod"
        body = (folder / "runs" / "r1.jsonl").read_bytes()
        server.files["/r2.jsonl"] = body
        m = folder / "submission.yaml"
        entry = (f"blobs:\n  runs/r2.jsonl:\n    sha256: {hashlib.sha256(body).hexdigest()}\n"
                 f"    size: {len(body)}\n    url: {server.base}r2.jsonl\n")
        m.write_text(m.read_text() + "  - runs/r2.jsonl\n" + entry)
        commit(repo, "append a run stored by reference")
        _code, found = run_json(ci)
        assert not any(p["path"] == "submissions/mod/submission.yaml" for p in found), found
        assert not any("stored by reference" in p["message"] for p in found), found
        assert server.hits == {"/r2.jsonl": 1}
        # merged: its entry may not change (here: the url)
        git(repo, "checkout", "-q", "main")
        git(repo, "merge", "-q", "--no-ff", "-m", "merge", "pr")
        git(repo, "checkout", "-q", "-b", "pr2")
        m.write_text(m.read_text().replace(f"{server.base}r2.jsonl", f"{server.base}moved/r2.jsonl"))
        commit(repo, "move the blob")
        code, found = run_json(ci)
        assert code == 1
        assert any("blobs (the entries of merged logs stored by reference must stay)" in message
                   for message in errors_for(found, "submissions/mod/submission.yaml")), found
    finally:
        server.close()
