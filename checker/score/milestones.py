"""Claimed vs verified milestones.

A model saying a step is done (`milestone_claim`) is a claim, not an event. A claim is
*verified* when deterministic evidence appears in the log before the claim and no earlier than
the claimed step's start; otherwise it is *declared only*.

The step's start is the claim's `step_started_turn` when given, else the beat number of the first
beat that executed `step_id`, else 0. Evidence (beat number t, start <= t <= claim beat, and an
earlier log line than the claim):

* irreversible: `level` events; a beat whose level counter or score rose over the previous beat;
  a receipt whose pre-registered prediction matched (the action was committed to the
  environment and its predicted effect observed); `evidence` events marked irreversible
  (writes, commits, messages sent, paid calls), with `exit_code` evidence counting only when the
  exit code is 0 and `file_digest` evidence only when `before` differs from `after`;
* reversible: `evidence` events marked reversible, and every `read`, `search` or `fetch` evidence
  event whatever its `irreversible` flag says (a read cannot commit anything).

By default only irreversible evidence verifies (`include_reversible=False`).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from checker.replay import AgentState

REVERSIBLE_KINDS = frozenset({"read", "search", "fetch"})
"""Evidence kinds that are reversible by nature, whatever the event's `irreversible` flag says."""


def _evidence(state: AgentState, include_reversible: bool) -> list[tuple[int, int, str]]:
    """(line, beat, kind) of every piece of evidence that may verify a claim, sorted by beat then line."""
    items: list[tuple[int, int, str]] = []
    for lev, line in zip(state.level_events, state.level_lines, strict=True):
        items.append((line, lev.turn, "level"))
    prev_level = prev_score = None
    for beat, line in zip(state.beats, state.beat_lines, strict=True):
        if prev_level is not None and beat.level_counter > prev_level:
            items.append((line, beat.turn, "level"))
        elif prev_score is not None and beat.score > prev_score:
            items.append((line, beat.turn, "score"))
        prev_level, prev_score = beat.level_counter, beat.score
    for rc, line in zip(state.receipts, state.receipt_lines, strict=True):
        if rc.predictor_kind is not None and rc.match == 1:
            items.append((line, rc.turn, "receipt"))
    for ev, line in zip(state.evidence, state.evidence_lines, strict=True):
        if not ((ev.irreversible and ev.kind not in REVERSIBLE_KINDS) or include_reversible):
            continue
        if ev.kind == "exit_code" and ev.exit_code != 0:
            continue
        if ev.kind == "file_digest" and ev.before == ev.after:
            continue
        items.append((line, ev.turn, ev.kind))
    items.sort(key=lambda it: (it[1], it[0]))
    return items


def milestones(state: AgentState, include_reversible: bool = False) -> dict[str, Any]:
    """Per run: claims, verified, declared only, verified ratio (None with no claim) and details."""
    items = _evidence(state, include_reversible) if state.claims else []
    turns = [it[1] for it in items]
    details = []
    verified = 0
    for claim, line in zip(state.claims, state.claim_lines, strict=True):
        if claim.step_started_turn is not None:
            start = claim.step_started_turn
        elif claim.step_id and claim.step_id in state.step_first_beat:
            start = state.step_first_beat[claim.step_id]
        else:
            start = 0
        hit = None
        for it in items[bisect_left(turns, start):]:
            if it[1] > claim.turn:
                break
            if it[0] < line:
                hit = it  # the earliest-beat evidence in the window
                break
        if hit is not None:
            verified += 1
        details.append({
            "claim_id": claim.claim_id, "line": line, "step_id": claim.step_id, "window": [start, claim.turn],
            "status": "VERIFIED" if hit else "DECLARED_ONLY",
            "evidence_line": hit[0] if hit else None, "evidence_kind": hit[2] if hit else None,
        })
    n = len(state.claims)
    return {
        "milestone_claims": n,
        "milestones_verified": verified,
        "milestones_declared_only": n - verified,
        "milestone_verified_ratio": round(verified / n, 3) if n else None,
        "details": details,
    }


__all__ = ["milestones"]
