"""The verified results file: one per submission, written by `driftboard verify`.

Location: `<results dir>/<submission-id>.json` (default results dir: `build/results`), plus
`index.json` listing every submission. Serialised with sorted keys and no wall-clock time, so
the same inputs give byte-identical files. `digest` fields are SHA-256 over the canonical JSON
of the object they sit in, with the digest field itself left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr, SerializerFunctionWrapHandler, model_serializer

from checker.format.cell_tables import AgentCellTables, CellTables, CompletionCellTables, ConstraintCellTables, NoTables
from checker.format.gate_results import GateConditions, Legibility
from checker.format.results_completion import EpisodeResult

RESULTS_FORMAT: Literal["1.0"] = "1.0"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LogDigest(_Model):
    """One run log the results were computed from."""

    path: str
    """Path relative to the repository (`submissions/<id>/runs/<file>.jsonl`)."""
    sha256: str
    run_id: str | None = None


Verdict = Literal["VALID", "INVALID", "INCOMPLETE", "MALFORMED", "UNVERIFIED", "COMPARATOR"]
"""A run's verdict. VALID / INVALID: the gate's (agent) or the recomputation's (constraint) outcome;
INCOMPLETE: no `run_end`; MALFORMED: the log failed validation and was not scored; UNVERIFIED: it
could not be scored (over the replay size bound, or its problem set was not given); COMPARATOR: an
ungated run of a pre-registered comparator cell (BARE, RAW)."""
FactKind = Literal["malformed", "unverified", "copy", "inconsistent", "incomplete", "comparator", "invalid"]
"""What a stage found that bears on a run's verdict (`checker.stages.verdict.PRECEDENCE` orders them)."""


@dataclass(frozen=True, slots=True)
class VerdictFact:
    """One finding about a run that bears on its verdict: a kind and the reason line shown to readers."""

    kind: FactKind
    reason: str


class Mismatch(_Model):
    """A label recorded in the log that disagrees with the value the checker recomputed."""

    line: int | None
    """Line of the log holding the recorded label."""
    field: str
    """The recorded field (`target_ref`, `echoed`, `z3_sat`, ...)."""
    recorded: JsonValue
    """The value as written in the log."""
    recomputed: JsonValue
    """The value the checker derived from lower-level evidence."""
    reason: str
    """Why the two differ, in words a submitter can act on."""
    problem_id: str | None = None
    """Constraint track: the problem of the turn."""
    turn_number: int | None = None
    """Constraint track: the turn."""

    @model_serializer(mode="wrap")
    def _drop_unused_turn_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """An agent-track mismatch has no problem or turn: they are left out, not written as null."""
        data: dict[str, Any] = handler(self)  # pydantic's serialised JSON of this model
        for key in ("problem_id", "turn_number"):
            if data.get(key) is None:
                data.pop(key, None)
        return data


class GdsBeat(_Model):
    """One reference beat the decomposition counts as bind or abandon, as the checker classified it."""

    line: int
    """The beat's line in the log."""
    outcome: Literal["bind", "abandon"]
    live: bool
    """The reference step is a live plan step (else the beat's shadow step)."""
    step_action: str | None
    """The reference step's action (None: the step names none)."""
    aimed_at: str | None
    """The reference step's target referent (None: the step names none)."""
    landed: str | None
    """Where the action landed (recomputed from geometry in profile `driftboard`, recorded in `arg-v1.0`)."""


class GdsCounts(_Model):
    """GDS decomposition counts of one agent run (rates are in `metrics`), with the beats behind them."""

    reference_beats: int
    live: int
    shadow: int
    bind: int
    aligned: int
    abandon: int
    outcomes: str = ""
    """Every beat's outcome in log order, run-length coded (`checker.format.beat_outcomes`: `.a3b`)."""
    drifted: list[GdsBeat] = Field(default_factory=list)
    """The first `DRIFTED_KEPT` bind and abandon beats, in log order, with their reference step and landing."""


DRIFTED_KEPT = 50
"""Bind / abandon beats a run's record keeps with their reference step and landing (the first, in log order).

Every beat's outcome is kept (`GdsCounts.outcomes`); the details are kept for the first 50 only, so a
run's record stays small however many beats drift (a 10^4-beat run that drifts on every beat held
~1.6 MB of details in memory, and 1,000 such runs 2 GB).
"""


class MilestoneDetail(_Model):
    """One claimed milestone and what the log shows for it."""

    claim_id: str
    step_id: str | None
    status: str
    """verified / declared_only / ..."""
    line: int
    evidence_kind: str | None
    evidence_line: int | None
    window: JsonValue = None


class ProblemSetRef(_Model):
    """The problem set a constraint run names."""

    name: str
    digest: str


Channel = Literal["consistent", "drift", "contradiction", "other", "unverifiable"]

AnswerGrid = dict[str, dict[str, int | str | None]]
"""An answer as the checker read it: entity -> slot (seat; start, duration; a logic-grid category) -> value."""


class Commitment(_Model):
    """A ledger constraint at issue in one turn: one the answer breaks (drift), or one of the ledger's MUS (contradiction).

    Everything here is the checker's: the entry's id and compiled form from the logged ledger, and the
    turn that stated it and its words looked up in the problem set (never the ledger's own `source_turn`
    or `nl`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str
    """The ledger entry's id."""
    constraint: str
    """The ledger entry as it was checked: `type(arg, ...)`."""
    stated_turn: int | None
    """The first turn whose user message stated this constraint (the problem set's new constraints, equal up to the
    order of a symmetric pair); None when no turn stated it in this form."""
    text: str | None
    """The problem set's words for the constraint at `stated_turn` (None when not stated)."""
"""Where a constraint turn's outcome falls (drift-spec.md §b; `unverifiable`: a declared ledger is missing)."""


class TurnResult(_Model):
    """One constraint turn, recomputed (drift-spec.md §b).

    Strict: the scorer builds it from its working record (`checker.constraint.turns.TurnRecord`), so
    a value of the wrong type or an unknown channel is a checker bug and raises, never passes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    line: int
    problem_id: str
    domain: str
    turn_number: int
    parse: bool
    """An answer could be extracted from the raw response."""
    complete: bool
    """The answer assigns every entity (reference `Complete()`), with no value the reader cannot read."""
    ledger_size: int | None
    """Constraints in the logged ledger; None when the turn logs no ledger."""
    ledger_sat: bool | None
    """SAT(base axioms ∧ ledger), recomputed with Z3; None without a ledger."""
    answer_satisfies_ledger: bool | None
    correct: bool
    """The answer extends to a solution of the gold cumulative constraints."""
    channel: Channel | None
    """None when the turn has no ledger (and the run declares none); `unverifiable` when a declared ledger is missing."""
    mus: list[str] | None
    """A minimal unsatisfiable subset of ledger ids when the ledger is UNSAT."""
    solver_error: str | None
    recorded_z3_sat: int | None
    recorded_answer_correct: int | None
    answer: AnswerGrid | None = None
    """The answer as the checker read it (`checker.constraint.answers.read_answer`), values cut to
    `ANSWER_VALUE_CHARS`; None when no answer was extracted."""
    broken: list[Commitment] | None = None
    """drift: the ledger constraints the answer breaks (each one the answer alone contradicts; when none alone
    does, a minimal subset that together does; empty when the answer breaks the puzzle's own rules, e.g. two
    entities in one seat); contradiction: the MUS entries; None otherwise."""

    @property
    def solved(self) -> bool:
        """The paper's Correct = Parse ∧ Complete ∧ Satisfies: what the ranked accuracy credits."""
        return self.parse and self.complete and self.correct


MetricValue = JsonValue
"""A per-run metric: a number, None (undefined, never 0), or a small per-run table (ARG's JSON keys)."""


class FindingRecord(_Model):
    """A problem found in the submission's files, as `path:line: message`."""

    path: str
    line: int | None
    message: str
    severity: Literal["error", "warning"] = "error"


class RunResult(_Model):
    """Everything the checker derived for one run.

    What `TrackScorer.score_run` returns, what the results file stores under `runs`, and what
    reports, job summaries and pages read. Fields that do not apply to a run (a MALFORMED run has
    no metrics; a constraint run no gate) are None.
    """

    path: str
    """Display path of the log (`submissions/<id>/runs/<file>.jsonl`)."""
    verdict: Verdict
    reasons: list[str] = Field(default_factory=list)
    """Every reason behind the verdict, one line each."""
    end_status: Literal["COMPLETED", "ABORTED", "FAILED"] | None = None
    """How the log says the run ended (`run_end.status`); None without `run_end`. ABORTED and FAILED runs are INCOMPLETE."""
    run_id: str | None = None
    native_run_id: str | None = None
    """The run's id in its native system (ARG run id), when imported."""
    track: Literal["agent", "constraint", "completion"] | None = None
    cell: str | None = None
    seed: str | None = None
    comparator: bool | None = None
    """True only for a run of a pre-registered comparator cell (never gated)."""
    profile: str | None = None
    log_sha256: str | None = None
    prereg_sha256: str | None = None
    """The pre-registration digest the run's header names."""
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    """Metric name -> value; names and meaning are declared in the metric registry (`checker.pipeline.metrics`)."""
    rates: dict[str, list[int]] = Field(default_factory=dict)
    """Rate metric -> [numerator, denominator], pooled across a cell's seeds by the results stage."""
    mismatches: list[Mismatch] = Field(default_factory=list)
    content_sha256: str | None = None
    """Digest of the run's event payloads (ids, chain fields left out): copies are detected by content (`stages.copies`)."""
    content_sketch: str | None = None
    """MinHash sketch of the run's events (64 minima, 8 hex digits each): near-copies (`stages.near_copies`);
    None for a run of fewer than 20 events."""
    inputs_sha256: str | None = None
    """Digest of the run's declared inputs (flags, backbone, game, horizon, method, problem set)."""
    findings: list[FindingRecord] = Field(default_factory=list, exclude=True)
    """Problems the scorer found in the log (e.g. a declared ledger missing); verify moves them to the
    submission's findings (they fail verification like format problems). Not stored in results files."""
    # agent track
    thresholds: dict[str, float | int] | None = None
    """The gate thresholds applied (agent track)."""
    gate_verdict: Literal["VALID", "INVALID"] | None = None
    """The gate's verdict (also for an INCOMPLETE run); None when no gate ran."""
    gate: GateConditions | None = None
    legibility: Legibility | None = None
    """The gate in the shape ARG's legibility probe prints."""
    gds: GdsCounts | None = None
    milestones: list[MilestoneDetail] | None = None
    # constraint track (backbone: every track, the header's; the model a declared price applies to)
    method: str | None = None
    backbone: str | None = None
    model_recorded: str | None = None
    """The backbone when the importer's provenance records it (`checker.format.identity.recorded_model`); left out when None."""
    problem_set: ProblemSetRef | str | None = None
    """The problem set the run names ({name, digest}; the bare digest for a run that was not scored)."""
    game_id: str | None = None
    """Agent track: the world or game the run header names (its version is part of the id); left out when None."""
    turns: list[TurnResult] | None = None
    # completion track
    episode: EpisodeResult | None = None
    """The episode, recomputed (`checker.completion`); left out of the file for the other tracks."""

    _verdict_facts: tuple[VerdictFact, ...] = PrivateAttr(default=())
    """The facts `checker.stages.verdict.judge` decided the verdict from (kept in memory, never written)."""

    @model_serializer(mode="wrap")
    def _drop_absent_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Left out, not written as null: `episode` (completion runs only), `game_id` and `model_recorded`."""
        data: dict[str, Any] = handler(self)  # pydantic's serialised JSON of this model
        for key in ("episode", "game_id", "model_recorded"):
            if data.get(key, 0) is None:
                del data[key]
        return data

    @property
    def verdict_facts(self) -> tuple[VerdictFact, ...]:
        """The facts the verdict was judged from (empty for a run read back from a results file)."""
        return self._verdict_facts

    @property
    def is_counted(self) -> bool:
        """VALID, or an ungated COMPARATOR run: the runs that count toward a cell's figures."""
        return self.verdict in ("VALID", "COMPARATOR")

    def metric(self, name: str) -> MetricValue:
        """A metric's value (None when undefined or absent)."""
        return self.metrics.get(name)


class MetricAggregate(_Model):
    """One metric over the VALID runs of a cell. Undefined seeds are left out, never counted as 0."""

    n_defined: int
    """Seeds where the metric is defined."""
    n: int
    """VALID seeds in the cell."""
    values: dict[str, float | int | None]
    """Seed label -> value (None = undefined for that seed)."""
    mean: float | None
    """Mean of the defined per-seed values (None when no seed is defined)."""
    min: float | None
    max: float | None
    ci95: list[float] | None = None
    """Seeded percentile-bootstrap 95% interval of the mean (None with fewer than 5 defined seeds: too few to mean something)."""
    pooled: float | None = None
    """For rates over beats/turns: total numerator / total denominator over defined seeds."""
    pooled_num: float | None = None
    pooled_den: float | None = None


class SeedOutcome(_Model):
    """One declared seed of a cell and what became of it (intent-to-treat: every declared run is of record)."""

    seed: str
    status: Literal["VALID", "INVALID", "INCOMPLETE", "MALFORMED", "UNVERIFIED", "COMPARATOR", "MISSING", "WITHDRAWN"]
    """The run's verdict; MISSING: declared, no log; WITHDRAWN: withdrawn in the pre-registration before it ran."""
    run_id: str | None = None
    reason: str | None = None
    """Why the run is not in the valid-only figure (its first reason, the withdrawal's reason, ...)."""


class AllDeclared(_Model):
    """A metric over every declared run of a cell (intent-to-treat), the figure the leaderboard ranks.

    A declared run that is missing, INCOMPLETE, INVALID, MALFORMED or UNVERIFIED counts as the
    metric's worst value (its declaration says what that means); a VALID run whose metric is
    undefined stays undefined and is left out (counted in `n_undefined`). Withdrawn seeds leave.
    """

    value: float | None
    """Mean over the declared seeds' values (worst substituted); None when every one is undefined."""
    worst: float
    n_declared: int
    """Declared seeds (withdrawn ones excluded)."""
    n_worst: int
    """Seeds counted at the worst value."""
    n_undefined: int
    values: dict[str, float | None]
    """Seed -> value used (None: VALID and undefined)."""


class CellRanking(_Model):
    """Where a cell ranks: its board key and whether it has enough evidence to rank there (`checker.stages.boards`).

    Derived from the submission's results alone (its rules verdict, the cell's declared runs and what
    they cover), so a submitter reads it in `driftboard verify` before merging.
    """

    board: str | None
    """The board id (`track:environment:profile:protocol`); None when no key can be derived (no run names its environment)."""
    key: dict[str, str] = Field(default_factory=dict)
    """The board key's fields: track, the track's environment fields, profile, protocol."""
    ranked: bool
    reason: str | None = None
    """Why the cell is not ranked (None when it is)."""
    unit: str | None = None
    """What a paired comparison pairs on (`seed`, `problem`); None when the cell is not ranked."""
    units: dict[str, list[float]] = Field(default_factory=dict)
    """Unit -> [numerator, denominator] the ranked figure pools, every declared run counted (ranked cells only)."""


class CellResult(_Model):
    """A citable per-cell result."""

    result_id: str
    """Stable id `<submission-id>/<cell>`."""
    cell: str
    flags: dict[str, str] = Field(default_factory=dict)
    comparator: bool = False
    seeds_declared: list[str] = Field(default_factory=list)
    seeds_reported: list[str] = Field(default_factory=list)
    runs: int
    """Runs reported for this cell (any verdict)."""
    valid_runs: int
    verdicts: dict[str, int] = Field(default_factory=dict)
    """Verdict -> count (VALID, INVALID, INCOMPLETE, MALFORMED, COMPARATOR)."""
    declared: list[SeedOutcome] = Field(default_factory=list)
    """Every declared seed with its outcome, in declaration order (empty without a pre-registration)."""
    n_declared: int = 0
    """Declared seeds, withdrawn excluded: the cell's figures are "valid k of n declared"."""
    all_declared: dict[str, AllDeclared] = Field(default_factory=dict)
    """Intent-to-treat figure of every metric that declares a worst value (`checker.pipeline.metrics`)."""
    metrics: dict[str, MetricAggregate] = Field(default_factory=dict)
    tables: CellTables = Field(default_factory=NoTables)
    """Track-specific tables (`checker.format.cell_tables`: decomposition, parity, channels, depth curve, ...)."""
    log_sha256: list[str] = Field(default_factory=list)
    """SHA-256 of every log behind this cell, sorted."""
    ranking: CellRanking | None = None
    """The cell's board and whether it ranks there (None in results written before boards existed)."""
    digest: str = ""
    """Content digest of this cell result."""

    @property
    def agent_tables(self) -> AgentCellTables | None:
        """The cell's tables when they are an agent track's (None otherwise)."""
        return self.tables if isinstance(self.tables, AgentCellTables) else None

    @property
    def constraint_tables(self) -> ConstraintCellTables | None:
        """The cell's tables when they are a constraint track's (None otherwise)."""
        return self.tables if isinstance(self.tables, ConstraintCellTables) else None

    @property
    def completion_tables(self) -> CompletionCellTables | None:
        """The cell's tables when they are a completion track's (None otherwise)."""
        return self.tables if isinstance(self.tables, CompletionCellTables) else None


class PreregCheck(_Model):
    """Pre-registration enforcement."""

    missing: list[dict[str, str]] = Field(default_factory=list)
    """Declared (cell, seed) with no run: "missing (not reported)"."""
    undeclared: list[dict[str, str]] = Field(default_factory=list)
    """Runs whose (cell, seed) the pre-registration does not declare."""
    digest_mismatch: list[dict[str, str]] = Field(default_factory=list)
    """Runs whose header prereg digest differs from prereg.yaml."""
    commit_order: dict[str, Any] = Field(default_factory=dict)  # git facts of the check, shown as recorded
    """Whether prereg.yaml was committed no later than the run logs (when git history is available)."""


class DefeaterResult(_Model):
    """A declared defeater, evaluated."""

    id: str
    text: str
    metric: str
    op: str
    threshold: float
    value: float | None
    triggered: bool | None
    """None when the metric is undefined (no valid runs, ...)."""


class PredictionResult(_Model):
    """A pre-registered prediction, evaluated on the recomputed cell figures."""

    id: str
    text: str
    cell: str
    metric: str
    op: str | None
    versus: str | None
    """The other cell of a comparison (None: compared to a constant)."""
    value: float | None
    compared_to: float | None
    holds: bool | None
    """None when a figure it needs is undefined."""


class ClaimCheck(_Model):
    """A figure the submitter claimed, next to the recomputed one."""

    cell: str
    metric: str
    claimed: float | int | None
    recomputed: float | int | None
    agrees: bool
    source: str | None = None


class NullResults(_Model):
    """What a reader must see before any mechanism number."""

    valid_runs: int
    runs: int
    completions: int | None
    """Levels completed summed over VALID runs (agent track); None for the constraint track."""
    headline: str
    """E.g. "0 completions across 12 valid runs"."""
    triggered_defeaters: list[str] = Field(default_factory=list)


class Provenance(_Model):
    """Dates and commit of a submission folder, from git (`checker.pipeline.provenance`); None outside git."""

    submitted: str | None = None
    """Commit date (YYYY-MM-DD, committer time zone) of the first commit that added the folder."""
    verified: str | None = None
    """Commit date of the last commit that touched the folder: the date these results are "as of"."""
    commit: str | None = None
    """That last commit (full SHA-1): the tree a citation pins."""
    uncommitted: bool = False
    """The folder had uncommitted changes when verified (the commit does not hold exactly these logs)."""


class ResultsSummary(_Model):
    """A submission's results with the bulk perhaps left out: what verify keeps in memory and the cache beside each entry.

    Every field of a results file; but a run's per-turn records (`turns`) may be None and its
    mismatches cut to the first when the submission has many (`checker.format.results_summary`).
    Reports, job summaries and the checks across submissions read this. A `ResultsFile` is a summary
    that left nothing out; code that lists per-turn records or every mismatch takes a `ResultsFile`.
    """

    results_format: Literal["1.0"] = RESULTS_FORMAT
    checker_version: str
    submission_id: str
    title: str
    authors: list[str]
    track: Literal["agent", "constraint", "completion"]
    synthetic: bool
    prereg_written_after_runs: bool = False
    """The pre-registration says it was written after the runs (`written_after_runs`): shown as a label."""
    profile: str
    thresholds: dict[str, Any]  # the pre-registration's thresholds as written (free-form YAML)
    thresholds_source: Literal["prereg", "defaults"]
    ranked: bool = False
    """True when the leaderboard may rank this submission: profile `driftboard` (pre-registered and
    used), thresholds not loosened, comparator cells of a comparator kind only, a horizon declared
    on the agent track (`checker.stages.rules.rank_status`). Others are shown apart, labelled, never ranked."""
    unranked_reason: str | None = None
    """Why the submission is not ranked (None when it is)."""
    prereg_sha256: str | None
    problem_sets: list[str] = Field(default_factory=list)
    logs: list[LogDigest]
    null_results: NullResults
    runs: list[RunResult]
    """Every run of the submission, whatever its verdict (runs in = runs reported)."""
    cells: list[CellResult]
    prereg_check: PreregCheck
    defeaters: list[DefeaterResult] = Field(default_factory=list)
    predictions: list[PredictionResult] = Field(default_factory=list)
    claims: list[ClaimCheck] = Field(default_factory=list)
    findings: list[FindingRecord] = Field(default_factory=list)
    """Format problems found while verifying (path, line, message)."""
    manifest: dict[str, Any] = Field(default_factory=dict)  # submission.yaml as written (free-form YAML)
    """The manifest as submitted (strings shown escaped on the site)."""
    reproduce: str
    """The command that reproduces these results."""
    provenance: Provenance = Field(default_factory=Provenance)
    """Submitted and verified dates and the pinned commit, from git (never the wall clock)."""
    digest: str = ""
    """Content digest of the whole file."""


class ResultsFile(ResultsSummary):
    """Everything the checker derived for one submission."""
