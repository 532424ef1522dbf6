"""Agent-track scorer: replay -> gate -> GDS, grounding, ARG metric table, milestones.

Per-run result (JSON-able):

* `run_id`, `native_run_id`, `track` ("agent"), `cell`, `seed`, `comparator`, `profile`;
* `verdict`: VALID / INVALID from the gate; INCOMPLETE when the log has no `run_end` (the
  gate is still computed, see `gate_verdict`); COMPARATOR for BARE/RAW comparator runs, which
  ARG never gates (they have no state store) and which only serve compute parity. A run is a
  comparator only when its `run_start` says so *and* the pre-registration declares its cell a
  comparator cell (else it is gated, and the disagreement is listed in `mismatches`); a
  comparator run without `run_end` is INCOMPLETE (no gate: `gate_verdict` None);
* `reasons` (every reason), `gate` (condition -> status + numbers), `legibility` (the gate in
  the shape ARG's legibility probe prints), `metrics` (ARG's metric JSON keys exactly, plus
  `gds_aligned`, hypothesis formation and milestone counts), `gds` (counts),
  `milestones` (per-claim details), `mismatches` (attribution and canary echo disagreements),
  `rates` (rates over beats as [numerator, denominator], pooled per cell by the results stage).
"""

from __future__ import annotations

from statistics import mean
from typing import Any

from checker.agent.evidence import check_evidence
from checker.agent.gate import run_gate
from checker.agent.gds import Gds, attribution_mismatches, gds, landings
from checker.agent.grounding import acted_landings, grounding, hypotheses
from checker.agent.metrics import bins, chain, counts, lifecycle, render_tokens, write_path
from checker.agent.milestones import figure_check, milestones
from checker.agent.replay import AgentState, replay
from checker.format.cell_tables import AGENT_FIGURES, AgentCellTables, HypothesisFormation, Parity, SeedFigure
from checker.format.results_model import RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.manifest import Thresholds
from checker.format.seeds import seed_labels
from checker.stages.rules import is_comparator_cell, within_horizon
from checker.stages.tracks import RunRecord, VerifyContext, incomplete_reason
from checker.stages.verdict import judged_run

AGENT_PROFILES = ("driftboard", "arg-v1.0")


def score_run(run: RunRecord, ctx: VerifyContext) -> RunResult:
    """Replay, gate and score one agent run (see the module docstring for the result's shape)."""
    profile = ctx.profile if ctx.profile in AGENT_PROFILES else "driftboard"
    thresholds = ctx.prereg.thresholds if ctx.prereg is not None else Thresholds()
    strict = profile == "driftboard"
    run, past_horizon = within_horizon(run, ctx.prereg)  # events past the pre-registered horizon do not count
    state = replay(run)
    landing = landings(state, recomputed=strict)
    evidence = check_evidence(state) if strict else None  # labels vs the log's own rows (checker.agent.evidence)
    decomposition = (gds(state, landing, evidence.references, evidence.aimed) if evidence is not None
                     else gds(state, landing))
    acted = acted_landings(state, landing)  # the landing of every acted (non-RESET) beat
    n_acted = len(acted)
    native = run.start.source.native_run_id if run.start.source and run.start.source.native_run_id else None
    metrics: dict[str, Any] = {"run": native or run.start.run_id}
    metrics.update(counts(state))
    rates = decomposition.rates()
    metrics["drift_ref_beats"] = decomposition.reference_beats
    metrics.update(rates)
    metrics.update(grounding(state, acted, strict))
    metrics.update(lifecycle(state, n_acted, strict))
    metrics.update(write_path(state, strict, evidence.rejects if evidence is not None else None,
                              evidence.accepted if evidence is not None else None))
    metrics.update(chain(state, frozenset(run.start.source.absent_tables or ()) if run.start.source else frozenset()))
    metrics.update(render_tokens(state, thresholds.render_ceiling_B, captures=strict))
    metrics["bins"] = bins(state, landing)
    metrics.update(hypotheses(state))
    ms = milestones(state, receipt_match=evidence.receipt_match) if evidence is not None else milestones(state)
    details = ms.pop("details")
    milestone_mismatches = ms.pop("mismatches")
    metrics.update(ms)
    mismatches = attribution_mismatches(state)
    metrics["attribution_mismatches"] = len(mismatches)
    mismatches.extend(milestone_mismatches)
    if evidence is not None:
        if any(m["check"] == "receipts" for m in evidence.mismatches) or milestone_mismatches:
            evidence.mismatches.extend(figure_check(state, ms["milestones_verified"], evidence.receipt_match))
        mismatches.extend(evidence.public_mismatches())
    if past_horizon is not None:
        mismatches.append(past_horizon)
    comparator = run.start.comparator
    # the run's own flag cannot exempt it from the gate: only a pre-registered comparator cell (BARE, RAW) can
    if comparator and ctx.prereg is not None and not is_comparator_cell(ctx.prereg, run.start.cell):
        comparator = False
        mismatches.append({"line": 1, "field": "comparator", "recorded": True, "recomputed": False,
                           "reason": f"cell {run.start.cell} is not a comparator cell (BARE or RAW) in prereg.yaml: "
                                     "the run is gated like any other"})
    result: dict[str, Any] = {
        "end_status": run.end.status if run.end is not None else None,
        "path": run.path, "log_sha256": run.sha256, "prereg_sha256": run.start.prereg_sha256,
        "run_id": run.start.run_id, "native_run_id": native, "track": "agent", "cell": run.start.cell,
        "seed": run.start.seed, "comparator": comparator, "profile": profile,
        "thresholds": thresholds.model_dump(),
        "rates": _rate_pairs(decomposition, state, acted),
    }
    facts: list[Fact] = []
    if (why := incomplete_reason(run)) is not None:
        facts.append(Fact("incomplete", why))
    if comparator:
        facts.append(Fact("comparator", "comparator run: not gated (used for compute parity only)"))
        result.update(gate_verdict=None, gate=None, legibility=None)
    else:
        gate = run_gate(state, thresholds, profile, evidence)
        mismatches.extend(gate.echo_mismatches)
        facts.extend(Fact("invalid", reason) for reason in gate.reasons)
        result.update(gate_verdict=gate.verdict, gate=gate.conditions, legibility=gate.legibility)
    result.update(metrics=metrics, gds={"reference_beats": decomposition.reference_beats, "live": decomposition.live,
                                        "shadow": decomposition.shadow, "bind": decomposition.bind,
                                        "aligned": decomposition.aligned, "abandon": decomposition.abandon},
                  milestones=details, mismatches=mismatches)
    return judged_run(facts, **result)


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
