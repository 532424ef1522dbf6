"""The validity gate: ARG's six conditions over a replayed agent run (arg-spec.md §b), and `evidence`.

Each condition reports PASS, FAIL (with the numbers that failed it) or NOT_APPLICABLE (vacuous:
nothing to judge), never a silent pass. The verdict is INVALID when any condition fails, else
VALID. Thresholds come from the pre-registration (`Prereg.thresholds`); without one, ARG's
published defaults (the `Thresholds` defaults) apply. Nothing is read from the environment.

Two profiles:

* `arg-v1.0` reproduces `probe_arg_legibility` exactly: the canary condition fails only when
  *every* zone's echo rate is below the floor; shadow byte-identity compares one (last-read)
  capture per shadow flag in each (turn, zone) group; canary echoes are taken as recorded.
* `driftboard` (leaderboard default) follows the paper's stated rules where they are stricter:
  *any* zone below the floor invalidates; byte-identity compares every shadow/live capture pair
  of the same (turn, zone, organ, call); an echo whose output text is logged is recomputed as
  "the salt's nonce occurs in the output" and the recomputed value is used; render captures count
  toward the render ceiling; rejected ops come from `checker.agent.evidence.reject_counts`; condition 7,
  `evidence`, fails on any label that contradicts the log's own rows (`checker.agent.evidence`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any

from checker.agent.evidence import EvidenceResult, echo_values
from checker.agent.replay import AgentState
from checker.format.numbers import fmt
from checker.format.schema.manifest import Thresholds

PASS, FAIL, NOT_APPLICABLE = "PASS", "FAIL", "NOT_APPLICABLE"
MAX_LINES = 20
"""At most this many offending log lines are listed per condition."""


@dataclass
class GateResult:
    """Outcome of the gate for one run."""

    verdict: str
    """VALID or INVALID."""
    conditions: dict[str, dict[str, Any]]
    """Condition name -> {status, ...numbers}."""
    reasons: list[str] = field(default_factory=list)
    """One line per failed condition."""
    legibility: dict[str, Any] = field(default_factory=dict)
    """The same outcome in the shape `probe_arg_legibility.verify` returns."""
    echo_mismatches: list[dict[str, Any]] = field(default_factory=list)
    """Canary echoes whose recorded `echoed` disagrees with the logged output text."""


def _round3(x: float) -> float:
    return round(x, 3)


_RENDER_TOKENS = attrgetter("render_tokens")


def _above(values: list[int], lines: list[int], b: int) -> list[int]:
    """The lines whose value is above `b` (none without a scan when the largest value is not)."""
    if not values or max(values) <= b:
        return []
    return [ln for value, ln in zip(values, lines, strict=True) if value > b]


def render_ceiling(state: AgentState, b: int, profile: str = "arg-v1.0") -> dict[str, Any]:
    """Condition 1: no beat and no LLM call renders more than B tokens (strict >).

    In profile `driftboard` render captures count too (a capture above B is a render above B);
    ARG reads only beats and calls.
    """
    captures = profile == "driftboard"
    beat_tokens = list(map(_RENDER_TOKENS, state.beats))
    call_tokens = list(map(_RENDER_TOKENS, state.llm_calls))
    cap_tokens = list(map(_RENDER_TOKENS, state.captures)) if captures else []
    beat_lines = _above(beat_tokens, state.beat_lines, b)
    call_lines = _above(call_tokens, state.llm_lines, b)
    cap_lines = _above(cap_tokens, state.capture_lines, b)
    peak = max(chain(beat_tokens, call_tokens, cap_tokens), default=0)
    breaches = len(beat_lines) + len(call_lines) + len(cap_lines)
    empty = not state.beats and not state.llm_calls and not (captures and state.captures)
    status = NOT_APPLICABLE if empty else FAIL if breaches else PASS
    out = {"status": status, "B": b, "breaches": breaches, "beat_breaches": len(beat_lines),
           "call_breaches": len(call_lines), "max_render_tokens": peak,
           "lines": sorted(beat_lines + call_lines + cap_lines)[:MAX_LINES]}
    if captures:
        out["capture_breaches"] = len(cap_lines)
    return out


def silent_degrade(state: AgentState) -> dict[str, Any]:
    """Condition 2: every non-RESET beat carries a reference stamp (drift_ref LIVE or SHADOW)."""
    acted = 0
    lines = []
    for b, ln in zip(state.beats, state.beat_lines, strict=True):
        if b.action != "RESET":
            acted += 1
            if b.drift_ref is None:
                lines.append(ln)
    status = NOT_APPLICABLE if not acted else FAIL if lines else PASS
    return {"status": status, "count": len(lines), "acted_beats": acted, "lines": lines[:MAX_LINES]}


def startup_probe(state: AgentState, profile: str = "driftboard") -> dict[str, Any]:
    """Condition 3: a startup probe row exists and did not fail (tri-state: null = no vision path).

    ARG keeps one row per run (the first); in profile `driftboard` any failed probe fails the run.
    """
    probe = state.startup
    if probe is None:
        return {"status": FAIL, "present": False, "image_receipt_ok": None}
    ok = probe.image_receipt_ok
    if profile == "driftboard" and state.startup_failed:
        ok = False
    status = NOT_APPLICABLE if ok is None else PASS if ok else FAIL
    return {"status": status, "present": True, "image_receipt_ok": ok}


def shadow_identity(state: AgentState, profile: str) -> dict[str, Any]:
    """Condition 4: a zone rendered live and in shadow is byte-identical."""
    pairs = 0
    differing: list[dict[str, Any]] = []
    shadow_flags = [cap.shadow for cap in state.captures]
    if True not in shadow_flags or False not in shadow_flags:
        pass  # a pair needs a live and a shadow capture: none without both kinds
    elif profile == "arg-v1.0":
        last: dict[tuple[int, str], dict[bool, tuple[str, int]]] = {}
        for cap, ln in zip(state.captures, state.capture_lines, strict=True):
            last.setdefault((cap.turn, cap.zone), {})[cap.shadow] = (cap.view_sha256, ln)
        for (turn, zone), by_flag in last.items():
            if len(by_flag) == 2:
                pairs += 1
                if by_flag[True][0] != by_flag[False][0]:
                    differing.append({"turn": turn, "zone": zone, "lines": [by_flag[False][1], by_flag[True][1]]})
    else:
        groups: dict[tuple[int, str, str | None, int], dict[bool, list[tuple[str, int]]]] = {}
        for cap, ln in zip(state.captures, state.capture_lines, strict=True):
            key = (cap.turn, cap.zone, cap.organ, cap.call_idx)
            groups.setdefault(key, {}).setdefault(cap.shadow, []).append((cap.view_sha256, ln))
        for (turn, zone, organ, call_idx), flags in groups.items():
            if len(flags) == 2:
                pairs += 1
                live = {d for d, _ in flags[False]}
                shadow = {d for d, _ in flags[True]}
                if live != shadow or len(live) != 1:
                    lines = sorted(ln for rows in flags.values() for _, ln in rows)
                    differing.append({"turn": turn, "zone": zone, "organ": organ, "call_idx": call_idx,
                                      "lines": lines[:MAX_LINES]})
    status = NOT_APPLICABLE if pairs == 0 else FAIL if differing else PASS
    return {"status": status, "paired_groups": pairs, "differing": len(differing),
            "examples": differing[:MAX_LINES]}


def canary_echo(
    state: AgentState, floor: float, warmup: int, profile: str, derived_echoes: list[bool] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Condition 5: per-zone canary echo rate after warm-up is not below the floor.

    `derived_echoes` is `checker.agent.evidence.echo_values(state)[0]` when the caller has it already.
    Returns the condition and the list of recorded-vs-recomputed echo disagreements.
    """
    mismatches: list[dict[str, Any]] = []
    rows: list[tuple[int, str, bool]] = []
    if profile == "arg-v1.0":
        derived = [e.echoed for e in state.echoes]
    else:
        derived = derived_echoes if derived_echoes is not None else echo_values(state)[0]
    as_recorded = profile == "arg-v1.0"
    for echo, ln, from_salt in zip(state.echoes, state.echo_lines, derived, strict=True):
        text = echo.output_text
        if text is not None:
            recomputed = bool(echo.nonce) and echo.nonce in text  # "" occurs in every text
            if recomputed != echo.echoed:
                mismatches.append({"line": ln, "field": "echoed", "recorded": echo.echoed, "recomputed": recomputed,
                                   "reason": f"nonce {echo.nonce} {'occurs' if recomputed else 'does not occur'} "
                                             "in the logged output text"})
        # driftboard: the salt's nonce in the output text (checker.agent.evidence.echo_values)
        rows.append((echo.call_idx, echo.zone, echo.echoed if as_recorded else from_salt))
    if not rows:
        return {"status": NOT_APPLICABLE, "floor": floor, "warmup": warmup, "rows": 0, "rows_used": 0,
                "fallback_all_rows": False, "rates": {}, "zones_below": []}, mismatches
    used = [r for r in rows if r[0] > warmup]
    fallback = not used
    if fallback:
        used = rows
    sums: dict[str, list[int]] = {}
    for _, zone, echoed in used:
        acc = sums.setdefault(zone, [0, 0])
        acc[0] += 1 if echoed else 0
        acc[1] += 1
    raw = {zone: s / n for zone, (s, n) in sums.items()}
    below = sorted(z for z, rate in raw.items() if rate < floor)
    fail = (len(below) == len(raw)) if profile == "arg-v1.0" else bool(below)
    return {"status": FAIL if fail else PASS, "floor": floor, "warmup": warmup, "rows": len(rows),
            "rows_used": len(used), "fallback_all_rows": fallback,
            "rates": {z: _round3(r) for z, r in sorted(raw.items())}, "zones_below": below}, mismatches


def write_error_rate(state: AgentState, floor: float, min_ops: int, rejects: dict[str, int] | None = None,
                     accepted: dict[str, int] | None = None) -> dict[str, Any]:
    """Condition 6: per organ with at least `min_ops` ops, rejects / ops is not above the floor.

    `rejects` and `accepted` (organ -> count, profile `driftboard`: `checker.agent.evidence.reject_counts`
    and `accepted_counts`) replace the count of reject rows and the calls' `ops_accepted`.
    """
    rej: dict[str, int] = dict(rejects) if rejects is not None else {}
    acc: dict[str, int] = {}
    for wr in state.write_rejects if rejects is None else ():
        rej[wr.organ] = rej.get(wr.organ, 0) + 1
    for call in state.llm_calls if accepted is None else ():
        acc[call.organ] = acc.get(call.organ, 0) + call.ops_accepted
    if accepted is not None:
        acc.update(accepted)
    organs: dict[str, dict[str, Any]] = {}
    failed: list[str] = []
    judged = 0
    for organ in sorted(set(rej) | set(acc)):
        r, a = rej.get(organ, 0), acc.get(organ, 0)
        n = r + a
        entry: dict[str, Any] = {"rejects": r, "accepted": a, "ops": n, "judged": n >= min_ops,
                                 "wer": _round3(r / n) if n else None}
        if n >= min_ops:
            judged += 1
            if r / n > floor:
                failed.append(organ)
        organs[organ] = entry
    status = NOT_APPLICABLE if judged == 0 else FAIL if failed else PASS
    return {"status": status, "floor": floor, "min_ops": min_ops, "organs": organs, "failed": failed}


def evidence_condition(evidence: EvidenceResult | None) -> dict[str, Any]:
    """Condition 7: no label the gate or a metric reads disagrees with the log's lower-level rows.

    NOT_APPLICABLE when the checks did not run (profile `arg-v1.0`, which reads labels as ARG does).
    """
    if evidence is None:
        return {"status": NOT_APPLICABLE, "checked": False, "mismatches": 0, "by_check": {}, "lines": []}
    lines = sorted({m["line"] for m in evidence.mismatches})
    return {"status": FAIL if evidence.mismatches else PASS, "checked": True, "mismatches": len(evidence.mismatches),
            "by_check": evidence.by_check(), "lines": lines[:MAX_LINES],
            "first": _first(evidence.mismatches)}


def _first(mismatches: list[dict[str, Any]]) -> str | None:
    if not mismatches:
        return None
    m = mismatches[0]
    return f"line {m['line']} {m['field']}: {m['reason']}"


@dataclass(frozen=True)
class Condition:
    """One gate condition, declared once: the gate, the CLI text, the site and the job summary read it."""

    name: str
    """Key in the run's `gate` table (and `GateConditions` field)."""
    title: str
    """Short human name."""
    rule: str
    """What must hold, in words (arg-spec.md §b)."""
    evaluate: Callable[[AgentState, Thresholds, str, EvidenceResult | None], tuple[dict[str, Any], list[dict[str, Any]]]]
    """(state, thresholds, profile, evidence) -> (the condition's record with `status` and numbers, mismatches found).
    `evidence` holds the values derived from the log's own rows (profile `driftboard`; None under `arg-v1.0`)."""
    reason: Callable[[dict[str, Any], str], str]
    """(record, profile) -> the line that explains a FAIL."""
    note: Callable[[dict[str, Any]], str]
    """record -> one-line summary of the numbers, for tables."""


def _g(x: float) -> str:
    return fmt(x)


def _note_startup(c: dict[str, Any]) -> str:
    return "no startup probe" if not c["present"] else f"image_receipt_ok {fmt(c['image_receipt_ok'])}"


def _note_canary(c: dict[str, Any]) -> str:
    if c["status"] == NOT_APPLICABLE:
        return "no canary echo rows"
    rates = " ".join(f"{z}={_g(r)}" for z, r in c["rates"].items())
    return f"{rates} (floor {_g(c['floor'])}, warm-up {c['warmup']}{', all rows' if c['fallback_all_rows'] else ''})"


def _note_wer(c: dict[str, Any]) -> str:
    parts = [f"{o} {e['rejects']}/{e['ops']}" + ("" if e["judged"] else " (below min ops)")
             for o, e in c["organs"].items()]
    return (", ".join(parts) or "no ops") + f" (floor {_g(c['floor'])}, min ops {c['min_ops']})"


def _reason_canary(c: dict[str, Any], profile: str) -> str:
    rates = ", ".join(f"{z} {r}" for z, r in c["rates"].items())
    rule = "every zone" if profile == "arg-v1.0" else "zone(s) " + ", ".join(c["zones_below"])
    return f"canary echo: {rule} below the floor {c['floor']} after warm-up {c['warmup']} ({rates})"


def _reason_render(c: dict[str, Any], _profile: str) -> str:
    captures = f", {c['capture_breaches']} render capture(s)" if c.get("capture_breaches") else ""
    return (f"render ceiling: {c['breaches']} render(s) above B={c['B']} tokens "
            f"({c['beat_breaches']} beat(s), {c['call_breaches']} LLM call(s){captures}; max {c['max_render_tokens']})")


def _reason_evidence(c: dict[str, Any], _profile: str) -> str:
    checks = ", ".join(f"{k} {n}" for k, n in c["by_check"].items())
    return (f"evidence: {c['mismatches']} recorded label(s) contradict the log's own rows ({checks}); "
            f"first: {c['first']}")


def _note_evidence(c: dict[str, Any]) -> str:
    if not c["checked"]:
        return "labels read as recorded (arg-v1.0)"
    return ", ".join(f"{k} {n}" for k, n in c["by_check"].items()) or "every checked label agrees with the log"


def _reason_wer(c: dict[str, Any], _profile: str) -> str:
    organs = ", ".join(
        f"{o} {c['organs'][o]['rejects']}/{c['organs'][o]['ops']} = {c['organs'][o]['wer']}" for o in c["failed"]
    )
    return f"write-error rate above {c['floor']} (min ops {c['min_ops']}): {organs}"


GATE: tuple[Condition, ...] = (
    Condition(
        "render_ceiling", "render ceiling", "no beat and no LLM call renders more than B tokens (strict >)",
        lambda st, th, p, _ev: (render_ceiling(st, th.render_ceiling_B, p), []),
        _reason_render,
        lambda c: f"{c['breaches']} breach(es), max {c['max_render_tokens']} vs B {c['B']}",
    ),
    Condition(
        "silent_degrade", "silent degrade", "every acted (non-RESET) beat carries a reference stamp",
        lambda st, _th, _p, _ev: (silent_degrade(st), []),
        lambda c, _p: f"silent degrade: {c['count']} acted beat(s) without a reference stamp (drift_ref null)",
        lambda c: f"{c['count']} of {c['acted_beats']} acted beat(s) unstamped",
    ),
    Condition(
        "startup_probe", "startup probe", "a startup probe exists and did not fail",
        lambda st, _th, p, _ev: (startup_probe(st, p), []),
        lambda c, _p: ("startup probe: no startup_probe event" if not c["present"]
                       else "startup probe: image receipt failed (image_receipt_ok false)"),
        _note_startup,
    ),
    Condition(
        "shadow_identity", "shadow byte-identity", "live and shadow captures of the same view are byte-identical",
        lambda st, _th, p, _ev: (shadow_identity(st, p), []),
        lambda c, _p: f"shadow byte-identity: {c['differing']} of {c['paired_groups']} live/shadow zone pair(s) differ",
        lambda c: f"{c['differing']} of {c['paired_groups']} live/shadow pair(s) differ",
    ),
    Condition(
        "canary_echo", "canary echo", "per-zone canary echo rate after warm-up is not below the floor",
        lambda st, th, p, ev: canary_echo(st, th.canary_floor, th.canary_warmup, p,
                                          ev.echoed if ev is not None else None),
        _reason_canary,
        _note_canary,
    ),
    Condition(
        "write_error_rate", "write-error rate", "per organ with at least min-ops ops, rejects / ops is not above the floor",
        lambda st, th, _p, ev: (write_error_rate(st, th.wer_floor, th.wer_min_ops,
                                                 ev.rejects if ev is not None else None,
                                                 ev.accepted if ev is not None else None), []),
        _reason_wer,
        _note_wer,
    ),
    Condition(
        "evidence", "evidence", "no label the gate or a metric reads contradicts the log's own lower-level rows",
        lambda _st, _th, _p, ev: (evidence_condition(ev), []),
        _reason_evidence,
        _note_evidence,
    ),
)
"""The gate's conditions, in arg-spec.md §b order."""

CONDITIONS = tuple(c.name for c in GATE)
"""The conditions' names, in order."""


def run_gate(state: AgentState, thresholds: Thresholds | None, profile: str,
             evidence: EvidenceResult | None = None) -> GateResult:
    """Evaluate every condition of `GATE` and the verdict for one replayed run.

    `evidence` (profile `driftboard`) supplies the values derived from the log's own rows: the
    write-reject counts of condition 6 and the mismatches of condition 7. Each condition's record
    gets its `note` (numbers in one line) and, when it fails, its `reason`.
    """
    th = thresholds or Thresholds()
    conds: dict[str, dict[str, Any]] = {}
    mismatches: list[dict[str, Any]] = []
    reasons: list[str] = []
    for cond in GATE:
        record, found = cond.evaluate(state, th, profile, evidence)
        mismatches.extend(found)
        record["note"] = cond.note(record)
        record["reason"] = cond.reason(record, profile) if record["status"] == FAIL else None
        if record["reason"]:
            reasons.append(record["reason"])
        conds[cond.name] = record
    gate_verdict = "INVALID" if reasons else "VALID"
    c1, c5, c6 = conds["render_ceiling"], conds["canary_echo"], conds["write_error_rate"]
    legibility = {
        "verdict": gate_verdict,
        "r9_breaches": c1["breaches"],
        "silent_degrade": conds["silent_degrade"]["count"],
        "startup_ok": conds["startup_probe"]["status"] != FAIL,
        "shadow_ok": conds["shadow_identity"]["status"] != FAIL,
        "beats": len(state.beats),
        "zcr_rates": c5["rates"],
        "zcr_uniform_fail": c5["status"] == FAIL,
        "wer_by_organ": {o: e["wer"] for o, e in c6["organs"].items() if e["judged"]},
        "wer_floor_ok": c6["status"] != FAIL,
    }
    return GateResult(gate_verdict, conds, reasons, legibility, mismatches)


__all__ = ["CONDITIONS", "FAIL", "GATE", "NOT_APPLICABLE", "PASS", "Condition", "GateResult", "run_gate"]
