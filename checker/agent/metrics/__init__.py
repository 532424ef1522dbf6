"""The rest of ARG's metric table (arg-spec.md §c.1, §c.4-§c.7), recomputed from replayed state, one module a concern.

* `counts` (§c.1): actions, completions, decision mix, referents;
* `lifecycle` (§c.4): ICR, FBR, FCR, FSN, APR, DTL, SCL, rules tested, goal status;
* `write_path` (§c.5): WER per organ and total, write rejects, DPR, SRR, ECR;
* `chain` (§c.6): deficit stamps, goal edges, milestone goals and their conversion;
* `render` (§c.7): render peak and ceiling, LLM calls and tokens, token slope, length bins;
* `efficiency`: actions and tokens per completed level (both tracks, added by the results stage).

Every formula is documented in `site/tracks/agent.md`. Ratios are rounded with Python's
`round(x, 3)` like ARG. `strict` (profile `driftboard`) turns ARG's 0.0-on-empty-denominator
values (WER with no ops, FBR/FSN with no acted beat) into None. Each group returns a typed record
(`checker.agent.figures.Figures`); `METRICS` gathers the modules' declarations in this order.
"""

from __future__ import annotations

from checker.agent.metrics import chain as _chain
from checker.agent.metrics import counts as _counts
from checker.agent.metrics import efficiency as _efficiency
from checker.agent.metrics import lifecycle as _lifecycle
from checker.agent.metrics import render as _render
from checker.agent.metrics import write_path as _write_path
from checker.agent.metrics.chain import Chain, chain
from checker.agent.metrics.counts import Counts, counts
from checker.agent.metrics.efficiency import efficiency
from checker.agent.metrics.lifecycle import Lifecycle, lifecycle
from checker.agent.metrics.render import BinTable, RenderTokens, bins, render_tokens
from checker.agent.metrics.write_path import WritePath, write_path
from checker.format.metricdef import Metric

METRICS: tuple[Metric, ...] = (
    *_counts.METRICS, *_lifecycle.METRICS, *_write_path.METRICS, *_chain.METRICS, *_render.METRICS,
    *_efficiency.METRICS,
)
"""The metrics these modules compute, declared once (gathered by `checker.pipeline.metrics`)."""


__all__ = ["METRICS", "BinTable", "Chain", "Counts", "Lifecycle", "RenderTokens", "WritePath", "bins", "chain", "counts",
           "efficiency", "lifecycle", "render_tokens", "write_path"]
