"""Bar, line and timeline charts of the reports (docs/projections.md, "Reports"), drawn by
matplotlib through :func:`maai.projections.figures.render`: plain data in, one inline
``<svg>`` out (no script, no font or image from elsewhere, the same data give the same
bytes), so the run reports, the study reports and ``maai view`` draw with the same code.

Every chart has a title, a label with its unit on each axis, a legend where it draws more
than one series, and each datum as a ``mark`` with its value on hover. A chart with nothing
to draw is a short sentence saying so, never an empty frame. Without matplotlib, the line
saying how to get the plots (:data:`maai.projections.figures.NO_MATPLOTLIB`)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from maai.projections.figures import Canvas, render
from maai.projections.markup import Markup, paragraph

if TYPE_CHECKING:
    from matplotlib.artist import Artist

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000")
LEVEL_COLOUR = "#a40000"
HIGHLIGHT = "#009E73"
WIDTH = 6.4  # inches: a chart's default width (the page scales a wider one down to fit)
HEIGHT = 3.4
LEGEND_WIDTH = 1.7  # inches added on the right for a legend beside the axes
LEGEND_CHARS = 26  # characters of a legend's line that fit in it
PLOT_POINTS = WIDTH * 72 * 0.82  # roughly the axes' width in points, for label spacing
CHAR_POINTS = 4.6  # roughly one character's width in points at the tick labels' size
MAX_BAR = 48  # points


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
    counts: Sequence[tuple[float, int]] = ()
    """(x, n): how many observations the point at x stands for, written beside it."""


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
    """A value with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def nice_ticks(low: float, high: float, count: int = 5, *, whole: bool = False) -> list[float]:
    """Round values covering [low, high] (steps of 1, 2 or 5 times a power of ten; at least
    1 when ``whole``, for counts): e.g. a histogram's bin edges."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(step, 1)
    value = math.floor(low / step) * step
    ticks: list[float] = []
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def label_step(count: int, longest: int) -> int:
    """For ``label_every`` of a bar chart: name every n-th of ``count`` groups so that names
    of ``longest`` characters do not run into each other; n is 1, 2 or 5 times a power of
    ten, so the named groups fall on round places."""
    slot = PLOT_POINTS / max(count, 1)
    need = math.ceil((CHAR_POINTS * longest + 6) / slot)
    power = 1
    while True:
        for m in (1, 2, 5):
            if m * power >= need:
                return m * power
        power *= 10


def no_data(title: str, reason: str = "nothing to plot") -> Markup:
    return paragraph(f"{title}: {reason}.", "no-data")


def _legend_beside(canvas: Canvas, handles: Sequence[Artist] | None = None) -> None:
    """The legend right of the axes, each name wrapped to the legend's width (a long
    condition would otherwise squeeze the axes to a sliver)."""
    if handles is None:
        handles, _ = canvas.axes.get_legend_handles_labels()
    labels = [
        textwrap.fill(textwrap.shorten(str(h.get_label()), LEGEND_CHARS * 3), LEGEND_CHARS)
        for h in handles
    ]
    canvas.axes.legend(
        handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False
    )


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
) -> Markup:
    """One bar per label (negative values hang below zero); the options as for
    :func:`grouped_bars`."""
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
) -> Markup:
    """Bars per group, one per series side by side (or stacked, for parts of a total);
    ``whole``: counts, so the ticks are whole numbers; ``y_max``: the axis reaches at least
    this high (e.g. 1 for shares, so small shares look small); ``levels``: dashed horizontal
    reference lines; ``label_every``: name only every n-th group under the axis (each bar's
    hover text still names its group); ``show_values``: write each value over its bar where
    the bars are wide enough, a zero too, so that a zero reads apart from no value."""
    # A zero draws nothing (a hairline bar reads as an axis glitch); its group keeps its place.
    present = [v for s in series for v in s.values if v]
    if not groups or not present:
        known = groups and any(v is not None for s in series for v in s.values)
        return no_data(title, "0 in every group" if known else "nothing to plot")
    legend = len(series) > 1 or bool(levels)
    across = 1 if stacked else len(series)
    # Few groups would make slabs of bars: no bar is wider than MAX_BAR points.
    bar = min(0.8 / across, MAX_BAR * len(groups) / PLOT_POINTS)
    widest = max((len(num(v)) for s in series for v in s.values if v is not None), default=0)
    bar_points = bar * PLOT_POINTS / len(groups)
    show_values = show_values and not stacked and bar_points >= CHAR_POINTS * widest

    def draw(canvas: Canvas) -> None:
        axes = canvas.axes
        above = [0.0] * len(groups)
        below = [0.0] * len(groups)
        for s, one in enumerate(series):
            colour = PALETTE[s % len(PALETTE)]
            offset = 0.0 if stacked else (s - (across - 1) / 2) * bar
            drawn: list[tuple[float, float, float, str]] = []
            for g, group in enumerate(groups):
                value = one.values[g] if g < len(one.values) else None
                if show_values and value is not None:
                    axes.annotate(
                        num(value),
                        (g + offset, value),
                        xytext=(0, -9 if value < 0 else 2),
                        textcoords="offset points",
                        ha="center",
                        fontsize=7,
                    )
                if not value:
                    continue
                base = 0.0
                if stacked:
                    base = above[g] if value >= 0 else below[g]
                    if value >= 0:
                        above[g] += value
                    else:
                        below[g] += value
                drawn.append((g + offset, value, base, f"{group}, {one.label}: {num(value)}"))
            if drawn:
                # One call per series: a call per bar costs more than the bar.
                bars = axes.bar(
                    [x for x, _, _, _ in drawn],
                    [v for _, v, _, _ in drawn],
                    bar,
                    bottom=[b for _, _, b, _ in drawn],
                    color=colour,
                )
                for patch, (_, _, _, text) in zip(bars.patches, drawn, strict=True):
                    canvas.mark(patch, text)
        names = {level.label for level in levels}
        for level in levels:
            drawn = axes.axhline(
                level.y, color=LEVEL_COLOUR, ls="--", lw=1.2, label=level.label, zorder=0
            )
            canvas.mark(drawn, level.label, kind="level")
        if any(v < 0 for v in present) or below != [0.0] * len(groups):
            axes.axhline(0, color="#666", lw=0.8)
        every = max(label_every, 1)
        shown = range(0, len(groups), every)
        long = sum(len(groups[g]) for g in shown) * CHAR_POINTS > PLOT_POINTS * 0.9
        axes.set_xticks(
            list(shown),
            [textwrap.shorten(groups[g], 28) for g in shown],
            rotation=30 if long else 0,
            ha="right" if long else "center",
        )
        axes.set_xlim(-0.6, len(groups) - 0.4)
        if y_max is not None and axes.get_ylim()[1] < y_max:
            axes.set_ylim(top=y_max)
        if whole:
            from matplotlib.ticker import MaxNLocator

            axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel(textwrap.fill(x_label, 80))
        axes.set_ylabel(textwrap.fill(y_label, 30))
        axes.grid(axis="y", color="#e2e2e2")
        axes.set_axisbelow(True)
        if legend:
            # Every series is named, one with no bar (all zero, say) too.
            from matplotlib.patches import Patch

            handles: list[Artist] = [
                Patch(color=PALETTE[s % len(PALETTE)], label=one.label)
                for s, one in enumerate(series if len(series) > 1 else [])
            ]
            handles += [line for line in axes.get_lines() if line.get_label() in names]
            _legend_beside(canvas, handles)

    width = WIDTH + (LEGEND_WIDTH if legend else 0)
    return render(name, title, (width, HEIGHT), draw)


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
) -> Markup:
    """Lines through each series' points, a marker at every point (its n beside it where
    the line gives counts), error bars where it gives intervals. ``y_range`` fixes the scale
    (e.g. 0 to 100 for beliefs); ``x_ticks`` places labelled ticks (default: the distinct x
    values); ``rules`` draws dashed vertical reference lines, named in the legend;
    ``dodge``: the space between the lines at one x, as a share of the x axis' span, so
    that error bars of lines sharing their x values stand side by side (each point's hover
    text keeps its x)."""
    xs = sorted({x for line in lines for x, _ in line.points})
    if not xs:
        return no_data(title)
    span = max([xs[-1], *(r.x for r in rules)]) - min([xs[0], *(r.x for r in rules)]) or 1.0

    def draw(canvas: Canvas) -> None:
        axes = canvas.axes
        for index, line in enumerate(lines):
            colour = PALETTE[(index if line.colour is None else line.colour) % len(PALETTE)]
            shift = dodge * span * (index - (len(lines) - 1) / 2)
            points = sorted(line.points)
            (drawn,) = axes.plot(
                [x + shift for x, _ in points],
                [y for _, y in points],
                ls="--" if line.dashed else "-",
                lw=1.8,
                color=colour,
                label=line.label,
            )
            canvas.mark(drawn, line.label, kind="line")
            for x, low, high in line.intervals:
                bars = axes.errorbar(
                    [x + shift],
                    [(low + high) / 2],
                    yerr=[[(high - low) / 2]],
                    fmt="none",
                    ecolor=colour,
                    capsize=4,
                    lw=1.2,
                )
                text = f"{line.label} at {x_label} {num(x)}: {num(low)} to {num(high)}"
                canvas.mark(bars.lines[2][0], text, kind="interval")
            counts = dict(line.counts)
            (dots,) = axes.plot(
                [x + shift for x, _ in points], [y for _, y in points], "o", ms=5, color=colour
            )
            hovers = []
            for x, y in points:
                n = f" (n = {counts[x]})" if x in counts else ""
                hovers.append(f"{line.label}: {num(y)} at {x_label} {num(x)}{n}")
                if x in counts:
                    axes.annotate(
                        f"n={counts[x]}",
                        (x + shift, y),
                        # Neighbouring lines write theirs on opposite sides of the point.
                        xytext=(4, -9 if index % 2 == 0 else 3),
                        textcoords="offset points",
                        fontsize=7,
                        color=colour,
                    )
            canvas.marks(dots, hovers)
        for rule in rules:
            drawn = axes.axvline(rule.x, color=LEVEL_COLOUR, ls=":", lw=1.5, label=rule.label)
            canvas.mark(drawn, rule.label, kind="rule")
        if y_range is not None:
            pad = (y_range[1] - y_range[0]) * 0.03
            axes.set_ylim(y_range[0] - pad, y_range[1] + pad)
        ticks = x_ticks if x_ticks is not None else [(x, num(x)) for x in xs]
        axes.set_xticks([x for x, _ in ticks], [label for _, label in ticks])
        axes.set_xlabel(textwrap.fill(x_label, 80))
        axes.set_ylabel(textwrap.fill(y_label, 30))
        axes.grid(color="#e2e2e2")
        axes.set_axisbelow(True)
        if len(lines) > 1 or rules:
            _legend_beside(canvas)

    legend = len(lines) > 1 or bool(rules)
    return render(name, title, (WIDTH + (LEGEND_WIDTH if legend else 0), HEIGHT), draw)


SHAPES = {"circle": "o", "square": "s", "triangle": "^"}
LANE_INCHES = 0.75


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
    width: float = WIDTH,
) -> Markup:
    """Events in lanes along an x axis (e.g. the discussion's rounds): each mark a shape in
    its lane, a label under it; ``spans`` shade stretches of the axis (e.g. the round that
    reached a consensus). ``width``: inches, wider for many events (the page shrinks it to
    fit)."""
    if not marks:
        return no_data(title)
    start, end = x_range
    # Points per x unit, to keep a lane's labels from running into each other.
    per_unit = width * 72 * 0.85 / ((end - start) or 1)

    def lane_y(lane: str) -> float:
        return float(len(lanes) - 1 - lanes.index(lane))

    def draw(canvas: Canvas) -> None:
        axes = canvas.axes
        for one in spans:
            shaded = axes.axvspan(one.start, one.end, color=HIGHLIGHT, alpha=0.15, lw=0)
            canvas.mark(shaded, one.label, kind="span")
            axes.annotate(
                one.label,
                ((one.start + one.end) / 2, len(lanes) - 0.45),
                ha="center",
                fontsize=8,
                color="#00704f",
            )
        # A dashed line halfway between neighbouring ticks marks where one stretch (a round)
        # ends and the next begins; the tick's label sits in the middle of its stretch.
        for (left, _), (right, _) in zip(x_ticks, x_ticks[1:], strict=False):
            axes.axvline((left + right) / 2, color="#cccccc", ls="--", lw=0.8)
        label_ends: dict[str, list[float]] = {lane: [-1e9, -1e9] for lane in lanes}
        # One artist per look (shape, fill, colour), each mark with its own hover text.
        looks: dict[tuple[str, bool, bool], list[Mark]] = {}
        for mark in sorted(marks, key=lambda m: m.x):
            looks.setdefault((mark.shape, mark.filled, mark.highlight), []).append(mark)
            if not mark.label:
                continue
            # A label too close to the previous one in the lane drops to a second line.
            half = CHAR_POINTS * 1.1 * len(mark.label) / 2 / per_unit
            ends = label_ends[mark.lane]
            row = 0 if mark.x - half > ends[0] else 1
            ends[row] = mark.x + half
            axes.annotate(
                mark.label,
                (mark.x, lane_y(mark.lane)),
                xytext=(0, -16 - 9 * row),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
        for (shape, filled, highlight), alike in looks.items():
            colour = HIGHLIGHT if highlight else PALETTE[0]
            (drawn,) = axes.plot(
                [m.x for m in alike],
                [lane_y(m.lane) for m in alike],
                SHAPES.get(shape, "o"),
                ls="none",
                ms=9,
                mec=colour,
                mfc=colour if filled else "white",
                mew=1.5,
            )
            canvas.marks(drawn, [m.detail or m.label for m in alike])
        axes.set_yticks(
            [lane_y(lane) for lane in lanes], list(lanes), fontsize=9, fontweight="bold"
        )
        axes.set_ylim(-0.75, len(lanes) - 0.3)
        axes.set_xlim(start, end)
        axes.set_xticks([x for x, _ in x_ticks], [label for _, label in x_ticks])
        axes.tick_params(axis="x", length=0)
        axes.grid(axis="y", color="#e2e2e2")
        axes.set_axisbelow(True)
        axes.set_xlabel(x_label)

    return render(name, title, (width, 1.3 + LANE_INCHES * len(lanes)), draw)
