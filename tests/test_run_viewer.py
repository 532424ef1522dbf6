"""The run viewer (issue 16 item 3): an agent run's timeline from its log, a constraint run's turns, paginated."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import REPO

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
    body = [len(BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser").select("article.db-turn, "
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
    card = doc.select("article.db-turn")[0]
    assert card["id"] == f"t-{first.problem_id}-{first.turn_number}"
    asked = card.select_one(".db-asked").get_text()
    answered = card.select_one("details.db-raw pre").get_text()
    assert asked == "User: " + logged[first.line]["user_message"] and answered == logged[first.line]["raw_response"]


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
    rows = [ctx["cards"] for _md, ctx in pages]
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


# --------------------------------------------------------------------------- issue 31 item 1: the drift story

EXAMPLES = "runs/drift-bench-examples/drift-bench-examples--{}--mus_repair--seed42"
AGENT_FULL = "runs/driftboard-microworld-agent/driftboard-microworld-agent-full-s1"

# The drift turns of the shipped real-model runs are the DRIFT-Bench truth files' `answer_vs_ledger=0` rows
# (tests/test_broken_commitments.py checks that against the shared data); the commitment each breaks is
# hand-computed there from the log and the problem file:
# * qwen3-32b seating_062 turns 3 and 4: Tina at 7, Frank at 2 on a ring of 7 seats, one seat between them:
#   C005 "Tina and Frank must have at least 2 seats between them", stated at turn 3;
# * gpt-oss-120b logic_grid_021 turn 4: Finley's pet Bird comes after Drew's Dog (order Cat, Dog, Bird, Fish):
#   C001 "Finley's pet value comes before Drew's pet value", stated at turn 1.
DRIFT_CARDS = {
    ("qwen3-32b", "seating_062", 3): ("C005", "Tina and Frank must have at least 2 seats between them", 3),
    ("qwen3-32b", "seating_062", 4): ("C005", "Tina and Frank must have at least 2 seats between them", 3),
    ("gpt-oss-120b", "logic_grid_021", 4): ("C001", "Finley's pet value comes before Drew's pet value", 1),
}


def test_a_drift_card_names_the_commitment_broken_and_the_turn_it_was_stated(story_site: Path) -> None:
    for (model, problem, turn), (cid, text, stated) in DRIFT_CARDS.items():
        doc = _page(story_site / "site", EXAMPLES.format(model))
        card = doc.select_one(f"#t-{problem}-{turn}")
        assert card is not None and card.select_one(".db-chip").get_text() == "drift"
        broken = card.select_one(".db-broken")
        items = broken.select("li")
        assert len(items) == 1, broken.get_text()
        item = items[0]
        assert item.select_one("code").get_text() == cid and f"“{text}”" in item.get_text()
        link = item.find("a")
        assert link.get_text() == f"turn {stated}" and link["href"] == f"#t-{problem}-{stated}"
        # at the turn that stated it, the dialogue says so and links the answers that broke it
        here = doc.select_one(f"#t-{problem}-{stated} .db-stated-here")
        assert here is not None and cid in here.get_text() and text in here.get_text()
        assert f"#t-{problem}-{turn}" in [a["href"] for a in here.find_all("a")]
    # every other turn of those runs is consistent and breaks nothing
    for model in ("qwen3-32b", "gpt-oss-120b"):
        doc = _page(story_site / "site", EXAMPLES.format(model))
        for card in doc.select("article.db-turn"):
            problem, turn = card["id"][2:].rsplit("-", 1)
            if (model, problem, int(turn)) not in DRIFT_CARDS:
                assert card.select_one(".db-chip").get_text() == "consistent", card["id"]
                assert card.select_one(".db-broken") is None


def test_the_answer_is_a_grid_with_the_slots_changed_since_the_previous_turn(story_site: Path) -> None:
    """qwen3-32b seating_062: turn 2 seats Diana 1, Noah 4; turn 3 seats Diana 4, Noah 1, everyone else unmoved."""
    doc = _page(story_site / "site", EXAMPLES.format("qwen3-32b"))
    card = doc.select_one("#t-seating_062-3")
    assert "{" not in card.select_one("table.db-answer").get_text(), "a grid, not JSON"
    seats = {tr.th.get_text(): tr.td.get_text(" ", strip=True) for tr in card.select("table.db-answer tbody tr")}
    assert seats == {"Charlie": "6", "Diana": "4 1", "Frank": "2", "Karen": "3", "Noah": "1 4", "Ruby": "5", "Tina": "7"}
    changed = {td.find_parent("tr").th.get_text(): td.find("del").get_text() for td in card.select("td.db-changed")}
    assert changed == {"Diana": "1", "Noah": "4"}
    assert "2 slots changed since turn 2" in card.select_one(".db-answer-cap").get_text()


def test_the_filter_and_the_depth_strip(story_site: Path) -> None:
    """qwen3-32b answered 13 turns; DRIFT-Bench's truth file marks seating_062 turns 3 and 4 not correct, the rest correct.

    By turn number: logic_grid_021 has 5 turns, scheduling_249 and seating_062 4 each, so turns 1-2 are 3 of 3,
    turns 3-4 are 2 of 3 and turn 5 is 1 of 1.
    """
    doc = _page(story_site / "site", EXAMPLES.format("qwen3-32b"))
    assert doc.select_one("input#only-wrong[type=checkbox]") is not None
    assert [c["id"] for c in doc.select("article.db-turn-wrong")] == ["t-seating_062-3", "t-seating_062-4"]
    assert len(doc.select("article.db-turn")) == 13
    strip = [c.get_text(" ", strip=True) for c in doc.select(".db-depth .db-depth-cell")]
    assert strip == ["turn 1 1.00 3/3", "turn 2 1.00 3/3", "turn 3 0.67 2/3", "turn 4 0.67 2/3", "turn 5 1.00 1/1"]


def test_an_agent_page_shows_a_bind_beat_with_its_aim_and_landing(story_site: Path) -> None:
    """driftboard-microworld-agent full-s1, log line 1427: the live plan step C0015-S2 (line 1399) aims ACTION6 at
    R0011; the beat's click (9, 14) lands on R0013 (recorded, and the same recomputed: no target_ref mismatch).
    On plan, aimed, landed elsewhere: bind (arg-spec §c.2). It is the run's only drifted beat."""
    import json

    log = (REPO / "submissions" / "driftboard-microworld-agent" / "runs" / "full-s1.jsonl").read_text().splitlines()
    beat, step = json.loads(log[1426]), json.loads(log[1398])
    assert (beat["type"], beat["step_id"], beat["target_ref"]) == ("beat", "C0015-S2", "R0013")
    assert (step["type"], step["step_id"], step["target_ref"], step["action"]) == ("plan_step", "C0015-S2", "R0011", "ACTION6")
    doc = _page(story_site / "site", AGENT_FULL)
    # the gate's conditions and their numbers come first
    headings = [h["id"] for h in doc.select("h2")]
    assert headings.index("validity-gate") < headings.index("reference-beats") < headings.index("timeline")
    drifted = [[td.get_text() for td in tr.find_all("td")] for tr in doc.select("#table-drifted tbody tr")]
    assert drifted == [["1427", "bind", "live", "ACTION6", "R0011", "R0013"]]
    header = [th.get_text() for th in doc.select("#table-timeline thead th")]
    pages = [doc, *(BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
                    for p in sorted((story_site / "site" / AGENT_FULL).glob("turns-*/index.html")))]
    rows = {tr.find_all("td")[0].get_text(): [td.get_text() for td in tr.find_all("td")]
            for d in pages for tr in d.select("#table-timeline tbody tr")}
    row = dict(zip(header, rows["1427"], strict=True))
    assert (row["event"], row["plan step"], row["aimed at"], row["landing (checker)"], row["outcome (checker)"]) == (
        "beat", "C0015-S2", "R0011", "R0013", "bind")
    assert sum(r[header.index("outcome (checker)")] == "bind" for r in rows.values()) == 1


@pytest.mark.browser
@pytest.mark.slow
def test_the_drift_story_in_a_browser(story_site: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Chromium: the drift card shows the broken commitment and its turn, the filter hides the good turns,
    the link goes to the turn that stated it; the agent page shows the bind beat. Screenshots at 1400 and 390 px."""
    import functools
    import http.server
    import shutil
    import threading

    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("Chromium is not installed")
    shots = tmp_path_factory.mktemp("story-screenshots")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None}),
        directory=str(story_site / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
            errors: list[str] = []
            for width in (1400, 390):
                pg = browser.new_page(viewport={"width": width, "height": 900})
                pg.on("pageerror", lambda e: errors.append(str(e)))
                pg.goto(base + EXAMPLES.format("qwen3-32b") + "/")
                card = pg.locator("#t-seating_062-4")
                broken = card.locator(".db-broken")
                assert broken.is_visible()
                text = broken.inner_text()
                assert "C005" in text and "Tina and Frank must have at least 2 seats between them" in text
                assert "stated at turn 3" in text
                card.screenshot(path=str(shots / f"drift-card-{width}.png"))
                assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
                assert pg.locator("article.db-turn:visible").count() == 13
                pg.check("#only-wrong")
                assert pg.locator("article.db-turn:visible").count() == 2
                card.locator(".db-broken a", has_text="turn 3").click()
                assert pg.url.endswith("#t-seating_062-3") and pg.locator("#t-seating_062-3 .db-stated-here").is_visible()
                pg.goto(base + AGENT_FULL + "/")
                row = pg.locator("#table-drifted tbody tr").first
                assert row.is_visible() and row.inner_text().split() == ["1427", "bind", "live", "ACTION6", "R0011", "R0013"]
                pg.screenshot(path=str(shots / f"agent-{width}.png"), full_page=False)
                assert errors == []
                pg.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()


def test_a_card_is_never_heavier_than_its_estimate(story_site: Path) -> None:
    """Pages are cut by estimated card bytes (`turn_cards.card_bytes`): the estimate must not be under the bytes written."""
    import re

    from checker.render.timeline import constraint_dialogue
    from checker.render.turn_cards import card_bytes, turn_cards

    r = read_results(story_site / "results" / "drift-bench-examples.json")
    for run in r.runs:
        dialogue, _note = constraint_dialogue(run, REPO)
        estimate = {c["anchor"]: card_bytes(c) for c in turn_cards(run, dialogue)}
        page = (story_site / "site" / runs_module.run_path(r, run).removesuffix("index.md") / "index.html").read_text()
        written = {m.group(1): len(m.group(0).encode("utf-8"))
                   for m in re.finditer(r'<article class="db-turn[^"]*" id="([^"]+)".*?</article>', page, re.DOTALL)}
        assert sorted(written) == sorted(estimate)
        assert all(estimate[a] >= n for a, n in written.items()), {a: (estimate[a], n) for a, n in written.items()}


def test_a_contradiction_card_shows_its_chip_and_the_mus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         run_line) -> None:
    """A hand-built constraint run whose turn-2 ledger cannot hold: Ann at seat 1 (C001) and Bob at seat 1 (C004).

    The seating problem (`constraint_helpers.seating_problem`) states C001 and C002 at turn 1 and C003 at turn 2;
    nobody stated C004. The ledger {C001, C002, C003, C004} is UNSAT and {C001, C004} is its minimal unsatisfiable
    subset: without C004 the turn-1 gold seating satisfies C001-C003, and C001 with C004 puts two people in seat 1.
    """
    from constraint_helpers import seating_problem, write_problems, write_transcript

    from checker.pipeline.verify import verify_paths
    from checker.render.site import build_site

    gold = seating_problem()
    c1 = {"id": "C001", "type": "at_position", "args": ["Ann", 1]}
    c2 = {"id": "C002", "type": "left_of", "args": ["Bob", "Ann"]}
    c3 = {"id": "C003", "type": "not_adjacent", "args": ["Cid", "Bob"]}
    c4 = {"id": "C004", "type": "at_position", "args": ["Bob", 1]}
    traces = [{"model": "m", "turn_number": 1, "response_snippet": '{"Ann":1,"Bob":2,"Cid":3,"Dee":4}',
               "ledger": [c1, c2], "z3_sat": 1, "answer_correct": 1},
              {"model": "m", "turn_number": 2, "response_snippet": '{"Ann":1,"Bob":2,"Cid":4,"Dee":3}',
               "ledger": [c1, c2, c3, c4], "z3_sat": 0, "answer_correct": 1}]
    monkeypatch.chdir(tmp_path)  # recorded run paths resolve from here, as `driftboard build` resolves them
    problems = write_problems(Path("problems"), [gold])
    src = write_transcript(Path("t.jsonl"), gold, traces)
    imported = run_line(["import", "drift-bench", str(src), "--problems", str(problems), "--out", "subs/toy"])
    assert imported.exit_code == 0, imported.output
    verify_paths([Path("subs/toy")], problem_dirs=[problems], results_dir=Path("results"))
    assert build_site(Path("results"), tmp_path / "site", logs_root=tmp_path) == 0
    (results,) = [read_results(p) for p in sorted(Path("results").glob("*.json"))
                  if p.name not in ("index.json", "boards.json", "binding.json")]
    (run,) = results.runs
    doc = _page(tmp_path / "site", runs_module.run_path(results, run).removesuffix("index.md"))

    card = doc.select_one("#t-seating_001-2")
    assert card is not None and "db-turn-wrong" in card["class"]
    assert card.select_one(".db-chip").get_text() == "contradiction"
    assert "db-chip-contradiction" in card.select_one(".db-chip")["class"]
    broken = card.select_one("div.db-broken")
    assert broken.select_one("p").get_text() == "The ledger cannot hold together: a minimal unsatisfiable subset:"
    items = broken.select("li")
    assert [li.select_one("code").get_text() for li in items] == ["C001", "C004"]
    # C001 in the problem set's words, stated at turn 1 (linked), as checked; C004 was never stated: its checked form
    assert "“Ann must sit at position 1”" in items[0].get_text()
    link = items[0].find("a")
    assert link.get_text() == "turn 1" and link["href"] == "#t-seating_001-1"
    assert "at_position" in items[0].select("code")[-1].get_text()
    assert items[1].select("code")[1].get_text().startswith("at_position") and "Bob" in items[1].get_text()
    assert "not a constraint the user stated in this form" in items[1].get_text()
    # turn 1 is consistent and lists nothing at issue
    first = doc.select_one("#t-seating_001-1")
    assert first.select_one(".db-chip").get_text() == "consistent" and first.select_one(".db-broken") is None


def test_a_long_run_measures_each_turn_once_however_many_pages(viewer_site: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """A 5,672-turn run once took 713 s to page: every page re-measured every turn (quadratic)."""
    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    constraint = next(r for r in results if r.track == "constraint")
    first = next(t for x in constraint.runs for t in x.turns or [])
    n = 12
    run = constraint.runs[0].model_copy(update={"turns": [first.model_copy(update={"line": i}) for i in range(3, 3 + n)]})
    measured = []
    real = runs_module.card_bytes
    monkeypatch.setattr(runs_module, "card_bytes", lambda card: measured.append(1) or real(card))
    monkeypatch.setattr(runs_module, "ROWS_BYTES_PER_PAGE", 1)  # one turn per page: 12 pages
    pages = runs_module.run_pages(constraint, run, None, "")
    assert (len(pages), len(measured)) == (n, n)
    assert {ctx["n_turns"] for _md, ctx in pages} == {n}


def test_a_cell_with_more_turns_than_a_page_holds_links_its_run_pages(viewer_site: Path) -> None:
    from checker.render import turns as turns_module
    results = [read_results(p) for p in sorted((viewer_site / "results").glob("*.json"))
               if p.name not in ("index.json", "boards.json", "binding.json")]
    constraint = next(r for r in results if r.track == "constraint")
    first = next(t for x in constraint.runs for t in x.turns or [])
    cap = turns_module.MAX_TURN_ROWS
    fits = constraint.runs[0].model_copy(update={"turns": [first] * cap})
    over = constraint.runs[0].model_copy(update={"turns": [first] * (cap + 1)})
    table = turns_module.turn_table([fits])
    assert table is not None and len(table.rows) == cap
    assert turns_module.turn_table([over]) is None
    template = (REPO / "checker/render/templates/cell.md.j2").read_text(encoding="utf-8")
    assert "turns: too many for one page. Each run's page (linked in the Runs table above)" in template


def test_the_timeline_reads_each_beats_outcome_from_the_code(story_site: Path) -> None:
    """full-s1 (see above): its one drifted beat is line 1427. Without the kept details (a run past `DRIFTED_KEPT`),
    the code still marks it bind and the aim is its plan step's; a code naming another number of beats shows none."""
    from checker.render.timeline import agent_timeline

    r = read_results(story_site / "results" / "driftboard-microworld-agent.json")
    run = next(x for x in r.runs if x.run_id.endswith("full-s1"))
    assert run.gds is not None
    for gds in (run.gds, run.gds.model_copy(update={"drifted": []})):
        rows, _ = agent_timeline(run.model_copy(update={"gds": gds}), REPO)
        assert rows is not None
        beats = {r["line"]: r for r in rows if r["event"] == "beat"}
        assert (beats[1427]["outcome"], beats[1427]["aimed"], beats[1427]["landed"]) == ("bind", "R0011", "R0013")
        assert sum(r["outcome"] == "bind" for r in beats.values()) == 1
    wrong = run.gds.model_copy(update={"outcomes": run.gds.outcomes + "a"})
    rows, _ = agent_timeline(run.model_copy(update={"gds": wrong}), REPO)
    assert rows is not None and {r["outcome"] for r in rows if r["event"] == "beat"} == {None}
