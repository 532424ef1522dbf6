"""`driftboard verify` text for the completion track: one line per episode, then the claims channel per cell."""

from __future__ import annotations

from checker.completion.scorer import cell_tables
from checker.format.cell_tables import Proportion
from checker.format.numbers import fmt
from checker.format.results_model import RunResult


def _interval(p: Proportion) -> str:
    ci = p.wilson95
    shown = f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else ""
    return f"{p.k}/{p.n} = {fmt(p.rate)}{shown}"


def completion_text(run_results: list[RunResult]) -> str:
    """Per episode: verdict, ending, claim, verification, writes; per cell: the claimed / verified decomposition."""
    lines = ["Completion track (claimed vs verified completion; the reward recomputed from the database)"]
    lines.append(f"  {'seed':<16} {'verdict':<10} {'ending':<14} {'claimed':<7} {'verified':<8} "
                 f"{'false claim':<17} writes matched/wrong/missing/extra/error")
    for res in run_results:
        ep = res.episode
        if ep is None:
            lines.append(f"  {res.seed!s:<16} {res.verdict:<10} (not scored)")
        else:
            m = res.metrics
            writes = "/".join(str(m.get(k, 0)) for k in ("writes_matched", "writes_wrong", "writes_missing",
                                                           "writes_extra", "write_errors"))
            lines.append(f"  {res.seed!s:<16} {res.verdict:<10} {ep.ending:<14} {fmt(ep.claimed):<7} "
                         f"{fmt(ep.verified):<8} {ep.false_claim or '—':<17} {writes}")
        if res.verdict != "VALID":
            lines += [f"    reason: {reason}" for reason in res.reasons[:5]]
        if res.mismatches:
            first = res.mismatches[0]
            lines.append(f"    mismatches: {len(res.mismatches)} (first: line {first.line} {first.field})")
    tables = cell_tables(run_results)
    for cell, t in tables.items():
        d = t.decomposition
        board = t.board
        lines.append(f"cell {cell}: {board.benchmark if board else '—'} {board.domain if board else '—'}, task set "
                     f"{board.task_set if board else '—'}, {t.episodes_declared} declared episodes "
                     f"({(board.trials_per_task if board else None) or '—'} trials per task)")
        lines.append(f"  verified completion rate (ranked, all declared): {_interval(t.verified)}")
        lines.append(f"  claimed (closed as done): {_interval(t.claimed)}")
        lines.append(f"  false completion claims among claims: {_interval(t.false_claims)} "
                     f"(database wrong, no write {d.false_no_effected_write}; after writes "
                     f"{d.false_wrong_writes}; output missing {d.false_output_missing}; a write stated, never made "
                     f"{d.false_unbacked_statement})")
        lines.append(f"  transfers: {d.transfer_verified} verified, {d.transfer_not_verified} not; step limit "
                     f"{d.step_limit}; not counted {d.not_counted}")
        if t.pass_k:
            lines.append("  pass^k: " + ", ".join(f"k={p.k} {fmt(p.value)} [{fmt(p.ci95[0])}, "
                                                   f"{fmt(p.ci95[1])}]" for p in t.pass_k))
        elif t.pass_k_note:
            lines.append(f"  pass^k: — ({t.pass_k_note})")
    return "\n".join(lines) + "\n"
