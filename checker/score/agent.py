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

from checker.aggregate import seed_labels
from checker.evidence import check_evidence
from checker.gate import CONDITIONS, NOT_APPLICABLE, run_gate
from checker.replay import AgentState, replay
from checker.schema.manifest import Thresholds
from checker.score.agent_metrics import bins, chain, counts, lifecycle, render_tokens, write_path
from checker.score.gds import Gds, attribution_mismatches, gds, landings
from checker.score.grounding import grounding, hypotheses
from checker.score.milestones import figure_check, milestones
from checker.tracks import RunRecord, VerifyContext

AGENT_PROFILES = ("driftboard", "arg-v1.0")
GDS_KEYS = ("gds_bind", "gds_aligned", "gds_abandon", "drift_total")
SUMMARY_KEYS = ("drift_ref_beats", "completions", "RGR", "GA", "ICR", "WER", "llm_calls", "llm_tokens",
                "milestone_verified_ratio")


def score_run(run: RunRecord, ctx: VerifyContext) -> dict[str, Any]:
    """Replay, gate and score one agent run (see the module docstring for the result's shape)."""
    profile = ctx.profile if ctx.profile in AGENT_PROFILES else "driftboard"
    thresholds = ctx.prereg.thresholds if ctx.prereg is not None else Thresholds()
    strict = profile == "driftboard"
    state = replay(run)
    landing = landings(state, recomputed=strict)
    evidence = check_evidence(state) if strict else None  # labels vs the log's own rows (checker.evidence)
    decomposition = (gds(state, landing, evidence.references, evidence.aimed) if evidence is not None
                     else gds(state, landing))
    n_acted = sum(1 for b in state.beats if b.action != "RESET")
    native = run.start.source.native_run_id if run.start.source and run.start.source.native_run_id else None
    metrics: dict[str, Any] = {"run": native or run.start.run_id}
    metrics.update(counts(state))
    rates = decomposition.rates()
    metrics["drift_ref_beats"] = decomposition.reference_beats
    metrics.update(rates)
    metrics.update(grounding(state, landing, strict))
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
    comparator = run.start.comparator
    if comparator and ctx.prereg is not None:
        declared = ctx.prereg.cells.get(run.start.cell)
        if declared is None or not declared.comparator:
            # the run's own flag cannot exempt it from the gate: only a pre-registered comparator cell can
            comparator = False
            mismatches.append({"line": 1, "field": "comparator", "recorded": True, "recomputed": False,
                               "reason": f"cell {run.start.cell} is not a comparator cell in prereg.yaml: "
                                         "the run is gated like any other"})
    result: dict[str, Any] = {
        "run_id": run.start.run_id, "native_run_id": native, "track": "agent", "cell": run.start.cell,
        "seed": run.start.seed, "comparator": comparator, "profile": profile,
        "thresholds": thresholds.model_dump(),
        "rates": _rate_pairs(decomposition, state, landing, n_acted),
    }
    if comparator:
        reasons = ["comparator run: not gated (used for compute parity only)"]
        verdict = "COMPARATOR"
        if run.end is None:
            verdict = "INCOMPLETE"
            reasons.insert(0, "run has no run_end event: INCOMPLETE")
        result.update(verdict=verdict, gate_verdict=None, gate={}, legibility=None, reasons=reasons)
    else:
        gate = run_gate(state, thresholds, profile, evidence)
        mismatches.extend(gate.echo_mismatches)
        reasons = list(gate.reasons)
        verdict = gate.verdict
        if run.end is None:
            verdict = "INCOMPLETE"
            reasons.insert(0, "run has no run_end event: INCOMPLETE")
        result.update(verdict=verdict, gate_verdict=gate.verdict, gate=gate.conditions,
                      legibility=gate.legibility, reasons=reasons)
    result.update(metrics=metrics, gds={"reference_beats": decomposition.reference_beats, "live": decomposition.live,
                                        "shadow": decomposition.shadow, "bind": decomposition.bind,
                                        "aligned": decomposition.aligned, "abandon": decomposition.abandon},
                  milestones=details, mismatches=mismatches)
    return result


def _rate_pairs(decomposition: Gds, state: AgentState, landing: list[str | None], n_acted: int) -> dict[str, list[int]]:
    """Rates over beats as [numerator, denominator], so that cells can pool them across seeds."""
    n_ref = decomposition.reference_beats
    pairs = {
        "gds_bind": [decomposition.bind, n_ref],
        "gds_aligned": [decomposition.aligned, n_ref],
        "gds_abandon": [decomposition.abandon, n_ref],
        "drift_total": [decomposition.bind + decomposition.abandon, n_ref],
    }
    bound = {b.ref_id for b in state.bindings}
    if bound:
        hits = sum(1 for beat, land in zip(state.beats, landing, strict=True)
                   if beat.action != "RESET" and land in bound)
        pairs["GA"] = [hits, n_acted]
    return pairs


def _mean(values: list[Any]) -> float | None:
    defined = [float(v) for v in values if v is not None]
    return round(mean(defined), 3) if defined else None


def cell_tables(run_results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per cell: runs, VALID runs, GDS decomposition over VALID seeds (n defined of N), parity.

    Only VALID runs count toward a cell's figures (in a comparator cell: its COMPARATOR runs,
    which are not gated; an INCOMPLETE comparator run does not count); a metric undefined (None)
    for a seed is left out and counted in `n_defined`. Compute parity = mean over the cell's VALID
    runs / mean over the comparator runs (cell BARE if present, else any comparator cell), for LLM
    calls and tokens. A seed label repeated within a cell is shown as `<seed> (k)`.
    """
    cells: dict[str, list[dict[str, Any]]] = {}
    for res in run_results:
        if res.get("track", "agent") == "agent" and "metrics" in res:
            cells.setdefault(str(res["cell"]), []).append(res)
    comparators = {c: rs for c, rs in cells.items() if all(r.get("comparator") for r in rs)}
    bare_cell = comparators.get("BARE") or next(iter(comparators.values()), None)
    bare = [r for r in bare_cell if r["verdict"] == "COMPARATOR"] if bare_cell else None
    bare_calls = _mean([r["metrics"]["llm_calls"] for r in bare]) if bare else None
    bare_tokens = _mean([r["metrics"]["llm_tokens"] for r in bare]) if bare else None
    out: dict[str, Any] = {}
    for cell, results in sorted(cells.items()):
        # a comparator cell counts its (ungated) COMPARATOR runs; any other cell its VALID runs
        counted = "COMPARATOR" if cell in comparators else "VALID"
        valid = [r for r in results if r["verdict"] == counted]
        table: dict[str, Any] = {
            "runs": len(results),
            "valid": len(valid),
            "comparator": cell in comparators,
            "seeds": dict(zip(seed_labels(results), (r["verdict"] for r in results), strict=True)),
        }
        for key in (*GDS_KEYS, *SUMMARY_KEYS):
            values = [r["metrics"].get(key) for r in valid]
            table[key] = {"per_seed": values, "n_defined": sum(v is not None for v in values),
                          "n": len(values), "mean": _mean(values)}
        formed = [r["metrics"].get("hypothesis_formed") for r in valid]
        table["hypothesis_formation"] = {"k": sum(1 for f in formed if f), "n": len(formed)}
        if cell in comparators:
            table["parity"] = None
        else:
            calls = _mean([r["metrics"]["llm_calls"] for r in valid])
            tokens = _mean([r["metrics"]["llm_tokens"] for r in valid])
            table["parity"] = {
                "comparator_cell": next((c for c, rs in comparators.items() if rs is bare_cell), None),
                "calls": round(calls / bare_calls, 3) if calls is not None and bare_calls else None,
                "tokens": round(tokens / bare_tokens, 3) if tokens is not None and bare_tokens else None,
            }
        out[cell] = table
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _condition_note(name: str, c: dict[str, Any]) -> str:
    if name == "render_ceiling":
        return f"{c['breaches']} breach(es), max {c['max_render_tokens']} vs B {c['B']}"
    if name == "silent_degrade":
        return f"{c['count']} of {c['acted_beats']} acted beat(s) unstamped"
    if name == "startup_probe":
        return "no startup probe" if not c["present"] else f"image_receipt_ok {_fmt(c['image_receipt_ok'])}"
    if name == "shadow_identity":
        return f"{c['differing']} of {c['paired_groups']} live/shadow pair(s) differ"
    if name == "evidence":
        if not c["checked"]:
            return "labels read as recorded (arg-v1.0)"
        return ", ".join(f"{k} {n}" for k, n in c["by_check"].items()) or "every checked label agrees with the log"
    if name == "canary_echo":
        if c["status"] == NOT_APPLICABLE:
            return "no canary echo rows"
        rates = " ".join(f"{z}={r:g}" for z, r in c["rates"].items())
        return f"{rates} (floor {c['floor']:g}, warm-up {c['warmup']}{', all rows' if c['fallback_all_rows'] else ''})"
    parts = [f"{o} {e['rejects']}/{e['ops']}" + ("" if e["judged"] else " (below min ops)")
             for o, e in c["organs"].items()]
    return (", ".join(parts) or "no ops") + f" (floor {c['floor']:g}, min ops {c['min_ops']})"


def render_text(run_results: list[dict[str, Any]]) -> str:
    """Gate table (PASS / FAIL / N/A per condition), GDS decomposition and per-cell table."""
    lines: list[str] = []
    for res in run_results:
        if "metrics" not in res:
            continue
        if "gds" not in res:  # not scored (UNVERIFIED): its verdict and reasons only
            lines.append(f"run {res.get('run_id')}  cell {res.get('cell')}  seed {res.get('seed')}  verdict {res['verdict']}")
            lines += [f"  reason: {reason}" for reason in res.get("reasons", [])]
            continue
        m, g = res["metrics"], res["gds"]
        head = f"run {res['run_id']}  cell {res['cell']}  seed {res['seed']}  verdict {res['verdict']}"
        if res["verdict"] == "INCOMPLETE":
            head += f" (gate {res['gate_verdict']})" if res["gate_verdict"] else " (comparator: not gated)"
        lines.append(head + f"  [profile {res['profile']}]")
        if res["gate"]:
            lines.append("  gate:")
            for name in CONDITIONS:
                c = res["gate"][name]
                status = "N/A" if c["status"] == NOT_APPLICABLE else c["status"]
                lines.append(f"    {name:<17} {status:<5} {_condition_note(name, c)}")
        n = g["reference_beats"]
        if n:
            lines.append(
                f"  GDS: {n} reference beat(s) ({g['live']} live, {g['shadow']} shadow): "
                f"bind {g['bind']} ({_fmt(m['gds_bind'])})  aligned {g['aligned']} ({_fmt(m['gds_aligned'])})  "
                f"abandon {g['abandon']} ({_fmt(m['gds_abandon'])})  drift {_fmt(m['drift_total'])}"
            )
        else:
            lines.append("  GDS: no reference beat: bind / aligned / abandon undefined (—)")
        lines.append(
            f"  beats {m['actions']}  completions {m['completions']}  RGR {_fmt(m['RGR'])}  GA {_fmt(m['GA'])}  "
            f"ICR {_fmt(m['ICR'])}  WER {_fmt(m['WER'])}  LLM calls {m['llm_calls']}  tokens {m['llm_tokens']}  "
            f"hypothesis formed {'yes' if m['hypothesis_formed'] else 'no'}  "
            f"milestones {m['milestones_verified']}/{m['milestone_claims']} verified"
        )
        if res["mismatches"]:
            first = res["mismatches"][0]
            lines.append(
                f"  mismatches: {len(res['mismatches'])} (first: line {first['line']} {first['field']} "
                f"recorded {_fmt(first['recorded'])}, recomputed {_fmt(first['recomputed'])})"
            )
        for reason in res["reasons"]:
            lines.append(f"  reason: {reason}")
    tables = cell_tables(run_results)
    if tables:
        lines.append("cells (VALID runs only; n defined / N):")
        lines.append(f"  {'cell':<16} {'valid':>7}  {'bind':>12} {'aligned':>12} {'abandon':>12}  parity calls/tokens")
        for cell, t in tables.items():
            cols = [f"{_fmt(t[k]['mean'])} ({t[k]['n_defined']}/{t[k]['n']})" for k in ("gds_bind", "gds_aligned",
                                                                                      "gds_abandon")]
            parity = t["parity"]
            par = "comparator" if parity is None else f"{_fmt(parity['calls'])} / {_fmt(parity['tokens'])}"
            lines.append(f"  {cell:<16} {t['valid']:>3}/{t['runs']:<3}  {cols[0]:>12} {cols[1]:>12} {cols[2]:>12}  {par}")
    return "\n".join(lines) + "\n" if lines else ""


__all__ = ["cell_tables", "render_text", "score_run"]
