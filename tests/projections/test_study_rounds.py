"""The runs table's ``rounds`` column comes from each experiment's summary (``Summary.rounds``),
in the experiment's own unit, for every installed experiment: discussion rounds (Frohlich),
exchanges (collaboration), game rounds (world); a plug-in's own count, or empty where it
names none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maai.domain import experiments
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.projections.study import run_row
from maai.testing.runs import record
from tests.support.examples import example

# The built-in experiments' units, as their example runs use them to the end.
ROUNDS: dict[str, Callable[[Any], int]] = {
    "frohlich": lambda config: config.phase2_rounds,
    "collaboration": lambda config: config.exchanges,
    "world": lambda config: config.game.rounds,
}


@pytest.mark.parametrize("name", experiments.names())
def test_the_rounds_column_counts_the_experiments_rounds(name: str, tmp_path: Path) -> None:
    run = record(name, tmp_path, config=example(name))
    with EventStore.open(run.db) as store:
        history = history_from_stored(run.run_id, store.read(run.run_id), "completed")
    declared = run.experiment.summarize(run.run_id, run.state, "completed").rounds
    assert run_row(history)["rounds"] == declared
    if name in ROUNDS:
        assert declared == ROUNDS[name](run.config) >= 1
