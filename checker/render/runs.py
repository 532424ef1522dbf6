"""The run viewer: one page per run (`runs/<submission>/<run>/`), built from the run's record in the results file.

A page shows the verdict and why, the validity gate's condition table, milestones claimed vs
verified, recorded-vs-recomputed mismatches, the run's metrics and, for a constraint run, every
turn (ledger size, SAT, answer vs ledger, channel, MUS) in pages of at most `TURNS_PER_PAGE` rows
and about `ROWS_BYTES_PER_PAGE` bytes of row text (page weight: `page_ranges`), with a link to
the raw log at the pinned commit and its SHA-256. Everything comes from the results file, so the
build stays linear in events and byte-identical for the same results. Run tables have no CSV/JSON
downloads of their own (the submission's results file, linked from the submission page, holds them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from checker.format.results_model import ResultsFile, RunResult
from checker.render import completion
from checker.render.citation import REPO
from checker.render.context import PagerLink, RunContext, page
from checker.render.metrics import metric_href
from checker.render.paths import cell_path, root_of, submission_path, url_of
from checker.render.tables import Column, Row, Table, flatten
from checker.render.text import md_escape, slug
from checker.render.timeline import agent_timeline, constraint_dialogue
from checker.render.turn_cards import Card, card_bytes, depth_strip, resolve_links, turn_cards

TURNS_PER_PAGE = 250
"""Most turns (constraint) or timeline events (agent) on one page of a run (longer runs continue on `…/turns-2/`, …)."""
ROWS_BYTES_PER_PAGE = 32_000
"""Most bytes of turn or event rows on one page of a run (estimated by `row_bytes`). A page without charts
must load under `checker.render.weight.PAGE_WEIGHT_BUDGET` (300 KB), of which the theme's stylesheets and
scripts take ~228 KB and the rest of a run page (header, gate, metrics, pager, and on the first page of an agent
run up to 50 drifted beats) up to ~31 KB: at 40,000 the first pages of the micro-world reference's runs loaded
303 KB."""
PAGER_NEIGHBOURS = 2
"""Pages linked on either side of the current one in a run's pager (plus the first and the last)."""
_CELL_BYTES = 9
"""Markup around one table cell (`<td></td>`)."""


def row_bytes(row: Row) -> int:
    """Estimated bytes of one table row as rendered: the escaped text of every value plus the cell markup."""
    return 9 + sum(_CELL_BYTES + (len(str(md_escape(v)).encode("utf-8")) if isinstance(v, str) else 5)
                   for v in row.values())


def page_ranges(sizes: list[int], max_rows: int, max_bytes: int) -> list[tuple[int, int]]:
    """Split rows of the given byte sizes, in order, into `[lo, hi)` pages of at most `max_rows` rows and `max_bytes`.

    A single row larger than `max_bytes` gets a page of its own; no rows give one empty page. Linear in the rows.
    """
    ranges: list[tuple[int, int]] = []
    lo, used = 0, 0
    for i, size in enumerate(sizes):
        if i > lo and (i - lo >= max_rows or used + size > max_bytes):
            ranges.append((lo, i))
            lo, used = i, 0
        used += size
    ranges.append((lo, len(sizes)))
    return ranges


def pager_window(n_pages: int, current: int, neighbours: int = PAGER_NEIGHBOURS) -> list[int | None]:
    """Pages (1-based) the pager of page `current` links: first, last, `neighbours` on each side; None marks a gap.

    Constant size per page, so a run of thousands of turns still builds in time linear in its turns.
    """
    shown = sorted({1, n_pages, *range(max(1, current - neighbours), min(n_pages, current + neighbours) + 1)})
    out: list[int | None] = []
    for i, number in enumerate(shown):
        if i and number > shown[i - 1] + 1:
            out.append(None)
        out.append(number)
    return out


def repository_url(root: Path = REPO) -> str:
    """`repository-code` of the project's CITATION.cff (where raw logs are linked at their commit), or empty."""
    try:
        text = (root / "CITATION.cff").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^repository-code:\s*['\"]?([^'\"\s]+)", text, flags=re.MULTILINE)
    return match.group(1).rstrip("/") if match else ""


REPOSITORY = repository_url()


def run_slug(run: RunResult) -> str:
    """The page slug of a run: its run id, or its log file's name when it has none."""
    return slug(run.run_id or run.path.rsplit("/", 1)[-1].removesuffix(".jsonl"))


def run_path(r: ResultsFile, run: RunResult, page: int = 1) -> str:
    """Docs-relative Markdown path of a run's page (page 2+ of a long constraint run: `turns-N.md`)."""
    base = f"runs/{slug(r.submission_id)}/{run_slug(run)}"
    return f"{base}/index.md" if page == 1 else f"{base}/turns-{page}.md"


def _gate(run: RunResult) -> Table:
    rows = []
    if run.gate is not None:
        for name, cond in run.gate.items():
            rows.append({"condition": name, "status": {"NOT_APPLICABLE": "N/A"}.get(cond.status, cond.status),
                         "numbers": cond.note, "reason": cond.reason})
    return Table("gate", "Validity gate: each condition with its numbers",
                 [Column("condition", "condition"), Column("status", "status"), Column("numbers", "numbers"),
                  Column("reason", "reason")], rows,
                 empty="No validity gate for this run (a comparator, a constraint run, or not scored).", downloads=False)


def _milestones(run: RunResult) -> Table:
    rows = [{"claim": m.claim_id, "step": m.step_id, "status": m.status, "line": m.line,
             "evidence": m.evidence_kind, "evidence_line": m.evidence_line} for m in run.milestones or []]
    return Table("milestones", "Milestones: claimed in the log vs verified from deterministic evidence",
                 [Column("claim", "claim"), Column("step", "plan step"), Column("status", "status"),
                  Column("line", "claimed at line", numeric=True), Column("evidence", "evidence"),
                  Column("evidence_line", "evidence line", numeric=True)], rows, empty="No milestone claimed.",
                 downloads=False)


def _mismatches(run: RunResult) -> Table:
    rows = [{"line": m.line, "field": m.field, "recorded": m.recorded, "recomputed": m.recomputed, "reason": m.reason}
            for m in run.mismatches]
    return Table("mismatches", "Recorded vs recomputed values in this log",
                 [Column("line", "line", numeric=True), Column("field", "field"), Column("recorded", "recorded"),
                  Column("recomputed", "recomputed"), Column("reason", "reason")], rows,
                 empty="None: every recorded value matches its recomputation.", downloads=False)


def _drifted(run: RunResult) -> Table | None:
    """The beats the checker counted bind or abandon: the plan step's aim and where the action landed."""
    if run.gds is None or not run.gds.drifted:
        return None
    beats = run.gds.drifted
    rows = [{"line": b.line, "outcome": b.outcome, "step": "live" if b.live else "shadow", "action": b.step_action,
             "aimed": b.aimed_at, "landed": b.landed} for b in beats]
    total = run.gds.bind + run.gds.abandon
    more = f" (the first {len(rows)} of {total}; every beat's outcome is in the timeline)" if total > len(rows) else ""
    return Table("drifted", f"Beats that drifted: the plan step's aim and where the action landed{more}",
                 [Column("line", "log line", numeric=True), Column("outcome", "outcome"), Column("step", "plan step"),
                  Column("action", "step action"), Column("aimed", "aimed at"), Column("landed", "landed on")],
                 rows, sortable=False, downloads=False)


def _metrics(run: RunResult) -> Table:
    rows = [{"metric": path, "metric_href": metric_href(k), "value": leaf}
            for k, v in sorted(run.metrics.items()) for path, leaf in flatten(k, v)]
    return Table("run-metrics", "Every metric of this run (undefined shown as —; a name links to its definition)",
                 [Column("metric", "metric", link="metric_href"), Column("value", "value", numeric=True)], rows,
                 empty="No metric.", downloads=False)


def _timeline(rows: list[Row], lo: int, hi: int, total: int) -> Table:
    return Table("timeline", f"Log events {lo + 1}–{min(hi, total)} of {total}: beats (label, plan step, aimed "
                 "target, where the click landed, aligned / bind / abandon), plan steps, milestone claims, evidence, levels",
                 [Column("line", "line", numeric=True), Column("turn", "beat", numeric=True), Column("event", "event"),
                  Column("what", "what"), Column("click", "click"), Column("plan", "plan step"),
                  Column("aimed", "aimed at"), Column("recorded", "landing recorded"),
                  Column("landed", "landing (checker)"), Column("outcome", "outcome (checker)"),
                  Column("breach", "gate breach / claim")], rows[lo:hi], sortable=False,
                 empty="No events on this page.", downloads=False)


@dataclass
class _Body:
    """What a run's pages list page by page: constraint turn cards, or agent log events (the timeline), and why not."""

    cards: list[Card]
    timeline: list[Row] | None
    dialogue: bool
    """The cards carry the dialogue read from the log."""
    note: str
    """Why the timeline (agent) or the dialogue (constraint) is not shown ("" when it is)."""

    @cached_property
    def sizes(self) -> list[int]:
        """Estimated bytes of each item the pages list, in order (computed once: a 5,672-turn run has ~300 pages)."""
        if self.timeline is not None:
            return [row_bytes(row) for row in self.timeline]
        return [card_bytes(c) for c in self.cards]


def _body(r: ResultsFile, run: RunResult, logs_root: Path | None) -> _Body:
    if r.track == "agent":
        timeline, note = agent_timeline(run, logs_root) if logs_root is not None else (
            None, "Timeline not built (no submission tree given).")
        return _Body([], timeline, False, note if timeline is None else "")
    if r.track != "constraint":  # a completion run's dialogue is on its first page (`checker.render.completion`)
        return _Body([], None, False, "")
    dialogue, note = constraint_dialogue(run, logs_root) if logs_root is not None else (
        None, "Dialogue not shown (no submission tree given).")
    return _Body(turn_cards(run, dialogue), None, dialogue is not None, note if dialogue is None else "")


def _pager(r: ResultsFile, run: RunResult, ranges: list[tuple[int, int]], p: int, unit: str) -> list[PagerLink]:
    """The pager of page `p` of a run's pages (empty for a one-page run)."""
    if len(ranges) == 1:
        return []
    lo, hi = ranges[p - 1]
    return [{"text": "…", "current": False, "href": ""} if i is None else
            {"text": f"{unit} {ranges[i - 1][0] + 1}–{ranges[i - 1][1]}" if i != p else
             f"{unit} {lo + 1}–{hi} (page {p} of {len(ranges)})",
             "href": url_of(run_path(r, run, i)), "current": i == p}
            for i in pager_window(len(ranges), p)]


def _page_items(r: ResultsFile, body: _Body, ranges: list[tuple[int, int]], page_of: dict[str, int],
                p: int) -> tuple[list[Card] | None, Table | None]:
    """(cards, timeline) of page `p`: its constraint turn cards (links to other pages resolved) or agent log events."""
    lo, hi = ranges[p - 1]
    timeline = _timeline(body.timeline, lo, hi, len(body.timeline)) if body.timeline is not None else None
    if r.track != "constraint":
        return None, timeline
    return resolve_links(body.cards[lo:hi], page_of, p, lambda i: "../" * (p > 1) + (
        "" if i == 1 else f"turns-{i}/")), timeline


def _links(r: ResultsFile, run: RunResult, repository: str) -> tuple[str, str]:
    """(the run's cell page, its raw log at the pinned commit): site-relative, and "" when unknown."""
    commit = r.provenance.commit
    cell_href = url_of(cell_path(r, run.cell)) if run.cell is not None else ""
    return cell_href, f"{repository}/blob/{commit}/{run.path}" if repository and commit else ""


def run_pages(r: ResultsFile, run: RunResult, logs_root: Path | None = None,
              repository: str | None = None, tasks: completion.TaskGroups | None = None) -> list[tuple[str, RunContext]]:
    """(docs path, context) of every page of one run: page 1 holds everything, later pages more turns or events.

    `logs_root`: where run paths resolve to read an agent log for its timeline (None: no timeline).
    `repository`: the code repository's URL raw logs are linked in (default: this checkout's CITATION.cff).
    `tasks`: a completion submission's `completion.task_groups`, made once for all its runs (None: made here).
    The page is rendered to HTML by `run.html.j2` (outside MkDocs: `checker.render.shell`).
    """
    body = _body(r, run, logs_root)
    ranges = page_ranges(body.sizes, TURNS_PER_PAGE, ROWS_BYTES_PER_PAGE)
    cell_href, raw = _links(r, run, REPOSITORY if repository is None else repository)
    unit = "events" if body.timeline is not None else "turns"
    page_of = {c["anchor"]: i for i, (lo, hi) in enumerate(ranges, start=1) for c in body.cards[lo:hi]}
    pages_out = []
    for p in range(1, len(ranges) + 1):
        md = run_path(r, run, p)
        cards, timeline = _page_items(r, body, ranges, page_of, p)
        ctx: RunContext = {
            **page(root_of(md), f"Run {run_slug(run)}" + (f" (turns page {p})" if p > 1 else "")),
            "run_id": run.run_id or run.path, "sid": r.submission_id, "submission_href": url_of(submission_path(r)),
            "cell": run.cell, "cell_href": cell_href, "seed": run.seed, "verdict": run.verdict,
            "reasons": list(run.reasons), "track": r.track, "path": run.path, "sha256": run.log_sha256,
            "commit": r.provenance.commit, "raw": raw, "page": p, "pager": _pager(r, run, ranges, p, unit),
            "n_pages": len(ranges), "n_turns": len(body.sizes),
            "gds": run.gds.model_dump(exclude={"outcomes", "drifted"}) if run.gds else None,
            "gate": _gate(run), "milestones": _milestones(run), "mismatches": _mismatches(run),
            "metrics": _metrics(run), "drifted": _drifted(run) if p == 1 else None, "cards": cards,
            "wrong": sum(c["wrong"] for c in body.cards),
            "depth": depth_strip(run) if r.track == "constraint" else [], "dialogue": body.dialogue,
            "timeline": timeline, "timeline_note": body.note,
            "completion": (completion.run_context(run, logs_root, completion.trial_links(
                run, completion.task_groups(r) if tasks is None else tasks, lambda x: run_path(r, x)))
                           if r.track == "completion" and p == 1 else None),
        }
        pages_out.append((md, ctx))
    return pages_out
