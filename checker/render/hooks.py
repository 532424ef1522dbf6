"""MkDocs hook (`hooks:` in mkdocs.yml): put the pre-rendered HTML fragments into each page.

`driftboard build` renders tables and charts straight to HTML (Jinja, autoescaped) and leaves a
placeholder `<div class="db-slot" data-slot="N"></div>` in the Markdown; the fragments of page
`P.md` are in `<docs>/.fragments/P.md.json` (a dot folder, which MkDocs never publishes). They go
in after the theme has rendered the page, so neither Python-Markdown nor the search indexer
re-parses thousands of table cells: that is what keeps 200 submissions well under a minute.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from checker.render.weight import minify_assets, slim_page, write_theme_subsets

SLOT = re.compile(r'<div class="db-slot" data-slot="(\d+)"></div>')
SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
"""The theme's search dialog, which has no accessible name (axe: aria-dialog-name): the hook gives it one."""
FRAGMENTS = ".fragments"
RUN_VIEWER_CSS = "assets/run-viewer.css"
"""The run pages' own stylesheet (`run.html.j2` links it): the turn cards, chips and depth strip."""


def fragments_path(docs_dir: Path, src_uri: str) -> Path:
    """Where the fragments of the page built from `src_uri` are stored."""
    return docs_dir / FRAGMENTS / f"{src_uri}.json"


def name_search_dialog(output: str) -> str:
    """The page with its search dialog named (`SEARCH_DIALOG`): every page, and the 404 page, which is no page."""
    return output.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + ' aria-label="Search this site">', 1)


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Replace every slot placeholder with its fragment, name the search dialog, then lighten the page (`weight.slim_page`)."""
    path = fragments_path(Path(config["docs_dir"]), page.file.src_uri)
    if path.is_file():
        frags: list[str] = json.loads(path.read_text(encoding="utf-8"))
        output = SLOT.sub(lambda m: frags[int(m.group(1))], output)
    output = name_search_dialog(output)
    from checker.render.shell import SHELL_ROOT

    return slim_page(output, scripts=not page.file.src_uri.startswith(f"{SHELL_ROOT}/"))


def on_post_build(config: Any) -> None:
    """Write the theme stylesheet subsets the pages link to and minify our own CSS and JS (`checker.render.weight`)."""
    site_dir = Path(config["site_dir"])
    write_theme_subsets(site_dir, config["theme"]["palette"])
    ours = [str(p) for p in (*config["extra_css"], *config["extra_javascript"])]
    minify_assets(site_dir, [*ours, "javascripts/lazy-search.js", RUN_VIEWER_CSS, "javascripts/sort-aria.js",
                             "javascripts/copy.js"])
    from checker.render.search import merge

    merge(site_dir, Path(config["docs_dir"]))  # after the theme's search plugin has written its index


def on_post_template(output: str, template_name: str, config: Any) -> str:
    """Name the 404 page's search dialog; list the run pages in the sitemap.

    The 404 page is a theme template, not a page (`on_post_page` never sees it); the sitemap lists the run pages
    (built outside MkDocs) instead of their page shells.
    """
    if template_name == "404.html":
        return name_search_dialog(output)
    if template_name != "sitemap.xml":
        return output
    from checker.render.shell import sitemap_with_runs

    return sitemap_with_runs(output, Path(config["docs_dir"]))
