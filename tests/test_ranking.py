"""Ranked leaderboards (issue 16 item 1): order, ties, undefined last with why, comparators out, unranked apart."""

from __future__ import annotations

from typing import Any

from site_fixtures import fixture_results

from checker.format.results_model import ResultsFile
from checker.render import ranking
from checker.render.pages import release_of


def _with_figures(r: ResultsFile, metric: str, figures: dict[str, float | None], **extra: Any) -> ResultsFile:
    """`r` with the all-declared `metric` of each named cell set by hand (other cells: no figure)."""
    data = r.model_dump(mode="json")
    for cell in data["cells"]:
        if cell["cell"] in figures:
            v = figures[cell["cell"]]
            cell["all_declared"] = {metric: {"value": v, "worst": 1.0, "n_declared": 3, "n_worst": 0,
                                             "n_undefined": 3 if v is None else 0, "values": {}}}
            cell["n_declared"] = 3
        else:
            cell["all_declared"] = {}
            cell["n_declared"] = 0
    data.update({"ranked": True, **extra})
    return ResultsFile.model_validate(data)


def _agent_pair() -> list[ResultsFile]:
    a, b = (r for r in fixture_results() if r.track == "agent" and r.submission_id in ("synthetic-0000", "synthetic-0001"))
    # lower drift_total is better: expected order 0.2 (b/J0), 0.3 (a/FULL), 0.3 (b/FULL) tied, 0.9 (a/J0)
    return [_with_figures(a, "drift_total", {"FULL": 0.3, "J0": 0.9, "A0": None}),
            _with_figures(b, "drift_total", {"FULL": 0.3, "J0": 0.2})]


def test_agent_ranked_ascending_with_ties_and_undefined_last() -> None:
    b = ranking.board("agent", _agent_pair())
    order = [(x["rank"], x["submission_id"], x["cell"]) for x in b.table.rows]
    assert order[:4] == [(1, "synthetic-0001", "J0"), (2, "synthetic-0000", "FULL"), (2, "synthetic-0001", "FULL"),
                         (4, "synthetic-0000", "J0")]
    unranked = order[4:]
    assert all(rank is None for rank, _s, _c in unranked)
    assert ("synthetic-0000", "A0") in {(s, c) for _r, s, c in unranked}
    assert b.leaders == [x for x in b.table.rows if x["rank"] == 1] and b.leaders[0]["figure"] == 0.2
    assert b.n_ranked == 4


def test_undefined_rows_say_why_and_comparators_are_left_out() -> None:
    b = ranking.board("agent", _agent_pair())
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
    b = ranking.board("constraint", [ranked])
    assert [(x["rank"], x["cell"]) for x in b.table.rows] == [
        (1, min(cells[1], cells[3])), (1, max(cells[1], cells[3])), (3, cells[0]), (4, cells[2])]
    assert "higher is better ↑" in b.table.caption


def test_unranked_submissions_are_listed_apart() -> None:
    a, b = _agent_pair()
    excluded = b.model_copy(update={"ranked": False, "unranked_reason": "prereg written after the runs"})
    board = ranking.board("agent", [a, excluded])
    assert {x["submission_id"] for x in board.table.rows} == {"synthetic-0000"}
    assert {x["submission_id"] for x in board.unranked.rows} == {"synthetic-0001"}
    assert all(x["why"] == "not ranked: prereg written after the runs" for x in board.unranked.rows)
    assert all(x["rank"] is None for x in board.unranked.rows)
    assert board.excluded_because == [("not ranked: prereg written after the runs", len(board.unranked.rows))]


def test_columns_put_the_decomposition_right_after_the_cell() -> None:
    keys = [c.key for c in ranking.columns("agent", "drift_total")]
    assert keys[:7] == ["rank", "cell", "figure", "drift_total", "gds_bind", "gds_abandon", "gds_aligned"]
    labels = {c.key: c.label for c in ranking.columns("agent", "drift_total")}
    assert labels["figure"].startswith("drift_total ↓")
    keys_c = [c.key for c in ranking.columns("constraint", "turn_accuracy")]
    assert keys_c[:7] == ["rank", "cell", "figure", "consistent_share", "drift_share", "contradiction_share",
                          "other_share"]


def test_release_is_the_newest_verification_and_its_commit() -> None:
    a, b = _agent_pair()
    a = a.model_copy(update={"provenance": a.provenance.model_copy(update={"verified": "2026-03-01", "commit": "a" * 40})})
    b = b.model_copy(update={"provenance": b.provenance.model_copy(update={"verified": "2026-04-02", "commit": "b" * 40})})
    assert release_of([a, b]) == {"id": "2026-04-02+bbbbbbb", "as_of": "2026-04-02"}
    assert release_of([]) == {"id": "unreleased (results not committed)", "as_of": None}


def test_small_n_rows_follow_the_ranked_ones_marked() -> None:
    rows = [{"figure": 0.9, "small_n": True, "submission_id": "a", "cell": "x", "rank": None},
            {"figure": 0.5, "small_n": False, "submission_id": "b", "cell": "y", "rank": None},
            {"figure": None, "small_n": False, "submission_id": "c", "cell": "z", "rank": None},
            {"figure": 0.7, "small_n": False, "submission_id": "d", "cell": "w", "rank": None}]
    out = ranking.rank_rows(rows, higher=True)
    # higher is better: 0.7 then 0.5 ranked; the small-n 0.9 is not ranked above them; undefined last
    assert [(x["submission_id"], x["rank"]) for x in out] == [("d", 1), ("b", 2), ("a", None), ("c", None)]
