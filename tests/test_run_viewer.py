"""The run viewer (issue 16 item 3): an agent run's timeline from its log, a constraint run's turns, paginated."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from checker.format.results_io import read_results
from checker.render import runs as runs_module

LOGS_ROOT = Path.cwd()
"""Where the recorded run paths resolve: verify records a path under the working folder relative to it."""


@pytest.fixture(scope="module")
def viewer_site(cases_site: Path) -> Path:
    """The minimal cases' results and site, two timeline rows per run page (`conftest.cases_site`)."""
    return cases_site


def _page(site: Path, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_agent_run_timeline_from_the_log(viewer_site: Path) -> None:
    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    agent = next(r for r in results if r.track == "agent")
    run = agent.runs[0]
    rel = runs_module.run_path(agent, run).removesuffix("index.md")
    doc = _page(viewer_site / "site", rel)
    assert run.log_sha256 in doc.select_one("#raw-log").get_text()
    rows = doc.select("#table-timeline tbody tr")
    assert rows, "an agent run page shows its timeline"
    events = [tr.find_all("td")[2].get_text() for tr in rows]
    assert "beat" in events
    header = [th.get_text() for th in doc.select("#table-timeline thead th")]
    assert "landing (checker)" in header and "aimed at" in header
    # every log line of an event shown is a real line of the log, in order
    lines = [int(tr.find_all("td")[0].get_text()) for tr in rows]
    assert lines == sorted(lines)


def test_long_runs_paginate(viewer_site: Path) -> None:
    site = viewer_site / "site"
    pages = sorted(site.glob("runs/*/*/turns-2/index.html"))
    assert pages, "a run longer than a page continues on turns-2/"
    first = pages[0].parent.parent / "index.html"
    doc = BeautifulSoup(first.read_text(encoding="utf-8"), "html.parser")
    pager = doc.select_one("nav.db-pager")
    assert pager is not None and pager.find("a", href=lambda h: h and "turns-2/" in h)
    body = [len(BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser").select("#table-turns tbody tr, "
                                                                                   "#table-timeline tbody tr"))
            for p in [first, *sorted(first.parent.glob("turns-*/index.html"))]]
    assert all(n <= 2 for n in body) and sum(body) > 2


def test_timeline_refuses_a_log_whose_bytes_changed(viewer_site: Path) -> None:
    from checker.render.timeline import agent_timeline

    r = read_results(viewer_site / "results" / "minimal-agent.json")
    run = r.runs[0].model_copy(update={"log_sha256": "0" * 64})
    rows, note = agent_timeline(run, LOGS_ROOT)
    assert rows is None and "SHA-256" in note


def test_constraint_run_page_shows_the_dialogue_from_the_log(viewer_site: Path) -> None:
    """Each turn of a constraint run: what the model was asked and what it answered, read from the log itself."""
    import json

    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    constraint = next(r for r in results if r.track == "constraint")
    run = constraint.runs[0]
    logged = {n: json.loads(line) for n, line in enumerate((LOGS_ROOT / run.path).read_text().splitlines(), start=1)}
    first = run.turns[0]  # type: ignore[index]
    doc = _page(viewer_site / "site", runs_module.run_path(constraint, run).removesuffix("index.md"))
    header = [th.get_text() for th in doc.select("#table-turns thead th")]
    assert "user message" in header and "model response" in header
    cells = doc.select("#table-turns tbody tr")[0].find_all("td")
    asked = cells[header.index("user message")].get_text()
    answered = cells[header.index("model response")].get_text()
    assert asked == logged[first.line]["user_message"] and answered == logged[first.line]["raw_response"]


def test_dialogue_refuses_a_log_whose_bytes_changed(viewer_site: Path) -> None:
    from checker.render.timeline import constraint_dialogue

    r = read_results(viewer_site / "results" / "minimal-constraint.json")
    run = r.runs[0].model_copy(update={"log_sha256": "0" * 64})
    rows, note = constraint_dialogue(run, LOGS_ROOT)
    assert rows is None and "SHA-256" in note


def test_pages_split_by_rows_and_by_bytes() -> None:
    from checker.render.runs import page_ranges

    assert page_ranges([], 3, 100) == [(0, 0)], "no rows: one empty page"
    assert page_ranges([10] * 7, 3, 1000) == [(0, 3), (3, 6), (6, 7)], "by rows"
    assert page_ranges([40, 40, 40, 40], 10, 100) == [(0, 2), (2, 4)], "by bytes: 80 fits, 120 does not"
    assert page_ranges([10, 500, 10], 10, 100) == [(0, 1), (1, 2), (2, 3)], "a row larger than a page: alone"
    sizes = [37, 5, 90, 12, 60, 60, 1, 99, 3]
    ranges = page_ranges(sizes, 4, 100)
    assert [i for lo, hi in ranges for i in range(lo, hi)] == list(range(len(sizes))), "every row once, in order"
    assert all(hi - lo <= 4 and (hi - lo == 1 or sum(sizes[lo:hi]) <= 100) for lo, hi in ranges)


def test_the_pager_shows_a_window_of_constant_size() -> None:
    from checker.render.runs import pager_window

    assert pager_window(1, 1) == [1]
    assert pager_window(5, 3) == [1, 2, 3, 4, 5]
    assert pager_window(12, 6) == [1, None, 4, 5, 6, 7, 8, None, 12]
    assert pager_window(12, 1) == [1, 2, 3, None, 12]
    assert pager_window(12, 12) == [1, None, 10, 11, 12]
    assert max(len(pager_window(1000, p)) for p in range(1, 1001)) == 9


def test_a_long_constraint_run_pages_by_bytes(viewer_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a byte budget of about two rows, every page of a constraint run holds at most that, and all its turns."""
    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    constraint = next(r for r in results if r.track == "constraint")
    first = next(t for x in constraint.runs for t in x.turns or [])
    run = constraint.runs[0].model_copy(update={"turns": [first.model_copy(update={"line": i}) for i in (3, 4, 5, 6)]})
    n = 4
    monkeypatch.setattr(runs_module, "ROWS_BYTES_PER_PAGE", 1)  # every row is over: one turn per page
    pages = runs_module.run_pages(constraint, run, None, "")
    assert len(pages) == n
    rows = [ctx["turns"].rows for _md, ctx in pages]
    assert [len(r) for r in rows] == [1] * n and [r[0]["line"] for r in rows] == [t.line for t in run.turns or []]
    last = pages[-1][1]
    assert [x["text"] for x in last["pager"] if x["current"]] == [f"turns {n}–{n} (page {n} of {n})"]


def test_nested_metrics_print_as_rows_never_as_python_dicts(viewer_site: Path) -> None:
    """Issue 30, item 5: a nested metric (the reference's per-bin figures) is one row per leaf, named by its path."""
    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    agent = next(r for r in results if r.track == "agent")
    run = agent.runs[0]
    nested = {k: v for k, v in run.metrics.items() if isinstance(v, dict)}
    assert nested, "the agent scorer reports nested metrics (bins)"
    doc = _page(viewer_site / "site", runs_module.run_path(agent, run).removesuffix("index.md"))
    shown = {tr.find_all("td")[0].get_text(): tr.find_all("td")[1].get_text()
             for tr in doc.select("#table-run-metrics tbody tr")}
    for name, value in nested.items():
        if not value:  # an empty mapping (no goal seen): one row, undefined
            assert shown[name] == "—"
            continue
        assert name not in shown
        for key, inner in value.items():
            leaves = inner if isinstance(inner, dict) else {None: inner}
            for leaf, x in leaves.items():
                path = f"{name} › {key}" + (f" › {leaf}" if leaf is not None else "")
                assert path in shown, (path, sorted(shown))
                assert shown[path] == ("—" if x is None else str(x) if isinstance(x, int) else f"{round(x, 3):g}")
    assert not any(v.startswith(("{", "[")) for v in shown.values())
