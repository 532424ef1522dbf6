"""Write path (arg-spec.md §c.5): WER per organ and total, write rejects, DPR, SRR, ECR.

`strict` (profile `driftboard`) turns ARG's 0.0 WER with no op into None.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, Metric

ORGANS = ("ACTUATOR", "OBSERVER", "SURVEYOR")
ECR_CLASSES = frozenset({"UNCONTAINED_PARAM", "OUT_OF_SCHEMA", "DANGLING_REF"})
SRR_OPS = frozenset({"ABORT_STEP", "RANK_TIEBREAK"})


@dataclass(frozen=True, slots=True)
class WritePath(Figures):
    """Write-path figures of one run."""

    wer_per_organ: dict[str, float | None]
    WER: float | None
    write_rejects: int
    DPR: float | None
    SRR: float | None
    ECR: float | None


def _r3(num: float, den: float) -> float:
    return round(num / den, 3)


def _rejects(state: AgentState, rejects: dict[str, int] | None) -> tuple[dict[str, int], int, int, int]:
    """(rejects per organ, retried rejects, Surveyor ABORT_STEP / RANK_TIEBREAK rejects, ECR-class rejects)."""
    rej: dict[str, int] = dict(rejects) if rejects is not None else {}
    retried = srr_hits = ecr_hits = 0
    for wr in state.write_rejects:
        if rejects is None:
            rej[wr.organ] = rej.get(wr.organ, 0) + 1
        retried += wr.retry_count >= 1
        srr_hits += wr.organ == "SURVEYOR" and wr.op_type in SRR_OPS
        ecr_hits += wr.violation_class in ECR_CLASSES
    return rej, retried, srr_hits, ecr_hits


def _accepted(state: AgentState, accepted: dict[str, int] | None) -> tuple[dict[str, int], int]:
    """(accepted ops per organ, Surveyor calls)."""
    acc: dict[str, int] = {}
    surveyor_calls = 0
    for call in state.llm_calls:
        if accepted is None:
            acc[call.organ] = acc.get(call.organ, 0) + call.ops_accepted
        surveyor_calls += call.organ == "SURVEYOR"
    if accepted is not None:
        acc.update(accepted)
    return acc, surveyor_calls


def write_path(state: AgentState, strict: bool, rejects: dict[str, int] | None = None,
               accepted: dict[str, int] | None = None) -> WritePath:
    """WER per organ and total, write rejects, DPR, SRR, ECR (§c.5).

    `rejects` and `accepted` (organ -> counts derived by `checker.agent.evidence.reject_counts` and
    `accepted_counts`) replace the count of reject rows and the calls' `ops_accepted` in WER.
    """
    rej, retried, srr_hits, ecr_hits = _rejects(state, rejects)
    acc, surveyor_calls = _accepted(state, accepted)
    per_organ: dict[str, float | None] = {}
    for organ in ORGANS:
        n = rej.get(organ, 0) + acc.get(organ, 0)
        per_organ[organ] = _r3(rej.get(organ, 0), n) if n else None
    total_rej, total_ops = sum(rej.values()), sum(rej.values()) + sum(acc.values())
    n_calls = len(state.llm_calls)
    return WritePath(
        wer_per_organ=per_organ,
        WER=_r3(total_rej, total_ops) if total_ops else (None if strict else 0.0),
        write_rejects=total_rej,
        DPR=_r3(retried, total_ops) if total_ops else None,
        SRR=_r3(srr_hits, surveyor_calls) if surveyor_calls else None,
        ECR=round(ecr_hits / (n_calls / 100), 3) if n_calls else None,
    )


METRICS: tuple[Metric, ...] = (
    # agent: write path (§c.5)
    Metric(
        name="WER",
        track="agent",
        kind="rate",
        definition=(
            "Write error rate, all organs: r3(Σrej / (Σrej + Σacc)), rej = write rejects (profile "
            "`driftboard`: per organ max(reject rows, Σ `ops_rejected` of its calls) + its MISSING_CANARY rows, "
            "at least its deaf salted calls), acc = Σ "
            "`ops_accepted` of the LLM calls. The gate's `write_error_rate` condition uses the per-organ "
            "rates instead (only organs with at least `wer_min_ops` ops; FAIL above `wer_floor`)."
        ),
        undefined="No write op: undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` (ARG's value).",
    ),
    Metric(
        name="wer_per_organ",
        track="agent",
        kind="table",
        definition=(
            "Per-run table (not aggregated per cell): r3(rej_o / (rej_o + acc_o)) for OBSERVER, SURVEYOR and "
            "ACTUATOR (no minimum-ops guard here, unlike the gate)."
        ),
        undefined="An organ with no op is undefined, in both profiles.",
    ),
    Metric(
        name="write_rejects",
        track="agent",
        kind="count",
        definition="Σrej: write-reject events.",
        undefined=NEVER,
    ),
    Metric(
        name="DPR",
        track="agent",
        kind="value",
        definition=(
            "r3(#write rejects with retry_count ≥ 1 / (Σrej + Σacc)): rejected writes on a corrective retry, "
            "per write op."
        ),
        undefined=(
            "No write op. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="SRR",
        track="agent",
        kind="value",
        definition=(
            "r3(#SURVEYOR write rejects with op ABORT_STEP or RANK_TIEBREAK / #SURVEYOR LLM calls, retries "
            "included)."
        ),
        undefined=(
            "No Surveyor call. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="ECR",
        track="agent",
        kind="value",
        definition=(
            "Write rejects of class UNCONTAINED_PARAM, OUT_OF_SCHEMA or DANGLING_REF per 100 LLM calls: "
            "r3(count / (#calls / 100))."
        ),
        undefined=(
            "No LLM call. "
            + BOTH_UNDEF
        ),
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "WritePath", "write_path"]
