"""Typed template contexts: every template receives exactly one of these TypedDicts.

Values are raw (numbers, None for undefined); formatting and escaping happen in the templates
through the `fmt` and `md` filters, so a context can be tested without rendering anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

from markupsafe import Markup

from checker.render.tables import Table

if TYPE_CHECKING:
    from checker.format.boards_model import BoardDoc
    from checker.render.ranking import LeaderGroup
    from checker.render.reported import ReportedGroup
    from checker.render.turn_cards import Card, Depth


class BoardRef(TypedDict):
    """A track's ranked leaderboard as a page shows it (see `checker.render.ranking`)."""

    track: str
    label: str
    href: str
    metric: str
    direction: str
    """"higher is better ↑" or "lower is better ↓" (from the metric registry)."""
    table: Table
    unranked: Table
    leader_groups: list[LeaderGroup]
    """The rows ranked first, by board: listed when few, a tie of many said in one line (`ranking.leader_groups`)."""
    n_ranked: int
    n_undefined: int
    n_not_ranked: int
    n_unranked: int
    excluded_because: list[tuple[str, int]]
    """(reason, cells) for the submissions the integrity rules leave unranked."""
    boards: list[tuple[BoardDoc, int]]
    """Each board key with ranked rows, and how many (`checker.render.ranking.Board.sections`): the rows themselves
    are in `table`, by board."""
    chart: NotRequired[ChartRef]


class Release(TypedDict):
    """What the site's results are "as of" (derived from the results files, never the clock)."""

    id: str
    as_of: str | None


class ChartRef(TypedDict):
    """A Vega-Lite chart: where its spec is, what it shows in words, and its data as a table."""

    name: str
    spec: str
    """Site-relative path of the `.vl.json` spec (data inlined)."""
    alt: str
    """Text alternative (fixed wording plus numbers; no submitted strings)."""
    table: Table
    svg: Markup | None
    """The chart drawn at build time (`checker.render.chart_svg`; every submitted string in it escaped), or
    None when there is nothing to draw: the page then says `empty` instead (never an empty chart)."""
    empty: str
    data_in: NotRequired[str]
    """The id of the page's table that already holds every number the chart draws: the chart's data is that table,
    pointed to, not shown twice (its rows are still downloadable as the chart's data)."""
    data_note: NotRequired[Markup]
    """With `data_in`: which columns of which tables of the page hold the chart's numbers, linked (else: the ranked
    table's, in full)."""
    shown: NotRequired[Table]
    """A compact table shown in place of `table` (long to wide: a column per turn, or per channel); `table`'s
    downloads hold the same numbers, one row per point (the shown table's own hold its rows)."""


class Link(TypedDict):
    """A link whose text may be submitted (escaped on output) and whose target is site-relative."""

    text: str
    href: str


class PageContext(TypedDict):
    """Fields every page has."""

    root: str
    """Relative path from the page's URL back to the site root (`../../`), for raw-HTML links."""
    page_title: str
    """Front-matter title: fixed text plus slugs only (MkDocs themes do not escape titles)."""
    generated_note: str


class SummaryRow(TypedDict):
    """One submission in the null-results-first summary."""

    submission_id: str
    href: str
    title: str
    track: str
    synthetic: bool
    headline: str
    valid_runs: int
    runs: int
    completions: int | None
    triggered_defeaters: int


class RankedModel(TypedDict):
    """A language model ranked on a board (the home page names them)."""

    model: str
    track: str
    cell: str
    href: str
    """The ranked cell's page (site-relative URL)."""
    rank: str


class HomeContext(PageContext):
    """`index.md`."""

    n_submissions: int
    n_runs: int
    n_valid: int
    completions: int | None
    agent_valid_runs: int
    constraint_valid_runs: int
    null_table: Table
    mechanism_tables: list[Table]
    charts: list[ChartRef]
    tracks: list[Link]
    boards: list[BoardRef]
    release: Release
    ranked_models: str
    """One line: which language models are ranked on any board, or that none is yet."""


class TrackContext(PageContext):
    """`leaderboards/<track>.md`."""

    track: str
    track_label: str
    n_submissions: int
    null_table: Table
    charts: list[ChartRef]
    forest: ChartRef
    """The ranked figure with its interval per ranked cell, by board, the decomposition beside it."""
    definition: str
    """Site-relative path of the hand-written track definition page, or empty."""
    board: BoardRef
    release: Release
    headline: str
    """The null-result line shown before any mechanism number."""
    comparisons_href: str
    """Site-relative folder of the boards' comparisons downloads (`checker.format.boards_model.publish_comparisons`);
    empty when they are not published (a build without the results folder), and then not linked."""


class SubmissionsContext(PageContext):
    """`submissions/index.md`."""

    table: Table


class SubmissionContext(PageContext):
    """`submissions/<id>.md`: completions and defeaters first, then everything else."""

    sid: str
    sid_slug: str
    title: str
    authors: list[str]
    track: str
    synthetic: bool
    profile: str
    unranked_reason: str | None
    """Why the submission is not ranked (None: ranked)."""
    checker_version: str
    late_prereg: bool
    """The pre-registration says it was written after the runs (shown as a badge)."""
    coverage: str | None
    """Constraint track: problems and turns answered "n of N", and the small-n mark."""
    citation: str | None
    """The manifest's `citation` (credit for the work the runs come from)."""
    headline: str
    completions: int | None
    valid_runs: int
    runs: int
    triggered: list[str]
    defeaters: Table
    prereg: Table
    thresholds: Table
    cells_declared: Table
    predictions: Table
    commit_order: str
    gate: Table
    decomposition: Table
    charts: list[ChartRef]
    missing: Table
    run_mismatches: Table
    claims: Table
    findings: Table
    logs: Table
    bibtex: str
    digest: str
    prereg_sha256: str | None
    reproduce: str
    manifest_fields: list[tuple[str, str]]


class CompletionCell(TypedDict):
    """A completion cell's claims channel (`checker.render.completion`): the decomposition first."""

    decomposition: Table
    pass_k: Table
    writes: Table
    board: str | None
    """The board key in words (benchmark, task set, trials per task); None when the cell names no task set."""


class CellContext(PageContext):
    """`results/<id>/<cell>.md`: the citable per-cell permalink."""

    sid: str
    sid_slug: str
    cell_slug: str
    submission_href: str
    title: str
    cell: str
    result_id: str
    track: str
    comparator: bool
    flags: list[tuple[str, str]]
    runs: int
    valid_runs: int
    verdicts: list[tuple[str, int]]
    seeds_declared: str | None
    """The declared seeds in a few words (`completion.seeds_text`: all when 8 or fewer, else how many, first … last)."""
    seeds_reported: str | None
    n_declared: int
    """Declared seeds (withdrawn excluded): "valid k of n declared"."""
    declared: Table
    """Every declared seed and what became of it."""
    all_declared: Table
    """The all-declared (intent-to-treat) figures beside the valid-only ones."""
    decomposition: Table | None
    """None on the completion track: its decomposition is the page's first table (`completion.cell_claims`)."""
    metrics: Table
    run_table: Table
    task_table: Table | None
    """Completion track: the episodes grouped by task, shown instead of `run_table` (then its download only)."""
    turn_table: Table | None
    n_turns: int
    """Turns of the cell's constraint runs (0 on other tracks): a cell with too many for `turn_table` says so."""
    coverage: str | None
    """Constraint track: problems and turns answered "n of N", and the small-n mark."""
    partial: str | None
    """A partial-coverage cell's headline: what it answered and its figure over that (`cell_page._partial`)."""
    late_prereg: bool
    """The submission's pre-registration was written after the runs."""
    board: str
    """The cell's board key in words (— when it has none)."""
    ranking: str
    """`ranked on board K` or `not ranked: reason` (`checker.stages.boards.ranking_line`)."""
    """Constraint track: per-turn records (None when none, or too many for a page)."""
    logs: Table
    track_tables: list[Table]
    """The scorer's per-cell tables as stored, as tables (`checker.render.scorer_tables`); empty when none."""
    bibtex: str
    digest: str
    reproduce: str
    cite: str
    """Byte for byte what `driftboard cite ID/CELL` prints."""
    verified: str | None
    commit: str | None
    verified_note: str
    """One line: what the checker recomputed for this page and where the evidence is (the verified badge)."""
    charts: list[ChartRef]
    run_links: list[Link]
    completion: CompletionCell | None
    """Completion track: the claimed / verified decomposition, pass^k, writes and board key (`checker.render.completion`)."""


class ReportedContext(PageContext):
    """`reported.md`: figures reported by papers/campaigns, NOT recomputed by the checker."""

    sources: list[tuple[str, Table]]
    source_dir: str


class MetricDoc(TypedDict):
    """One metric's definition, as listed on `metrics.md`."""

    name: str
    """The scorer's key, or a family name such as `accuracy_depth_<d>` when `names` is given."""
    track: str
    definition: str
    undefined: str
    kind: str
    """How the value is shown (count, rate, ...)."""
    unit: str
    direction: str
    """↑ higher is better, ↓ lower is better, empty: descriptive."""
    worst_means: str
    """The all-declared (intent-to-treat) worst value in words; empty: no all-declared figure."""
    names: NotRequired[list[str]]
    """The keys a family entry covers (one entry documents them all)."""


class MetricsContext(PageContext):
    """`metrics.md` (the entries of both tracks) and `metrics/<track>.md` (one track's entries; page weight)."""

    metrics: list[MetricDoc]
    undocumented: list[str]
    sections: list[tuple[str, str]]
    """(track, label) of the entries on this page."""
    subpages: list[tuple[str, str]]
    """(label, docs-relative path) of the per-track pages, listed on the first page ([] on a track's page)."""


class FormatExtraContext(TypedDict):
    """The generated section appended to the hand-written format page."""

    schemas: list[Link]


class PagerLink(TypedDict):
    """One entry of a long run's pager (`…` for a gap: no link)."""

    text: str
    href: str
    current: bool


class CompletionRun(TypedDict):
    """What a completion run's page shows beyond the common parts (`checker.render.completion.run_context`)."""

    ending: str
    claimed: bool
    verified: bool
    reward: float
    reward_computed: bool
    database_matches: bool | None
    false_claim: str
    """Why a claimed episode is not verified, in words (empty when it is, or claims nothing)."""
    closing_claim: str | None
    closing_line: int | None
    task_id: int | None
    outputs: list[tuple[str, bool]]
    """Required output -> said in some reply, sorted."""
    data_hash: str | None
    gold_data_hash: str | None
    changes_cut: bool
    changed: Table
    required: Table
    wrong: Table
    writes: Table
    dialogue: Table | None
    """None when the log cannot be read beside the results (`dialogue_note` says why)."""
    dialogue_note: str
    trials: list[PagerLink]
    """The trials of the episode's task in its cell (this one marked current): the cell page lists one row per task."""


class RunContext(PageContext):
    """`runs/<submission>/<run>/` (and `turns-N/`): one run's page, rendered straight to HTML (`run.html.j2`)."""

    run_id: str
    sid: str
    submission_href: str
    cell: str | None
    cell_href: str
    seed: str | None
    verdict: str
    reasons: list[str]
    track: str
    path: str
    sha256: str | None
    commit: str | None
    raw: str
    """The raw log at the pinned commit in the code repository (empty when either is unknown)."""
    page: int
    pager: list[PagerLink]
    n_pages: int
    n_turns: int
    gds: dict[str, int] | None
    gate: Table
    milestones: Table
    mismatches: Table
    metrics: Table
    drifted: Table | None
    """Agent track, first page: the bind and abandon beats (aim and landing)."""
    cards: list[Card] | None
    """Constraint track: this page's turn cards (`checker.render.turn_cards`); None on other tracks."""
    wrong: int
    """Turns of the whole run that went wrong (the filter's count)."""
    depth: list[Depth]
    """Constraint track: the run's complete accuracy by turn number."""
    dialogue: bool
    """The cards carry the dialogue read from the log."""
    timeline: Table | None
    timeline_note: str
    completion: CompletionRun | None
    """Completion track, first page: the closing claim, the database evidence and the dialogue."""


class PartLink(TypedDict):
    """One page of a reported source split over several: where it is, and the titles of its groups."""

    href: str
    titles: list[str]


class ReportedPartContext(PageContext):
    """`reported/<source>.md` (and `-part-N.md`): one page of a reported-not-verified source."""

    table: Table
    groups: list[ReportedGroup]
    """The source's row groups on this page."""
    source_dir: str
    part: int
    parts: list[PartLink]
    """Every page of a source split over several (empty for a one-page source)."""


def page(root: str, title: str) -> PageContext:
    """The `PageContext` fields, to splat into a specific context."""
    return {"root": root, "page_title": title,
            "generated_note": "Generated by `driftboard build` from the verified results files; do not edit."}
