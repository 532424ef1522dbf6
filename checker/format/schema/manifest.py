"""`submission.yaml` (the manifest) and `prereg.yaml` (the pre-registration)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from checker.format.schema.base import Model, Sha256Hex, unit
from checker.format.schema.common import Track
from checker.format.schema.labels import Label

SUBMISSION_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,99}$"
"""Submission ids are folder names: lower-case letters, digits, `.`, `_`, `-`."""
RESERVED_IDS = ("index", "boards")
RESERVED_ID_PREFIXES = ("shard-",)
"""Ids a submission may not take: its results file would be `index.json` (the results index) or
`boards.json` (the boards, `checker.format.results_io.BOARDS`) or look like a shard's file, and its
page would replace the submissions index."""


def not_reserved(value: str) -> str:
    """Refuse the reserved submission ids (see RESERVED_IDS)."""
    if value in RESERVED_IDS or value.startswith(RESERVED_ID_PREFIXES):
        raise ValueError(f"{value!r} is reserved (its results file would clash with the results index or a shard); "
                         "choose another id")
    return value


class Author(Model):
    """A submission author."""

    name: str = Field(min_length=1)
    """Full name."""
    affiliation: str | None = None
    """Institution or lab."""
    orcid: str | None = None
    """ORCID iD, e.g. `0000-0002-1825-0097`."""


class Harness(Model):
    """The code that produced the runs."""

    name: str
    """Harness name."""
    version: str
    """Harness version."""
    commit: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    """Git commit of the harness (7-64 hex characters)."""
    url: str | None = None
    """Where the harness code is published."""


MAX_BLOB_BYTES = 4 << 30
"""Largest run log stored by reference (its stored bytes: 4 GiB, `checker.format.storage.MAX_LOG_BYTES`)."""


class BlobRef(Model):
    """A run log stored outside the repository, by content address (`checker.stages.fetch`)."""

    sha256: Sha256Hex
    """SHA-256 of the stored bytes, as uploaded (the compressed file for a `.jsonl.zst` / `.jsonl.gz` name;
    `sha256sum` of the file). Results still cite `log_sha256`, the digest of the decompressed lines."""
    size: int = Field(ge=1, le=MAX_BLOB_BYTES, json_schema_extra=unit("bytes"))
    """Size of the stored bytes; at most this many bytes (and one more, to detect an overrun) are downloaded."""
    url: str = Field(min_length=9, max_length=2000)
    """Where the bytes are served: `https://` (a GitHub release asset, a Git LFS object at
    `https://media.githubusercontent.com/media/OWNER/REPO/REF/PATH`, Zenodo, any static host)."""


class ClaimedFigure(Model):
    """A number the submitter claims; the checker recomputes it and lists any mismatch."""

    cell: str
    """A cell of `prereg.yaml` (`validate` refuses any other name)."""
    metric: str
    """A metric of the track (see the Metrics page), or `runs` / `valid_runs`; `validate` refuses any other name."""
    value: float | int | None = Field(json_schema_extra=unit("the metric's unit"))
    """The claimed value; null claims the metric is undefined."""
    source: str | None = None
    """Where it is published (paper table, README, ...)."""


MAX_PRICE_USD_PER_MTOK = 10_000.0
"""Largest declared price, USD per million tokens (the dearest published model prices are in the hundreds)."""
MAX_PRICED_MODELS = 100
"""Most models a manifest declares prices for."""


class ModelPrice(Model):
    """A model's price as the submitter declares it: USD per million input and per million output tokens.

    Only the price is taken from the manifest: the tokens are derived from the run logs' recorded model
    calls, and the cost shown is those tokens times this price, marked "declared price".
    """

    input_usd_per_mtok: float = Field(ge=0, le=MAX_PRICE_USD_PER_MTOK, json_schema_extra=unit("USD per million tokens"))
    """Price of a million input (prompt) tokens, in US dollars."""
    output_usd_per_mtok: float = Field(ge=0, le=MAX_PRICE_USD_PER_MTOK,
                                       json_schema_extra=unit("USD per million tokens"))
    """Price of a million output (completion) tokens, in US dollars."""
    source: str | None = Field(default=None, max_length=500)
    """Where the price is published (the provider's price page, with its date)."""


ModelName = Annotated[str, Field(min_length=1, max_length=200)]
"""A model as the run logs name it (the runs' `backbone`)."""


class Submission(Model):
    """The manifest: who submitted what, and the files it contains."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "format_version": "1.0", "id": "mylab-toy", "title": "Toy agent on LS20", "authors": [
            {"name": "Ada Example", "affiliation": "Example Lab", "orcid": "0000-0002-1825-0097"}],
        "contact": "ada@example.org", "track": "agent", "system": "toy-agent", "backbone": "mylab/toy-model",
        "harness": {"name": "toy-harness", "version": "1.0", "commit": "0123abcd", "url": "https://example.org/h"},
        "license": "CC-BY-4.0", "paper": "https://example.org/paper.pdf", "doi": "10.1234/example",
        "synthetic": False, "citation": "Example, A. (2026). Toy agent. Example Lab. MIT licence.",
        "description": "A toy submission.", "files": ["runs/full-seed1.jsonl", "runs/full-seed2.jsonl.zst"],
        "logs_sha256": {"runs/full-seed1.jsonl": "9f2c" + "0" * 60},
        "blobs": {"runs/full-seed2.jsonl.zst": {
            "sha256": "5d1e" + "0" * 60, "size": 48_213_771,
            "url": "https://github.com/mylab/driftboard/releases/download/mylab-toy-runs/full-seed2.jsonl.zst"}},
        "claims": [{"cell": "FULL", "metric": "gds_bind", "value": 0.25, "source": "paper, Table 2"}],
        "prices": {"mylab/toy-model": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0,
                                       "source": "https://example.org/pricing (2026-11-01)"}},
    }]})

    format_version: str = Field(pattern=r"^\d+\.\d+$")
    """Format version `MAJOR.MINOR` (currently `1.0`)."""
    id: str = Field(pattern=SUBMISSION_ID_PATTERN)
    """Must equal the folder name under `submissions/`."""
    title: str = Field(min_length=1, max_length=300)
    """Title shown on the leaderboard."""
    authors: list[Author] = Field(min_length=1)
    """Who made the runs."""
    contact: str = Field(min_length=3)
    """An e-mail address or other way to reach the authors."""
    track: Track
    """`agent`, `constraint` or `completion`."""
    system: str
    """The agent system or method family (e.g. `ARG`, `DRIFT-Bench mus_repair`)."""
    backbone: str
    """Main model, e.g. `anthropic/claude-sonnet-5` (per-run backbones are in the logs)."""
    harness: Harness
    """The code that produced the runs (name, version, git commit)."""
    license: str
    """SPDX id of the licence the logs are released under."""
    paper: str | None = None
    """Link to the paper the runs belong to."""
    doi: str | None = None
    """DOI of the paper or dataset."""
    synthetic: bool = False
    """True for Driftboard's own synthetic reference baselines."""
    citation: str | None = Field(default=None, max_length=2000)
    """How to cite the work the runs come from (e.g. the benchmark's preferred citation and its
    licence, for runs imported from a published benchmark); shown with the submission."""
    description: str | None = None
    """Free text shown on the submission page."""
    files: list[str] = Field(default_factory=list)
    """Every run log, relative to the submission folder (e.g. `runs/full-seed1.jsonl`). Empty (`files: []`) in
    the first pull request, which pre-registers: the submission is then listed as pre-registered, awaiting runs;
    the runs and their entries here follow in a second pull request (entries are only ever appended)."""
    logs_sha256: dict[str, Sha256Hex] = Field(default_factory=dict, max_length=10_000)
    """SHA-256 of the run logs of `files` as they were written (path -> hex digest; optional, per log).
    A hash chain cannot see an edit of a log's last line (nothing follows it): `validate` compares
    each recorded digest with the file and reports a log that changed after it was written. The
    Inspect importer and the example harnesses write it."""
    blobs: dict[str, BlobRef] = Field(default_factory=dict, max_length=10_000)
    """Logs of `files` stored outside the repository (path -> SHA-256, size and URL of the stored bytes):
    `verify` fetches each one, checks its size and digest before reading it, and then reads it exactly
    as if it were committed under that path. The path's ending says how it is stored (`.jsonl`,
    `.jsonl.zst`, `.jsonl.gz`); no file may be committed under it. See "Large runs" in CONTRIBUTING.md."""
    claims: list[ClaimedFigure] = Field(default_factory=list)
    """Figures the submitter reports; shown only next to the recomputed value."""
    prices: dict[ModelName, ModelPrice] = Field(default_factory=dict, max_length=MAX_PRICED_MODELS)
    """Optional: model (as the run logs name it, the runs' `backbone`) -> its price in USD per million input and
    output tokens. The leaderboards then show a cell's cost: the input and output tokens its valid runs' logs
    record (agent track: the `llm_call` events), times the price of each run's model, marked "declared price"
    (the constraint and completion tracks derive no tokens yet: no cost). A token count or a cost is never
    taken from the manifest, only a price."""

    _id_not_reserved = field_validator("id")(not_reserved)

    def record(self) -> dict[str, Any]:
        """The manifest as results files store it.

        `logs_sha256`, `blobs` and `prices` only when given (older results keep their bytes).
        """
        empty = {k for k in ("logs_sha256", "blobs", "prices") if not getattr(self, k)}
        return self.model_dump(mode="json", exclude=empty or None)


class Cell(Model):
    """A pre-registered cell: a name and its flag settings."""

    flags: dict[str, str] = Field(default_factory=dict)
    """Switches in force for the cell's runs, e.g. `{"ARG_JOIN": "0"}` (the runs' headers carry them)."""
    seeds: list[Label] = Field(min_length=1)
    """Replicate labels declared for this cell; every one must be reported."""
    comparator: bool = False
    """True for a BARE/RAW comparator cell (gated like every run; used for compute parity only). Only the comparator
    kinds (cells named BARE or RAW, agent track) may be comparators."""
    deterministic: bool = False
    """The cell's method is deterministic: its runs may have identical event payloads when their
    declared inputs differ (see "Copies" in the format reference); a copy is otherwise flagged."""
    withdrawn: dict[Label, str] = Field(default_factory=dict)
    """Seed -> reason, for declared seeds withdrawn *before* they ran (no log may exist for them).
    A withdrawal is published with its reason; the seed leaves the all-declared figures. Since the
    prereg's digest is in every run header and it must be merged before any run (two-PR flow), a
    withdrawal cannot be added after runs exist without failing verification."""
    description: str | None = None
    """What the cell is, in words."""

    @model_validator(mode="after")
    def _withdrawn_are_declared(self) -> Cell:
        unknown = sorted(set(self.withdrawn) - set(self.seeds))
        if unknown:
            raise ValueError(f"withdrawn seed(s) {', '.join(unknown)} are not among the declared seeds")
        return self


class Thresholds(Model):
    """Validity-gate thresholds (defaults: ARG's published constants)."""

    render_ceiling_B: int = Field(default=6000, ge=1, json_schema_extra=unit("tokens"))
    """Render-token ceiling B per beat and per LLM call (strict >)."""
    wer_floor: float = Field(default=0.25, ge=0, le=1, json_schema_extra=unit("fraction (0-1)"))
    """Per-organ write-error rate above which a run is INVALID (strict >)."""
    wer_min_ops: int = Field(default=5, ge=0, json_schema_extra=unit("write operations"))
    """Minimum ops (rejects + accepted) before an organ's WER is judged (inclusive)."""
    canary_floor: float = Field(default=0.9, ge=0, le=1, json_schema_extra=unit("fraction (0-1)"))
    """Canary echo-rate floor per zone (strict <)."""
    canary_warmup: int = Field(default=2, ge=0, json_schema_extra=unit("call number"))
    """Echo rows with call_idx <= warm-up are ignored (unless none remain)."""


Comparison = Literal["<", "<=", "==", ">=", ">", "!="]


class Defeater(Model):
    """A declared result that would defeat the study's claim, e.g. "~0 completions"."""

    id: Label
    """Defeater id."""
    text: str
    """The defeating result in words."""
    metric: str
    """Metric the condition reads, e.g. `completions`, `valid_runs`, `gds_abandon`."""
    op: Comparison
    """Comparison of the pooled value with `value`."""
    value: float = Field(json_schema_extra=unit("the metric's unit"))
    """Threshold the pooled value is compared with."""
    scope: str = "all"
    """`all` (pooled over valid runs) or a cell name."""
    aggregate: Literal["sum", "mean", "max", "min", "count"] = "sum"
    """How per-run values are pooled."""


class Prediction(Model):
    """A pre-registered prediction, evaluated and reported, never used to gate."""

    id: Label
    """Prediction id."""
    text: str
    """The prediction in words."""
    metric: str | None = None
    """Metric compared (a cell mean)."""
    cell: str | None = None
    """Cell whose mean is compared."""
    op: Comparison | None = None
    """Comparison of the cell mean with `value` or with the `versus` cell's mean."""
    value: float | None = Field(default=None, json_schema_extra=unit("the metric's unit"))
    """Constant compared with."""
    versus: str | None = None
    """Compare against another cell's value instead of a constant."""


class Prereg(Model):
    """The pre-registration, committed before the runs; the checker reads thresholds from here."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "format_version": "1.0", "submission_id": "mylab-toy", "track": "agent", "profile": "driftboard",
        "cells": {"FULL": {"flags": {}, "seeds": ["seed1", "seed2", "seed3"], "comparator": False,
                           "withdrawn": {"seed3": "compute quota ran out before the run started"},
                           "deterministic": False,
                           "description": "the full agent"}},
        "horizon": 200,
        "thresholds": {"render_ceiling_B": 6000, "wer_floor": 0.25, "wer_min_ops": 5, "canary_floor": 0.9,
                       "canary_warmup": 2},
        "problem_set": None,
        "defeaters": [{"id": "zero-completions", "text": "~0 completions", "metric": "completions", "op": "<=",
                       "value": 0, "scope": "all", "aggregate": "sum"}],
        "predictions": [{"id": "bind-low", "text": "bind drift stays under 0.2", "metric": "gds_bind",
                         "cell": "FULL", "op": "<", "value": 0.2, "versus": None}],
        "written_after_runs": False,
    }]})

    format_version: str = Field(pattern=r"^\d+\.\d+$")
    """Format version `MAJOR.MINOR` (currently `1.0`)."""
    submission_id: str = Field(pattern=SUBMISSION_ID_PATTERN)
    """The submission folder name (as the manifest's `id`)."""
    track: Track
    """`agent`, `constraint` or `completion` (as the manifest's)."""
    profile: Literal["driftboard", "arg-v1.0", "drift-bench-v1"] = "driftboard"
    """Which scoring rules apply."""
    cells: dict[Label, Cell] = Field(min_length=1)
    """Cell name -> its flags and seeds; every declared (cell, seed) must be reported."""
    horizon: int | None = Field(default=None, ge=1, json_schema_extra=unit("actions"))
    """Action cap per run (agent track)."""
    thresholds: Thresholds = Field(default_factory=Thresholds)
    """Validity-gate thresholds; ARG's published defaults when absent (a prereg may tighten them)."""
    problem_set: Sha256Hex | None = None
    """Constraint track: digest of the problem set the runs must use; completion track: of the task set."""
    defeaters: list[Defeater] = Field(default_factory=list)
    """Declared results that would defeat the study's claim."""
    predictions: list[Prediction] = Field(default_factory=list)
    """Declared predictions, evaluated and reported."""
    written_after_runs: bool = False
    """True when this file was written after the runs it declares (an import of existing runs, a
    retrospective declaration): it fixes what the runs must be judged against, but it did not
    constrain them. The site labels such a submission "pre-registration written after the runs".
    Set it whenever it is true; the checker cannot tell, since one commit may add both."""

    _id_not_reserved = field_validator("submission_id")(not_reserved)
