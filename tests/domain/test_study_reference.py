"""A study file's ``reference:`` (docs/studies.md, "Report"): distributions the study report
compares with, checked when the study is read — every problem one line naming the file and
the key, and nothing planned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from maai.domain import experiments
from maai.domain.config import ConfigError
from maai.domain.study import Reference, parse_study, plan_study

FROHLICH_BASE = experiments.get("frohlich").parse_config(
    {
        "experiment": "frohlich",
        "agents": [{"name": n, "model": "simulated"} for n in ("Ann", "Bo", "Cy")],
    }
)
COLLABORATION_BASE = experiments.get("collaboration").parse_config(
    yaml.safe_load((Path(__file__).parents[2] / "configs" / "collaboration.yaml").read_text())
)


def plan(reference: Any, base: Any = FROHLICH_BASE) -> Reference | None:
    study = parse_study({"study": "s", "base": "x", "reference": reference}, "s.yaml")
    plan_study(study, base, "s.yaml")
    return study.reference


def test_a_reference_is_read_with_its_source() -> None:
    # 0.1 + 0.2 + 0.7 is 0.9999999999999999 in floating point: within the tolerance.
    found = plan({"source": "F&O 1992", "agreed_principle": {"a": 0.1, "b": 0.2, "c": 0.7}})
    assert found == Reference("F&O 1992", {"agreed_principle": {"a": 0.1, "b": 0.2, "c": 0.7}})
    assert parse_study({"study": "s", "base": "x"}, "s.yaml").reference is None


@pytest.mark.parametrize(
    ("reference", "line"),
    [
        (
            {"agreed_principle": {"a": 0.5, "c": 0.4}},
            "s.yaml: reference: agreed_principle: the probabilities sum to 0.9, not 1",
        ),
        (
            {"agreed_principle": {"a": 1.5, "c": -0.5}},
            "s.yaml: reference: agreed_principle.a: 1.5 is not a probability (0-1)",
        ),
        (
            {"agreed_principle": {"a": "half", "c": 0.5}},
            "s.yaml: reference: agreed_principle.a: 'half' is not a probability (0-1)",
        ),
        ({"agreed_principle": {}}, "s.yaml: reference: agreed_principle: must map each category"),
        ({"source": "x"}, "s.yaml: reference: gives no distribution"),
        ({"source": 3, "agreed_principle": {"c": 1}}, "s.yaml: reference: source: must be text"),
        (
            {"agreed_principle": {"c": 0.5, "e": 0.5}},
            "s.yaml: reference.agreed_principle.e: unknown category (categories: a, b, c, d)",
        ),
        (
            {"rounds": {"c": 1.0}},
            "s.yaml: reference.rounds: not a statistic of the frohlich study report "
            "(it uses: agreed_principle)",
        ),
    ],
)
def test_a_bad_reference_is_one_line_naming_the_file_and_key(reference: Any, line: str) -> None:
    with pytest.raises(ConfigError) as raised:
        plan(reference)
    assert str(raised.value).startswith(line)
    assert "\n" not in str(raised.value)


def test_an_experiment_without_reference_statistics_refuses_any() -> None:
    with pytest.raises(ConfigError, match="it uses: none"):
        plan({"agreed_principle": {"c": 1.0}}, COLLABORATION_BASE)
