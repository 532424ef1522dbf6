"""The per-cell tables of a results file (`CellResult.tables`), one model per track.

Each track's scorer builds them from its runs (`checker.agent.scorer.cell_tables`,
`checker.constraint.scorer.cell_tables`, `checker.completion.scorer.cell_tables`); the results file
stores them under each cell's `tables`,
and the text report, the site and the job summary read them typed. A cell with no scored run
(declared but not reported, every run MALFORMED) has none: `NoTables`, written `{}`.

The JSON of a table is exactly what the scorers wrote as plain dicts before these models existed
(same keys, same values), so results files keep their bytes. A constraint or completion table says
its track (`"track": "constraint"`, `"track": "completion"`); an agent table does not, which is how a
stored table is told apart (`CellTables`).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, JsonValue, Tag

from checker.format.results_completion import BoardKey


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- agent track


class SeedFigure(_Model):
    """One metric over a cell's counted runs: each seed's value, how many are defined, their mean."""

    per_seed: list[JsonValue]
    """The metric of each counted run, in run order (None: undefined for that seed)."""
    n_defined: int
    n: int
    mean: float | None
    """Mean of the defined values (3 decimals); None when none is defined."""


class HypothesisFormation(_Model):
    """Counted runs that formed a hypothesis (`k`) of all counted runs (`n`)."""

    k: int
    n: int


class Parity(_Model):
    """Compute parity: the cell's mean LLM calls and tokens over the comparator cell's (None: undefined)."""

    comparator_cell: str | None
    calls: float | None
    tokens: float | None


AGENT_FIGURES = ("gds_bind", "gds_aligned", "gds_abandon", "drift_total", "drift_ref_beats", "completions", "RGR",
                 "GA", "ICR", "WER", "llm_calls", "llm_tokens", "milestone_verified_ratio")
"""The metrics an agent cell table holds as `SeedFigure`s (the GDS decomposition, then the summary figures)."""


class AgentCellTables(_Model):
    """An agent cell: its runs, the seeds' verdicts, a `SeedFigure` per metric of `AGENT_FIGURES`, parity."""

    kind: ClassVar[str] = "agent"

    runs: int
    valid: int
    """Counted runs: VALID (COMPARATOR in a comparator cell)."""
    comparator: bool
    seeds: dict[str, str]
    """Seed label (`<seed> (k)` for a repeated seed) -> the run's verdict."""
    gds_bind: SeedFigure
    gds_aligned: SeedFigure
    gds_abandon: SeedFigure
    drift_total: SeedFigure
    drift_ref_beats: SeedFigure
    completions: SeedFigure
    RGR: SeedFigure
    GA: SeedFigure
    ICR: SeedFigure
    WER: SeedFigure
    llm_calls: SeedFigure
    llm_tokens: SeedFigure
    milestone_verified_ratio: SeedFigure
    hypothesis_formation: HypothesisFormation
    parity: Parity | None
    """None in a comparator cell."""

    def figure(self, name: str) -> SeedFigure | None:
        """The `SeedFigure` of metric `name` (None when the table holds no such figure)."""
        return getattr(self, name) if name in AGENT_FIGURES else None


# ---------------------------------------------------------------- constraint track


class ConstraintAggregate(_Model):
    """Pooled figures of a list of turns (`checker.constraint.metrics.aggregate`); rates are None when undefined."""

    turns: int
    correct_turns: int
    turn_accuracy: float | None
    parse_rate: float | None
    complete_rate: float | None
    ledger_turns: int
    channel_turns: int
    consistent: int
    consistent_share: float | None
    drift: int
    drift_share: float | None
    contradiction: int
    contradiction_share: float | None
    other: int
    other_share: float | None
    unverifiable: int
    unverifiable_share: float | None
    total_residual: int
    residual_drift: int
    residual_contradiction: int
    residual_other: int
    drift_rate: float | None
    contradiction_rate: float | None
    other_rate: float | None
    unsat_upper_bound: int
    solver_errors: int
    accuracy_depth_1: float | None
    accuracy_depth_2: float | None
    accuracy_depth_3: float | None
    accuracy_depth_4: float | None
    accuracy_depth_5: float | None
    accuracy_depth_6: float | None
    accuracy_depth_7: float | None
    accuracy_depth_8: float | None
    accuracy_depth_9: float | None
    accuracy_depth_10: float | None

    def share(self, channel: str) -> float | None:
        """`<channel>_share` (consistent, drift, contradiction, other, unverifiable)."""
        value: float | None = getattr(self, f"{channel}_share")
        return value

    def count(self, name: str) -> int:
        """A count field by name (a channel, `ledger_turns`, ...)."""
        value: int = getattr(self, name)
        return value


class DepthRow(_Model):
    """Accuracy at one turn depth."""

    depth: int
    n_turns: int
    correct: int
    accuracy: float | None


class DepthBin(_Model):
    """Accuracy over one of the reference's depth bins (1-3, 4-6, 7-10)."""

    bin: str
    n_turns: int
    correct: int
    accuracy: float | None


class DepthTable(_Model):
    """Accuracy by turn depth 1..10 and by the reference's bins (`checker.constraint.metrics.depth_table`)."""

    per_turn: list[DepthRow]
    bins: list[DepthBin]


class ConstraintCellTables(_Model):
    """A constraint cell: pooled figures over its VALID runs, overall, per domain and by depth."""

    kind: ClassVar[str] = "constraint"

    track: Literal["constraint"]
    runs: int
    valid_runs: int
    excluded_runs: int
    """Runs of the cell that are not VALID (not pooled)."""
    seeds: list[str]
    """Seeds of the VALID runs, sorted."""
    overall: ConstraintAggregate
    by_domain: dict[str, ConstraintAggregate]
    by_depth: DepthTable
    mismatches: int
    """Recorded labels of the VALID runs that disagree with the recomputation."""


# ---------------------------------------------------------------- completion track


class Proportion(_Model):
    """k of n episodes, the rate and its Wilson 95% interval (`checker.completion.metrics.proportion`)."""

    k: int
    n: int
    rate: float | None
    """k / n; None when n is 0."""
    wilson95: list[float] | None
    """[low, high]; None when n is 0."""


class ClaimsDecomposition(_Model):
    """A completion cell's declared episodes by how they ended and whether the database check verifies them."""

    claimed_verified: int
    """Closed as done and verified."""
    false_claims: int
    """Closed as done, not verified (the four `false_*` counts below add up to it)."""
    false_no_effected_write: int
    """False claims whose episode changed nothing and left the database wrong."""
    false_wrong_writes: int
    """False claims whose writes took effect and left the database wrong."""
    false_output_missing: int
    """False claims with the right database whose required output was never said."""
    false_unbacked_statement: int
    """False claims with the right database and outputs whose replies state a write the log never effected."""
    transfer_verified: int
    transfer_not_verified: int
    step_limit: int
    error: int
    """Episodes a call would have crashed the environment in."""
    not_counted: int
    """Declared episodes with no VALID run (counted as not verified, not claimed)."""


class WriteCounts(_Model):
    """A completion cell's write calls against the tasks' gold writes (counted episodes)."""

    matched: int
    wrong: int
    missing: int
    extra: int
    error: int


class PassK(_Model):
    """pass^k of a completion cell for one k, with its 95% percentile bootstrap interval over tasks."""

    k: int
    value: float | None
    ci95: list[float]
    tasks: int
    trials: int


class CompletionCellTables(_Model):
    """A completion cell: its claims channel over the declared episodes (`checker.completion.metrics.cell_table`)."""

    kind: ClassVar[str] = "completion"

    track: Literal["completion"]
    board: BoardKey | None
    """The board the cell belongs on (None when none of its runs names a task set)."""
    episodes_declared: int
    """The ranked figure's n: the board's declared episodes, else the declared seeds reported."""
    episodes_counted: int
    """Declared episodes with a VALID run."""
    episodes_not_counted: int
    verified: Proportion
    """Verified episodes of the declared ones: the verified completion rate (ranked)."""
    claimed: Proportion
    """Episodes closed as done, of the declared ones."""
    false_claims: Proportion
    """Claimed and not verified, of the claimed ones (shown beside, never ranked alone)."""
    decomposition: ClaimsDecomposition
    writes: WriteCounts
    pass_k: list[PassK]
    """pass^k for k = 1..trials per task (empty when the cell does not declare every task the same number of times)."""
    pass_k_note: str | None
    """Why pass^k is undefined (None when it is defined)."""


# ---------------------------------------------------------------- either


class NoTables(_Model):
    """The tables of a cell no scored run stands behind (written `{}`)."""

    kind: ClassVar[str] = "none"


TrackTables = AgentCellTables | ConstraintCellTables | CompletionCellTables
"""What a track's `cell_tables` builds for each cell."""


def _kind(value: Any) -> str:
    """The tag of a stored table: `{}` has none, a constraint or completion table says its track, any other is an agent's."""
    if isinstance(value, dict):
        if not value:
            return "none"
        track = value.get("track")
        return track if track in ("constraint", "completion") else "agent"
    return str(getattr(value, "kind", "agent"))


CellTables = Annotated[
    Annotated[AgentCellTables, Tag("agent")] | Annotated[ConstraintCellTables, Tag("constraint")]
    | Annotated[CompletionCellTables, Tag("completion")] | Annotated[NoTables, Tag("none")],
    Discriminator(_kind),
]
"""The type of `CellResult.tables`."""

__all__ = ["AGENT_FIGURES", "AgentCellTables", "CellTables", "ClaimsDecomposition", "CompletionCellTables",
           "ConstraintAggregate", "ConstraintCellTables", "DepthBin", "DepthRow", "DepthTable", "HypothesisFormation",
           "NoTables", "Parity", "PassK", "Proportion", "SeedFigure", "TrackTables", "WriteCounts"]
