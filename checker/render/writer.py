"""Writing the generated MkDocs sources: the one Jinja environment, pages with their tables' downloads.

A page's tables and charts are rendered to HTML fragments here and left as placeholders in its
Markdown (`checker.render.hooks` puts them back after MkDocs has rendered the page); each table's
rows are written as CSV and JSON downloads beside it (`checker.render.tables.write_downloads`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import jinja2
from markupsafe import Markup

from checker.format.errors import DriftboardError
from checker.render.context import ChartRef
from checker.render.hooks import fragments_path
from checker.render.table_rows import facet_key, table_rows
from checker.render.tables import Table, write_downloads
from checker.render.text import fmt, md_escape

TEMPLATES = Path(__file__).resolve().parent / "templates"

Context = Mapping[str, object]
"""A template's context (one of the TypedDicts of `checker.render.context`)."""


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
    # facet filters match rows by a digest of the value: no submitted string in an attribute
    env.filters["facetkey"] = facet_key
    env.globals["table_rows"] = table_rows
    return env


class Writer:
    """Writes generated files, rendering Tables' downloads on the way."""

    def __init__(self, docs: Path, downloads: Path | None = None) -> None:
        self.docs = docs
        self.downloads = downloads or docs
        """Where `downloads/` is written: the docs folder, or a staging folder moved into the site after MkDocs."""
        self.env = environment()
        self.made: set[Path] = set()
        self.written: dict[str, str] = {}
        """Docs-relative path of every file written, by its case-folded form: no file is written twice."""

    def text(self, rel: str, content: str) -> None:
        """Write a file of the docs folder (`rel`: docs-relative path).

        Raises:
            SiteBuildError: a file at this path (compared without case) was already written by this build.
        """
        first = self.written.get(rel.casefold())
        if first is not None:
            raise SiteBuildError(f"two pages at one path {rel!r} (and {first!r}, compared without case): one would "
                                 "replace the other; rename one name (see the identity findings of `driftboard verify`)")
        self.written[rel.casefold()] = rel
        path = self.docs / rel
        if path.parent not in self.made:  # one mkdir per folder, not per file (thousands of pages)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.made.add(path.parent)
        path.write_text(content, encoding="utf-8")

    def page(self, rel: str, template: str, ctx: Context) -> None:
        """Render a page: tables and charts become fragments (see `hooks.py`), the rest Markdown."""
        prefix = "downloads/" + rel.removesuffix(".md")
        for table in tables_in(ctx):
            write_downloads(table, self.downloads, prefix, self.made)
        fragments: list[str] = []
        table_t = self.env.get_template("_table.html.j2")
        chart_t = self.env.get_template("_chart.html.j2")
        root = ctx["root"]

        def slot(html: str) -> Markup:
            fragments.append(html.strip("\n"))
            return Markup(f'<div class="db-slot" data-slot="{len(fragments) - 1}"></div>')

        def tbl(t: Table, extra_class: str = "") -> Markup:
            return slot(table_t.render(t=t, extra_class=extra_class, root=root))

        def chart(c: ChartRef) -> Markup:
            return slot(chart_t.render(c=c, root=root))

        def block(name: str, **kw: object) -> Markup:
            """A partial rendered to HTML and put in after Markdown (byte-exact text such as a citation)."""
            return slot(self.env.get_template(name).render(**kw, root=root))

        self.text(rel, self.env.get_template(template).render(**ctx, tbl=tbl, chart=chart, block=block))
        if fragments:
            self.text(fragments_path(Path("."), rel).as_posix(),
                      json.dumps(fragments, ensure_ascii=False, indent=0) + "\n")

    def html(self, template: str, ctx: Context) -> str:
        """Render a page body straight to HTML (no Markdown pass): tables inline, no downloads (run pages)."""
        table_t = self.env.get_template("_table.html.j2")

        def tbl(t: Table, extra_class: str = "") -> Markup:
            if t.downloads:
                raise SiteBuildError(f"internal: table {t.name!r} on an HTML page asks for downloads")
            return Markup(table_t.render(t=t, extra_class=extra_class, root=ctx["root"]).strip("\n"))

        return self.env.get_template(template).render(**ctx, tbl=tbl)


def tables_in(ctx: object) -> list[Table]:
    """Every Table reachable from a context (top-level, in lists, in charts, in (name, table) pairs)."""
    found: list[Table] = []

    def visit(v: object) -> None:
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
