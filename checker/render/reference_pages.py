"""The pages beside the results: reported-not-verified sources, metric definitions, the JSON Schemas, changelog.

* `reported.md` and `reported/<source>.md`: figures copied from papers and campaign write-ups, one
  page per source file, split by row group (`checker.render.reported`), never recomputed;
* `metrics.md` and `metrics/<track>.md`: every metric's declaration (`checker.render.metrics`);
* `format.md` gains the list of generated JSON Schemas; `changelog.md` is the results changelog
  (`checker.render.releases`) before the software's `CHANGELOG.md`; `submit.md` a fallback when the
  project has none.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from checker.format.release_model import ReleaseFile
from checker.render.context import MetricsContext, PartLink, ReportedContext, ReportedPartContext, page
from checker.render.metrics import METRICS, documented
from checker.render.releases import results_changelog
from checker.render.reported import part_path, reported_parts
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table
from checker.render.text import slug
from checker.render.writer import Writer

REPORTED_DIRS = ("checker/harness/baselines/reported", "data/reported")
"""Where the "reported, not verified" datasets live (CSV or JSON files), first existing wins."""
METRIC_PAGES = (("agent", "Agent track", "metrics/agent.md"), ("constraint", "Constraint track", "metrics/constraint.md"),
                ("completion", "Completion track", "metrics/completion.md"))
"""Tracks whose metric entries have a page of their own (page weight: one page of every entry loaded over 300 KB)."""


def _json_rows(path: Path) -> list[Row] | None:
    """The rows of a JSON source (a list of objects, or `{"rows": [...]}`); None when it is not one."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data = data.get("rows", data) if isinstance(data, dict) else data
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        return None
    return [{k: (v if v is None or isinstance(v, str | int | float | bool) else json.dumps(v)) for k, v in r.items()}
            for r in data]


def _source_rows(path: Path) -> list[Row] | None:
    """The rows of a reported source file (CSV with a header row, or JSON); None for any other file."""
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    return _json_rows(path) if path.suffix == ".json" else None


def _source_table(path: Path, rows: list[Row]) -> Table:
    """One source as a table: a column per key (first-seen order), empty strings undefined."""
    keys: list[str] = []
    for r in rows:
        keys.extend(k for k in r if k not in keys)
    rows = [{k: (None if r.get(k) in ("", None) else r.get(k)) for k in keys} for r in rows]
    name = slug(path.stem)
    return Table(name, f"Reported in {path.name} (not verified)", [Column(k, k) for k in keys], rows)


def reported_context(repo: Path) -> ReportedContext:
    """Tables of the reported-not-verified datasets (CSV: header row; JSON: a list of objects)."""
    src = next((repo / d for d in REPORTED_DIRS if (repo / d).is_dir()), None)
    sources: list[tuple[str, Table]] = []
    for path in sorted(src.iterdir()) if src is not None else []:
        rows = _source_rows(path)
        if rows is not None:
            table = _source_table(path, rows)
            sources.append((table.name, table))
    return {**page("../", "Reported, not verified"),
            "sources": sources, "source_dir": (src.relative_to(repo).as_posix() if src else REPORTED_DIRS[0]) + "/"}


def write_reported(w: Writer, repo: Path) -> None:
    """`reported.md`, then each source's pages (`reported/<source>.md`, `-part-N.md`)."""
    reported = reported_context(repo)
    w.page("reported.md", "reported.md.j2", reported)
    for name, table in reported["sources"]:
        parts = reported_parts(table)
        links: list[PartLink] = [{"href": part_path(name, i).removeprefix("reported/"),
                                  "titles": [g["title"] for g in groups]} for i, groups in enumerate(parts, start=1)]
        for i, groups in enumerate(parts, start=1):
            ctx: ReportedPartContext = {
                **page("../../", table.caption + (f", part {i} of {len(parts)}" if len(parts) > 1 else "")),
                "table": table, "groups": groups, "source_dir": reported["source_dir"], "part": i,
                "parts": links if len(parts) > 1 else []}
            w.page(part_path(name, i), "reported_source.md.j2", ctx)


def metrics_context(results: Sequence[Listing], track: str | None = None) -> MetricsContext:
    """Definitions, plus any metric present in results that has no definition yet.

    `track`: the context of that track's page (`METRIC_PAGES`); None: the first page (metrics of both tracks,
    the undocumented ones, links to the tracks' pages).
    """
    if track is not None:
        label = next(lab for t, lab, _rel in METRIC_PAGES if t == track)
        return {**page("../../", f"Metrics: {label.lower()}"),
                "metrics": METRICS, "undocumented": [], "sections": [(track, label)], "subpages": []}
    seen = {name for r in results for c in r.cells for name in c.metrics}
    return {**page("../", "Metrics"),
            "metrics": METRICS, "undocumented": sorted(seen - documented()), "sections": [("both", "Both tracks")],
            "subpages": [(label, rel) for _t, label, rel in METRIC_PAGES]}


def write_metrics(w: Writer, results: Sequence[Listing]) -> None:
    """`metrics.md` (both tracks) and `metrics/<track>.md`."""
    w.page("metrics.md", "metrics.md.j2", metrics_context(results))
    for track, _label, rel in METRIC_PAGES:
        w.page(rel, "metrics.md.j2", metrics_context(results, track))


def write_format_schemas(w: Writer, docs: Path) -> None:
    """The JSON Schemas into `schema/`, listed at the end of the hand-written `format.md` when there is one."""
    from checker.format.schema.export import write_schemas

    schema_files = write_schemas(docs / "schema")
    if (docs / "format.md").is_file():
        listing = "\n".join(f"- [`{p.name}`](schema/{p.name})" for p in sorted(schema_files))
        extra = ("\n\n## JSON Schemas\n\nGenerated at build time from the same pydantic models the checker uses "
                 f"(`driftboard schema --out DIR` writes the same files):\n\n{listing}\n")
        w.text("format.md", (docs / "format.md").read_text(encoding="utf-8").rstrip("\n") + extra)


SOFTWARE_CHANGELOG = "changelog/software.md"
"""The project's `CHANGELOG.md` as pages of their own: on one page with the results changelog it reached the
page-weight budget (299 KB of 300 in one load, 2026-12-03); alone, it grows with every entry."""
SOFTWARE_PAGE_CHARS = 24_000
"""Most characters of `CHANGELOG.md` on one page (about 60 KB of HTML, within the page-weight budget beside the
theme's ~228 KB); longer, the entries continue on `changelog/software-2.md`, … (a section is never cut)."""


def changelog_pages(text: str, limit: int = SOFTWARE_PAGE_CHARS) -> list[str]:
    """`text` (markdown) cut at `##` / `###` headings into pages of at most `limit` characters, newest first.

    A section longer than `limit` is a page of its own. A page that starts inside a `##` section
    repeats that heading, marked "(continued)".
    """
    sections: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(("## ", "### ")) or not sections:
            sections.append(line)
        else:
            sections[-1] += line
    pages: list[str] = []
    parent = ""
    current = ""
    for section in sections:
        if current and len(current) + len(section) > limit:
            pages.append(current)
            current = f"{parent.rstrip()} (continued)\n\n" if parent and not section.startswith("## ") else ""
        if section.startswith("## "):
            parent = section.splitlines()[0]
        current += section
    return [*pages, current] if current or not pages else pages


def _software_page(n: int) -> str:
    return "software.md" if n == 1 else f"software-{n}.md"


def write_changelog(w: Writer, repo: Path, releases: list[ReleaseFile], results: Sequence[Listing]) -> None:
    """`changelog.md`: the results changelog, with a link to the project's `CHANGELOG.md` on pages of its own."""
    if (repo / "CHANGELOG.md").is_file():
        software = (repo / "CHANGELOG.md").read_text(encoding="utf-8").removeprefix("# Changelog\n")
        w.text("changelog.md", results_changelog(releases, results) + "\n## The checker's changes\n\n"
               "What changed in the checker and the site, release by release: "
               "[software changelog](changelog/software.md).\n")
        pages = changelog_pages(software)
        for n, body in enumerate(pages, start=1):
            links = [f"[newer entries]({_software_page(n - 1)})" if n > 1 else "",
                     f"[older entries]({_software_page(n + 1)})" if n < len(pages) else ""]
            pager = f"\nPage {n} of {len(pages)}: " + " · ".join(x for x in links if x) + ".\n" if len(pages) > 1 else ""
            w.text(f"changelog/{_software_page(n)}",
                   f"# Software changelog{f' (page {n} of {len(pages)})' if n > 1 else ''}\n\nChanges to the checker "
                   "and the site (the repository's `CHANGELOG.md`), newest first; what changed in the results is on "
                   f"[the changelog](../changelog.md).\n{pager}\n" + body.lstrip("\n") + pager)


def write_submit(w: Writer, docs: Path) -> None:
    """A short `submit.md` when the project has no hand-written one."""
    if not (docs / "submit.md").is_file():
        w.text("submit.md", "# How to submit\n\nOpen a pull request adding `submissions/<id>/` with "
               "`submission.yaml`, `prereg.yaml` and `runs/*.jsonl` (see [the log format](format.md)); "
               "CI runs `driftboard verify` on it.\n")
