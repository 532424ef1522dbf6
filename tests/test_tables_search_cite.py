"""Issue 31, items 3 and 4 in the built pages: filters offered only where a value varies, search entries for
submissions, cells and runs (escaped, bounded), metric names linked to their definitions, and the cell page's
cite box and verified badge at the top."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_fixtures import XSS_CELL, XSS_TITLE, fixture_results

from checker.render import search
from checker.render.citation import cite_text
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.runs import run_path
from checker.render.tables import Column, Table, state_once
from checker.render.writer import environment


def _render(t: Table) -> BeautifulSoup:
    return BeautifulSoup(environment().get_template("_table.html.j2").render(t=t, root="../", extra_class=""), "html.parser")


def test_a_filter_is_offered_only_when_its_value_varies() -> None:
    rows = [{"a": "x", "b": "y", "c": None}, {"a": "x", "b": "z", "c": "k"}, {"a": "x", "b": "y", "c": None}]
    t = Table("t", "T", [Column("a", "A"), Column("b", "B")], rows,
              facets=[("a", "alpha"), ("b", "beta"), ("c", "gamma")])
    assert t.facet_options() == [("b", "beta", ["y", "z"]), ("c", "gamma", ["k", "—"])]
    html = _render(t)
    assert [s["data-facet"] for s in html.select("select[data-facet]")] == ["b", "c"]
    assert [o.get_text() for o in html.select("select[data-facet=b] option")] == ["all (2)", "y", "z"]
    # each row carries the attributes of the offered filters only, hashed like the options' values
    first = html.select("tbody tr")[0]
    assert sorted(k for k in first.attrs if k.startswith("data-f-")) == ["data-f-b", "data-f-c"]
    y = html.select("select[data-facet=b] option")[1]["value"]
    assert [tr["data-f-b"] == y for tr in html.select("tbody tr")] == [True, False, True]


def test_no_filter_row_when_nothing_varies() -> None:
    t = Table("t", "T", [Column("a", "A")], [{"a": "x"}, {"a": "x"}], facets=[("a", "alpha")])
    assert t.facet_options() == []
    html = _render(t)
    assert html.select("div.db-facets") == [] and "data-f-" not in str(html)


def test_a_column_with_one_value_in_every_row_is_said_once() -> None:
    """Repeats are stated once above the table (a blank numeric column too); the downloads keep every column."""
    cols = [Column("rank", "#"), Column("board", "board"), Column("cell", "cell", link="href"),
            Column("share", "share", numeric=True), Column("tokens", "tokens", numeric=True), Column("harness", "harness"),
            Column("note", "note")]
    rows = [{"rank": "1", "board": "b<1>", "cell": "x", "href": "x/", "share": 0.5, "tokens": None, "harness": None,
             "note": "a"},
            {"rank": "1", "board": "b<1>", "cell": "x", "href": "y/", "share": 0.5, "tokens": None, "harness": "",
             "note": "b"}]
    t = state_once(Table("t", "T", cols, rows), keep=("rank",))
    # rank is kept by the caller, the cell has a link; a numeric column with a value stays a column (sortable)
    assert t.once == ("board", "tokens", "harness")
    assert [c.key for c in t.shown] == ["rank", "cell", "share", "note"]
    html = _render(t)
    assert [th.get_text() for th in html.select("thead th")] == ["#", "cell", "share", "note"]
    assert all(len(tr.select("td")) == 4 for tr in html.select("tbody tr"))
    once = html.select_one("p.db-once")
    assert once.get_text() == "Every row: board = b<1>. Blank (—) in every row: tokens, harness."
    assert "<1>" not in str(once)  # escaped
    assert t.to_csv().splitlines()[0] == "rank,board,cell,share,tokens,harness,note"
    assert state_once(Table("t", "T", cols, rows[:1])).once == ()  # one row: nothing is repeated
    assert _render(Table("t", "T", cols, rows)).select("p.db-once") == []


def _page(site: Path, md: str) -> BeautifulSoup:
    return BeautifulSoup((site / url_of(md) / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_search_finds_every_submission_cell_and_run(fixture_site: Path) -> None:
    index = json.loads((fixture_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    by_location = {e["location"]: e for e in index["docs"]}
    results = fixture_results()
    for r in results:
        assert url_of(submission_path(r)) in by_location, r.submission_id
        for c in r.cells:
            entry = by_location[url_of(cell_path(r, c.cell))]
            assert c.cell.replace("<", "&lt;").replace(">", "&gt;") in entry["title"]
        for run in r.runs:
            assert f"Run {run.run_id}" == by_location[url_of(run_path(r, run))]["title"]
    hostile = next(r for r in results if r.title == XSS_TITLE)
    entry = by_location[url_of(submission_path(hostile))]
    assert entry["title"] == "&lt;script&gt;alert(1)&lt;/script&gt; Injection test"  # shown as markup: escaped
    cell = by_location[url_of(cell_path(hostile, XSS_CELL))]
    assert "<i>" not in cell["title"] + cell["text"] and "&lt;i&gt;evil&lt;/i&gt; cell" in cell["title"]
    assert "model acme-chat-7b" in cell["text"]
    # each added entry is short: its text at most TEXT_MAX characters before escaping
    added = [e for e in index["docs"] if e["location"].startswith(("runs/", "results/", "submissions/"))]
    assert all(len(e["text"].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")) <= search.TEXT_MAX
               for e in added)


def test_search_entries_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    found = search.SearchEntries()
    for i in range(3):
        found.add("run", f"runs/x/r{i}/", f"Run r{i}", "t" * 500)
    found.add("cell", "results/x/c/", "Result x/c", "cell text")
    found.add("submission", "submissions/x/", "A <b>title</b>", "sub")
    size = [len(search._dump(e)) + 1 for e in found.bounded()]
    assert [e["location"] for e in found.bounded()] == ["submissions/x/", "results/x/c/", "runs/x/r0/", "runs/x/r1/",
                                                        "runs/x/r2/"]
    assert found.bounded()[0]["title"] == "A &lt;b&gt;title&lt;/b&gt;"
    assert len(found.bounded()[2]["text"]) == search.TEXT_MAX and found.bounded()[2]["text"].endswith("…")
    # a budget that holds the submission, the cell and one run: the other runs are left out, in order
    monkeypatch.setattr(search, "EXTRA_BYTES", sum(size[:3]) + size[3] - 1)
    assert [e["location"] for e in found.bounded()] == ["submissions/x/", "results/x/c/", "runs/x/r0/"]


def _metric_ids(site: Path) -> dict[str, set[str]]:
    pages = {}
    for page in ("metrics/", "metrics/agent/", "metrics/constraint/", "metrics/completion/"):
        html = (site / page / "index.html").read_text(encoding="utf-8")
        pages[page] = set(re.findall(r'id="([^"]+)"', html))
    return pages


def test_metric_names_link_to_their_definitions(fixture_site: Path) -> None:
    ids = _metric_ids(fixture_site)
    r = next(x for x in fixture_results() if x.track == "agent")
    c = r.cells[0]
    checked = 0
    for md, tables in ((cell_path(r, c.cell), ("#table-metrics", "#table-all-declared")),
                       (run_path(r, r.runs[0]), ("#table-run-metrics",))):
        doc = _page(fixture_site, md)
        for sel in tables:
            names = doc.select(f"{sel} tbody tr td:first-child")
            assert names, (md, sel)
            for td in names:
                a = td.find("a")
                assert a is not None, (md, sel, td.get_text())
                target = a["href"].split("../")[-1]
                page, anchor = target.split("#")
                assert anchor in ids[page], (md, a["href"])
                checked += 1
    assert checked > 10
    drift = _page(fixture_site, cell_path(r, c.cell)).select_one("#table-metrics a[href$='metrics/agent/#drift_total']")
    assert drift is not None and drift.get_text() == "drift_total"


def test_cell_page_cite_box_and_verified_badge_at_the_top(fixture_site: Path) -> None:
    r = next(x for x in fixture_results() if x.track == "agent")
    c = r.cells[0]
    doc = _page(fixture_site, cell_path(r, c.cell))
    box = doc.select_one("#cite-top")
    assert box is not None and box.select_one("button.db-copy")["data-copy"] == "cite-text-top"
    assert box.select_one("#cite-text-top pre.db-cite-text code").get_text() == cite_text(r, c.cell)
    # the box comes before the first table, the full block (digest, reproduce) stays at the end
    text = str(doc)
    assert text.index('id="cite-top"') < text.index('class="db-table') < text.index('id="cite"')
    assert doc.select_one("#cite pre.db-cite-text code").get_text() == cite_text(r, c.cell)
    badge = doc.select_one("a.db-verified")
    assert badge["href"] == "#table-logs" and doc.select_one("#table-logs") is not None
    note = badge["title"]
    assert note == doc.select_one("#verified-note").get_text() and badge["aria-describedby"] == "verified-note"
    assert note.startswith(f"Verified: checker {r.checker_version} recomputed every gate, figure, interval and rank")
    assert "run logs" in note and "SHA-256 under Cite and reproduce" in note and "not yet committed" in note
