"""One citation (issue 16 item 4): one base URL everywhere, and the cell page cites byte for byte like `driftboard cite`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from click.testing import CliRunner
from site_fixtures import fixture_results

from checker.cli.cite import cite_command
from checker.cli.main import cli
from checker.format.results_model import ResultsFile
from checker.render import site as site_module
from checker.render.citation import DEFAULT_SITE_URL, cite_text, site_url

REPO = Path(__file__).resolve().parent.parent


def _mkdocs_site_url() -> str:
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    match = re.search(r"^site_url:\s*(\S+)", text, flags=re.MULTILINE)
    assert match, "mkdocs.yml has no site_url"
    return match.group(1)


def test_every_place_names_the_same_base_url() -> None:
    configured = _mkdocs_site_url()
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert configured.startswith("https://") and configured.endswith("/")
    assert cff["url"] == configured
    assert site_url() == configured
    assert configured == site_module.SITE_URL
    assert configured == DEFAULT_SITE_URL


@pytest.fixture(scope="module")
def site(fixture_site: Path) -> Path:
    """The fixture site (`conftest.fixture_site`)."""
    return fixture_site


def test_sitemap_lists_pages_under_the_base_url(site: Path) -> None:
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    assert locs, "the sitemap lists no page (site_url unset?)"
    assert all(loc.startswith(_mkdocs_site_url()) for loc in locs)
    assert _mkdocs_site_url() + "leaderboards/agent/" in locs


def _results_dir(tmp_path: Path, results: list[ResultsFile]) -> Path:
    from driftboard_tools.generate.results import write_results_dir

    return write_results_dir(results, tmp_path / "results")


def test_cell_page_cite_block_equals_the_command(tmp_path: Path) -> None:
    results = fixture_results()
    r = next(x for x in results if x.submission_id == "synthetic-0000")
    # a dated, committed result: the citation names the date and pins the commit
    r = r.model_copy(update={"provenance": r.provenance.model_copy(
        update={"verified": "2026-05-04", "submitted": "2026-05-01", "commit": "c" * 40})})
    results_dir = _results_dir(tmp_path, [r])
    out = CliRunner().invoke(cli, ["cite", "synthetic-0000/FULL", "--results", str(results_dir)])
    assert out.exit_code == 0, out.output
    assert "2026-05-04" in out.output and "c" * 40 in out.output
    assert f"{_mkdocs_site_url()}results/synthetic-0000/FULL/" in out.output
    assert out.output == cite_text(r, "FULL")
    # the cell's board key (its runs play one world; profile driftboard, ranking protocol 1), in both forms
    from driftboard_tools.generate.results import GAME_ID

    key = f"board agent track · world {GAME_ID} · profile driftboard · protocol 1"
    bibtex, plain = out.output.split("\n\n", 1)
    assert f"; {key};" in bibtex and f"; {key};" in plain
    # and the built page shows exactly those bytes
    site_module.build_site(results_dir, tmp_path / "site")
    html = (tmp_path / "site" / "results" / "synthetic-0000" / "FULL" / "index.html").read_text(encoding="utf-8")
    block = BeautifulSoup(html, "html.parser").select_one("pre.db-cite-text code")
    assert block is not None
    assert block.get_text() == out.output
    # the page names the cell's board key and its verdict there
    page = BeautifulSoup(html, "html.parser")
    board = page.select_one(".db-board")
    assert board is not None and f"board {board.get_text()}" == key
    verdict = page.select_one(".db-ranking")
    assert verdict is not None and verdict.get_text() == "ranked on board agent:" + GAME_ID + ":driftboard:p1"


def test_every_cell_page_of_the_fixture_site_cites_like_the_command(site: Path) -> None:
    for r in fixture_results():
        for c in r.cells[:2]:
            from checker.render.text import slug

            html = (site / "results" / slug(r.submission_id) / slug(c.cell) / "index.html").read_text(encoding="utf-8")
            block = BeautifulSoup(html, "html.parser").select_one("pre.db-cite-text code")
            assert block is not None and block.get_text() == cite_text(r, c.cell)


def test_cite_unknown_cell_is_bad_usage(tmp_path: Path) -> None:
    results_dir = _results_dir(tmp_path, fixture_results()[:1])
    with pytest.raises(Exception, match="has no cell"):
        cite_command("synthetic-0000/NOPE", results_dir)
