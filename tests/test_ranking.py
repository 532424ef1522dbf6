"""Ranked leaderboards (issue 16 item 1, issue 30): order, ties, undefined last with why, comparators out, unranked apart.

Each fixture cell carries its board verdict (`ranking`: key, units) set by hand here, with every seed or
problem at the cell's figure, so a paired test separates any two different figures and never two equal
ones: the expected rank ranges follow from the figures alone.
"""

from __future__ import annotations

from typing import Any

from site_fixtures import fixture_results

from checker.format.results_model import CellResult, ProblemSetRef, ResultsFile, RunResult
from checker.pipeline.boards import boards_document
from checker.render import ranking
from checker.render.pages import release_of
from checker.stages.boards import CellInput, cell_ranking

B = "constraint:lite:dddddddddddd:driftboard:p1"


KEYS = {"agent": {"track": "agent", "world": "world-a", "profile": "driftboard", "protocol": "1"},
        "constraint": {"track": "constraint", "split": "lite", "split_digest": "d" * 64, "profile": "driftboard",
                       "protocol": "1"}}
BOARD_IDS = {"agent": "agent:world-a:driftboard:p1", "constraint": "constraint:lite:dddddddddddd:driftboard:p1"}


def _ranking(track: str, v: float | None, n: int) -> dict[str, Any]:
    """A cell's board verdict: ranked with `n` seeds (or problems) each at `v`; not ranked when `v` is None."""
    if v is None:
        return {"board": BOARD_IDS[track], "key": KEYS[track], "ranked": False,
                "reason": "the ranking metric is undefined over the declared runs"}
    unit = "seed" if track == "agent" else "problem"
    return {"board": BOARD_IDS[track], "key": KEYS[track], "ranked": True, "unit": unit,
            "units": {f"{unit[0]}{i}": [v, 1.0] for i in range(n)}}


def _with_figures(r: ResultsFile, metric: str, figures: dict[str, float | None], **extra: Any) -> ResultsFile:
    """`r` with the all-declared `metric` and the board verdict of each named cell set by hand (other cells: no figure)."""
    data = r.model_dump(mode="json")
    for cell in data["cells"]:
        if cell["cell"] in figures:
            v = figures[cell["cell"]]
            cell["all_declared"] = {metric: {"value": v, "worst": 1.0, "n_declared": 5, "n_worst": 0,
                                             "n_undefined": 5 if v is None else 0, "values": {}}}
            cell["n_declared"] = 5
            cell["ranking"] = _ranking(r.track, v, 5)
        else:
            cell["all_declared"] = {}
            cell["n_declared"] = 0
            cell["ranking"] = None
    data.update({"ranked": True, **extra})
    return ResultsFile.model_validate(data)


def _board(track: str, results: list[ResultsFile]) -> ranking.Board:
    """The track's board over `results`, ranked by their boards document (as `driftboard build` computes it)."""
    return ranking.board(track, results, doc=boards_document(results))


def _agent_pair() -> list[ResultsFile]:
    a, b = (r for r in fixture_results() if r.track == "agent" and r.submission_id in ("synthetic-0000", "synthetic-0001"))
    # lower drift_total is better: expected order 0.2 (b/J0), 0.3 (a/FULL), 0.3 (b/FULL) tied, 0.9 (a/J0)
    return [_with_figures(a, "drift_total", {"FULL": 0.3, "J0": 0.9, "A0": None}),
            _with_figures(b, "drift_total", {"FULL": 0.3, "J0": 0.2})]


def test_agent_ranked_ascending_with_ties_and_undefined_last() -> None:
    b = _board("agent", _agent_pair())
    order = [(x["rank_best"], x["submission_id"], x["cell"]) for x in b.table.rows]
    assert order[:4] == [(1, "synthetic-0001", "J0"), (2, "synthetic-0000", "FULL"), (2, "synthetic-0001", "FULL"),
                         (4, "synthetic-0000", "J0")]
    # the tie shares its range (2–3); the rows either side are separated from it
    assert [x["rank"] for x in b.table.rows[:4]] == ["1", "2–3", "2–3", "4"]
    unranked = [(x["rank"], x["submission_id"], x["cell"]) for x in b.table.rows[4:]]
    assert all(rank is None for rank, _s, _c in unranked)
    assert ("synthetic-0000", "A0") in {(s, c) for _r, s, c in unranked}
    assert b.leaders == [x for x in b.table.rows if x["rank_best"] == 1] and b.leaders[0]["figure"] == 0.2
    assert [x["rank"] for x in b.leaders] == ["1"]
    assert b.n_ranked == 4


def test_undefined_rows_say_why_and_comparators_are_left_out() -> None:
    b = _board("agent", _agent_pair())
    rows = {(x["submission_id"], x["cell"]): x for x in b.table.rows}
    assert all(c != "BARE" for _s, c in rows)  # the comparator cell is not a drift result
    assert rows[("synthetic-0000", "A0")]["why"].startswith("undefined")
    assert rows[("synthetic-0000", "J0A0")]["why"] == "undefined: no declared seeds (no pre-registration)"
    assert rows[("synthetic-0000", "FULL")]["why"] == ""


def test_undefined_because_no_reference_beats() -> None:
    undefined = next(r for r in fixture_results() if r.submission_id == "undefined-case")
    rows = ranking.board("agent", [undefined]).table.rows
    assert rows and all(x["rank"] is None and x["why"].startswith("undefined: ") for x in rows)
    # cells with valid runs: every valid run had 0 reference beats; a cell without one says that instead
    for x in rows:
        valid = [run for run in undefined.runs if run.cell == x["cell"] and run.verdict == "VALID"]
        assert x["why"] == ("undefined: 0 reference beats" if valid else "undefined: no valid run")
    assert any(x["why"] == "undefined: 0 reference beats" for x in rows)


def test_constraint_ranked_descending() -> None:
    r = next(r for r in fixture_results() if r.track == "constraint")
    cells = [c.cell for c in r.cells]
    ranked = _with_figures(r, "turn_accuracy", {cells[0]: 0.5, cells[1]: 0.75, cells[2]: 0.25, cells[3]: 0.75})
    b = _board("constraint", [ranked])
    assert [(x["rank_best"], x["cell"]) for x in b.table.rows] == [
        (1, min(cells[1], cells[3])), (1, max(cells[1], cells[3])), (3, cells[0]), (4, cells[2])]
    assert [x["rank"] for x in b.table.rows] == ["1–2", "1–2", "3", "4"]
    assert "higher is better ↑" in b.table.caption


def test_unranked_submissions_are_listed_apart() -> None:
    a, b = _agent_pair()
    reason = "prereg written after the runs"
    cells = [c.model_copy(update={"ranking": c.ranking.model_copy(update={"ranked": False, "reason": reason,
                                                                           "unit": None, "units": {}})})
             if c.ranking is not None else c for c in b.cells]
    excluded = b.model_copy(update={"ranked": False, "unranked_reason": reason, "cells": cells})
    board = _board("agent", [a, excluded])
    assert {x["submission_id"] for x in board.table.rows} == {"synthetic-0000"}
    assert {x["submission_id"] for x in board.unranked.rows} == {"synthetic-0001"}
    assert all(x["why"] == "not ranked: prereg written after the runs" for x in board.unranked.rows)
    assert all(x["rank"] is None for x in board.unranked.rows)
    assert board.excluded_because == [("not ranked: prereg written after the runs", len(board.unranked.rows))]


def test_columns_put_the_decomposition_right_after_the_cell() -> None:
    # the ranked figure's block (rank range, board, cell, figure, its interval and n, who) then the decomposition
    # (issue 30 item 2: after the rank, the model(s), the tokens derived from the logs and the cost where a price
    # is declared)
    head = ["rank", "board", "cell", "figure", "ci95", "n", "models", "tokens", "cost"]
    keys = [c.key for c in ranking.columns("agent", "drift_total")]
    assert keys[:13] == [*head, "drift_total", "gds_bind", "gds_abandon", "gds_aligned"]
    labels = {c.key: c.label for c in ranking.columns("agent", "drift_total")}
    assert labels["figure"].startswith("drift_total ↓")
    keys_c = [c.key for c in ranking.columns("constraint", "complete_accuracy")]
    # the reference code's partial credit beside the ranked figure, then the decomposition (issue 29)
    assert keys_c[:14] == [*head, "turn_accuracy", "consistent_share", "drift_share", "contradiction_share",
                           "other_share"]
    labels_c = {c.key: c.label for c in ranking.columns("constraint", "complete_accuracy")}
    assert labels_c["turn_accuracy"] == "turn_accuracy ↑ all declared (conformance, unranked)"


def test_release_is_the_newest_verification_and_its_commit() -> None:
    a, b = _agent_pair()
    a = a.model_copy(update={"provenance": a.provenance.model_copy(update={"verified": "2026-03-01", "commit": "a" * 40})})
    b = b.model_copy(update={"provenance": b.provenance.model_copy(update={"verified": "2026-04-02", "commit": "b" * 40})})
    assert release_of([a, b]) == {"id": "2026-04-02+bbbbbbb", "as_of": "2026-04-02"}
    assert release_of([]) == {"id": "unreleased (results not committed)", "as_of": None}


def test_small_n_rows_follow_the_ranked_ones_marked() -> None:
    # the board ranks 0.7 then 0.5; the small-n 0.9 has no rank (its cell does not cover its split)
    rows = [
        {"figure": 0.9, "small_n": True, "submission_id": "a", "cell": "x", "rank": None, "rank_best": None, "board": B},
        {"figure": 0.5, "small_n": False, "submission_id": "b", "cell": "y", "rank": "2", "rank_best": 2, "board": B},
        {"figure": None, "small_n": False, "submission_id": "c", "cell": "z", "rank": None, "rank_best": None,
         "board": B},
        {"figure": 0.7, "small_n": False, "submission_id": "d", "cell": "w", "rank": "1", "rank_best": 1, "board": B}]
    out = ranking.rank_rows(rows, higher=True)
    # higher is better: 0.7 then 0.5 ranked; the small-n 0.9 is not listed above them; undefined last
    assert [(x["submission_id"], x["rank"]) for x in out] == [("d", "1"), ("b", "2"), ("a", None), ("c", None)]


def test_a_small_n_row_follows_every_unranked_row_with_a_figure() -> None:
    # neither ranks; the small-n row has the better figure (0.9, higher is better) but the less evidence
    rows = [
        {"figure": 0.9, "small_n": True, "submission_id": "a", "cell": "x", "rank": None, "rank_best": None, "board": B},
        {"figure": 0.4, "small_n": False, "submission_id": "b", "cell": "y", "rank": None, "rank_best": None,
         "board": B}]
    assert [x["submission_id"] for x in ranking.rank_rows(rows, higher=True)] == ["b", "a"]


def _leader(board: str, rank: str, cell: str) -> dict[str, Any]:
    return {"board": board, "board_label": f"label of {board}", "rank": rank, "rank_best": 1, "cell": cell}


def test_a_few_leaders_are_listed_a_tie_of_many_is_one_line() -> None:
    leaders = [_leader("b1", "1", "x"), _leader("b1", "1–2", "y"),
               *[_leader("b2", "1–5", f"c{i}") for i in range(4)], _leader("b2", "1–7", "c4")]
    g1, g2 = ranking.leader_groups(leaders)  # type: ignore[arg-type]
    # board b1: two rows ranked first, each listed with its own range
    assert (g1["board_label"], [x["cell"] for x in g1["rows"]], g1["tied"], g1["ranks"]) == (
        "label of b1", ["x", "y"], 0, "1 to 1–2")
    # board b2: five rows share rank 1 (more than LEADERS_LISTED = 3): the first (best figure) stands for them
    assert ranking.LEADERS_LISTED == 3
    assert (g2["board_label"], [x["cell"] for x in g2["rows"]], g2["tied"], g2["ranks"]) == (
        "label of b2", ["c0"], 5, "1–5 to 1–7")
    assert ranking.leader_groups([]) == []


def test_a_cell_short_of_its_split_is_not_ranked() -> None:
    # one VALID run answering 100 of 200 turns of the split it pre-registered: listed, never ranked
    cell = CellResult(result_id="s/c", cell="c", runs=1, valid_runs=1, n_declared=1)
    run = RunResult(path="r.jsonl", run_id="r", track="constraint", cell="c", seed="s1", verdict="VALID",
                    problem_set=ProblemSetRef(name="lite", digest="d" * 64),
                    metrics={"problems_covered": 5, "problems_in_set": 10, "turns": 100, "turns_in_set": 200})
    verdict = cell_ranking(CellInput(track="constraint", profile="driftboard", submission_ranked=True,
                                     unranked_reason=None, prereg_problem_set="d" * 64, cell=cell, runs=[run],
                                     rank_metric="turn_accuracy"))
    assert not verdict.ranked and verdict.reason is not None and verdict.reason.startswith("covers 5 of 10 problems")
