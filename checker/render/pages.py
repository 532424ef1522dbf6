"""Every generated page's typed context (style.md §9: everything is gathered first; templates only format).

One module per page kind, each building the TypedDict its template receives (`checker.render.context`):

* `home_page`: the home page and the submissions index (null results first, the boards' first rows);
* `leaderboard_page`: a track's leaderboard and the ranked board the home page shows too;
* `submission_page`: a submission's page; `cell_page`: a cell's citable permalink;
* beside them: `cell_rows` (the per-cell rows several pages show), `chart_data` (charts and their tables),
  `null_results` (the first table of every index), `checker.render.runs` (run pages).

Values are raw (None for undefined, shown as "—" on the page and left empty/null in downloads,
never 0); the cells' track tables are read typed (`checker.format.cell_tables`).
"""

from __future__ import annotations

from checker.render.cell_page import cell_context
from checker.render.context import Link
from checker.render.home_page import home_context, submissions_context
from checker.render.leaderboard_page import track_context
from checker.render.null_results import release_of
from checker.render.paths import cell_path, root_of, submission_path, url_of
from checker.render.submission_page import bibtex, submission_context

__all__ = ["Link", "bibtex", "cell_context", "cell_path", "home_context", "release_of", "root_of", "submission_context",
           "submission_path", "submissions_context", "track_context", "url_of"]
