"""Plots drawn by matplotlib (the ``analysis`` extra) as inline SVG (docs/projections.md,
"Reports"): no script, no font or image from elsewhere, the same data give the same bytes
(``svg.hashsalt`` fixes the ids, no date is written). Every estimate has its interval drawn
and its n written by it; every axis has a label with its unit.

Without matplotlib a plot is a line saying how to get it."""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from maai.projections.markup import Markup, paragraph

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
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        return paragraph(NO_MATPLOTLIB, "no-data")
    with matplotlib.rc_context(
        {"svg.hashsalt": name, "svg.fonttype": "none", "font.size": 10, "font.family": "sans-serif"}
    ):
        width = max(4.8, 1.3 * len(estimates) + 2.2)
        figure, axes = pyplot.subplots(figsize=(width, 3.4))
        try:
            positions = list(range(len(estimates)))
            values = [e.value for e in estimates]
            below = [e.value - e.low if e.low is not None else 0.0 for e in estimates]
            above = [e.high - e.value if e.high is not None else 0.0 for e in estimates]
            drawn = axes.errorbar(
                positions, values, yerr=[below, above], fmt="o", color="#1f5fa8", capsize=5
            )
            drawn.lines[0].set_gid(POINTS)
            # Each level's n under its name: a point from one run must not read as a finding.
            ticks = [f"{textwrap.shorten(e.label, 24)}\nn = {e.n}" for e in estimates]
            axes.set_xticks(positions, ticks)
            axes.set_xlim(-0.6, len(estimates) - 0.4)
            if y_range is not None:
                axes.set_ylim(y_range[0], y_range[1] * 1.12)
            axes.set_title(textwrap.fill(title, int(width * 11)), fontsize=10)
            axes.set_xlabel(x_label)
            axes.set_ylabel(textwrap.fill(y_label, 30))
            axes.grid(axis="y", color="#e2e2e2")
            figure.tight_layout()
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None})
        finally:
            pyplot.close(figure)
    return Markup(_inline(buffer.getvalue(), name, title))


POINTS = "maai-points"
"""The group of the estimates' points: each point becomes a ``mark`` (as the other plots')."""


def _inline(svg: str, name: str, title: str) -> str:
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
    used = {*re.findall(r'href="#([^"]+)"', svg), POINTS}
    svg = re.sub(r' id="([^"]+)"', lambda m: m.group(0) if m.group(1) in used else "", svg)
    svg = re.sub(
        rf'<g id="{POINTS}">.*?</g>',
        lambda m: m.group(0).replace("<use ", '<use class="mark" ').replace(f' id="{POINTS}"', ""),
        svg,
        flags=re.S,
    )
    opening = svg.index(">") + 1
    return (
        svg[:opening].replace("<svg ", f'<svg class="plot mpl" data-plot="{name}" role="img" ', 1)
        + f"<title>{escape(title)}</title>"
        + svg[opening:]
    )
