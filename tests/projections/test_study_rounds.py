"""The runs table's ``rounds`` column comes from each experiment's summary (``Summary.rounds``),
in the experiment's own unit: exchanges (collaboration), game rounds (world)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.projections.study import run_row
from maai.testing.runs import record

ROUNDS: dict[str, Callable[[Any], int]] = {
    "collaboration": lambda config: config.exchanges,
    "world": lambda config: config.game.rounds,
}


@pytest.mark.parametrize("name", sorted(ROUNDS))
def test_the_rounds_column_counts_the_experiments_rounds(name: str, tmp_path: Path) -> None:
    run = record(name, tmp_path)
    with EventStore.open(run.db) as store:
        history = history_from_stored(run.run_id, store.read(run.run_id), "completed")
    assert run_row(history)["rounds"] == ROUNDS[name](run.config) >= 1
