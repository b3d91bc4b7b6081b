"""Small SVG plots for the HTML reports (docs/projections.md, "Reports"): bar charts, grouped
or stacked bars, line charts with markers, and a timeline of marked events.

Each helper takes plain data (labels and numbers) and returns one ``<svg>`` element as text,
so a report of one run and a report of many runs by condition draw with the same code. Every
plot is self-contained (no script, font or image from elsewhere), carries ``role="img"``, a
``<title>``, axis labels and ``data-plot="<name>"``, and draws each datum as an element of
class ``mark`` with its own ``<title>`` (the value shown on hover). Numbers are written with
fixed precision: the same data give the same bytes. A plot with nothing to draw is a short
paragraph saying so, never an empty frame. The ``<svg>`` has no ``xmlns``: inside an HTML
page the parser puts it in the SVG namespace, and the report then names no URL at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000")

LEVEL_COLOUR = "#a40000"
WIDTH = 640
HEIGHT = 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 40, 56
MAX_BAR = 90


@dataclass(frozen=True)
class Series:
    """One named row of values, one per group (``None``: no value there)."""

    label: str
    values: Sequence[float | None]


@dataclass(frozen=True)
class Line:
    """One line of a line chart: its (x, y) points, drawn in x order."""

    label: str
    points: Sequence[tuple[float, float]]
    dashed: bool = False
    colour: int | None = None
    """Index into the palette (default: the line's position), e.g. to draw a prediction of
    another series' value in that series' colour."""
    intervals: Sequence[tuple[float, float, float]] = ()
    """(x, low, high): an interval around the point at x (e.g. a 95% confidence interval),
    drawn as an error bar with caps."""


@dataclass(frozen=True)
class Rule:
    """A labelled vertical reference line across a line chart at ``x`` (e.g. a threshold)."""

    x: float
    label: str


@dataclass(frozen=True)
class Level:
    """A horizontal reference line across a bar chart at ``y`` (e.g. the endowment a
    contribution is out of), dashed, named in the legend; the y axis widens to show it."""

    y: float
    label: str


@dataclass(frozen=True)
class Mark:
    """One event on a timeline: at ``x`` in lane ``lane``, with a short ``label`` under it
    and a longer ``detail`` on hover. ``filled`` false draws an outline (e.g. a failed poll);
    ``highlight`` draws it in the highlight colour (e.g. a consensus)."""

    x: float
    lane: str
    label: str
    detail: str = ""
    shape: str = "circle"  # circle, square or triangle
    filled: bool = True
    highlight: bool = False


@dataclass(frozen=True)
class Span:
    """A highlighted stretch of a timeline's x axis, with a label at its top."""

    start: float
    end: float
    label: str


def num(value: float) -> str:
    """A coordinate or value with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def nice_ticks(low: float, high: float, count: int = 5, *, whole: bool = False) -> list[float]:
    """Round tick values covering [low, high] (steps of 1, 2 or 5 times a power of ten; at
    least 1 when ``whole``, for counts)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(step, 1)
    first = math.floor(low / step) * step
    ticks: list[float] = []
    value = first
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def label_step(count: int, longest: int) -> int:
    """For ``label_every`` of a bar chart: name every n-th of ``count`` groups so that names
    of ``longest`` characters do not run into each other; n is 1, 2 or 5 times a power of
    ten, so the named groups fall on round places."""
    slot = (WIDTH - LEFT - RIGHT) / max(count, 1)
    need = math.ceil((CHAR_WIDTH * longest + 8) / slot)
    power = 1
    while True:
        for m in (1, 2, 5):
            if m * power >= need:
                return m * power
        power *= 10


def no_data(title: str, reason: str = "nothing to plot") -> str:
    return f'<p class="no-data">{escape(title)}: {escape(reason)}.</p>'


@dataclass(frozen=True)
class Key:
    """One legend entry: a label in a colour, drawn as a solid or dashed stroke."""

    label: str
    colour: str
    dashed: bool = False


LEGEND_ROW = 16
CHAR_WIDTH = 6.5  # roughly, at the legend's 11px: enough to keep entries from overlapping


def _legend(keys: Sequence[Key]) -> tuple[list[str], int]:
    """The legend's SVG parts, wrapped into rows under the title, and the number of rows."""
    parts: list[str] = []
    x, row = float(LEFT), 0
    for key in keys:
        width = 28 + CHAR_WIDTH * len(key.label)
        if x + width > WIDTH - RIGHT and x > LEFT:
            x, row = float(LEFT), row + 1
        y = 30 + LEGEND_ROW * row
        dash = ' stroke-dasharray="5 3"' if key.dashed else ""
        parts.append(
            f'<line x1="{num(x)}" x2="{num(x + 16)}" y1="{y}" y2="{y}" stroke="{key.colour}" '
            f'stroke-width="4"{dash}/><text class="legend" x="{num(x + 20)}" y="{y}" '
            f'dominant-baseline="middle">{escape(key.label)}</text>'
        )
        x += width
    return parts, (row + 1 if keys else 0)


class _Frame:
    """The drawing area of one plot, its legend and its y scale; collects the SVG parts."""

    def __init__(
        self,
        name: str,
        title: str,
        low: float,
        high: float,
        keys: Sequence[Key] = (),
        *,
        whole: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.ticks = nice_ticks(low, high, whole=whole)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.parts, rows = _legend(keys)
        # Below the title and the legend's last row, with a little air above the tallest bar.
        self.top = TOP + 8 + LEGEND_ROW * (rows - 1) if rows else TOP - 12
        self.height = HEIGHT + self.top - TOP

    @property
    def plot_width(self) -> float:
        return WIDTH - LEFT - RIGHT

    @property
    def base(self) -> float:
        return self.height - BOTTOM

    def y(self, value: float) -> float:
        span = self.high - self.low or 1
        return self.top + (self.base - self.top) * (self.high - value) / span

    def y_axis(self, label: str) -> None:
        for tick in self.ticks:
            y = num(self.y(tick))
            self.parts.append(
                f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>'
                f'<text class="tick" x="{LEFT - 6}" y="{y}" text-anchor="end" '
                f'dominant-baseline="middle">{num(tick)}</text>'
            )
        middle = num((self.top + self.base) / 2)
        self.parts.append(
            f'<text class="axis-label" x="14" y="{middle}" text-anchor="middle" '
            f'transform="rotate(-90 14 {middle})">{escape(label)}</text>'
        )

    def x_axis(self, label: str, ticks: Sequence[tuple[float, str]]) -> None:
        base = num(self.y(0) if self.low <= 0 <= self.high else self.base)
        self.parts.append(
            f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{base}" y2="{base}"/>'
        )
        for x, text in ticks:
            self.parts.append(
                f'<text class="tick" x="{num(x)}" y="{num(self.base + 16)}" '
                f'text-anchor="middle">{escape(text)}</text>'
            )
        self.parts.append(
            f'<text class="axis-label" x="{num(LEFT + self.plot_width / 2)}" '
            f'y="{num(self.height - 8)}" text-anchor="middle">{escape(label)}</text>'
        )

    def level(self, level: Level) -> None:
        """A dashed horizontal line at ``level.y`` (the legend names it)."""
        y = num(self.y(level.y))
        self.parts.append(
            f'<line class="level" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}" '
            f'stroke="{LEVEL_COLOUR}" stroke-width="1.5" stroke-dasharray="5 3">'
            f"<title>{escape(level.label)}</title></line>"
        )

    def value_label(self, x: float, value: float) -> None:
        """``value`` written just above the end of its bar at ``x`` (below, for a negative),
        with a halo of the background so that a level line behind it does not cross it."""
        y = self.y(value) + (12 if value < 0 else -4)
        self.parts.append(
            f'<text class="value" x="{num(x)}" y="{num(y)}" text-anchor="middle" '
            f'paint-order="stroke" stroke="#fcfcfc" stroke-width="3">{num(value)}</text>'
        )

    def svg(self) -> str:
        return _svg(self.name, self.title, self.height, self.parts)


def _svg(name: str, title: str, height: float, parts: Sequence[str], width: int = WIDTH) -> str:
    return (
        f'<svg class="plot" role="img" data-plot="{escape(name)}" '
        f'viewBox="0 0 {width} {num(height)}" width="{width}" height="{num(height)}">'
        f"<title>{escape(title)}</title>"
        f'<text class="plot-title" x="{LEFT}" y="14">{escape(title)}</text>'
        + "".join(parts)
        + "</svg>"
    )


def _value_range(values: Sequence[float]) -> tuple[float, float]:
    return min(0.0, *values), max(0.0, *values)


def bar_chart(
    name: str,
    title: str,
    labels: Sequence[str],
    values: Sequence[float | None],
    *,
    x_label: str,
    y_label: str,
    whole: bool = False,
    y_max: float | None = None,
    levels: Sequence[Level] = (),
    label_every: int = 1,
    show_values: bool = False,
) -> str:
    """One bar per label (negative values hang below zero); ``whole``: counts, so the
    ticks are whole numbers; ``y_max``, ``levels``, ``label_every`` and ``show_values`` as
    for :func:`grouped_bars`."""
    return grouped_bars(
        name,
        title,
        labels,
        [Series(y_label, values)],
        x_label=x_label,
        y_label=y_label,
        whole=whole,
        y_max=y_max,
        levels=levels,
        label_every=label_every,
        show_values=show_values,
    )


def grouped_bars(
    name: str,
    title: str,
    groups: Sequence[str],
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    stacked: bool = False,
    whole: bool = False,
    y_max: float | None = None,
    levels: Sequence[Level] = (),
    label_every: int = 1,
    show_values: bool = False,
) -> str:
    """Bars per group, one per series side by side (or stacked, for parts of a total);
    ``whole``: counts, so the ticks are whole numbers; ``y_max``: the axis reaches at least
    this high (e.g. 1 for shares, so small shares look small); ``levels``: dashed horizontal
    reference lines; ``label_every``: name only every n-th group under the axis (many narrow
    groups, e.g. ticks, would write their names over each other; each bar's hover text
    still names its group); ``show_values``: write each value over its bar (side-by-side
    bars wide enough to hold them), a zero too, at the axis, so that a zero reads apart from
    no value."""
    # A zero draws nothing (a hairline bar reads as an axis glitch); its group keeps its place.
    present = [v for s in series for v in s.values if v]
    if not groups or not present:
        known = groups and any(v is not None for s in series for v in s.values)
        return no_data(title, "0 in every group" if known else "nothing to plot")
    if stacked:
        column = [[s.values[g] or 0 for s in series] for g in range(len(groups))]
        heights = [sum(v for v in c if v > 0) for c in column]
        depths = [sum(v for v in c if v < 0) for c in column]
        low, high = _value_range([*heights, *depths])
    else:
        low, high = _value_range(present)
    if y_max is not None:
        high = max(high, y_max)
    if levels:
        low = min(low, *(level.y for level in levels))
        high = max(high, *(level.y for level in levels))
    keys = [Key(s.label, PALETTE[i % len(PALETTE)]) for i, s in enumerate(series)]
    keys = keys if len(series) > 1 else []
    keys += [Key(level.label, LEVEL_COLOUR, dashed=True) for level in levels]
    frame = _Frame(name, title, low, high, keys, whole=whole)
    frame.y_axis(y_label)
    # Behind the bars: a bar reaching past a level hides it, the gaps between bars show it.
    for level in levels:
        frame.level(level)
    slot = frame.plot_width / len(groups)
    across = 1 if stacked else len(series)
    # Few groups would make slabs of bars: no bar is wider than MAX_BAR, the group centred.
    bar = min(slot * 0.8 / across, MAX_BAR)
    # Values are written only where every one fits over its bar (many narrow bars: none).
    widest = max((len(num(v)) for s in series for v in s.values if v is not None), default=0)
    show_values = show_values and not stacked and bar >= CHAR_WIDTH * widest
    ticks: list[tuple[float, str]] = []
    for g, group in enumerate(groups):
        start = LEFT + slot * g + (slot - bar * across) / 2
        if g % max(label_every, 1) == 0:
            ticks.append((LEFT + slot * (g + 0.5), group))
        below = above = 0.0
        for s, one in enumerate(series):
            value = one.values[g] if g < len(one.values) else None
            if show_values and value is not None:
                frame.value_label(start + bar * (s + 0.5), value)
            if not value:
                continue
            if stacked:
                base = above if value >= 0 else below
                top = base + value
                above, below = (top, below) if value >= 0 else (above, top)
                x = start
            else:
                base, top = 0.0, value
                x = start + bar * s
            y0, y1 = sorted((frame.y(base), frame.y(top)))
            colour = PALETTE[s % len(PALETTE)]
            frame.parts.append(
                f'<rect class="mark" x="{num(x)}" y="{num(y0)}" width="{num(bar)}" '
                f'height="{num(max(y1 - y0, 0.5))}" fill="{colour}"><title>'
                f"{escape(group)}, {escape(one.label)}: {num(value)}</title></rect>"
            )
    frame.x_axis(x_label, ticks)
    return frame.svg()


def line_chart(
    name: str,
    title: str,
    lines: Sequence[Line],
    *,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = None,
    x_ticks: Sequence[tuple[float, str]] | None = None,
    rules: Sequence[Rule] = (),
    dodge: float = 0,
) -> str:
    """Lines through each series' points, a marker at every point, error bars where a line
    gives intervals. ``y_range`` fixes the scale (e.g. 0 to 100 for beliefs); ``x_ticks``
    places labelled ticks (default: the distinct x values); ``rules`` draws dashed vertical
    reference lines (the x axis widens to show them); ``dodge``: pixels between the lines
    at one x, so that error bars of lines sharing their x values (rounds, conditions) stand
    side by side instead of over each other (each point's hover text keeps its x)."""
    xs = sorted({x for line in lines for x, _ in line.points})
    if not xs:
        return no_data(title)
    ys = [y for line in lines for _, y in line.points]
    ys += [end for line in lines for _, low, high in line.intervals for end in (low, high)]
    low, high = y_range if y_range is not None else (min(ys), max(ys))
    colours = [
        PALETTE[(i if line.colour is None else line.colour) % len(PALETTE)]
        for i, line in enumerate(lines)
    ]
    keys = [Key(line.label, c, line.dashed) for line, c in zip(lines, colours, strict=True)]
    frame = _Frame(name, title, low, high, keys)
    frame.y_axis(y_label)
    x_low = min(xs[0], *(rule.x for rule in rules)) if rules else xs[0]
    x_high = max(xs[-1], *(rule.x for rule in rules)) if rules else xs[-1]
    margin = frame.plot_width * 0.05

    def x_at(x: float) -> float:
        if x_high == x_low:
            return LEFT + frame.plot_width / 2
        return LEFT + margin + (frame.plot_width - 2 * margin) * (x - x_low) / (x_high - x_low)

    for rule in rules:
        rule_x = num(x_at(rule.x))
        frame.parts.append(
            f'<line class="rule" x1="{rule_x}" x2="{rule_x}" y1="{num(frame.top)}" '
            f'y2="{num(frame.base)}" stroke="#a40000" stroke-width="1.5" '
            f'stroke-dasharray="4 3"/><text class="rule-label" x="{rule_x}" '
            f'y="{num(frame.top - 3)}" text-anchor="middle">{escape(rule.label)}</text>'
        )
    for index, (line, colour) in enumerate(zip(lines, colours, strict=True)):
        shift = dodge * (index - (len(lines) - 1) / 2)  # the lines centred on each x
        for x, low_end, high_end in line.intervals:
            at, y0, y1 = num(x_at(x) + shift), num(frame.y(low_end)), num(frame.y(high_end))
            frame.parts.append(
                f'<path class="interval" d="M{at} {y0}V{y1}M{num(x_at(x) + shift - 5)} {y0}h10'
                f'M{num(x_at(x) + shift - 5)} {y1}h10" stroke="{colour}" stroke-width="1.5" '
                f'fill="none"><title>{escape(line.label)} at {escape(x_label)} {num(x)}: '
                f"{num(low_end)} to {num(high_end)}</title></path>"
            )
        points = sorted(line.points)
        if len(points) > 1:
            path = " ".join(f"{num(x_at(x) + shift)},{num(frame.y(y))}" for x, y in points)
            dash = ' stroke-dasharray="6 4"' if line.dashed else ""
            frame.parts.append(
                f'<polyline class="line" points="{path}" fill="none" stroke="{colour}" '
                f'stroke-width="2"{dash}/>'
            )
        for x, y in points:
            frame.parts.append(
                f'<circle class="mark" cx="{num(x_at(x) + shift)}" cy="{num(frame.y(y))}" r="4" '
                f'fill="{colour}"><title>{escape(line.label)}: {num(y)} at {escape(x_label)} '
                f"{num(x)}</title></circle>"
            )
    ticks = x_ticks if x_ticks is not None else [(x, num(x)) for x in xs]
    frame.x_axis(x_label, [(x_at(x), text) for x, text in ticks])
    return frame.svg()


HIGHLIGHT = "#009E73"
LANE_HEIGHT = 56


def timeline(
    name: str,
    title: str,
    lanes: Sequence[str],
    marks: Sequence[Mark],
    *,
    x_label: str,
    x_ticks: Sequence[tuple[float, str]],
    x_range: tuple[float, float],
    spans: Sequence[Span] = (),
    width: int = WIDTH,
) -> str:
    """Events in lanes along an x axis (e.g. the discussion's rounds): each mark a shape in
    its lane, a label under it; ``spans`` shade stretches of the axis (e.g. the round that
    reached a consensus). ``width``: wider for many events (the page shrinks it to fit)."""
    if not marks:
        return no_data(title)
    label_width = 100
    height = TOP + LANE_HEIGHT * len(lanes) + 44
    start, end = x_range
    inner = width - label_width - RIGHT - 8

    def x_at(x: float) -> float:
        return label_width + inner * (x - start) / ((end - start) or 1)

    def lane_y(lane: str) -> float:
        return TOP + LANE_HEIGHT * lanes.index(lane) + LANE_HEIGHT / 2 - 8

    parts: list[str] = []
    bottom = TOP + LANE_HEIGHT * len(lanes)
    for span in spans:
        x0, x1 = x_at(span.start), x_at(span.end)
        # The label stays inside the frame even for a span at its edge.
        centre = min(max((x0 + x1) / 2, label_width + 70), width - RIGHT - 70)
        parts.append(
            f'<rect class="span" x="{num(x0)}" y="{TOP - 4}" width="{num(x1 - x0)}" '
            f'height="{bottom - TOP + 4}" fill="{HIGHLIGHT}" fill-opacity="0.15"/>'
            f'<text class="span-label" x="{num(centre)}" y="{TOP - 8}" '
            f'text-anchor="middle">{escape(span.label)}</text>'
        )
    for lane in lanes:
        y = num(lane_y(lane))
        parts.append(
            f'<line class="grid" x1="{label_width}" x2="{width - RIGHT}" y1="{y}" y2="{y}"/>'
            f'<text class="lane" x="{label_width - 8}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{escape(lane)}</text>'
        )
    # A dashed line halfway between neighbouring ticks marks where one stretch (a round)
    # ends and the next begins; the tick's label sits in the middle of its stretch.
    for (left, _), (right, _) in zip(x_ticks, x_ticks[1:], strict=False):
        middle = num(x_at((left + right) / 2))
        parts.append(
            f'<line class="grid" x1="{middle}" x2="{middle}" y1="{TOP}" y2="{bottom}" '
            f'stroke-dasharray="3 3"/>'
        )
    for x, text in x_ticks:
        parts.append(
            f'<text class="tick" x="{num(x_at(x))}" y="{bottom + 16}" '
            f'text-anchor="middle">{escape(text)}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{num(label_width + inner / 2)}" y="{height - 6}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    label_ends: dict[str, list[float]] = {lane: [-1e9, -1e9] for lane in lanes}
    for mark in sorted(marks, key=lambda m: m.x):
        x = x_at(mark.x)
        # Labels too close to the previous one in the lane drop to a second line.
        half = CHAR_WIDTH * len(mark.label) / 2
        ends = label_ends[mark.lane]
        line = 0 if x - half > ends[0] + 4 else 1
        if mark.label:
            ends[line] = x + half
        parts.append(_timeline_mark(mark, x, lane_y(mark.lane), line))
    return _svg(name, title, height, parts, width)


def _timeline_mark(mark: Mark, x: float, y: float, label_line: int) -> str:
    colour = HIGHLIGHT if mark.highlight else PALETTE[0]
    fill = colour if mark.filled else "#fff"
    paint = f'fill="{fill}" stroke="{colour}" stroke-width="2"'
    size = 7
    hover = f"<title>{escape(mark.detail or mark.label)}</title>"
    if mark.shape == "square":
        shape = (
            f'<rect class="mark" x="{num(x - size)}" y="{num(y - size)}" width="{2 * size}" '
            f'height="{2 * size}" {paint}>{hover}</rect>'
        )
    elif mark.shape == "triangle":
        corners = " ".join(
            f"{num(cx)},{num(cy)}"
            for cx, cy in ((x, y - size), (x + size, y + size), (x - size, y + size))
        )
        shape = f'<polygon class="mark" points="{corners}" {paint}>{hover}</polygon>'
    else:
        shape = (
            f'<circle class="mark" cx="{num(x)}" cy="{num(y)}" r="{size}" {paint}>{hover}</circle>'
        )
    if not mark.label:
        return shape
    return shape + (
        f'<text class="mark-label" x="{num(x)}" y="{num(y + size + 13 + 12 * label_line)}" '
        f'text-anchor="middle">{escape(mark.label)}</text>'
    )
