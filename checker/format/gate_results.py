"""The validity gate's outcome as the results file stores it: one typed record per condition.

Each condition of the agent track's gate (`checker.agent.gate`, one module per condition) returns its
record here; `GateConditions` holds them in the gate's order and `Legibility` the same outcome in the
shape ARG's legibility probe prints. Kept apart from `results_model` so the run, cell and file
records read on their own; `results_model` re-exports these names.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Status = Literal["PASS", "FAIL", "NOT_APPLICABLE"]
"""A gate condition's outcome; NOT_APPLICABLE is vacuous (nothing to judge), never a silent pass."""
STATUS_LABELS: dict[str, str] = {"PASS": "PASS", "FAIL": "FAIL", "NOT_APPLICABLE": "N/A"}
"""How a status is shown to a reader (CLI text, pages, job summary)."""


class ConditionResult(_Model):
    """Outcome of one gate condition, with the numbers that decided it."""

    status: Status
    note: str
    """The numbers in one line, for tables (from the condition's module in `checker.agent.gate`)."""
    reason: str | None
    """Why the condition failed, in words a submitter can act on; None unless FAIL."""


class RenderCeilingResult(ConditionResult):
    """Condition 1: no beat and no LLM call renders more than B tokens."""

    B: int
    """The ceiling in tokens (strict >)."""
    breaches: int
    beat_breaches: int
    call_breaches: int
    max_render_tokens: int
    lines: list[int]
    """Offending log lines (at most 20)."""
    capture_breaches: int | None = None
    """Render captures above B (profile `driftboard` counts them; None under `arg-v1.0`)."""


class SilentDegradeResult(ConditionResult):
    """Condition 2: every acted beat carries a reference stamp."""

    count: int
    """Acted beats without a stamp."""
    acted_beats: int
    lines: list[int]


class StartupProbeResult(ConditionResult):
    """Condition 3: a startup probe exists and did not fail."""

    present: bool
    image_receipt_ok: bool | None
    """Tri-state: None = no vision path."""


class ShadowGroupDiff(_Model):
    """A (turn, zone, organ, call) group whose live and shadow captures differ (profile `driftboard`)."""

    turn: int
    zone: str
    organ: str | None
    call_idx: int | None
    lines: list[int]
    """Log lines of the group's captures (at most 20)."""


class ShadowPairDiff(_Model):
    """A (turn, zone) whose last live and last shadow capture differ (profile `arg-v1.0`)."""

    turn: int
    zone: str
    lines: list[int]
    """[live capture's line, shadow capture's line]."""


class ShadowIdentityResult(ConditionResult):
    """Condition 4: live and shadow captures of the same view are byte-identical."""

    paired_groups: int
    differing: int
    examples: list[ShadowGroupDiff | ShadowPairDiff]
    """Differing groups (turn, zone, organ, call, lines; under `arg-v1.0` turn, zone, lines), at most 20."""


class CanaryEchoResult(ConditionResult):
    """Condition 5: per-zone canary echo rate after warm-up is not below the floor."""

    floor: float
    warmup: int
    rows: int
    rows_used: int
    fallback_all_rows: bool
    """True when no row is past the warm-up, so every row was used."""
    rates: dict[str, float]
    """Zone -> echo rate (3 decimals)."""
    zones_below: list[str]


class OrganWer(_Model):
    """One organ's write-error figures."""

    rejects: int
    accepted: int
    ops: int
    judged: bool
    """At least `min_ops` ops (only judged organs can fail the condition)."""
    wer: float | None
    """rejects / ops (3 decimals); None with no op."""


class WriteErrorRateResult(ConditionResult):
    """Condition 6: per judged organ, rejects / ops is not above the floor."""

    floor: float
    min_ops: int
    organs: dict[str, OrganWer]
    failed: list[str]


class EvidenceConditionResult(ConditionResult):
    """Condition 7: no label the gate or a metric reads contradicts the log's own lower-level rows (`checker.agent.evidence`)."""

    checked: bool
    """False under `arg-v1.0`, which reads labels as ARG does (the condition is then N/A)."""
    mismatches: int
    by_check: dict[str, int]
    """Check name (references, aim, canary, receipts, rejects, levels, ...) -> contradicted labels."""
    lines: list[int]
    first: str | None = None
    """The first contradiction, in words."""


class GateConditions(_Model):
    """The gate's conditions for one run: ARG's six in arg-spec.md §b order, then `evidence` (`checker.agent.gate.GATE`)."""

    render_ceiling: RenderCeilingResult
    silent_degrade: SilentDegradeResult
    startup_probe: StartupProbeResult
    shadow_identity: ShadowIdentityResult
    canary_echo: CanaryEchoResult
    write_error_rate: WriteErrorRateResult
    evidence: EvidenceConditionResult

    def items(self) -> list[tuple[str, ConditionResult]]:
        """(name, result) in declaration order."""
        return [(name, getattr(self, name)) for name in type(self).model_fields]


class Legibility(_Model):
    """The gate's outcome in the shape ARG's legibility probe (`probe_arg_legibility.verify`) returns."""

    verdict: Literal["VALID", "INVALID"]
    r9_breaches: int
    """Renders above the ceiling (condition 1's `breaches`)."""
    silent_degrade: int
    """Acted beats without a reference stamp (condition 2's `count`)."""
    startup_ok: bool
    shadow_ok: bool
    beats: int
    zcr_rates: dict[str, float]
    """Zone -> canary echo rate (condition 5's `rates`)."""
    zcr_uniform_fail: bool
    """Condition 5 failed."""
    wer_by_organ: dict[str, float | None]
    """Judged organ -> write-error rate (condition 6)."""
    wer_floor_ok: bool
