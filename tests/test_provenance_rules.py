"""Integrity principle 8: imported logs keep their provenance; a pre-registration not committed before its runs
(in the publishing branch's own history) is marked written after the runs, never "committed before the runs".

Forged histories: a pull request whose own commits put prereg.yaml first, commits back-dated to look
earlier, runs merged before the pre-registration. The publishing branch's first-parent history
decides; commit dates and the submitter's commit order inside a pull request decide nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from submission_factory import make_agent_submission

from checker.format.boards_model import DECLARED, backbone_label, cell_model_labels
from checker.format.identity import recorded_model
from checker.format.results_model import ResultsFile
from checker.format.schema.common import SourceRef
from checker.pipeline.verify import verify_paths
from checker.render.evidence import LATE_PREREG, prereg_label

REPO = Path(__file__).resolve().parents[1]
BEFORE = "committed before the runs"

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="needs git")


class Repo:
    """A throw-away repository with a `main` branch, committing as a submitter would (any date)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True)
        self("init", "-q", "-b", "main")
        self("commit", "-q", "--allow-empty", "-m", "init")

    def __call__(self, *args: str, date: str = "2026-11-01T00:00:00Z") -> None:
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "HOME": str(self.root.parent)}
        subprocess.run(["git", "-C", str(self.root), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                       check=True, capture_output=True, env=env)

    def commit(self, paths: list[str], message: str, date: str = "2026-11-01T00:00:00Z") -> None:
        self("add", "--", *paths, date=date)
        self("commit", "-q", "-m", message, date=date)

    def merge(self, branch: str, date: str = "2026-11-02T00:00:00Z") -> None:
        self("checkout", "-q", "main", date=date)
        self("merge", "-q", "--no-ff", branch, "-m", f"Merge {branch}", date=date)


def _submission(repo: Repo) -> tuple[list[str], list[str]]:
    folder = make_agent_submission(repo.root / "submissions", "lab", {"FULL": ["s1", "s2"]})
    files = sorted(p.relative_to(repo.root).as_posix() for p in folder.rglob("*") if p.is_file())
    return [f for f in files if f.endswith(".yaml")], [f for f in files if f.endswith(".jsonl")]


def _verify(repo: Repo, tmp: Path) -> tuple[int, ResultsFile]:
    out = tmp / "results"
    report = verify_paths([repo.root / "submissions"], results_dir=out, problem_dirs=())
    return report.exit_code, ResultsFile.model_validate_json((out / "lab.json").read_text(encoding="utf-8"))


def test_one_pull_request_with_the_prereg_first_is_not_committed_before(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    manifests, runs = _submission(repo)
    repo("checkout", "-q", "-b", "pr")
    repo.commit(manifests, "pre-register", date="2020-01-01T00:00:00Z")  # back-dated, and first on its branch
    repo.commit(runs, "runs")
    repo.merge("pr")
    code, r = _verify(repo, tmp_path)
    assert code == 0  # not a violation: a label
    assert r.prereg_check.commit_order["status"] == "together"
    assert r.prereg_check.commit_order["detail"] == "prereg.yaml was committed together with run logs, not before them"
    assert r.prereg_written_after_runs is True
    assert prereg_label(r) == LATE_PREREG != BEFORE


def test_prereg_merged_before_the_runs_is_committed_before_whatever_the_dates(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    manifests, runs = _submission(repo)
    repo("checkout", "-q", "-b", "prereg")
    repo.commit(manifests, "pre-register", date="2026-11-05T00:00:00Z")
    repo.merge("prereg", date="2026-11-05T00:00:00Z")
    repo("checkout", "-q", "-b", "runs")
    repo.commit(runs, "runs", date="2001-01-01T00:00:00Z")  # dated before the prereg: dates are not read
    repo.merge("runs", date="2001-01-01T00:00:00Z")
    code, r = _verify(repo, tmp_path)
    assert code == 0
    assert r.prereg_check.commit_order["status"] == "ok"
    assert r.prereg_written_after_runs is False
    assert prereg_label(r) == BEFORE


def test_runs_merged_before_a_back_dated_prereg_are_a_violation(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    manifests, runs = _submission(repo)
    repo("checkout", "-q", "-b", "runs")
    repo.commit(runs, "runs")
    repo.merge("runs")
    repo("checkout", "-q", "-b", "prereg")
    repo.commit(manifests, "pre-register", date="1999-01-01T00:00:00Z")
    repo.merge("prereg", date="1999-01-01T00:00:00Z")
    code, r = _verify(repo, tmp_path)
    assert code == 1
    assert r.prereg_check.commit_order["status"] == "violated"
    assert r.prereg_written_after_runs is True
    assert prereg_label(r) == LATE_PREREG


# --------------------------------------------------------------------------- importers


def _starts(sid: str) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8").split("\n", 1)[0])
            for p in sorted((REPO / "submissions" / sid / "runs").glob("*.jsonl"))]


@pytest.mark.parametrize("sid", ["drift-bench-examples", "tau-bench-gpt-4o-airline"])
def test_shipped_imports_say_where_they_came_from(sid: str) -> None:
    for start in _starts(sid):
        source = SourceRef.model_validate(start["source"])
        name, _, version = source.importer.partition("@")
        assert name and version.isdigit(), source.importer  # the tool and its version
        assert source.files and all(len(d) == 64 for d in source.files.values())  # the native files, by digest
        assert source.native_run_id
        assert recorded_model(source, start["backbone"]) == start["backbone"]  # the model, as the native files name it
        assert start["started_at"]


def test_a_header_model_no_record_backs_is_declared() -> None:
    source = SourceRef(importer="tau-bench@1", details={"model": "gpt-4o"})
    assert recorded_model(source, "gpt-4o") == "gpt-4o"
    assert recorded_model(source, "claude-opus-5") is None  # the header says another model than the record
    assert recorded_model(None, "gpt-4o") is None  # not imported: the submitter's word
    assert recorded_model(SourceRef(importer="drift-bench-transcript@1", native_run_id="qwen3-8b/mus_repair"),
                          "qwen3-8b") == "qwen3-8b"


def test_the_board_marks_a_declared_model(shipped_results: Path) -> None:
    r = ResultsFile.model_validate_json((shipped_results / "tau-bench-gpt-4o-airline.json").read_text(encoding="utf-8"))
    (cell,) = r.cells
    assert cell_model_labels(r, cell) == ["gpt-4o"]  # recorded by the importer: shown as is
    assert backbone_label(r, "gpt-4o") == "gpt-4o"
    forged = r.model_copy(update={"runs": [run.model_copy(update={"model_recorded": None}) for run in r.runs]})
    assert cell_model_labels(forged, cell) == ["gpt-4o" + DECLARED]
    assert backbone_label(forged, "gpt-4o") == "gpt-4o (declared)"
