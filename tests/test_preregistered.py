"""Pre-registration first, in public (issue 34, item 1): a prereg-only tree verifies, builds, and is listed.

A leaderboard repository whose `main` holds only pre-registrations (`submission.yaml` with
`files: []` and `prereg.yaml`), merged from pull-request branches whose commits carry back-dated
author and committer dates: `verify submissions/` and `build` exit 0, and the Pre-registered page
lists every study with its declared cells and seeds, its prediction, the date of the merge on
`main` (never the submitter's dates), its age, and its status (awaiting runs / withdrawn).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO
from test_ci import MANIFEST, PREREG

from checker.pipeline.registry import registry

SUBMITTER_DATE = "2020-01-01T12:00:00+00:00"
"""The date the submitter's own commits claim (back-dated)."""


def git(repo: Path, *args: str, when: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent),
           "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True).stdout


def pull_request(repo: Path, name: str, files: dict[str, str], merged: str) -> None:
    """A branch with one back-dated commit adding `files`, merged into main by a merge commit dated `merged`."""
    git(repo, "checkout", "-q", "-b", name, "main", when=SUBMITTER_DATE)
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A", when=SUBMITTER_DATE)
    git(repo, "commit", "-q", "-m", name, when=SUBMITTER_DATE)
    git(repo, "checkout", "-q", "main", when=merged)
    git(repo, "merge", "-q", "--no-ff", "-m", f"Merge {name}", name, when=merged)


PREDICTION = """predictions:
  - id: few
    text: "at most 1 completion <i>overall</i>"
"""


def prereg_files(sid: str, prediction: str = "") -> dict[str, str]:
    return {f"submissions/{sid}/prereg.yaml": PREREG.format(sid=sid, ceiling=6000) + prediction,
            f"submissions/{sid}/submission.yaml": MANIFEST.format(sid=sid).replace("files:\n  - runs/r1.jsonl\n",
                                                                                  "files: []\n")}


@pytest.fixture(scope="module")
def leaderboard(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("registry") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", when="2026-11-01T00:00:00+00:00")
    (repo / "README.md").write_text("leaderboard\n")
    git(repo, "add", "-A", when="2026-11-01T00:00:00+00:00")
    git(repo, "commit", "-q", "-m", "base", when="2026-11-01T00:00:00+00:00")
    pull_request(repo, "pr-waiting", prereg_files("waiting", PREDICTION), merged="2026-11-20T09:00:00+00:00")
    pull_request(repo, "pr-dropped", prereg_files("dropped"), merged="2026-11-21T09:00:00+00:00")
    pull_request(repo, "pr-withdraw", {"submissions/dropped/withdrawal.yaml": "reason: the harness lost its keys\n"},
                 merged="2026-11-25T09:00:00+00:00")
    (repo / "NEWS").write_text("later\n")
    git(repo, "add", "-A", when="2026-11-30T09:00:00+00:00")
    git(repo, "commit", "-q", "-m", "later", when="2026-11-30T09:00:00+00:00")
    return repo


def test_registry_dates_come_from_the_merge_history(leaderboard):
    reg = registry(leaderboard / "submissions")
    assert reg.as_of == "2026-11-30"
    by_id = {e.submission_id: e for e in reg.entries}
    waiting, dropped = by_id["waiting"], by_id["dropped"]
    assert (waiting.registered, waiting.age_days, waiting.status) == ("2026-11-20", 10, "awaiting runs")
    assert [(c.name, c.seeds) for c in waiting.cells] == [("FULL", ("s1",))]
    assert waiting.predictions == ("at most 1 completion <i>overall</i>",)
    assert (dropped.registered, dropped.age_days, dropped.status) == ("2026-11-21", 9, "withdrawn")
    assert (dropped.withdrawn, dropped.withdrawn_on) == ("the harness lost its keys", "2026-11-25")
    assert SUBMITTER_DATE[:10] not in {waiting.registered, dropped.registered, dropped.withdrawn_on}


def test_a_prereg_only_tree_verifies_and_builds_with_a_pre_registered_page(leaderboard, run_line, monkeypatch):
    monkeypatch.chdir(leaderboard)
    verified = run_line(["verify", "submissions/", "--no-cache", "--out", "build/results", "--format", "json"])
    assert verified.exit_code == 0, verified.output
    doc = json.loads(verified.stdout)
    assert doc["exit_code"] == 0 and [p for p in doc.get("problems", []) if p["severity"] == "error"] == []
    assert sorted(p.name for p in (leaderboard / "build" / "results").glob("*.json")) == ["binding.json", "boards.json",
                                                                                   "index.json"]
    built = run_line(["build", "--project", str(REPO), "--out", "build/site"])
    assert built.exit_code == 0, built.output
    html = (leaderboard / "build" / "site" / "preregistered" / "index.html").read_text()
    assert html.count("awaiting runs") >= 1 and "withdrawn" in html
    assert "2026-11-20" in html and "2026-11-21" in html and "2026-11-25" in html
    assert "2020-01-01" not in html
    assert "the harness lost its keys" in html
    assert "<i>overall</i>" not in html  # submitted text is escaped
    nav = (leaderboard / "build" / "site" / "index.html").read_text()
    assert "preregistered/" in nav


def test_results_dates_and_pinned_commit_come_from_the_merges(tmp_path, run_line, monkeypatch):
    """A results file's submitted/verified dates and commit are main's merges, not the submitter's back-dated commits."""
    from test_ci import make_submission

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", when="2026-11-01T00:00:00+00:00")
    (repo / "README.md").write_text("leaderboard\n")
    git(repo, "add", "-A", when="2026-11-01T00:00:00+00:00")
    git(repo, "commit", "-q", "-m", "base", when="2026-11-01T00:00:00+00:00")
    pull_request(repo, "pr-1", prereg_files("toy"), merged="2026-11-20T09:00:00+00:00")
    scratch = tmp_path / "scratch"
    make_submission(scratch, "toy")  # the same prereg bytes, a run and its manifest entry
    runs = {f"submissions/toy/{p.relative_to(scratch / 'submissions' / 'toy').as_posix()}": p.read_text()
            for p in (scratch / "submissions" / "toy").rglob("*") if p.is_file() and p.name != "prereg.yaml"}
    pull_request(repo, "pr-2", runs, merged="2026-11-22T09:00:00+00:00")
    merge = git(repo, "rev-parse", "main", when=SUBMITTER_DATE).strip()
    monkeypatch.chdir(repo)
    assert run_line(["verify", "submissions/", "--no-cache", "--out", "out"]).exit_code == 0
    provenance = json.loads((repo / "out" / "toy.json").read_text())["provenance"]
    assert provenance == {"submitted": "2026-11-20", "verified": "2026-11-22", "commit": merge, "uncommitted": False}


def test_the_workflows_bind_publication_to_the_job_and_recognise_maintainers():
    publish = (REPO / ".github" / "workflows" / "publish.yml").read_text()
    assert "DRIFTBOARD_JOB: ${{ github.run_id }}-${{ github.run_attempt }}" in publish
    check = (REPO / ".github" / "workflows" / "check-submission.yml").read_text()
    assert "AUTHOR_ASSOCIATION: ${{ github.event.pull_request.author_association }}" in check
    assert "OWNER | MEMBER | COLLABORATOR) set -- --maintainer ;;" in check


def test_the_publish_jobs_steps_succeed_on_a_prereg_only_tree(leaderboard, run_line, monkeypatch):
    """ci-history, verify --shard, merge, build --no-verify (as publish.yml runs them) all exit 0."""
    monkeypatch.chdir(leaderboard)
    monkeypatch.setenv("DRIFTBOARD_JOB", "run-42-1")
    assert run_line(["ci-history"]).exit_code == 0
    shard = run_line(["verify", "submissions/", "--shard", "1/1", "--no-cache", "--out", "build/shard-1"])
    assert shard.exit_code == 0, shard.output
    assert sorted(p.name for p in (leaderboard / "build" / "shard-1").iterdir()) == ["binding.json"]  # not empty
    merged = run_line(["merge", "build/shard-1", "--out", "build/merged"])
    assert merged.exit_code == 0, merged.output
    built = run_line(["build", "--no-verify", "--results", "build/merged", "--project", str(REPO), "--out", "build/pub"])
    assert built.exit_code == 0, built.output
    assert "awaiting runs" in (leaderboard / "build" / "pub" / "preregistered" / "index.html").read_text()
