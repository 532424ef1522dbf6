"""Helpers for the completion-track tests: τ-bench trajectories scored one by one, and synthetic episodes.

Episodes are converted by the importer's `convert`, written as canonical logs with `RunLogWriter` into a
test's temporary folder, read back and scored by the completion scorer, exactly as `verify` does
(without the submission around them).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from conftest import REPO

from checker.completion.scorer import cell_tables, score_run
from checker.completion.tasks import TaskSet, load_task_set
from checker.format.cell_tables import CompletionCellTables
from checker.format.logio import RunLogWriter
from checker.format.results_model import RunResult
from checker.format.schema.manifest import Prereg
from checker.format.seeds import seed_label
from checker.importers.tau_bench import EPOCH, convert
from checker.pipeline.verify import read_run
from checker.stages.tracks import VerifyContext

TASK_SET = REPO / "problems" / "tau-bench-airline"
SHIPPED = REPO / "examples" / "tau-bench" / "gpt-4o-airline.json"
SUBMISSION = REPO / "submissions" / "tau-bench-gpt-4o-airline"
CELL = "gpt-4o/tool-calling"
WRITE_TOOLS = ("book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_baggages",
               "update_reservation_passengers", "send_certificate")
"""The airline domain's write tools, as the specification lists them."""


@cache
def task_set() -> TaskSet:
    """The shipped airline task set (loaded once per test session)."""
    return load_task_set(TASK_SET)


@cache
def shipped_entries_text() -> str:
    return SHIPPED.read_text(encoding="utf-8")


def shipped_entries() -> list[dict[str, Any]]:
    """The 200 gpt-4o trajectories shipped in examples/ (a fresh copy each call: tests edit them)."""
    return json.loads(shipped_entries_text())


def prereg_for(seeds: list[str], cell: str = CELL) -> Prereg:
    """A pre-registration declaring `seeds` in one cell, on the shipped task set."""
    return Prereg.model_validate({"format_version": "1.0", "submission_id": "fixture", "track": "completion",
                                  "cells": {cell: {"seeds": seeds}}, "problem_set": task_set().digest,
                                  "written_after_runs": True})


def write_log(path: Path, seed: str, events: list[dict[str, Any]], cell: str = CELL, end: bool = True) -> Path:
    """A canonical completion log with these body events (chained by `RunLogWriter`)."""
    ts = task_set()
    start = {"run_id": f"fixture--{seed}", "submission_id": "fixture", "track": "completion", "cell": cell,
             "seed": seed, "flags": {}, "backbone": "gpt-4o", "prereg_sha256": "0" * 64, "started_at": EPOCH,
             "method": "tool-calling", "problem_set": {"name": ts.name, "digest": ts.digest}}
    log = RunLogWriter(path, start)
    with log:
        for event in events:
            log.write(event)
        if end:
            log.end("COMPLETED", "fixture")
    return path


def score_events(folder: Path, seed: str, events: list[dict[str, Any]], prereg: Prereg | None = None,
                 end: bool = True) -> RunResult:
    """Score one episode given as canonical body events."""
    folder.mkdir(parents=True, exist_ok=True)
    path = write_log(folder / f"{seed}-{len(list(folder.iterdir()))}.jsonl", seed, events, end=end)
    ts = task_set()
    return score_run(read_run(path, path.name), VerifyContext("driftboard", prereg, task_sets={ts.digest: ts}))


def score_entry(folder: Path, entry: dict[str, Any], index: int, prereg: Prereg | None = None) -> RunResult:
    """Score one τ-bench trajectory (converted by the importer)."""
    ep, problems = convert(entry, index, task_set(), "fixture")
    assert ep is not None, problems
    return score_events(folder, seed_label(ep.task_id, ep.trial), ep.events, prereg)


def counted_verified(runs: list[RunResult]) -> int:
    """Episodes that count as verified: VALID runs whose episode is verified."""
    return sum(1 for r in runs if r.verdict == "VALID" and r.episode is not None and r.episode.verified)


def cell_figures(runs: list[RunResult]) -> CompletionCellTables:
    """The completion table of the runs' one cell."""
    tables = cell_tables(runs)
    assert len(tables) == 1, sorted(tables)
    return next(iter(tables.values()))
