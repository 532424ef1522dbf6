"""Constraint-track metrics: per-turn records -> run and cell figures, and their declarations.

Pure Python over recomputed turn records (`checker.format.results_model.TurnResult`): no solver here, so
the metric registry (`checker.pipeline.metrics`) can read the declarations without loading Z3. The Z3
recomputation of each turn is `checker.constraint.scorer`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from checker.format.metricdef import NEVER, RESID, SHARE, Metric
from checker.format.results_model import MetricValue, TurnResult

CHANNELS = ("consistent", "drift", "contradiction", "other")
UNVERIFIABLE: Final = "unverifiable"
"""Channel of a turn whose declared ledger is missing: neither consistent nor drift nor contradiction."""
MAX_DEPTH = 10
DEPTH_BINS = (("1-3", 1, 3), ("4-6", 4, 6), ("7-10", 7, 10**9))

Figure = int | float | None
"""A flat figure of a list of turns: a count, a rate, or None (undefined, never 0)."""


def rate_pairs(m: Mapping[str, MetricValue]) -> dict[str, list[int]]:
    """Rate metric -> [numerator, denominator] (counts of `m`), so that cells can pool rates across seeds."""
    def pair(num: str, den: str) -> list[int]:
        return [_count(m, num), _count(m, den)]

    pairs = {"turn_accuracy": pair("correct_turns", "turns"), "drift_rate": pair("residual_drift", "total_residual"),
             "contradiction_rate": pair("residual_contradiction", "total_residual"),
             "other_rate": pair("residual_other", "total_residual")}
    for ch in (*CHANNELS, UNVERIFIABLE):
        pairs[f"{ch}_share"] = pair(ch, "channel_turns")
    return pairs


def _count(m: Mapping[str, MetricValue], name: str) -> int:
    if not isinstance(value := m[name], int):
        raise TypeError(f"metric {name!r} is {value!r}, not a count")  # a checker bug
    return value


def rate(num: int, den: int) -> float | None:
    """Num / den; undefined (None) when den is 0."""
    return num / den if den else None


def aggregate(turns: Sequence[TurnResult]) -> dict[str, Figure]:
    """Flat metrics of a list of per-turn records (undefined = None, never 0)."""
    n = len(turns)
    correct = sum(t.correct for t in turns)
    m: dict[str, Figure] = {
        "turns": n, "correct_turns": correct, "turn_accuracy": rate(correct, n),
        "parse_rate": rate(sum(t.parse for t in turns), n),
        "complete_rate": rate(sum(t.complete for t in turns), n),
    }
    m.update(_channel_figures(turns))
    m.update(_residual_figures(turns))
    for d in range(1, MAX_DEPTH + 1):
        at = [t for t in turns if t.turn_number == d]
        m[f"accuracy_depth_{d}"] = rate(sum(t.correct for t in at), len(at))
    return m


def _channel_figures(turns: Sequence[TurnResult]) -> dict[str, Figure]:
    """Ledger and channel turns, and each channel's count and share of the channel turns."""
    channels: Counter[str | None] = Counter(t.channel for t in turns)
    channel_turns = len(turns) - channels[None]
    m: dict[str, Figure] = {"ledger_turns": sum(t.ledger_size is not None for t in turns),
                            "channel_turns": channel_turns}
    for ch in (*CHANNELS, UNVERIFIABLE):  # unverifiable: a declared ledger missing (checker.constraint.coverage)
        m[ch] = channels[ch]
        m[f"{ch}_share"] = rate(channels[ch], channel_turns)
    return m


def _residual_figures(turns: Sequence[TurnResult]) -> dict[str, Figure]:
    """The wrong turns split by what is known of their ledger (SAT, UNSAT, unknown), and solver errors."""
    wrong = [t for t in turns if not t.correct]
    r_drift = sum(t.ledger_sat is True for t in wrong)
    r_contra = sum(t.ledger_sat is False for t in wrong)
    r_other = len(wrong) - r_drift - r_contra
    return {
        "total_residual": len(wrong), "residual_drift": r_drift, "residual_contradiction": r_contra,
        "residual_other": r_other, "drift_rate": rate(r_drift, len(wrong)),
        "contradiction_rate": rate(r_contra, len(wrong)), "other_rate": rate(r_other, len(wrong)),
        "unsat_upper_bound": sum(t.ledger_sat is False for t in turns),
        "solver_errors": sum(bool(t.solver_error) for t in turns),
    }


def depth_table(turns: Sequence[TurnResult]) -> dict[str, Any]:  # JSON for DepthTable.model_validate
    """Accuracy by turn depth 1..10 and by the reference's bins, with counts."""
    per_turn = []
    for d in range(1, MAX_DEPTH + 1):
        at = [t for t in turns if t.turn_number == d]
        ok = sum(1 for t in at if t.correct)
        per_turn.append({"depth": d, "n_turns": len(at), "correct": ok, "accuracy": rate(ok, len(at))})
    bins = []
    for label, lo, hi in DEPTH_BINS:
        at = [t for t in turns if lo <= t.turn_number <= hi]
        ok = sum(1 for t in at if t.correct)
        bins.append({"bin": label, "n_turns": len(at), "correct": ok, "accuracy": rate(ok, len(at))})
    return {"per_turn": per_turn, "bins": bins}


METRICS: tuple[Metric, ...] = (
    # constraint track (drift-spec §b)
    Metric(
        name="turns",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns scored in the run (recomputed with Z3).",
        undefined=NEVER,
    ),
    Metric(
        name="correct_turns",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns whose answer is correct: SAT(base axioms ∧ gold cumulative constraints of the turn ∧ "
            "Φ(answer)); a partial answer counts when it extends to a solution; false when unparsed or on a "
            "solver error."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="turn_accuracy",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        worst=0.0,
        worst_means="0: every turn of the run counts as wrong (a missing, unparseable or unverifiable turn is wrong)",
        declared_variant="turn_accuracy_all_declared",
        turn_credit="correct",
        definition=("correct_turns / turns (a micro mean over turns, as the paper's headline): the reference "
                    "code's partial credit, the conformance figure; unranked (boards rank complete_accuracy)."),
        undefined="turns = 0.",
    ),
    Metric(
        name="accuracy_depth_<d>",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        names=tuple(f"accuracy_depth_{d}" for d in range(1, MAX_DEPTH + 1)),
        definition=(
            f"Accuracy at turn depth d (d = 1..{MAX_DEPTH}): correct turns / turns with `turn_number` = d. "
            "Cell tables add the reference's bins 1-3, 4-6 and 7-10 (everything past 6 falls in 7-10)."
        ),
        undefined="No turn at depth d.",
    ),
    Metric(
        name="parse_rate",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        definition=(
            "Share of turns from whose raw response a non-empty answer was extracted (the reference's "
            "`extract_answer`)."
        ),
        undefined="turns = 0.",
    ),
    Metric(
        name="complete_rate",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        definition=(
            "Share of turns whose answer is complete (reference `Complete()`: every entity seated, every "
            "event started, every entity given every category)."
        ),
        undefined="turns = 0.",
    ),
    Metric(
        name="problems_covered",
        track="constraint",
        kind="count",
        unit="problems",
        definition="Distinct problems of the named problem set that the run answers.",
        undefined=NEVER,
    ),
    Metric(
        name="turn_coverage",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        definition=(
            "Scored turns / gold turns of the whole named problem set: a run may cover only part of the set "
            "(e.g. one imported transcript), and its accuracy is then about that part only."
        ),
        undefined="The problem set has no turn.",
    ),
    Metric(
        name="ledger_turns",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns that log a ledger (0 for methods `direct` and `cot`).",
        undefined=NEVER,
    ),
    Metric(
        name="channel_turns",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns that have a channel: turns with a ledger, plus turns without one on which the solver "
            "failed (channel other)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="consistent",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns in channel **consistent**: the answer satisfies the ledger (SAT(base ∧ ledger ∧ "
            "Φ(answer)); profile `driftboard`: and the ledger states every constraint stated so far). Channels "
            "in order: contradiction (ledger UNSAT), other (solver error), none (no ledger), other (unparsed), "
            "consistent, drift."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="drift",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns in channel **drift**: the ledger is SAT, the answer parses and violates the ledger.",
        undefined=NEVER,
    ),
    Metric(
        name="contradiction",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns in channel **contradiction**: the ledger is UNSAT (the turn's MUS is listed).",
        undefined=NEVER,
    ),
    Metric(
        name="other",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns in channel **other**: a solver error (also on a turn without a ledger), or a ledger that "
            "is not UNSAT with an answer that cannot be parsed."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="consistent_share",
        track="constraint",
        kind="rate",
        unit="share of channel turns",
        higher_is_better=True,
        definition="consistent / channel_turns." + SHARE,
        undefined="channel_turns = 0.",
    ),
    Metric(
        name="drift_share",
        track="constraint",
        kind="rate",
        unit="share of channel turns",
        higher_is_better=False,
        definition="drift / channel_turns." + SHARE,
        undefined="channel_turns = 0.",
    ),
    Metric(
        name="contradiction_share",
        track="constraint",
        kind="rate",
        unit="share of channel turns",
        higher_is_better=False,
        definition="contradiction / channel_turns." + SHARE,
        undefined="channel_turns = 0.",
    ),
    Metric(
        name="other_share",
        track="constraint",
        kind="rate",
        unit="share of channel turns",
        higher_is_better=False,
        definition="other / channel_turns." + SHARE,
        undefined="channel_turns = 0.",
    ),
    Metric(
        name="total_residual",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Wrong turns: turns − correct_turns.",
        undefined=NEVER,
    ),
    Metric(
        name="residual_drift",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            RESID + "Wrong turns whose ledger is SAT. Measured against gold, so it includes parse and completeness "
            "failures under a SAT ledger."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="residual_contradiction",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            RESID + "Wrong turns whose ledger is UNSAT."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="residual_other",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            RESID + "Wrong turns whose ledger satisfiability is unknown (no ledger, or a solver error before it was "
            "decided)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="drift_rate",
        track="constraint",
        kind="rate",
        unit="share of wrong turns",
        definition=(
            "residual_drift / total_residual: the share of **wrong** turns whose ledger is SAT (not a share "
            "of all turns)."
        ),
        undefined="total_residual = 0 (no wrong turn).",
    ),
    Metric(
        name="contradiction_rate",
        track="constraint",
        kind="rate",
        unit="share of wrong turns",
        definition="residual_contradiction / total_residual: the share of wrong turns whose ledger is UNSAT.",
        undefined="total_residual = 0 (no wrong turn).",
    ),
    Metric(
        name="other_rate",
        track="constraint",
        kind="rate",
        unit="share of wrong turns",
        definition="residual_other / total_residual: the share of wrong turns whose ledger satisfiability is unknown.",
        undefined="total_residual = 0 (no wrong turn).",
    ),
    Metric(
        name="unsat_upper_bound",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns whose ledger is UNSAT, correct or not.",
        undefined=NEVER,
    ),
    Metric(
        name="solver_errors",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns with a solver error (Z3 `unknown` after the timeout, or an unusable problem context).",
        undefined=NEVER,
    ),
    Metric(
        name="mismatches",
        track="constraint",
        kind="count",
        unit="labels",
        definition=(
            "Recorded labels that disagree with the recomputation: a recorded `z3_sat` ≠ the recomputed "
            "ledger satisfiability, or a recorded `answer_correct` ≠ the recomputed correctness (each listed "
            "with its reason)."
        ),
        undefined=NEVER,
    ),
    # coverage: intent-to-treat denominators (computed in checker.constraint.coverage)
    Metric(
        name="turns_declared",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Turns of the problem set the run names: the run's intent-to-treat denominator.",
        undefined=NEVER,
    ),
    Metric(
        name="turns_missing",
        track="constraint",
        kind="count",
        unit="turns",
        definition="Declared turns with no scored record: gaps inside started problems and problems never started.",
        undefined=NEVER,
    ),
    Metric(
        name="turns_missing_in_started",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns of the problems the run started (`problem_start`) that it does not log; above 0 the run is "
            "INCOMPLETE (a run logs every turn of every problem it starts, in order)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="turn_accuracy_all_declared",
        track="constraint",
        kind="rate",
        unit="share of declared turns",
        higher_is_better=True,
        definition=(
            "correct_turns / turns_declared: every declared turn the run does not log counts as wrong, so "
            "deleting the turns a model got wrong cannot raise it. The per-run value behind turn_accuracy's "
            "all-declared figure."
        ),
        undefined="The problem set has no turn.",
    ),
    Metric(
        name="ledger_declared",
        track="constraint",
        kind="flag",
        definition=(
            "Whether the run declares a ledger: its method is a ledger method (`ledger_only`, `mus_repair`) "
            "or any of its turns logs one. Such a run must log a ledger on every turn."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="ledger_missing",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns logged without a ledger by a run that declares one; each is a finding (verification "
            "fails) and its channel is `unverifiable`."
        ),
        undefined="The run declares no ledger (not applicable); 0 when every turn has its ledger.",
    ),
    Metric(
        name="unverifiable",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns whose channel is `unverifiable`: a declared ledger is missing, or (profile `driftboard`) the "
            "answer satisfies a ledger that leaves out a constraint the dialogue stated (a thinner ledger)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="unverifiable_share",
        track="constraint",
        kind="rate",
        unit="share of channel turns",
        higher_is_better=False,
        definition=(
            "unverifiable / channel_turns: nulling or thinning the ledgers moves turns here, never to consistent."
        ),
        undefined="channel_turns = 0.",
    ),
    Metric(
        name="problems_in_set",
        track="constraint",
        kind="count",
        unit="problems",
        definition='Problems in the whole named problem set (the N of "n of N" beside problems_covered).',
        undefined=NEVER,
    ),
    Metric(
        name="turns_in_set",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            'Gold turns in the whole named problem set (the N of "n of N" beside turns; a cell covering less '
            "than half of it is marked small n)."
        ),
        undefined=NEVER,
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.pipeline.metrics`)."""
