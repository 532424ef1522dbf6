"""The metrics page's entries, read from the metric registry (`checker.pipeline.metrics`).

Nothing is declared here: each metric's definition, undefined case, unit, kind, direction and
intent-to-treat worst value are declared once beside its computation. A metric that appears in
results but is not declared is listed on the page as "not yet documented", so the page cannot
silently fall behind the scorers (`tests/test_metric_docs.py`).
"""

from __future__ import annotations

from checker.pipeline.metrics import MAX_DEPTH, RANK_BY, declarations, documented, get, header
from checker.render.context import MetricDoc


def entries() -> list[MetricDoc]:
    """One page entry per declaration, in declaration order."""
    out: list[MetricDoc] = []
    for m in declarations():
        doc: MetricDoc = {"name": m.name, "track": m.track, "definition": m.definition, "undefined": m.undefined,
                          "kind": m.kind, "unit": m.unit, "direction": m.arrow, "worst_means": m.worst_means}
        if m.names:
            doc["names"] = list(m.names)
        out.append(doc)
    return out


def metric_href(name: str) -> str | None:
    """Site-relative link to the definition of the metric covering run-metric key `name`; None when undeclared.

    A track's metric is defined on its track's metrics page, a metric of both tracks on the metrics page.
    """
    metric = get(name)
    if metric is None:
        return None
    page = "metrics/" if metric.track == "both" else f"metrics/{metric.track}/"
    return f"{page}#{metric.name.replace('<', '').replace('>', '')}"


def worst_means(name: str) -> str:
    """What the all-declared figure of a metric substitutes for a missing or failed run ("" when none)."""
    metric = get(name)
    return metric.worst_means if metric is not None else ""


METRICS: list[MetricDoc] = entries()
"""Every entry of the metrics page."""



def rank_metric(track: str) -> str:
    """The metric whose all-declared figure orders a track's leaderboard (`checker.pipeline.metrics.RANK_BY`)."""
    return RANK_BY[track]


def higher_is_better(name: str) -> bool | None:
    """The metric's direction from the registry (None: descriptive, no direction)."""
    metric = get(name)
    return metric.higher_is_better if metric is not None else None


def is_count(name: str) -> bool:
    """A count per run (completions, turns, tokens): an aggregate of it must say whether it is a total or a mean."""
    metric = get(name)
    return metric is not None and metric.kind == "count"


def definition(name: str) -> str:
    """The metric's definition (a tooltip), or empty when it is not declared."""
    metric = get(name)
    return metric.definition if metric is not None else ""


__all__ = ["MAX_DEPTH", "METRICS", "definition", "documented", "header", "higher_is_better", "is_count", "metric_href",
           "rank_metric", "worst_means"]
