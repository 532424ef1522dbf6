"""Agent-track scorer: replay -> evidence -> gate -> GDS, grounding, ARG metric table, milestones.

`score_run` builds the run's `RunResult` from typed parts (the gate's `GateConditions` and
`Legibility`, `GdsCounts`, `MilestoneDetail`s, `Mismatch`es, the metric groups' `Figures` records
merged into the metric table) and records what bears on the verdict as facts, which
`checker.stages.verdict` judges (the only place a verdict is decided). Per-run result:

* `run_id`, `native_run_id`, `track` ("agent"), `cell`, `seed`, `comparator`, `profile`;
* `verdict`: VALID / INVALID from the gate's facts; INCOMPLETE when the log has no `run_end` (the
  gate is still computed, see `gate_verdict`); COMPARATOR for BARE/RAW comparator runs whose gate
  passes, which only serve compute parity. A run is a comparator only when its `run_start` says so
  *and* the pre-registration declares its cell a comparator cell (else the disagreement is listed
  in `mismatches`). Every run is gated, comparators too: ARG's legibility probe, given a
  comparator's store pair, gates it (no startup row: INVALID), and a gate failure outranks the
  comparator cell (`checker.stages.verdict`); a comparator run without `run_end` is INCOMPLETE;
* `reasons` (every reason), `gate` (condition -> status + numbers), `legibility` (the gate in
  the shape ARG's legibility probe prints), `metrics` (ARG's metric JSON keys exactly, plus
  `gds_aligned`, hypothesis formation and milestone counts), `gds` (counts),
  `milestones` (per-claim details), `mismatches` (attribution and canary echo disagreements),
  `rates` (rates over beats as [numerator, denominator], pooled per cell by the results stage).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean
from typing import Any

from checker.agent.evidence import EvidenceResult, check_evidence
from checker.agent.gate import GateResult, run_gate
from checker.agent.gds import Gds, attribution_mismatches, gds, landings
from checker.agent.grounding import acted_landings, grounding, hypotheses
from checker.agent.metrics import bins, chain, counts, lifecycle, render_tokens, write_path
from checker.agent.milestones import Milestones, figure_check, milestones
from checker.agent.replay import AgentState, replay
from checker.format.cell_tables import AGENT_FIGURES, AgentCellTables, HypothesisFormation, Parity, SeedFigure
from checker.format.results_model import MetricValue, Mismatch, RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.manifest import Thresholds
from checker.format.seeds import seed_labels
from checker.stages.rules import is_comparator_cell, within_horizon
from checker.stages.tracks import RunRecord, VerifyContext, incomplete_reason
from checker.stages.verdict import judged_run

AGENT_PROFILES = ("driftboard", "arg-v1.0")


@dataclass(frozen=True, slots=True)
class _Replayed:
    """One run replayed, with what every figure of it reads: landings, evidence checks, GDS decomposition."""

    state: AgentState
    strict: bool
    """Profile `driftboard`: recomputed landings, evidence checks, None on empty denominators."""
    landing: list[str | None]
    """Per beat: recorded (`arg-v1.0`) or recomputed landing."""
    acted: list[str | None]
    """The landing of every acted (non-RESET) beat."""
    evidence: EvidenceResult | None
    """Labels vs the log's own rows (`checker.agent.evidence`); None under `arg-v1.0`."""
    decomposition: Gds

    @classmethod
    def of(cls, run: RunRecord, strict: bool) -> _Replayed:
        """Replay `run` and derive what its figures read."""
        state = replay(run)
        landing = landings(state, recomputed=strict)
        evidence = check_evidence(state) if strict else None
        decomposition = (gds(state, landing, evidence.references, evidence.aimed, strict=True) if evidence is not None
                         else gds(state, landing))
        return cls(state, strict, landing, acted_landings(state, landing), evidence, decomposition)

    def milestones(self) -> Milestones:
        """Claimed vs verified milestones (receipts' `match` recomputed in profile `driftboard`)."""
        ev = self.evidence
        return milestones(self.state, receipt_match=ev.receipt_match) if ev is not None else milestones(self.state)

    def metric_table(self, run: RunRecord, thresholds: Thresholds, ms: Milestones,
                     attribution: int) -> dict[str, MetricValue]:
        """The run's metrics, ARG's JSON keys in ARG's order, then ours (`checker.pipeline.metrics` declares them)."""
        state, strict, ev = self.state, self.strict, self.evidence
        source = run.start.source
        table: dict[str, MetricValue] = {"run": _native_id(run) or run.start.run_id}
        for part in (counts(state), self.decomposition.rates(), grounding(state, self.acted, strict),
                     lifecycle(state, len(self.acted), strict),
                     write_path(state, strict, ev.rejects if ev is not None else None,
                                ev.accepted if ev is not None else None),
                     chain(state, frozenset(source.absent_tables or ()) if source else frozenset()),
                     render_tokens(state, thresholds.render_ceiling_B, captures=strict)):
            table.update(part.table())
        table["bins"] = bins(state, self.landing)
        table.update(hypotheses(state).table())
        table.update(ms.figures.table())
        table["attribution_mismatches"] = attribution
        return table

    def label_mismatches(self, ms: Milestones) -> list[Mismatch]:
        """The evidence checks' mismatches, with the milestone figure's when the evidence moves it.

        The milestone figure check is added to the evidence (so the `evidence` gate condition counts
        it) when a receipt's `match` or a milestone label (level event, step start) was not taken as recorded.
        Under `arg-v1.0` the checks run for the record only: listed, never used in a figure or the gate.
        """
        ev = self.evidence
        if ev is None:  # arg-v1.0 reads the labels as recorded; what the checks find is still listed (issue 29)
            return check_evidence(self.state).public_mismatches()
        if ms.mismatches or any(c.check == "receipts" for c in ev.mismatches):
            ev.mismatches.extend(figure_check(self.state, ms.figures.milestones_verified, ev.receipt_match))
        return ev.public_mismatches()


def _native_id(run: RunRecord) -> str | None:
    source = run.start.source
    return source.native_run_id if source and source.native_run_id else None


def _comparator(run: RunRecord, ctx: VerifyContext) -> tuple[bool, Mismatch | None]:
    """Whether the run is an ungated comparator run, and the mismatch when its own flag claims so wrongly.

    The run's own flag cannot exempt it from the gate: only a pre-registered comparator cell (BARE, RAW) can.
    """
    if run.start.comparator and ctx.prereg is not None and not is_comparator_cell(ctx.prereg, run.start.cell):
        return False, Mismatch(line=1, field="comparator", recorded=True, recomputed=False,
                               reason=f"cell {run.start.cell} is not a comparator cell (BARE or RAW) in prereg.yaml: "
                                      "the run is gated like any other")
    return run.start.comparator, None


def _facts(run: RunRecord, comparator: bool, gate: GateResult) -> list[Fact]:
    """What the agent track found that bears on the run's verdict (`checker.stages.verdict` judges them)."""
    facts = [Fact("incomplete", why)] if (why := incomplete_reason(run)) is not None else []
    if comparator:
        facts.append(Fact("comparator", "comparator run: used for compute parity only (its gate passed)"
                          if not gate.reasons else "comparator run, but its own log fails the gate"))
    facts.extend(Fact("invalid", reason) for reason in gate.reasons)
    return facts


def score_run(run: RunRecord, ctx: VerifyContext) -> RunResult:
    """Replay, gate and score one agent run (see the module docstring for the result's shape)."""
    profile = ctx.profile if ctx.profile in AGENT_PROFILES else "driftboard"
    thresholds = ctx.prereg.thresholds if ctx.prereg is not None else Thresholds()
    run, past_horizon = within_horizon(run, ctx.prereg)  # events past the pre-registered horizon do not count
    scored = _Replayed.of(run, strict=profile == "driftboard")
    ms = scored.milestones()
    attribution = attribution_mismatches(scored.state)
    labels = scored.label_mismatches(ms)  # before the gate: the milestone figure's check counts in `evidence`
    comparator, not_comparator = _comparator(run, ctx)
    gate = run_gate(scored.state, thresholds, profile, scored.evidence)  # comparators too, as ARG's probe does
    gate_verdict, conditions, legibility = gate.verdict, gate.conditions, gate.legibility
    return judged_run(
        _facts(run, comparator, gate),
        end_status=run.end.status if run.end is not None else None, path=run.path, log_sha256=run.sha256,
        prereg_sha256=run.start.prereg_sha256, run_id=run.start.run_id, native_run_id=_native_id(run), track="agent",
        cell=run.start.cell, seed=run.start.seed, comparator=comparator, profile=profile,
        thresholds=thresholds.model_dump(), rates=_rate_pairs(scored.decomposition, scored.state, scored.acted),
        gate_verdict=gate_verdict, gate=conditions, legibility=legibility,
        metrics=scored.metric_table(run, thresholds, ms, len(attribution)), gds=scored.decomposition.counts(),
        milestones=ms.details,
        mismatches=[*attribution, *ms.mismatches, *labels, *(m for m in (past_horizon, not_comparator) if m is not None),
                    *gate.echo_mismatches],
    )


def _rate_pairs(decomposition: Gds, state: AgentState, acted: list[str | None]) -> dict[str, list[int]]:
    """Rates over beats as [numerator, denominator], so that cells can pool them across seeds.

    `acted` is the landing of every acted beat (`checker.agent.grounding.acted_landings`).
    """
    n_ref = decomposition.reference_beats
    pairs = {
        "gds_bind": [decomposition.bind, n_ref],
        "gds_aligned": [decomposition.aligned, n_ref],
        "gds_abandon": [decomposition.abandon, n_ref],
        "drift_total": [decomposition.bind + decomposition.abandon, n_ref],
    }
    bound = {b.ref_id for b in state.bindings}
    if bound:
        pairs["GA"] = [sum(map(bound.__contains__, acted)), len(acted)]
    return pairs


def _mean(values: list[Any]) -> float | None:
    defined = [float(v) for v in values if v is not None]
    return round(mean(defined), 3) if defined else None


def cell_tables(run_results: list[RunResult]) -> dict[str, AgentCellTables]:
    """Per cell: runs, VALID runs, GDS decomposition over VALID seeds (n defined of N), parity.

    Only VALID runs count toward a cell's figures (in a comparator cell: its COMPARATOR runs,
    which are not gated; an INCOMPLETE comparator run does not count); a metric undefined (None)
    for a seed is left out and counted in `n_defined`. Compute parity = mean over the cell's VALID
    runs / mean over the comparator runs (cell BARE if present, else any comparator cell), for LLM
    calls and tokens. A seed label repeated within a cell is shown as `<seed> (k)`.
    """
    cells: dict[str, list[RunResult]] = {}
    for res in run_results:
        if res.track in ("agent", None) and res.metrics:
            cells.setdefault(str(res.cell), []).append(res)
    comparators = {c: rs for c, rs in cells.items() if all(r.comparator for r in rs)}
    bare_cell = comparators.get("BARE") or next(iter(comparators.values()), None)
    bare = [r for r in bare_cell if r.verdict == "COMPARATOR"] if bare_cell else None
    bare_calls = _mean([r.metric("llm_calls") for r in bare]) if bare else None
    bare_tokens = _mean([r.metric("llm_tokens") for r in bare]) if bare else None
    comparator_cell = next((c for c, rs in comparators.items() if rs is bare_cell), None)
    out: dict[str, AgentCellTables] = {}
    for cell, results in sorted(cells.items()):
        # a comparator cell counts its (ungated) COMPARATOR runs; any other cell its VALID runs
        counted = "COMPARATOR" if cell in comparators else "VALID"
        valid = [r for r in results if r.verdict == counted]
        formed = [r.metric("hypothesis_formed") for r in valid]
        parity = None
        if cell not in comparators:
            calls = _mean([r.metric("llm_calls") for r in valid])
            tokens = _mean([r.metric("llm_tokens") for r in valid])
            parity = Parity(comparator_cell=comparator_cell,
                            calls=round(calls / bare_calls, 3) if calls is not None and bare_calls else None,
                            tokens=round(tokens / bare_tokens, 3) if tokens is not None and bare_tokens else None)
        out[cell] = AgentCellTables.model_validate({
            "runs": len(results), "valid": len(valid), "comparator": cell in comparators,
            "seeds": dict(zip(seed_labels(results), (r.verdict for r in results), strict=True)),
            **{key: _figure([r.metric(key) for r in valid]) for key in AGENT_FIGURES},
            "hypothesis_formation": HypothesisFormation(k=sum(1 for f in formed if f), n=len(formed)),
            "parity": parity,
        })
    return out


def release() -> None:
    """Nothing to drop: the agent scorer keeps nothing between runs (`TrackScorer.release`)."""


def _figure(values: list[Any]) -> SeedFigure:
    """Per-seed values of one metric, how many are defined, and their mean."""
    return SeedFigure(per_seed=values, n_defined=sum(v is not None for v in values), n=len(values), mean=_mean(values))



__all__ = ["cell_tables", "release", "score_run"]
