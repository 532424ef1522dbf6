"""How a metric is declared: once, beside its computation, with everything a reader needs.

Each scoring module declares the metrics it computes as `Metric` records (the style of HELM's
`MetricMetadata`); `checker.pipeline.metrics` gathers them into the registry that the metrics page, table
headers, the leaderboard's ordering, intent-to-treat figures and the CLI text read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from checker.format.numbers import Kind

Track = Literal["agent", "constraint", "completion", "both"]

# Wording shared by several declarations.
OLD_STORE = ("Undefined when the run was imported from an older ARG store without the table it counts "
             "(`run_start.source.absent_tables`), as ARG reports it; otherwise a count (0 when there is nothing).")
NEVER = "Never undefined (a count; 0 when there is nothing to count)."
LANDING = ("The landing of a click is the recorded `target_ref` in profile `arg-v1.0` and the landing recomputed "
            "from geometry (smallest current, non-dormant referent whose anchor cells contain the click; none = "
            "background) in profile `driftboard`.")
BOTH_UNDEF = "Undefined in both profiles (ARG also reports None there)."
REF_UNDEF = ("No reference beat (n_ref = 0), in both profiles; 0 (defined) when there are reference beats and "
        "none is in the class.")
RESID = ("Residual decomposition (drift-spec §b.6): wrong turns (correct = false) split by the recomputed "
          "`ledger_sat` of the turn. ")
SHARE = " Counted among turns that have a channel (`channel_turns`), so the four shares sum to 1."


@dataclass(frozen=True)
class Metric:
    """One metric (or a family of keys, such as one accuracy per turn depth)."""

    name: str
    """The key in a run's `metrics`, or a family name such as `accuracy_depth_<d>` with `names`."""
    track: Track
    definition: str
    """What it measures and how it is computed (the formula, in words and symbols)."""
    undefined: str
    """When it is undefined (None, shown as —), never 0."""
    kind: Kind = "value"
    """How it is shown (`checker.format.numbers.fmt`: counts as integers, rates to 3 decimals, ...)."""
    unit: str = ""
    """What one unit is: `beats`, `turns`, `tokens`, `share of reference beats`, ..."""
    higher_is_better: bool | None = None
    """Direction for ranking and for the arrows in table headers; None: no direction (descriptive)."""
    worst: float | None = None
    """Intent-to-treat: the value a declared run that is missing, INCOMPLETE, INVALID or UNVERIFIED
    takes in the all-declared figure (the worst the metric allows); None: no all-declared variant."""
    worst_means: str = ""
    """What "worst" means for this metric, in words (shown with the all-declared figure)."""
    declared_variant: str | None = None
    """A per-run metric that already counts the run's own missing parts as worst (e.g. correct turns
    over every turn the run declared): used for a scored VALID or INCOMPLETE run's all-declared value."""
    ranked: bool = False
    """The metric its track's boards rank on (its all-declared figure); one per track. A ranked metric
    must say why degenerate behaviour scores worst on it (`degenerate_worst`), and the registry's
    property test (tests/test_degenerate.py) must have a generator of degenerate behaviours for it."""
    degenerate_worst: str = ""
    """Why answering, committing, claiming or logging less never scores above the honest run (ranked
    metrics; shown in the track page's integrity inventory)."""
    turn_credit: str | None = None
    """Constraint track: the `TurnResult` field that credits one turn in the per-problem units a ranked
    figure pools (`correct`, or `solved` = Parse ∧ Complete ∧ Satisfies)."""
    names: tuple[str, ...] = field(default_factory=tuple)
    """The keys a family entry covers (empty: just `name`)."""

    @property
    def keys(self) -> tuple[str, ...]:
        """Every run-metric key this declaration covers."""
        return self.names or (self.name,)

    @property
    def arrow(self) -> str:
        """↑ (higher is better), ↓ (lower is better) or "" (descriptive)."""
        return "" if self.higher_is_better is None else "↑" if self.higher_is_better else "↓"
