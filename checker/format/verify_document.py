"""The `driftboard verify --format json` document: one `SubmissionReport` per submission (what job summaries read).

Kept apart from `results_model` (the results file's records), which it reuses.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from checker.format.results_model import (
    CellResult,
    ClaimCheck,
    DefeaterResult,
    FindingRecord,
    NullResults,
    PredictionResult,
    PreregCheck,
    RunResult,
    _Model,
)


class SubmissionReport(_Model):
    """One submission in the `driftboard verify --format json` document (what the job summary reads)."""

    path: str
    submission_id: str | None
    track: Literal["agent", "constraint", "completion"] | None = None
    profile: str
    cached: bool
    runs: list[RunResult]
    cells: list[CellResult] | None = None
    """None when no results file could be written (no valid manifest)."""
    claims: list[ClaimCheck] | None = None
    prereg_check: PreregCheck | None = None
    defeaters: list[DefeaterResult] | None = None
    predictions: list[PredictionResult] | None = None
    null_results: NullResults | None = None
    digest: str | None = None


class VerifyDocument(BaseModel):
    """The whole `driftboard verify --format json` document (also a validate document, or the PR check's merge).

    Unknown top-level keys are ignored (a newer checker may add some); everything read is typed.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    command: str = "verify"
    ok: bool | None = None
    exit_code: int | None = None
    """2 when some input could not be read."""
    problems: list[FindingRecord] = Field(default_factory=list)
    submissions: list[SubmissionReport] = Field(default_factory=list)
    cache: dict[str, int] = Field(default_factory=dict)

