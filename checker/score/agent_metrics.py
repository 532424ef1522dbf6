"""The rest of ARG's metric table (arg-spec.md §c.1, §c.4-§c.7), recomputed from replayed state.

Every formula is documented in `site/tracks/agent.md`. Ratios are rounded with Python's
`round(x, 3)` like ARG. `strict` (profile `driftboard`) turns ARG's 0.0-on-empty-denominator
values (WER with no ops, FBR/FSN with no acted beat) into None.
"""

from __future__ import annotations

from typing import Any

from checker.replay import AgentState

ORGANS = ("ACTUATOR", "OBSERVER", "SURVEYOR")
BINS = (("1-50", 1, 50), ("51-150", 51, 150), ("151+", 151, None))
ECR_CLASSES = frozenset({"UNCONTAINED_PARAM", "OUT_OF_SCHEMA", "DANGLING_REF"})
SRR_OPS = frozenset({"ABORT_STEP", "RANK_TIEBREAK"})


def _r3(num: float, den: float) -> float:
    return round(num / den, 3)


def counts(state: AgentState) -> dict[str, Any]:
    """`actions`, `completions`, `decision_mix`, `referents` (§c.1)."""
    mix: dict[str, int] = {}
    for b in state.beats:
        key = b.source_stamp if b.source_stamp is not None else "UNSTAMPED"
        mix[key] = mix.get(key, 0) + 1
    return {
        "actions": len(state.beats),
        "completions": max((b.level_counter for b in state.beats), default=0),
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
        for b in state.beats:
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
    for rc in state.receipts:
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

    `rejects` and `accepted` (organ -> counts derived by `checker.evidence.reject_counts` and
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
    peak = max([x.render_tokens for x in state.beats] + [c.render_tokens for c in state.llm_calls]
               + ([c.render_tokens for c in state.captures] if captures else []), default=0)
    return {
        "max_render_tokens": peak,
        "render_ceiling_B": b,
        "R9_ok": peak <= b,
        "llm_calls": len(state.llm_calls),
        "llm_tokens": sum(c.prompt_tokens + c.completion_tokens for c in state.llm_calls),
        "tokens_vs_beat_slope": _slope([(c.turn, c.prompt_tokens + c.completion_tokens) for c in state.llm_calls]),
    }


def bins(state: AgentState, landing: list[str | None]) -> dict[str, Any]:
    """Length-stratified bins over acted beats by beat number (§c.7), in one pass."""
    bound = {g.ref_id for g in state.bindings}
    # per bin: n, matched, matched==1, decided, decided==1, landed in Bd
    acc = [[0, 0, 0, 0, 0, 0] for _ in BINS]
    for b, land in zip(state.beats, landing, strict=True):
        if b.action == "RESET" or b.turn < 1:
            continue
        i = 0 if b.turn <= 50 else 1 if b.turn <= 150 else 2
        a = acc[i]
        a[0] += 1
        if b.match is not None:
            a[1] += 1
            a[2] += b.match == 1
            if b.step_id:
                a[3] += 1
                a[4] += b.match == 1
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


__all__ = ["bins", "chain", "counts", "lifecycle", "render_tokens", "write_path"]
