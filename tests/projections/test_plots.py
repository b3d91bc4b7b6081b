"""The SVG plot helpers of the reports: plain data in, one labelled ``<svg>`` out, one mark
per datum, placed where its value says; nothing to draw gives a sentence, not an empty frame."""

from __future__ import annotations

import re

import pytest

from maai.projections.plots import (
    Level,
    Line,
    Mark,
    Rule,
    Series,
    Span,
    bar_chart,
    grouped_bars,
    label_step,
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


def test_a_level_is_drawn_where_its_y_is_and_named_in_the_legend() -> None:
    svg = grouped_bars(
        "given",
        "Given",
        ["round 1"],
        [Series("Ann", [5]), Series("Ben", [10])],
        x_label="round",
        y_label="points",
        levels=[Level(20, "endowment 20")],
    )
    level = re.search(r'<line class="level"[^>]* y1="([\d.]+)"', svg)
    ann, ben = marks(svg)
    assert level is not None and ">endowment 20</text>" in svg  # the axis widened to 20
    base = attribute(ben, "y") + attribute(ben, "height")
    # 10 is half of 20: Ben's bar reaches halfway from the axis to the level, Ann's a quarter.
    assert base - attribute(ben, "y") == pytest.approx((base - float(level[1])) / 2, abs=0.02)
    assert attribute(ann, "height") == pytest.approx(attribute(ben, "height") / 2, abs=0.02)


def test_shown_values_are_written_over_their_bars_a_zero_too() -> None:
    svg = bar_chart(
        "given", "Given", ["a", "b", "c"], [7, 0, None], x_label="", y_label="", show_values=True
    )
    (seven,) = marks(svg)  # the zero and the missing value draw no bar
    values = re.findall(r'<text class="value" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)<', svg)
    assert [v for _, _, v in values] == ["7", "0"]  # nothing where there is no value
    assert float(values[0][1]) < attribute(seven, "y")  # above its bar
    middle = attribute(seven, "x") + attribute(seven, "width") / 2
    assert float(values[0][0]) == pytest.approx(middle, abs=0.01)


def test_many_groups_name_only_every_nth_under_the_axis() -> None:
    ticks = [str(t) for t in range(30)]
    svg = bar_chart("calls", "Calls", ticks, [1] * 30, x_label="tick", y_label="", label_every=5)
    assert len(marks(svg)) == 30  # every group is still drawn, its hover naming it
    named = re.findall(r'<text class="tick" x="[\d.]+" y="[\d.]+" text-anchor="middle">(\d+)<', svg)
    assert named == ["0", "5", "10", "15", "20", "25"]


def test_the_label_step_keeps_names_apart_on_round_places() -> None:
    assert label_step(4, 7) == 1  # "round 1" .. "round 4": room for every name
    assert label_step(30, 2) == 2  # ticks 0..29: 18.7 px each, a name needs 21
    assert label_step(100, 3) == 5
    assert label_step(1000, 3) == 50


def test_dodged_lines_stand_side_by_side_at_a_shared_x() -> None:
    lines = [
        Line(name, [(1, 0.4), (2, 0.5)], intervals=[(1, 0.2, 0.6), (2, 0.3, 0.7)])
        for name in ("a", "b")
    ]
    plain = line_chart("s", "S", lines, x_label="round", y_label="share", y_range=(0, 1))
    dodged = line_chart("s", "S", lines, x_label="round", y_label="share", y_range=(0, 1), dodge=10)
    centres = [attribute(m, "cx") for m in marks(plain)]
    assert centres[:2] == centres[2:]  # undodged, b's points hide a's
    a1, a2, b1, b2 = (attribute(m, "cx") for m in marks(dodged))
    assert (b1 - a1, b2 - a2) == (pytest.approx(10), pytest.approx(10))
    assert a1 == pytest.approx(centres[0] - 5) and b1 == pytest.approx(centres[0] + 5)
    bars = [float(x) for x in re.findall(r'<path class="interval" d="M([\d.]+) ', dodged)]
    assert bars == pytest.approx([a1, a2, b1, b2])  # each error bar with its point
    assert "a: 0.4 at round 1</title>" in dodged  # the hover keeps the true x
