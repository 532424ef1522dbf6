"""Write rejects and accepted ops per organ, each record checked against the other.

Per organ, the calls' `ops_rejected` must equal the number of `write_reject` rows (canary rows aside,
which ARG writes without counting them on the call); the larger of the two counts as the organ's
rejects; MISSING_CANARY rows must be at least the salted calls that echoed none of their nonces; an
Actuator call accepts at most one op; the Surveyor's accepted ops are at most the store rows such
ops write (`written_rows`).
"""

from __future__ import annotations

from checker.agent.evidence.canary import echo_values
from checker.agent.evidence.contradiction import Contradiction, contradiction
from checker.agent.replay import AgentState

CANARY_VIOLATION = "MISSING_CANARY"


def _reject_rows(state: AgentState) -> tuple[dict[str, int], dict[str, int]]:
    """Per organ: (write_reject rows other than MISSING_CANARY ones, MISSING_CANARY rows)."""
    rows: dict[str, int] = {}
    canary: dict[str, int] = {}
    for wr in state.write_rejects:
        bucket = canary if wr.violation_class == CANARY_VIOLATION else rows
        bucket[wr.organ] = bucket.get(wr.organ, 0) + 1
    return rows, canary


def _deaf_calls(state: AgentState, echoed: list[bool]) -> tuple[dict[str, int], dict[str, int]]:
    """Per organ: (salted calls none of whose echoes echoed, the first line of their echoes)."""
    heard: dict[tuple[str, int], bool] = {}
    echo_line: dict[tuple[str, int], int] = {}
    for echo, value, line in zip(state.echoes, echoed, state.echo_lines, strict=True):
        key = (echo.organ, echo.call_idx)
        heard[key] = heard.get(key, False) or value
        echo_line.setdefault(key, line)
    deaf: dict[str, int] = {}
    deaf_line: dict[str, int] = {}
    for salted in {(salt.organ, salt.call_idx) for salt in state.salts}:
        if salted in heard and not heard[salted]:
            deaf[salted[0]] = deaf.get(salted[0], 0) + 1
            deaf_line[salted[0]] = min(deaf_line.get(salted[0], echo_line[salted]), echo_line[salted])
    return deaf, deaf_line


def _missing_canary(canary: dict[str, int], deaf: dict[str, int], deaf_line: dict[str, int], out: dict[str, int],
                    found: list[Contradiction]) -> None:
    """Per organ, max(MISSING_CANARY rows, deaf calls) into `out`; fewer rows than deaf calls is listed."""
    for who in sorted(set(canary) | set(deaf)):
        n_rows, n_deaf = canary.get(who, 0), deaf.get(who, 0)
        out[who] = max(n_rows, n_deaf)
        if n_rows < n_deaf:
            found.append(contradiction("write_rejects", deaf_line[who], "MISSING_CANARY", n_rows, n_deaf,
                                       f"{n_deaf} salted {who} call(s) echoed none of their nonces, but the log has "
                                       f"{n_rows} MISSING_CANARY write_reject row(s) for {who}: {n_deaf} counted"))


def _first_attempts(state: AgentState) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Per organ: (retry calls, first-attempt reject rows other than MISSING_CANARY, Σ `ops_rejected` of first calls)."""
    retries: dict[str, int] = {}
    called: dict[str, int] = {}
    for call in state.llm_calls:
        if call.retry_count:
            retries[call.organ] = retries.get(call.organ, 0) + 1
        else:
            called[call.organ] = called.get(call.organ, 0) + call.ops_rejected
    rows: dict[str, int] = {}
    for wr in state.write_rejects:
        if not wr.retry_count and wr.violation_class != CANARY_VIOLATION:
            rows[wr.organ] = rows.get(wr.organ, 0) + 1
    return retries, rows, called


def reject_counts(state: AgentState, echoed: list[bool] | None = None) -> tuple[dict[str, int], list[Contradiction]]:
    """Rejected ops per organ from both the reject rows and the calls' `ops_rejected`, and the disagreements.

    Per organ: rows = its `write_reject` rows other than MISSING_CANARY ones (ARG writes those
    without counting them on the call), called = the sum of its calls' `ops_rejected`; the organ's
    rejects are max(rows, called) plus max(MISSING_CANARY rows, deaf calls), a deaf call being a
    salted call none of whose echoes echoed (`echo_values`): ARG writes one MISSING_CANARY row per
    deaf call (arg-spec.md §b), so fewer rows than deaf calls means rows were removed. Totals per
    organ, not per beat: ARG's Actuator records a click's rejections on the call of another beat
    than its reject rows. A corrective retry call (`retry_count` ≥ 1) follows a rejected op (ARG
    retries once per call with rejections, arg-spec.md §c.5): an organ with more retry calls than
    first-attempt rejections (rows or calls, whichever is larger) has that many more counted.
    `echoed` is `echo_values(state)[0]` when the caller has it already.
    """
    rows, canary = _reject_rows(state)
    called: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for call, line in zip(state.llm_calls, state.llm_lines, strict=True):
        called[call.organ] = called.get(call.organ, 0) + call.ops_rejected
        first_line.setdefault(call.organ, line)
    deaf, deaf_line = _deaf_calls(state, echoed if echoed is not None else echo_values(state)[0])
    out: dict[str, int] = {}
    found: list[Contradiction] = []
    _missing_canary(canary, deaf, deaf_line, out, found)
    retries, first_rows, first_called = _first_attempts(state)
    for organ in sorted(set(rows) | set(called) | set(retries)):
        r, c = rows.get(organ, 0), called.get(organ, 0)
        out[organ] = out.get(organ, 0) + max(r, c)
        floor = max(first_rows.get(organ, 0), first_called.get(organ, 0))
        if retries.get(organ, 0) > floor:
            out[organ] += retries[organ] - floor
            found.append(contradiction("write_rejects", first_line.get(organ, 1), "retry_count", floor,
                                       retries[organ],
                                       f"the {organ} makes {retries[organ]} corrective retry call(s), but the log "
                                       f"records {floor} first-attempt rejection(s) (a retry follows a rejected op): "
                                       f"{retries[organ] - floor} more counted as rejected"))
        if r != c:
            found.append(contradiction("write_rejects", first_line.get(organ, 1), "ops_rejected", c, r,
                                       f"the {organ} calls record {c} rejected op(s) in all but the log has {r} "
                                       f"write_reject row(s) for {organ} (MISSING_CANARY rows aside): {max(r, c)} "
                                       "counted as rejected"))
    return out, found


def written_rows(state: AgentState) -> dict[str, int]:
    """Per organ, the store rows its accepted ops write, over the whole run: an upper bound on its accepted ops.

    An accepted Surveyor proposal writes a rule version, a goal version or a relevance edge
    (arg-spec.md §c.5: each op is one proposal applied to the store). Per run, not per beat: ARG
    writes some rows of a proposal on a later beat than its call. The bound holds on every shipped
    run (slack 1 row on the micro-world) and every ARG case (slack 0–16). The Observer has no such
    bound: ARG's own fixture `t_integration_integ` records 14 accepted Observer ops over 8 referent
    rows (an op confirming a referent writes no row), so its accepted ops stay trusted.
    """
    return {"SURVEYOR": len(state.rule_versions) + sum(len(v) for v in state.goals.values())
            + len(state.relevance_edges)}


def accepted_counts(state: AgentState) -> tuple[dict[str, int], list[Contradiction]]:
    """Accepted ops per organ, each checked against the rows that record it.

    ARG counts one Actuator op per click realisation, accepted or rejected (arg-spec.md §c.5): a
    call recording more (`ops_accepted` + `ops_rejected` > 1) is listed, and counts
    max(0, 1 - `ops_rejected`) accepted ops. The Surveyor's accepted ops, summed over the run, are
    at most the store rows such ops write (`written_rows`); more is listed and counts as that many
    rows. The Observer's (see `written_rows`) and other organs' (a comparator's BASELINE) are trusted.
    """
    out: dict[str, int] = {}
    first_line: dict[str, int] = {}
    mismatches: list[Contradiction] = []
    for call, line in zip(state.llm_calls, state.llm_lines, strict=True):
        accepted = call.ops_accepted
        first_line.setdefault(call.organ, line)
        if call.organ == "ACTUATOR" and call.ops_accepted + call.ops_rejected > 1:
            accepted = max(0, 1 - call.ops_rejected)
            mismatches.append(contradiction("write_rejects", line, "ops_accepted", call.ops_accepted, accepted,
                                            f"an ACTUATOR call realises one click (one op, accepted or rejected); "
                                            f"this one records {call.ops_accepted} accepted and {call.ops_rejected} "
                                            "rejected"))
        out[call.organ] = out.get(call.organ, 0) + accepted
    for organ, rows in written_rows(state).items():
        claimed = out.get(organ, 0)
        if claimed > rows:
            out[organ] = rows
            mismatches.append(contradiction(
                "write_rejects", first_line[organ], "ops_accepted", claimed, rows,
                f"the {organ} calls record {claimed} accepted op(s) in all, but the log holds {rows} store row(s) "
                f"such ops write (an accepted op writes at least one): {rows} counted as accepted"))
    return out, mismatches


__all__ = ["CANARY_VIOLATION", "accepted_counts", "reject_counts", "written_rows"]
