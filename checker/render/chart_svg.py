"""Each chart kind's static SVG (`checker.render.svg`), drawn from the datasets its Vega-Lite spec inlines.

`draw(kind, datasets)` returns None when the datasets hold nothing to draw: the page then says why in
text instead of showing an empty chart. Undefined values (None) are never drawn as 0: a row whose
parts are all undefined is an empty dashed box with its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from checker.render import svg
from checker.render.charts import CHANNEL_COLORS, COMPONENT_COLORS, FOREST_TITLE, PARTS, STATUS_COLORS, Datasets
from checker.render.tables import Row


def _f(v: object) -> float:
    if isinstance(v, int | float):
        return float(v)
    raise TypeError(f"internal: a chart value is not a number: {v!r}")


def _i(v: object) -> int:
    if isinstance(v, int):
        return v
    raise TypeError(f"internal: a chart count is not an integer: {v!r}")


def _label_of(r: Row, key: str, many: bool) -> str:
    return f"{r[key]} · {r['submission']}" if many and r.get("submission") is not None else str(r[key])


def _in_order(rows: Sequence[Row], key: str) -> list[str]:
    seen: dict[str, None] = {}
    for r in rows:
        seen.setdefault(str(r[key]), None)
    return list(seen)


def _stacks(rows: Sequence[Row], key: str, part: str, value: str, colors: dict[str, str],
            labels: list[str]) -> dict[int, list[tuple[str, float]]]:
    index = {label: i for i, label in enumerate(labels)}
    out: dict[int, list[tuple[str, float]]] = {}
    for r in sorted(rows, key=lambda r: (index[str(r[key])], r.get("order", 0))):
        if r[value] is not None:
            out.setdefault(index[str(r[key])], []).append((colors.get(str(r[part]), "#999999"), _f(r[value])))
    return out


def _cells(track: str, d: Datasets) -> str | None:
    """A decomposition per cell: stacked shares, 95% intervals at the part boundaries, undefined rows boxed."""
    means, ci, undefined = list(d.get("means", [])), list(d.get("ci", [])), list(d.get("undefined", []))
    labels = _in_order(means, "label") + [str(u["label"]) for u in undefined]
    if not labels:
        return None
    colors = PARTS[track]
    p = svg.Panel({"agent": "share (mean over valid seeds)", "completion": "share of declared episodes"}.get(
        track, "share of turns with a ledger"), (0.0, 1.0), stacks=_stacks(means, "label", "part", "share", colors, labels))
    index = {label: i for i, label in enumerate(labels)}
    for c in ci:
        p.rules.setdefault(index[str(c["label"])], []).append((_f(c["lo"]), _f(c["hi"])))
    for u in undefined:
        i = index[str(u["label"])]
        p.boxed.add(i)
        p.notes[i] = str(u["why"])
    notes = {str(m["label"]): str(m["n"]) for m in means}
    rows = [svg.Row(label, tooltip=f"{label}: {notes[label]}" if label in notes else "") for label in labels]
    return svg.row_chart(rows, [p], [(k, v) for k, v in colors.items()], "part")


def _decomposition(d: Datasets) -> str | None:
    """An agent submission's cells: stacked mean bind / abandon / aligned, each seed's boundaries as dots."""
    means, points = list(d.get("means", [])), list(d.get("points", []))
    labels = _in_order(means + points, "cell")
    if not labels:
        return None
    index = {label: i for i, label in enumerate(labels)}
    p = svg.Panel("share of reference beats (mean over valid seeds)", (0.0, 1.0),
                  stacks=_stacks(means, "cell", "component", "share", COMPONENT_COLORS, labels))
    for pt in points:
        p.points.setdefault(index[str(pt["cell"])], []).append(
            (COMPONENT_COLORS[str(pt["component"])], _f(pt["y"]),
             f"seed {pt['seed']}: {pt['component']} {svg._num(_f(pt['value']))}"))
    return svg.row_chart([svg.Row(label) for label in labels], [p], list(COMPONENT_COLORS.items()), "component")


def _gate(d: Datasets) -> str | None:
    rows = list(d.get("gate", []))
    labels = _in_order(rows, "condition")
    if not labels:
        return None
    totals = {label: sum(_i(r["runs"]) for r in rows if r["condition"] == label) for label in labels}
    top = float(svg.nice_ticks(0, max(totals.values()) or 1)[-1])
    p = svg.Panel("runs", (0.0, max(top, float(max(totals.values())))),
                  stacks=_stacks(rows, "condition", "status", "runs", STATUS_COLORS, labels))
    return svg.row_chart([svg.Row(label, tooltip=f"{label}: {totals[label]} runs") for label in labels], [p],
                         list(STATUS_COLORS.items()), "status")


def _channels(d: Datasets) -> str | None:
    rows = list(d.get("channels", []))
    many = len({r.get("submission") for r in rows}) > 1
    keyed = [{**r, "key": _label_of(r, "group", many)} for r in rows]
    labels = _in_order(keyed, "key")
    if not labels:
        return None
    totals = {label: sum(_i(r["turns"] or 0) for r in keyed if r["key"] == label) for label in labels}
    shares = [{**r, "share": (_i(r["turns"] or 0) / totals[str(r["key"])]) if totals[str(r["key"])] else None}
              for r in keyed]
    p = svg.Panel("share of turns with a ledger", (0.0, 1.0),
                  stacks=_stacks(shares, "key", "channel", "share", CHANNEL_COLORS, labels))
    for i, label in enumerate(labels):
        if not totals[label]:
            p.boxed.add(i)
            p.notes[i] = "undefined: no turn with a ledger"
    return svg.row_chart([svg.Row(label, tooltip=f"{label}: {totals[label]} turns") for label in labels], [p],
                         list(CHANNEL_COLORS.items()), "channel")


def _depth(d: Datasets) -> str | None:
    rows = [r for r in d.get("depth", []) if r["accuracy"] is not None]
    if not rows:
        return None
    many = len({r.get("submission") for r in rows}) > 1
    series: dict[str, list[tuple[int, float, int]]] = {}
    for r in rows:  # `series` names each line (`chart_data.depth_data`); rows without it: the cell (and submission)
        name = str(r["series"]) if r.get("series") is not None else _label_of(r, "group", many)
        series.setdefault(name, []).append((_i(r["turn"]), _f(r["accuracy"]), _i(r["turns"])))
    return svg.line_chart([(k, sorted(v)) for k, v in series.items()], "turn", "accuracy (correct / turns)")


def _forest(track: str, d: Datasets) -> str | None:
    """The ranked figure with its 95% interval per ranked row, grouped by board; the decomposition beside it."""
    ranked = list(d.get("ranked", []))
    if not ranked:
        return None
    rows: list[svg.Row] = []
    figure_at: dict[str, int] = {}
    for r in ranked:
        if r["header"]:
            rows.append(svg.Row(str(r["label"]), header=True))
        else:
            figure_at[str(r["label"])] = len(rows)
            rows.append(svg.Row(str(r["label"])))
    values = [_f(v) for r in ranked if not r["header"] for v in (r["figure"], r["lo"], r["hi"]) if v is not None]
    lo, hi = min(values), max(values)
    domain = (0.0, 1.0) if lo >= 0 and hi <= 1 else (svg.nice_ticks(lo, hi)[0], svg.nice_ticks(lo, hi)[-1])
    forest = svg.Panel(FOREST_TITLE, domain, width=300)
    for r in ranked:
        if r["header"]:
            continue
        i = figure_at[str(r["label"])]
        ci = f" [{svg._num(_f(r['lo']))}, {svg._num(_f(r['hi']))}]" if r["lo"] is not None else ""
        forest.points[i] = [("#0072B2", _f(r["figure"]), f"{svg._num(_f(r['figure']))}{ci}")]
        if r["lo"] is not None and r["hi"] is not None:
            forest.rules[i] = [(_f(r["lo"]), _f(r["hi"]))]
        else:
            forest.notes[i] = str(r["why_no_interval"]).removeprefix("none: ")  # the caption: "no interval: why"
    colors = PARTS[track]
    parts = svg.Panel("decomposition (share)", (0.0, 1.0), width=260)
    for m in d.get("means", []):
        i = figure_at[str(m["label"])]
        parts.stacks.setdefault(i, []).append((colors[str(m["part"])], _f(m["share"])))
    for u in d.get("undefined", []):
        i = figure_at[str(u["label"])]
        parts.boxed.add(i)
        parts.notes[i] = str(u["why"])
    return svg.row_chart(rows, [forest, parts], list(colors.items()), "part")


_DRAW: dict[str, Callable[[Datasets], str | None]] = {
    "decomposition": _decomposition, "gate": _gate, "channels": _channels, "depth": _depth,
    **{f"cells-{t}": partial(_cells, t) for t in PARTS},
    **{f"forest-{t}": partial(_forest, t) for t in PARTS},
}


def draw(kind: str, datasets: Datasets) -> str | None:
    """The chart's SVG, or None when there is nothing to draw."""
    return _DRAW[kind](datasets)
