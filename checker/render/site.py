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
across submissions built from light records (`checker.render.stream`), each track's board ranked
once for the home and track pages. `assemble` runs the steps: the hand-written pages, each
submission's pages (`checker.render.pages`), the index pages, the reference pages
(`checker.render.reference_pages`), the release pages (`checker.render.releases`); files are
written by `checker.render.writer`. The generated sources are
deterministic: the same results give byte-identical files, and so does the site MkDocs builds from
them (it gets a fixed `SOURCE_DATE_EPOCH`, see `BUILD_EPOCH`; `tests/test_determinism.py`).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from checker.format.boards_model import BoardsDocument, publish_comparisons, read_boards
from checker.format.errors import UsageError
from checker.format.names import Name, Work
from checker.format.registry_model import Registry
from checker.format.release_model import ReleaseFile
from checker.format.results_model import ResultsFile
from checker.format.storage import LogStorageError, log_sha256
from checker.pipeline.releases import RELEASES_DIR, read_releases
from checker.render import completion, pages, ranking
from checker.render.citation import site_url
from checker.render.names import refuse_collisions, results_names
from checker.render.paths import url_of
from checker.render.reference_pages import (
    METRIC_PAGES,
    write_changelog,
    write_format_schemas,
    write_metrics,
    write_reported,
    write_submit,
)
from checker.render.registry_page import write_registry
from checker.render.releases import release_files, release_label
from checker.render.runs import repository_url, run_pages
from checker.render.search import SearchEntries, search_entries
from checker.render.shell import Stager, publish_runs, write_shell_sources
from checker.render.stream import LightResults, iter_results, light, results_paths
from checker.render.writer import SiteBuildError, Writer

REPO = Path(__file__).resolve().parents[2]
"""The checkout the package runs from (an editable install); not a project root once installed with `pip install .`."""
TRACKS = ("agent", "constraint", "completion")
SITE_URL = site_url()
"""The one base URL (`site_url` in mkdocs.yml; `checker.render.citation`)."""
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
    from checker.format.results_io import is_results_name, read_results

    tree = submissions.resolve()
    out: set[str] = set()
    for path in sorted(results_dir.glob("*.json")):
        if not is_results_name(path.name):
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
    from checker.format.results_io import is_results_name

    if only is None:
        return []
    return sorted(p.stem for p in results_dir.glob("*.json")
                  if is_results_name(p.name) and p.stem not in only)


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
        return log_sha256(path)  # a run log's digest: of its decompressed bytes when it is stored compressed
    except (OSError, LogStorageError):
        return None


def docs_dir_for(out: Path) -> Path:
    """Where the MkDocs sources for a site at `out` are assembled."""
    return out.parent / "docs" if out.name == "site" else out.parent / f"{out.name}-docs"


def _fresh_docs(docs: Path, repo: Path) -> None:
    """Empty `docs` (only a folder a build wrote) and copy the project's hand-written pages into it.

    Raises:
        UsageError: `docs` exists, is not empty and was not written by a build.
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


def _submission_pages(results: Iterable[ResultsFile], w: Writer, repo: Path, logs_root: Path | None,
                      releases: list[ReleaseFile], found: SearchEntries | None = None) -> list[LightResults]:
    """Each submission's own pages (submission, cells, runs), one whole results file at a time; their light records.

    `found`: collects the pages' search entries (`checker.render.search`).

    Raises:
        UsageError: two results files hold the same submission id.
    """
    base_url = site_url(repo / "mkdocs.yml")
    repository = repository_url(repo)
    charts: dict[str, str] = {}
    stager = Stager(w.docs)
    lights: dict[str, LightResults] = {}
    names: list[Name] = []
    works: list[Work] = []
    for r in results:
        if r.submission_id in lights:
            raise UsageError(f"submission id {r.submission_id!r} appears in more than one results file")
        declared, work = results_names(r)
        refuse_collisions(declared, [])  # its own cells and runs, before any of its pages is written
        names.extend(declared)
        works.extend(work)
        w.page(pages.submission_path(r), "submission.md.j2", pages.submission_context(r, charts, base_url))
        for c in r.cells:
            w.page(pages.cell_path(r, c.cell), "cell.md.j2", pages.cell_context(r, c, base_url, charts, releases))
        stager.begin()
        tasks = completion.task_groups(r) if r.track == "completion" else None  # each run page's sibling trials
        for run in r.runs:  # page by page: a long run's bodies are never all in memory
            for rel, ctx in run_pages(r, run, logs_root, repository, tasks):
                stager.add(url_of(rel), ctx["page_title"], w.html("run.html.j2", ctx))
        if found is not None:
            search_entries(r, found)
        lights[r.submission_id] = light(r)
        del r  # the whole results file is released here; only the light record stays
        for rel, text in charts.items():
            w.text(rel, text)
        charts.clear()
    refuse_collisions(names, works)  # before the index pages and MkDocs: a collision publishes nothing
    stager.finish()
    return [lights[k] for k in sorted(lights)]


COMPARISONS_DIR = "downloads/boards/"
"""Where each board's comparisons file is published (`publish_comparisons`), linked from its track's page."""


def _index_pages(w: Writer, summaries: Sequence[LightResults], releases: list[ReleaseFile],
                 boards_doc: BoardsDocument | None = None, comparisons_href: str = "") -> None:
    """The pages across submissions: home, each track's leaderboard, the submissions index (boards built once).

    `comparisons_href`: where the boards' comparisons files are published (empty: not published, not linked).
    """
    charts: dict[str, str] = {}
    label = release_label(releases, summaries, pages.release_of(summaries))
    boards = {track: ranking.board(track, summaries, doc=boards_doc) for track in TRACKS}
    w.page("index.md", "index.md.j2", {**pages.home_context(summaries, list(TRACKS), charts, boards), "release": label})
    for track in TRACKS:
        has_definition = (w.docs / f"tracks/{track}.md").is_file()
        w.page(f"leaderboards/{track}.md", "leaderboard.md.j2",
               {**pages.track_context(track, summaries, charts, has_definition, boards[track]), "release": label,
                "comparisons_href": comparisons_href})
    w.page("submissions/index.md", "submissions.md.j2", pages.submissions_context(summaries))
    for rel, text in sorted(charts.items()):
        w.text(rel, text)


def assemble(results: Iterable[ResultsFile], docs: Path, repo: Path = REPO, logs_root: Path | None = None,
             downloads: Path | None = None, boards: BoardsDocument | None = None,
             registry: Registry | None = None, boards_dir: Path | None = None) -> list[Any]:
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
    `boards`: the boards document of the results (`boards.json`; None: nothing is ranked).
    `boards_dir`: the folder holding `boards.json` and the comparisons files it names: each is copied, its digest
    checked and never parsed, to `downloads/boards/` and linked from its board (None: not published).
    `registry`: the tree's pre-registrations (`checker.pipeline.registry`), for the Pre-registered page
    (None: no such page).

    Raises:
        UsageError: two results files hold the same submission id; `docs` was not written by a build; a comparisons
            file is missing or not the one `boards.json` names.
    """
    _fresh_docs(docs, repo)
    w = Writer(docs, downloads)
    releases = read_releases(repo / RELEASES_DIR)  # committed release files: archived pages, changelog, citations
    found = SearchEntries()
    summaries = _submission_pages(results, w, repo, logs_root, releases, found)
    found.write(docs)
    write_shell_sources(docs)
    href = ""
    if boards is not None and boards_dir is not None and boards["boards"]:
        publish_comparisons(boards_dir, boards, w.downloads / COMPARISONS_DIR)
        href = COMPARISONS_DIR
    _index_pages(w, summaries, releases, boards, href)
    write_reported(w, repo)
    write_metrics(w, summaries)
    write_format_schemas(w, docs)
    write_changelog(w, repo, releases, summaries)
    for rel, text in release_files(releases, summaries, w.downloads).items():
        w.text(rel, text)
    write_submit(w, docs)
    write_registry(w, registry, {s.submission_id for s in summaries})
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
                        *([{"Pre-registered": "preregistered.md"}] if have("preregistered.md") else []),
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
    # the software changelog (`changelog/software.md`) is linked from the changelog, not listed: every page carries
    # the navigation, and one more entry took the heaviest page over the page-weight budget
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
               project: Path | None = None, registry: Registry | None = None) -> int:
    """Render the verified results in `results_dir` into a static site at `out`; returns 0.

    `only`: the submission ids to render (the tree being built; see `results_of_tree`); None renders
    every results file in the folder (tests and benchmarks that wrote the folder themselves).
    `logs_root`: where run paths resolve, to draw agent run timelines from the logs (None: none).
    `project`: the project root (`project_root`). Results are read one file at a time (`assemble`).
    `registry`: the tree's pre-registrations, for the Pre-registered page (None: no such page).

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
    nav_items = assemble(iter_results(paths), docs, repo=root, logs_root=logs_root, downloads=stage,
                         boards=read_boards(results_dir), registry=registry, boards_dir=results_dir)
    run_mkdocs(docs, out, nav_items, config=root / "mkdocs.yml")
    publish_runs(docs, out)
    if (stage / "downloads").is_dir():
        if (out / "downloads").exists():  # hand-written downloads in site/: merge
            shutil.copytree(stage / "downloads", out / "downloads", dirs_exist_ok=True)
        else:
            (stage / "downloads").rename(out / "downloads")
    shutil.rmtree(stage)
    return 0
