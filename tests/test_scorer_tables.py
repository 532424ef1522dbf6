"""A cell page's scorer tables (issue 31): the stored per-cell tables as HTML tables, not JSON in a code block."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from bs4 import BeautifulSoup
from site_fixtures import fixture_results

from checker.format.numbers import fmt
from checker.render.paths import cell_path, url_of
from checker.render.scorer_tables import scorer_tables
from checker.render.tables import Table

STORED = {
    "track": "constraint",
    "runs": 2,
    "seeds": ["s1", "s2"],
    "overall": {"turns": 10, "rate": 0.5},
    "GA": {"mean": None, "n": 2, "per_seed": [None, 0.25]},
    "WER": {"mean": 0.1, "n": 2, "per_seed": [0.1, 0.1]},
    "by_domain": {"seating": {"turns": 4, "rate": 0.25}, "logic_grid": {"turns": 6, "rate": 0.75}},
    "by_depth": {"bins": [{"bin": "1-3", "n": 7}, {"bin": "4-6", "n": 3}], "note": "x"},
    "empty": {},
}


def _view(t: Table) -> tuple[str, str, list[str], list[list[object]]]:
    return t.name, t.caption, [c.label for c in t.columns], [[row.get(c.key) for c in t.columns] for row in t.rows]


def test_nested_values_become_tables_and_nothing_is_left_out() -> None:
    tables = [_view(t) for t in scorer_tables(STORED)]
    assert tables == [
        # every value that is no record of a table below: one row each, named by its path (a lone record's fields
        # by name, as the run pages list a nested metric)
        ("scorer-values", "Scorer tables: every value not in a table below (a nested value named by its path)",
         ["name", "value"],
         [["track", "constraint"], ["runs", 2], ["seeds", "s1, s2"], ["overall › rate", 0.5], ["overall › turns", 10],
          ["by_depth › note", "x"], ["empty", None]]),
        # two sibling records with the same fields: one row each (a list of numbers in one cell)
        ("scorer-mean-n-per_seed", "Scorer table 2 records with the same fields (mean, n, per_seed): one row per record",
         ["name", "mean", "n", "per_seed"], [["GA", None, 2, "—, 0.25"], ["WER", 0.1, 2, "0.1, 0.1"]]),
        # a mapping of records: one row per entry, in the stored order
        ("scorer-by_domain", "Scorer table by_domain: one row per entry", ["by_domain", "turns", "rate"],
         [["seating", 4, 0.25], ["logic_grid", 6, 0.75]]),
        # a list of records: one row per item, numbered
        ("scorer-by_depth-bins", "Scorer table by_depth › bins: one row per item, in order", ["#", "bin", "n"],
         [[1, "1-3", 7], [2, "4-6", 3]]),
    ]
    assert scorer_tables({}) == []


def test_records_with_many_fields_are_turned_on_their_side() -> None:
    wide = {f"f{i:02}": i for i in range(13)}
    (t,) = scorer_tables({"by_domain": {"a": wide, "b": {**wide, "f00": None}}})
    assert _view(t)[1:3] == ("Scorer table by_domain: one row per field, one column per entry", ["field", "a", "b"])
    assert [row["field"] for row in t.rows] == list(wide)
    assert t.rows[0] == {"field": "f00", "a": 0, "b": None} and t.rows[12] == {"field": "f12", "a": 12, "b": 12}
    assert all(c.numeric for c in t.columns[1:])


def test_cell_page_shows_its_scorer_tables_as_tables(fixture_site: Path) -> None:
    r = next(r for r in fixture_results() if r.submission_id == "synthetic-0002")
    c = r.cells[0]
    stored = c.constraint_tables
    assert stored is not None
    doc = BeautifulSoup((fixture_site / url_of(cell_path(r, c.cell)) / "index.html").read_text(encoding="utf-8"),
                        "html.parser")
    assert not doc.select("code.language-json") and not doc.select("details.db-track-tables")
    heading = next(h for h in doc.select("h2") if h.get_text(strip=True).startswith("Scorer tables"))
    boxes = [b for b in heading.find_all_next("div", class_="db-table") if b["id"].startswith("table-scorer-")]
    by_id = {b["id"]: b for b in boxes}
    values = {tr.select("td")[0].get_text(): tr.select("td")[1].get_text()
              for tr in by_id["table-scorer-values"].select("tbody tr")}
    assert values["track"] == "constraint" and values["runs"] == str(stored.runs)
    assert values["valid_runs"] == str(stored.valid_runs) and values["seeds"] == ", ".join(stored.seeds)
    assert values["overall › turns"] == str(stored.overall.turns)
    bins = [[td.get_text() for td in tr.select("td")] for tr in by_id["table-scorer-by_depth-bins"].select("tbody tr")]
    assert bins == [[str(i), b.bin, str(b.n_turns), str(b.correct), fmt(b.accuracy)]
                    for i, b in enumerate(stored.by_depth.bins, 1)]
    # the download holds the exact numbers the page rounds
    link = by_id["table-scorer-by_depth-bins"].select_one(".db-downloads a[href$='.csv']")["href"]
    page_dir = fixture_site / url_of(cell_path(r, c.cell))
    rows = list(csv.DictReader(io.StringIO((page_dir / link).resolve().read_text(encoding="utf-8"))))
    assert [float(row["accuracy"]) for row in rows] == [b.accuracy for b in stored.by_depth.bins]
