"""The constraint track's ranked accuracy: a turn counts only when its answer is complete and readable.

The DRIFT-Bench paper defines Correct = Parse ∧ Complete ∧ Satisfies; the reference code credits any
answer that extends to a solution (`turn_accuracy`, reproduced exactly for conformance). Ranked on the
code's figure, answering less pays: one variable per turn, or values the reader drops (`"9:00 AM"`
for a slot index), extend to a solution far more often than a full answer is right. The ranked figure
is the paper's: `complete_accuracy` = solved turns / turns, where a solved turn parses, is complete
(every entity, every value readable: `checker.constraint.answers.read_answer`) and satisfies the gold
constraints (`TurnResult.solved`). `turn_accuracy` stays beside it, unranked, as the conformance figure.

Pure Python over turn records, like `checker.constraint.metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from checker.format.metricdef import NEVER, Metric
from checker.format.results_model import MetricValue, TurnResult


def ranked_figures(turns: Sequence[TurnResult], declared: int) -> dict[str, int | float | None]:
    """Solved turns, their share of the scored turns and of the declared turns (None: no turn)."""
    solved = sum(t.solved for t in turns)
    return {"solved_turns": solved, "complete_accuracy": solved / len(turns) if turns else None,
            "complete_accuracy_all_declared": solved / declared if declared else None}


def ranked_pairs(m: Mapping[str, MetricValue]) -> dict[str, list[int]]:
    """`complete_accuracy` -> [solved turns, turns] (cells pool it across seeds)."""
    solved, turns = m["solved_turns"], m["turns"]
    if not isinstance(solved, int) or not isinstance(turns, int):
        raise TypeError(f"solved_turns {solved!r} / turns {turns!r} are not counts")  # a checker bug
    return {"complete_accuracy": [solved, turns]}


DEGENERATE = (
    "A turn counts only when its answer names every entity with values the reader can read and satisfies "
    "every constraint stated so far: answering one variable, part of the answer, nothing, values the domain "
    "cannot read (a clock time for a slot index) or an entity twice scores 0 on that turn, the same as a "
    "wrong answer; a thinner ledger is not read by this figure; a missing, unparseable or unverifiable turn "
    "of any declared run counts wrong."
)

METRICS: tuple[Metric, ...] = (
    Metric(
        name="solved_turns",
        track="constraint",
        kind="count",
        unit="turns",
        definition=(
            "Turns whose answer is correct in the paper's sense: it parses, is complete (every entity "
            "answered, every value readable, no entity named twice) and satisfies the gold cumulative "
            "constraints of the turn (SAT(base ∧ gold ∧ Φ(answer)), false on a solver error)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="complete_accuracy",
        track="constraint",
        kind="rate",
        unit="share of turns",
        higher_is_better=True,
        worst=0.0,
        worst_means="0: every turn of the run counts as not solved (a missing, unparseable or unverifiable turn)",
        declared_variant="complete_accuracy_all_declared",
        ranked=True,
        turn_credit="solved",
        degenerate_worst=DEGENERATE,
        definition=(
            "solved_turns / turns: the paper's Correct = Parse ∧ Complete ∧ Satisfies, a micro mean over "
            "turns. The ranked constraint figure; `turn_accuracy` (the reference code's partial credit: an "
            "answer that extends to a solution counts) is the conformance figure, shown beside it, unranked."
        ),
        undefined="turns = 0.",
    ),
    Metric(
        name="complete_accuracy_all_declared",
        track="constraint",
        kind="rate",
        unit="share of declared turns",
        higher_is_better=True,
        definition=(
            "solved_turns / turns_declared: every declared turn the run does not log counts as not solved. "
            "The per-run value behind complete_accuracy's all-declared (ranked) figure."
        ),
        undefined="The problem set has no turn.",
    ),
)
"""The ranked constraint metrics, declared once (gathered by `checker.pipeline.metrics`)."""


__all__ = ["METRICS", "ranked_figures", "ranked_pairs"]
