"""Each installed experiment's example run, for the generic tests that hold for every
experiment (parametrized over ``experiments.names()``, so that a plug-in such as
examples/ultimatum is covered where it is installed), and the one list of the built-in
experiments for the matrices too heavy to grow with every plug-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from maai.domain.config import ExperimentConfig
from maai.ledger import EventStore
from maai.projections.history import History, history_from_stored
from maai.testing.runs import example_config, record
from tests.projections.collaboration.recording import golden_history as collaboration_golden
from tests.projections.frohlich.recording import golden_history as frohlich_golden
from tests.projections.world.recording import golden_history as world_golden
from tests.support.driver import make_config

BUILT_IN = ("frohlich", "collaboration", "world")
"""The experiments of this repository. The heavy matrices (signed ledgers everywhere, the
ledger fuzz, a fork at every point) run these alone, each case costing a recorded run per
experiment; an installed plug-in is covered there by maai.testing's contract tests (run,
fold, verify, exports, audits, resume after a cut, forks), which run for every experiment."""

GOLDEN: dict[str, Callable[[], History]] = {
    "frohlich": frohlich_golden,
    "collaboration": collaboration_golden,
    "world": world_golden,
}

SHORTER: dict[str, Callable[[], ExperimentConfig]] = {
    # Frohlich's example discusses for ten rounds: one is enough to hold every event type.
    "frohlich": lambda: make_config(phase2_rounds=1),
}


def example(name: str) -> ExperimentConfig:
    """Experiment ``name``'s example config (``maai run NAME``), Frohlich's shortened."""
    return SHORTER[name]() if name in SHORTER else example_config(name)


def recorded_history(name: str, folder: Path) -> History:
    """A run of ``example(name)`` to its end with the simulated participants, read back as
    the projections read it."""
    run = record(name, folder, config=example(name))
    with EventStore.open(run.db) as store:
        return history_from_stored(run.run_id, store.read(run.run_id), "completed")


def golden_or_recorded(name: str, folder: Path) -> History:
    """The built-in experiments' golden recordings (tests/projections/*/recording.py, the
    runs their pinned pages come from); any other experiment's example, recorded now."""
    return GOLDEN[name]() if name in GOLDEN else recorded_history(name, folder)
