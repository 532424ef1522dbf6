"""The boards document (`boards.json`, written by `checker.pipeline.boards` beside `index.json`): its shape and reader.

The renderer reads boards through this module only (it never imports the pipeline that computes them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from checker.format.results_io import BOARDS
from checker.format.results_model import CellRanking, CellResult, ResultsSummary


class BoardRowDoc(TypedDict):
    """One ranked row of a board."""

    result_id: str
    submission_id: str
    cell: str
    figure: float
    n: int
    """Units the figure pools (seeds or problems)."""
    turns: int | None
    """Constraint: the turns the problems hold over every declared run."""
    ci95: list[float] | None
    interval: str
    """How the interval was computed, or why there is none."""
    rank_best: int
    rank_worst: int
    rank: str
    """`1` or `1–2`."""


class ComparisonDoc(TypedDict):
    """One paired comparison of two rows of a board."""

    a: str
    b: str
    shared: int
    test: str
    p: float
    significant: bool
    """Rejected by Holm's procedure across the board."""


class BoardDoc(TypedDict):
    """One board: its key, rule, methods and rows (best first)."""

    id: str
    key: dict[str, str]
    label: str
    track: str
    rule: str
    metric: str
    higher_is_better: bool
    unit: str
    rows: list[BoardRowDoc]
    comparisons: list[ComparisonDoc]
    unranked: list[dict[str, str]]
    """Cells with this key that do not rank here: result id and reason."""


class BoardsDocument(TypedDict):
    """`boards.json`."""

    boards_format: str
    checker_version: str
    rank_meaning: str
    boards: list[BoardDoc]
    ranked_models: list[str]
    """Language models ranked on any board (derived from the logs); empty: none is ranked yet."""
    digest: str


EMPTY: BoardsDocument = {"boards_format": "1.0", "checker_version": "", "rank_meaning": "", "boards": [],
                        "ranked_models": [], "digest": ""}
"""No boards (a results folder without `boards.json`): nothing is ranked."""


def read_boards(results_dir: Path) -> BoardsDocument:
    """`<results_dir>/boards.json`, or `EMPTY` when the folder has none."""
    path = results_dir / BOARDS
    if not path.is_file():
        return EMPTY
    doc: BoardsDocument = json.loads(path.read_text(encoding="utf-8"))
    return doc


NO_LLM = "no LLM — scripted"


def cell_models(r: ResultsSummary, c: CellResult) -> list[str]:
    """The language models behind a cell as its logs show them: backbones of runs that record model calls."""
    runs = [run for run in r.runs if run.cell == c.cell]
    out = set()
    for run in runs:
        calls = run.metric("llm_calls")
        if run.track == "agent" and not calls:
            continue
        if run.backbone and "scripted" not in run.backbone.lower() and "no llm" not in run.backbone.lower():
            out.add(run.backbone)
    return sorted(out)


DECLARED = " (declared)"
"""Appended to a model or backbone the logs do not record: it is only the submitter's word."""


def cell_model_labels(r: ResultsSummary, c: CellResult) -> list[str]:
    """`cell_models`, each marked "declared" unless a run of the cell records it (`RunResult.model_recorded`)."""
    recorded = {run.model_recorded for run in r.runs if run.cell == c.cell}
    return [m if m in recorded else m + DECLARED for m in cell_models(r, c)]


def backbone_label(r: ResultsSummary, backbone: str) -> str:
    """The manifest's backbone, marked "declared" unless a run of the submission records it."""
    return backbone if backbone in {run.model_recorded for run in r.runs} else backbone + DECLARED


def ranking_line(r: CellRanking | None) -> str:
    """`ranked on board K` or `not ranked: reason` (what verify and ci print per cell)."""
    if r is None:
        return "not ranked: no board verdict in this results file"
    if r.ranked:
        return f"ranked on board {r.board}"
    return f"not ranked: {r.reason}" + (f" (board {r.board})" if r.board else "")


__all__ = ["BOARDS", "DECLARED", "EMPTY", "NO_LLM", "BoardDoc", "BoardRowDoc", "BoardsDocument", "ComparisonDoc",
           "backbone_label", "cell_model_labels", "cell_models", "ranking_line", "read_boards"]
