"""A run finds its experiment once, when its config is read, and passes it on: nothing after
that looks the experiment up by name again (a plug-in's lookup reads entry points)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.domain.experiment import Experiment

REPO = Path(__file__).resolve().parents[2]


def test_maai_run_looks_the_experiment_up_only_while_reading_its_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: Counter[str] = Counter()
    real_get = experiments.get

    def counting_get(name: str) -> Experiment:
        looked_up[name] += 1
        return real_get(name)

    monkeypatch.setattr(experiments, "get", counting_get)
    config = str(REPO / "configs" / "collaboration.yaml")
    result = CliRunner().invoke(app, ["run", config, "--db", str(tmp_path / "l.db"), "-q"])
    assert result.exit_code == 0, result.output
    # Two lookups, both while the config is read: the files its keys name
    # (config_files.read_config) and its validation (experiments.parse_config).
    assert looked_up == {"collaboration": 2}
