"""Pages of the completion track: the claims channel (claimed vs verified), read from the results files only.

The scorer (`checker.completion`) computed every figure; this module lays them out: the board row of a
cell (the verified completion rate with its Wilson interval and n first, then the claimed rate, the
false-claim rate among claims and pass^k beside it), the claimed / verified decomposition of a cell,
its episodes, and a run's page: the dialogue read from its log next to the closing claim and the
database evidence (what the episode changed, what the task required, where the two differ).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NotRequired, TypedDict

from checker.format.cell_tables import CompletionCellTables, Proportion
from checker.format.errors import LogFormatError
from checker.format.logio import read_events
from checker.format.numbers import fmt
from checker.format.results_completion import Change, EpisodeResult
from checker.format.results_model import CellResult, ResultsFile, RunResult
from checker.format.schema.completion import Message, ToolCall, ToolResult
from checker.format.seeds import episode_parts
from checker.format.storage import LogStorageError, log_sha256
from checker.render.context import CompletionCell, CompletionRun, PagerLink
from checker.render.paths import cell_path, url_of
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table

PARTS = ("claimed, verified", "transfer, verified", "false claim", "transfer, not verified", "step limit",
         "not counted")
"""The claimed / verified decomposition of a cell's declared episodes, in stacking order (verified first)."""
MAX_TEXT = 600
"""Characters of one message or tool result shown in a run's dialogue (the raw log has the rest)."""
DIALOGUE_CHARS = 20_000
"""Characters of dialogue text on a run page: a long episode's messages are cut shorter (never fewer than
`MIN_TEXT` each), so every message stays listed and the page stays within the page-weight budget."""
MIN_TEXT = 120
MAX_LOG_BYTES = 64 * 1024 * 1024
"""A larger log is not read for the dialogue (its page links the raw log instead)."""


def table(c: CellResult) -> CompletionCellTables | None:
    """The cell's completion tables (`CellResult.tables`), None when the cell has none."""
    return c.completion_tables


def interval(p: Proportion | None) -> str | None:
    """`[0.354, 0.489]` of a proportion's Wilson interval (None when undefined)."""
    ci = p.wilson95 if p is not None else None
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]" if ci is not None and len(ci) == 2 else None


def board_key_text(t: CompletionCellTables | None) -> str | None:
    """`τ-bench airline · tau-bench-airline (3f2d4636…) · 50 tasks × 4 trials`."""
    b = t.board if t is not None else None
    if b is None:
        return None
    trials = b.trials_per_task
    return (f"{b.benchmark} {b.domain} · {b.task_set} ({b.task_set_digest[:8]}…) · "
            f"{b.tasks} tasks × {trials if trials else '—'} trials")


def board_of(t: CompletionCellTables | None) -> tuple[str, int | None] | None:
    """The board a cell belongs on: (task-set digest, trials per task), None when it cannot be placed."""
    b = t.board if t is not None else None
    if b is None or not b.complete:
        return None
    return b.task_set_digest, b.trials_per_task


def not_on_a_board(t: CompletionCellTables | None) -> str:
    """Why a cell is on no board (its board key's reason, else that it names no task set)."""
    b = t.board if t is not None else None
    return (b.why if b is not None else None) or "no task set"


class RowExtras(TypedDict):
    """The completion columns of a leaderboard row (`COLUMNS`); None when the cell has no completion tables."""

    verified_ci: str | None
    episodes: int | None
    verified_k: int | None
    claimed_rate: float | None
    false_claim_rate: float | None
    false_claims: str | None
    pass_k: float | None
    pass_k_label: str | None
    board_key: str | None


def row_extras(c: CellResult) -> RowExtras:
    """The completion columns of a leaderboard row."""
    t = table(c)
    last = t.pass_k[-1] if t is not None and t.pass_k else None
    return {
        "verified_ci": interval(t.verified) if t else None, "episodes": t.verified.n if t else None,
        "verified_k": t.verified.k if t else None, "claimed_rate": t.claimed.rate if t else None,
        "false_claim_rate": t.false_claims.rate if t else None,
        "false_claims": f"{t.false_claims.k} of {t.false_claims.n}" if t else None,
        "pass_k": last.value if last else None, "pass_k_label": f"pass^{last.k}" if last else None,
        "board_key": board_key_text(t),
    }


COLUMNS = [
    Column("verified_ci", "Wilson 95%"), Column("episodes", "declared episodes", numeric=True),
    Column("claimed_rate", "claimed (closed as done)", numeric=True),
    Column("false_claim_rate", "false claims among claims ↓ (not ranked)", numeric=True),
    Column("false_claims", "false / claimed"), Column("pass_k", "pass^k (k = trials)", numeric=True),
    Column("board_key", "board: benchmark · task set · trials"),
]
"""The completion-specific columns of the board, after the ranked figure."""


def parts(c: CellResult) -> tuple[list[tuple[str, float | None]], list[Row], str]:
    """(part shares of the declared episodes, the Wilson interval of the verified boundary, the n note)."""
    t = table(c)
    n = t.episodes_declared if t is not None else 0
    if t is None or not n:
        return [(p, None) for p in PARTS], [], "no declared episode"
    d = t.decomposition
    counts = [d.claimed_verified, d.transfer_verified, d.false_claims, d.transfer_not_verified,
              d.step_limit + d.error, d.not_counted]
    values: list[tuple[str, float | None]] = [(p, k / n) for p, k in zip(PARTS, counts, strict=True)]
    ci = t.verified.wilson95
    return values, ([{"lo": ci[0], "hi": ci[1], "boundary": "verified"}] if ci is not None else []), \
        f"{n} declared episodes"


DECOMPOSITION_COLUMNS = [
    Column("cell", "cell", link="cell_href"), Column("declared", "declared episodes", numeric=True),
    Column("verified", "verified", numeric=True), Column("verified_rate", "verified rate ↑ (ranked)", numeric=True),
    Column("verified_ci", "Wilson 95%"), Column("claimed", "claimed (closed as done)", numeric=True),
    Column("claimed_rate", "claimed rate", numeric=True),
    Column("claimed_verified", "claimed and verified", numeric=True),
    Column("false_claims", "false completion claims", numeric=True),
    Column("false_rate", "false claims among claims", numeric=True), Column("false_ci", "Wilson 95% (false)"),
    Column("no_write", "false: database wrong, nothing written", numeric=True),
    Column("wrong_writes", "false: database wrong after writes", numeric=True),
    Column("output_missing", "false: required output not said", numeric=True),
    Column("unbacked", "false: states a write never made", numeric=True),
    Column("transfer_verified", "transfer, verified", numeric=True),
    Column("transfer_not", "transfer, not verified", numeric=True),
    Column("step_limit", "step limit", numeric=True), Column("not_counted", "not counted (worst)", numeric=True),
]
"""The columns of a cell's claimed / verified decomposition."""


def _decomposition_row(r: Listing, c: CellResult) -> Row:
    t = table(c)
    row: dict[str, object] = {"cell": c.cell, "cell_href": url_of(cell_path(r, c.cell))}
    if t is None:
        return {**row, **{col.key: None for col in DECOMPOSITION_COLUMNS if col.key != "cell"}}
    d, verified, claimed, false = t.decomposition, t.verified, t.claimed, t.false_claims
    return {
        **row, "declared": t.episodes_declared,
        "verified": verified.k, "verified_rate": verified.rate, "verified_ci": interval(verified),
        "claimed": claimed.k, "claimed_rate": claimed.rate,
        "claimed_verified": d.claimed_verified, "false_claims": d.false_claims,
        "false_rate": false.rate, "false_ci": interval(false),
        "no_write": d.false_no_effected_write, "wrong_writes": d.false_wrong_writes,
        "output_missing": d.false_output_missing, "unbacked": d.false_unbacked_statement,
        "transfer_verified": d.transfer_verified,
        "transfer_not": d.transfer_not_verified, "step_limit": d.step_limit,
        "not_counted": d.not_counted,
    }


def decomposition_table(r: Listing, cells: list[CellResult], name: str = "decomposition") -> Table:
    """Per cell: the claimed / verified decomposition of its declared episodes, counts with shares and intervals."""
    return Table(name, "Claimed vs verified: every declared episode, by how it ended and whether the database "
                 "check verifies it (counts; rates over declared episodes, false claims over claims)",
                 DECOMPOSITION_COLUMNS, [_decomposition_row(r, c) for c in cells],
                 empty="No cells.")


def cell_claims(r: Listing, c: CellResult) -> CompletionCell:
    """A completion cell page's claims channel: the decomposition first, then pass^k, the writes and the board key."""
    return {"decomposition": decomposition_table(r, [c], "claims"), "pass_k": pass_k_table(c),
            "writes": writes_table(c), "board": board_key_text(table(c))}


def pass_k_table(c: CellResult) -> Table:
    """pass^k of a cell with its bootstrap interval over tasks."""
    t = table(c)
    rows: list[Row] = [{"k": p.k, "value": p.value, "ci": f"[{fmt(p.ci95[0])}, {fmt(p.ci95[1])}]",
                        "tasks": p.tasks, "trials": p.trials} for p in (t.pass_k if t is not None else [])]
    return Table("pass-k", "pass^k: the chance that all k of a task's trials are verified (mean over tasks), with a 95% "
                 "bootstrap interval over tasks", [Column("k", "k", numeric=True), Column("value", "pass^k", numeric=True),
                                                  Column("ci", "95% interval"), Column("tasks", "tasks", numeric=True),
                                                  Column("trials", "trials per task", numeric=True)], rows,
                 empty=str((t.pass_k_note if t is not None else None) or "Undefined."))


def writes_table(c: CellResult) -> Table:
    """The cell's write calls against the tasks' gold writes."""
    t = table(c)
    rows: list[Row] = [{"status": k, "calls": getattr(t.writes, k) if t is not None else None}
                       for k in ("matched", "wrong", "missing", "extra", "error")]
    return Table("writes", "Write calls against the gold writes (counted episodes): matched, same tool with other "
                 "arguments, gold writes never made, writes no gold write asks for, refused by the environment",
                 [Column("status", "status"), Column("calls", "calls", numeric=True)], rows, sortable=False)


def episode_rows(runs: list[RunResult], run_href: Callable[[RunResult], str]) -> list[Row]:
    """One row per episode of a cell: verdict, ending, claim, verification, writes."""
    rows: list[Row] = []
    for run in runs:
        e = run.episode
        m = run.metrics
        rows.append({"seed": run.seed, "run_href": url_of(run_href(run)), "verdict": run.verdict,
                     "ending": e.ending.replace("_", " ") if e else None, "claimed": e.claimed if e else None,
                     "verified": e.verified if e else None,
                     "false_claim": (e.false_claim or "").replace("_", " ") or None if e else None,
                     "writes": "/".join(str(m.get(k, 0)) for k in ("writes_matched", "writes_wrong", "writes_missing",
                                                                    "writes_extra", "write_errors")) if e else None,
                     "reasons": "; ".join(run.reasons) or None})
    return rows


def seeds_text(seeds: list[str]) -> str | None:
    """Many episode labels in a few words: `200: task000-trial0 … task049-trial3` (page weight)."""
    if len(seeds) <= 8:
        return ", ".join(seeds) or None
    return f"{len(seeds)}: {seeds[0]} … {seeds[-1]}"


def episodes_summary(r: ResultsFile, name: str = "gate") -> Table:
    """Episodes per cell, by verdict and ending (its cell's page lists them by task, and downloads each)."""
    counts: dict[tuple[str, str, str], int] = {}
    for run in r.runs:
        ending = run.episode.ending.replace("_", " ") if run.episode is not None else "not scored"
        key = (str(run.cell), run.verdict, ending)
        counts[key] = counts.get(key, 0) + 1
    rows: list[Row] = [{"cell": cell, "cell_href": url_of(cell_path(r, cell)), "verdict": verdict, "ending": ending,
                        "episodes": n} for (cell, verdict, ending), n in sorted(counts.items())]
    return Table(name, "Episodes by verdict and ending (each cell's page lists them by task; its download has every "
                       "episode, with its run page)",
                 [Column("cell", "cell", link="cell_href"), Column("verdict", "verdict"), Column("ending", "ending"),
                  Column("episodes", "episodes", numeric=True)], rows, empty="No runs reported.")


def episodes_table(runs: list[RunResult], run_href: Callable[[RunResult], str], name: str = "runs") -> Table:
    """Every episode of a cell, one row each, with its run page's site-relative URL (`run_href`, a column here).

    A cell page shows its episodes grouped by task (`tasks_table`); this table is its per-episode download.
    """
    return Table(name, "Episodes: how each ended, whether it claimed completion, whether the database verifies it",
                 [Column("seed", "episode", link="run_href"), Column("verdict", "verdict"), Column("ending", "ending"),
                  Column("claimed", "claimed"), Column("verified", "verified"), Column("false_claim", "false claim"),
                  Column("writes", "writes matched/wrong/missing/extra/error"), Column("reasons", "reasons"),
                  Column("run_href", "run page (site-relative URL)")],
                 episode_rows(runs, run_href), empty="No episodes reported.")


def task_of(run: RunResult) -> tuple[str, str]:
    """(task label, trial label) of an episode: `task007-trial2` gives (`task007`, `trial2`) (`episode_parts`).

    A seed not of that form is its own task (its task id when the episode has one, else the seed), trial label "".
    """
    seed = str(run.seed or run.run_id or run.path)
    task, trial = episode_parts(seed)
    if task and trial[len("trial"):].isdecimal():
        return task, trial
    e = run.episode
    return (f"task {e.task_id}" if e is not None and e.task_id is not None else seed), ""


def outcome(run: RunResult) -> str:
    """One episode in the words of the cell's decomposition (`PARTS`): counted only when VALID, as the scorer does."""
    e = run.episode
    if e is None or run.verdict != "VALID":
        return "not counted"
    if e.claimed:
        return "claimed, verified" if e.verified else "false claim"
    if e.ending == "transfer":
        return "transfer, verified" if e.verified else "transfer, not verified"
    return e.ending.replace("_", " ") + (", verified" if e.verified else "")


def task_rows(runs: list[RunResult], run_href: Callable[[RunResult], str]) -> list[Row]:
    """One row per task of a cell, in the order its episodes come: its trials and how they ended, as counts.

    Counts are over the trials the cell's figures count (VALID, as the scorer does); `other` is every trial neither
    claimed nor transferred (step limit, error, unfinished) or not counted.
    """
    groups: dict[str, list[RunResult]] = {}
    for run in runs:
        groups.setdefault(task_of(run)[0], []).append(run)
    rows: list[Row] = []
    for task, trials in groups.items():
        counted = [run.episode for run in trials if run.verdict == "VALID" and run.episode is not None]
        claimed = sum(1 for e in counted if e.claimed)
        transfers = sum(1 for e in counted if not e.claimed and e.ending == "transfer")
        rows.append({"task": task, "first_href": url_of(run_href(trials[0])), "trials": len(trials),
                     "verified": sum(1 for e in counted if e.verified), "claimed": claimed,
                     "false_claims": sum(1 for e in counted if e.claimed and not e.verified),
                     "transfers": transfers, "other": len(trials) - claimed - transfers})
    return rows


def tasks_table(runs: list[RunResult], run_href: Callable[[RunResult], str], name: str = "tasks") -> Table:
    """A cell's episodes grouped by task: one row per task, its trials as counts (every episode: `episodes_table`).

    A task links to its first trial's page, whose head links every trial of the task with how it ended
    (`trial_links`): a 200-episode cell's table of one row per episode was 47 KB of its page.
    """
    return Table(name, "Episodes by task: how its trials ended (a task links to its first trial, whose page links "
                       "every trial)",
                 [Column("task", "task", link="first_href"), Column("trials", "trials", numeric=True),
                  Column("verified", "verified", numeric=True), Column("claimed", "claimed (closed as done)", numeric=True),
                  Column("false_claims", "false claims", numeric=True), Column("transfers", "transfers", numeric=True),
                  Column("other", "other (step limit, error, not counted)", numeric=True)],
                 task_rows(runs, run_href), empty="No episodes reported.")


TaskGroups = dict[tuple[str | None, str], list[RunResult]]
"""(cell, task) -> the episodes of that task in that cell, in the results file's order (`task_groups`)."""


def task_groups(r: ResultsFile) -> TaskGroups:
    """Every cell's episodes grouped by task, once per submission (a run page looks its siblings up here)."""
    groups: TaskGroups = {}
    for x in r.runs:
        groups.setdefault((x.cell, task_of(x)[0]), []).append(x)
    return groups


def trial_links(run: RunResult, groups: TaskGroups, run_href: Callable[[RunResult], str]) -> list[PagerLink]:
    """The trials of `run`'s task in its cell, each with how it ended (`outcome`), as links (the current one marked).

    A run page's way to its siblings: the cell page lists one row per task, linked to its first trial. `groups`:
    the submission's `task_groups`, made once (looked up per run, a cell of n episodes costs n, not n²).
    """
    return [{"text": f"{task_of(x)[1] or x.seed} ({outcome(x)})", "href": url_of(run_href(x)), "current": x.path == run.path}
            for x in groups.get((run.cell, task_of(run)[0]), [])]


def _changes(name: str, caption: str, changes: list[Change], empty: str) -> Table:
    rows: list[Row] = [
        {"table": ch.table, "key": ch.key, "path": ch.path or "(whole record)",
         "before": ch.before if isinstance(ch.before, str) or ch.before is None else json.dumps(ch.before),
         "after": ch.after if isinstance(ch.after, str) or ch.after is None else json.dumps(ch.after)}
        for ch in changes]
    return Table(name, caption, [Column("table", "table"), Column("key", "record"), Column("path", "field"),
                                 Column("before", "before" if name != "db-wrong" else "gold"),
                                 Column("after", "after" if name != "db-wrong" else "this episode")],
                 rows, sortable=False, empty=empty, downloads=False)


def _cut(text: str | None, limit: int = MAX_TEXT) -> str:
    if text is None:
        return ""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters; the raw log has all)"


class DialogueLine(TypedDict):
    """One line of a run page's dialogue: a message, a tool call or a tool result."""

    line: int
    who: str
    what: str
    mark: NotRequired[str]
    """`closing claim` on the reply the user closed the chat after."""


def dialogue(run: RunResult, root: Path) -> tuple[list[DialogueLine] | None, str]:
    """The episode's dialogue read from its log (line, who, what), or None with the reason."""
    path = root / run.path
    try:
        ok = run.log_sha256 is not None and path.stat().st_size <= MAX_LOG_BYTES and log_sha256(path) == run.log_sha256
    except (OSError, LogStorageError):
        ok = False
    if not ok:
        return None, ("The log is not available beside these results (or its bytes differ from the recorded SHA-256): "
                      "the dialogue is not shown; follow the raw-log link.")
    rows: list[DialogueLine] = []
    try:
        for line, ev in read_events(path):
            if isinstance(ev, Message):
                rows.append({"line": line, "who": ev.role, "what": (ev.content or "") if ev.role != "system"
                             else f"(the task set's policy, {len(ev.content or '')} characters)"})
            elif isinstance(ev, ToolCall):
                rows.append({"line": line, "who": "tool call",
                             "what": f"{ev.name}({json.dumps(ev.arguments, ensure_ascii=False)})"})
            elif isinstance(ev, ToolResult):
                rows.append({"line": line, "who": "tool result", "what": ev.content})
    except (LogFormatError, OSError) as exc:
        return None, f"The log could not be read for the dialogue ({exc})."
    limit = max(MIN_TEXT, min(MAX_TEXT, DIALOGUE_CHARS // max(1, len(rows))))
    for row in rows:
        row["what"] = _cut(row["what"], limit)
    return rows, ""


def run_context(run: RunResult, logs_root: Path | None, trials: list[PagerLink] | None = None) -> CompletionRun | None:
    """What a completion run's page shows beyond the common parts (None for other tracks).

    `trials`: the trials of the episode's task in its cell (`trial_links`), linked from the page.
    """
    e: EpisodeResult | None = run.episode
    if e is None:
        return None
    rows, note = dialogue(run, logs_root) if logs_root is not None else (None, "Dialogue not shown (no submission tree given).")
    closing = e.closing_line
    if rows is not None and closing is not None:
        for row in rows:
            row["mark"] = "closing claim" if row["line"] == closing else ""
    writes: list[Row] = [{"line": w.line, "tool": w.name, "status": w.status,
                          "target": w.target if w.target is None or isinstance(w.target, str) else json.dumps(w.target)}
                         for w in e.write_calls]
    return {
        "ending": e.ending.replace("_", " "), "claimed": e.claimed, "verified": e.verified, "reward": e.reward,
        "reward_computed": e.reward_computed, "database_matches": e.database_matches,
        "false_claim": (e.false_claim or "").replace("_", " "), "closing_claim": e.closing_claim,
        "closing_line": closing, "task_id": e.task_id, "outputs": sorted(e.outputs.items()),
        "data_hash": e.data_hash, "gold_data_hash": e.gold_data_hash, "changes_cut": e.changes_cut,
        "changed": _changes("db-changed", "What the episode changed (its database against the initial one)", e.changed,
                            "Nothing: the episode changed no record."),
        "required": _changes("db-required", "What the task required (the gold database against the initial one)",
                             e.required, "Nothing: the task requires no change."),
        "wrong": _changes("db-wrong", "Where the episode's database differs from the gold one", e.wrong,
                          "None: the episode's database equals the gold one."),
        "writes": Table("write-calls", "Write calls against the task's gold writes",
                        [Column("line", "line", numeric=True), Column("tool", "tool"), Column("target", "record"),
                         Column("status", "status")], writes, sortable=False, empty="No write call, none required.",
                        downloads=False),
        "dialogue": (Table("dialogue", "The dialogue as logged (the closing claim marked); tool results as the agent "
                           "saw them (each recomputed: see Mismatches)",
                           [Column("line", "line", numeric=True), Column("who", "who"), Column("what", "what", wide=True),
                            Column("mark", "")], rows, sortable=False, empty="No message.", downloads=False)
                     if rows is not None else None),
        "dialogue_note": note, "trials": trials or [],
    }
