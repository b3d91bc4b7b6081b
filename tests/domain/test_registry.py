"""Stored events come back as the same typed events; old shapes are lifted; unknown refused.
Frohlich's registry serves: every experiment's registry is the same EventRegistry."""

from __future__ import annotations

import pytest

from maai.domain import registry
from maai.domain.frohlich.events import SpeakingOrderDrawn
from maai.domain.frohlich.experiment import EXPERIMENT
from tests.support.driver import agreeable, drive, make_config

REGISTRY = EXPERIMENT.registry


def test_every_event_of_a_run_round_trips():
    _, events, _ = drive(make_config(phase2_rounds=1), agreeable)
    seen = set()
    for event in events:
        type_, version, payload, agent = REGISTRY.encode(event)
        assert REGISTRY.decode(type_, version, payload) == event
        assert agent == event.agent_name
        seen.add(type_)
    assert {"run.started", "model.requested", "model.completed", "ballot.resolved"} <= seen


def test_unknown_type_and_newer_version_are_refused():
    with pytest.raises(registry.UnknownEventError, match="unknown event type"):
        REGISTRY.decode("no.such", 1, {})
    with pytest.raises(registry.UnknownEventError, match="newer than this code"):
        REGISTRY.decode(SpeakingOrderDrawn.TYPE, 99, {})


def test_old_payloads_are_upcast(monkeypatch: pytest.MonkeyPatch):
    # Pretend SpeakingOrderDrawn is now version 2 and version 1 lacked previous_last.
    monkeypatch.setattr(SpeakingOrderDrawn, "VERSION", 2)
    monkeypatch.setitem(
        REGISTRY.upcasters,
        (SpeakingOrderDrawn.TYPE, 1),
        lambda p: {**p, "previous_last": None},
    )
    old = {"round": 1, "label": "p2/r1/order", "order": ["a", "b"]}
    event = REGISTRY.decode(SpeakingOrderDrawn.TYPE, 1, old)
    assert isinstance(event, SpeakingOrderDrawn) and event.previous_last is None


def test_an_event_type_declared_twice_is_refused():
    class Clash(SpeakingOrderDrawn):
        pass

    with pytest.raises(ValueError, match="declared twice"):
        registry.EventRegistry([SpeakingOrderDrawn, Clash])


def test_each_experiment_reads_only_its_own_events():
    # The common life-cycle events are in every registry; an experiment's own are not shared.
    common = registry.EventRegistry(())
    assert "run.started" in common.types
    with pytest.raises(registry.UnknownEventError, match="unknown event type"):
        common.decode(SpeakingOrderDrawn.TYPE, 1, {})
