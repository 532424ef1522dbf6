"""The site build pipeline: run pages outside MkDocs in the theme's shell, a streaming build, the project root."""

from __future__ import annotations

import gc
import json
import re
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from driftboard_tools.generate.results import synthetic_results, write_results_dir

from checker.format.errors import UsageError
from checker.format.results_io import read_results
from checker.render import pages, shell, site, stream
from checker.render.citation import site_url
from checker.render.evidence import cell_coverage, submission_coverage

REPO = Path(__file__).resolve().parent.parent


def _doc(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_run_pages_are_whole_theme_pages_with_their_own_title_and_url(fixture_site: Path) -> None:
    url = "runs/synthetic-0000/synthetic-0000-FULL-s1/"
    doc = _doc(fixture_site / url / "index.html")
    other = _doc(fixture_site / "results/synthetic-0000/FULL/index.html")  # built by MkDocs, same depth
    assert doc.title.get_text() == "Run synthetic-0000-FULL-s1 - Driftboard"
    assert doc.select_one('link[rel="canonical"]')["href"] == site_url() + url
    # the theme's stylesheets and scripts, exactly as on a page MkDocs built at the same depth, and the run
    # viewer's own stylesheet (run pages only: other pages do not load it)
    assert [x["href"] for x in doc.select('link[rel="stylesheet"]')] == \
        [x["href"] for x in other.select('link[rel="stylesheet"]')] + ["../../../assets/run-viewer.css"]
    assert (fixture_site / "assets" / "run-viewer.css").is_file()
    assert [x.get("src") for x in doc.select("script[src]")] == [x.get("src") for x in other.select("script[src]")]
    assert doc.select_one("header.md-header") is not None and doc.select_one("form.md-search__form") is not None
    assert doc.select_one("a.md-skip")["href"] == "#run"
    # one h1, the run's, inside the article; the body is the run viewer's
    article = doc.select_one("article")
    assert [h.get_text() for h in article.select("h1")] == ["Run synthetic-0000-FULL-s1¶"]
    assert article.select_one("#table-gate tbody tr") is not None
    # run pages are not in the navigation (linked from cell pages: test_site_links)
    assert not any("runs/" in a["href"] for a in doc.select("nav.md-nav--primary a[href]"))


def test_a_second_page_of_a_run_sits_one_level_deeper_with_links_one_level_longer(cases_site: Path) -> None:
    # the minimal agent case, built with two timeline rows per run page (`conftest.cases_site`)
    second = sorted((cases_site / "site" / "runs" / "minimal-agent").glob("*/turns-2/index.html"))
    assert second, "a run of more than two timeline events continues on turns-2/"
    doc = _doc(second[0])
    css = [x["href"] for x in doc.select('link[rel="stylesheet"]')]
    assert css and all(h.startswith("../../../../") for h in css if not h.startswith("http"))
    assert all((second[0].parent / h).resolve().is_file() for h in css)


def test_no_shell_page_is_published_and_the_sitemap_lists_run_pages(fixture_site: Path) -> None:
    assert not (fixture_site / shell.SHELL_ROOT).exists()
    assert not any(shell.SHELL_ROOT in p.read_text(encoding="utf-8") for p in fixture_site.rglob("*.html"))
    sitemap = (fixture_site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]*)</loc>", sitemap)
    assert shell.SHELL_ROOT not in sitemap
    runs = sorted(p.parent.relative_to(fixture_site).as_posix() + "/" for p in (fixture_site / "runs").rglob("index.html"))
    assert runs and [site_url() + u for u in runs] == [x for x in locs if "/runs/" in x]
    every = {site_url() + (p.parent.relative_to(fixture_site).as_posix() + "/").removeprefix("./")
             for p in fixture_site.rglob("index.html")}
    assert len(locs) == len(set(locs)) and set(locs) == every


def test_sitemap_with_runs_replaces_the_shell_entries(tmp_path: Path) -> None:
    (tmp_path / shell.STAGE).mkdir()
    (tmp_path / shell.SITEMAP_LIST).write_text(json.dumps(["runs/a/b/", "runs/a/b/turns-2/"]))
    base = "https://x.example/p/"
    entry = "\n    <url>\n         <loc>{}</loc>\n         <lastmod>1970-01-01</lastmod>\n    </url>"
    sitemap = ('<urlset>' + entry.format(base + "_db-shell/a/b/") + entry.format(base + "_db-shell/a/b/c/")
               + entry.format(base + "z/") + "\n</urlset>")
    want = ('<urlset>' + entry.format(base + "runs/a/b/") + entry.format(base + "runs/a/b/turns-2/")
            + entry.format(base + "z/") + "\n</urlset>")
    assert shell.sitemap_with_runs(sitemap, tmp_path) == want


def test_the_build_holds_one_whole_results_file_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Structural, not timed: every whole results file read is released before the next is read."""
    results = write_results_dir(synthetic_results(6, seed=3), tmp_path / "r")
    refs: list[weakref.ref[object]] = []
    most = [0]

    def alive() -> int:
        gc.collect()
        return sum(1 for x in refs if x() is not None)
    read = stream.read_results

    def tracked(path: Path):  # type: ignore[no-untyped-def]
        most[0] = max(most[0], alive() + 1)
        r = read(path)
        refs.append(weakref.ref(r))
        return r

    seen: list[list[object]] = []
    home = pages.home_context

    def home_context(results, *args, **kw):  # type: ignore[no-untyped-def]
        seen.append([alive(), *results])
        return home(results, *args, **kw)

    monkeypatch.setattr(stream, "read_results", tracked)
    monkeypatch.setattr(pages, "home_context", home_context)
    site.build_site(results, tmp_path / "site")
    assert most[0] == 1, f"{most[0]} whole results files were alive at once"
    assert seen and seen[0][0] == 0, "the pages across submissions are built after every whole file was released"
    assert len(seen[0]) - 1 == 6


def test_light_records_keep_coverage_and_drop_per_turn_records(cases_site: Path) -> None:
    full = read_results(cases_site / "results" / "minimal-constraint.json")
    lite = stream.light(full)
    assert any(run.turns for run in full.runs)
    for c in full.cells:
        assert cell_coverage(lite, c) == cell_coverage(full, c)
    assert submission_coverage(lite) == submission_coverage(full)
    stubs = [t for run in lite.runs for t in run.turns or []]
    assert len(stubs) == sum(len(run.turns or []) for run in full.runs)
    assert len({id(t) for t in stubs}) == len({t.problem_id for t in stubs})  # one shared stub per problem
    with pytest.raises(AttributeError):
        stubs[0].correct  # noqa: B018  (a stub never answers with a wrong value)
    assert lite.cells == full.cells and [r.gate for r in lite.runs] == [r.gate for r in full.runs]


def test_project_root_is_the_folder_given_or_the_current_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match=r"no mkdocs\.yml"):
        site.project_root(empty)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "mkdocs.yml", project / "mkdocs.yml")
    assert site.project_root(project) == project
    # a non-editable install: the package is not in a checkout; the current folder is the project
    monkeypatch.setattr(site, "REPO", tmp_path / "site-packages")
    monkeypatch.chdir(project)
    assert site.project_root() == project
    monkeypatch.chdir(empty)
    with pytest.raises(UsageError, match="run `driftboard build` from the project root"):
        site.project_root()


def test_build_without_mkdocs_yml_exits_2_with_one_line(tmp_path: Path) -> None:
    results = write_results_dir(synthetic_results(1), tmp_path / "r")
    (tmp_path / "empty").mkdir()
    proc = subprocess.run([sys.executable, "-m", "checker", "build", "--no-verify", "--results", str(results),
                           "--out", str(tmp_path / "site"), "--project", str(tmp_path / "empty")],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("Error: ") and "no mkdocs.yml" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "site").exists()


def test_build_uses_the_project_s_pages_and_changelog(tmp_path: Path) -> None:
    """A project root elsewhere than the package: its site/ pages and CHANGELOG.md are what the site shows."""
    project = tmp_path / "project"
    shutil.copytree(REPO / "site", project / "site")
    shutil.copy(REPO / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(REPO / "checker" / "render" / "theme", project / "checker" / "render" / "theme")
    shutil.copy(REPO / "checker" / "render" / "hooks.py", project / "checker" / "render" / "hooks.py")
    older = "".join(f"### Changed ({d})\n" + "- older entry\n" * 2_000 for d in ("2026-11-02", "2026-11-01"))
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## Unreleased\n\n- only in this project\n" + older,
                                          encoding="utf-8")
    results = write_results_dir(synthetic_results(1), tmp_path / "r")
    site.build_site(results, tmp_path / "out" / "site", project=project)
    out = tmp_path / "out" / "site" / "changelog"
    first = (out / "software" / "index.html").read_text(encoding="utf-8")
    assert "only in this project" in first and "2026-11-01" not in first
    # 28,000 characters per older section: each continues on a page of its own, linked both ways
    assert 'href="../software-2/"' in first
    third = (out / "software-3" / "index.html").read_text(encoding="utf-8")
    assert "Changed (2026-11-01)" in third and 'href="../software-2/"' in third and not (out / "software-4").exists()


def test_the_software_changelog_continues_on_pages_of_bounded_size() -> None:
    """Sections are never cut; a page starting inside a `##` section repeats its heading, marked continued."""
    from checker.render.reference_pages import changelog_pages

    a = "## Unreleased\n\n### Added\n" + "x" * 50 + "\n"  # 73 characters
    b = "### Changed\n" + "y" * 80 + "\n"  # 93
    c = "## 1.0\n" + "z" * 10 + "\n"  # 18
    assert changelog_pages(a + b + c, limit=100) == [a, "## Unreleased (continued)\n\n" + b, c]
    assert changelog_pages(a + b + c, limit=1_000) == [a + b + c]
    assert changelog_pages("", limit=10) == [""]


def test_md_escape_fast_path_matches_the_character_by_character_escape() -> None:
    """Plain ASCII takes one `str.translate`; it must give exactly what the per-character escape gives."""
    import random

    from checker.render.text import _md_escape_each, md_escape

    cases = ["".join(chr(i) for i in range(128)), "a*b_c [x](y) <b>&\"'", "tab\there\r\nx", "é ünï", "\u202e evil",
             "x\x1b[31m", "\x7f", ""]
    rng = random.Random(1)
    cases += ["".join(chr(rng.randrange(0, 130)) for _ in range(rng.randrange(0, 20))) for _ in range(3000)]
    assert [str(md_escape(c)) for c in cases] == [str(_md_escape_each(c)) for c in cases]
    assert str(md_escape("<a href=x>")) == "&#60;a href=x&#62;"  # hand-written: every special as &#N;


def test_table_json_download_is_byte_for_byte_what_json_dumps_writes() -> None:
    """The downloads' JSON is written without json's pure-Python indenting encoder: same bytes as the stdlib's."""
    import random

    from checker.render.tables import Column, Table

    def reference(t: Table) -> str:
        doc = {"caption": t.caption, "columns": [{"key": c.key, "label": c.label} for c in t.columns],
               "rows": t.records()}
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"

    rng = random.Random(3)

    def value() -> object:
        return [None, True, False, rng.randint(-10**12, 10**12), rng.random() * 10 ** rng.randint(-8, 20),
                "".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(6))), 0.0][rng.randrange(7)]

    for _ in range(2000):
        cols = [Column("".join(chr(rng.randrange(32, 0x300)) for _ in range(rng.randrange(1, 5))), f'L"{i}')
                for i in range(rng.randrange(0, 5))]
        t = Table("t", f"cap\u2028\"\\{rng.random()}", cols, [{c.key: value() for c in cols} for _ in range(rng.randrange(4))])
        assert t.to_json() == reference(t)
    with pytest.raises(ValueError):
        Table("t", "c", [Column("a", "a")], [{"a": float("nan")}]).to_json()
