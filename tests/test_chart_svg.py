"""Static SVG charts (`checker.render.svg`, `checker.render.chart_svg`): drawn from the data, escaped, never empty."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from checker.render import chart_svg, svg
from checker.render.charts import COMPONENT_COLORS


def _draw(kind: str, data: dict) -> str:
    out = chart_svg.draw(kind, data)
    assert out is not None
    return out


def _ranked_row(label: str, figure: float, lo: float | None, hi: float | None, why: str | None = None) -> dict:
    return {"label": label, "header": False, "figure": figure, "lo": lo, "hi": hi, "interval": "seed bootstrap",
            "why_no_interval": why, "board": 1, "rank": "1", "n": "5 seeds"}


def _forest() -> dict:
    return {"ranked": [{"label": "Board 1: agent track · world w", "header": True, "figure": None, "lo": None, "hi": None,
                        "interval": None, "why_no_interval": None, "board": 1, "rank": None, "n": None},
                       _ranked_row("#1 A · s", 0.25, 0.1, 0.5),
                       _ranked_row("#2 <b>B</b> · s", 0.75, None, None,
                                   "none: 3 defined seed values (a bootstrap needs 5)")],
            "means": [{"label": "#1 A · s", "part": "bind", "share": 0.25, "order": 0, "n": "5 of 5"},
                      {"label": "#1 A · s", "part": "aligned", "share": 0.75, "order": 2, "n": "5 of 5"}],
            "undefined": [{"label": "#2 <b>B</b> · s", "why": "undefined: 0 reference beats"}], "ci": []}


def test_nice_ticks_hand_computed() -> None:
    assert svg.nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert svg.nice_ticks(0, 7) == [0, 2, 4, 6]  # 7 / 5 = 1.4 -> a step of 2
    assert svg.nice_ticks(0.31, 0.58) == [0.4, 0.5]  # 0.27 / 5 = 0.054: 0.05 is under it, so a step of 0.1
    assert svg.Panel("t", (0.0, 1.0), width=300).x(0.5) == 150
    assert svg.Panel("t", (0.0, 1.0), width=300).x(1.4) == 300, "clamped to the domain"


def test_forest_point_interval_and_why_none() -> None:
    doc = BeautifulSoup(_draw("forest-agent", _forest()), "html.parser")
    forest = doc.select("svg > g[transform]")[0]  # the first panel, 300 px wide
    # after the labels' column: the longest label, "#2 <b>B</b> · s", is 15 characters: 15 x 6.5 + 10 = 108 px, + 10
    assert forest["transform"] == "translate(118,0)"
    dots = forest.select("circle")
    assert [c["cx"] for c in dots] == ["75", "225"], "0.25 and 0.75 of 300 px"
    assert [c.select_one("title").get_text() for c in dots] == ["0.25 [0.1, 0.5]", "0.75"]
    # one interval (0.1 to 0.5: 30 to 150 px), on the first row (rows of 24 px from y = 28; the header is row 0)
    assert forest.select_one("path[stroke-width='2']")["d"] == "M30,64H150M30,59v10M150,59v10"
    # the point at 225 of 300 px: its reason on its left (216 px of room at 5 px a character: 43), right-aligned
    note = forest.select_one("g[font-style=italic] text")
    assert (note.get_text(), note["x"], note["text-anchor"]) == ("3 defined seed values (a bootstrap needs 5)", "216", "end")
    # the decomposition beside it: bind 0..0.25 and aligned 0.25..1 of 260 px; the undefined row boxed, not a 0 bar
    parts = doc.select("svg > g[transform]")[1]
    assert parts.select_one(f"path[fill='{COMPONENT_COLORS['bind']}']")["d"] == "M0,56h65v16h-65z"
    assert parts.select_one(f"path[fill='{COMPONENT_COLORS['aligned']}']")["d"] == "M65,56h195v16h-195z"
    assert parts.select_one("path[stroke-dasharray]")["d"] == "M0,80h260v16h-260z"
    assert [t.get_text() for t in parts.select("g[font-style=italic] text")] == ["undefined: 0 reference beats"]


def test_submitted_strings_are_escaped() -> None:
    out = _draw("forest-agent", _forest())
    assert "<b>" not in out and "&lt;b&gt;B&lt;/b&gt;" in out
    hostile = {"gate": [{"condition": '"><script>alert(1)</script>', "status": "PASS", "runs": 2, "order": 0}]}
    out = _draw("gate", hostile)
    assert "<script" not in out and "&lt;script&gt;" in out


def test_same_data_same_bytes() -> None:
    assert chart_svg.draw("forest-agent", _forest()) == chart_svg.draw("forest-agent", _forest())


@pytest.mark.parametrize("kind", ["decomposition", "gate", "channels", "depth", "cells-agent", "cells-constraint",
                                  "cells-completion", "forest-agent", "forest-constraint", "forest-completion"])
def test_nothing_to_draw_is_none(kind: str) -> None:
    """No data: no chart (the page says why in words instead)."""
    assert chart_svg.draw(kind, {}) is None


def test_undefined_accuracy_is_left_out_of_the_line_chart() -> None:
    rows = [{"group": "g", "submission": "s", "turn": t, "accuracy": a, "turns": 4, "correct": 1}
            for t, a in ((1, 0.5), (2, None), (3, 1.0))]
    out = _draw("depth", {"depth": rows})
    assert re.findall(r'<text x="[\d.]+" y="246" text-anchor="middle" font-size="11">(\d+)</text>', out) == ["1", "3"]
    assert chart_svg.draw("depth", {"depth": rows[1:2]}) is None


def _depth_rows() -> list[dict]:
    """Two cells of two submissions over turns 1 and 2 (the second cell has no turn 2)."""
    return [{"group": "m/a", "submission": "s1", "turn": 1, "accuracy": 0.5, "turns": 4, "correct": 2,
             "series": "m/a · s1"},
            {"group": "m/a", "submission": "s1", "turn": 2, "accuracy": 0.25, "turns": 4, "correct": 1,
             "series": "m/a · s1"},
            {"group": "m/b", "submission": "s2", "turn": 1, "accuracy": 1.0, "turns": 2, "correct": 2,
             "series": "m/b · s2"}]


def test_the_line_chart_names_each_line_once_and_draws_one_circle_per_point() -> None:
    """Issue 31: a line's name is its group's tooltip, not repeated in each point's (a 16-line chart was 28 KB)."""
    doc = BeautifulSoup(_draw("depth", {"depth": _depth_rows()}), "html.parser")
    groups = doc.select("svg > g[fill]")
    assert [g.select_one("title").get_text() for g in groups] == ["m/a · s1", "m/b · s2"]
    assert [len(g.select("circle")) for g in groups] == [2, 1]
    assert not doc.select("circle title"), "a point's numbers are in the chart's data table"
    assert [t.get_text() for t in doc.select("svg > text") if t.get_text().startswith("m/")] == ["m/a · s1", "m/b · s2"]


def test_the_depth_and_channel_tables_are_long_to_wide() -> None:
    """One row per cell, one column per turn (channel): `accuracy · correct/turns` (`share · turns`)."""
    from checker.render.chart_data import channel_table, depth_table

    t = depth_table(_depth_rows())
    assert [c.label for c in t.columns] == ["submission", "model × method", "turn 1", "turn 2"]
    assert t.records() == [{"submission": "s1", "group": "m/a", "turn-1": "0.5 · 2/4", "turn-2": "0.25 · 1/4"},
                           {"submission": "s2", "group": "m/b", "turn-1": "1 · 2/2", "turn-2": None}]
    assert t.limit is None and t.downloads
    # the cells a chart draws first (a leaderboard's ranked rows), the page shows those; the downloads hold all
    first = depth_table(_depth_rows(), first=[("s2", "m/b")])
    assert [r["group"] for r in first.rows] == ["m/b", "m/a"] and first.limit == 1
    assert [r["group"] for r in first.shown_rows] == ["m/b"] and "draws first" in first.caption
    assert depth_table(_depth_rows(), first=[]).limit is None, "nothing ranked: every row shown"
    channels = [{"group": "m/a", "submission": "s1", "channel": ch, "turns": n, "share": n / 4, "ledger_turns": 4}
                for ch, n in (("consistent", 3), ("drift", 1), ("contradiction", 0), ("other", 0))]
    (row,) = channel_table(channels).records()
    assert row == {"submission": "s1", "group": "m/a", "ledger_turns": 4, "consistent": "0.75 · 3",
                   "drift": "0.25 · 1", "contradiction": "0 · 0", "other": "0 · 0"}
