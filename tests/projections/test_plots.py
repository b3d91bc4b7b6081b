"""The SVG plot helpers of the reports: plain data in, one labelled ``<svg>`` out, one mark
per datum, placed where its value says; nothing to draw gives a sentence, not an empty frame."""

from __future__ import annotations

import re

import pytest

from maai.projections.plots import (
    Line,
    Mark,
    Rule,
    Series,
    Span,
    bar_chart,
    grouped_bars,
    line_chart,
    nice_ticks,
    timeline,
)


def marks(svg: str) -> list[str]:
    return re.findall(r'<(?:rect|circle|polygon) class="mark"[^>]*>', svg)


def attribute(element: str, name: str) -> float:
    match = re.search(rf' {name}="([-\d.]+)"', element)
    assert match, (name, element)
    return float(match.group(1))


def test_a_plot_is_a_labelled_image() -> None:
    svg = grouped_bars(
        "counts",
        "Counts <per> step",
        ["1.1", "1.2"],
        [Series("a", [1, 2]), Series("b", [3, None])],
        x_label="step",
        y_label="participants",
    )
    assert svg.startswith('<svg class="plot" role="img" data-plot="counts"')
    assert "<title>Counts &lt;per&gt; step</title>" in svg
    assert ">step</text>" in svg and ">participants</text>" in svg
    assert len(marks(svg)) == 3  # the missing value draws nothing
    assert ">a</text>" in svg and ">b</text>" in svg  # a legend for several series


def test_bar_heights_follow_the_values_and_negatives_hang_below_zero() -> None:
    svg = bar_chart(
        "points", "Points", ["A", "B", "C"], [50, -90, 100], x_label="agent", y_label="points"
    )
    a, b, c = marks(svg)
    assert attribute(c, "height") == pytest.approx(2 * attribute(a, "height"), abs=0.02)
    # A's bar ends at zero from above, B's starts there going down.
    assert attribute(a, "y") + attribute(a, "height") == pytest.approx(attribute(b, "y"), abs=0.02)


def test_stacked_bars_sit_on_each_other() -> None:
    svg = grouped_bars(
        "pay",
        "Pay",
        ["alice"],
        [Series("1", [3]), Series("2", [1])],
        x_label="who",
        y_label="$",
        stacked=True,
    )
    first, second = marks(svg)
    assert attribute(second, "y") + attribute(second, "height") == pytest.approx(
        attribute(first, "y"), abs=0.02
    )
    assert attribute(first, "x") == attribute(second, "x")


def test_a_line_chart_marks_every_point_on_a_fixed_scale() -> None:
    svg = line_chart(
        "beliefs",
        "Beliefs",
        [Line("Ada", [(0, 65), (3, 70)]), Line("Ben's guess", [(2, 40)], dashed=True)],
        x_label="messages",
        y_label="belief",
        y_range=(0, 100),
    )
    points = marks(svg)
    assert len(points) == 3 and svg.count("<polyline") == 1  # one point makes no line
    assert 'stroke-dasharray="5 3"' in svg  # the dashed line's legend key
    top = [attribute(p, "cy") for p in points]
    assert top[0] > top[1]  # 65 is drawn lower than 70
    assert ">100</text>" in svg


def test_a_timeline_places_marks_in_their_lanes_and_shades_spans() -> None:
    svg = timeline(
        "votes",
        "Votes",
        ["polls", "ballots"],
        [
            Mark(1.2, "polls", "2/3 yes", filled=False),
            Mark(2.0, "ballots", "consensus", shape="square", highlight=True),
        ],
        x_label="round",
        x_ticks=[(1, "round 1"), (2, "round 2")],
        x_range=(0.5, 2.5),
        spans=[Span(1.5, 2.5, "consensus in round 2")],
    )
    poll, ballot = marks(svg)
    assert attribute(poll, "cy") < attribute(ballot, "y")
    assert 'fill="#fff"' in poll and 'class="span"' in svg
    assert ">consensus in round 2</text>" in svg


@pytest.mark.parametrize(
    "empty",
    [
        grouped_bars("x", "Nothing", ["a"], [Series("s", [None])], x_label="", y_label=""),
        bar_chart("x", "Nothing", [], [], x_label="", y_label=""),
        line_chart("x", "Nothing", [Line("a", [])], x_label="", y_label=""),
        timeline("x", "Nothing", ["l"], [], x_label="", x_ticks=[], x_range=(0, 1)),
    ],
)
def test_nothing_to_draw_is_said_not_drawn(empty: str) -> None:
    assert empty == '<p class="no-data">Nothing: nothing to plot.</p>'


def test_ticks_are_round_and_cover_the_values() -> None:
    assert nice_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(-90, 50)[0] <= -90 and nice_ticks(-90, 50)[-1] >= 50
    assert nice_ticks(0, 2, whole=True) == [0, 1, 2]


def test_a_rule_is_drawn_where_its_x_is_and_widens_the_axis_to_show_it() -> None:
    svg = line_chart(
        "rates",
        "Rates",
        [Line("all", [(0.8, 0.5), (0.9, 0.25)], intervals=[(0.8, 0.2, 0.8), (0.9, 0.1, 0.5)])],
        x_label="u",
        y_label="share",
        y_range=(0, 1),
        rules=[Rule(0.7, "u* = 0.700")],
    )
    rule = re.search(r'<line class="rule" x1="([\d.]+)"', svg)
    points = [attribute(m, "cx") for m in marks(svg)]
    assert rule is not None and ">u* = 0.700</text>" in svg
    # 0.7 is now the axis' low end: left of both points, as far from 0.8 as 0.8 from 0.9.
    assert float(rule[1]) < points[0] < points[1]
    assert points[0] - float(rule[1]) == pytest.approx(points[1] - points[0], abs=0.02)
    bars = re.findall(r'<path class="interval" d="M([\d.]+) ([\d.]+)V([\d.]+)', svg)
    assert [float(x) for x, _, _ in bars] == pytest.approx(points)
    # Each error bar spans its interval: 0.2 to 0.8 is 0.6 of the axis, 0.1 to 0.5 is 0.4.
    spans = [float(low) - float(high) for _, low, high in bars]
    assert spans[0] / spans[1] == pytest.approx(0.6 / 0.4, rel=0.01)


def test_bars_that_are_all_zero_say_so() -> None:
    svg = bar_chart("x", "Rates", ["a", "b"], [0, 0], x_label="", y_label="", y_max=1)
    assert svg == '<p class="no-data">Rates: 0 in every group.</p>'
    drawn = bar_chart("x", "Rates", ["a", "b"], [0.2, 0], x_label="", y_label="", y_max=1)
    assert ">1</text>" in drawn  # the axis reaches 1, so a share of 0.2 looks small
