"""A per-turn token and cost chart as inline SVG (no scripts, no external files).

Each model call is a stacked bar — uncached input, cache reads, cache writes, output — and
its cost is a line on the right-hand axis. Bars link to the call's place in the timeline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 860, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 64, 20, 58
# Colour-blind-safe (Okabe-Ito) for the four token kinds, and a dark line for cost.
SERIES = (
    ("input", "#0072B2"),
    ("cache read", "#56B4E9"),
    ("cache write", "#E69F00"),
    ("output", "#009E73"),
)
COST_COLOUR = "#D55E00"


@dataclass(frozen=True, slots=True)
class TurnUsage:
    """One model call: where it sits in the timeline, its tokens and cost (None: unpriced)."""

    anchor: str
    label: str
    model: str
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: float | None

    @property
    def stack(self) -> tuple[int, int, int, int]:
        return (
            self.input_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.output_tokens,
        )

    @property
    def total(self) -> int:
        return sum(self.stack)


def _nice_ceiling(value: float) -> float:
    """A round axis maximum at or above ``value`` (1, 2, 2.5 or 5 times a power of ten)."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(value))
    return next(step * magnitude for step in (1, 2, 2.5, 5, 10) if step * magnitude >= value)


def _tokens_label(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1_000:
        return f"{value / 1_000:g}k"
    return f"{value:g}"


def _tooltip(turn: TurnUsage) -> str:
    cost = "cost unknown" if turn.cost_usd is None else f"${turn.cost_usd:.4f}"
    return (
        f"{turn.label} · {turn.model}\n{turn.input_tokens:,} input · "
        f"{turn.cache_read_tokens:,} cache read · {turn.cache_write_tokens:,} cache write · "
        f"{turn.output_tokens:,} output\n{cost}"
    )


def usage_chart_svg(turns: list[TurnUsage]) -> str:
    if not turns:
        return '<p class="empty">No model calls in this session.</p>'
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    token_max = _nice_ceiling(max(t.total for t in turns))
    costs = [t.cost_usd for t in turns]
    priced = [c for c in costs if c is not None]
    cost_max = _nice_ceiling(max(priced)) if priced and max(priced) > 0 else None
    slot = plot_w / len(turns)
    bar = min(48.0, max(1.0, slot * 0.7))  # thin enough to read as bars when calls are few
    parts = [
        f'<svg class="usage-chart" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-label="Tokens and cost of each model call">',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="#888"/>',
    ]
    for fraction in (0, 0.25, 0.5, 0.75, 1):
        y = TOP + plot_h * (1 - fraction)
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="axis">'
            f"{_tokens_label(token_max * fraction)}</text>"
        )
        if cost_max is not None:
            parts.append(
                f'<text x="{LEFT + plot_w + 6}" y="{y + 4:.1f}" class="axis cost-axis">'
                f"${cost_max * fraction:.4g}</text>"
            )
    label_every = max(1, round(len(turns) / 20))
    for index, turn in enumerate(turns):
        x = LEFT + slot * index + (slot - bar) / 2
        y = TOP + plot_h
        parts.append(f'<a href="#{escape(turn.anchor)}"><g class="bar">')
        parts.append(f"<title>{escape(_tooltip(turn))}</title>")
        for (name, colour), value in zip(SERIES, turn.stack, strict=True):
            height = plot_h * value / token_max
            y -= height
            if height > 0:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{height:.1f}" '
                    f'fill="{colour}" data-series="{name}"/>'
                )
        parts.append("</g></a>")
        if index % label_every == 0:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{TOP + plot_h + 14}" text-anchor="middle" '
                f'class="axis">{index + 1}</text>'
            )
    if cost_max is not None:
        parts.append(_cost_line(turns, cost_max, slot, plot_h))
    parts.append(_legend(plot_h, cost_max is not None))
    parts.append("</svg>")
    return "".join(parts)


def _cost_line(turns: list[TurnUsage], cost_max: float, slot: float, plot_h: float) -> str:
    points: list[str] = []
    dots: list[str] = []
    for index, turn in enumerate(turns):
        if turn.cost_usd is None:
            continue
        x = LEFT + slot * (index + 0.5)
        y = TOP + plot_h * (1 - turn.cost_usd / cost_max)
        points.append(f"{x:.1f},{y:.1f}")
        dots.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{COST_COLOUR}">'
            f"<title>{escape(turn.label)}: ${turn.cost_usd:.4f}</title></circle>"
        )
    line = (
        f'<polyline class="cost-line" points="{" ".join(points)}" fill="none" '
        f'stroke="{COST_COLOUR}" stroke-width="1.5"/>'
    )
    return line + "".join(dots)


def _legend(plot_h: float, with_cost: bool) -> str:
    y = TOP + plot_h + 36
    items = [*SERIES, *((("cost per call (right axis)", COST_COLOUR),) if with_cost else ())]
    parts: list[str] = ['<g class="legend">']
    x = LEFT
    for name, colour in items:
        parts.append(
            f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14}" y="{y}" class="axis">{escape(name)}</text>'
        )
        x += 24 + 7 * len(name)
    parts.append(
        f'<text x="{LEFT}" y="{y + 16}" class="axis">model call → (tokens, left axis)</text>'
    )
    parts.append("</g>")
    return "".join(parts)
