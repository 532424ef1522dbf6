"""The built site in a real browser: Debian's Chromium driven by Playwright, served on 127.0.0.1.

Asserts the five things issue #7 asks for: null-result headline before the first mechanism
table, a chart is static SVG (Vega only when asked), a table sorts on header click, a hostile title stays text with
no dialog, and no request leaves localhost. Screenshots go to `$DRIFTBOARD_TEST_ARTIFACTS` when set,
else to `screenshots/` in pytest's base temporary folder (never into the checkout).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import SEARCH_TIMEOUT_MS
from site_fixtures import XSS_TITLE

from checker.render.weight import PAGE_WEIGHT_BUDGET

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync", "--disable-quic", "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]
sync_api = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed (.ci/run installs it with apt)", allow_module_level=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(fixture_site: Path) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(fixture_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    # Chromium's own scratch folders go to a pytest folder of their own, not the guarded temporary
    # folder (a renderer killed at context close under load leaves one behind)
    scratch = tmp_path_factory.mktemp("chromium-scratch")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS,
                              env={**os.environ, "TMPDIR": str(scratch)})
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, base_url: str, tmp_path_factory: pytest.TempPathFactory):
    """A page whose every non-localhost request is blocked and recorded; dialogs and errors recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.artifacts = Path(os.environ.get("DRIFTBOARD_TEST_ARTIFACTS") or tmp_path_factory.getbasetemp() / "screenshots")
    pg.external = []
    pg.dialogs = []
    pg.errors = []

    def guard(route) -> None:
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            pg.external.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    assert pg.external == [], f"requests left localhost: {pg.external}"
    context.close()


def shot(pg, name: str) -> None:
    pg.artifacts.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(pg.artifacts / f"{name}.png"), full_page=True)


def test_home_null_results_first(page, base_url: str) -> None:
    page.goto(base_url)
    headline = page.locator("#null-results")
    mech = page.locator("div.db-mechanism table").first
    assert headline.is_visible() and mech.count() == 1
    assert "completions" in headline.inner_text()
    order = page.evaluate("""() => {
        const a = document.querySelector('#null-results'), b = document.querySelector('div.db-mechanism table');
        return !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    assert order
    assert headline.bounding_box()["y"] < mech.bounding_box()["y"]
    shot(page, "home")
    assert page.errors == []


def test_charts_are_static_svg_and_vega_loads_only_when_asked(page, base_url: str) -> None:
    """A chart is SVG in the page (no Vega fetched); its "Interactive chart" button loads Vega and draws the spec."""
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(base_url + "submissions/synthetic-0000/")
    page.wait_for_load_state("networkidle")
    static = page.locator("#chart-decomposition div.db-chart-static svg.db-svg")
    assert static.is_visible() and static.locator("path[fill]").count() > 0 and static.locator("circle").count() > 0
    assert not any("vega" in u for u in urls), "no charting runtime until a reader asks"
    page.locator("#chart-decomposition").scroll_into_view_if_needed()
    shot(page, "submission-charts")
    page.locator("#chart-decomposition button.db-chart-interactive").click()
    page.wait_for_selector("#chart-decomposition div.vega-chart[data-drawn] svg g.mark-rect path", timeout=15000)
    assert any(u.endswith("vega-embed.min.js") for u in urls)
    assert page.locator("#chart-decomposition svg g.mark-symbol path").count() > 0
    assert not static.is_visible(), "the interactive chart takes the static one's place"
    page.goto(base_url + "leaderboards/constraint/")
    assert page.locator("#chart-depth svg.db-svg path[stroke-width='2']").count() > 0
    shot(page, "constraint-leaderboard")
    page.goto(base_url + "leaderboards/agent/")
    forest = page.locator("#chart-forest-agent svg.db-svg")
    assert forest.is_visible() and forest.locator("circle").count() == 16
    page.locator("#chart-forest-agent").scroll_into_view_if_needed()
    shot(page, "agent-leaderboard-forest")
    assert page.errors == []


def test_table_sorts_on_header_click(page, base_url: str) -> None:
    page.goto(base_url + "leaderboards/agent/")
    table = page.locator("#table-leaderboard table")
    headers = table.locator("thead th")
    labels = [h.strip() for h in headers.all_inner_texts()]
    col = labels.index("reference beats (mean)")

    def column() -> list[float]:
        vals = table.locator(f"tbody tr td:nth-child({col + 1})").all_inner_texts()
        return [float(v) if v.strip() not in ("—", "") else float("-inf") for v in vals]

    before = column()
    assert len(set(before)) > 1
    headers.nth(col).click()  # the sorter loads on this first reach for a header (page weight), then sorts
    # every sortable header says aria-sort="none" from the start: wait for the one that is sorted
    table.locator("thead th[aria-sort=ascending]").first.wait_for(timeout=15000)
    first = column()
    assert first == sorted(before)
    headers.nth(col).click()
    second = column()
    assert second == list(reversed(first))
    shot(page, "sorted-table")


def test_hostile_title_is_text_and_no_dialog(page, base_url: str) -> None:
    page.goto(base_url + "submissions/zz-hostile/")
    page.wait_for_load_state("load")
    assert page.locator(".db-title").inner_text() == XSS_TITLE
    page.goto(base_url)
    page.wait_for_timeout(300)
    shot(page, "hostile")
    assert page.dialogs == []
    assert page.evaluate("() => document.querySelectorAll('article script, article img[onerror]').length") == 0


# ---------------------------------------------------------------- issue 16: ranked, unclipped, accessible


def _ranks(page, table: str) -> list[tuple[str, str]]:
    """(rank range, figure) of each row: the first column, and the first whose header ends "all declared"."""
    return page.evaluate(f"""() => {{
        const heads = Array.from(document.querySelectorAll('{table} thead th')).map(th => th.innerText.trim());
        const fig = heads.findIndex(h => h.endsWith('all declared'));
        return Array.from(document.querySelectorAll('{table} tbody tr')).map(
            tr => [tr.cells[0].innerText.trim(), tr.cells[fig].innerText.trim()]); }}""")


def test_leaderboard_ranked_in_the_registry_direction(page, base_url: str) -> None:
    from site_fixtures import fixture_results

    from checker.pipeline.boards import boards_document
    from checker.render.ranking import board

    page.goto(base_url + "leaderboards/agent/")
    rows = _ranks(page, "#table-leaderboard")
    # a rank range "1–16": its best rank orders the rows
    ranked = [(int(r.split("–")[0]), float(f)) for r, f in rows if r not in ("—", "")]
    assert ranked and [r for r, _f in ranked] == sorted(r for r, _f in ranked) and ranked[0][0] == 1
    figures = [f for _r, f in ranked]
    assert figures == sorted(figures), "drift_total is lower-is-better: ascending"
    tail = rows[len(ranked):]
    assert tail and all(r in ("—", "") for r, _f in tail), "undefined rows come last, unranked"
    assert page.locator("#table-leaderboard .db-why", has_text="undefined: 0 reference beats").count() >= 1
    results = fixture_results()
    leader = board("agent", results, doc=boards_document(results)).leaders[0]
    card = page.locator("#leader-agent .db-first").inner_text()
    assert leader["cell"] in card and leader["submission_id"] in card
    assert "lower is better" in page.locator("#leader-agent").inner_text()
    page.goto(base_url + "leaderboards/constraint/")
    figs = [float(f) for r, f in _ranks(page, "#table-leaderboard") if r not in ("—", "")]
    assert figs == sorted(figs, reverse=True), "turn_accuracy is higher-is-better: descending"
    assert page.errors == []


@pytest.mark.parametrize("width", [1400, 390])
def test_no_clipped_column_without_a_cue(browser, base_url: str, width: int, tmp_path: Path) -> None:
    """Every table either fits, or scrolls inside its own box with a visible cue; rank and cell stay in view."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.artifacts = tmp_path / "artifacts"
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    for path in ("", "leaderboards/agent/", "leaderboards/constraint/", "results/synthetic-0000/FULL/",
                 "runs/synthetic-0000/synthetic-0000-FULL-s1/"):
        pg.goto(base_url + path)
        pg.wait_for_load_state("networkidle")
        assert pg.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), \
            f"{path} at {width}px: the page itself scrolls sideways"
        bad = pg.evaluate("""() => Array.from(document.querySelectorAll('div.db-table')).filter(t => {
            const s = t.querySelector('.db-scroll'); if (!s) return false;
            const wide = s.scrollWidth > s.clientWidth + 1;
            const cue = getComputedStyle(t, '::before').content;
            return wide && !(t.classList.contains('db-overflow') && cue && cue !== 'none');
        }).map(t => t.id)""")
        assert bad == [], f"{path} at {width}px: columns hidden without a cue in {bad}"
        article = pg.locator("article").bounding_box()
        for cell in pg.locator("div.db-table table").all():
            box = cell.bounding_box()
            assert box is None or box["x"] >= article["x"] - 1, f"{path}: a table starts left of the text column"
        if path.startswith("leaderboards/agent"):
            box = pg.locator("#table-leaderboard .db-scroll").first
            box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
            pg.wait_for_timeout(100)
            first = pg.locator("#table-leaderboard tbody tr td:nth-child(2)").first.bounding_box()
            frame = box.bounding_box()
            assert first["x"] >= frame["x"] - 1 and first["x"] + first["width"] <= frame["x"] + frame["width"] + 1, \
                "the cell column stays in view while the table scrolls"
        shot(pg, f"{path.strip('/').replace('/', '_') or 'home'}-{width}")
    assert errors == [], errors
    context.close()


def test_accessibility_axe(page, base_url: str) -> None:
    axe_mod = pytest.importorskip("axe_playwright_python.sync_playwright")
    axe = axe_mod.Axe()
    # the generated boards, cell and run pages, and documentation pages whose Markdown tables the theme
    # wraps in scrolling boxes (at 390 px they scroll: each must take keyboard focus)
    paths = ("", "leaderboards/agent/", "leaderboards/constraint/", "results/synthetic-0000/FULL/", "runs/synthetic-0002/"
             "synthetic-0002-qwen3-8b-baseline-s1/", "runs/synthetic-0000/synthetic-0000-FULL-s1/", "submissions/",
             "submissions/synthetic-0000/", "tracks/agent/", "metrics/", "format-reference/agent-track/", "performance/",
             "404.html")
    # the 404 page is served for any missing path, so it links its stylesheets and scripts by absolute path under the
    # site's own path (mkdocs.yml site_url): served here from the root, as GitHub Pages serves it under that path
    site_path = urlsplit(_site_url()).path
    routed: list[str] = []

    def under_site_path(route) -> None:
        routed.append(route.request.url)
        route.continue_(url=route.request.url.replace(site_path, "/", 1))

    page.route(base_url.rstrip("/") + site_path + "**", under_site_path)
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for path in paths:
            assert page.goto(base_url + path).ok, path
            page.wait_for_load_state("networkidle")
            result = axe.run(page)
            # serious and critical; and landmarks named alike (moderate), which the site had fixed (issue 31)
            serious = [v for v in result.response["violations"]
                       if v.get("impact") in ("serious", "critical") or v["id"] == "landmark-unique"]
            assert serious == [], f"{path} at {width} px: " + "; ".join(
                f"{v['id']} ({len(v['nodes'])} nodes): {v['help']}" for v in serious)
    assert site_path != "/" and any(u.endswith(".css") for u in routed), "the 404 page was checked with its stylesheets"


def _site_url() -> str:
    from conftest import REPO

    found = re.search(r"^site_url:\s*(\S+)", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert found, "mkdocs.yml has no site_url"
    return found.group(1)


def test_run_viewer_agent_and_constraint(page, base_url: str) -> None:
    page.goto(base_url + "results/synthetic-0000/FULL/")
    page.locator("a", has_text="synthetic-0000-FULL-s1").first.click()
    page.wait_for_load_state("load")
    assert "runs/synthetic-0000/synthetic-0000-FULL-s1/" in page.url
    assert page.locator("#table-gate tbody tr").count() >= 1
    raw = page.locator("#raw-log").inner_text()
    assert "SHA-256" in raw and "not committed" in raw  # fixture results carry no commit: no pinned link
    page.goto(base_url + "runs/synthetic-0002/synthetic-0002-qwen3-8b-baseline-s1/")
    assert page.locator("h1").inner_text().startswith("Run ")
    assert page.errors == []


def test_page_without_charts_loads_no_vega_and_no_search_index_until_searched(browser, base_url: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    urls: list[str] = []
    sizes: list[int] = []
    pg.on("response", lambda r: (urls.append(r.url), sizes.append(len(r.body()) if r.ok else 0)))
    pg.goto(base_url + "submissions/")
    pg.wait_for_load_state("networkidle")
    assert not any("vega" in u for u in urls), "Vega loads only when a reader asks for an interactive chart"
    assert not any("search_index.json" in u or "/workers/search" in u for u in urls)
    weight = sum(sizes)
    assert weight < PAGE_WEIGHT_BUDGET, f"{weight} bytes"  # uncompressed; per page type: tests/test_site_weight.py
    pg.locator(".md-search__input").click()
    pg.locator(".md-search__input").fill("drift")
    pg.wait_for_selector(".md-search-result__item", timeout=SEARCH_TIMEOUT_MS)
    assert any("search_index.json" in u for u in urls)
    context.close()


def test_facet_filters_rows(page, base_url: str) -> None:
    page.goto(base_url + "leaderboards/agent/")
    select = page.locator("#table-leaderboard select[data-facet='data']")
    real = select.locator("option", has_text="real").get_attribute("value")
    select.select_option(real)
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('#table-leaderboard tbody tr'))
        .filter(tr => !tr.hidden).map(tr => tr.cells[1].innerText.trim())""")
    rows = page.locator("#table-leaderboard tbody tr")
    assert shown and len(shown) < rows.count()
    links = page.evaluate("""() => Array.from(document.querySelectorAll('#table-leaderboard tbody tr'))
        .filter(tr => !tr.hidden).map(tr => tr.querySelector('a[href*="submissions/"]').getAttribute('href'))""")
    assert all("zz-hostile" in h for h in links), links  # the fixture's one real (non-synthetic) submission
    assert "rows shown" in page.locator("#table-leaderboard .db-facet-count").inner_text()
    select.select_option("")
    assert page.evaluate("() => Array.from(document.querySelectorAll('#table-leaderboard tbody tr')).every(tr => !tr.hidden)")


# ---------------------------------------------------------------- issue 30: the first screen says what is ranked


def test_first_screen_states_who_ranks_first_with_interval_and_n(page, base_url: str) -> None:
    """The home page's agent card names the best figure's cell, rank range from 1, its interval, n and board key."""
    from driftboard_tools.generate.results import GAME_ID
    from site_fixtures import REAL_BACKBONE, fixture_results

    page.goto(base_url)
    # the fixture's one LLM (the hostile submission's logs record calls to it) ranks on the agent board; no importer
    # recorded that model, so its name is the submitter's word: marked declared (issue 29, principle 3)
    assert page.locator("#ranked-models").inner_text().strip() == f"Language models ranked: {REAL_BACKBONE} (declared)."
    # the lowest all-declared drift_total of a cell with 5 declared seeds: nothing can be significantly better
    figures = {(r.submission_id, c.cell): c.all_declared["drift_total"].value for r in fixture_results()
               if r.track == "agent" for c in r.cells
               if not c.comparator and c.n_declared >= 5 and c.all_declared["drift_total"].value is not None}
    (sid, cell), best = min(figures.items(), key=lambda kv: (kv[1], kv[0]))
    card = page.locator("#leader-agent .db-first")
    lines = card.inner_text().split("\n")
    first = next(line for line in lines if cell in line and sid in line)
    assert first.startswith("#1") and f"{best:.3f}"[:4] in first
    assert "(95% [" in first and "n = 5 seeds" in first
    assert f"board: agent track · world {GAME_ID} · profile driftboard · protocol 1" in card.inner_text()
    assert page.errors == []


def test_first_screen_says_no_language_model_is_ranked(page, tmp_path: Path) -> None:
    """Scripted rows only (no log records a model call): one line says no language model is ranked yet."""
    from driftboard_tools.generate.results import synthetic_results, write_results_dir

    from checker.render.site import build_site

    results = write_results_dir(synthetic_results(3, seed=5), tmp_path / "results")
    assert build_site(results, tmp_path / "site") == 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_Quiet, directory=str(tmp_path / "site")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
        assert page.locator("#ranked-models").inner_text().strip().startswith("No language model is ranked yet")
        assert page.locator("#leader-agent .db-first").inner_text().startswith("#1")
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- issue 31: tables for hands and keyboards


def _focused(page, selector: str) -> bool:
    return page.evaluate("s => !!(document.activeElement && document.activeElement.matches(s))", selector)


def _tab_to(page, selector: str, limit: int) -> int:
    """Press Tab until the focused element matches `selector`; the number of presses (fails past `limit`)."""
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if _focused(page, selector):
            return n
    raise AssertionError(f"{selector} not reached in {limit} Tab presses")


def test_table_sorts_by_keyboard(page, base_url: str) -> None:
    """Tab reaches a header's button, Enter sorts ascending, Space descending; aria-sort says so on every header."""
    page.goto(base_url + "leaderboards/agent/")
    page.wait_for_load_state("networkidle")
    # the first sortable header of the page is the ranked table's first (no table before it repeats its rows)
    _tab_to(page, "thead th > button.db-sort", 200)
    assert _focused(page, "#table-leaderboard thead th:first-child > button.db-sort")
    table = page.locator("#table-leaderboard table")
    labels = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    col = labels.index("reference beats (mean)")
    for _ in range(col):
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "reference beats (mean)"
    th = table.locator("thead th").nth(col)
    assert th.get_attribute("aria-sort") == "none"

    def column() -> list[float]:
        vals = table.locator(f"tbody tr td:nth-child({col + 1})").all_inner_texts()
        return [float(v) if v.strip() not in ("—", "") else float("-inf") for v in vals]

    before = column()
    assert before != sorted(before) and len(set(before)) > 1
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelectorAll('#table-leaderboard thead th')[{col}]"
                           ".getAttribute('aria-sort') === 'ascending'", timeout=15000)
    assert column() == sorted(before)
    others = page.evaluate(f"""() => Array.from(document.querySelectorAll('#table-leaderboard thead th'))
        .filter((th, i) => i !== {col}).map(th => th.getAttribute('aria-sort'))""")
    assert others and set(others) == {"none"}
    assert page.locator("#table-leaderboard .db-sort-status").inner_text() == "Sorted by reference beats (mean), ascending."
    assert _focused(page, "#table-leaderboard thead th > button.db-sort")  # focus stays on the header
    page.keyboard.press("Space")
    page.wait_for_function(f"() => document.querySelectorAll('#table-leaderboard thead th')[{col}]"
                           ".getAttribute('aria-sort') === 'descending'", timeout=5000)
    assert column() == sorted(before, reverse=True)
    assert page.locator("#table-leaderboard .db-sort-status").inner_text() == "Sorted by reference beats (mean), descending."
    assert page.errors == []


def test_facet_filters_by_keyboard(page, base_url: str) -> None:
    """Tab to the data filter, the arrow key picks `real`: only the real submission's rows stay, the count says so."""
    page.goto(base_url + "leaderboards/agent/")
    page.wait_for_load_state("networkidle")
    offered = page.evaluate("""() => Array.from(document.querySelectorAll('#table-leaderboard select[data-facet]'))
        .map(s => [s.dataset.facet, s.options.length])""")
    # the fixture's agent rows differ in data (real / synthetic), model (the hostile one's logs record acme-chat-7b,
    # the others no LLM) and ranked (5-seed cells rank, the undefined-case cells do not); every row is on one board
    # and one profile, and no manifest states a backbone: those three filters, each of one value, are not offered
    assert dict(offered) == {"models": 3, "ranked": 3, "data": 3}
    _tab_to(page, "#table-leaderboard select[data-facet='data']", 400)
    page.keyboard.press("ArrowDown")  # all (2) -> real
    rows = page.locator("#table-leaderboard tbody tr")
    page.wait_for_function("() => Array.from(document.querySelectorAll('#table-leaderboard tbody tr')).some(tr => tr.hidden)")
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('#table-leaderboard tbody tr'))
        .filter(tr => !tr.hidden).map(tr => tr.querySelector('a[href*="submissions/"]').getAttribute('href'))""")
    assert shown and all("zz-hostile" in h for h in shown)
    total = rows.count()
    assert page.locator("#table-leaderboard .db-facet-count").inner_text() == f"{len(shown)} of {total} rows shown"


def test_copy_citation_copies_what_the_command_prints(browser, base_url: str) -> None:
    from site_fixtures import fixture_results

    from checker.render.citation import cite_text

    context = browser.new_context(viewport={"width": 1400, "height": 900},
                                  permissions=["clipboard-read", "clipboard-write"])
    pg = context.new_page()
    pg.goto(base_url + "results/synthetic-0000/FULL/")
    pg.wait_for_load_state("networkidle")
    r = next(x for x in fixture_results() if x.submission_id == "synthetic-0000")
    button = pg.locator("#cite-top button.db-copy")
    assert button.bounding_box()["y"] < pg.locator("div.db-table").first.bounding_box()["y"]
    button.focus()
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => document.querySelector('#cite-top .db-copy-status').textContent !== ''")
    assert pg.locator("#cite-top .db-copy-status").inner_text() == "Citation copied."
    assert pg.evaluate("() => navigator.clipboard.readText()") == cite_text(r, "FULL")
    badge = pg.locator("a.db-verified")
    assert badge.is_visible() and badge.get_attribute("title").startswith("Verified: checker")
    context.close()


def test_search_finds_cells_and_runs(page, base_url: str) -> None:
    page.goto(base_url)
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").fill("synthetic-0002-qwen3-8b-baseline-s1")
    page.wait_for_selector(".md-search-result__item", timeout=SEARCH_TIMEOUT_MS)
    hrefs = page.evaluate("() => Array.from(document.querySelectorAll('.md-search-result__link')).map(a => a.href)")
    assert any("runs/synthetic-0002/synthetic-0002-qwen3-8b-baseline-s1/" in h for h in hrefs), hrefs
    page.goto(base_url)  # a fresh box: the theme does not rerun a query on a second fill
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").fill("evil")  # the hostile cell `<i>evil</i> cell`: found by its word, shown as text
    page.wait_for_function("() => Array.from(document.querySelectorAll('.md-search-result__link'))"
                           ".some(a => a.href.includes('results/zz-hostile/'))", timeout=SEARCH_TIMEOUT_MS)
    assert page.dialogs == [] and page.evaluate("() => document.querySelectorAll('.md-search-result i').length") == 0
