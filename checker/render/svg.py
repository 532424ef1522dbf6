"""Static SVG charts drawn at build time: no charting runtime on any page unless a reader asks for it.

Every chart of the site is drawn here from the same datasets its Vega-Lite spec inlines
(`checker.render.chart_data`), as plain SVG put into the page: rows of horizontal marks (stacked
shares, counts, a forest plot of the ranked figure with its interval, side by side) and a line
chart (accuracy by turn). The interactive Vega view loads only when a reader presses the chart's
"interactive" button (`site/javascripts/charts.js`).

Why not Vega itself (`vl-convert`) at build time: measured on this machine it takes 145–285 ms a chart
(Deno + Vega per call), and 200 submissions have about 1,300 charts (cell and submission pages), several
minutes where the whole site bench must stay under 30 s; these functions take well under a millisecond.

Text is the page's own font and colour (`currentColor`: the light and dark schemes both work); label
widths are not measured (no font metrics, so the bytes never depend on the machine's fonts): a long
label is cut with "…" and kept whole in its `<title>`. Every submitted string (cell names, board
labels) is escaped. Numbers are written rounded to 0.1 px: a pure function of the data, byte-identical
across builds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

ROW = 24
"""Height of one row (px)."""
LABEL_W = 250
"""Width of the row labels' column (px)."""
LABEL_CHARS = 40
"""Longest label drawn whole (about 6 px a character at 12 px); longer ones end in "…" (whole in the tooltip)."""
PLOT_W = 440
"""Width of the plot area of a one-panel chart (px)."""
FG = "currentColor"
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def _n(x: float) -> str:
    """A coordinate, rounded to 0.1 px, without a trailing `.0`."""
    v = round(x, 1)
    return str(int(v)) if v == int(v) else f"{v:.1f}"


def _t(s: object) -> str:
    return escape(str(s), quote=True)


def _cut(s: str, n: int = LABEL_CHARS) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _num(v: float) -> str:
    """A tick label: at most 3 significant decimals, no trailing zeros."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1, 2 or 5 times a power of ten apart)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9)
    return [round((first + i) * step, 12) for i in range(math.floor(hi / step + 1e-9) - first + 1)]


@dataclass
class Row:
    """One row of a row chart: its label, or a group's header (bold, no marks)."""

    label: str
    header: bool = False
    tooltip: str = ""


@dataclass
class Panel:
    """One panel of a row chart: an x axis over `domain` and, per row (by index), what is drawn on it."""

    title: str
    domain: tuple[float, float]
    width: int = PLOT_W
    stacks: dict[int, list[tuple[str, float]]] = field(default_factory=dict)
    """(colour, length) segments stacked from the domain's start."""
    rules: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    """Intervals (lo, hi), drawn as a line with end ticks."""
    points: dict[int, list[tuple[str, float, str]]] = field(default_factory=dict)
    """(colour, x, tooltip) dots."""
    notes: dict[int, str] = field(default_factory=dict)
    """Text drawn in the row (italic): an undefined bar's reason, or why a point has no interval."""
    boxed: set[int] = field(default_factory=set)
    """Rows drawn as an empty dashed box (an undefined bar, never a bar of 0)."""

    def x(self, v: float) -> float:
        """Where `v` is on the panel (px from its left; clamped to the domain)."""
        lo, hi = self.domain
        return (min(max(v, lo), hi) - lo) / (hi - lo) * self.width


def _legend(items: Sequence[tuple[str, str]], x: float, y: float, title: str,
            width: float = PLOT_W) -> tuple[list[str], float]:
    """A horizontal legend (wrapping at `width`); returns its elements and its height."""
    out = [f'<text x="{_n(x)}" y="{_n(y + 12)}" font-weight="bold">{_t(title)}</text>'] if title else []
    cx, cy = x + (len(title) * 7 + 12 if title else 0), y
    for name, colour in items:
        w = 18 + len(name) * 6.5 + 14
        if cx + w > x + width and cx > x:
            cx, cy = x, cy + 18
        out.append(f'<rect x="{_n(cx)}" y="{_n(cy + 3)}" width="12" height="12" fill="{_t(colour)}"/>'
                   f'<text x="{_n(cx + 16)}" y="{_n(cy + 13)}">{_t(name)}</text>')
        cx += w
    return out, cy - y + 20


def _rect(a: float, y: float, w: float, h: float) -> str:
    """A rectangle as path data (one path per colour keeps a chart of many rows small)."""
    return f"M{_n(a)},{_n(y)}h{_n(w)}v{_n(h)}h{_n(-w)}z"


def _panel(p: Panel, n_rows: int, top: int, height: int) -> list[str]:
    """One panel's marks, in its own coordinates."""
    out = [f'<text x="{_n(p.width / 2)}" y="14" text-anchor="middle" font-weight="bold">{_t(p.title)}</text>']
    ticks = [t for t in nice_ticks(*p.domain) if p.domain[0] - 1e-9 <= t <= p.domain[1] + 1e-9]
    grid = "".join(f"M{_n(p.x(t))},{top}V{height}" for t in ticks)
    out.append(f'<path d="{grid}M0,{height}H{p.width}" stroke="{FG}" stroke-opacity="0.2"/>'
               f'<g text-anchor="middle" font-size="11">'
               + "".join(f'<text x="{_n(p.x(t))}" y="{height + 14}">{_num(t)}</text>' for t in ticks) + "</g>")
    fills: dict[str, list[str]] = {}
    rules, boxes, dots, notes = [], [], [], []
    for i in range(n_rows):
        y = top + i * ROW
        start = p.domain[0]
        for colour, length in p.stacks.get(i, []):
            a, b = p.x(start), p.x(start + length)
            if b - a > 0:
                fills.setdefault(colour, []).append(_rect(a, y + 4, b - a, ROW - 8))
            start += length
        if i in p.boxed:
            boxes.append(_rect(0, y + 4, p.width, ROW - 8))
        m = y + ROW / 2
        for lo, hi in p.rules.get(i, []):
            a, b = p.x(lo), p.x(hi)
            rules.append(f"M{_n(a)},{_n(m)}H{_n(b)}M{_n(a)},{_n(m - 5)}v10M{_n(b)},{_n(m - 5)}v10")
        for colour, v, tip in p.points.get(i, []):
            dots.append(f'<circle cx="{_n(p.x(v))}" cy="{_n(m)}" r="4.5" fill="{_t(colour)}"><title>{_t(tip)}</title>'
                        "</circle>")
        if i in p.notes:  # beside its point, on the side with more room, cut to the room there (whole in its title)
            px = max([p.x(v) for _c, v, _t2 in p.points.get(i, [])], default=0.0)
            left = bool(p.points.get(i)) and px > p.width / 2
            room = int(((px - 9) if left else (p.width - px - 9)) / 5.0)  # about 5 px a character at 10 px
            note = _cut(p.notes[i], max(room, 8))
            tip = f"<title>{_t(p.notes[i])}</title>" if note != p.notes[i] else ""
            anchor = ' text-anchor="end"' if left else ""
            notes.append(f'<text x="{_n(px - 9 if left else px + 9)}" y="{_n(m + 4)}"{anchor}>{tip}{_t(note)}</text>')
    out += [f'<path fill="{_t(colour)}" d="{"".join(d)}"/>' for colour, d in fills.items()]
    if boxes:
        out.append(f'<path d="{"".join(boxes)}" fill="none" stroke="#999999" stroke-dasharray="4 3"/>')
    if rules:
        out.append(f'<path d="{"".join(rules)}" stroke="{FG}" stroke-width="2" fill="none"/>')
    if dots:
        out.append(f'<g stroke="{FG}" stroke-width="0.8">{"".join(dots)}</g>')
    if notes:
        out.append(f'<g font-style="italic" font-size="10">{"".join(notes)}</g>')
    return out


def row_chart(rows: Sequence[Row], panels: Sequence[Panel], legend: Sequence[tuple[str, str]] = (),
              legend_title: str = "") -> str:
    """Rows of horizontal marks, one panel beside the other, sharing the row labels on the left."""
    top = 28
    height = top + ROW * len(rows)
    # the label column fits the longest row label (up to LABEL_W): a chart of short labels stays narrow on a phone
    label_w = min(LABEL_W, max([60] + [round(len(_cut(r.label)) * 6.5) + 10 for r in rows if not r.header]))
    x0 = label_w + 10
    right = x0 + sum(p.width + 30 for p in panels)
    labels, heads, rules = [], [], []
    for i, r in enumerate(rows):
        y = top + i * ROW + ROW / 2
        if r.header:  # a group's header spans the row (no marks on it), left-aligned
            label = _cut(r.label, int((right - 10) / 6.5))
            tip = f"<title>{_t(r.label)}</title>" if label != r.label else ""
            heads.append(f'<text x="0" y="{_n(y + 4)}">{tip}{_t(label)}</text>')
        else:
            label = _cut(r.label)
            tip = f"<title>{_t(r.tooltip or r.label)}</title>" if (label != r.label or r.tooltip) else ""
            labels.append(f'<text x="{label_w}" y="{_n(y + 4)}">{tip}{_t(label)}</text>')
        if r.header and i:
            rules.append(f"M0,{_n(y - ROW / 2)}H{_n(right)}")
    out = [f'<g text-anchor="end">{"".join(labels)}</g>']
    if heads:
        out.append(f'<g font-weight="bold">{"".join(heads)}</g>')
    if rules:
        out.append(f'<path d="{"".join(rules)}" stroke="{FG}" stroke-opacity="0.3"/>')
    for p in panels:
        out += [f'<g transform="translate({_n(x0)},0)">', *_panel(p, len(rows), top, height), "</g>"]
        x0 += p.width + 30
    foot = height + 34
    start = label_w + 10
    items, legend_h = _legend(legend, start, foot - 10, legend_title, x0 - start) if legend else ([], 0.0)
    out += items
    return _svg(x0, foot - 10 + legend_h + 4, out)


def line_chart(series: Sequence[tuple[str, Sequence[tuple[int, float, int]]]], x_title: str, y_title: str) -> str:
    """One line per series over integer x (turns), y in [0, 1]; each point's area shows the count behind it."""
    left, top, w, h = 50, 10, 560, 220
    xs = sorted({x for _name, pts in series for x, _y, _n2 in pts})
    most = max((c for _name, pts in series for _x, _y, c in pts), default=1) or 1
    step = w / max(len(xs), 1)
    pos = {x: left + step * (i + 0.5) for i, x in enumerate(xs)}
    ticks = nice_ticks(0, 1)
    out = [f'<path d="M{left},{top + h}H{left + w}" stroke="{FG}" stroke-opacity="0.6"/>'
           f'<path d="{"".join(f"M{left},{_n(top + h - t * h)}H{left + w}" for t in ticks)}" stroke="{FG}" '
           'stroke-opacity="0.15"/>']
    out += [f'<text x="{left - 6}" y="{_n(top + h - t * h + 4)}" text-anchor="end" font-size="11">{_num(t)}</text>'
            for t in ticks]
    for x in xs:
        out.append(f'<text x="{_n(pos[x])}" y="{top + h + 16}" text-anchor="middle" font-size="11">{x}</text>')
    out.append(f'<text x="{_n(left + w / 2)}" y="{top + h + 34}" text-anchor="middle">{_t(x_title)}</text>'
               f'<text transform="translate(12,{_n(top + h / 2)}) rotate(-90)" text-anchor="middle">{_t(y_title)}</text>')
    legend = []
    for k, (name, pts) in enumerate(series):
        colour = OKABE_ITO[k % len(OKABE_ITO)]
        legend.append((name, colour))
        d = "".join(("M" if j == 0 else "L") + f"{_n(pos[x])},{_n(top + h - y * h)}" for j, (x, y, _c) in enumerate(pts))
        # one group per line, its name the tooltip of its line and points; each point's numbers are in the chart's
        # data table (a tooltip per point naming its series was most of a 16-line chart's 28 KB)
        out.append(f'<g fill="{colour}"><title>{_t(name)}</title>'
                   f'<path d="{d}" stroke="{colour}" stroke-width="2" fill="none"/>')
        out += [f'<circle cx="{_n(pos[x])}" cy="{_n(top + h - y * h)}" r="{_n(2 + 4 * math.sqrt(c / most))}"/>'
                for x, y, c in pts]
        out.append("</g>")
    items, legend_h = _legend([(_cut(n, 60), c) for n, c in legend], left, top + h + 44, "", w)
    return _svg(left + w + 10, top + h + 44 + legend_h + 4, out + items)


def _svg(width: float, height: float, body: list[str]) -> str:
    w, h = _n(width), _n(height)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="db-svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
            f'font-family="inherit" font-size="12" fill="{FG}" aria-hidden="true" focusable="false" '
            'style="display:block;max-width:none">'
            + "".join(body) + "</svg>")
