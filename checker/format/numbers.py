"""The one formatter for every human-readable number: CLI text, job summaries and pages.

Results files keep full precision; only what a person reads goes through here. Undefined
(`None`, NaN, a missing value) is always the em dash `—`, never 0 and never "n/a". Each metric
declares its kind in the metric registry (`checker.pipeline.metrics`), and the kind fixes the precision:

| kind | shown as | example |
|---|---|---|
| `count` | integer | `527` |
| `rate`, `ratio`, `value` | at most 3 decimals, trailing zeros dropped | `0.841`, `1`, `0.5` |
| `flag` | yes / no | `yes` |
"""

from __future__ import annotations

import math
from typing import Any, Literal, TypeGuard

DASH = "—"
"""What an undefined or missing value shows as, everywhere."""

Kind = Literal["count", "rate", "ratio", "value", "flag", "table", "text"]
"""A metric's kind: how it is computed and how it is shown (`table`/`text`: per-run detail, not a number)."""

DECIMALS = 3
"""Decimals for rates, ratios and other non-integer values."""


def fmt(value: Any, kind: Kind = "value") -> str:
    """A value for a reader: the kind's precision, `—` when undefined."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return DASH
        if kind == "count" and value.is_integer():
            return str(int(value))
        text = f"{value:.{DECIMALS}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
        return "0" if text == "-0" else text
    return str(value)


def fmt_pair(value: Any, n_defined: int, n: int, kind: Kind = "value") -> str:
    """A cell figure with its support: `0.375 (2/3)` — defined seeds of the counted seeds."""
    return f"{fmt(value, kind)} ({n_defined}/{n})"


def is_number(v: Any) -> TypeGuard[int | float]:
    """True for ints and finite floats (bools are not metrics)."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def clean(x: float) -> float:
    """Round away binary noise (10 decimals) so results files are stable across platforms."""
    return float(round(x, 10))
