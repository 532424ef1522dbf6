"""The release file: an immutable, committed record of the figures the site published at one commit.

Location: `releases/<release-id>.json` in the repository, written by `driftboard release` from the
results `verify` wrote for the tree at a commit, then committed by a maintainer. Serialised like
results files (sorted keys, 2-space indent, no wall-clock time: the date is the commit's), so the
same results at the same commit give byte-identical files. `digest` is the SHA-256 of the canonical
JSON of the file without its `digest` field (`checker.format.results_io.content_digest`).

A release file is read as untrusted input (`checker.pipeline.releases.read_release`): bounded in size,
validated against these models, its id, name, date and digest cross-checked.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

RELEASE_FORMAT: Literal["1.0"] = "1.0"
RELEASE_ID_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9a-f]{7}$"
"""`<commit date, YYYY-MM-DD>-<first 7 hex digits of the commit>`: safe as a file name, a URL path and an anchor."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
Day = Annotated[str, StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]
Count = Annotated[int, Field(ge=0, le=10**9)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ReleaseCell(_Model):
    """The figures a reader cites for one cell, as published in the release."""

    result_id: Name
    """`<submission-id>/<cell>`, as in the results file."""
    metric: Name | None
    """The track's ranking metric (`checker.pipeline.metrics.RANK_BY`); None for a comparator cell."""
    figure: float | None
    """The ranked figure: the all-declared (intent-to-treat) value of `metric`; None when undefined."""
    valid_only: float | None
    """The mean of `metric` over valid runs only (shown beside the ranked figure); None when undefined."""
    n_valid: Count
    """Valid runs of the cell."""
    n_declared: Count
    """Declared seeds, withdrawn ones excluded (0 without a pre-registration)."""
    runs: Count
    """Runs reported for the cell (any verdict)."""
    logs: Count
    """Run logs behind the cell."""
    logs_sha256: Sha256
    """Combined SHA-256 of those logs (`checker.format.results_io.combined_log_digest`, as in a citation)."""
    log_sha256: list[Sha256] = Field(default_factory=list, max_length=1_000_000)
    """SHA-256 of each of those logs, sorted (which logs a later release replaced)."""
    digest: Sha256 | Literal[""]
    """The cell result's content digest in the results file."""
    comparator: bool = False
    """A comparator cell (BARE/RAW): published, never ranked."""
    withdrawn_seeds: dict[Name, Annotated[str, StringConstraints(max_length=2000)]] = Field(default_factory=dict)
    """Seed -> reason, for seeds withdrawn in the pre-registration (`cells.<cell>.withdrawn`)."""


class ReleaseSubmission(_Model):
    """One submission as published in the release."""

    track: Literal["agent", "constraint", "completion"]
    title: Annotated[str, StringConstraints(max_length=2000)]
    ranked: bool
    """Whether the leaderboard ranked it (`ResultsFile.ranked`)."""
    checker_version: Name
    profile: Name
    verified: Day | None
    """Date of the last commit that touched the submission folder (`ResultsFile.provenance`)."""
    commit: Annotated[str, StringConstraints(pattern=r"^([0-9a-f]{40}|[0-9a-f]{64})$")] | None
    """That commit: the logs at it reproduce the figures."""
    results_digest: Sha256 | Literal[""]
    """The results file's content digest."""
    cells: dict[Name, ReleaseCell] = Field(max_length=10_000)


class Withdrawal(_Model):
    """A submission or cell published in the previous release and absent from this one."""

    submission: Name
    cell: Name | None
    """None: the whole submission."""
    reason: Annotated[str, StringConstraints(max_length=2000)]
    last_release: Annotated[str, StringConstraints(pattern=RELEASE_ID_PATTERN)]
    """The last release that published it (its figures stay readable there)."""


class ReleaseFile(_Model):
    """Everything one release published; never edited once committed (a later release supersedes it)."""

    release_format: Literal["1.0"] = RELEASE_FORMAT
    release: Annotated[str, StringConstraints(pattern=RELEASE_ID_PATTERN)]
    """The release id: `<date>-<commit[:7]>`; the file is `releases/<release>.json`."""
    date: Day
    """Commit date of `commit` (committer time zone), never the wall clock."""
    committed_at: Annotated[str, StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")]
    """Commit time of `commit` in UTC: orders releases."""
    commit: Annotated[str, StringConstraints(pattern=r"^([0-9a-f]{40}|[0-9a-f]{64})$")]
    """The repository commit whose verified results the release records."""
    checker_version: Name
    """Version of the checker that ran `driftboard release`."""
    submissions: dict[Name, ReleaseSubmission] = Field(max_length=100_000)
    withdrawn: list[Withdrawal] = Field(default_factory=list, max_length=100_000)
    """What the previous release published and this one does not."""
    digest: Sha256
    """SHA-256 of the canonical JSON of this file without this field."""
