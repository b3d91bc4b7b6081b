"""The reports' charts (projections/charts.py, drawn by matplotlib): plain data in, one
labelled inline ``<svg>`` out, one mark per datum with its value on hover, placed where its
value says; nothing to draw gives a sentence, not an empty frame; without matplotlib, the
line saying how to get the plots."""

from __future__ import annotations

import html
import re
import sys

import pytest

from maai.projections.charts import (
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
from maai.projections.figures import NO_MATPLOTLIB

pytest.importorskip("matplotlib")


def groups(svg: str, kind: str = "mark") -> list[str]:
    """Each ``<g class="kind">`` up to its first closing tag (its title and its shape)."""
    return re.findall(rf'<g class="{kind}">.*?</g>', svg, re.S)


def titles(svg: str, kind: str = "mark") -> list[str]:
    return [html.unescape(re.search(r"<title>([^<]*)</title>", g)[1]) for g in groups(svg, kind)]  # type: ignore[index]


def box(mark: str) -> tuple[float, float, float, float]:
    """A bar's (left, top, right, bottom) in the SVG's coordinates (y grows downwards)."""
    numbers = [float(n) for n in re.findall(r"-?\d+\.?\d*", re.search(r' d="([^"]*)"', mark)[1])]  # type: ignore[index]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def centre(point: str) -> tuple[float, float]:
    """A point marker's centre (``<use x= y=>``)."""
    use = re.search(r'<use [^>]*x="([-\d.]+)" y="([-\d.]+)"', point)
    assert use, point
    return float(use[1]), float(use[2])


def texts(svg: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def test_a_chart_is_a_labelled_image_that_names_nothing_outside_itself() -> None:
    svg = grouped_bars(
        "counts",
        "Counts <per> step",
        ["1.1", "1.2"],
        [Series("a", [1, 2]), Series("b", [3, None])],
        x_label="step",
        y_label="participants",
    )
    assert svg.startswith('<svg class="plot mpl" data-plot="counts" role="img"')
    assert "<title>Counts &lt;per&gt; step</title>" in svg
    assert {"step", "participants", "a", "b"} <= set(texts(svg))  # axes and the legend
    assert titles(svg) == ["1.1, a: 1", "1.2, a: 2", "1.1, b: 3"]  # the missing value: none
    assert "url(" not in svg and "<script" not in svg and "http" not in svg


def test_bar_heights_follow_the_values_and_negatives_hang_below_zero() -> None:
    svg = bar_chart(
        "points", "Points", ["A", "B", "C"], [50, -90, 100], x_label="agent", y_label="points"
    )
    a, b, c = (box(m) for m in groups(svg))
    assert c[3] - c[1] == pytest.approx(2 * (a[3] - a[1]), rel=1e-3)
    assert b[3] - b[1] == pytest.approx(1.8 * (a[3] - a[1]), rel=1e-3)
    # A's bar ends at zero from above, B's starts there going down.
    assert a[3] == pytest.approx(b[1], abs=0.01)


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
    first, second = (box(m) for m in groups(svg))
    assert second[3] == pytest.approx(first[1], abs=0.01)  # 2 starts where 1 ends
    assert first[0] == second[0]
    assert first[3] - first[1] == pytest.approx(3 * (second[3] - second[1]), rel=1e-3)


def test_a_line_chart_marks_every_point_on_a_fixed_scale() -> None:
    svg = line_chart(
        "beliefs",
        "Beliefs",
        [Line("Ada", [(0, 65), (3, 70)]), Line("Ben's guess", [(2, 40)], dashed=True)],
        x_label="messages",
        y_label="belief",
        y_range=(0, 100),
    )
    points = [centre(p) for p in groups(svg)]
    assert len(points) == 3
    assert titles(svg) == [
        "Ada: 65 at messages 0",
        "Ada: 70 at messages 3",
        "Ben's guess: 40 at messages 2",
    ]
    assert points[0][1] > points[1][1] > 0  # 65 is drawn lower than 70
    assert "stroke-dasharray" in groups(svg, "line")[1]  # the dashed one
    assert "100" in texts(svg) and "Ben's guess" in texts(svg)


def test_a_point_with_its_count_shows_its_n() -> None:
    svg = line_chart(
        "rates",
        "Rates",
        [Line("all", [(1, 0.5)], intervals=[(1, 0.2, 0.8)], counts=[(1, 12)])],
        x_label="u",
        y_label="share",
        y_range=(0, 1),
    )
    assert "n=12" in texts(svg)
    assert titles(svg) == ["all: 0.5 at u 1 (n = 12)"]


def test_a_timeline_places_marks_in_their_lanes_and_shades_spans() -> None:
    svg = timeline(
        "votes",
        "Votes",
        ["polls", "ballots"],
        [
            Mark(1.2, "polls", "2/3 yes", "a poll", filled=False),
            Mark(2.0, "ballots", "consensus", shape="square", highlight=True),
        ],
        x_label="round",
        x_ticks=[(1, "round 1"), (2, "round 2")],
        x_range=(0.5, 2.5),
        spans=[Span(1.5, 2.5, "consensus in round 2")],
    )
    poll, ballot = groups(svg)
    assert centre(poll)[1] < centre(ballot)[1]  # the first lane on top
    assert centre(poll)[0] < centre(ballot)[0]
    assert "fill: #ffffff" in poll and "fill: #009e73" in ballot
    assert titles(svg) == ["a poll", "consensus"]  # the detail, else the label, on hover
    assert titles(svg, "span") == ["consensus in round 2"]
    assert {"polls", "ballots", "2/3 yes", "consensus in round 2", "round 2"} <= set(texts(svg))


@pytest.mark.parametrize(
    "empty",
    [
        lambda: grouped_bars("x", "Nothing", ["a"], [Series("s", [None])], x_label="", y_label=""),
        lambda: bar_chart("x", "Nothing", [], [], x_label="", y_label=""),
        lambda: line_chart("x", "Nothing", [Line("a", [])], x_label="", y_label=""),
        lambda: timeline("x", "Nothing", ["l"], [], x_label="", x_ticks=[], x_range=(0, 1)),
    ],
)
def test_nothing_to_draw_is_said_not_drawn(empty: object) -> None:
    assert empty() == '<p class="no-data">Nothing: nothing to plot.</p>'  # type: ignore[operator]


def test_without_matplotlib_every_chart_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails as if not installed
    drawn = [
        bar_chart("p", "P", ["A"], [1], x_label="agent", y_label="points"),
        line_chart("l", "L", [Line("a", [(0, 1)])], x_label="x", y_label="y"),
        timeline("t", "T", ["l"], [Mark(1, "l", "m")], x_label="x", x_ticks=[], x_range=(0, 2)),
    ]
    for svg in drawn:
        assert "<svg" not in svg and NO_MATPLOTLIB in html.unescape(svg)


def test_ticks_are_round_and_cover_the_values() -> None:
    assert nice_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(-90, 50)[0] <= -90 and nice_ticks(-90, 50)[-1] >= 50
    assert nice_ticks(0, 2, whole=True) == [0, 1, 2]


def test_a_rule_is_drawn_where_its_x_is_and_each_interval_spans_its_ends() -> None:
    svg = line_chart(
        "rates",
        "Rates",
        [Line("all", [(0.8, 0.5), (0.9, 0.25)], intervals=[(0.8, 0.2, 0.8), (0.9, 0.1, 0.5)])],
        x_label="u",
        y_label="share",
        y_range=(0, 1),
        rules=[Rule(0.7, "u* = 0.700")],
    )
    (rule,) = groups(svg, "rule")
    points = [centre(m)[0] for m in groups(svg)]
    assert "<title>u* = 0.700</title>" in rule and "u* = 0.700" in texts(svg)  # and the legend
    # The axis widened to show 0.7: left of both points, as far from 0.8 as 0.8 from 0.9.
    assert box(rule)[0] < points[0] < points[1]
    assert points[0] - box(rule)[0] == pytest.approx(points[1] - points[0], rel=1e-3)
    bars = [box(b) for b in groups(svg, "interval")]
    assert [b[0] for b in bars] == pytest.approx(points)
    # Each error bar spans its interval: 0.2 to 0.8 is 0.6 of the axis, 0.1 to 0.5 is 0.4.
    assert (bars[0][3] - bars[0][1]) / (bars[1][3] - bars[1][1]) == pytest.approx(1.5, rel=1e-3)


def test_bars_that_are_all_zero_say_so() -> None:
    svg = bar_chart("x", "Rates", ["a", "b"], [0, 0], x_label="", y_label="", y_max=1)
    assert svg == '<p class="no-data">Rates: 0 in every group.</p>'
    drawn = bar_chart("x", "Rates", ["a", "b"], [0.2, 0], x_label="", y_label="", y_max=1)
    assert "1.0" in texts(drawn)  # the axis reaches 1, so a share of 0.2 looks small


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
    (level,) = groups(svg, "level")
    ann, ben = (box(m) for m in groups(svg))
    assert "endowment 20" in texts(svg) and {"Ann", "Ben"} <= set(texts(svg))
    base, at = ben[3], box(level)[1]
    # 10 is half of 20: Ben's bar reaches halfway from the axis to the level, Ann's a quarter.
    assert base - ben[1] == pytest.approx((base - at) / 2, rel=1e-3)
    assert ann[3] - ann[1] == pytest.approx((ben[3] - ben[1]) / 2, rel=1e-3)


def test_a_series_without_a_bar_is_still_named_in_the_legend() -> None:
    svg = grouped_bars(
        "given",
        "Given",
        ["round 1"],
        [Series("Ann", [5]), Series("Bob", [0]), Series("Cy", [3])],
        x_label="round",
        y_label="points",
    )
    assert {"Ann", "Bob", "Cy"} <= set(texts(svg)) and len(groups(svg)) == 2


def test_shown_values_are_written_over_their_bars_a_zero_too() -> None:
    svg = bar_chart(
        "given", "Given", ["a", "b", "c"], [7, 0, None], x_label="", y_label="", show_values=True
    )
    (seven,) = (box(m) for m in groups(svg))  # the zero and the missing value draw no bar
    values = re.findall(r'<text[^>]*x="([-\d.]+)" y="([-\d.]+)"[^>]*>(7|0)</text>', svg)
    written = [(float(x), float(y)) for x, y, v in values if v == "7"]
    assert "0" in [v for _, _, v in values]
    (at,) = [p for p in written if p[1] < seven[1]]  # above its bar (not the axis' 0 tick)
    assert at[0] == pytest.approx((seven[0] + seven[2]) / 2, abs=0.5)


def test_many_groups_name_only_every_nth_under_the_axis() -> None:
    ticks = [str(t) for t in range(30)]
    svg = bar_chart("calls", "Calls", ticks, [1] * 30, x_label="tick", y_label="", label_every=5)
    assert len(groups(svg)) == 30  # every group is still drawn, its hover naming it
    assert titles(svg)[7] == "7, : 1"
    named = [t for t in texts(svg) if t.isdigit() and t not in ("1",)]
    assert named[:6] == ["0", "5", "10", "15", "20", "25"]


def test_the_label_step_keeps_names_apart_on_round_places() -> None:
    assert label_step(4, 7) == 1  # "round 1" .. "round 4": room for every name
    assert label_step(30, 2) == 2  # ticks 0..29: 12.6 pt each, a name needs 15
    assert label_step(100, 3) == 10  # 3.8 pt each, a name needs 20: 6 → 10
    assert label_step(1000, 3) == 100


def test_dodged_lines_stand_side_by_side_at_a_shared_x() -> None:
    lines = [
        Line(name, [(1, 0.4), (2, 0.5)], intervals=[(1, 0.2, 0.6), (2, 0.3, 0.7)])
        for name in ("a", "b")
    ]
    plain = line_chart("s", "S", lines, x_label="round", y_label="share", y_range=(0, 1))
    dodged = line_chart(
        "s", "S", lines, x_label="round", y_label="share", y_range=(0, 1), dodge=0.05
    )
    centres = [centre(m)[0] for m in groups(plain)]
    assert centres[:2] == centres[2:]  # undodged, b's points hide a's
    a1, a2, b1, b2 = (centre(m)[0] for m in groups(dodged))
    assert b1 > a1 and b2 - a2 == pytest.approx(b1 - a1, rel=1e-3)
    bars = [box(b)[0] for b in groups(dodged, "interval")]
    assert bars == pytest.approx([a1, a2, b1, b2])  # each error bar with its point
    assert "a: 0.4 at round 1" in titles(dodged)  # the hover keeps the true x
