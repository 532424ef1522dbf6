"""The table every index page starts with (null results first), and the release the results make up.

Completions (agent) or correct turns (constraint), valid runs and triggered defeaters per submission
come before any mechanism number (`checker.render.home_page`, `checker.render.leaderboard_page`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from checker.render.context import Release, SummaryRow
from checker.render.evidence import prereg_label, submission_coverage
from checker.render.paths import submission_path, url_of
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table


def summary_row(r: Listing) -> SummaryRow:
    """One submission's null-result line."""
    nr = r.null_results
    return {"submission_id": r.submission_id, "href": url_of(submission_path(r)), "title": r.title, "track": r.track,
            "synthetic": r.synthetic, "headline": nr.headline, "valid_runs": nr.valid_runs, "runs": nr.runs,
            "completions": nr.completions, "triggered_defeaters": len(nr.triggered_defeaters)}


def _null_row(r: Listing) -> Row:
    row = summary_row(r)
    return {**row, "title_href": row["href"], "prereg": prereg_label(r), "coverage": submission_coverage(r).short}


def null_table(results: Iterable[Listing], name: str = "null-results") -> Table:
    """Completions (or correct turns) and defeaters per submission: the first table of every index."""
    return Table(
        name=name, caption="Null results first: completions, valid runs and triggered defeaters per submission",
        columns=[Column("submission_id", "submission", link="href"), Column("title", "title"),
                 Column("track", "track"), Column("headline", "headline"),
                 Column("completions", "completions", numeric=True), Column("valid_runs", "valid runs", numeric=True),
                 Column("runs", "runs", numeric=True),
                 Column("triggered_defeaters", "defeaters triggered", numeric=True),
                 Column("synthetic", "synthetic"), Column("prereg", "pre-registration"),
                 Column("coverage", "n of N (constraint)")],
        rows=[_null_row(r) for r in results], empty="No verified submissions yet.")


def release_of(results: Sequence[Listing]) -> Release:
    """The release the results make up: the newest verification date and its commit (never the clock).

    The id is `<YYYY-MM-DD>+<commit[:7]>` of the most recently verified submission (ties: the larger
    commit id), so the same results give the same id; without committed results it says so.
    """
    dated = sorted((r.provenance.verified, r.provenance.commit or "") for r in results if r.provenance.verified)
    if not dated:
        return {"id": "unreleased (results not committed)", "as_of": None}
    day, commit = dated[-1]
    return {"id": f"{day}+{commit[:7]}" if commit else str(day), "as_of": day}
