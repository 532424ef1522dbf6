"""`driftboard build`: verified results -> generated Markdown/JSON/CSV -> `mkdocs build --strict`.

Layout of a build into `OUT` (default `build/site`):

* `OUT/../docs` (or `OUT-docs` when OUT is not named `site`): the assembled MkDocs sources:
  the hand-written pages and assets copied from `site/`, `CHANGELOG.md` as `changelog.md`, and the
  generated pages (home, leaderboards, submissions, cell permalinks, reported, metrics), chart
  specs (`assets/charts/`), table downloads (`downloads/`) and JSON Schemas (`schema/`);
* `OUT`: the static site MkDocs Material builds from them, with `mkdocs.yml` from the repository
  root as the base config (nav and paths are set here).

Per-submission and per-cell pages are left out of the navigation (they are linked from index
pages), which keeps the build linear in the number of pages. Run pages do not go through MkDocs at
all: their bodies are rendered to HTML and put into the theme's page shell (`checker.render.shell`).
The build streams the results: one submission's results file in memory at a time, the pages
across submissions built from light records (`checker.render.stream`). The generated sources are
deterministic: the same results give byte-identical files, and so does the site MkDocs builds from
them (it gets a fixed `SOURCE_DATE_EPOCH`, see `BUILD_EPOCH`; `tests/test_determinism.py`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from checker.format.errors import DriftboardError, UsageError
from checker.format.logio import file_sha256
from checker.format.results_model import ResultsFile
from checker.pipeline.releases import RELEASES_DIR, read_releases
from checker.render import pages
from checker.render.citation import site_url
from checker.render.context import ChartRef, MetricsContext, ReportedContext, page
from checker.render.hooks import fragments_path
from checker.render.metrics import METRICS, documented
from checker.render.paths import url_of
from checker.render.releases import release_files, release_label, results_changelog
from checker.render.reported import part_path, reported_parts
from checker.render.runs import repository_url, run_pages
from checker.render.shell import Stager, publish_runs, write_shell_sources
from checker.render.stream import iter_results, light, results_paths
from checker.render.tables import Column, Table, write_downloads
from checker.render.text import fmt, md_escape, slug, sort_key

REPO = Path(__file__).resolve().parents[2]
"""The checkout the package runs from (an editable install); not a project root once installed with `pip install .`."""
TEMPLATES = Path(__file__).resolve().parent / "templates"
TRACKS = ("agent", "constraint", "completion")
SITE_URL = site_url()
"""The one base URL (`site_url` in mkdocs.yml; `checker.render.citation`)."""
REPORTED_DIRS = ("checker/harness/baselines/reported", "data/reported")
"""Where the "reported, not verified" datasets live (CSV or JSON files), first existing wins."""
STAGE = ".driftboard-stage"
"""Folder in the site folder where downloads wait while MkDocs builds (it never empties dot folders)."""
MARKER = ".driftboard-generated"
"""Marks an assembled docs folder, so a build never deletes a folder it did not write."""
BUILD_EPOCH = "0"
"""`SOURCE_DATE_EPOCH` MkDocs builds with unless the caller set one (reproducible-builds.org spec).

MkDocs 1.6 stamps the build date (UTC) into `sitemap.xml` (`<lastmod>`, written only when
`site_url` is set) and into the gzip header of `sitemap.xml.gz`; it reads `SOURCE_DATE_EPOCH`
instead of the clock when it is set. 0 is the gzip format's "no time stamp" (RFC 1952): the
site carries no build time, so building the same results on another day gives the same bytes.
"""


class SiteBuildError(DriftboardError):
    """The site could not be built (MkDocs reported warnings in strict mode, bad results, ...)."""


def environment() -> jinja2.Environment:
    """The one Jinja environment: autoescape on, undefined is an error, Markdown-safe filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    env.filters["md"] = md_escape
    env.filters["fmt"] = fmt
    env.filters["sortkey"] = lambda v: "-Infinity" if v is None else sort_key(v)
    # facet filters match rows by a digest of the value: no submitted string in an attribute
    env.filters["facetkey"] = lambda v: hashlib.sha256(str(v).encode("utf-8")).hexdigest()[:16]
    return env


def load_results(results_dir: Path, only: set[str] | None = None) -> list[ResultsFile]:
    """Every results file in the folder (not `index.json`, not shards), or those of `only`, sorted by id."""
    out = list(iter_results(results_paths(results_dir, only)))
    ids = [r.submission_id for r in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise UsageError(f"{results_dir}: submission id(s) appear in more than one results file: {', '.join(dupes)}")
    return sorted(out, key=lambda r: r.submission_id)


def results_of_tree(submissions: Path, results_dir: Path) -> set[str]:
    """Ids of the results files in `results_dir` that were verified from this tree's `submissions`.

    A results file belongs to the tree when its submission folder is under `submissions` and every
    log it names exists with the recorded SHA-256 (`build --no-verify` after `verify` or `merge`):
    results left by tests, another branch or an older tree are not published.
    """
    from checker.format.results_io import INDEX, read_results

    tree = submissions.resolve()
    out: set[str] = set()
    for path in sorted(results_dir.glob("*.json")):
        if path.name == INDEX or path.name.startswith("shard-"):
            continue
        r = read_results(path)
        folder = Path(r.reproduce.removeprefix("driftboard verify ").strip())
        if not folder.resolve().is_relative_to(tree) or not folder.is_dir() or _manifest_id(folder) != r.submission_id:
            continue
        if all(_sha256(Path(log.path)) == log.sha256 for log in r.logs):
            out.add(r.submission_id)
    return out


def stray_results(results_dir: Path, only: set[str] | None) -> list[str]:
    """Results files in `results_dir` whose submission is not in `only` (left out of the build), sorted."""
    from checker.format.results_io import INDEX

    if only is None:
        return []
    return sorted(p.stem for p in results_dir.glob("*.json")
                  if p.name != INDEX and not p.name.startswith("shard-") and p.stem not in only)


def _manifest_id(folder: Path) -> str | None:
    """The `id:` of a submission folder's manifest (a top-level scalar line; None when absent)."""
    import re

    try:
        text = (folder / "submission.yaml").read_text(encoding="utf-8")[:1_000_000]
    except (OSError, UnicodeDecodeError):
        return None
    match = re.search(r"^id:[ \t]*['\"]?([^'\"\s#]+)", text, flags=re.MULTILINE)
    return match.group(1) if match else None


def _sha256(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def docs_dir_for(out: Path) -> Path:
    """Where the MkDocs sources for a site at `out` are assembled."""
    return out.parent / "docs" if out.name == "site" else out.parent / f"{out.name}-docs"


class _Writer:
    """Writes generated files, rendering Tables' downloads on the way."""

    def __init__(self, docs: Path, downloads: Path | None = None) -> None:
        self.docs = docs
        self.downloads = downloads or docs
        """Where `downloads/` is written: the docs folder, or a staging folder moved into the site after MkDocs."""
        self.env = environment()
        self.made: set[Path] = set()

    def text(self, rel: str, content: str) -> None:
        path = self.docs / rel
        if path.parent not in self.made:  # one mkdir per folder, not per file (thousands of pages)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(path.parent)
        path.write_text(content, encoding="utf-8")

    def page(self, rel: str, template: str, ctx: Any) -> None:
        """Render a page: tables and charts become fragments (see `hooks.py`), the rest Markdown."""
        prefix = "downloads/" + rel.removesuffix(".md")
        for table in _tables_in(ctx):
            write_downloads(table, self.downloads, prefix, self.made)
        fragments: list[str] = []
        table_t = self.env.get_template("_table.html.j2")
        chart_t = self.env.get_template("_chart.html.j2")

        def slot(html: str) -> Markup:
            fragments.append(html.strip("\n"))
            return Markup(f'<div class="db-slot" data-slot="{len(fragments) - 1}"></div>')

        def tbl(t: Table, extra_class: str = "") -> Markup:
            return slot(table_t.render(t=t, extra_class=extra_class, root=ctx["root"]))

        def chart(c: ChartRef) -> Markup:
            return slot(chart_t.render(c=c, root=ctx["root"]))

        def block(name: str, **kw: Any) -> Markup:
            """A partial rendered to HTML and put in after Markdown (byte-exact text such as a citation)."""
            return slot(self.env.get_template(name).render(**kw, root=ctx["root"]))

        self.text(rel, self.env.get_template(template).render(**ctx, tbl=tbl, chart=chart, block=block))
        if fragments:
            self.text(fragments_path(Path("."), rel).as_posix(),
                      json.dumps(fragments, ensure_ascii=False, indent=0) + "\n")

    def html(self, template: str, ctx: Any) -> str:
        """Render a page body straight to HTML (no Markdown pass): tables inline, no downloads (run pages)."""
        table_t = self.env.get_template("_table.html.j2")

        def tbl(t: Table, extra_class: str = "") -> Markup:
            if t.downloads:
                raise SiteBuildError(f"internal: table {t.name!r} on an HTML page asks for downloads")
            return Markup(table_t.render(t=t, extra_class=extra_class, root=ctx["root"]).strip("\n"))

        return self.env.get_template(template).render(**ctx, tbl=tbl)


def _tables_in(ctx: Any) -> list[Table]:
    """Every Table reachable from a context (top-level, in lists, in charts, in (name, table) pairs)."""
    found: list[Table] = []

    def visit(v: Any) -> None:
        if isinstance(v, Table):
            found.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)
        elif isinstance(v, list | tuple):
            for x in v:
                visit(x)

    visit(ctx)
    names = [t.name for t in found]
    clash = {n for n in names if names.count(n) > 1}
    if clash:
        raise SiteBuildError(f"internal: duplicate table names on one page: {sorted(clash)}")
    return found


def reported_context(repo: Path) -> ReportedContext:
    """Tables of the reported-not-verified datasets (CSV: header row; JSON: a list of objects)."""
    src = next((repo / d for d in REPORTED_DIRS if (repo / d).is_dir()), None)
    sources: list[tuple[str, Table]] = []
    if src is not None:
        for path in sorted(src.iterdir()):
            rows: list[dict[str, Any]]
            if path.suffix == ".csv":
                with path.open(encoding="utf-8", newline="") as fh:
                    rows = list(csv.DictReader(fh))
            elif path.suffix == ".json":
                data = json.loads(path.read_text(encoding="utf-8"))
                data = data.get("rows", data) if isinstance(data, dict) else data
                if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
                    continue
                rows = [{k: (v if v is None or isinstance(v, str | int | float | bool) else json.dumps(v))
                         for k, v in r.items()} for r in data]
            else:
                continue
            keys: list[str] = []
            for r in rows:
                keys.extend(k for k in r if k not in keys)
            rows = [{k: (None if r.get(k) in ("", None) else r.get(k)) for k in keys} for r in rows]
            name = slug(path.stem)
            sources.append((name, Table(name, f"Reported in {path.name} (not verified)",
                                        [Column(k, k) for k in keys], rows)))
    return {**page("../", "Reported, not verified"),  # type: ignore[typeddict-item]
            "sources": sources, "source_dir": (src.relative_to(repo).as_posix() if src else REPORTED_DIRS[0]) + "/"}


METRIC_PAGES = (("agent", "Agent track", "metrics/agent.md"), ("constraint", "Constraint track", "metrics/constraint.md"),
                ("completion", "Completion track", "metrics/completion.md"))
"""Tracks whose metric entries have a page of their own (page weight: one page of every entry loaded over 300 KB)."""


def metrics_context(results: list[ResultsFile], track: str | None = None) -> MetricsContext:
    """Definitions, plus any metric present in results that has no definition yet.

    `track`: the context of that track's page (`METRIC_PAGES`); None: the first page (metrics of both tracks,
    the undocumented ones, links to the tracks' pages).
    """
    if track is not None:
        label = next(lab for t, lab, _rel in METRIC_PAGES if t == track)
        return {**page("../../", f"Metrics: {label.lower()}"),  # type: ignore[typeddict-item]
                "metrics": METRICS, "undocumented": [], "sections": [(track, label)], "subpages": []}
    seen = {name for r in results for c in r.cells for name in c.metrics}
    return {**page("../", "Metrics"),  # type: ignore[typeddict-item]
            "metrics": METRICS, "undocumented": sorted(seen - documented()), "sections": [("both", "Both tracks")],
            "subpages": [(label, rel) for _t, label, rel in METRIC_PAGES]}


def assemble(results: Iterable[ResultsFile], docs: Path, repo: Path = REPO, logs_root: Path | None = None,
             downloads: Path | None = None) -> list[Any]:
    """Write every MkDocs source into `docs` (emptied first); returns the nav.

    `results` are consumed one at a time (a generator reading each results file when asked keeps
    one submission's whole results in memory): each submission's own pages (submission, cells and
    the run pages' bodies, staged for `checker.render.shell`) are written from it, and only its
    light record (`checker.render.stream.light`) is kept for the pages across submissions.
    `repo`: the project root (hand-written pages in `site/`, `CHANGELOG.md`, `CITATION.cff`,
    `mkdocs.yml`'s site URL). `logs_root`: where the results' run paths resolve (the tree being
    built), for the agent run timelines; None builds run pages without timelines. `downloads`: where
    the tables' CSV/JSON downloads (`downloads/...`) are written instead of the docs folder (`build_site`
    moves them into the site after MkDocs, which then neither lists nor copies thousands of files).

    Raises:
        UsageError: two results files hold the same submission id; `docs` was not written by a build.
    """
    marker = docs / MARKER
    if docs.exists():
        if any(docs.iterdir()) and not marker.is_file():
            raise UsageError(f"{docs}: exists and was not written by `driftboard build`; refusing to replace it "
                             "(choose another --out)")
        shutil.rmtree(docs)
    docs.mkdir(parents=True)
    marker.write_text("Generated by `driftboard build`; replaced on every build.\n", encoding="utf-8")
    site_src = repo / "site"
    if site_src.is_dir():
        shutil.copytree(site_src, docs, dirs_exist_ok=True)
    base_url = site_url(repo / "mkdocs.yml")
    repository = repository_url(repo)
    w = _Writer(docs, downloads)
    charts: dict[str, str] = {}
    releases = read_releases(repo / RELEASES_DIR)  # committed release files: archived pages, changelog, citations
    stager = Stager(docs)
    lights: dict[str, ResultsFile] = {}
    for r in results:
        if r.submission_id in lights:
            raise UsageError(f"submission id {r.submission_id!r} appears in more than one results file")
        w.page(pages.submission_path(r), "submission.md.j2", pages.submission_context(r, charts, base_url))
        for c in r.cells:
            w.page(pages.cell_path(r, c.cell), "cell.md.j2", pages.cell_context(r, c, base_url, charts, releases))
        stager.begin()
        for run in r.runs:  # page by page: a long run's bodies are never all in memory
            for rel, ctx in run_pages(r, run, logs_root, repository):
                stager.add(url_of(rel), ctx["page_title"], w.html("run.html.j2", ctx))
        lights[r.submission_id] = light(r)
        del r  # the whole results file is released here; only the light record stays
        for rel, text in charts.items():
            w.text(rel, text)
        charts.clear()
    stager.finish()
    write_shell_sources(docs)
    summaries = [lights[k] for k in sorted(lights)]
    del lights
    label = release_label(releases, summaries, pages.release_of(summaries))

    w.page("index.md", "index.md.j2", {**pages.home_context(summaries, list(TRACKS), charts), "release": label})
    for track in TRACKS:
        w.page(f"leaderboards/{track}.md", "leaderboard.md.j2",
               {**pages.track_context(track, summaries, charts, (docs / f"tracks/{track}.md").is_file()),
                "release": label})
    w.page("submissions/index.md", "submissions.md.j2", pages.submissions_context(summaries))
    reported = reported_context(repo)
    w.page("reported.md", "reported.md.j2", reported)
    for name, table in reported["sources"]:
        parts = reported_parts(table)
        links = [{"href": part_path(name, i).removeprefix("reported/"), "titles": [g["title"] for g in groups]}
                 for i, groups in enumerate(parts, start=1)]
        for i, groups in enumerate(parts, start=1):
            w.page(part_path(name, i), "reported_source.md.j2",
                   {**page("../../", table.caption + (f", part {i} of {len(parts)}" if len(parts) > 1 else "")),
                    "table": table, "groups": groups, "source_dir": reported["source_dir"], "part": i,
                    "parts": links if len(parts) > 1 else []})
    w.page("metrics.md", "metrics.md.j2", metrics_context(summaries))
    for track, _label, rel in METRIC_PAGES:
        w.page(rel, "metrics.md.j2", metrics_context(summaries, track))
    for rel, text in sorted(charts.items()):
        w.text(rel, text)

    from checker.format.schema.export import write_schemas

    schema_files = write_schemas(docs / "schema")
    if (docs / "format.md").is_file():
        listing = "\n".join(f"- [`{p.name}`](schema/{p.name})" for p in sorted(schema_files))
        extra = ("\n\n## JSON Schemas\n\nGenerated at build time from the same pydantic models the checker uses "
                 f"(`driftboard schema --out DIR` writes the same files):\n\n{listing}\n")
        w.text("format.md", (docs / "format.md").read_text(encoding="utf-8").rstrip("\n") + extra)
    if (repo / "CHANGELOG.md").is_file():
        software = (repo / "CHANGELOG.md").read_text(encoding="utf-8").removeprefix("# Changelog\n")
        w.text("changelog.md", results_changelog(releases, summaries) + software)
    for rel, text in release_files(releases, summaries, w.downloads).items():
        w.text(rel, text)
    if not (docs / "submit.md").is_file():
        w.text("submit.md", "# How to submit\n\nOpen a pull request adding `submissions/<id>/` with "
               "`submission.yaml`, `prereg.yaml` and `runs/*.jsonl` (see [the log format](format.md)); "
               "CI runs `driftboard verify` on it.\n")
    return nav(docs)


def nav(docs: Path) -> list[Any]:
    """The global navigation: index pages only (per-submission and per-cell pages are not listed)."""
    def have(rel: str) -> bool:
        return (docs / rel).is_file()

    items: list[Any] = [{"Home": "index.md"},
                        {"Leaderboards": [{"Agent track": "leaderboards/agent.md"},
                                          {"Constraint track": "leaderboards/constraint.md"},
                                          {"Completion track": "leaderboards/completion.md"}]},
                        {"Submissions": "submissions/index.md"},
                        {"Releases": "releases/index.md"},
                        {"Reported, not verified": "reported.md"},
                        {"Metrics": [{"Overview and both tracks": "metrics.md"},
                                     *({label: rel} for _t, label, rel in METRIC_PAGES)]}]
    tracks = [{label: rel} for label, rel in (("Agent track", "tracks/agent.md"),
                                              ("Constraint track", "tracks/constraint.md"),
                                              ("Completion track", "tracks/completion.md")) if have(rel)]
    if tracks:
        items.append({"Track definitions": tracks})
    performance: list[Any] = [{"Overview": "performance.md"}] + [
        {label: rel} for label, rel in (("Page weight", "performance/page-weight.md"),
                                        ("Agent verify against json.loads", "performance/agent-verify.md"),
                                        ("Scale", "performance/scale.md"), ("Fuzzing", "performance/fuzzing.md"))
        if have(rel)]
    items += [{label: rel} for label, rel in (("Reference baselines", "baselines.md"),
                                              ("How to submit", "submit.md"), ("Run with Inspect", "inspect.md"),
                                             ("Log format", "format.md"), ("Changelog", "changelog.md")) if have(rel)]
    if have("performance.md"):  # after the baselines, as before: its own pages as a section
        at = next((i + 1 for i, x in enumerate(items) if "Reference baselines" in x), len(items))
        items.insert(at, {"Performance": performance} if len(performance) > 1 else {"Performance": "performance.md"})
    return items


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}: {record.getMessage()}")


@contextmanager
def build_epoch() -> Iterator[None]:
    """Set `SOURCE_DATE_EPOCH` to `BUILD_EPOCH` unless already set; restore the environment after.

    Raises:
        UsageError: the caller's `SOURCE_DATE_EPOCH` is not a whole number of seconds.
    """
    previous = os.environ.get("SOURCE_DATE_EPOCH")
    if previous is not None:
        if not (previous.isascii() and previous.isdigit() and int(previous) < 2**32):  # gzip's MTIME is 32 bits
            raise UsageError(f"SOURCE_DATE_EPOCH={previous!r}: must be a whole number of seconds since "
                             "1970-01-01 UTC, below 2**32 (unset it to build with the default, 0)")
    else:
        os.environ["SOURCE_DATE_EPOCH"] = BUILD_EPOCH
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)


def run_mkdocs(docs: Path, out: Path, nav_items: list[Any], config: Path | None = None) -> None:
    """`mkdocs build --strict` with the repository's `mkdocs.yml`, pointed at `docs` and `out`.

    Raises:
        SiteBuildError: MkDocs aborted (any warning in strict mode); the warnings are listed.
    """
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    cfg_file = config or project_root() / "mkdocs.yml"
    if not cfg_file.is_file():
        raise UsageError(f"{cfg_file}: no MkDocs config (run from the project root, or pass --project DIR)")
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    propagate = logger.propagate
    logger.propagate = False
    try:
        cfg = load_config(config_file=str(cfg_file), docs_dir=str(docs.resolve()), site_dir=str(out.resolve()),
                          nav=nav_items, strict=True)
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            with build_epoch():
                build(cfg)
        finally:
            cfg.plugins.on_shutdown()
    except (MkDocsException, SystemExit) as exc:
        details = "\n".join(handler.messages[:50])
        raise SiteBuildError(f"mkdocs build --strict failed: {exc}\n{details}".rstrip()) from None
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def project_root(given: Path | None = None) -> Path:
    """The project the site is built for: the folder holding `mkdocs.yml` (and `site/`, `CHANGELOG.md`).

    `given` (`driftboard build --project DIR`) must hold `mkdocs.yml`. Otherwise the current
    folder when it holds one (a checkout with the package installed by `pip install .`), else the
    checkout the package runs from (an editable install run from elsewhere).

    Raises:
        UsageError: no `mkdocs.yml` where looked (exit 2).
    """
    if given is not None:
        if not (given / "mkdocs.yml").is_file():
            raise UsageError(f"{given}: no mkdocs.yml here; --project must be the project root (the folder holding "
                             "mkdocs.yml and site/)")
        return given
    for candidate in (Path.cwd(), REPO):
        if (candidate / "mkdocs.yml").is_file():
            return candidate
    raise UsageError(f"no mkdocs.yml in {Path.cwd()}: run `driftboard build` from the project root (the folder "
                     "holding mkdocs.yml and site/), or pass --project DIR")


def build_site(results_dir: Path, out: Path, only: set[str] | None = None, logs_root: Path | None = None,
               project: Path | None = None) -> int:
    """Render the verified results in `results_dir` into a static site at `out`; returns 0.

    `only`: the submission ids to render (the tree being built; see `results_of_tree`); None renders
    every results file in the folder (tests and benchmarks that wrote the folder themselves).
    `logs_root`: where run paths resolve, to draw agent run timelines from the logs (None: none).
    `project`: the project root (`project_root`). Results are read one file at a time (`assemble`).

    Raises:
        UsageError: no mkdocs.yml, the results folder is missing or holds a file that is not a results file.
        SiteBuildError: MkDocs reported a problem (strict mode).
    """
    root = project_root(project)
    paths = results_paths(results_dir, only)
    docs = docs_dir_for(out)
    stage = out / STAGE  # a dot folder: MkDocs leaves it when it empties `out`
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    nav_items = assemble(iter_results(paths), docs, repo=root, logs_root=logs_root, downloads=stage)
    run_mkdocs(docs, out, nav_items, config=root / "mkdocs.yml")
    publish_runs(docs, out)
    if (stage / "downloads").is_dir():
        if (out / "downloads").exists():  # hand-written downloads in site/: merge
            shutil.copytree(stage / "downloads", out / "downloads", dirs_exist_ok=True)
        else:
            (stage / "downloads").rename(out / "downloads")
    shutil.rmtree(stage)
    return 0
