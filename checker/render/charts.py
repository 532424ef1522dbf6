"""Altair (Vega-Lite v6) chart specs with their data inlined as named `datasets`.

Each chart kind is built once with Altair against named data sources and cached; a page's chart
is that spec with its `datasets` filled in. This keeps Altair's schema validation out of the
per-page loop (200 submissions build in seconds) while every spec stays an Altair product.
Pages show each chart as a static SVG drawn at build time from the same datasets
(`checker.render.chart_svg`); the browser draws a spec with the vendored Vega, Vega-Lite and
vega-embed (`charts.js`) only when a reader asks for the interactive chart.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import Any

import altair as alt

from checker.render.tables import Row

Datasets = Mapping[str, Sequence[Row]]
"""A chart's named datasets: name -> rows (inlined in its spec)."""
VegaSpec = dict[str, Any]  # Any: a Vega-Lite spec is JSON of Vega-Lite's own schema, which Altair checks (not modelled here)

# Okabe & Ito's colour-blind-safe palette (vermillion, orange, bluish green, sky blue, grey): the
# parts stay distinguishable under protanopia, deuteranopia and tritanopia, and in dark mode.
COMPONENT_COLORS = {"bind": "#D55E00", "abandon": "#E69F00", "aligned": "#009E73"}
CHANNEL_COLORS = {"consistent": "#009E73", "drift": "#E69F00", "contradiction": "#D55E00", "other": "#56B4E9"}
STATUS_COLORS = {"PASS": "#009E73", "FAIL": "#D55E00", "N/A": "#999999"}
CLAIM_COLORS = {"claimed, verified": "#009E73", "transfer, verified": "#56B4E9", "false claim": "#D55E00",
                "transfer, not verified": "#E69F00", "step limit": "#CC79A7", "not counted": "#999999"}
"""The completion track's claimed / verified decomposition (`checker.render.completion.PARTS`)."""
PARTS = {"agent": COMPONENT_COLORS, "constraint": CHANNEL_COLORS, "completion": CLAIM_COLORS}
"""The decomposition of each track, in stacking order."""


def _scale(colors: dict[str, str]) -> alt.Scale:
    return alt.Scale(domain=list(colors), range=list(colors.values()))


@cache
def _decomposition() -> str:
    """Stacked mean bind / abandon / aligned share per cell; points: each seed's own stack boundaries."""
    bars = alt.Chart(alt.Data(name="means")).mark_bar().encode(
        x=alt.X("cell:N", title="cell", sort=None),
        y=alt.Y("share:Q", title="share of reference beats (mean over valid seeds)", stack="zero",
                scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("component:N", scale=_scale(COMPONENT_COLORS), title="component"),
        order=alt.Order("order:Q"),
        tooltip=["cell:N", "component:N", alt.Tooltip("share:Q", format=".3f"), "n_defined:Q", "n:Q"],
    )
    points = alt.Chart(alt.Data(name="points")).mark_point(filled=True, size=40, stroke="black",
                                                           strokeWidth=0.5).encode(
        x=alt.X("cell:N", sort=None),
        y=alt.Y("y:Q"),
        color=alt.Color("component:N", scale=_scale(COMPONENT_COLORS)),
        tooltip=["cell:N", "seed:N", "component:N", alt.Tooltip("value:Q", format=".3f")],
    )
    chart = alt.layer(bars, points).properties(width="container", height=260)
    return json.dumps(chart.to_dict())


@cache
def _channels() -> str:
    """Share of turns per channel, per model x method (normalised stacked bars)."""
    chart = alt.Chart(alt.Data(name="channels")).mark_bar().encode(
        y=alt.Y("group:N", title="model × method", sort=None),
        x=alt.X("share:Q", title="share of turns", stack="normalize"),
        color=alt.Color("channel:N", scale=_scale(CHANNEL_COLORS), title="channel"),
        order=alt.Order("order:Q"),
        tooltip=["group:N", "channel:N", alt.Tooltip("share:Q", format=".3f"), "turns:Q"],
    ).properties(width="container")
    return json.dumps(chart.to_dict())


@cache
def _depth() -> str:
    """Accuracy by turn number, one line per model x method."""
    base = alt.Chart(alt.Data(name="depth")).encode(
        x=alt.X("turn:O", title="turn"),
        y=alt.Y("accuracy:Q", title="accuracy (correct / turns)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("series:N", title="model × method", sort=None),
        tooltip=["series:N", "turn:O", alt.Tooltip("accuracy:Q", format=".3f"), "correct:Q", "turns:Q"],
    )
    # honest axes: each point's area shows how many turns stand behind it (the tooltip gives the number)
    points = base.mark_point(filled=True).encode(size=alt.Size("turns:Q", title="turns behind the point",
                                                                scale=alt.Scale(zero=True)))
    chart = alt.layer(base.mark_line(), points).properties(width="container", height=240)
    return json.dumps(chart.to_dict())


@cache
def _cells(track: str) -> str:
    """Per cell (one row each, in rank order): the stacked decomposition of its means, with n in the label.

    Layers: `means` (stacked shares), `ci` (bootstrap 95% intervals at the part boundaries, when a
    cell has enough seeds for one) and `undefined` (an explicit "undefined: why" mark for cells whose
    decomposition is undefined, so they never silently drop out of the chart).
    """
    colors = PARTS[track]
    y = alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelLimit=360))
    bars = alt.Chart(alt.Data(name="means")).mark_bar().encode(
        y=y,
        x=alt.X("share:Q", title={"agent": "share (mean over valid seeds)",
                                  "completion": "share of declared episodes"}.get(track, "share of turns with a ledger"),
                stack="zero", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("part:N", scale=_scale(colors), title="part", sort=list(colors),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        order=alt.Order("order:Q"),
        tooltip=["label:N", "part:N", alt.Tooltip("share:Q", format=".3f"), "n:N"],
    )
    ci = alt.Chart(alt.Data(name="ci")).mark_rule(strokeWidth=2, color="#000000").encode(
        y=y, x=alt.X("lo:Q"), x2=alt.X2("hi:Q"),
        tooltip=["label:N", "boundary:N", alt.Tooltip("lo:Q", format=".3f"), alt.Tooltip("hi:Q", format=".3f")],
    )
    undefined = alt.Chart(alt.Data(name="undefined")).mark_text(align="left", dx=4, fontStyle="italic").encode(
        y=y, x=alt.value(0), text="why:N", tooltip=["label:N", "why:N"],
    )
    undefined_box = alt.Chart(alt.Data(name="undefined")).mark_bar(
        fill="transparent", stroke="#999999", strokeDash=[4, 3]).encode(
        y=y, x=alt.datum(0), x2=alt.datum(1))
    # bars first: the y domain follows the first layer's data order (rank order), undefined rows after
    chart = alt.layer(bars, ci, undefined_box, undefined).properties(width="container", height=alt.Step(26))
    return json.dumps(chart.to_dict())


FOREST_TITLE = "ranked figure, all declared: point and 95% interval"


@cache
def _forest(track: str) -> str:
    """Forest plot of the ranked rows (grouped by board: a header row each), the decomposition beside it.

    Datasets: `ranked` (label, header, figure, lo, hi, interval, why_no_interval), `means` and `undefined`
    (as `_cells`, for the ranked rows). Rows without an interval show the point and say why.
    """
    colors = PARTS[track]
    y = alt.Y("label:N", title=None, sort=None, axis=alt.Axis(
        labelLimit=300, labelFontWeight=alt.ExprRef("indexof(datum.value, 'Board ') == 0 ? 'bold' : 'normal'")))
    base = alt.Chart(alt.Data(name="ranked"))
    rows = base.mark_point(opacity=0).encode(y=y)  # every row (headers too), in order: the shared y domain
    rule = base.mark_rule(strokeWidth=2).encode(y=y, x=alt.X("lo:Q", title=FOREST_TITLE, scale=alt.Scale(zero=False)),
                                                x2=alt.X2("hi:Q"))
    point = base.mark_point(filled=True, size=60, color="#0072B2").encode(
        y=y, x=alt.X("figure:Q"), tooltip=["label:N", alt.Tooltip("figure:Q", format=".3f"), "interval:N"])
    why = base.transform_filter("datum.figure != null && datum.lo == null").mark_text(
        align="left", dx=8, fontStyle="italic").encode(y=y, x=alt.X("figure:Q"), text="why_no_interval:N")
    forest = alt.layer(rows, rule, point, why).properties(width=300, height=alt.Step(24))
    bars = alt.Chart(alt.Data(name="means")).mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=None, axis=None),
        x=alt.X("share:Q", title="decomposition (share)", stack="zero", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("part:N", scale=_scale(colors), title="part", sort=list(colors),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        order=alt.Order("order:Q"),
        tooltip=["label:N", "part:N", alt.Tooltip("share:Q", format=".3f"), "n:N"],
    ).properties(width=260, height=alt.Step(24))
    chart = alt.hconcat(forest, bars).resolve_scale(y="shared")
    return json.dumps(chart.to_dict())


@cache
def _gate() -> str:
    """Gate outcomes: runs per condition and status."""
    chart = alt.Chart(alt.Data(name="gate")).mark_bar().encode(
        y=alt.Y("condition:N", title="gate condition", sort=None),
        x=alt.X("runs:Q", title="runs", stack="zero"),
        color=alt.Color("status:N", scale=_scale(STATUS_COLORS), title="status"),
        order=alt.Order("order:Q"),
        tooltip=["condition:N", "status:N", "runs:Q"],
    ).properties(width="container")
    return json.dumps(chart.to_dict())


def _cells_agent() -> str:
    return _cells("agent")


def _cells_constraint() -> str:
    return _cells("constraint")


def _cells_completion() -> str:
    return _cells("completion")


_KINDS: dict[str, Callable[[], str]] = {"decomposition": _decomposition, "channels": _channels, "depth": _depth, "gate": _gate,
          "cells-agent": _cells_agent, "cells-constraint": _cells_constraint, "cells-completion": _cells_completion,
          **{f"forest-{t}": partial(_forest, t) for t in PARTS}}


def spec(kind: str, datasets: Datasets) -> VegaSpec:
    """The cached Altair spec of `kind` with `datasets` inlined (a fresh dict each call)."""
    out: VegaSpec = json.loads(_KINDS[kind]())
    out["datasets"] = copy.deepcopy(datasets)
    return out


def dumps(chart: VegaSpec) -> str:
    """Deterministic JSON for a spec file."""
    return json.dumps(chart, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
