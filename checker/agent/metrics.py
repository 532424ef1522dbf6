"""The rest of ARG's metric table (arg-spec.md §c.1, §c.4-§c.7), recomputed from replayed state.

Every formula is documented in `site/tracks/agent.md`. Ratios are rounded with Python's
`round(x, 3)` like ARG. `strict` (profile `driftboard`) turns ARG's 0.0-on-empty-denominator
values (WER with no ops, FBR/FSN with no acted beat) into None.
"""

from __future__ import annotations

import itertools
from collections import Counter
from operator import add, attrgetter
from typing import Any

from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, OLD_STORE, Metric
from checker.format.numbers import clean, is_number
from checker.format.results_model import RunResult

ORGANS = ("ACTUATOR", "OBSERVER", "SURVEYOR")
BINS = (("1-50", 1, 50), ("51-150", 51, 150), ("151+", 151, None))
ECR_CLASSES = frozenset({"UNCONTAINED_PARAM", "OUT_OF_SCHEMA", "DANGLING_REF"})
SRR_OPS = frozenset({"ABORT_STEP", "RANK_TIEBREAK"})


_SOURCE_STAMP = attrgetter("source_stamp")
_LEVEL_COUNTER = attrgetter("level_counter")
_RENDER_TOKENS = attrgetter("render_tokens")
_TURN = attrgetter("turn")
_PROMPT_TOKENS = attrgetter("prompt_tokens")
_COMPLETION_TOKENS = attrgetter("completion_tokens")
_BIN_FIELDS = attrgetter("action", "turn", "match", "step_id")


def _r3(num: float, den: float) -> float:
    return round(num / den, 3)


def counts(state: AgentState) -> dict[str, Any]:
    """`actions`, `completions`, `decision_mix`, `referents` (§c.1)."""
    mix: dict[str, int] = {}
    for stamp, n in Counter(map(_SOURCE_STAMP, state.beats)).items():
        key = stamp if stamp is not None else "UNSTAMPED"
        mix[key] = mix.get(key, 0) + n
    return {
        "actions": len(state.beats),
        "completions": max(map(_LEVEL_COUNTER, state.beats), default=0),
        "decision_mix": dict(sorted(mix.items())),
        "referents": len(state.referent_ids),
    }


def lifecycle(state: AgentState, n_acted: int, strict: bool) -> dict[str, Any]:
    """ICR, FBR, FCR, FSN, APR, DTL, SCL, rules tested, goal status (§c.4)."""
    latest_by_kind: dict[str, dict[str, str]] = {}
    for (kind, entity), row in state.statuses.items():
        latest_by_kind.setdefault(kind, {})[entity] = row.to_status
    written = len(state.plan_step_rows)
    consumed = sum(1 for s in latest_by_kind.get("COMMITMENT_STEP", {}).values() if s == "CONSUMED")
    demotions = reopened = accepted = fissions = 0
    never_validated: set[str] = set()
    demoted_at: dict[str, list[int]] = {}
    blocked: list[tuple[str, int]] = []
    for row in state.transitions:
        kind, to = row.entity_kind, row.to_status
        if kind == "RULE" and to == "DEMOTED":
            demotions += 1
            demoted_at.setdefault(row.entity_id, []).append(row.turn)
        elif kind == "GOAL":
            if to == "REOPENED":
                reopened += 1
            elif to == "ACCEPTED":
                accepted += 1
            elif to == "REJECTED" and row.reason == "NEVER_VALIDATED":
                never_validated.add(row.entity_id)
        elif kind == "REFERENT_FISSION":
            fissions += 1
        elif kind == "COMMITMENT_STEP" and to == "BLOCKED" and row.reason == "premise demoted":
            blocked.append((row.entity_id, row.turn))
    per100 = max(n_acted, 1) / 100
    empty = strict and n_acted == 0
    apr: float | None = None
    if n_acted:
        hits = 0
        for b in state.beats if never_validated else ():  # no goal rejected as never validated: no hit
            if b.action == "RESET" or not b.step_id:
                continue
            step = state.plan_steps.get(b.step_id)
            commit = state.commitments.get((step.commit_id, step.commit_version)) if step else None
            if commit is not None and commit.goal_id in never_validated:
                hits += 1
        apr = _r3(hits, max(n_acted, 1))
    # DTL: first REFERENT relevance edge -> first receipt on that referent at or after it
    first_edge: dict[str, int] = {}
    for e in state.relevance_edges:
        if e.target_kind == "REFERENT" and (e.target_id not in first_edge or e.turn < first_edge[e.target_id]):
            first_edge[e.target_id] = e.turn
    receipt_turns: dict[str, list[int]] = {}
    for rc in state.receipts if first_edge else ():  # receipts matter only on referents with an edge
        if rc.target_ref is not None and rc.target_ref in first_edge:
            receipt_turns.setdefault(rc.target_ref, []).append(rc.turn)
    dtl_samples = []
    for ref, t0 in first_edge.items():
        later = [t for t in receipt_turns.get(ref, []) if t >= t0]
        if later:
            dtl_samples.append(min(later) - t0)
    # SCL: premise-demoted block -> latest demotion of one of the step's RULE premises before it
    rule_premises: dict[str, set[str]] = {}
    for step in state.plan_step_rows:
        for member_kind, member_id in step.premises:
            if member_kind == "RULE":
                rule_premises.setdefault(step.step_id, set()).add(member_id)
    scl_samples = []
    for step_id, t_block in blocked:
        turns = [t for rule in rule_premises.get(step_id, ()) for t in demoted_at.get(rule, []) if t <= t_block]
        if turns:
            scl_samples.append(t_block - max(turns))
    goal_status: dict[str, int] = {}
    for status in latest_by_kind.get("GOAL", {}).values():
        goal_status[status] = goal_status.get(status, 0) + 1
    return {
        "steps_written": written,
        "steps_consumed": consumed,
        "ICR": _r3(consumed, written) if written else None,
        "FBR": None if empty else round(demotions / per100, 3),
        "FCR": _r3(reopened, accepted) if accepted else None,
        "FSN": None if empty else round(fissions / per100, 3),
        "APR": apr,
        "DTL": round(sum(dtl_samples) / len(dtl_samples), 2) if dtl_samples else None,
        "SCL": round(sum(scl_samples) / len(scl_samples), 2) if scl_samples else None,
        "rules_tested": sum(1 for s in latest_by_kind.get("RULE", {}).values() if s == "TESTED"),
        "goal_status": dict(sorted(goal_status.items())),
    }


def write_path(state: AgentState, strict: bool, rejects: dict[str, int] | None = None,
               accepted: dict[str, int] | None = None) -> dict[str, Any]:
    """WER per organ and total, write rejects, DPR, SRR, ECR (§c.5).

    `rejects` and `accepted` (organ -> counts derived by `checker.agent.evidence.reject_counts` and
    `accepted_counts`) replace the count of reject rows and the calls' `ops_accepted` in WER.
    """
    rej: dict[str, int] = dict(rejects) if rejects is not None else {}
    acc: dict[str, int] = {}
    retried = srr_hits = ecr_hits = 0
    for wr in state.write_rejects:
        if rejects is None:
            rej[wr.organ] = rej.get(wr.organ, 0) + 1
        if wr.retry_count >= 1:
            retried += 1
        if wr.organ == "SURVEYOR" and wr.op_type in SRR_OPS:
            srr_hits += 1
        if wr.violation_class in ECR_CLASSES:
            ecr_hits += 1
    surveyor_calls = 0
    for call in state.llm_calls:
        if accepted is None:
            acc[call.organ] = acc.get(call.organ, 0) + call.ops_accepted
        if call.organ == "SURVEYOR":
            surveyor_calls += 1
    if accepted is not None:
        acc.update(accepted)
    per_organ: dict[str, float | None] = {}
    for organ in ORGANS:
        n = rej.get(organ, 0) + acc.get(organ, 0)
        per_organ[organ] = _r3(rej.get(organ, 0), n) if n else None
    total_rej, total_ops = sum(rej.values()), sum(rej.values()) + sum(acc.values())
    n_calls = len(state.llm_calls)
    return {
        "wer_per_organ": per_organ,
        "WER": _r3(total_rej, total_ops) if total_ops else (None if strict else 0.0),
        "write_rejects": total_rej,
        "DPR": _r3(retried, total_ops) if total_ops else None,
        "SRR": _r3(srr_hits, surveyor_calls) if surveyor_calls else None,
        "ECR": round(ecr_hits / (n_calls / 100), 3) if n_calls else None,
    }


def chain(state: AgentState, absent_tables: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Deficit stamps, goal edges, milestone goals and their conversion (§c.6).

    `absent_tables` (from the run's `source`: an older ARG store without `deficit_stamp` or
    `goal_edge`) makes the counts read from that table undefined (None), as ARG reports them.
    """
    milestone = {g for g, versions in state.goals.items() if any(v.provenance == "DEFICIT" for v in versions)}
    accepted = sum(1 for g in milestone if state.latest("GOAL", g) == "ACCEPTED")
    no_stamps, no_edges = "deficit_stamp" in absent_tables, "goal_edge" in absent_tables
    return {
        "deficit_stamps": None if no_stamps else len(state.deficit_stamps),
        "deficit_goals": None if no_stamps else len({d.goal_id for d in state.deficit_stamps}),
        "edges_verified": None if no_edges else sum(1 for e in state.goal_edges if e.verified),
        "edges_unverified": None if no_edges else sum(1 for e in state.goal_edges if not e.verified),
        "milestone_goals": len(milestone),
        "milestone_accepted": accepted,
        "milestone_conversion": _r3(accepted, len(milestone)) if milestone else None,
    }


def _slope(points: list[tuple[int, int]]) -> float | None:
    if len(points) < 3:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in points)
    return round(sxy / sxx, 4)


def render_tokens(state: AgentState, b: int, captures: bool = False) -> dict[str, Any]:
    """Render peak and ceiling, LLM calls and tokens, token slope (§c.7); `captures` counts render captures too."""
    peak = max(itertools.chain(map(_RENDER_TOKENS, state.beats), map(_RENDER_TOKENS, state.llm_calls),
                     map(_RENDER_TOKENS, state.captures) if captures else ()), default=0)
    calls = state.llm_calls
    tokens = list(map(add, map(_PROMPT_TOKENS, calls), map(_COMPLETION_TOKENS, calls)))  # per call
    return {
        "max_render_tokens": peak,
        "render_ceiling_B": b,
        "R9_ok": peak <= b,
        "llm_calls": len(calls),
        "llm_tokens": sum(tokens),
        "tokens_vs_beat_slope": _slope(list(zip(map(_TURN, calls), tokens, strict=True))),
    }


def bins(state: AgentState, landing: list[str | None]) -> dict[str, Any]:
    """Length-stratified bins over acted beats by beat number (§c.7), in one pass."""
    bound = {g.ref_id for g in state.bindings}
    # per bin: n, matched, matched==1, decided, decided==1, landed in Bd
    acc = [[0, 0, 0, 0, 0, 0] for _ in BINS]
    for (action, turn, match, step_id), land in zip(map(_BIN_FIELDS, state.beats), landing, strict=True):
        if action == "RESET" or turn < 1:
            continue
        i = 0 if turn <= 50 else 1 if turn <= 150 else 2
        a = acc[i]
        a[0] += 1
        if match is not None:
            a[1] += 1
            a[2] += match == 1
            if step_id:
                a[3] += 1
                a[4] += match == 1
        if land in bound:
            a[5] += 1
    out: dict[str, Any] = {}
    for (label, _, _), (n, matched, hits, decided, dhits, ga) in zip(BINS, acc, strict=True):
        out[label] = None if n == 0 else {
            "n": n,
            "decision_accuracy": _r3(dhits, decided) if decided else None,
            "match_rate": _r3(hits, matched) if matched else None,
            "GA": _r3(ga, n) if bound else None,
        }
    return out

def efficiency(run: RunResult) -> dict[str, float | None]:
    """Actions and tokens per completed level; undefined (None) when no level was completed."""
    metrics = run.metrics
    completions = metrics.get("completions")
    if not is_number(completions) or float(completions) <= 0:
        return {"actions_per_level": None, "tokens_per_level": None}
    done = float(completions)
    actions = metrics.get("actions")
    tokens = metrics.get("llm_tokens")
    return {
        "actions_per_level": clean(float(actions) / done) if is_number(actions) else None,
        "tokens_per_level": clean(float(tokens) / done) if is_number(tokens) else None,
    }


METRICS: tuple[Metric, ...] = (
    # agent: counts (§c.1)
    Metric(
        name="completions",
        track="agent",
        kind="count",
        unit="levels",
        higher_is_better=True,
        worst=0.0,
        worst_means="0 completions",
        definition=(
            "Levels completed: the maximum `level_counter` over all beats (the environment's cumulative "
            "levels completed after the beat), 0 with no beat. Shown first: a cell with 0 completions is a "
            "null result whatever its mechanism numbers."
        ),
        undefined="Never undefined for a run that counts (VALID, or COMPARATOR in a comparator cell).",
    ),
    Metric(
        name="actions",
        track="agent",
        kind="count",
        unit="beats",
        definition=(
            "|T|, the number of beats, RESET beats included (every other per-action figure uses A, the "
            "non-RESET beats)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="referents",
        track="agent",
        kind="count",
        definition="Distinct referent ids in the log.",
        undefined=NEVER,
    ),
    Metric(
        name="decision_mix",
        track="agent",
        kind="table",
        definition="Per-run table (not aggregated per cell): beats per `source_stamp` (`UNSTAMPED` when absent).",
        undefined="Never undefined (empty with no beat).",
    ),
    # agent: agenda, lifecycle (§c.4)
    Metric(
        name="steps_written",
        track="agent",
        kind="count",
        definition="Plan-step (`commitment_step`) events in the log.",
        undefined=NEVER,
    ),
    Metric(
        name="steps_consumed",
        track="agent",
        kind="count",
        definition="Steps whose latest COMMITMENT_STEP status is CONSUMED.",
        undefined=NEVER,
    ),
    Metric(
        name="ICR",
        track="agent",
        kind="value",
        definition="r3(steps_consumed / steps_written), the share of written plan steps that were consumed.",
        undefined=(
            "steps_written = 0. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="FBR",
        track="agent",
        kind="value",
        definition="Rule demotions per 100 acted beats: r3(#RULE→DEMOTED transitions / (max(|A|, 1) / 100)).",
        undefined=(
            "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
            "max(|A|, 1) / 100 (0.0 unless a demotion was logged)."
        ),
    ),
    Metric(
        name="FCR",
        track="agent",
        kind="value",
        definition=(
            "r3(#GOAL→REOPENED transitions / #GOAL→ACCEPTED transitions), a plain ratio as in ARG (the design "
            "says per 100 acceptances)."
        ),
        undefined=(
            "No GOAL→ACCEPTED transition. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="FSN",
        track="agent",
        kind="value",
        definition=(
            "Referent fission checks per 100 acted beats: r3(#REFERENT_FISSION transitions / (max(|A|, 1) / "
            "100)) (counts fission-check firings, not executed splits)."
        ),
        undefined=(
            "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
            "max(|A|, 1) / 100 (0.0 unless a fission row was logged)."
        ),
    ),
    Metric(
        name="APR",
        track="agent",
        kind="value",
        definition=(
            "r3(#{t ∈ A : the goal of t's plan step's commitment ∈ NV} / |A|), NV = goals with any "
            "GOAL→REJECTED transition with reason NEVER_VALIDATED: the share of acted beats spent on goals "
            "that were rejected as never validated."
        ),
        undefined=(
            "|A| = 0. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="DTL",
        track="agent",
        kind="value",
        definition=(
            "Mean, over referents with a REFERENT relevance edge, of (turn of the first receipt on the "
            "referent at or after t0) − t0, t0 = the referent's first edge turn; rounded to 2 places."
        ),
        undefined=(
            "No sample (no referent with a relevance edge and a later receipt). "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="SCL",
        track="agent",
        kind="value",
        definition=(
            "Mean, over COMMITMENT_STEP→BLOCKED transitions with reason \"premise demoted\", of (block turn − "
            "latest RULE→DEMOTED turn at or before it among the step's RULE premises); rounded to 2 places."
        ),
        undefined=(
            "No sample. "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="rules_tested",
        track="agent",
        kind="count",
        definition="Rules whose latest status is TESTED.",
        undefined=NEVER,
    ),
    Metric(
        name="goal_status",
        track="agent",
        kind="table",
        definition="Per-run table (not aggregated per cell): goals by their latest GOAL status.",
        undefined="Never undefined (empty with no goal).",
    ),
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
    # agent: chain (§c.6)
    Metric(
        name="deficit_stamps",
        track="agent",
        kind="count",
        definition="Deficit-stamp events.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="deficit_goals",
        track="agent",
        kind="count",
        definition="Distinct goals named by deficit stamps.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="edges_verified",
        track="agent",
        kind="count",
        definition="Goal edges with `verified` true.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="edges_unverified",
        track="agent",
        kind="count",
        definition="Goal edges with `verified` false.",
        undefined=OLD_STORE,
    ),
    Metric(
        name="milestone_goals",
        track="agent",
        kind="count",
        definition="Goals with a version of provenance DEFICIT.",
        undefined=NEVER,
    ),
    Metric(
        name="milestone_accepted",
        track="agent",
        kind="count",
        definition="Milestone goals (provenance DEFICIT) whose latest GOAL status is ACCEPTED.",
        undefined=NEVER,
    ),
    Metric(
        name="milestone_conversion",
        track="agent",
        kind="rate",
        definition="r3(milestone_accepted / milestone_goals).",
        undefined=(
            "No milestone goal. "
            + BOTH_UNDEF
        ),
    ),
    # agent: render, tokens (§c.7)
    Metric(
        name="max_render_tokens",
        track="agent",
        kind="count",
        unit="tokens",
        definition=(
            "Largest `render_tokens` over all beats and LLM calls, and in profile `driftboard` render "
            "captures too (0 with none)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="render_ceiling_B",
        track="agent",
        kind="count",
        unit="tokens",
        definition=(
            "The render ceiling B in tokens applied to the run: the pre-registered `render_ceiling_B`, else "
            "ARG's default (6000). A threshold, not a measurement."
        ),
        undefined="Never undefined.",
    ),
    Metric(
        name="R9_ok",
        track="agent",
        kind="flag",
        definition=(
            "Per-run yes/no (not aggregated per cell): max_render_tokens ≤ B (the gate's `render_ceiling` "
            "condition fails on any render strictly above B)."
        ),
        undefined="Never undefined.",
    ),
    Metric(
        name="llm_calls",
        track="agent",
        kind="count",
        unit="calls",
        definition="LLM calls recorded in the log (retries included).",
        undefined=NEVER,
    ),
    Metric(
        name="llm_tokens",
        track="agent",
        kind="count",
        unit="tokens",
        definition="Σ prompt tokens + Σ completion tokens over the LLM calls (reasoning tokens not added).",
        undefined=NEVER,
    ),
    Metric(
        name="tokens_vs_beat_slope",
        track="agent",
        kind="value",
        definition=(
            "Ordinary least-squares slope of prompt + completion tokens against the call's turn, over all LLM "
            "calls (organs pooled); rounded to 4 places."
        ),
        undefined=(
            "Fewer than 3 LLM calls, or all calls on the same turn (zero x-variance). "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="bins",
        track="agent",
        kind="table",
        definition=(
            "Per-run table (not aggregated per cell): acted beats in bins \"1-50\", \"51-150\", \"151+\" by beat "
            "number, each with `n`, `decision_accuracy` (share of match 1 among beats with a match and a plan "
            "step), `match_rate` (share of match 1 among beats with a match) and `GA` (share of the bin's "
            "beats landing in Bd)."
        ),
        undefined="An empty bin is undefined; a field is undefined when no beat qualifies (GA: Bd empty).",
    ),
    # both tracks: per completed level (added to counted runs by the results stage)
    Metric(
        name="actions_per_level",
        track="both",
        kind="value",
        unit="beats per level",
        definition=(
            "actions / completions per run (beats, RESET included, per completed level), added to every "
            "counted run before cells are aggregated."
        ),
        undefined=(
            "completions absent or 0, in both profiles: always undefined on the constraint track (no "
            "completions) and for agent runs that completed no level."
        ),
    ),
    Metric(
        name="tokens_per_level",
        track="both",
        kind="value",
        unit="tokens per level",
        definition="llm_tokens / completions per run (LLM tokens per completed level).",
        undefined="completions absent or 0 (as `actions_per_level`); always undefined on the constraint track.",
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.pipeline.metrics`)."""


__all__ = ["bins", "chain", "counts", "lifecycle", "render_tokens", "write_path"]
