"""Plots drawn by matplotlib (the ``analysis`` extra) as inline SVG (docs/projections.md,
"Reports"): no script, no font or image from elsewhere, the same data give the same bytes
(``svg.hashsalt`` fixes the ids, no date is written). Every estimate has its interval drawn
and its n written by it; every axis has a label with its unit.

Without matplotlib a plot is a line saying how to get it."""

from __future__ import annotations

import gc
import io
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from maai.projections.markup import Markup, paragraph

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

NO_MATPLOTLIB = "plots need matplotlib: pip install 'maai[analysis]'"


@dataclass(frozen=True)
class Estimate:
    """One level's estimate (a rate or a mean) with its interval and its n."""

    label: str
    value: float
    low: float | None
    high: float | None
    n: int


def interval_plot(
    name: str,
    title: str,
    estimates: Sequence[Estimate],
    *,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = None,
) -> Markup:
    """Points with their intervals as error bars, one per level, ``n = …`` under each
    level's name."""
    return grouped_interval_plot(
        name,
        title,
        [e.label for e in estimates],
        [f"n = {e.n}" for e in estimates],
        [Series("", list(estimates))],
        x_label=x_label,
        y_label=y_label,
        y_range=y_range,
    )


@dataclass(frozen=True)
class Series:
    """One series of a grouped plot: its estimate in each group (``None``: none there)."""

    label: str
    estimates: list[Estimate | None]


COLOURS = ("#1f5fa8", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#555555")


def grouped_interval_plot(
    name: str,
    title: str,
    groups: Sequence[str],
    group_notes: Sequence[str],
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = None,
) -> Markup:
    """Per group (a condition) a point per series with its interval as error bars, side by
    side; each group's note (its n) under its name. A point without an interval (a
    reference) is drawn as a cross."""
    width = max(4.8, (0.9 + 0.35 * len(series)) * len(groups) + 2.2)
    height = 3.6 if len(series) > 1 else 3.4

    def draw(canvas: Canvas) -> None:
        axes = canvas.axes
        step = 0.8 / max(len(series), 1)
        for j, one in enumerate(series):
            offset = (j - (len(series) - 1) / 2) * step if len(series) > 1 else 0.0
            colour = COLOURS[j % len(COLOURS)]
            points = [(i + offset, e) for i, e in enumerate(one.estimates) if e is not None]
            ranged = [(x, e) for x, e in points if e.low is not None and e.high is not None]
            bare = [(x, e) for x, e in points if e.low is None or e.high is None]
            if ranged:
                drawn = axes.errorbar(
                    [x for x, _ in ranged],
                    [e.value for _, e in ranged],
                    yerr=[
                        [e.value - (e.low or 0.0) for _, e in ranged],
                        [(e.high or 0.0) - e.value for _, e in ranged],
                    ],
                    fmt="o",
                    color=colour,
                    capsize=4,
                    label=one.label or None,
                )
                drawn.lines[0].set_gid(POINTS)
            if bare:
                (crosses,) = axes.plot(
                    [x for x, _ in bare],
                    [e.value for _, e in bare],
                    "x",
                    color=colour,
                    markersize=8,
                    label=None if ranged else one.label or None,
                )
                crosses.set_gid(POINTS)
        ticks = [
            f"{textwrap.shorten(g, 24)}\n{note}" if note else textwrap.shorten(g, 24)
            for g, note in zip(groups, group_notes, strict=True)
        ]
        axes.set_xticks(range(len(groups)), ticks)
        axes.set_xlim(-0.6, len(groups) - 0.4)
        if y_range is not None:
            axes.set_ylim(y_range[0], y_range[1] * 1.12)
        axes.set_xlabel(x_label)
        axes.set_ylabel(textwrap.fill(y_label, 30))
        axes.grid(axis="y", color="#e2e2e2")
        if len(series) > 1 and axes.get_legend_handles_labels()[0]:  # something drawn
            axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)

    return render(name, title, (width, height), draw)


class Canvas:
    """One figure being drawn: its axes, and the artists the page names by a class (a bar or
    a point is a ``mark``), each as a ``<g class="…">`` with its hover text as ``<title>``."""

    def __init__(self, figure: Figure, axes: Axes) -> None:
        self.figure = figure
        self.axes = axes
        self.named: list[tuple[str, str]] = []
        self.each: list[list[str]] = []

    def mark(self, artist: Artist, text: str, kind: str = "mark") -> None:
        artist.set_gid(f"{MARK}{len(self.named)}")
        self.named.append((kind, text))

    def marks(self, artist: Artist, texts: Sequence[str]) -> None:
        """A line's markers, one ``mark`` each with its own hover text, drawn by one artist
        (an artist per point costs more than the point)."""
        artist.set_gid(f"{EACH}{len(self.each)}")
        self.each.append(list(texts))


def render(
    name: str, title: str, size: tuple[float, float], draw: Callable[[Canvas], None]
) -> Markup:
    """A figure of ``size`` inches drawn by ``draw`` on one axes, titled, as inline SVG;
    without matplotlib, the line saying how to get it. The ``Figure`` is made directly, not
    through pyplot: no global backend or figure manager, nothing to close.

    A figure is a web of reference cycles (figure, axes, artists, transforms: 0.5-1 MB), freed
    only when Python's cycle collector next runs; a report's figures used to pile up until
    then, so its peak memory changed from one run to the next by several MB (the
    memory-by-run-length test's 2.0-4.1 KB per event). So each figure is collected as soon
    as its SVG is out, by a collection that scans only the objects made since the drawing
    began (:func:`gc.freeze` sets the older ones aside): milliseconds, not a full sweep."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return paragraph(NO_MATPLOTLIB, "no-data")
    gc.freeze()
    try:
        svg, named, each = _drawn(name, title, size, draw)
        gc.collect()  # the figure, unreachable now
    finally:
        gc.unfreeze()
    return Markup(_inline(svg, name, title, named, each))


def _drawn(
    name: str, title: str, size: tuple[float, float], draw: Callable[[Canvas], None]
) -> tuple[str, list[tuple[str, str]], list[list[str]]]:
    """The figure's SVG and its marks' hover texts; the figure is dropped on return."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {
            "svg.hashsalt": name,
            "svg.fonttype": "none",
            "font.size": 10,
            "font.sans-serif": ["DejaVu Sans"],
            "font.family": "sans-serif",
        }
    ):
        figure = Figure(figsize=size)
        canvas = Canvas(figure, figure.subplots())
        draw(canvas)
        canvas.axes.set_title(textwrap.fill(title, int(size[0] * 11)), fontsize=10)
        figure.tight_layout()
        # Laid out once: left set, the engine would make savefig lay it out again.
        figure.set_layout_engine("none")
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue(), canvas.named, canvas.each


POINTS = "maai-points"
"""The group of the estimates' points: each point becomes a ``mark`` (as the other plots')."""
EACH = "maai-each-"
"""The id prefix of a line whose markers are marks each (:meth:`Canvas.marks`)."""
MARK = "maai-mark-"
"""The id prefix of a mark with hover text (:meth:`Canvas.mark`); the page gets a class."""


def _inline(
    svg: str,
    name: str,
    title: str,
    named: Sequence[tuple[str, str]] = (),
    each: Sequence[Sequence[str]] = (),
) -> str:
    """matplotlib's SVG made fit to sit in a page that names nothing outside itself: no XML
    declaration or doctype, no namespace or metadata URLs (HTML knows SVG's namespaces),
    no clip paths (``url(#…)``; the axes' limits already hold every mark), no style sheet,
    no id that another plot would repeat."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r"<clipPath .*?</clipPath>", "", svg, flags=re.S)
    svg = re.sub(r' clip-path="url\(#[^)]*\)"', "", svg)
    svg = re.sub(r' xmlns(:xlink)?="[^"]*"', "", svg)
    svg = re.sub(r"<style .*?</style>", "", svg, flags=re.S)  # it would style the whole page
    svg = re.sub(r"<defs>\s*</defs>", "", svg)
    # Ids only where a mark is used again (salted by the plot's name, so unique in the page):
    # ``figure_1`` and its like would repeat in every plot.
    used = {
        *re.findall(r'href="#([^"]+)"', svg),
        POINTS,
        *(f"{MARK}{i}" for i in range(len(named))),
        *(f"{EACH}{i}" for i in range(len(each))),
    }
    svg = re.sub(r' id="([^"]+)"', lambda m: m.group(0) if m.group(1) in used else "", svg)
    svg = re.sub(
        rf'<g id="{POINTS}">.*?</g>',
        lambda m: m.group(0).replace("<use ", '<use class="mark" ').replace(f' id="{POINTS}"', ""),
        svg,
        flags=re.S,
    )
    svg = re.sub(
        rf'<g id="{MARK}(\d+)">',
        lambda m: '<g class="{}"><title>{}</title>'.format(*map(escape, named[int(m.group(1))])),
        svg,
    )
    # A line's markers sit in the one group after its marker's definition.
    svg = re.sub(
        rf'<g id="{EACH}(\d+)">(.*?</defs>\s*<g>)(.*?)</g>',
        lambda m: "<g>" + m.group(2) + _each_marked(m.group(3), each[int(m.group(1))]) + "</g>",
        svg,
        flags=re.S,
    )
    opening = svg.index(">") + 1
    return (
        svg[:opening].replace("<svg ", f'<svg class="plot mpl" data-plot="{name}" role="img" ', 1)
        + f"<title>{escape(title)}</title>"
        + svg[opening:]
    )


def _each_marked(group: str, texts: Sequence[str]) -> str:
    """Each marker (``<use>``) of a line made a ``mark`` with its text, in the data's order;
    where matplotlib left some out (outside the figure) no marker gets a text that is not
    its own: they are marks without one."""
    uses = re.findall(r"<use [^>]*/>", group)
    if len(uses) != len(texts):
        return group.replace("<use ", '<use class="mark" ')
    parts = iter(texts)
    return re.sub(
        r"<use [^>]*/>",
        lambda m: f'<g class="mark"><title>{escape(next(parts))}</title>{m.group(0)}</g>',
        group,
    )
