"""Per completed level (both tracks): actions and tokens per level, added to counted runs by the results stage."""

from __future__ import annotations

from checker.format.metricdef import Metric
from checker.format.numbers import clean, is_number
from checker.format.results_model import RunResult


def efficiency(run: RunResult) -> dict[str, float | None]:
    """Actions and tokens per completed level; undefined (None) when no level was completed."""
    metrics = run.metrics
    completions = metrics.get("completions")
    if not is_number(completions) or float(completions) <= 0:
        return {"actions_per_level": None, "tokens_per_level": None}
    done = float(completions)
    actions = metrics.get("actions")
    tokens = metrics.get("llm_tokens")
    return {
        "actions_per_level": clean(float(actions) / done) if is_number(actions) else None,
        "tokens_per_level": clean(float(tokens) / done) if is_number(tokens) else None,
    }


METRICS: tuple[Metric, ...] = (
    # both tracks: per completed level (added to counted runs by the results stage)
    Metric(
        name="actions_per_level",
        track="both",
        kind="value",
        unit="beats per level",
        definition=(
            "actions / completions per run (beats, RESET included, per completed level), added to every "
            "counted run before cells are aggregated."
        ),
        undefined=(
            "completions absent or 0, in both profiles: always undefined on the constraint track (no "
            "completions) and for agent runs that completed no level."
        ),
    ),
    Metric(
        name="tokens_per_level",
        track="both",
        kind="value",
        unit="tokens per level",
        definition="llm_tokens / completions per run (LLM tokens per completed level).",
        undefined="completions absent or 0 (as `actions_per_level`); always undefined on the constraint track.",
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "efficiency"]
