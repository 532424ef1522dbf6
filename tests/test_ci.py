"""`driftboard ci` (changed-submission detection, exit codes) and `driftboard ci-summary` (Markdown, annotations).

The ci tests build a throw-away git repository: a base commit on `main`, then a pull-request
branch. ci-summary is tested on hand-written verify documents, so it does not depend on the
scorers' exact output.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from checker.cli.ci import Change, detect_changes, split_validate
from checker.cli.ci_annotations import annotation_lines, escape_data, escape_property
from checker.cli.ci_summary import md, parse_document, render_summary
from checker.format.logio import RunLogWriter

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}

PREREG = """format_version: "1.0"
submission_id: {sid}
track: agent
profile: driftboard
cells:
  FULL:
    seeds: [s1]
horizon: 10
thresholds:
  render_ceiling_B: {ceiling}
  wer_floor: 0.25
  wer_min_ops: 5
  canary_floor: 0.9
  canary_warmup: 2
"""

MANIFEST = """format_version: "1.0"
id: {sid}
title: Toy submission {sid}
authors:
  - name: Ada Example
contact: ada@example.org
track: agent
system: toy-agent
backbone: none
harness:
  name: toy-harness
  version: "1.0"
  commit: 0123abcd
license: CC-BY-4.0
files:
  - runs/r1.jsonl
"""


# --------------------------------------------------------------------------- helpers


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.parent)}
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return out.stdout


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def make_submission(repo: Path, sid: str, *, ceiling: int = 6000, claims: str = "") -> Path:
    """A one-run agent submission written through RunLogWriter (so its chain is intact)."""
    folder = repo / "submissions" / sid
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    prereg = PREREG.format(sid=sid, ceiling=ceiling).encode()
    (folder / "prereg.yaml").write_bytes(prereg)
    (folder / "submission.yaml").write_text(MANIFEST.format(sid=sid) + claims)
    start = {"run_id": f"{sid}-r1", "submission_id": sid, "track": "agent", "cell": "FULL", "seed": "s1",
             "flags": {}, "backbone": "none", "prereg_sha256": hashlib.sha256(prereg).hexdigest(),
             "started_at": "2026-11-01T00:00:00Z", "horizon": 10, "game_id": "toy"}
    with RunLogWriter(folder / "runs" / "r1.jsonl", start) as log:
        log.write({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
        # each run sees its own first frame: runs with identical events would be copies (checker.stages.copies)
        log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET",
                   "post_frame_hash": hashlib.sha256(sid.encode()).hexdigest()[:16]})
        log.write({"type": "llm_call", "turn": 1, "organ": "OBSERVER", "prompt_tokens": 900,
                   "completion_tokens": 120, "render_tokens": 800, "ops_accepted": 3})
        log.write({"type": "beat", "turn": 1, "action": "ACTION1", "drift_ref": "LIVE", "source_stamp": "PROBE",
                   "level_counter": 1, "score": 1})
        log.write({"type": "level", "turn": 1, "level_counter": 1, "score": 1})
        log.end("COMPLETED", "horizon reached")
    return folder


def preregister(repo: Path, sid: str, *, ceiling: int = 6000) -> None:
    """The first of the two pull requests: `sid`'s prereg.yaml alone, merged into main; then back on the branch."""
    branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    folder = repo / "submissions" / sid
    folder.mkdir(parents=True)
    (folder / "prereg.yaml").write_bytes(PREREG.format(sid=sid, ceiling=ceiling).encode())
    commit(repo, f"pre-register {sid}")
    git(repo, "checkout", "-q", branch)
    git(repo, "merge", "-q", "--no-edit", "main")


def break_chain(folder: Path, line: int = 3) -> None:
    """Edit one byte of the 1-based `line` of r1.jsonl: the next line's `prev` no longer matches."""
    log = folder / "runs" / "r1.jsonl"
    lines = log.read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1].replace(b'"turn":0', b'"turn":1')
    log.write_bytes(b"\n".join(lines))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """`main` with submissions/keep, submissions/mod, submissions/gone; HEAD on branch `pr`."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for sid in ("keep", "mod", "gone"):
        make_submission(root, sid)
    (root / "README.md").write_text("leaderboard\n")
    (root / "submissions" / "README.md").write_text("one folder per submission\n")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def detect(repo: Path, base: str = "main", worktree: bool = False) -> tuple[list[Change], list[str]]:
    found = detect_changes(repo, git(repo, "rev-parse", base).strip(), head(repo), repo, worktree)
    return found.changes, found.ignored


@pytest.fixture
def ci(repo: Path, run_line, monkeypatch):
    """Run `driftboard ci ARGS` inside `repo`, outside GitHub Actions unless asked."""

    def run(*args: str, actions: bool = False):
        monkeypatch.chdir(repo)
        monkeypatch.setenv("GITHUB_ACTIONS", "true" if actions else "false")
        return run_line(["ci", *args])

    return run


# --------------------------------------------------------------------------- detection


def test_detects_added_modified_deleted_and_ignores_other_files(repo):
    make_submission(repo, "new")
    (repo / "submissions" / "mod" / "submission.yaml").write_text(
        (repo / "submissions" / "mod" / "submission.yaml").read_text().replace("Toy submission", "Renamed"))
    git(repo, "rm", "-r", "-q", "submissions/gone")
    (repo / "README.md").write_text("changed\n")
    (repo / "submissions" / "README.md").write_text("changed\n")
    commit(repo, "pr")
    changes, ignored = detect(repo)
    assert changes == [Change("submissions/gone", "deleted"), Change("submissions/mod", "modified"),
                       Change("submissions/new", "added")]
    assert ignored == ["submissions/README.md"]


def test_merge_base_semantics_ignore_later_changes_on_main(repo):
    make_submission(repo, "mine")
    commit(repo, "pr")
    git(repo, "checkout", "-q", "main")
    make_submission(repo, "theirs")
    git(repo, "rm", "-r", "-q", "submissions/keep")
    commit(repo, "main moves on")
    git(repo, "checkout", "-q", "pr")
    changes, _ = detect(repo)
    assert changes == [Change("submissions/mine", "added")]


def test_renamed_submission_is_a_deletion_and_an_addition(repo):
    git(repo, "mv", "submissions/keep", "submissions/kept")
    commit(repo, "rename")
    changes, _ = detect(repo)
    assert [(c.path, c.status) for c in changes] == [("submissions/keep", "deleted"), ("submissions/kept", "added")]


def test_uncommitted_changes_count_only_in_the_work_tree(repo):
    make_submission(repo, "draft")  # untracked
    assert detect(repo, worktree=False)[0] == []
    assert detect(repo, worktree=True)[0] == [Change("submissions/draft", "added", uncommitted=True)]


# --------------------------------------------------------------------------- driftboard ci


def test_ci_passes_on_valid_and_invalid_new_submissions(repo, ci, tmp_path):
    """A VALID run passes; an INVALID one is a result to publish, not a failure (one submission per pull request)."""
    __import__("checker.agent.scorer")
    preregister(repo, "new")
    preregister(repo, "tight", ceiling=100)
    make_submission(repo, "new")
    commit(repo, "pr")
    summary = tmp_path / "summary.md"
    result = ci("--base", "main", "--summary", str(summary), actions=True)
    assert result.exit_code == 0, result.output
    text = summary.read_text()
    assert text in result.stdout
    assert "**✅ Passed.** Verified: 1 submission(s), 1 VALID." in text
    assert "| <code>submissions/new</code> | modified | verified |" in text  # its prereg.yaml is on main
    assert re.search(r"\| <code>new-r1</code> \| FULL \| s1 \| VALID \|", text)
    assert "submissions/keep" not in text  # untouched submissions are validated, not listed
    git(repo, "checkout", "-q", "-b", "pr-tight", "main")
    make_submission(repo, "tight", ceiling=100)  # the 800-token render breaks the ceiling
    commit(repo, "pr-tight")
    result = ci("--base", "main", "--summary", str(summary), actions=True)
    assert result.exit_code == 0, result.output
    text = summary.read_text()
    assert "**✅ Passed.** Verified: 1 submission(s), 1 INVALID." in text
    assert re.search(r"\| <code>tight-r1</code> \| FULL \| s1 \| \*\*INVALID\*\* \|", text)
    assert "#### Validity gate" in text and "❌ FAIL" in text
    assert "#### Per-cell figures" in text
    assert "::notice file=submissions/tight/runs/r1.jsonl,line=" in result.stdout
    assert "::error" not in result.stdout


def test_ci_fails_on_a_chain_break_with_an_annotation_on_the_line(repo, ci):
    preregister(repo, "bad")
    folder = make_submission(repo, "bad")
    break_chain(folder, line=3)
    commit(repo, "pr")
    result = ci("--base", "main", actions=True)
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    assert re.fullmatch(r"::stop-commands::[0-9a-f]{32}", out[0])
    token = out[0].split("::")[2]
    end = out.index(f"::{token}::")
    assert "**❌ Failed:** 1 problem(s)." in "\n".join(out[:end])
    assert ("::error file=submissions/bad/runs/r1.jsonl,line=4::chain broken: prev is not the SHA-256 of line 3; "
            "the log changed after it was written (a line edited, lost, added or reordered): never edit a run log; "
            "restore the file your harness wrote, or re-run the run") in out[end + 1:]


def test_ci_fails_when_a_claimed_figure_disagrees(repo, ci):
    __import__("checker.agent.scorer")
    claims = "claims:\n  - cell: FULL\n    metric: completions\n    value: 7\n"
    preregister(repo, "boast")
    make_submission(repo, "boast", claims=claims)
    commit(repo, "pr")
    result = ci("--base", "main")
    assert result.exit_code == 1, result.output
    assert "#### Claimed vs recomputed" in result.stdout
    assert "❌ **disagrees**" in result.stdout


def test_ci_fails_on_a_deleted_submission(repo, ci):
    """Merged records are append-only (issue 29): deleting a submission fails; it is still reported, not verified."""
    git(repo, "rm", "-r", "-q", "submissions/gone")
    commit(repo, "pr")
    result = ci("--base", "main", actions=True)
    assert result.exit_code == 1, result.output
    assert "deletes (or renames) a merged file; merged run logs and pre-registrations are append-only" in result.stdout
    assert "| <code>submissions/gone</code> | deleted | reported only: not verified |" in result.stdout
    assert "::warning::submissions/gone is deleted by this pull request (reported, not verified)" in result.stdout


def test_ci_checks_out_a_head_that_is_not_checked_out(repo, ci):
    folder = make_submission(repo, "bad")
    break_chain(folder)
    commit(repo, "pr")
    git(repo, "checkout", "-q", "main")
    result = ci("--base", "main", "--head", "pr")
    assert result.exit_code == 1
    assert "submissions/bad/runs/r1.jsonl" in result.stdout
    assert git(repo, "worktree", "list").count("\n") == 1  # the temporary checkout is gone


def test_ci_json_is_the_document_the_summary_is_rendered_from(repo, ci, tmp_path):
    """`--format json`: changes, every problem (errors fail, warnings do not), verify's records; pure JSON in Actions too."""
    __import__("checker.agent.scorer")
    preregister(repo, "new")
    make_submission(repo, "new")
    bad = make_submission(repo, "bad")  # its prereg.yaml is not on main, and its chain is broken
    break_chain(bad, line=3)
    git(repo, "rm", "-r", "-q", "submissions/gone")
    commit(repo, "pr")
    summary = tmp_path / "summary.md"
    result = ci("--base", "main", "--summary", str(summary), "--format", "json", actions=True)
    assert result.exit_code == 1
    doc = json.loads(result.stdout)  # nothing else on stdout: no stop-commands, no annotations
    assert not any(line.lstrip().startswith("::") for line in result.stdout.splitlines())
    assert (doc["command"], doc["ok"], doc["exit_code"]) == ("ci", False, 1)
    assert (doc["base"], doc["head"]) == (git(repo, "rev-parse", "main").strip(), head(repo))
    assert doc["changes"] == [
        {"path": "submissions/bad", "status": "added", "uncommitted": False},
        {"path": "submissions/gone", "status": "deleted", "uncommitted": False},
        {"path": "submissions/new", "status": "modified", "uncommitted": False},
    ]
    assert doc["ignored"] == []
    assert sorted(s["path"] for s in doc["submissions"]) == ["submissions/bad", "submissions/new"]
    errors = {(p["path"], p["line"]) for p in doc["problems"] if p["severity"] == "error"}
    assert ("submissions/bad/runs/r1.jsonl", 4) in errors  # the chain break, on the line after the edit
    assert any(path == "submissions/bad/prereg.yaml" for path, _line in errors)  # the two-pull-request rule
    # --summary still writes the Markdown, rendered from the same document
    assert "**❌ Failed:**" in summary.read_text()
    text = ci("--base", "main")
    assert text.exit_code == 1 and text.stdout == summary.read_text()


def test_ci_json_passing_check(repo, ci):
    preregister(repo, "new")
    make_submission(repo, "new")
    commit(repo, "pr")
    result = ci("--base", "main", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["ok"], doc["exit_code"]) == (True, 0)
    assert [p for p in doc["problems"] if p["severity"] == "error"] == []
    assert [r["verdict"] for s in doc["submissions"] for r in s["runs"]] == ["VALID"]


def test_ci_history_json_names_each_commit_that_breaks_the_two_pull_request_rule(repo, run_line, monkeypatch):
    """The fixture's first commit adds three submissions' runs with their prereg.yaml: no first parent holds it."""
    monkeypatch.chdir(repo)
    result = run_line(["ci-history", "--head", "main", "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    first = git(repo, "rev-list", "--max-parents=0", "main").strip()
    assert (doc["command"], doc["ok"], doc["exit_code"], doc["head"], doc["since"]) == (
        "ci-history", False, 1, git(repo, "rev-parse", "main").strip(), None)
    assert [p["path"] for p in doc["problems"]] == [f"submissions/{s}/prereg.yaml" for s in ("gone", "keep", "mod")]
    assert all(p["message"].startswith(f"commit {first[:12]} adds or changes 1 run log(s)") for p in doc["problems"])
    text = run_line(["ci-history", "--head", "main"])
    assert text.exit_code == 1
    assert text.stdout == "".join(f"{p['path']}: {p['message']}\n" for p in doc["problems"])
    clean = run_line(["ci-history", "--head", "main", "--since", "main", "--format", "json"])
    assert clean.exit_code == 0 and json.loads(clean.stdout)["problems"] == []


@pytest.mark.parametrize("base", ["no-such-ref", "--output=x", ""])
def test_ci_bad_ref_is_a_usage_error(repo, ci, base):
    result = ci("--base", base)
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")


def test_ci_missing_problem_set_is_a_usage_error(repo, ci):
    result = ci("--base", "main", "--problems", "no/such/dir")
    assert result.exit_code == 2
    assert result.stderr == "Error: no/such/dir: no such file or directory\n"


def test_problems_already_on_the_base_branch_do_not_fail_the_pull_request():
    validate = {"problems": [
        {"path": "submissions/old", "line": None, "message": "no submission.yaml", "severity": "error"},
        {"path": "submissions/old/runs/a.jsonl", "line": 1, "severity": "error",
         "message": "duplicate run id 'x' (also in submissions/new/runs/b.jsonl:1)"},
        {"path": "submissions/new/runs/b.jsonl", "line": 4, "message": "chain broken", "severity": "error"},
    ]}
    split = split_validate(validate, ["submissions/new"])["problems"]
    assert [(p["severity"], p["message"]) for p in split] == [
        ("warning", "already on the base branch: no submission.yaml"),
        ("error", "duplicate run id 'x' (also in submissions/new/runs/b.jsonl:1)"),
        ("error", "chain broken"),
    ]


def test_ci_outside_a_git_repository_is_a_usage_error(tmp_path, run_line, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = run_line(["ci", "--base", "main"])
    assert result.exit_code == 2
    assert result.stderr == "Error: not a git repository (run `driftboard ci` inside a clone of the leaderboard)\n"


# --------------------------------------------------------------------------- ci-summary on fixtures

def gate(**failed: list[int]) -> dict:
    """A gate table as verify writes it: every condition PASS (canary N/A) unless named with its offending lines."""
    base = {
        "render_ceiling": {"B": 6000, "breaches": 0, "beat_breaches": 0, "call_breaches": 0, "max_render_tokens": 300,
                           "lines": [], "note": "0 breach(es), max 300 vs B 6000"},
        "silent_degrade": {"count": 0, "acted_beats": 10, "lines": [], "note": "0 of 10 acted beat(s) unstamped"},
        "startup_probe": {"present": True, "image_receipt_ok": True, "note": "image_receipt_ok yes"},
        "shadow_identity": {"paired_groups": 1, "differing": 0, "examples": [], "note": "0 of 1 live/shadow pair(s) differ"},
        "canary_echo": {"status": "NOT_APPLICABLE", "floor": 0.9, "warmup": 2, "rows": 0, "rows_used": 0,
                        "fallback_all_rows": False, "rates": {}, "zones_below": [], "note": "no canary echo rows"},
        "write_error_rate": {"floor": 0.25, "min_ops": 5, "organs": {}, "failed": [], "note": "no ops (floor 0.25, min ops 5)"},
        "evidence": {"checked": True, "mismatches": 0, "by_check": {}, "lines": [],
                     "note": "every checked label agrees with the log"},
    }
    out = {}
    for name, record in base.items():
        record = {"status": "PASS", "reason": None, **record}
        if name in failed:
            record.update(status="FAIL", lines=failed[name], reason=f"{name}: failed")
        out[name] = record
    return out


RUN_OK = {
    "run_id": "lab-full-s1", "cell": "FULL", "seed": "s1", "verdict": "VALID", "reasons": [],
    "path": "submissions/lab/runs/full-s1.jsonl", "gate_verdict": "VALID", "gate": gate(),
    "metrics": {"gds_bind": 0.25},
    "mismatches": [{"line": 12, "field": "target_ref", "recorded": "R0001", "recomputed": "R0002",
                    "reason": "landed on another referent"}],
}
RUN_INVALID = {
    "run_id": "lab-full-s2", "cell": "FULL", "seed": "s2", "verdict": "INVALID",
    "reasons": ["render_ceiling: 2 breaches (max 7000 > 6000)"], "path": "submissions/lab/runs/full-s2.jsonl",
    "gate_verdict": "INVALID", "gate": gate(render_ceiling=[40, 41]),
    "metrics": {"gds_bind": None}, "mismatches": [],
}


def agg(mean: float) -> dict:
    return {"mean": mean, "n_defined": 1, "n": 1, "values": {"s1": mean}, "min": mean, "max": mean}


DOC = {
    "command": "verify", "ok": True, "exit_code": 0, "problems": [],
    "submissions": [{
        "path": "submissions/lab", "submission_id": "lab", "track": "agent", "profile": "driftboard", "cached": False,
        "runs": [RUN_OK, RUN_INVALID],
        "cells": [{"result_id": "lab/FULL", "cell": "FULL", "runs": 2, "valid_runs": 1,
                   "verdicts": {"VALID": 1, "INVALID": 1},
                   "metrics": {"gds_bind": agg(0.25), "llm_calls": agg(12.0)}}],
        "claims": [{"cell": "FULL", "metric": "gds_bind", "claimed": 0.25, "recomputed": 0.25, "agrees": True}],
        "null_results": {"valid_runs": 1, "runs": 2, "completions": 0, "headline": "0 completions across 1 valid run"},
    }],
}


def write_doc(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "verify.json"
    path.write_text(json.dumps(doc))
    return path


def test_summary_shows_verdicts_gate_cells_claims_and_mismatches(tmp_path, run_line):
    result = run_line(["ci-summary", str(write_doc(tmp_path, DOC))])
    assert result.exit_code == 0  # an INVALID run is a result, not a failure
    text = result.stdout
    assert text.startswith("## Driftboard verification\n\n**✅ Passed.** Verified: 1 submission(s), 1 VALID, 1 INVALID.")
    assert "INVALID and INCOMPLETE runs are results" in text
    assert "- null results: **0 completions across 1 valid run**" in text
    assert "| <code>lab-full-s2</code> | FULL | s2 | **INVALID** | render\\_ceiling" not in text
    assert "| <code>lab-full-s2</code> | FULL | s2 | **INVALID** | render_ceiling: 2 breaches (max 7000 &gt; 6000) |" \
        in text
    assert ("| run | gate | render_ceiling | silent_degrade | startup_probe | shadow_identity | canary_echo "
            "| write_error_rate | evidence |") in text
    assert "| <code>lab-full-s1</code> | VALID | ✅ PASS (0 breach(es), max 300 vs B 6000) |" in text
    assert "| N/A (no canary echo rows) |" in text
    assert "| <code>lab-full-s2</code> | INVALID | ❌ FAIL (0 breach(es), max 300 vs B 6000) |" in text
    assert "| gds_bind ↓ | 0.25 (1/1) |" in text  # a headline metric, with its direction
    assert "| llm_calls | 12 (1/1) |" in text  # under "All other metrics"
    assert "| <code>FULL</code> | gds_bind | 0.25 | 0.25 | ✅ agrees | — |" in text
    assert "| <code>submissions/lab/runs/full-s1.jsonl</code> | 12 | target_ref | R0001 | R0002 |" in text
    assert result.stderr.splitlines() == [
        "::warning file=submissions/lab/runs/full-s1.jsonl,line=12,title=Label mismatch::"
        "target_ref: recorded R0001, recomputed R0002 (landed on another referent)",
        "::notice file=submissions/lab/runs/full-s2.jsonl,line=40,title=Validity gate::"
        "gate condition render_ceiling failed: run lab-full-s2 is INVALID (a result)",
    ]


def test_summary_fails_on_problems_and_disagreeing_claims(tmp_path, run_line):
    doc = json.loads(json.dumps(DOC))
    doc["problems"] = [
        {"path": "submissions/lab/runs/full-s3.jsonl", "line": 7, "message": "seq is 5, expected 6", "severity": "error"},
        {"path": "submissions/lab/runs/full-s4.jsonl", "line": None,
         "message": "run has no run_end event: the run is INCOMPLETE", "severity": "error"},
    ]
    doc["submissions"][0]["claims"][0].update(claimed=0.5, agrees=False)
    result = run_line(["ci-summary", str(write_doc(tmp_path, doc))])
    assert result.exit_code == 1
    assert "**❌ Failed:** 1 problem(s), 1 claimed figure(s) disagreeing with the recomputed value." in result.stdout
    assert "| <code>submissions/lab/runs/full-s3.jsonl</code> | 7 | seq is 5, expected 6 |" in result.stdout
    assert "### Notes (not failing) (1)" in result.stdout  # INCOMPLETE is a result
    errors = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error file=submissions/lab/runs/full-s3.jsonl,line=7::seq is 5, expected 6",
        "::error file=submissions/lab/submission.yaml,title=Claimed figure disagrees::"
        "claimed gds_bind = 0.5 for cell FULL, recomputed 0.25",
    ]
    assert "::notice file=submissions/lab/runs/full-s2.jsonl,line=40,title=Validity gate::" in result.stderr


def test_summary_no_annotations(tmp_path, run_line):
    result = run_line(["ci-summary", str(write_doc(tmp_path, DOC)), "--no-annotations"])
    assert result.stderr == ""


def test_summary_refuses_a_document_of_another_shape(tmp_path, run_line):
    doc = {"submissions": [{"runs": [{"verdict": "VALID"}, {}], "cells": {"X": {"runs": 1}}}, "junk"], "problems": None}
    path = write_doc(tmp_path, doc)
    result = run_line(["ci-summary", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {path}: not a `driftboard verify --format json` document: problems: ")
    assert result.stderr.rstrip().endswith("re-run verify with this checker version")


@pytest.mark.parametrize("content", ["not json", "[1, 2]"])
def test_summary_of_a_non_report_is_a_usage_error(tmp_path, run_line, content):
    path = tmp_path / "v.json"
    path.write_text(content)
    result = run_line(["ci-summary", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {path}: ")


def test_summary_of_a_missing_file_is_a_usage_error(tmp_path, run_line):
    result = run_line(["ci-summary", str(tmp_path / "nope.json")])
    assert result.exit_code == 2


# --------------------------------------------------------------------------- escaping (untrusted text)


def test_workflow_command_escaping_follows_github_rules():
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_submitted_text_cannot_inject_workflow_commands_or_break_tables():
    evil = "x|y\n::error::pwned\r\n::set-env name=A::1 <img src=x>"
    # submitted text reaches a verify document only in string fields (ids, cells, seeds, reasons, messages,
    # recorded values): a verdict or a gate condition name is the checker's own and is refused otherwise
    doc = parse_document({
        "problems": [{"path": "submissions/e,v:il/runs/a.jsonl", "line": 3, "message": evil, "severity": "error"}],
        "submissions": [{"path": evil, "submission_id": evil, "profile": evil, "cached": False, "track": "agent",
                         "runs": [{"path": evil, "run_id": evil, "cell": evil, "seed": evil, "verdict": "INVALID",
                                   "reasons": [evil],
                                   "mismatches": [{"line": 2, "field": evil, "recorded": evil, "recomputed": None,
                                                   "reason": evil}]}],
                         "claims": [{"cell": evil, "metric": evil, "claimed": 1, "recomputed": None,
                                     "agrees": False, "source": evil}]}]}, "test")
    text = render_summary(doc)
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        if "pwned" in line:
            assert line[0] in "#|-*", line
    assert "<img" not in text
    width = None
    for line in text.splitlines():  # every row of a table has as many cells as its header
        if not line.startswith("|"):
            width = None
            continue
        cols = len(re.findall(r"(?<!\\)\|", line))
        width = width or cols
        assert cols == width, line
    lines = annotation_lines(doc)
    assert lines[0] == "::error file=submissions/e%2Cv%3Ail/runs/a.jsonl,line=3::x|y%0A::error::pwned%0D%0A" \
                       "::set-env name=A::1 <img src=x>"
    for line in lines:
        assert "\n" not in line and "\r" not in line
        assert re.match(r"::(error|warning|notice)( [^:]*)?::", line)


def test_md_cell_is_one_line_and_bounded():
    assert md(None) == "—"
    assert md("a|b") == "a\\|b"
    assert md("a\nb") == "a b"
    assert len(md("x" * 1000)) <= 300


def test_ci_refuses_changes_to_problem_sets(repo, ci):
    """A pull request that could change the problem sets could grade itself: the check fails."""
    (repo / "problems" / "suite").mkdir(parents=True)
    (repo / "problems" / "suite" / "easy_001.json").write_text("{}\n")
    commit(repo, "pr adds a problem set")
    result = ci("--base", "main")
    assert result.exit_code == 1, result.output
    assert "problems/suite/easy" in result.stdout  # the path is shown (escaped for Markdown)
    assert "does not accept changes under problems/" in result.stdout


def test_ci_refuses_changes_to_release_files(repo, ci):
    """A release records what the site published: a pull request may not add or edit one."""
    (repo / "releases").mkdir()
    (repo / "releases" / "2026-01-01-aaaaaaa.json").write_text("{}\n")
    commit(repo, "pr adds a release")
    result = ci("--base", "main")
    assert result.exit_code == 1, result.output
    assert "releases/2026-01-01-aaaaaaa.json" in result.stdout
    assert "does not accept changes under releases/" in result.stdout
