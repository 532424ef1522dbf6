"""`submission.yaml` (the manifest) and `prereg.yaml` (the pre-registration)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from checker.schema.base import Model, Sha256Hex
from checker.schema.common import Track
from checker.schema.labels import Label

SUBMISSION_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,99}$"
"""Submission ids are folder names: lower-case letters, digits, `.`, `_`, `-`."""
RESERVED_IDS = ("index",)
RESERVED_ID_PREFIXES = ("shard-",)
"""Ids a submission may not take: its results file would be `index.json` (the results index) or
look like a shard's file, and its page would replace the submissions index."""


def not_reserved(value: str) -> str:
    """Refuse the reserved submission ids (see RESERVED_IDS)."""
    if value in RESERVED_IDS or value.startswith(RESERVED_ID_PREFIXES):
        raise ValueError(f"{value!r} is reserved (its results file would clash with the results index or a shard); "
                         "choose another id")
    return value


class Author(Model):
    """A submission author."""

    name: str = Field(min_length=1)
    affiliation: str | None = None
    orcid: str | None = None


class Harness(Model):
    """The code that produced the runs."""

    name: str
    version: str
    commit: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    """Git commit of the harness (7-64 hex characters)."""
    url: str | None = None


class ClaimedFigure(Model):
    """A number the submitter claims; the checker recomputes it and lists any mismatch."""

    cell: str
    metric: str
    value: float | int | None
    """The claimed value; null claims the metric is undefined."""
    source: str | None = None
    """Where it is published (paper table, README, ...)."""


class Submission(Model):
    """The manifest: who submitted what, and the files it contains."""

    format_version: str = Field(pattern=r"^\d+\.\d+$")
    id: str = Field(pattern=SUBMISSION_ID_PATTERN)
    """Must equal the folder name under `submissions/`."""
    title: str = Field(min_length=1, max_length=300)
    authors: list[Author] = Field(min_length=1)
    contact: str = Field(min_length=3)
    track: Track
    system: str
    """The agent system or method family (e.g. `ARG`, `DRIFT-Bench mus_repair`)."""
    backbone: str
    """Main model, e.g. `anthropic/claude-sonnet-5` (per-run backbones are in the logs)."""
    harness: Harness
    license: str
    """SPDX id of the licence the logs are released under."""
    paper: str | None = None
    doi: str | None = None
    synthetic: bool = False
    """True for Driftboard's own synthetic reference baselines."""
    citation: str | None = Field(default=None, max_length=2000)
    """How to cite the work the runs come from (e.g. the benchmark's preferred citation and its
    licence, for runs imported from a published benchmark); shown with the submission."""
    description: str | None = None
    files: list[str] = Field(min_length=1)
    """Every run log, relative to the submission folder (e.g. `runs/full-seed1.jsonl`)."""
    claims: list[ClaimedFigure] = Field(default_factory=list)
    """Figures the submitter reports; shown only next to the recomputed value."""

    _id_not_reserved = field_validator("id")(not_reserved)


class Cell(Model):
    """A pre-registered cell: a name and its flag settings."""

    flags: dict[str, str] = Field(default_factory=dict)
    seeds: list[Label] = Field(min_length=1)
    """Replicate labels declared for this cell; every one must be reported."""
    comparator: bool = False
    """True for a BARE/RAW comparator cell (not gated, used for compute parity)."""
    description: str | None = None


class Thresholds(Model):
    """Validity-gate thresholds (defaults: ARG's published constants)."""

    render_ceiling_B: int = Field(default=6000, ge=1)
    """Render-token ceiling B per beat and per LLM call (strict >)."""
    wer_floor: float = Field(default=0.25, ge=0, le=1)
    """Per-organ write-error rate above which a run is INVALID (strict >)."""
    wer_min_ops: int = Field(default=5, ge=0)
    """Minimum ops (rejects + accepted) before an organ's WER is judged (inclusive)."""
    canary_floor: float = Field(default=0.9, ge=0, le=1)
    """Canary echo-rate floor per zone (strict <)."""
    canary_warmup: int = Field(default=2, ge=0)
    """Echo rows with call_idx <= warm-up are ignored (unless none remain)."""


Comparison = Literal["<", "<=", "==", ">=", ">", "!="]


class Defeater(Model):
    """A declared result that would defeat the study's claim, e.g. "~0 completions"."""

    id: Label
    text: str
    metric: str
    """Metric the condition reads, e.g. `completions`, `valid_runs`, `gds_abandon`."""
    op: Comparison
    value: float
    scope: str = "all"
    """`all` (pooled over valid runs) or a cell name."""
    aggregate: Literal["sum", "mean", "max", "min", "count"] = "sum"


class Prediction(Model):
    """A pre-registered prediction, evaluated and reported, never used to gate."""

    id: Label
    text: str
    metric: str | None = None
    cell: str | None = None
    op: Comparison | None = None
    value: float | None = None
    versus: str | None = None
    """Compare against another cell's value instead of a constant."""


class Prereg(Model):
    """The pre-registration, committed before the runs; the checker reads thresholds from here."""

    format_version: str = Field(pattern=r"^\d+\.\d+$")
    submission_id: str = Field(pattern=SUBMISSION_ID_PATTERN)
    track: Track
    profile: Literal["driftboard", "arg-v1.0", "drift-bench-v1"] = "driftboard"
    cells: dict[Label, Cell] = Field(min_length=1)
    horizon: int | None = Field(default=None, ge=1)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    problem_set: Sha256Hex | None = None
    """Constraint track: digest of the problem set the runs must use."""
    defeaters: list[Defeater] = Field(default_factory=list)
    predictions: list[Prediction] = Field(default_factory=list)
    written_after_runs: bool = False
    """True when this file was written after the runs it declares (an import of existing runs, a
    retrospective declaration): it fixes what the runs must be judged against, but it did not
    constrain them. The site labels such a submission "pre-registration written after the runs".
    Set it whenever it is true; the checker cannot tell, since one commit may add both."""

    _id_not_reserved = field_validator("submission_id")(not_reserved)
