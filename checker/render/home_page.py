"""The home page and the submissions index: null results first, then each track's ranked board.

Both list every submission (from light records, `checker.render.stream`); the home page shows the
first `HOME_ROWS` rows of each track's board (`checker.render.leaderboard_page` builds the boards
once per track; the track page lists every row).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from checker.render import ranking
from checker.render.cell_rows import TRACK_LABELS
from checker.render.context import BoardRef, HomeContext, SubmissionsContext, page
from checker.render.leaderboard_page import board_ref
from checker.render.null_results import null_table, release_of
from checker.render.paths import root_of
from checker.render.stream import Listing

HOME_ROWS = 10
"""Rows of each track's leaderboard shown on the home page (the track page lists them all)."""


def _home_board(b: BoardRef) -> BoardRef:
    """The home page's cut of a board: the first `HOME_ROWS` rows, saying how many more the track page lists."""
    t = b["table"]
    n = len(t.rows)
    if n > HOME_ROWS:
        b["table"] = replace(t, rows=t.rows[:HOME_ROWS],
                             caption=t.caption + f" (first {HOME_ROWS} of {n} rows; the track's leaderboard lists every row)")
    return b


def _valid_runs(results: Sequence[Listing], track: str | None = None) -> int:
    """VALID runs of the submissions (of one track when given)."""
    return sum(r.null_results.valid_runs for r in results if track is None or r.track == track)


def _completions(results: Sequence[Listing]) -> int | None:
    """Levels completed over the agent track's VALID runs (None when no agent submission has a valid run)."""
    done = [r.null_results.completions for r in results if r.track == "agent" and r.null_results.completions is not None]
    return sum(done) if done else None


def home_context(results: Sequence[Listing], tracks: list[str], files: dict[str, str],
                 boards: Mapping[str, ranking.Board] | None = None) -> HomeContext:
    """The home page: what is measured, the tracks, null results first, then the ranked boards.

    `boards`: each track's board (`ranking.board`, built once for the home and the track pages; built here when None).
    `files` takes the page's chart specs (the home page has none).
    """
    if boards is None:
        boards = {t: ranking.board(t, results) for t in tracks}
    return {
        **page("", "Home"),
        "n_submissions": len(results), "n_runs": sum(r.null_results.runs for r in results),
        "n_valid": _valid_runs(results), "completions": _completions(results),
        "agent_valid_runs": _valid_runs(results, "agent"), "constraint_valid_runs": _valid_runs(results, "constraint"),
        "null_table": null_table(results), "mechanism_tables": [], "charts": [],
        "tracks": [{"text": TRACK_LABELS[t], "href": f"leaderboards/{t}.md"} for t in tracks],
        "boards": [_home_board(board_ref(boards[t].named(f"{t}-leaderboard"))) for t in tracks],
        "release": release_of(results), "ranked_models": ranked_models_line(boards.values()),
    }


def ranked_models_line(boards: Iterable[ranking.Board]) -> str:
    """Which language models are ranked (from the logs of ranked rows), or that none is yet, in one line."""
    models = sorted({m for b in boards for x in b.table.rows if x["rank"] is not None
                     for m in str(x["models"]).split(", ") if x["models"] != ranking.NO_LLM})
    if not models:
        return "No language model is ranked yet: every ranked row is a scripted reference baseline (no LLM)."
    return f"Language models ranked: {', '.join(models)}."


def submissions_context(results: Sequence[Listing]) -> SubmissionsContext:
    """`submissions/index.md`."""
    return {**page(root_of("submissions/index.md"), "Submissions"), "table": null_table(results, name="submissions")}
