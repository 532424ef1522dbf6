"""Where each generated page lives: docs-relative Markdown paths and the site-relative URLs MkDocs gives them."""

from __future__ import annotations

from checker.format.results_model import ResultsSummary
from checker.render.text import slug


def submission_path(r: ResultsSummary) -> str:
    """Docs-relative Markdown path of a submission page."""
    return f"submissions/{slug(r.submission_id)}.md"


def cell_path(r: ResultsSummary, cell: str) -> str:
    """Docs-relative Markdown path of a cell permalink page (`results/<id>/<cell>.md`)."""
    return f"results/{slug(r.submission_id)}/{slug(cell)}.md"


def url_of(md_path: str) -> str:
    """Site-relative URL of a Markdown page with directory URLs (`a/b.md` -> `a/b/`, `a/index.md` -> `a/`)."""
    stem = md_path.removesuffix(".md")
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        return stem.removesuffix("index")
    return stem + "/"


def root_of(md_path: str) -> str:
    """Relative prefix from a page's URL back to the site root."""
    return "../" * url_of(md_path).count("/")
