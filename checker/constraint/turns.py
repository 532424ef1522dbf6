"""One constraint turn while it is scored: the working record, its channel and its mismatches.

`checker.constraint.scorer.score_turn` fills a `TurnRecord` (a slotted dataclass: cheap to build
and to update while coverage marks ledger-less turns `unverifiable`); the scorer then converts each
record once, validated, to the `TurnResult` that results files store (`TurnRecord.result`). The
channel of a turn and the recorded labels that disagree with the recomputation (`Mismatch`) are
derived here from the record alone. Pure Python: no solver.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import JsonValue

from checker.format.results_model import AnswerGrid, Channel, Commitment, Mismatch, TurnResult


@dataclass(slots=True)
class TurnRecord:
    """The recomputed fields of one turn (the meaning of each is on `TurnResult`)."""

    line: int
    problem_id: str
    domain: str
    turn_number: int
    ledger_size: int | None
    recorded_z3_sat: int | None
    recorded_answer_correct: int | None
    parse: bool = False
    complete: bool = False
    ledger_sat: bool | None = None
    answer_satisfies_ledger: bool | None = None
    correct: bool = False
    channel: Channel | None = None
    mus: list[str] | None = None
    solver_error: str | None = None
    answer: AnswerGrid | None = None
    broken: list[Commitment] | None = None

    def result(self) -> TurnResult:
        """The turn as results files store it (validated: a wrong type or channel raises)."""
        return TurnResult(
            line=self.line, problem_id=self.problem_id, domain=self.domain, turn_number=self.turn_number,
            parse=self.parse, complete=self.complete, ledger_size=self.ledger_size, ledger_sat=self.ledger_sat,
            answer_satisfies_ledger=self.answer_satisfies_ledger, correct=self.correct, channel=self.channel,
            mus=self.mus, solver_error=self.solver_error, recorded_z3_sat=self.recorded_z3_sat,
            recorded_answer_correct=self.recorded_answer_correct, answer=self.answer, broken=self.broken,
        )

    def mismatch(self, field: str, recorded: JsonValue, recomputed: JsonValue, reason: str) -> Mismatch:
        """A recorded label of this turn that disagrees with the recomputed value."""
        return Mismatch(line=self.line, problem_id=self.problem_id, turn_number=self.turn_number, field=field,
                        recorded=recorded, recomputed=recomputed, reason=reason)


def channel_of(rec: TurnRecord) -> Channel | None:
    """The turn's channel from its recomputed fields (None: the turn has no ledger).

    A ledger already known UNSAT stays a contradiction even when a later step (the MUS) errs.
    """
    if rec.ledger_size is not None and rec.ledger_sat is False:
        return "contradiction"
    if rec.solver_error:
        return "other"
    if rec.ledger_size is None:
        return None
    if not rec.parse:
        return "other"
    return "consistent" if rec.answer_satisfies_ledger else "drift"


def mismatches_of(rec: TurnRecord) -> list[Mismatch]:
    """Recorded labels (`z3_sat`, `answer_correct`) that disagree with the recomputation, with the reason."""
    found = (_z3_sat_mismatch(rec), _answer_correct_mismatch(rec))
    return [m for m in found if m is not None]


def _solver_reason(rec: TurnRecord) -> str:
    return f"solver error while recomputing: {rec.solver_error}"


def _z3_sat_mismatch(rec: TurnRecord) -> Mismatch | None:
    recorded = rec.recorded_z3_sat
    recomputed = None if rec.ledger_sat is None else int(rec.ledger_sat)
    if recorded is None or recorded == recomputed:
        return None
    if rec.ledger_size is None:
        reason = "z3_sat is recorded but the turn logs no ledger"
    elif rec.solver_error:
        reason = _solver_reason(rec)
    else:
        reason = f"SAT(base axioms ∧ recorded ledger) is {'true' if recomputed else 'false'}"
    return rec.mismatch("z3_sat", recorded, recomputed, reason)


def _answer_correct_mismatch(rec: TurnRecord) -> Mismatch | None:
    recorded = rec.recorded_answer_correct
    if recorded is None or recorded == int(rec.correct):
        return None
    if rec.solver_error:
        reason = _solver_reason(rec)
    elif not rec.parse:
        reason = ("no answer can be extracted from raw_response (the reference's LLM formatter retry, "
                  "if it ran, is not in the log)")
    else:
        verdict = "extends to" if rec.correct else "does not extend to"
        reason = f"the parsed answer {verdict} a solution of the gold cumulative constraints"
    return rec.mismatch("answer_correct", recorded, int(rec.correct), reason)


__all__ = ["TurnRecord", "channel_of", "mismatches_of"]
