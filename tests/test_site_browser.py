"""The built site in a real browser: Debian's Chromium driven by Playwright, served on 127.0.0.1.

Asserts the five things issue #7 asks for: null-result headline before the first mechanism
table, a chart draws SVG marks, a table sorts on header click, a hostile title stays text with
no dialog, and no request leaves localhost. Screenshots go to `$DRIFTBOARD_TEST_ARTIFACTS` when set,
else to `screenshots/` in pytest's base temporary folder (never into the checkout).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from site_fixtures import XSS_TITLE, built_site

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
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = built_site(tmp_path_factory.getbasetemp())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
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


def test_chart_draws_svg_marks(page, base_url: str) -> None:
    page.goto(base_url + "submissions/synthetic-0000/")
    page.wait_for_selector("div.vega-chart[data-drawn] svg", timeout=15000)
    marks = page.locator("#chart-decomposition svg g.mark-rect path")
    assert marks.count() > 0
    assert page.locator("#chart-decomposition svg g.mark-symbol path").count() > 0
    page.locator("#chart-decomposition").scroll_into_view_if_needed()
    shot(page, "submission-charts")
    page.goto(base_url + "leaderboards/constraint/")
    page.wait_for_selector("#chart-depth div.vega-chart[data-drawn] svg g.mark-line path", timeout=15000)
    shot(page, "constraint-leaderboard")
    assert page.errors == []


def test_table_sorts_on_header_click(page, base_url: str) -> None:
    page.goto(base_url + "leaderboards/agent/")
    table = page.locator("#table-cells table")
    headers = table.locator("thead th")
    labels = [h.strip() for h in headers.all_inner_texts()]
    col = labels.index("reference beats (mean)")

    def column() -> list[float]:
        vals = table.locator(f"tbody tr td:nth-child({col + 1})").all_inner_texts()
        return [float(v) if v.strip() not in ("—", "") else float("-inf") for v in vals]

    before = column()
    assert len(set(before)) > 1
    headers.nth(col).click()
    first = column()
    assert first in (sorted(before), sorted(before, reverse=True))
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
