"""Events shared by both tracks: the run header and the run trailer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from checker.format.schema.base import EventBase, Int64Max, JsonObject, Model, Sha256Hex, event_model, examples, unit
from checker.format.schema.labels import Label

Track = Literal["agent", "constraint", "completion"]


class ProblemSetRef(Model):
    """The constraint problem set a run used, named by digest (the checker is given sets by path)."""

    name: str
    """Human name, e.g. `drift-bench-test` or `driftboard-suite-v1`."""
    digest: Sha256Hex
    """SHA-256 over the canonical JSON of every problem, in `problem_id` order (`checker.constraint.problems.problem_set_digest`).

    The digest of each set shipped under `problems/` is in `problems/README.md`.
    """


class SourceRef(Model):
    """Provenance of an imported run: the native files it came from."""

    importer: str
    """Importer name and version, e.g. `arg@1` or `drift-bench-transcript@1`."""
    files: dict[str, Sha256Hex] = Field(default_factory=dict)
    """Native file name -> SHA-256 of its bytes (e.g. the ARG `state.db` and `probe.db`)."""
    native_run_id: str | None = None
    """The run's id in the native store, when it differs from `run_id`."""
    details: JsonObject | None = None
    """Importer-specific provenance for tracing a run back to its source, never read when scoring (the Inspect
    importer keeps the eval's ids, model, provider, generation config and token usage here)."""
    absent_tables: list[str] | None = None
    """Native tables the store does not have (older ARG schemas): the metrics read from them are undefined."""


@event_model
class RunStart(EventBase):
    """First event of every run log."""

    model_config = examples({
        "type": "run_start", "format_version": "1.0", "run_id": "mylab-toy-full-seed1", "submission_id": "mylab-toy",
        "track": "constraint", "cell": "toy-model/ledger_only", "seed": "seed1", "flags": {"LEDGER": "1"},
        "backbone": "mylab/toy-model", "prereg_sha256": "d" * 64, "started_at": "2026-11-01T12:00:00Z",
        "comparator": False, "horizon": 200, "game_id": "ls20", "method": "ledger_only",
        "problem_set": {"name": "driftboard-suite-v1",
                        "digest": "cf04926fc25c83a9081712236b3f8abc5736f7c6f16aaa51ee27b0da9151c3f0"},
        "source": {"importer": "drift-bench-transcript@1", "files": {"transcripts.jsonl": "e" * 64},
                   "native_run_id": "run-42", "details": {"model": "toy-model", "epoch": 1}, "absent_tables": None},
    }, seq=0)

    type: Literal["run_start"]
    """Event type `run_start`."""
    format_version: str = Field(pattern=r"^\d+\.\d+$")
    """Log format version `MAJOR.MINOR`; a reader refuses a newer major version."""
    run_id: Label = Field(min_length=1, max_length=200)
    """Identifier unique across the whole leaderboard."""
    submission_id: str = Field(min_length=1, max_length=100)
    """The submission folder name this run belongs to."""
    track: Track
    """`agent`, `constraint` or `completion`."""
    cell: Label = Field(min_length=1, max_length=100)
    """Pre-registered cell name (agent: FULL, J0, A0, J0A0, BARE; constraint: `<model>/<method>`)."""
    seed: Label = Field(min_length=1, max_length=100)
    """Replicate label (ARG has no RNG seed; a seed is a label such as `seed3`)."""
    flags: dict[str, str] = Field(default_factory=dict)
    """Switches in force for the whole run, e.g. `{"ARG_JOIN": "0"}`."""
    backbone: str
    """Model behind the agent, e.g. `anthropic/claude-sonnet-5`."""
    prereg_sha256: Sha256Hex
    """SHA-256 of the submission's `prereg.yaml` bytes when the run started."""
    started_at: str
    """ISO 8601 start time as recorded by the harness (never used in results)."""
    comparator: bool = False
    """True for a BARE/RAW comparator run (gated like every run; used for compute parity only, when its gate passes)."""
    horizon: Int64Max | None = Field(default=None, ge=0, json_schema_extra=unit("actions"))
    """Action cap of the run (agent track)."""
    game_id: str | None = None
    """Environment/game identifier (agent track)."""
    method: str | None = None
    """Constraint track: the method (direct, cot, ledger_only, mus_repair, or a baseline name)."""
    problem_set: ProblemSetRef | None = None
    """Constraint track: the problem set used; completion track: the task set (`checker.completion.tasks`)."""
    source: SourceRef | None = None
    """Provenance when the run was imported from a native format."""


@event_model
class RunEnd(EventBase):
    """Last event of every run log; a run without it is INCOMPLETE."""

    model_config = examples({"type": "run_end", "status": "COMPLETED", "reason": "horizon reached"}, seq=41)

    type: Literal["run_end"]
    """Event type `run_end`."""
    status: Literal["COMPLETED", "ABORTED", "FAILED"]
    """How the run ended (COMPLETED = reached its horizon or won; ABORTED/FAILED otherwise)."""
    reason: str | None = None
    """Free-text reason, e.g. `horizon reached`, `connection error`."""
