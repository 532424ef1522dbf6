"""Render and tokens (arg-spec.md §c.7): render peak and ceiling, LLM calls and tokens, token slope, length bins."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from operator import add, attrgetter

from checker.agent.figures import Figures
from checker.agent.replay import AgentState
from checker.format.metricdef import BOTH_UNDEF, NEVER, Metric
from checker.format.results_model import MetricValue

BINS = (("1-50", 1, 50), ("51-150", 51, 150), ("151+", 151, None))

_RENDER_TOKENS = attrgetter("render_tokens")
_TURN = attrgetter("turn")
_PROMPT_TOKENS = attrgetter("prompt_tokens")
_COMPLETION_TOKENS = attrgetter("completion_tokens")
_BIN_FIELDS = attrgetter("action", "turn", "match", "step_id")

BinTable = dict[str, MetricValue]
"""Bin label -> {n, decision_accuracy, match_rate, GA}, None for an empty bin (the `bins` metric, a JSON table)."""


@dataclass(frozen=True, slots=True)
class RenderTokens(Figures):
    """Render and token figures of one run."""

    max_render_tokens: int
    render_ceiling_B: int
    R9_ok: bool
    llm_calls: int
    llm_tokens: int
    llm_input_tokens: int
    llm_output_tokens: int
    tokens_vs_beat_slope: float | None


def _r3(num: float, den: float) -> float:
    return round(num / den, 3)


def _slope(points: list[tuple[int, int]]) -> float | None:
    if len(points) < 3:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in points)
    return round(sxy / sxx, 4)


def render_tokens(state: AgentState, b: int, captures: bool = False) -> RenderTokens:
    """Render peak and ceiling, LLM calls and tokens, token slope (§c.7); `captures` counts render captures too."""
    peak = max(itertools.chain(map(_RENDER_TOKENS, state.beats), map(_RENDER_TOKENS, state.llm_calls),
                     map(_RENDER_TOKENS, state.captures) if captures else ()), default=0)
    calls = state.llm_calls
    prompt = list(map(_PROMPT_TOKENS, calls))
    completion = list(map(_COMPLETION_TOKENS, calls))
    tokens = list(map(add, prompt, completion))  # per call
    return RenderTokens(max_render_tokens=peak, render_ceiling_B=b, R9_ok=peak <= b, llm_calls=len(calls),
                        llm_tokens=sum(tokens), llm_input_tokens=sum(prompt), llm_output_tokens=sum(completion),
                        tokens_vs_beat_slope=_slope(list(zip(map(_TURN, calls), tokens, strict=True))))


def _bin_tallies(state: AgentState, landing: list[str | None], bound: set[str]) -> list[list[int]]:
    """Per bin: [n, matched, matched == 1, decided, decided == 1, landed in Bd] over acted beats."""
    acc = [[0, 0, 0, 0, 0, 0] for _ in BINS]
    for (action, turn, match, step_id), land in zip(map(_BIN_FIELDS, state.beats), landing, strict=True):
        if action == "RESET" or turn < 1:
            continue
        a = acc[0 if turn <= 50 else 1 if turn <= 150 else 2]
        a[0] += 1
        if match is not None:
            a[1] += 1
            a[2] += match == 1
            if step_id:
                a[3] += 1
                a[4] += match == 1
        if land in bound:
            a[5] += 1
    return acc


def bins(state: AgentState, landing: list[str | None]) -> BinTable:
    """Length-stratified bins over acted beats by beat number (§c.7), in one pass."""
    bound = {g.ref_id for g in state.bindings}
    out: BinTable = {}
    for (label, _, _), (n, matched, hits, decided, dhits, ga) in zip(BINS, _bin_tallies(state, landing, bound),
                                                                     strict=True):
        out[label] = None if n == 0 else {
            "n": n,
            "decision_accuracy": _r3(dhits, decided) if decided else None,
            "match_rate": _r3(hits, matched) if matched else None,
            "GA": _r3(ga, n) if bound else None,
        }
    return out


TOKENS_UNDEF = ("Never on the agent track. On the constraint track when a logged turn does not record both "
                "`tokens_in` and `tokens_out` (a partial sum would understate the cost), or the run logs no turn.")


METRICS: tuple[Metric, ...] = (
    # agent: render, tokens (§c.7)
    Metric(
        name="max_render_tokens",
        track="agent",
        kind="count",
        unit="tokens",
        definition=(
            "Largest `render_tokens` over all beats and LLM calls, and in profile `driftboard` render "
            "captures too (0 with none)."
        ),
        undefined=NEVER,
    ),
    Metric(
        name="render_ceiling_B",
        track="agent",
        kind="count",
        unit="tokens",
        definition=(
            "The render ceiling B in tokens applied to the run: the pre-registered `render_ceiling_B`, else "
            "ARG's default (6000). A threshold, not a measurement."
        ),
        undefined="Never undefined.",
    ),
    Metric(
        name="R9_ok",
        track="agent",
        kind="flag",
        definition=(
            "Per-run yes/no (not aggregated per cell): max_render_tokens ≤ B (the gate's `render_ceiling` "
            "condition fails on any render strictly above B)."
        ),
        undefined="Never undefined.",
    ),
    Metric(
        name="llm_calls",
        track="agent",
        kind="count",
        unit="calls",
        definition="LLM calls recorded in the log (retries included).",
        undefined=NEVER,
    ),
    # both tracks: the constraint scorer sums its turns' `tokens_in` / `tokens_out` under the same names
    # (`checker.constraint.scorer.token_figures`); the completion track records none
    Metric(
        name="llm_tokens",
        track="both",
        kind="count",
        unit="tokens",
        definition=("Σ prompt tokens + Σ completion tokens over the LLM calls (reasoning tokens not added); on the "
                    "constraint track, Σ `tokens_in` + Σ `tokens_out` over the logged turns."),
        undefined=TOKENS_UNDEF,
    ),
    Metric(
        name="llm_input_tokens",
        track="both",
        kind="count",
        unit="tokens",
        definition=("Σ prompt tokens over the LLM calls (constraint: Σ `tokens_in` over the logged turns); the input "
                    "side of `llm_tokens`, to which a declared price applies."),
        undefined=TOKENS_UNDEF,
    ),
    Metric(
        name="llm_output_tokens",
        track="both",
        kind="count",
        unit="tokens",
        definition=("Σ completion tokens over the LLM calls (constraint: Σ `tokens_out` over the logged turns); the "
                    "output side of `llm_tokens`, reasoning tokens not added, to which a declared price applies."),
        undefined=TOKENS_UNDEF,
    ),
    Metric(
        name="tokens_vs_beat_slope",
        track="agent",
        kind="value",
        definition=(
            "Ordinary least-squares slope of prompt + completion tokens against the call's turn, over all LLM "
            "calls (organs pooled); rounded to 4 places."
        ),
        undefined=(
            "Fewer than 3 LLM calls, or all calls on the same turn (zero x-variance). "
            + BOTH_UNDEF
        ),
    ),
    Metric(
        name="bins",
        track="agent",
        kind="table",
        definition=(
            "Per-run table (not aggregated per cell): acted beats in bins \"1-50\", \"51-150\", \"151+\" by beat "
            "number, each with `n`, `decision_accuracy` (share of match 1 among beats with a match and a plan "
            "step), `match_rate` (share of match 1 among beats with a match) and `GA` (share of the bin's "
            "beats landing in Bd)."
        ),
        undefined="An empty bin is undefined; a field is undefined when no beat qualifies (GA: Bd empty).",
    ),
)
"""The metrics this module computes, declared once (gathered by `checker.agent.metrics.METRICS`)."""


__all__ = ["METRICS", "BinTable", "RenderTokens", "bins", "render_tokens"]
