"""Human-readable tables for `driftboard verify` (text format): what each track's runs and cells show.

Reads typed run results (`checker.format.results_model.RunResult`), the gate's per-condition notes and
the metric registry (`checker.pipeline.metrics`); every number goes through the one formatter
(`checker.format.numbers.fmt`), so "—" means undefined here as on the site and in job summaries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from checker.agent.scorer import cell_tables as agent_cell_tables
from checker.constraint.metrics import CHANNELS, MAX_DEPTH
from checker.format.cell_tables import AgentCellTables, ConstraintAggregate, ConstraintCellTables
from checker.format.gate_results import STATUS_LABELS
from checker.format.numbers import fmt, fmt_pair
from checker.format.results_model import CellResult, RunResult
from checker.pipeline.metrics import RANK_BY, header, show
from checker.pipeline.scorers import scorer_for

TEXT_TURN_LIMIT = 400
"""`constraint_text` lists per-turn records only up to this many turns (JSON always has them all)."""
ConstraintTables = Mapping[str, ConstraintCellTables]
"""Cell -> its constraint tables (`checker.constraint.scorer.cell_tables`, or a results file's cells)."""


def track_text(track: str, run_results: list[RunResult], tables: ConstraintTables | None = None,
               n_turns: int | None = None, mismatch_counts: dict[str, int] | None = None) -> str:
    """The text report of one track's runs.

    `tables` and `n_turns` (constraint track): the cell tables and the number of per-turn records
    of a results file, when the runs come from its summary (their per-turn records left out);
    `mismatch_counts`: each run's number of mismatches when the summary kept only the first.
    """
    if track == "agent":
        return agent_text(run_results, mismatch_counts)
    if track == "completion":
        from checker.cli.completion_text import completion_text

        return completion_text(run_results)
    return constraint_text(run_results, tables, n_turns, mismatch_counts)


def _mismatch_count(res: RunResult, counts: dict[str, int] | None) -> int:
    return counts.get(res.path, len(res.mismatches)) if counts is not None else len(res.mismatches)


def _gds_line(res: RunResult) -> str:
    """The run's GDS decomposition: counts and rates (undefined without a reference beat)."""
    m, g = res.metrics, res.gds
    if g is None or not g.reference_beats:
        return "  GDS: no reference beat: bind / aligned / abandon undefined (—)"
    return (f"  GDS: {g.reference_beats} reference beat(s) ({g.live} live, {g.shadow} shadow): "
            f"bind {g.bind} ({show('gds_bind', m['gds_bind'])})  aligned {g.aligned} "
            f"({show('gds_aligned', m['gds_aligned'])})  abandon {g.abandon} ({show('gds_abandon', m['gds_abandon'])})"
            f"  drift {show('drift_total', m['drift_total'])}")


AGENT_FIGURES = (("beats", "actions"), ("completions", "completions"), ("RGR", "RGR"), ("GA", "GA"), ("ICR", "ICR"),
                 ("WER", "WER"), ("LLM calls", "llm_calls"), ("tokens", "llm_tokens"),
                 ("hypothesis formed", "hypothesis_formed"))
"""(label, metric) of the figures on an agent run's summary line."""


def _agent_run(res: RunResult, mismatch_counts: dict[str, int] | None) -> list[str]:
    """An agent run's lines: verdict, gate conditions, GDS, figures, mismatches, reasons."""
    head = f"run {res.run_id}  cell {res.cell}  seed {res.seed}  verdict {res.verdict}"
    if res.gds is None:  # not scored (UNVERIFIED): its verdict and reasons only
        return [head, *(f"  reason: {reason}" for reason in res.reasons)]
    if res.verdict == "INCOMPLETE":
        head += f" (gate {res.gate_verdict})" if res.gate_verdict else " (comparator: not gated)"
    lines = [head + f"  [profile {res.profile}]"]
    if res.gate is not None:
        lines.append("  gate:")
        lines += [f"    {name:<17} {STATUS_LABELS[c.status]:<5} {c.note}" for name, c in res.gate.items()]
    m = res.metrics
    lines += [_gds_line(res),
              "  " + "  ".join(f"{label} {show(key, m.get(key))}" for label, key in AGENT_FIGURES)
              + f"  milestones {m['milestones_verified']}/{m['milestone_claims']} verified"]
    if res.mismatches:
        first = res.mismatches[0]
        lines.append(f"  mismatches: {_mismatch_count(res, mismatch_counts)} (first: line {first.line} {first.field} "
                     f"recorded {fmt(first.recorded)}, recomputed {fmt(first.recomputed)})")
    return lines + [f"  reason: {reason}" for reason in res.reasons]


def _agent_cells(tables: Mapping[str, AgentCellTables]) -> list[str]:
    """The per-cell table: valid runs, bind / aligned / abandon (n defined / N), compute parity."""
    lines = ["cells (VALID runs only; n defined / N):",
             f"  {'cell':<16} {'valid':>7}  {'bind ↓':>12} {'aligned ↑':>12} {'abandon ↓':>12}  parity calls/tokens"]
    for cell, t in tables.items():
        cols = [fmt_pair(f.mean, f.n_defined, f.n) for f in (t.gds_bind, t.gds_aligned, t.gds_abandon)]
        par = "comparator" if t.parity is None else f"{fmt(t.parity.calls)} / {fmt(t.parity.tokens)}"
        lines.append(f"  {cell:<16} {t.valid:>3}/{t.runs:<3}  {cols[0]:>12} {cols[1]:>12} {cols[2]:>12}  {par}")
    return lines


def agent_text(run_results: list[RunResult], mismatch_counts: dict[str, int] | None = None) -> str:
    """Gate table (PASS / FAIL / N/A per condition), GDS decomposition and per-cell table."""
    lines = [line for res in run_results if res.metrics for line in _agent_run(res, mismatch_counts)]
    tables = agent_cell_tables(run_results)
    if tables:
        lines += _agent_cells(tables)
    return "\n".join(lines) + "\n" if lines else ""


def _table(headers: list[str], rows: Iterable[Sequence[object]]) -> list[str]:
    body = [[fmt(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in body]
    return lines


def _runs_table(run_results: list[RunResult], mismatch_counts: dict[str, int] | None) -> list[str]:
    out = ["", "Runs"]
    out += _table(["run", "cell", "seed", "verdict", "turns", "complete_accuracy (ranked)", "accuracy (conformance)",
                   "mismatches"],
                  [[r.run_id, r.cell, r.seed, r.verdict, r.metric("turns"), r.metric("complete_accuracy"),
                    r.metric("turn_accuracy"), _mismatch_count(r, mismatch_counts)] for r in run_results])
    return out + [f"  {r.run_id}: {reason}" for r in run_results for reason in r.reasons]


def _residuals(o: ConstraintAggregate) -> list[object]:
    return [o.total_residual, o.residual_drift, o.residual_contradiction, o.residual_other, o.drift_rate,
            o.contradiction_rate, o.other_rate, o.unsat_upper_bound]


def _cell_tables(tables: ConstraintTables) -> list[str]:
    """Channels, residuals, per domain and by depth, one row per cell (per cell and domain)."""
    out = ["", "Channels per cell (share = channel / turns with a ledger)"]
    out += _table(
        ["cell", "turns", "accuracy", "ledger", "consistent", "drift", "contradiction", "other",
         "consistent%", "drift%", "contradiction%", "other%"],
        [[c, t.overall.turns, t.overall.turn_accuracy, t.overall.ledger_turns,
          *(t.overall.count(ch) for ch in CHANNELS), *(t.overall.share(ch) for ch in CHANNELS)]
         for c, t in tables.items()])
    out += ["", "Residual decomposition per cell (wrong turns by ledger status; rate = count / wrong)"]
    out += _table(["cell", "wrong", "drift", "contradiction", "other", "drift_rate", "contradiction_rate", "other_rate",
                   "unsat_upper_bound"], [[c, *_residuals(t.overall)] for c, t in tables.items()])
    out += ["", "Per domain"]
    out += _table(["cell", "domain", "turns", "accuracy", "drift", "contradiction", "other", "wrong"],
                  [[c, d, o.turns, o.turn_accuracy, o.residual_drift, o.residual_contradiction, o.residual_other,
                    o.total_residual] for c, t in tables.items() for d, o in t.by_domain.items()])
    out += ["", "Accuracy by turn depth (—: no turn at that depth)"]
    out += _table(["cell", *(str(d) for d in range(1, MAX_DEPTH + 1))],
                  [[c, *(row.accuracy for row in t.by_depth.per_turn)] for c, t in tables.items()])
    return out


def _turn_records(run_results: list[RunResult], n_turns: int) -> list[str]:
    """Every per-turn record (up to `TEXT_TURN_LIMIT`; beyond, how many there are)."""
    if n_turns > TEXT_TURN_LIMIT:
        return ["", f"Per-turn records: {n_turns} turns (listed with --format json)"]
    return ["", "Per-turn records", *_table(
        ["cell", "problem", "turn", "line", "parse", "complete", "ledger_sat", "ans|=ledger", "correct",
         "channel", "mus", "rec_z3_sat", "rec_correct"],
        [[r.cell, t.problem_id, t.turn_number, t.line, t.parse, t.complete, t.ledger_sat,
          t.answer_satisfies_ledger, t.correct, t.channel or "none",
          ",".join(t.mus) if t.mus else "", t.recorded_z3_sat, t.recorded_answer_correct]
         for r in run_results for t in r.turns or []])]


def _mismatches(run_results: list[RunResult], mismatch_counts: dict[str, int] | None) -> list[str]:
    """How many recorded labels disagree with the recomputation, each listed unless a summary kept only the first."""
    if mismatch_counts is not None:  # a summary kept each run's first only: counted, not listed
        return ["", f"Recorded labels that disagree with the recomputation: "
                    f"{sum(_mismatch_count(r, mismatch_counts) for r in run_results)} (listed with --format json)"]
    mism = [(r, m) for r in run_results for m in r.mismatches]
    return ["", f"Recorded labels that disagree with the recomputation: {len(mism)}",
            *(f"  {r.path}:{m.line}: {m.problem_id} turn {m.turn_number}: "
              f"{m.field} recorded {fmt(m.recorded)}, recomputed {fmt(m.recomputed)} ({m.reason})" for r, m in mism)]


def constraint_text(run_results: list[RunResult], tables: ConstraintTables | None = None,
                    n_turns: int | None = None, mismatch_counts: dict[str, int] | None = None) -> str:
    """Channel, residual, per-domain and depth tables per cell; per-turn records; mismatches.

    `tables`: the cell tables as a results file stores them (default: computed from the runs'
    per-turn records); `n_turns`: how many per-turn records the runs have (default: counted).
    """
    if tables is None:
        # through the lookup: Z3 loads only for this track
        computed = scorer_for("constraint").cell_tables(run_results)
        tables = {c: t for c, t in computed.items() if isinstance(t, ConstraintCellTables)}
    out = ["Constraint track (profile drift-bench-v1; no validity gate: runs are VALID unless INCOMPLETE/INVALID)"]
    out += _runs_table(run_results, mismatch_counts)
    out += _cell_tables(tables)
    out += _turn_records(run_results, n_turns if n_turns is not None else sum(len(r.turns or []) for r in run_results))
    out += _mismatches(run_results, mismatch_counts)
    return "\n".join(out) + "\n"


def _excluded(c: CellResult) -> list[str]:
    """`excluded: <seed> <status> (why)` for each declared seed not in the valid-only figure."""
    return [f"     excluded: {o.seed} {o.status}" + (f" ({o.reason})" if o.reason else "")
            for o in c.declared if o.status not in ("VALID", "COMPARATOR")]


def _ranked_figure(c: CellResult, rank: str | None) -> str:
    """`; <metric> all declared X (valid runs only Y)`: the cell's ranked figure ("" when it has none)."""
    itt = c.all_declared.get(rank) if rank else None
    if itt is None or rank is None:
        return ""
    valid_only = c.metrics[rank].mean if rank in c.metrics else None
    return f"; {header(rank)} all declared {show(rank, itt.value)} (valid runs only {show(rank, valid_only)})"


def declared_text(cells: list[CellResult], track: str) -> list[str]:
    """Per cell: "valid k of n declared", the excluded seeds with why, and the ranked all-declared figure."""
    rank = RANK_BY.get(track)
    lines = []
    for c in cells:
        if c.declared:
            lines.append(f"   cell {c.cell}: valid {c.valid_runs} of {c.n_declared} declared" + _ranked_figure(c, rank))
            lines += _excluded(c)
    return lines
