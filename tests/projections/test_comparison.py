"""The study report's comparisons between conditions (projections/comparison.py) over made-up
runs: each level's counts and interval, the test between the levels chosen by rule, each
level against the reference level with Holm's correction, a group too small said so; and the
study file's ``confounds:`` (domain/study.py), declared in the packaged world priming study."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from maai.domain.config import ConfigError
from maai.domain.study import parse_study
from maai.projections.comparison import Outcome, comparison_section
from maai.projections.statistics import holm, independence, rate_difference

STUDIES = Path(__file__).resolve().parents[2] / "configs" / "studies"


@dataclass(frozen=True)
class FakeRun:
    factors: dict[str, Any]
    history: Any  # what ``Outcome.of`` reads: here the run's value itself


def runs(by_level: dict[str, list[Any]], factor: str = "dose") -> list[FakeRun]:
    return [
        FakeRun({factor: level}, value) for level, values in by_level.items() for value in values
    ]


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup)))


RATE = Outcome("agreed", "rate", "share that agreed", lambda value: value)


def test_a_rate_by_level_with_the_test_and_holm_corrected_pairs() -> None:
    by_level = {
        "low": [True] * 2 + [False] * 10,
        "mid": [True] * 6 + [False] * 6,
        "high": [True] * 11 + [False],
    }
    section = comparison_section(runs(by_level), {"dose": ["low", "mid", "high"]}, [RATE])
    text = text_of(section.body)
    assert section.title == "Comparisons between conditions"
    assert "low 12 2 0.17 [0.05, 0.45]" in text  # Wilson: 2 of 12
    table = {level: {"yes": sum(v), "no": len(v) - sum(v)} for level, v in by_level.items()}
    overall = independence(table)
    assert overall.name == "Pearson's χ² test"  # every expected count is 5.33 or 6.67
    assert f"χ² = {overall.statistic:.3f}, df = 2, p = {overall.p_value:.4f}" in text
    pairs = [rate_difference(lvl, sum(by_level[lvl]), 12, "low", 2, 12) for lvl in ("mid", "high")]
    adjusted = holm([p.test.p_value for p in pairs])
    for pair, p in zip(pairs, adjusted, strict=True):
        assert p is not None and pair.test.p_value is not None
        assert (
            f"{pair.level} vs low {pair.difference:+.3f} [{pair.low:+.3f}, {pair.high:+.3f}] "
            f"Fisher's exact test {pair.test.p_value:.4f} {p:.4f}"
        ) in text
    assert 'data-plot="compare-dose-agreed"' in section.body


def test_small_groups_say_so_instead_of_a_p_value() -> None:
    section = comparison_section(runs({"a": [True], "b": [False]}), {"dose": ["a", "b"]}, [RATE])
    text = text_of(section.body)
    assert "too small for a test" in text
    assert "p = " not in text.split("too small")[0].split("Between the levels")[1]


def test_categories_and_means_by_level() -> None:
    outcome = Outcome("choice", "categories", "runs", lambda v: v, categories={"x": "X", "y": "Y"})
    mean = Outcome("payoff", "mean", "dollars", lambda v: v)
    section = comparison_section(
        runs({"a": ["x", "x", "x", "x", "y"], "b": ["y", "y", "y", "y", "x"]}),
        {"dose": ["a", "b"]},
        [outcome],
    )
    text = text_of(section.body)
    assert "level n (runs) X Y a 5 4 1 b 5 1 4" in text
    assert "Fisher–Freeman–Halton exact test, n = 10" in text and "Cramér's V = 0.600" in text
    sleep = comparison_section(
        runs(
            {
                "1": [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0],
                "2": [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4],
            }
        ),
        {"dose": ["1", "2"]},
        [mean],
    )
    # R: t.test(extra ~ group, data = sleep): p-value = 0.07939, CI for 2 − 1 [−0.205, 3.365].
    assert "2 vs 1 +1.580 [-0.205, +3.365] Welch's t test 0.0794" in text_of(sleep.body)


def test_without_factors_there_is_nothing_to_compare() -> None:
    section = comparison_section([], {}, [RATE])
    assert "nothing to compare" in text_of(section.body)


def test_the_world_priming_study_declares_its_confound() -> None:
    path = STUDIES / "world_pgg_priming.yaml"
    study = parse_study(yaml.safe_load(path.read_text()), str(path))
    assert study.confounds and "personas" in study.confounds[0]


@pytest.mark.parametrize("value", ["one text", [""], [3]])
def test_confounds_must_be_a_list_of_texts(value: Any) -> None:
    with pytest.raises(ConfigError, match="confounds"):
        parse_study({"study": "s", "base": "default", "confounds": value}, "study.yaml")


def test_without_matplotlib_a_plot_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails as if not installed
    section = comparison_section(
        runs({"a": [True, False], "b": [True]}), {"dose": ["a", "b"]}, [RATE]
    )
    assert "plots need matplotlib: pip install 'maai[analysis]'" in text_of(section.body)
    assert "<svg" not in section.body
