"""The constraint reference methods under the ranked profile over the lite split: a ranked reference baseline.

A new submission (`driftboard-reference-lite`); the older `driftboard-constraint-baselines` over the
project's own suite stays as it was (published records are append-only). The same four scripted
methods of `checker.harness.baselines.constraint_baselines` (oracle, recency-k, lossy-ledger,
greedy-repair) answer every turn of the 126 problems of `problems/drift-bench-v1-lite/test/`
(`checker.harness.splits`), pre-registered under profile `driftboard`, one declared run each: every
cell declares and covers the whole split, so each ranks on the lite board, labelled "reference
baseline — no LLM" (no log records a model call). The full split's 816 problems would make logs of
tens of megabytes as plain JSONL: `checker.harness.baselines.reference_full` writes the same methods over it
with Zstandard-compressed logs (`Split` below says which split, which id and which log suffix).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from checker.constraint.problems import problem_set_digest
from checker.harness.baselines.common import AUTHOR, CONTACT, LICENSE, SubmissionWriter, harness, started_at
from checker.harness.baselines.constraint_baselines import (
    BACKBONE,
    GREEDY_MAX_CHANGES,
    LOSSY_CORRUPT,
    LOSSY_DROP,
    LOSSY_SEED,
    METHODS,
    MODEL,
    RECENCY_K,
    run_method,
)
from checker.harness.baselines.suite import ProblemDoc

SUBMISSION_ID = "driftboard-reference-lite"
SPLIT_NAME = "drift-bench-v1-lite"
SPLIT_DIR = Path(__file__).resolve().parents[3] / "problems" / SPLIT_NAME / "test"


@dataclass(frozen=True)
class Split:
    """Which split a reference submission answers, under which id, its logs stored how."""

    submission_id: str
    name: str
    """The split's name in the runs' `problem_set` (a label: boards key on the digest)."""
    folder: Path
    what: str
    """The split in a few words, for the manifest's title and description."""
    shown: str = ""
    """The folder as the description names it, under `problems/`."""
    log_suffix: str = ".jsonl"
    """`.jsonl`, or `.jsonl.zst` for Zstandard-compressed logs (`checker.format.storage`)."""


LITE = Split(SUBMISSION_ID, SPLIT_NAME, SPLIT_DIR, "DRIFT-Bench lite split", SPLIT_NAME)
DESCRIPTIONS = ("gold cumulative ledger, Z3 answer (must score 100%)",
                f"ledger of the last {RECENCY_K} turns only",
                f"drops {LOSSY_DROP} / corrupts {LOSSY_CORRUPT} of extracted constraints",
                f"at most {GREEDY_MAX_CHANGES} changed variables per turn; drops oldest constraints when stuck")


def load_split(src: Path = SPLIT_DIR) -> list[ProblemDoc]:
    """The lite split's problems, in `problem_id` order."""
    problems = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(src.glob("*.json"))]
    return sorted(problems, key=lambda p: str(p["problem_id"]))


def prereg(digest: str, split: Split = LITE) -> dict[str, object]:
    """The pre-registration: profile `driftboard`, the split's digest, one declared run per method."""
    return {
        "format_version": "1.0",
        "submission_id": split.submission_id,
        "track": "constraint",
        "profile": "driftboard",
        "cells": {f"{MODEL}/{m}": {"flags": {}, "seeds": ["0"], "comparator": False, "description": d}
                  for m, d in zip(METHODS, DESCRIPTIONS, strict=True)},
        "problem_set": digest,
        "predictions": [
            {"id": "oracle-perfect", "text": "the oracle answers every turn correctly", "metric": "turn_accuracy",
             "cell": f"{MODEL}/oracle", "op": "==", "value": 1.0},
        ],
    }


def write(out: Path, src: Path | None = None, split: Split = LITE, limit: int | None = None) -> Path:
    """Write the submission folder into `out`; returns its path (`src`: the split's folder, by default its own).

    `limit` answers only the first `limit` problems (a test regenerates a prefix of a long log: every line
    up to the last answered problem is the committed log's, the run's header and digest included).
    """
    problems = load_split(src or split.folder)
    digest = problem_set_digest(problems)
    answered = problems[:limit] if limit is not None else problems
    sid = split.submission_id
    sub = SubmissionWriter(out, sid, prereg(digest, split))
    for n, method in enumerate(METHODS, start=1):
        start = {"run_id": f"{sid}-{method}-0", "track": "constraint", "cell": f"{MODEL}/{method}",
                 "seed": "0", "flags": {}, "backbone": BACKBONE, "started_at": started_at(10 + n),
                 "method": method, "problem_set": {"name": split.name, "digest": digest}}
        sub.run(f"runs/{method}-0{split.log_suffix}", start, functools.partial(run_method, method, answered),
                reason="all problems answered")
    sub.manifest({
        "title": f"Driftboard reference baselines on the {split.what} (reference baseline, no LLM)",
        "authors": [dict(AUTHOR)],
        "contact": CONTACT,
        "track": "constraint",
        "system": "driftboard scripted constraint baselines",
        "backbone": BACKBONE,
        "harness": harness(),
        "license": LICENSE,
        "synthetic": True,
        "description": (
            "Reference baseline generated by `driftboard baselines`; no LLM is involved. The four scripted "
            f"methods answer every turn of the {split.what} {split.name} ({len(problems)} problems; digest "
            f"{digest}; problems/{split.shown}/), pre-registered under the ranked profile driftboard: oracle "
            f"(gold ledger + Z3), recency-k (k={RECENCY_K}), lossy-ledger (drop {LOSSY_DROP}, corrupt "
            f"{LOSSY_CORRUPT}, seed {LOSSY_SEED}) and greedy-repair (at most {GREEDY_MAX_CHANGES} changes per turn)."
        ),
    })
    return sub.root


__all__ = ["LITE", "SPLIT_NAME", "SUBMISSION_ID", "Split", "load_split", "prereg", "write"]
