"""The report's chart: the families at each k, as inline SVG.

Four bar charts, two by two (families with at least two members; documents in them; the
largest family; the largest diameter), one bar per k from 0 to K, each bar with its
number above it, the report's k highlighted. Colours come from the page's CSS classes
(``bar``, ``bar cur``, ``axis``, ``lbl``), so the chart follows light and dark themes; the
SVG carries no style attribute and no script. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ditto_tui.report.model import ChartPoint

__all__ = ["chart_svg"]

PANEL_W = 360
HEIGHT = 230
TOP = 40
BOTTOM = 34
LEFT = 14


def _fmt(value: int) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return str(value)


def _panel(points: Sequence[ChartPoint], values: Sequence[int], x0: int, title: str,
           current: int, y0: int = 0, labels: Sequence[str] | None = None) -> list[str]:
    out = [f'<text class="ttl" x="{x0 + LEFT}" y="{y0 + 18}">{escape(title, quote=True)}</text>']
    plot_h = HEIGHT - TOP - BOTTOM
    base = y0 + TOP + plot_h
    top = max(values, default=0) or 1
    n = max(len(points), 1)
    slot = (PANEL_W - 2 * LEFT) / n
    bar_w = max(4.0, slot * 0.7)
    out.append(
        f'<line class="axis" x1="{x0 + LEFT}" y1="{base}" x2="{x0 + PANEL_W - LEFT}" y2="{base}"/>'
    )
    for i, (point, value) in enumerate(zip(points, values, strict=True)):
        shown = labels[i] if labels is not None else _fmt(value)
        h = round(plot_h * value / top, 1)
        x = round(x0 + LEFT + i * slot + (slot - bar_w) / 2, 1)
        cls = "bar cur" if point.k == current else "bar"
        label = f"k={point.k}: {title.lower()} {shown}"
        out.append(
            f'<rect class="{cls}" x="{x}" y="{round(base - h, 1)}" width="{round(bar_w, 1)}" '
            f'height="{h}"><title>{escape(label, quote=True)}</title></rect>'
        )
        cx = round(x + bar_w / 2, 1)
        out.append(f'<text class="val" x="{cx}" y="{round(base - h - 4, 1)}">{escape(shown)}</text>')
        out.append(f'<text class="lbl" x="{cx}" y="{base + 16}">{point.k}</text>')
    out.append(
        f'<text class="lbl" x="{x0 + PANEL_W // 2}" y="{y0 + HEIGHT - 4}">Hamming distance k</text>'
    )
    return out


def chart_svg(points: Sequence[ChartPoint], current: int) -> str:
    """An SVG element with the four bar charts of ``points`` (k ascending); the bars at
    ``k == current`` carry the class ``cur``. Empty ``points`` give an empty frame. An
    upper-bound diameter (a very large family) is labelled ``≤N``."""
    width, height = 2 * PANEL_W, 2 * HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-labelledby="chart-title">',
        '<title id="chart-title">Families (at least two members), documents in families, '
        "the largest family and the largest diameter at each k</title>",
    ]
    parts += _panel(points, [p.families for p in points], 0, "Families", current)
    parts += _panel(points, [p.documents for p in points], PANEL_W, "Documents in families",
                    current)
    parts += _panel(points, [p.largest for p in points], 0, "Largest family", current, HEIGHT)
    parts += _panel(points, [p.diameter for p in points], PANEL_W, "Largest diameter", current,
                    HEIGHT, [f"{'' if p.diameter_exact else '≤'}{p.diameter}" for p in points])
    parts.append("</svg>")
    return "\n".join(parts)
