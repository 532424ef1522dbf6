"""Checks `validate` runs without scoring: claim names, metric names, coverage, and verify's claim message."""

from __future__ import annotations

from checker.format.metric_names import closest
from checker.format.schema.manifest import Prereg
from checker.pipeline.metrics import claim_names as known_metric_names
from checker.stages.precheck import claim_disagreement, coverage_findings


def test_known_metric_names_are_per_track_and_include_the_cell_counts():
    agent, constraint = known_metric_names("agent"), known_metric_names("constraint")
    assert {"gds_bind", "gds_abandon", "completions", "runs", "valid_runs", "actions_per_level"} <= set(agent)
    assert {"turn_accuracy", "drift_rate", "contradiction_rate", "runs", "valid_runs"} <= set(constraint)
    assert "turn_accuracy" not in agent and "gds_bind" not in constraint
    assert "accuracy_depth_10" in constraint  # a family declared with `names`


def test_closest_finds_the_misspelt_name_or_nothing():
    names = known_metric_names("agent")
    assert closest("gds-bind", names) == "gds_bind"
    assert closest("GDS_BIND", names) == "gds_bind"
    assert closest("FULLL", ["FULL", "J0", "A0"]) == "FULL"
    assert closest("banana", names) is None


PREREG = Prereg.model_validate({"format_version": "1.0", "submission_id": "s", "track": "agent",
                                "cells": {"FULL": {"seeds": ["s1", "s2"]}, "J0": {"seeds": ["s1"]}}})


def test_coverage_findings():
    runs = [("s/runs/a.jsonl", "s-a", "FULL", "s1"), ("s/runs/b.jsonl", "s-b", "FULL", "s3"),
            ("s/runs/c.jsonl", "s-c", "A0", "s1"), ("s/runs/d.jsonl", "s-d", "J0", "s1"),
            ("s/runs/e.jsonl", "s-e", "J0", "s1"), ("s/runs/f.jsonl", "s-a", "FULL", "s1")]
    found = [(f.path, f.message.split(":")[0]) for f in coverage_findings(runs, PREREG)]
    assert found == [
        ("s/runs/b.jsonl", "seed 's3' of cell 'FULL' is not declared in prereg.yaml (declared"),
        ("s/runs/c.jsonl", "cell 'A0' is not declared in prereg.yaml (declared"),
        ("s/runs/e.jsonl", "cell 'J0', seed 's1' is already reported by s/runs/d.jsonl"),
        # f repeats a's run id: that is the duplicate-run-id finding, not reported twice
    ]
    assert coverage_findings(runs, None) == []


def test_verify_names_an_unknown_claim_instead_of_recomputed_none():
    msg = claim_disagreement("agent", "FULL", "gds-bind", 0.3, None, ["FULL"], known_metric_names("agent"))
    assert msg.startswith("claim FULL/gds-bind: unknown metric 'gds-bind' (did you mean 'gds_bind'?); "
                          "the agent-track metrics are: actions, ")
    assert claim_disagreement("agent", "FULLL", "completions", 1, None, ["FULL"], known_metric_names("agent")) == (
        "claim FULLL/completions: unknown cell 'FULLL' (did you mean 'FULL'?); the cells are: FULL")
    assert claim_disagreement("agent", "FULL", "completions", 3, 0.0, ["FULL"], known_metric_names("agent")) == (
        "claim FULL/completions: claimed 3, recomputed 0.0: correct the claim in submission.yaml to the "
        "recomputed figure, or remove it")
