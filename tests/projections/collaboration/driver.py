"""Record simulated collaboration runs in memory for the projection tests: the shared driver
(``tests/support/collaboration_driver.py``) with these tests' default config."""

from __future__ import annotations

from typing import Any

from maai.domain import experiments
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.events import Event
from maai.projections.history import History, history_from_events
from tests.support.collaboration_driver import ASYMMETRIC as ASYMMETRIC
from tests.support.collaboration_driver import Responder, simulated
from tests.support.collaboration_driver import drive as drive_run

EXPERIMENT = experiments.get("collaboration")


def make_config(**overrides: Any) -> CollaborationConfig:
    data: dict[str, Any] = {
        "experiment": "collaboration",
        "seed": 3,
        "exchanges": 2,
        "agents": [
            {"name": "Ada", "company": "Brickworks Motors"},
            {"name": "Ben", "company": "Studline Cars"},
        ],
    }
    data.update(overrides)
    config = EXPERIMENT.parse_config(data)
    assert isinstance(config, CollaborationConfig)
    return config


def simulated_responder(config: CollaborationConfig) -> Responder:
    return simulated(config)


def drive(
    config: CollaborationConfig, responder: Responder | None = None, max_steps: int = 10_000
) -> list[Event]:
    """The events of one run, from run.started to run.completed."""
    return drive_run(config, responder or simulated(config), max_steps).events


def record(config: CollaborationConfig, run_id: str = "memory") -> History:
    return history_from_events(drive(config), run_id)
