"""Boards: hand-computed intervals and paired tests, a tie and a separation, and rows of different keys never sharing a rank.

Expectations are computed by hand here (binomial sums, the Wilson formula's published values), never
read from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.format.boards_model import (
    ComparisonDoc,
    parse_comparisons,
    publish_comparisons,
    read_boards,
    read_comparisons,
)
from checker.format.errors import UsageError
from checker.format.results_io import canonical_json
from checker.format.results_model import CellRanking, CellResult
from checker.pipeline.boards import board_docs, boards_and_comparisons, write_boards
from checker.stages.boards import MIN_SEEDS, TRACKS, CellInput, board_id, cell_ranking
from checker.stages.statistics import mcnemar_exact, wilson


def test_wilson_matches_the_published_interval() -> None:
    # 8 of 10: Wilson 95% interval 0.4902 to 0.9433 (Newcombe 1998, table I, and every textbook since)
    lo, hi = wilson(8, 10) or (math.nan, math.nan)
    assert round(lo, 4) == 0.4902 and round(hi, 4) == 0.9433
    # 0 of 10 keeps its upper bound away from 0 (where a percentile bootstrap collapses to [0, 0])
    lo, hi = wilson(0, 10) or (math.nan, math.nan)
    assert lo == 0.0 and round(hi, 4) == 0.2775


def test_exact_mcnemar_by_hand() -> None:
    # 1 unit only a succeeds, 9 only b: p = 2 * (C(10,0) + C(10,1)) / 2^10 = 22 / 1024
    a = [True] * 1 + [False] * 9 + [True] * 5
    b = [False] * 1 + [True] * 9 + [True] * 5
    assert mcnemar_exact(a, b) == 22 / 1024
    # 3 and 3 discordant: 2 * P(Binomial(6, 1/2) <= 3) = 2 * 42 / 64 > 1, so 1
    assert mcnemar_exact([True] * 3 + [False] * 3, [False] * 3 + [True] * 3) == 1.0


def _cell(sid: str, name: str, board: str, units: dict[str, list[float]], unit: str,
          key: dict[str, str] | None = None) -> CellResult:
    ranking = CellRanking(board=board, key=key or _key(board), ranked=True, unit=unit, units=units)
    return CellResult(result_id=f"{sid}/{name}", cell=name, runs=1, valid_runs=1, ranking=ranking)


def _key(board: str) -> dict[str, str]:
    track, env, profile, protocol = board.split(":")
    name = TRACKS[track].environment[0]
    return {"track": track, name: env, "profile": profile, "protocol": protocol.removeprefix("p")}


def _sub(sid: str, *cells: CellResult) -> SimpleNamespace:
    return SimpleNamespace(submission_id=sid, cells=list(cells), runs=[])


def _comparisons(subs: list[SimpleNamespace]) -> dict[str, list[ComparisonDoc]]:
    """Board id -> its comparisons, read back from the text of its comparisons file."""
    docs, files = boards_and_comparisons(subs)  # type: ignore[arg-type]
    return {d["id"]: parse_comparisons(files[d["comparisons"]["file"]]) for d in docs}


AGENT = "agent:world-a:driftboard:p1"
LITE = "constraint:lite:driftboard:p1"


def test_a_tie_shares_a_rank_range() -> None:
    # drift_total (lower is better) over five seeds: 0.30 vs 0.31 with noise, no paired difference to speak of
    a = {f"s{i}": [v, 1.0] for i, v in enumerate([0.2, 0.4, 0.3, 0.25, 0.35])}
    b = {f"s{i}": [v, 1.0] for i, v in enumerate([0.35, 0.25, 0.3, 0.4, 0.25])}
    subs = [_sub("x", _cell("x", "A", AGENT, a, "seed"), _cell("x", "B", AGENT, b, "seed"))]
    [doc] = board_docs(subs)
    assert [row["rank"] for row in doc["rows"]] == ["1–2", "1–2"]
    assert all(row["ci95"] is not None for row in doc["rows"])  # five seeds: a bootstrap interval
    [cmp] = _comparisons(subs)[AGENT]
    assert cmp["test"] == "paired bootstrap" and not cmp["significant"] and cmp["shared"] == 5


def test_a_separation_pins_the_ranks() -> None:
    # turn accuracy per problem, one turn each (binary): 30 of 30 right against 5 of 30, on the same problems
    good = {f"p{i:02d}": [1.0, 1.0] for i in range(30)}
    bad = {f"p{i:02d}": [1.0 if i < 5 else 0.0, 1.0] for i in range(30)}
    subs = [_sub("y", _cell("y", "good", LITE, good, "problem"), _cell("y", "bad", LITE, bad, "problem"))]
    [doc] = board_docs(subs)
    assert [(row["cell"], row["rank"]) for row in doc["rows"]] == [("good", "1"), ("bad", "2")]
    [cmp] = _comparisons(subs)[LITE]  # read back from the CSV: p survives the text exactly
    assert cmp == {"a": "y/bad", "b": "y/good", "shared": 30, "test": "exact McNemar", "p": 2 / 2**25,
                   "significant": True}  # 25 discordant, all one way
    assert doc["comparisons"]["pairs"] == 1 and doc["comparisons"]["significant"] == 1
    assert doc["rows"][1]["interval"].startswith("cluster bootstrap")  # 5 of 30: problems resampled
    assert doc["rows"][0]["interval"].startswith("Wilson")  # 30 of 30: a bootstrap would collapse to [1, 1]
    lo, hi = doc["rows"][0]["ci95"] or [math.nan, math.nan]
    assert hi == 1.0 and round(lo, 4) == 0.8865  # Wilson 30 of 30: 30 / (30 + 1.96^2) = 0.8865


def test_few_problems_fall_back_to_wilson() -> None:
    units = {"p1": [3.0, 4.0], "p2": [2.0, 4.0]}  # 5 of 8 turns, two problems
    [doc] = board_docs([_sub("z", _cell("z", "c", LITE, units, "problem"))])
    lo, hi = doc["rows"][0]["ci95"] or [math.nan, math.nan]
    w = wilson(5, 8)
    assert w is not None and (round(lo, 9), round(hi, 9)) == (round(w[0], 9), round(w[1], 9))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["agent:w1:driftboard:p1", "agent:w2:driftboard:p1",
                                           "constraint:lite:driftboard:p1"]),
                          st.lists(st.floats(0, 1), min_size=5, max_size=5)), min_size=1, max_size=8))
def test_rows_of_different_keys_never_share_a_rank(rows: list[tuple[str, list[float]]]) -> None:
    cells = [_cell("s", f"c{i}", board, {f"u{j}": [v, 1.0] for j, v in enumerate(values)},
                   TRACKS[board.split(":")[0]].unit) for i, (board, values) in enumerate(rows)]
    docs = board_docs([_sub("s", *cells)])
    comparisons = _comparisons([_sub("s", *cells)])
    seen: dict[str, str] = {}
    for doc in docs:
        size = len(doc["rows"])
        assert size == sum(1 for board, _ in rows if board == doc["id"])
        for row in doc["rows"]:
            assert seen.setdefault(row["result_id"], doc["id"]) == doc["id"]  # one board per row
            assert 1 <= row["rank_best"] <= row["rank_worst"] <= size  # ranks count this board's rows only
        assert len(comparisons[doc["id"]]) == doc["comparisons"]["pairs"] == size * (size - 1) // 2
        for cmp in comparisons[doc["id"]]:
            assert seen[cmp["a"]] == seen[cmp["b"]] == doc["id"]  # never compared across keys


def _input(track: str, n_declared: int, comparator: bool = False, ranked: bool = True) -> CellInput:
    cell = CellResult(result_id="s/c", cell="c", runs=n_declared, valid_runs=n_declared, n_declared=n_declared,
                      comparator=comparator)
    return CellInput(track=track, profile="driftboard", submission_ranked=ranked, unranked_reason=None if ranked
                     else "the pre-registration loosens gate thresholds", prereg_problem_set=None, cell=cell,
                     runs=[SimpleNamespace(game_id="world-a", cell="c")], rank_metric="drift_total")  # type: ignore[list-item]


def test_agent_cells_need_five_declared_seeds() -> None:
    few = cell_ranking(_input("agent", MIN_SEEDS - 1))
    assert not few.ranked and few.reason == f"{MIN_SEEDS - 1} declared seeds; the agent board ranks cells with at least 5"
    assert few.board == board_id({"track": "agent", "world": "world-a", "profile": "driftboard", "protocol": "1"})
    assert not cell_ranking(_input("agent", 6, comparator=True)).ranked
    excluded = cell_ranking(_input("agent", 6, ranked=False))
    assert excluded.reason == "the pre-registration loosens gate thresholds"


def test_a_name_never_opens_a_board_of_its_own() -> None:
    """Two cells on the same problems (one digest) share a board whatever their runs call the split."""
    digest = "c97c5fc3c39e9faa136cb9340687ddff0a1180a5dfcf7aedf9f48be0cd045001"
    keys = [{"track": "constraint", "split": name, "split_digest": digest, "profile": "driftboard", "protocol": "1"}
            for name in ("drift-bench-v1-lite", "OFFICIAL-full-split")]
    assert board_id(keys[0]) == board_id(keys[1]) == "constraint:c97c5fc3c39e:driftboard:p1"
    other = {**keys[0], "split_digest": "ed6f3c57e5a7" + "0" * 52}
    assert board_id(other) == "constraint:ed6f3c57e5a7:driftboard:p1" != board_id(keys[0])
    units = {f"p{j}": [1.0, 1.0] for j in range(6)}
    cells = [_cell("s", f"c{i}", board_id(k), units, "problem", key=k) for i, k in enumerate(keys)]
    (doc,) = board_docs([_sub("s", *cells)])
    assert [r["result_id"] for r in doc["rows"]] == ["s/c0", "s/c1"] and doc["rows"][0]["rank"] == "1–2"
    # the board's label names every name its runs gave the split, sorted
    assert doc["key"]["split"] == "OFFICIAL-full-split / drift-bench-v1-lite"
    assert "split OFFICIAL-full-split / drift-bench-v1-lite · split digest c97c5fc3c39e…" in doc["label"]


# --------------------------------------------------------------------------- comparisons in files of their own


def _separated() -> list[SimpleNamespace]:
    good = {f"p{i:02d}": [1.0, 1.0] for i in range(30)}
    bad = {f"p{i:02d}": [1.0 if i < 5 else 0.0, 1.0] for i in range(30)}
    return [_sub("y", _cell("y", "good", LITE, good, "problem"), _cell("y", "bad", LITE, bad, "problem"),
                 _cell("y", "odd,\"name", LITE, bad, "problem"))]


def test_comparisons_are_written_beside_boards_json_and_named_with_their_digest(tmp_path: Path) -> None:
    names = write_boards(_separated(), tmp_path)  # type: ignore[arg-type]
    file = "comparisons-" + hashlib.sha256(LITE.encode()).hexdigest()[:16] + ".csv"
    assert names == ["boards.json", file] and sorted(p.name for p in tmp_path.iterdir()) == names
    raw = (tmp_path / file).read_bytes()
    # by hand: ids sorted (y/bad, y/good, y/odd,"name), pairs in that order; bad and odd are the same outcomes, so
    # their McNemar has no discordant unit (p = 1); against good, 25 discordant all one way: p = 2 / 2^25, and
    # Holm over 3 p-values rejects the two at 2 / 2^25 (< 0.05 / 3 and < 0.05 / 2) and not the 1 (> 0.05)
    p = repr(2 / 2**25)
    assert p == "5.960464477539063e-08"
    assert raw.decode() == ("a,b,shared,test,p,significant\r\n"
                            f"y/bad,y/good,30,exact McNemar,{p},true\r\n"
                            "y/bad,\"y/odd,\"\"name\",30,exact McNemar,1.0,false\r\n"
                            f"y/good,\"y/odd,\"\"name\",30,exact McNemar,{p},true\r\n")
    doc = json.loads((tmp_path / "boards.json").read_text())
    assert doc["boards_format"] == "2.0"
    [board] = doc["boards"]
    assert board["comparisons"] == {"file": file, "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
                                    "pairs": 3, "significant": 2}
    assert read_comparisons(tmp_path, board) == [
        {"a": "y/bad", "b": "y/good", "shared": 30, "test": "exact McNemar", "p": 2 / 2**25, "significant": True},
        {"a": "y/bad", "b": "y/odd,\"name", "shared": 30, "test": "exact McNemar", "p": 1.0, "significant": False},
        {"a": "y/good", "b": "y/odd,\"name", "shared": 30, "test": "exact McNemar", "p": 2 / 2**25,
         "significant": True}]
    # boards.json's digest covers the reference, so the comparisons are part of what it digests
    assert doc["digest"] == hashlib.sha256(canonical_json({k: v for k, v in doc.items() if k != "digest"})
                                           .encode()).hexdigest()
    again = tmp_path / "again"
    write_boards(_separated(), again)  # type: ignore[arg-type]
    assert {p.name: p.read_bytes() for p in again.iterdir()} == {p.name: p.read_bytes() for p in tmp_path.iterdir()
                                                                 if p.is_file()}


@pytest.mark.parametrize("attack", ["same-size", "appended", "missing", "path", "link"])
def test_a_comparisons_file_that_is_not_the_one_boards_json_names_is_refused(tmp_path: Path, attack: str) -> None:
    write_boards(_separated(), tmp_path)  # type: ignore[arg-type]
    doc = read_boards(tmp_path)
    [board] = doc["boards"]
    path = tmp_path / board["comparisons"]["file"]
    raw = path.read_bytes()
    if attack == "same-size":
        path.write_bytes(raw.replace(b"true", b"fals").replace(b"fals\r\n", b"true\r\n", 1))
    elif attack == "appended":
        path.write_bytes(raw + b"y/bad,y/good,30,exact McNemar,0.5,false\r\n")
    elif attack == "missing":
        path.unlink()
    elif attack == "link":  # the same bytes, digest and size, but a link out of the results folder: never followed
        outside = tmp_path.parent / f"{tmp_path.name}-outside.csv"
        outside.write_bytes(raw)
        path.unlink()
        path.symlink_to(outside)
    else:
        board["comparisons"]["file"] = "../" + board["comparisons"]["file"]
    with pytest.raises(UsageError):
        read_comparisons(tmp_path, board)
    with pytest.raises(UsageError):
        publish_comparisons(tmp_path, doc, tmp_path / "site")
    assert not any((tmp_path / "site").glob("*.csv"))  # nothing published


def test_a_stale_comparisons_file_is_removed(tmp_path: Path) -> None:
    stale = tmp_path / "comparisons-0123456789abcdef.csv"
    tmp_path.mkdir(exist_ok=True)
    stale.write_text("a,b,shared,test,p,significant\r\n")
    names = write_boards(_separated(), tmp_path)  # type: ignore[arg-type]
    assert not stale.exists() and sorted(p.name for p in tmp_path.iterdir()) == names


def test_parse_comparisons_refuses_what_is_not_one() -> None:
    for text in ("", "a,b\r\n", "a,b,shared,test,p,significant\r\nx,y,1,t,0.5,maybe\r\n",
                 "a,b,shared,test,p,significant\r\nx,y,one,t,0.5,true\r\n"):
        with pytest.raises(UsageError):
            parse_comparisons(text)
