"""The shipped example configs, of every experiment (``configs/``): each loads as its
experiment's config, names its agents once each, and takes a seed from the command line; a
config file that is missing or not YAML is one error naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from maai.domain.config import ConfigError
from maai.runtime.config_files import read_config
from maai.runtime.runs import load_config

CONFIGS = sorted((Path(__file__).parents[2] / "configs").glob("*.yaml"))


def test_the_shipped_configs_are_found() -> None:
    assert len(CONFIGS) >= 3


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_is_valid(path: Path) -> None:
    config = load_config(path)
    raw = read_config(path)  # with the files it names (a world file) read in
    assert config.experiment == raw["experiment"]
    # Where an experiment lists its agents is its own affair (the world: in its world file);
    # every config names at least one, each once.
    names = config.agent_names()
    assert len(names) == len(set(names)) >= 1
    assert config.seed == raw["seed"]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_a_seed_given_on_the_command_line_replaces_the_configs(path: Path) -> None:
    seed = read_config(path)["seed"] + 98
    assert load_config(path, seed=seed).seed == seed


def test_load_config_reports_file_problems(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("experiment: [\n  - name: a\n")
    with pytest.raises(ConfigError, match=r"broken.yaml: .* at line"):
        load_config(broken)
