"""Absurd numbers in a Frohlich config are refused with one line naming the key: infinite or
NaN multipliers, probabilities and labels, multipliers above 1000, incomes above $10^9
(docs/rules.md: every scaled amount then stays below $10^12, exact as a float)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.config import ConfigError
from maai.domain.frohlich import rules
from maai.domain.frohlich.config import MAX_INCOME, MAX_MULTIPLIER, MAX_SCALED_INCOME
from maai.runtime.runs import load_config

AGENTS = "agents:\n  - name: Ada\n  - name: Ben\n"


def config_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "absurd.yaml"
    path.write_text(f"experiment: frohlich\n{AGENTS}{body}", encoding="utf-8")
    return path


def refusal(tmp_path: Path, body: str) -> str:
    path = config_file(tmp_path, body)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert message.startswith(f"{path}: ")
    return message


PROBABILITIES = (
    "class_probabilities: {{high: {}, medium_high: 0.1, medium: 0.5, medium_low: 0.25, low: 0.1}}\n"
)


@pytest.mark.parametrize(
    ("body", "key", "says"),
    [
        ("phase1_multiplier: {high: .inf}\n", "phase1_multiplier.high", "finite"),
        ("phase1_multiplier: {low: -.inf}\n", "phase1_multiplier.low", "finite"),
        ("phase2_multiplier: {fixed: 1e300}\n", "phase2_multiplier.fixed", "at most 1000"),
        ("phase2_multiplier: {fixed: 1.0e+300}\n", "phase2_multiplier.fixed", "at most 1000"),
        ("phase1_multiplier: {low: 0.5, high: 1000.5}\n", "phase1_multiplier.high", "at most"),
        ("phase1_multiplier: {low: .nan}\n", "phase1_multiplier.low", "finite"),
        ("phase2_multiplier: {fixed: .nan}\n", "phase2_multiplier.fixed", "finite"),
        ("phase2_multiplier: {fixed: 0}\n", "phase2_multiplier.fixed", "positive"),
        (
            "distributions: [[1000000000000000000000000000000, 2, 3, 4, 5], [5, 4, 3, 2, 1]]\n",
            "distributions",
            "above the limit of $1,000,000,000",
        ),
        (
            "distributions: [[32000, 27000, 24000, 13000, 12000], [5, 4, 3, 2, 1000000001]]\n",
            "distributions",
            "distribution 2, low income",
        ),
        ("distributions: [[1.0e+30, 2, 3, 4, 5], [5, 4, 3, 2, 1]]\n", "distributions.0.0", ""),
        (PROBABILITIES.format(".nan"), "class_probabilities", "probability of high"),
        (PROBABILITIES.format(".inf"), "class_probabilities", "finite"),
        ("labels: {dose: .nan}\n", "labels", "label 'dose' must be a finite number"),
        ("labels: {dose: .inf}\n", "labels", "finite"),
        (
            "agents:\n  - {name: Ada, persona: {latency_ms: .inf}}\n  - {name: Ben}\n",
            "agents.0.persona.latency_ms",
            "finite",
        ),
    ],
)
def test_absurd_numbers_are_refused_naming_the_key(
    tmp_path: Path, body: str, key: str, says: str
) -> None:
    if body.startswith("agents:"):
        path = tmp_path / "absurd.yaml"
        path.write_text(f"experiment: frohlich\n{body}", encoding="utf-8")
        with pytest.raises(ConfigError) as info:
            load_config(path)
        message = str(info.value)
    else:
        message = refusal(tmp_path, body)
    assert f": {key}: " in message, message
    assert says in message, message


def test_the_largest_allowed_numbers_stay_exact(tmp_path: Path) -> None:
    """At the bounds a scaled table is still exact and JSON-able: every income below
    MAX_SCALED_INCOME, far below 2**53, so the float averages in requests are exact too."""
    top = MAX_INCOME
    body = (
        f"phase1_multiplier: {{low: 1, high: {MAX_MULTIPLIER:g}}}\n"
        f"distributions: [[{top}, {top}, {top}, {top}, {top}], [{top}, 4, 3, 2, 1]]\n"
    )
    config = load_config(config_file(tmp_path, body))
    base = rules.base_set(config)
    scaled = rules.scale(base, config.phase1_multiplier.high or 0)
    highest = max(max(d.incomes) for d in scaled.distributions)
    assert highest == MAX_SCALED_INCOME < 2**53
    average = rules.average(scaled.get(1), rules.config_probabilities(config))
    assert float(average) == average


def test_maai_run_refuses_an_absurd_config_in_one_line(tmp_path: Path) -> None:
    path = config_file(tmp_path, "phase1_multiplier: {high: .inf}\n")
    db = tmp_path / "ledger.db"
    result = CliRunner().invoke(app, ["run", str(path), "--db", str(db)], env={"COLUMNS": "80"})
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ") and "phase1_multiplier.high" in lines[0]
    assert "Traceback" not in result.output
    assert not db.exists()  # refused before the ledger was opened
