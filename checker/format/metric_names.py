"""Helpers for naming metrics in claims: the cell counts a claim may name, and "did you mean".

The metric names themselves come from the metric registry (`checker.pipeline.metrics.claim_names`); the
validate stage receives them from the command that runs it (it sits below the scorers).
"""

from __future__ import annotations

import difflib

CLAIM_COUNTS = ("runs", "valid_runs")
"""Cell counts a claim may name besides the metrics (`checker.stages.preregistration.check_claims` computes them)."""


def closest(name: str, choices: list[str]) -> str | None:
    """The choice closest to a misspelt `name` (`gds-bind` -> `gds_bind`), or None."""
    folded = {c.casefold().replace("-", "_"): c for c in choices}
    key = name.casefold().replace("-", "_").strip()
    if key in folded:
        return folded[key]
    found = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
    return folded[found[0]] if found else None
