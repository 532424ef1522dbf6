"""The Metrics page cannot fall behind the scorers: every metric of the shipped results is documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.constraint import metrics as constraints
from checker.render.metrics import MAX_DEPTH, METRICS, documented

NOT_METRICS = {"run"}
"""Per-run metric keys that are identifiers, not metrics (`run` = the native run id)."""


@pytest.fixture(scope="module")
def results(shipped_results: Path) -> list[dict]:
    """The shipped submissions, verified without cache (`conftest.shipped_results`); their results files, parsed."""
    files = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(shipped_results.glob("*.json"))
             if p.name not in ("index.json", "boards.json", "binding.json")]
    assert files
    return files


def test_every_cell_metric_is_documented(results: list[dict]) -> None:
    names = {name for r in results for cell in r["cells"] for name in cell["metrics"]}
    assert names, "no cell metric in the shipped results"
    assert set(names) - documented() == set()


def test_every_run_metric_is_documented(results: list[dict]) -> None:
    """Per-run records also carry tables and yes/no flags (bins, goal_status, R9_ok, ...)."""
    names = {name for r in results for run in r["runs"] for name in (run.get("metrics") or {})}
    assert names - NOT_METRICS - documented() == set()


def test_every_track_is_exercised(results: list[dict]) -> None:
    assert {r["track"] for r in results} == {"agent", "constraint", "completion"}


def test_entries_are_complete_and_unique() -> None:
    keys: list[str] = []
    for m in METRICS:
        assert m["track"] in {"agent", "constraint", "completion", "both"}, m["name"]
        assert m["definition"].strip(), m["name"]
        assert m["undefined"].strip(), m["name"]
        assert "\n\n" not in m["definition"] + m["undefined"], m["name"]  # one paragraph each
        keys.extend(m.get("names") or [m["name"]])
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert len({m["name"] for m in METRICS}) == len(METRICS)


def test_depth_family_matches_the_scorer() -> None:
    assert MAX_DEPTH == constraints.MAX_DEPTH
    empty = constraints.aggregate([])
    depth = {k for k in empty if k.startswith("accuracy_depth_")}
    assert depth == {f"accuracy_depth_{d}" for d in range(1, MAX_DEPTH + 1)}
    assert set(empty) - documented() == set()  # every constraint key, even with no turn
