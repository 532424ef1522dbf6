"""The GitHub Actions workflows: offline lint (zizmor, check-jsonschema) and the security rules.

`make test` also runs both linters over `.github/workflows/`; these tests additionally show
that the lint catches a planted template injection, and pin the rules a linter cannot know
(pull_request only, no secrets, the checker installed from the base commit, ...).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
CHECK = WORKFLOWS / "check-submission.yml"
PUBLISH = WORKFLOWS / "publish.yml"


def tool(name: str) -> str:
    """The linter next to this Python (the venv), else on PATH; skip when not installed."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return found


def load(path: Path) -> dict[Any, Any]:
    # YAML 1.1 reads the key `on` as True; accept both spellings.
    doc = yaml.safe_load(path.read_text())
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def steps(doc: dict[Any, Any]) -> list[dict[str, Any]]:
    return [s for job in doc["jobs"].values() for s in job.get("steps", [])]


def test_zizmor_offline_finds_nothing():
    out = subprocess.run([tool("zizmor"), "--offline", "--no-progress", str(WORKFLOWS)], capture_output=True,
                         text=True, check=False, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No findings" in out.stdout
    assert "WARN" not in out.stderr  # zizmor skips (with only a warning) a workflow it cannot parse


def test_zizmor_catches_a_planted_injection(tmp_path):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(REPO / ".github" / "zizmor.yml", tmp_path / ".github" / "zizmor.yml")
    bad = CHECK.read_text().replace('driftboard ci --base "$BASE_SHA"',
                                    "driftboard ci --base ${{ github.event.pull_request.head.ref }}")
    assert bad != CHECK.read_text()
    (tmp_path / ".github" / "workflows" / "bad.yml").write_text(bad)
    out = subprocess.run([tool("zizmor"), "--offline", "--no-progress", str(tmp_path / ".github" / "workflows")],
                         capture_output=True, text=True, check=False, cwd=tmp_path)
    assert out.returncode != 0
    assert "template-injection" in out.stdout


def test_workflows_match_the_github_workflow_schema():
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *files],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr


def test_schema_check_catches_a_bad_permission(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(CHECK.read_text().replace("contents: read", "contents: readonly"))
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(bad)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1


def test_check_submission_is_unprivileged():
    doc = load(CHECK)
    assert list(doc["on"]) == ["pull_request"]
    assert doc["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in doc["jobs"].values())
    code = "\n".join(line for line in CHECK.read_text().splitlines() if not line.lstrip().startswith("#"))
    assert "secrets" not in code and "pull_request_target" not in code


def test_check_submission_runs_driftboard_ci_with_the_base_checker():
    doc = load(CHECK)
    runs = "\n".join(s.get("run", "") for s in steps(doc))
    assert 'git worktree add --detach "$RUNNER_TEMP/base" "$BASE_SHA"' in runs
    assert 'python -m pip install --quiet "$RUNNER_TEMP/base"' in runs
    assert 'driftboard ci --base "$BASE_SHA" --summary "$GITHUB_STEP_SUMMARY"' in runs
    checkout = next(s for s in steps(doc) if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}


@pytest.mark.parametrize("path", [CHECK, PUBLISH], ids=lambda p: p.name)
def test_no_expression_inside_a_shell_line(path):
    """Expressions reach scripts only through `env:`, never spliced into `run:`."""
    for step in steps(load(path)):
        assert "${{" not in step.get("run", ""), step
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


@pytest.mark.parametrize("path", [CHECK, PUBLISH], ids=lambda p: p.name)
def test_actions_are_github_owned_and_pinned_to_a_major(path):
    for step in steps(load(path)):
        if "uses" in step:
            assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step["uses"]


def test_publish_verifies_merges_builds_attests_and_deploys():
    doc = load(PUBLISH)
    assert set(doc["on"]) == {"push", "workflow_dispatch"}
    assert doc["on"]["push"] == {"branches": ["main"]}
    assert doc["permissions"] == {}
    jobs = doc["jobs"]
    assert jobs["verify"]["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    runs = "\n".join(s.get("run", "") for s in steps(doc))
    assert 'driftboard verify submissions/ --shard "$SHARD/$SHARDS"' in runs
    assert "driftboard ci-history" in runs.splitlines()  # prereg merged before its runs; --since: pyproject.toml
    assert "TWO_PR_RULE_SINCE" not in doc["env"]  # one place records where the rule begins: pyproject.toml
    assert "--no-cache" in runs
    assert "driftboard merge build/shards/results-shard-* --out build/results" in runs
    assert "driftboard build --no-verify --results build/results --out build/site" in runs
    uses = {s["uses"].split("@")[0]: s for s in steps(doc) if "uses" in s}
    assert uses["actions/attest-build-provenance"]["with"] == {"subject-path": "build/results/*.json"}
    assert uses["actions/upload-pages-artifact"]["with"] == {"path": "build/site"}
    assert "actions/deploy-pages" in uses
    assert jobs["build"]["permissions"] == {"contents": "read", "id-token": "write", "attestations": "write"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
