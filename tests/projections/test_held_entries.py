"""A history read from the store holds its entries compressed (projections/held.py) and gives
back exactly the entries a history held whole gives, in every way projections read them
(docs/projections.md, "Memory: exports and audits stream")."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from maai.cli.run_source import StoredRun
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested, RunStarted
from maai.domain.frohlich.events import MemoryUpdated, StatementMade
from maai.ledger import EventStore
from maai.projections import held
from maai.projections.held import HeldEntries
from maai.projections.history import entries_from_stored, light_record
from tests.projections.frohlich.recording import RUN_ID
from tests.projections.test_history_source import stored_golden


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many chunks and a partial last one, so that every index crosses chunk boundaries.
    monkeypatch.setattr(held, "CHUNK_EVENTS", 7)


def test_held_entries_are_the_light_records_decoded_in_every_way_they_are_read(
    tmp_path: Path, small_chunks: None
) -> None:
    with EventStore.open(stored_golden(tmp_path)) as store:
        light = [light_record(r) for r in store.read(RUN_ID)]
        expected = list(entries_from_stored(r for r in light if r is not None))
        history = StoredRun(store, RUN_ID).load()
    entries = history.entries
    assert isinstance(entries, HeldEntries)
    assert len(expected) % 7 and len(expected) > 100
    assert len(entries) == len(expected)
    assert list(entries) == expected
    for index in (0, 1, 6, 7, 8, 50, -1, -7, -8, -len(expected)):
        assert entries[index] == expected[index]
    for part in (slice(3, 17), slice(None, None, -5), slice(-9, None), slice(40, 20)):
        assert entries[part] == expected[part]
    with pytest.raises(IndexError):
        entries[len(expected)]
    kinds: list[tuple[type[Event], ...]] = [
        (ModelCallRequested,),
        (StatementMade,),
        (MemoryUpdated, ModelCallCompleted),
        (RunStarted,),
        (Event,),
    ]
    for types in kinds:
        whole = [(e, e.event) for e in expected if isinstance(e.event, types)]
        assert whole and history.of(*types) == whole
    # An agent's events are held apart from the others' (a request with its caller's), and
    # read alone: those whose ``agent`` field names the agent, none else.
    for types in kinds:
        for agent in ("alice", "bob", "utility", "nobody"):
            mine = [(e, e.event) for e in expected if isinstance(e.event, types)]
            mine = [(e, ev) for e, ev in mine if getattr(ev, "agent", None) == agent]
            assert history.of_agent(agent, *types) == mine
    assert list(history.seqs()) == [e.seq for e in expected]
    for types in kinds:
        at = [i for i, e in enumerate(expected) if isinstance(e.event, types)]
        assert history.positions(*types) == at
    assert history.of_agent("alice", MemoryUpdated, StatementMade)
    assert not history.of_agent("alice", ModelCallRequested)  # a request has no agent field


def test_a_history_read_from_the_store_holds_a_small_part_of_its_events_decoded(
    tmp_path: Path,
) -> None:
    """Decoded, an event's light record takes 3-4 KB of Python objects; held, about 0.15 KB.
    A history that keeps its entries decoded holds more than 2 KB an event and fails."""
    with EventStore.open(stored_golden(tmp_path)) as store:
        StoredRun(store, RUN_ID).load()  # once untraced: imports are not the history
        tracemalloc.start()
        try:
            history = StoredRun(store, RUN_ID).load()
            held_bytes, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    per_event = held_bytes / len(history.entries)
    assert per_event < 600, f"{per_event:.0f} bytes held per event"
