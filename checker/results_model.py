"""The verified results file: one per submission, written by `driftboard verify`.

Location: `<results dir>/<submission-id>.json` (default results dir: `build/results`), plus
`index.json` listing every submission. Serialised with sorted keys and no wall-clock time, so
the same inputs give byte-identical files. `digest` fields are SHA-256 over the canonical JSON
of the object they sit in, with the digest field itself left out.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RESULTS_FORMAT: Literal["1.0"] = "1.0"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LogDigest(_Model):
    """One run log the results were computed from."""

    path: str
    """Path relative to the repository (`submissions/<id>/runs/<file>.jsonl`)."""
    sha256: str
    run_id: str | None = None


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
    """Seeded percentile-bootstrap 95% interval of the mean (None with fewer than 2 defined seeds)."""
    pooled: float | None = None
    """For rates over beats/turns: total numerator / total denominator over defined seeds."""
    pooled_num: float | None = None
    pooled_den: float | None = None


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
    metrics: dict[str, MetricAggregate] = Field(default_factory=dict)
    tables: dict[str, Any] = Field(default_factory=dict)
    """Track-specific tables (decomposition, channels, depth curve, ...)."""
    log_sha256: list[str] = Field(default_factory=list)
    """SHA-256 of every log behind this cell, sorted."""
    digest: str = ""
    """Content digest of this cell result."""


class PreregCheck(_Model):
    """Pre-registration enforcement."""

    missing: list[dict[str, str]] = Field(default_factory=list)
    """Declared (cell, seed) with no run: "missing (not reported)"."""
    undeclared: list[dict[str, str]] = Field(default_factory=list)
    """Runs whose (cell, seed) the pre-registration does not declare."""
    digest_mismatch: list[dict[str, str]] = Field(default_factory=list)
    """Runs whose header prereg digest differs from prereg.yaml."""
    commit_order: dict[str, Any] = Field(default_factory=dict)
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


class ResultsFile(_Model):
    """Everything the checker derived for one submission."""

    results_format: Literal["1.0"] = RESULTS_FORMAT
    checker_version: str
    submission_id: str
    title: str
    authors: list[str]
    track: Literal["agent", "constraint"]
    synthetic: bool
    prereg_written_after_runs: bool = False
    """The pre-registration says it was written after the runs (`written_after_runs`): shown as a label."""
    profile: str
    thresholds: dict[str, Any]
    thresholds_source: Literal["prereg", "defaults"]
    prereg_sha256: str | None
    problem_sets: list[str] = Field(default_factory=list)
    logs: list[LogDigest]
    null_results: NullResults
    runs: list[dict[str, Any]]
    """Per-run records from the track scorer: verdict, reasons, gate, metrics, mismatches, ..."""
    cells: list[CellResult]
    prereg_check: PreregCheck
    defeaters: list[DefeaterResult] = Field(default_factory=list)
    predictions: list[dict[str, Any]] = Field(default_factory=list)
    claims: list[ClaimCheck] = Field(default_factory=list)
    findings: list[dict[str, Any]] = Field(default_factory=list)
    """Format problems found while verifying (path, line, message)."""
    manifest: dict[str, Any] = Field(default_factory=dict)
    """The manifest as submitted (strings shown escaped on the site)."""
    reproduce: str
    """The command that reproduces these results."""
    digest: str = ""
    """Content digest of the whole file."""
