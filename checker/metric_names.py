"""The metric names a claim or a defeater may name, per track: one function, one source.

Today the declared metrics are the entries of `checker.render.metrics.METRICS` (every metric a
scorer emits has one; `tests/test_metric_docs.py` keeps them so). When metric declarations move
into a registry, repoint `known_metric_names` at it; nothing else reads the list.
"""

from __future__ import annotations

import difflib

CLAIM_COUNTS = ("runs", "valid_runs")
"""Cell counts a claim may name besides the metrics (`checker.preregistration.check_claims` computes them)."""


def known_metric_names(track: str) -> list[str]:
    """Every metric name of `track` (`agent` or `constraint`) plus the cell counts, sorted."""
    from checker.render.metrics import METRICS  # the declarations (a data module: no rendering happens)

    names: set[str] = set(CLAIM_COUNTS)
    for doc in METRICS:
        if doc["track"] in (track, "both"):
            names.update(doc.get("names") or [doc["name"]])
    return sorted(names, key=str.casefold)


def closest(name: str, choices: list[str]) -> str | None:
    """The choice closest to a misspelt `name` (`gds-bind` -> `gds_bind`), or None."""
    folded = {c.casefold().replace("-", "_"): c for c in choices}
    key = name.casefold().replace("-", "_").strip()
    if key in folded:
        return folded[key]
    found = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
    return folded[found[0]] if found else None
