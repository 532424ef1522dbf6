"""The leaderboard site: pages, escaping, downloads, links, determinism (BeautifulSoup, no snapshots)."""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from site_fixtures import XSS_AUTHOR, XSS_CELL, XSS_REASON, XSS_TITLE, fixture_results

from checker.format.errors import UsageError
from checker.render import pages
from checker.render.reference_pages import reported_context
from checker.render.site import assemble, build_site, load_results
from checker.render.text import fmt, md_escape, slug

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(fixture_site: Path) -> Path:
    """The fixture site (`conftest.fixture_site`)."""
    return fixture_site


def soup(site: Path, url: str) -> BeautifulSoup:
    path = site / url / "index.html" if not url.endswith(".html") else site / url
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def all_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


@functools.cache
def parsed(page: Path) -> BeautifulSoup:
    """Each built page parsed once per session (tests only read the trees)."""
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


# ---------------------------------------------------------------- structure


def test_pages_exist(site: Path) -> None:
    for url in ("", "leaderboards/agent", "leaderboards/constraint", "submissions", "reported", "metrics",
                "format", "changelog", "submit", "submissions/zz-hostile", "results/synthetic-0000/FULL"):
        assert (site / url / "index.html").is_file(), url
    assert (site / "schema" / "event.schema.json").is_file()
    json.loads((site / "schema" / "results.schema.json").read_text())


def test_home_null_results_before_mechanism(site: Path) -> None:
    doc = soup(site, "")
    order = [el for el in doc.select("#null-results, div.db-mechanism")]
    assert order[0].get("id") == "null-results"
    assert "completions" in order[0].get_text()
    assert len(doc.select("div.db-mechanism table")) >= 1


def test_submission_sections_in_order(site: Path) -> None:
    doc = soup(site, "submissions/synthetic-0000")
    headings = [h.get_text(strip=True).rstrip("¶") for h in doc.select("article h2")]
    assert headings[:3] == ["Completions and defeaters", "Pre-registration", "Runs and the validity gate"]
    assert headings.index("Per-cell decomposition") < headings.index("Missing runs") < headings.index(
        "Mismatches: claimed and recorded vs recomputed") < headings.index("Cite and reproduce")
    gate = doc.select_one("#table-gate table")
    header = [th.get_text() for th in gate.select("thead th")]
    assert "render_ceiling" in header and "write_error_rate" in header
    statuses = {td.get_text().split(" ")[0] for td in gate.select("tbody td")}
    assert {"PASS", "FAIL", "N/A"} <= statuses
    assert doc.select_one("#cite pre code.language-bibtex").get_text().startswith("@misc{driftboard:synthetic-0000,")
    assert "driftboard verify submissions/synthetic-0000" in doc.select_one("#cite").get_text()


def test_cell_permalink(site: Path) -> None:
    doc = soup(site, "results/synthetic-0000/FULL")
    assert "synthetic-0000/FULL" in doc.select_one(".db-meta").get_text()
    assert doc.select("#table-metrics tbody tr")
    assert doc.select_one("#cite pre.db-cite-text code").get_text().startswith("@misc{driftboard:synthetic-0000-FULL,")


def test_detail_pages_not_in_nav(site: Path) -> None:
    nav = soup(site, "").select_one("nav.md-nav--primary")
    hrefs = [a.get("href", "") for a in nav.select("a")]
    assert not any("results/" in h or re.search(r"submissions/.+/", h) for h in hrefs)
    assert any("leaderboards/agent" in h for h in hrefs)


def test_constraint_decomposition_and_charts(site: Path) -> None:
    doc = soup(site, "submissions/synthetic-0002")
    header = [th.get_text() for th in doc.select("#table-decomposition thead th")]
    for ch in ("consistent", "drift", "contradiction", "other"):
        assert ch in header
    specs = [d["data-spec"] for d in doc.select("div.vega-chart")]
    assert len(specs) == 2
    for s in specs:
        target = (site / "submissions/synthetic-0002" / s).resolve()
        spec = json.loads(target.read_text())
        assert spec["$schema"].endswith(".json") and spec["datasets"]
        assert not re.search(r'"url"\s*:', target.read_text())


def test_every_chart_has_text_alternative_and_data(site: Path) -> None:
    """A chart is a static SVG with a text alternative, or words saying why there is none; its data table follows."""
    seen = {"svg": 0, "empty": 0}
    for page in all_pages(site):
        doc = parsed(page)
        for fig in doc.select("figure.db-chart"):
            static, empty = fig.select_one("div.db-chart-static"), fig.select_one("p.db-chart-empty")
            assert (static is None) != (empty is None), (page, fig.get("id"))
            if static is not None:
                assert static["role"] == "img" and len(static["aria-label"]) > 40
                svg = static.select_one("svg.db-svg")
                assert svg is not None and svg.select("path, rect, circle"), (page, fig.get("id"))
                assert fig.select_one("button.db-chart-interactive") and fig.select_one("div.vega-chart[data-spec]")
                seen["svg"] += 1
            else:
                assert len(empty.get_text()) > 20 and not fig.select("svg, div.vega-chart"), (page, fig.get("id"))
                seen["empty"] += 1
            assert fig.find_next_sibling("details", class_="db-chart-data").select_one(".db-downloads")
    assert seen["svg"] > 20 and seen["empty"] >= 1, seen


def test_no_page_links_the_charting_runtime(site: Path) -> None:
    """Vega, Vega-Lite and vega-embed load only when a reader asks (charts.js): no page links them."""
    for page in all_pages(site):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<script[^>]*src=\"[^\"]*vega", text), page


def _forest(site: Path, track: str) -> BeautifulSoup:
    return soup(site, f"leaderboards/{track}").select_one(f"#chart-forest-{track}")


def _ranked_table(doc: BeautifulSoup) -> list[dict[str, str]]:
    """The rows of a leaderboard page's ranked table, each as header -> cell text."""
    table = doc.select_one("#table-leaderboard table")
    heads = [th.get_text(" ", strip=True) for th in table.select("thead th")]
    return [dict(zip(heads, (td.get_text() for td in tr.select("td")), strict=True)) for tr in table.select("tbody tr")]


def test_forest_plot_one_row_per_ranked_cell_grouped_by_board(site: Path) -> None:
    doc = soup(site, "leaderboards/agent")
    ranked = [r for r in _ranked_table(doc) if r["#"] != "—"]
    assert len(ranked) == 16, "the fixture: one agent board, 16 ranked rows"
    # one board: its key is said once above the table, not in a column of 20 repeats
    assert "board" not in ranked[0]
    assert "board = agent:synthetic-world:driftboard:p1" in doc.select_one("#table-leaderboard p.db-once").get_text()
    svg = _forest(site, "agent").select_one("svg.db-svg")
    heads = [t.get_text() for t in svg.select("g[font-weight=bold] > text")]
    assert heads == ["Board 1: agent track · world synthetic-world · profile driftboard · protocol 1"]
    # one point per ranked row: its value in its tooltip is the row's figure (the ranked table's, as shown)
    dots = [c.select_one("title").get_text() for c in svg.select("circle")]
    figures = [r["drift_total ↓ all declared"] for r in ranked]
    assert len(dots) == 16 and [d.split(" ")[0] for d in dots] == [f.rstrip("0") for f in figures]
    # an interval bar (and its tooltip) where the row has one; the row labels are the rank, cell and submission
    with_ci = [r for r in ranked if r["95% interval"].startswith("[")]
    assert sum(1 for d in dots if "[" in d) == len(with_ci)
    labels = [t.get_text() for t in svg.select("g[text-anchor=end] > text")]
    assert labels == [f"#{r['#']} {r['cell']} · {r['submission']}" for r in ranked]
    # its data is the ranked table, linked (not a second table of the same rows); the chart's own data downloads
    data = _forest(site, "agent").find_next_sibling("details", class_="db-chart-data")
    assert data.select("table") == [] and data.select_one('a[href="#table-leaderboard"]')
    download = site / data.select_one('.db-downloads a[href$=".csv"]')["href"].replace("../../", "")
    assert len(list(csv.DictReader(io.StringIO(download.read_text(encoding="utf-8"))))) == 16


def test_each_board_links_its_comparisons_published_unchanged(site: Path) -> None:
    """Every pair of the board's rows is a download linked from the board, the bytes of the results folder's file."""
    rule = soup(site, "leaderboards/agent").select_one("li.db-board-rule")
    # 16 ranked rows: 16 * 15 / 2 = 120 pairs
    assert "(120 pair(s)," in " ".join(rule.get_text().split())
    link = rule.select_one('a[href$=".csv"]')
    assert link is not None and link.has_attr("download")
    published = site / urlsplit(link["href"]).path.replace("../../", "")
    name = published.name
    assert published.parent == site / "downloads" / "boards"
    assert published.read_bytes() == (site.parent / "results" / name).read_bytes()
    rows = list(csv.DictReader(io.StringIO(published.read_text(encoding="utf-8"), newline="")))
    assert len(rows) == 120 and list(rows[0]) == ["a", "b", "shared", "test", "p", "significant"]
    [board] = [b for b in json.loads((site.parent / "results" / "boards.json").read_text())["boards"]
               if b["track"] == "agent"]
    assert board["comparisons"]["file"] == name and board["comparisons"]["pairs"] == 120
    assert board["comparisons"]["significant"] == sum(1 for r in rows if r["significant"] == "true")
    assert "comparisons" not in json.dumps(board["rows"])  # boards.json keeps rows and ranks, not the pairs


def test_the_leaderboard_lists_each_cell_in_one_table(site: Path) -> None:
    """Every drift cell of the track is a row of the ranked table once; no other table of the page repeats it."""
    from checker.render.paths import cell_path, url_of

    doc = soup(site, "leaderboards/agent")
    expected = sorted(url_of(cell_path(r, c.cell)) for r in fixture_results() if r.track == "agent"
                      for c in r.cells if not c.comparator)
    linked = sorted(a["href"].removeprefix("../../") for a in doc.select("div.db-table tbody a[href*='results/']"))
    assert linked == expected and len(expected) == 20  # 16 ranked cells and the undefined case's 4
    assert [t["id"] for t in doc.select("div.db-table")] == ["table-leaderboard", "table-null-results",
                                                             "table-gate-outcomes"]
    # each submission's cells are on its page: the null results table links every submission of the track
    subs = {a["href"] for a in doc.select("#table-null-results tbody a")}
    assert subs == {f"../../submissions/{r.submission_id}/" for r in fixture_results() if r.track == "agent"}


def test_a_tie_of_many_leaders_is_one_line(site: Path) -> None:
    """The 16 ranked agent rows tie (rank range 1–16): one line says so and names the best figure's row."""
    ranked = {(r.submission_id, c.cell): c.all_declared["drift_total"].value for r in fixture_results()
              if r.track == "agent" for c in r.cells
              if not c.comparator and c.n_declared >= 5 and c.all_declared["drift_total"].value is not None}
    (sid, cell), best = min(ranked.items(), key=lambda kv: (kv[1], kv[0]))
    for url in ("leaderboards/agent", ""):
        card = soup(site, url).select_one("#leader-agent .db-first")
        text = " ".join(card.get_text().split())
        assert text.startswith(f"#1–16 {len(ranked)} rows tied for first (rank range 1–16); the best figure: {cell} of "
                               f"{sid}: {fmt(best)} (95% ["), (url, text)
        assert len(card.select("a[href*='results/']")) == 1, "the other 15 are not listed"
        assert card.select_one("a[href$='leaderboards/agent/#table-leaderboard']").get_text() == "all 16 in the ranked table"


def test_forest_with_nothing_ranked_says_why(site: Path) -> None:
    fig = _forest(site, "constraint")
    assert fig.select_one("svg") is None
    assert "nothing is ranked on this track yet" in fig.select_one("p.db-chart-empty").get_text()


def test_submitted_strings_escaped_inside_the_svg(site: Path) -> None:
    for url in ("leaderboards/agent", "submissions/zz-hostile", "results/zz-hostile/" + slug(XSS_CELL)):
        path = site / url / "index.html"
        text = path.read_text(encoding="utf-8")
        svgs = re.findall(r"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"db-svg\".*?</svg>", text, re.S)
        assert svgs, url
        assert "<i>evil</i>" not in "".join(svgs)
    svg = _forest(site, "agent").select_one("svg.db-svg")
    assert any(XSS_CELL in t.get_text() and not t.select("i") for t in svg.select("text"))


def test_depth_caption_matches_its_axis(site: Path) -> None:
    fig = soup(site, "leaderboards/constraint").select_one("#chart-depth")
    ticks = [int(t.get_text()) for t in fig.select("svg text[font-size='11']") if t.get("text-anchor") == "middle"]
    assert ticks == sorted(ticks) and len(ticks) > 1
    caption = fig.select_one("figcaption").get_text()
    assert f"turns {ticks[0]}–{ticks[-1]}," in caption, caption


# ---------------------------------------------------------------- undefined is "—", never 0


def test_undefined_renders_as_dash(site: Path) -> None:
    doc = soup(site, "submissions/undefined-case")
    rows = doc.select("#table-decomposition tbody tr")
    assert rows
    header = [th.get_text() for th in doc.select("#table-decomposition thead th")]
    col = header.index("bind")
    assert all(r.select("td")[col].get_text() == "—" for r in rows)
    data = json.loads((site / "downloads/submissions/undefined-case/decomposition.json").read_text())
    assert all(r["gds_bind"] is None for r in data["rows"])
    text = (site / "downloads/submissions/undefined-case/decomposition.csv").read_text()
    first = next(csv.DictReader(io.StringIO(text)))
    assert first["gds_bind"] == ""


def test_fmt() -> None:
    assert fmt(None) == "—"
    assert fmt(0) == "0"
    assert fmt(0.0) == "0"
    assert fmt(0.12345) == "0.123"
    assert fmt(float("nan")) == "—"


# ---------------------------------------------------------------- escaping


def test_md_escape_neutralises_html_and_markdown() -> None:
    out = str(md_escape("<script>x</script> [a](javascript:b) *c* `d` | e"))
    assert "<" not in out and "[" not in out and "(" not in out and "*" not in out and "`" not in out
    assert "|" not in out


def test_hostile_strings_are_text(site: Path) -> None:
    doc = soup(site, "submissions/zz-hostile")
    assert doc.select_one(".db-title").get_text() == XSS_TITLE
    assert doc.select_one(".db-authors").get_text() == XSS_AUTHOR
    text = doc.get_text()
    assert XSS_REASON in text
    assert XSS_CELL in text
    for page in all_pages(site):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html, page
        assert "<img src=x" not in html, page
        assert "<i>evil</i>" not in html, page
        d = parsed(page)
        assert not d.select("[onerror]"), page
        assert not [a for a in d.select("a[href]") if a["href"].strip().lower().startswith("javascript:")], page
        for s in d.select("script"):
            assert "alert(" not in (s.string or ""), page
    title = soup(site, "submissions/zz-hostile").title.get_text()
    assert "<" not in title


def test_hostile_cell_gets_a_safe_page(site: Path) -> None:
    cell_dir = site / "results" / "zz-hostile" / slug(XSS_CELL)
    assert re.fullmatch(r"[A-Za-z0-9._-]+", cell_dir.name)
    assert (cell_dir / "index.html").is_file()


# ---------------------------------------------------------------- downloads and links


def test_every_table_downloads_as_csv_and_json(site: Path) -> None:
    checked = 0
    for page in all_pages(site):
        if page.relative_to(site).parts[0] == "runs":
            # run-viewer tables have no downloads of their own: the submission's results file holds every run
            assert not parsed(page).select(".db-downloads"), page
            continue
        doc = parsed(page)
        for box in doc.select("div.db-table"):
            links = box.select(".db-downloads a")
            assert [a.get_text() for a in links] == ["CSV", "JSON"], page
            csv_path = (page.parent / links[0]["href"]).resolve()
            json_path = (page.parent / links[1]["href"]).resolve()
            rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
            data = json.loads(json_path.read_text(encoding="utf-8"))
            table = box.select_one("table")
            n = len(table.select("tbody tr")) if table else 0
            assert len(rows) - 1 == len(data["rows"]) == n, (page, box.get("id"))
            if table:
                # the downloads hold every column; a column with one value in every row is said once above the
                # table (`p.db-once`) instead of shown, and stays a column of the downloads
                labels = [c["label"] for c in data["columns"]]
                shown = [th.get_text() for th in table.select("thead th")]
                said = box.select_one("p.db-once").get_text() if box.select_one("p.db-once") else ""
                assert len(rows[0]) == len(labels) and [x for x in labels if x in shown] == shown, (page, box.get("id"))
                assert all(x in said for x in labels if x not in shown), (page, box.get("id"))
            checked += 1
    assert checked > 50


def test_internal_links_resolve(site: Path) -> None:
    for page in all_pages(site):
        if page.name == "404.html":  # served for any path, so it uses absolute links
            continue
        doc = parsed(page)
        for el in doc.select("a[href], link[href], script[src], div.vega-chart[data-spec]"):
            ref = el.get("href") or el.get("src") or el.get("data-spec")
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith(("#", "mailto:")):
                continue
            target = (page.parent / parts.path).resolve()
            if target.is_dir():
                target = target / "index.html"
            assert target.is_file(), (page.relative_to(site), ref)


def test_no_external_resources(site: Path) -> None:
    for page in all_pages(site):
        doc = parsed(page)
        for el in doc.select("script[src], link[href], img[src], iframe[src]"):
            ref = el.get("src") or el.get("href")
            if el.name == "link" and el.get("rel") == ["canonical"]:
                continue
            assert not urlsplit(ref).scheme and not ref.startswith("//"), (page, ref)
    assert "fonts.googleapis" not in (site / "index.html").read_text()


def test_vendored_licences_beside_files() -> None:
    vendor = Path(__file__).resolve().parent.parent / "site" / "assets" / "vendor"
    for name in ("vega", "vega-lite", "vega-embed", "tablesort"):
        assert (vendor / name / "LICENSE").is_file()
        assert list((vendor / name).glob("*.min.js"))


# ---------------------------------------------------------------- reported, metrics


def test_reported_page_is_distinct(site: Path, tmp_path: Path) -> None:
    doc = soup(site, "reported")
    assert doc.select_one(".admonition.danger")
    rep = tmp_path / "checker" / "harness" / "baselines" / "reported"
    rep.mkdir(parents=True)
    (rep / "arg.csv").write_text("run,gds_bind\nfull1,0.4\nfull2,\n", encoding="utf-8")
    ctx = reported_context(tmp_path)
    [(name, table)] = ctx["sources"]
    assert name == "arg" and table.records() == [{"run": "full1", "gds_bind": "0.4"}, {"run": "full2", "gds_bind": None}]


@pytest.mark.parametrize(("page", "names"), [("metrics/agent", ("gds_bind", "gds_abandon", "drift_total")),
                                              ("metrics/constraint", ("turn_accuracy", "drift_rate"))])
def test_metrics_page_defines_undefined_cases(site: Path, page: str, names: tuple[str, ...]) -> None:
    doc = soup(site, page)
    for name in names:
        h = doc.select_one(f"h2#{name}")
        assert h is not None, name
        assert "Undefined" in h.find_next_sibling("p").find_next_sibling("p").get_text()


# ---------------------------------------------------------------- determinism, errors


def test_generated_sources_are_deterministic(tmp_path: Path) -> None:
    results = fixture_results()
    assemble(results, tmp_path / "a")
    assemble(results, tmp_path / "b")
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_results_order_does_not_matter(tmp_path: Path) -> None:
    from driftboard_tools.generate.results import write_results_dir

    results = fixture_results()
    loaded = load_results(write_results_dir(list(reversed(results)), tmp_path / "r"))
    assert [r.submission_id for r in loaded] == sorted(r.submission_id for r in results)


def test_refuses_to_replace_foreign_docs(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mine.md").write_text("keep me")
    with pytest.raises(UsageError, match="refusing to replace"):
        assemble(fixture_results()[:1], tmp_path / "docs")
    assert (tmp_path / "docs" / "mine.md").read_text() == "keep me"


def test_missing_results_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no results folder"):
        build_site(tmp_path / "nope", tmp_path / "site")


def test_bad_results_file(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "x.json").write_text('{"title": 1}')
    with pytest.raises(UsageError, match="not a Driftboard results file"):
        build_site(tmp_path / "r", tmp_path / "site")


def test_paths() -> None:
    assert pages.url_of("index.md") == ""
    assert pages.url_of("submissions/index.md") == "submissions/"
    assert pages.url_of("results/a/b.md") == "results/a/b/"
    assert pages.root_of("results/a/b.md") == "../../../"
    assert slug("A0") == "A0"
    assert slug("a/b") != slug("a-b") and slug("a/b").startswith("a-b-")


def test_serve_binds_loopback(site: Path) -> None:
    from checker.render.serve import make_server

    server = make_server(site, 0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
    with pytest.raises(UsageError, match="no built site"):
        make_server(site.parent, 0)


def test_build_command_cli(run_line, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from driftboard_tools.generate.results import synthetic_results, write_results_dir

    import checker.pipeline.binding
    import checker.pipeline.verify
    from checker.format.results_io import is_results_name

    results = write_results_dir(synthetic_results(1), tmp_path / "results")
    names = [p.name for p in results.glob("*.json") if is_results_name(p.name)]
    # the command's wiring only: synthetic results stand for a verification (test_publication.py tests the binding)
    monkeypatch.setattr(checker.pipeline.verify, "ensure_results",
                        lambda submissions, results, progress=None: {n.removesuffix(".json") for n in names})
    monkeypatch.setattr(checker.pipeline.binding, "check_binding",
                        lambda *a, **k: checker.pipeline.binding.Checked(accepted=names))
    (tmp_path / "subs").mkdir()
    r = run_line(["build", "--submissions", str(tmp_path / "subs"), "--results", str(results),
                  "--out", str(tmp_path / "site")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "site" / "index.html").is_file()


def test_csv_downloads_neutralise_spreadsheet_formulas() -> None:
    from checker.render.tables import Column, Table

    payloads = ["=HYPERLINK(\"http://evil\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\r=1"]
    table = Table("t", "caption", [Column("text", "Text"), Column("n", "N", numeric=True)],
                  rows=[{"text": p, "n": -1.5} for p in payloads] + [{"text": "plain", "n": None}])
    rows = list(csv.reader(io.StringIO(table.to_csv(), newline="")))
    assert [r[0] for r in rows[1:]] == [*("'" + p for p in payloads), "plain"]
    assert [r[1] for r in rows[1:]] == ["-1.5"] * len(payloads) + [""]   # numbers stay numbers
    assert [r["text"] for r in json.loads(table.to_json())["rows"]] == [*payloads, "plain"]  # JSON unchanged


def test_reported_groups_state_shared_and_blank_columns_once() -> None:
    from checker.render.reported import reported_groups
    from checker.render.tables import Column, Table

    rows = [{"row_kind": "run", "source": "S", "a": "1", "b": None, "c": "x"},
            {"row_kind": "run", "source": "S", "a": "2", "b": None, "c": None},
            {"row_kind": "cell", "source": "T", "a": None, "b": "3", "c": None}]
    groups = reported_groups(Table("arg", "Reported in arg.csv (not verified)",
                                   [Column(k, k) for k in ("row_kind", "source", "a", "b", "c")], rows))
    assert [g["title"] for g in groups] == ["row_kind = run", "row_kind = cell"]
    run, cell = groups
    assert run["constant"] == [("row_kind", "run"), ("source", "S")] and run["blank"] == ["b"]
    assert [c.key for c in run["table"].columns] == ["a", "c"]
    assert run["table"].rows == [{"a": "1", "c": "x"}, {"a": "2", "c": None}]
    assert cell["constant"] == [] and cell["blank"] == ["a", "c"], "one row: nothing is constant, blanks named"
    assert [c.key for c in cell["table"].columns] == ["row_kind", "source", "b"]


def test_a_metric_row_lists_per_seed_values_only_while_they_fit() -> None:
    from checker.format.results_model import MetricAggregate
    from checker.render.cell_page import PER_SEED_SHOWN, _metric_row

    def agg(n: int) -> MetricAggregate:
        values: dict[str, float | int | None] = {f"s{i:03d}": (None if i == 0 else 1) for i in range(n)}
        return MetricAggregate(n_defined=n - 1, n=n, values=values, mean=1.0, min=1, max=1)

    assert _metric_row("claimed", agg(3))["per_seed"] == "s000: —, s001: 1, s002: 1"
    assert _metric_row("claimed", agg(PER_SEED_SHOWN))["per_seed"].count(": ") == PER_SEED_SHOWN
    assert _metric_row("claimed", agg(200))["per_seed"] == "200 values: on each run's page and in the results file"


def test_a_table_with_a_row_limit_shows_its_first_rows_and_downloads_all(tmp_path: Path) -> None:
    from checker.render.tables import Column, Table, write_downloads
    from checker.render.writer import environment

    rows = [{"path": f"runs/r{i:03d}.jsonl", "kind": "a" if i < 3 else "b"} for i in range(30)]
    t = Table("logs", "Run logs", [Column("path", "path"), Column("kind", "kind")], rows, limit=3,
              facets=[("kind", "kind")])
    write_downloads(t, tmp_path, "downloads/x")
    doc = BeautifulSoup(environment().get_template("_table.html.j2").render(t=t, extra_class="", root="../"),
                        "html.parser")
    assert [tr.select("td")[0].get_text() for tr in doc.select("tbody tr")] == [
        "runs/r000.jsonl", "runs/r001.jsonl", "runs/r002.jsonl"]
    assert doc.select_one(".db-more").get_text() == (
        "The first 3 of 30 rows; the CSV and JSON downloads below hold all 30.")
    assert doc.select_one(".db-facets") is None  # the rows shown are all "a": nothing to filter
    assert len(json.loads((tmp_path / "downloads/x/logs.json").read_text())["rows"]) == 30
    with pytest.raises(ValueError, match="needs downloads"):
        Table("runs", "Runs", [Column("path", "path")], rows, limit=3, downloads=False)


def test_a_long_declared_table_shows_the_runs_left_out_first() -> None:
    from checker.format.results_model import SeedOutcome
    from checker.render.cell_page import _declared_table
    from checker.render.tables import LONG_TABLE_ROWS

    class Cell:
        declared = [SeedOutcome(seed=f"s{i:03d}", status="VALID", run_id=f"r{i}") for i in range(LONG_TABLE_ROWS)] + [
            SeedOutcome(seed="s999", status="INVALID", run_id="r999", reason="gate: startup_probe")]

    t = _declared_table(Cell())  # type: ignore[arg-type]
    assert t.shown_rows[0]["seed"] == "s999" and len(t.rows) == LONG_TABLE_ROWS + 1
    assert "those left out of the valid-only figure first" in t.caption
