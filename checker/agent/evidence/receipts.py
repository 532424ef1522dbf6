"""Receipts: `match` recomputed from `predicted` vs `observed`, for every predicted key (`zero` / `nonzero` / equal)."""

from __future__ import annotations

import json
from typing import Any

from checker.agent.evidence.contradiction import Contradiction, contradiction
from checker.agent.replay import AgentState
from checker.format.schema.agent import Receipt

_NUMBER = (int, float)
"""`isinstance` with a tuple, not `int | float` (a union object built on every call)."""
_RECEIPT_COLUMNS = frozenset({"score_event", "level_event", "life_event"})
"""Receipt columns a prediction may name when `observed` lacks the key (`receipt_match`)."""


def receipt_match(rc: Receipt) -> int | None:
    """`match` recomputed from `predicted` vs `observed`; None when the receipt predicts nothing.

    Every predicted key must hold in `observed` (a key `observed` lacks is read from the receipt's
    own `score_event` / `level_event` / `life_event` columns, as ARG stores them): `"zero"` -> the
    observed value is 0, `"nonzero"` -> it is a number other than 0, anything else -> equal
    (booleans and 0/1 compare equal).
    """
    return _match(rc, rc.predicted)


def _match(rc: Receipt, predicted: dict[str, Any] | None) -> int | None:  # `predicted`: free-form JSON from the log
    """`receipt_match` of `rc`, whose `predicted` the caller has read already."""
    if not predicted:
        return None
    observed = rc.observed or {}
    for key, want in predicted.items():
        # a key `observed` lacks is read from the receipt's own columns (no dict built per receipt)
        got = observed[key] if key in observed else getattr(rc, key) if key in _RECEIPT_COLUMNS else None
        if want == "nonzero":
            if not isinstance(got, _NUMBER) or isinstance(got, bool) or got == 0:
                return 0
        elif want == "zero":
            if not isinstance(got, _NUMBER) or isinstance(got, bool) or got != 0:
                return 0
        elif got is None or got != want:
            return 0
    return 1


def receipts(state: AgentState) -> tuple[list[int | None], list[Contradiction], dict[int, tuple[int, str]]]:
    """One pass over the receipts: per receipt `match` recomputed, the contradicted ones, and the STEP receipts.

    The third value is, per beat number, (line, step) of its first STEP receipt
    (`checker.agent.evidence.references.references`).
    """
    step_receipt: dict[int, tuple[int, str]] = {}
    found: list[Contradiction] = []
    matches: list[int | None] = []
    for rc, line in zip(state.receipts, state.receipt_lines, strict=True):
        if rc.predictor_kind == "STEP" and rc.predictor_id and rc.turn not in step_receipt:
            step_receipt[rc.turn] = (line, rc.predictor_id)
        predicted = rc.predicted
        derived = _match(rc, predicted) if predicted else None  # no prediction: nothing to recompute
        matches.append(derived)
        if rc.match != derived:
            found.append(contradiction("receipts", line, "match", rc.match, derived,
                                       f"predicted {_short(predicted)} vs observed {_short(rc.observed)}: "
                                       + ("no prediction to match" if derived is None else
                                          f"the prediction {'held' if derived else 'failed'}")))
    return matches, found, step_receipt


def _short(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))[:120]


__all__ = ["receipt_match", "receipts"]
