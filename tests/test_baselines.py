"""Driftboard's reference baselines: regeneration, the problem suite, and the states the checker shows."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, require_shared, shared_data

from checker.constraint.answers import normalize
from checker.constraint.domains import make_domain
from checker.constraint.domains.solver import naive_sat
from checker.constraint.problems import load_problem_sets
from checker.format.results_io import read_results
from checker.format.storage import open_log
from checker.harness.baselines import baselines_command, reference_full
from checker.harness.baselines import constraint_baselines as cb
from checker.harness.baselines.agent_baselines import SUBMISSION_ID as AGENT_ID
from checker.harness.baselines.agent_reference import SUBMISSION_ID as AGENT_REFERENCE_ID
from checker.harness.baselines.reference_lite import SUBMISSION_ID as LITE_ID
from checker.harness.baselines.reported import ARG_CSV, DRIFT_CSV, convert_paper_tables, load_reported
from checker.harness.baselines.suite import PER_DOMAIN, SUITE_DIR, load_suite, suite_digest, write_suite

SUBMISSIONS = REPO / "submissions"
BASELINE_IDS = (AGENT_ID, AGENT_REFERENCE_ID, cb.SUBMISSION_ID, LITE_ID)
FULL_PREFIX = 12
"""Problems of the full split the regeneration test answers (all 816 take minutes): see below."""


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "someone-else").mkdir()
    (tmp_path / "someone-else" / "keep.txt").write_text("untouched\n")
    # the full split's reference answers its first problems only: its logs are checked as prefixes below
    whole = reference_full.write
    monkeypatch.setattr(reference_full, "write", lambda out: whole(out, limit=FULL_PREFIX))
    assert baselines_command(tmp_path) == 0
    assert (tmp_path / "someone-else" / "keep.txt").read_text() == "untouched\n"
    for sid in BASELINE_IDS:
        fresh, shipped = _files(tmp_path / sid), _files(SUBMISSIONS / sid)
        assert sorted(fresh) == sorted(shipped), sid
        for name, data in fresh.items():
            assert data == shipped[name], f"{sid}/{name} differs from the committed copy"
    # driftboard-reference-full: the same files and manifests; each log's lines up to its last answered problem
    # (header and problem-set digest included, so the hash chain too) are the committed log's first lines
    sid = reference_full.SUBMISSION_ID
    fresh, shipped = _files(tmp_path / sid), _files(SUBMISSIONS / sid)
    assert sorted(fresh) == sorted(shipped)
    for name in fresh:
        if not name.endswith(".jsonl.zst"):
            assert fresh[name] == shipped[name], f"{sid}/{name} differs from the committed copy"
            continue
        with open_log(tmp_path / sid / name) as a, open_log(SUBMISSIONS / sid / name) as b:
            prefix, whole_log = a.read().splitlines()[:-1], b.read().splitlines()
        assert len(prefix) > FULL_PREFIX and prefix == whole_log[:len(prefix)], f"{sid}/{name}"


def test_suite_regenerates_byte_identically(tmp_path: Path) -> None:
    digest = write_suite(tmp_path)
    assert digest == suite_digest()
    assert _files(tmp_path) == _files(SUITE_DIR)


def test_suite_shape_and_every_turn_sat_with_z3() -> None:
    problems = load_suite()
    assert len(problems) == 3 * PER_DOMAIN
    assert {p["domain"] for p in problems} == {"seating", "scheduling", "logic_grid"}
    for p in problems:
        dom = make_domain(p)
        assert [t["turn_number"] for t in p["turns"]] == list(range(1, len(p["turns"]) + 1))
        for t in p["turns"]:
            assert set(t) == {"turn_number", "user_message", "new_constraints", "cumulative_constraints",
                              "gold_solution", "is_satisfiable"}
            assert all(set(c) == {"type", "args", "nl"} for c in t["new_constraints"])
            keys = [dom.compile_constraint(c) for c in t["cumulative_constraints"]]
            assert naive_sat(dom, keys), (p["problem_id"], t["turn_number"])
            gold = normalize(dom, t["gold_solution"])
            assert gold is not None and dom.is_complete(gold)
            assert naive_sat(dom, keys + dom.answer_keys(gold))
    sets = load_problem_sets([SUITE_DIR])
    assert list(sets) == [suite_digest()]


@pytest.fixture(scope="module")
def agent_runs(shipped_results: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The agent baselines' runs as the checker scored them (`conftest.shipped_results`: every submission verified)."""
    return {(r.cell, r.seed): r.model_dump(mode="json") for r in read_results(shipped_results / f"{AGENT_ID}.json").runs}


@pytest.fixture(scope="module")
def constraint_runs(shipped_results: Path) -> dict[str, dict[str, Any]]:
    """The constraint baselines' runs as the checker scored them, over the shipped suite."""
    results = read_results(shipped_results / f"{cb.SUBMISSION_ID}.json")
    assert results.problem_sets == [suite_digest()]
    return {r.method: r.model_dump(mode="json") for r in results.runs}


def test_agent_states_come_out_of_the_checker(agent_runs: dict[tuple[str, str], dict[str, Any]]) -> None:
    verdicts = {k: r["verdict"] for k, r in agent_runs.items()}
    assert verdicts[("FULL", "s3")] == "INVALID"
    assert any("write-error rate" in reason for reason in agent_runs[("FULL", "s3")]["reasons"])
    assert verdicts[("BARE", "s1")] == "COMPARATOR"
    assert sum(v == "VALID" for v in verdicts.values()) == 11
    m = {k: r["metrics"] for k, r in agent_runs.items()}
    # GDS defined (reference beats) and undefined (none) ...
    assert all(m[("J0A0", s)]["gds_bind"] is None for s in ("s1", "s2", "s3"))
    assert all(m[("A0", s)]["drift_ref_beats"] > 0 for s in ("s1", "s2", "s3"))
    # ... and the decomposition moves with the switches: agenda off -> abandon, join off -> bind
    for s in ("s1", "s2", "s3"):
        assert m[("A0", s)]["gds_abandon"] > 0.5
        assert m[("FULL", s)]["gds_abandon"] == 0
        assert m[("J0", s)]["gds_bind"] > m[("FULL", s)]["gds_bind"]
    completions = [mm["completions"] for mm in m.values()]
    assert 0 in completions and max(completions) > 0
    assert sum(c == 0 for c in completions) > len(completions) / 2
    assert any(mm["milestones_verified"] > 0 for mm in m.values())
    assert any(mm["milestones_declared_only"] > 0 for mm in m.values())
    # the harness that recorded believed landings is caught by the geometry recomputation
    assert m[("J0", "s2")]["attribution_mismatches"] > 0
    assert all(mm["attribution_mismatches"] == 0 for k, mm in m.items() if k != ("J0", "s2"))


def test_constraint_baselines_via_the_checker(constraint_runs: dict[str, dict[str, Any]]) -> None:
    oracle = constraint_runs["oracle"]["metrics"]
    assert oracle["turn_accuracy"] == 1.0 and oracle["turns"] > 0
    assert constraint_runs["recency-k"]["metrics"]["residual_drift"] > 0
    lossy = constraint_runs["lossy-ledger"]["metrics"]
    assert lossy["residual_contradiction"] > 0 and lossy["residual_drift"] > 0
    assert constraint_runs["greedy-repair"]["metrics"]["residual_drift"] > 0
    assert all(not r["mismatches"] for r in constraint_runs.values())


def test_manifests_label_synthetic_baselines() -> None:
    for sid in (*BASELINE_IDS, reference_full.SUBMISSION_ID):
        text = (SUBMISSIONS / sid / "submission.yaml").read_text()
        assert "synthetic: true" in text
        assert (SUBMISSIONS / sid / "prereg.yaml").exists()
        log = sorted((SUBMISSIONS / sid / "runs").glob("*.jsonl*"))[0]  # plain or compressed
        with open_log(log) as fh:
            first = json.loads(fh.readline())
        assert first["started_at"].startswith("2026-01-")


def test_reported_datasets_load() -> None:
    figures = load_reported()
    assert {f.dataset.split(":")[0] for f in figures} == {"arg-published-runs", "drift-bench"}
    assert all(f.source for f in figures)
    with DRIFT_CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["license"] for r in rows} == {"MIT (c) 2026 Kaons"}


@pytest.mark.shared_data
def test_reported_copies_match_their_sources(tmp_path: Path) -> None:
    tables = require_shared(shared_data() / "drift-bench" / "paper_tables", "DRIFT-Bench paper tables")
    # the reference documents sit beside the data: <shared>/reference next to <shared>/data
    reference = require_shared(shared_data().parent / "reference" / "arg-published-runs.csv",
                               "ARG's published runs table (the reference folder beside the shared data)")
    convert_paper_tables(tables, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == DRIFT_CSV.read_bytes()
    assert reference.read_bytes() == ARG_CSV.read_bytes()
