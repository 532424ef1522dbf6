"""GDS: goal-drift decomposition per run into bind / aligned / abandon (arg-spec.md §c.2).

For each acted (non-RESET) beat the reference step is

1. live: the plan step named by the beat's `step_id` (looked up by id only); a live beat whose
   step is not in the log is not a reference beat;
2. shadow: else the beat's `shadow_step_id` split on `|` into >= 3 fields (action = field 2,
   target = field 3, `-` = none);
3. otherwise the beat is not a reference beat.

With `aimed` = the beat has parameters, `on_plan` = no reference action or the beat's action
equals it, `tgt` = the reference target and `landing` = where the action landed:

    bind     on_plan and tgt and aimed and landing != tgt
    aligned  otherwise, if live (a live beat is never abandon)
    abandon  otherwise: not on_plan, or (tgt and landing != tgt)
    aligned  otherwise

Rates are counts / reference beats, rounded to 3 places; all are None when there is no
reference beat. `landing` is the recorded `target_ref` in profile `arg-v1.0` and the landing
recomputed from geometry (see `checker.agent.replay`) in profile `driftboard`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from checker.agent.evidence import Reference
from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.beat_outcomes import encode
from checker.format.metricdef import LANDING, NEVER, REF_UNDEF, Metric
from checker.format.results_model import DRIFTED_KEPT, GdsBeat, GdsCounts, Mismatch
from checker.format.schema.agent import Beat, PlanStep


@dataclass(frozen=True, slots=True)
class GdsRates(Figures):
    """The run's GDS metrics: reference beats and the decomposition's rates (None with no reference beat)."""

    drift_ref_beats: int
    gds_bind: float | None
    gds_abandon: float | None
    drift_total: float | None
    gds_aligned: float | None


@dataclass
class Gds:
    """Counts and rates of the decomposition."""

    reference_beats: int = 0
    live: int = 0
    shadow: int = 0
    bind: int = 0
    aligned: int = 0
    abandon: int = 0
    outcomes: list[str] = field(default_factory=list)
    """One symbol per beat (`checker.format.beat_outcomes`)."""
    drifted: list[GdsBeat] = field(default_factory=list)
    """The first `DRIFTED_KEPT` bind / abandon beats."""

    def rates(self) -> GdsRates:
        """`drift_ref_beats`, then `gds_bind`, `gds_abandon`, `drift_total`, `gds_aligned` (None with no reference beat)."""
        n = self.reference_beats
        if n == 0:
            return GdsRates(0, None, None, None, None)
        return GdsRates(n, round(self.bind / n, 3), round(self.abandon / n, 3), round((self.bind + self.abandon) / n, 3),
                        round(self.aligned / n, 3))

    def counts(self) -> GdsCounts:
        """The counts as the results store them (`RunResult.gds`)."""
        return GdsCounts(reference_beats=self.reference_beats, live=self.live, shadow=self.shadow, bind=self.bind,
                         aligned=self.aligned, abandon=self.abandon, outcomes=encode(self.outcomes),
                         drifted=self.drifted)


def landings(state: AgentState, recomputed: bool) -> list[str | None]:
    """The landing of every beat: recorded (`target_ref`) or recomputed from geometry."""
    if recomputed:
        return [land.ref for land in state.landings]
    return [b.target_ref for b in state.beats]


def gds(state: AgentState, landing: list[str | None], references: list[Reference | None] | None = None,
        aimed: list[bool] | None = None, strict: bool = False) -> Gds:
    """Classify every acted beat of a replayed run.

    Args:
        state: the replayed run.
        landing: landing per beat (recorded or recomputed).
        references: per beat, the reference step derived from the log's evidence
            (`checker.agent.evidence`); None reads the recorded `step_id` / `shadow_step_id`.
        aimed: per beat, aimed as derived from the evidence; None = the beat has parameters.
        strict: profile `driftboard`: a beat is aligned only when it can be checked against a target
            (`_unchecked`); otherwise it counts as bind.
    """
    out = Gds()
    beats = state.beats
    refs = references if references is not None else [_recorded_reference(b, state.plan_steps) for b in beats]
    aims = aimed if aimed is not None else [b.params is not None for b in beats]
    symbol = out.outcomes.append
    for beat, line, landed, ref, is_aimed in zip(beats, state.beat_lines, landing, refs, aims, strict=True):
        action = beat.action
        if ref is None or action == "RESET":
            symbol(".")
            continue
        ref_action, tgt, live = ref
        out.reference_beats += 1
        out.live += live
        out.shadow += not live
        on_plan = not ref_action or action == ref_action
        if (on_plan and tgt and is_aimed and landed != tgt) or (strict and _unchecked(live, on_plan, tgt, is_aimed)):
            out.bind += 1
            symbol("b")
            _keep(out, line, "bind", live, ref_action, tgt, landed)
        elif live or (on_plan and not (tgt and landed != tgt)):
            out.aligned += 1
            symbol("a")
        else:
            out.abandon += 1
            symbol("x")
            _keep(out, line, "abandon", live, ref_action, tgt, landed)
    return out


def _keep(out: Gds, line: int, outcome: Literal["bind", "abandon"], live: bool, ref_action: str | None,
          tgt: str | None, landed: str | None) -> None:
    """Keep a drifted beat's details while fewer than `DRIFTED_KEPT` are kept (its outcome is in `outcomes`)."""
    if len(out.drifted) < DRIFTED_KEPT:
        out.drifted.append(GdsBeat(line=line, outcome=outcome, live=live, step_action=ref_action or None,
                                   aimed_at=tgt or None, landed=landed))


def _unchecked(live: bool, on_plan: bool, tgt: str | None, aimed: bool) -> bool:
    """Profile `driftboard`: a beat the reference would count aligned without checking it against a target.

    A plan step that names no target (live, or a shadow step the beat follows), or a live step whose
    beat does another action or is not aimed: ARG counts each aligned, so plans of targetless steps
    would make drift 0 for free. Here each counts as bind: committing to nothing is not alignment.
    (A shadow beat off its plan, or aimed elsewhere, is abandon already.)
    """
    if live:
        return not (on_plan and tgt and aimed)
    return on_plan and not tgt


def _recorded_reference(beat: Beat, steps: dict[str, PlanStep]) -> Reference | None:
    """The beat's reference step as recorded: its `step_id`'s plan step, else its `shadow_step_id`."""
    if beat.step_id:
        step = steps.get(beat.step_id)
        return (step.action, step.target_ref, True) if step is not None else None
    if beat.shadow_step_id:
        fields = beat.shadow_step_id.split("|")
        return (fields[1], None if fields[2] == "-" else fields[2], False) if len(fields) >= 3 else None
    return None


def attribution_mismatches(state: AgentState) -> list[Mismatch]:
    """Beats whose recorded landing differs from the one recomputed from geometry."""
    out: list[Mismatch] = []
    if [beat.target_ref for beat in state.beats] == [land.ref for land in state.landings]:
        return out  # every recorded landing is the recomputed one
    for beat, line, land in zip(state.beats, state.beat_lines, state.landings, strict=True):
        if beat.action == "RESET" or beat.target_ref == land.ref:
            continue
        if not land.aimed:
            reason = "untargeted action (no integer x/y): it lands on no referent"
        elif land.ref is None:
            reason = "no current, non-dormant referent's anchor cells contain the click: background"
        else:
            reason = "the smallest current, non-dormant referent containing the click differs"
        out.append(Mismatch(line=line, field="target_ref", recorded=beat.target_ref, recomputed=land.ref, reason=reason))
    return out

METRICS: tuple[Metric, ...] = (
    # agent: GDS (arg-spec §c.2)
    Metric(
        name="drift_ref_beats",
        track="agent",
        kind="count",
        unit="beats",
        definition=(
            "n_ref, the number of reference beats: acted (non-RESET) beats whose `step_id` names a plan step "
            "found in the log (**live**; a live beat whose step is absent is not a reference beat), else "
            "whose `shadow_step_id` splits on `|` into at least 3 fields (**shadow**: action = field 2, "
            "target = field 3, `-` = none)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="gds_bind",
        track="agent",
        kind="rate",
        unit="share of reference beats",
        higher_is_better=False,
        worst=1.0,
        worst_means="1: every reference beat of the run counts as drift",
        definition=(
            "r3(bind / n_ref). A reference beat is **bind** when it is on plan (no reference action, or the "
            "beat's action equals it), the step names a target, the action is aimed (has parameters) and it "
            "landed elsewhere than the target (background included). In profile `driftboard` a beat is also "
            "bind when it cannot be checked against a target: its plan step names no target, or (live) the beat "
            "does not carry out its step's action aimed; ARG counts those aligned. "
            + LANDING
        ),
        undefined=REF_UNDEF,
    ),
    Metric(
        name="gds_aligned",
        track="agent",
        kind="rate",
        unit="share of reference beats",
        higher_is_better=True,
        worst=0.0,
        worst_means="0: no reference beat of the run counts as aligned",
        definition=(
            "r3(aligned / n_ref): every live reference beat that is not bind, and every shadow reference beat "
            "that is neither bind nor abandon."
        ),
        undefined=REF_UNDEF,
    ),
    Metric(
        name="gds_abandon",
        track="agent",
        kind="rate",
        unit="share of reference beats",
        higher_is_better=False,
        worst=1.0,
        worst_means="1: every reference beat of the run counts as drift",
        definition=(
            "r3(abandon / n_ref): shadow reference beats that are not bind and are off plan (action differs "
            "from the reference action) or landed off the step's target. A live beat is never abandon, so "
            "abandon is 0 when every reference beat is live. "
            + LANDING
        ),
        undefined=REF_UNDEF,
    ),
    Metric(
        name="drift_total",
        track="agent",
        kind="rate",
        unit="share of reference beats",
        higher_is_better=False,
        worst=1.0,
        worst_means="1: every reference beat of the run counts as drift",
        ranked=True,
        degenerate_worst=(
            "In profile driftboard a beat is aligned only when it can be checked against a target: a plan step "
            "that names no target, or a live step the beat does not carry out aimed, counts as bind, not as a "
            "free aligned beat; a declared run with no reference beat (no plan, never acting) and a missing or "
            "invalid run count as 1, the worst value, in the ranked all-declared figure."),
        definition=(
            "r3((bind + abandon) / n_ref), computed from the counts (it can differ by 0.001 from the sum of "
            "the two rounded rates)."
        ),
        undefined=REF_UNDEF,
    ),
    Metric(
        name="attribution_mismatches",
        track="agent",
        kind="count",
        unit="beats",
        definition=(
            "Acted beats whose recorded `target_ref` differs from the landing recomputed from geometry (each "
            "is listed in the run's `mismatches` with the reason). Computed in both profiles."
        ),
        undefined=NEVER,
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.pipeline.metrics`)."""


__all__ = ["Gds", "GdsRates", "attribution_mismatches", "gds", "landings"]
