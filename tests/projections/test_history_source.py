"""A history held without its prompts (projections/history.py, cli/run_source.py): what it
holds of each event, and that it gives the same events whole, streamed, as a history held
whole (docs/projections.md, "Memory: exports and audits stream")."""

from __future__ import annotations

from pathlib import Path

import pytest

from maai.cli import run_source
from maai.cli.run_source import StoredRun
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested, RunStarted
from maai.ledger import EventStore, NewEvent, StoredEvent
from maai.projections.history import (
    PROMPT_NOT_HELD,
    RAW_NOT_HELD,
    History,
    history_from_stored,
    light_record,
)
from maai.projections.jsonout import DeferredText
from maai.runtime.writer import to_new_event
from tests.projections.frohlich.recording import RUN_ID, golden_history, read_recording


def stored_golden(path: Path) -> str:
    return stored(path, [e.event for e in golden_history().entries])


def stored(path: Path, events: list[Event]) -> str:
    """A SQLite ledger in ``path`` holding ``events`` (a Frohlich run) as run ``RUN_ID``."""
    url = str(path / "ledger.db")
    started = events[0]
    assert isinstance(started, RunStarted)
    with EventStore.open(url) as store:
        store.create_run(RUN_ID, "frohlich", started.config)
        store.append(RUN_ID, 0, [to_new_event(e) for e in events])
    return url


def test_a_light_request_holds_no_text_and_no_long_context() -> None:
    record = next(r for r in read_recording() if r.type == ModelCallRequested.TYPE)
    request = record.payload["request"]
    context = {"for_agent": "bob", "history": [{"text": "x"}] * 8, "memory": "m" * 1024}
    packed = {**record.payload, "request": {**request, "context": context}}
    light = light_record(record.model_copy(update={"payload": packed}))
    assert light is not None
    held = light.payload["request"]
    assert held["system"] == held["input"] == PROMPT_NOT_HELD
    assert held["context"] == {
        "for_agent": "bob",
        "history": PROMPT_NOT_HELD,
        "memory": PROMPT_NOT_HELD,
    }
    assert {k: v for k, v in held.items() if k not in ("system", "input", "context")} == {
        k: v for k, v in request.items() if k not in ("system", "input", "context")
    }
    assert record.payload["request"] is request and request["input"] != PROMPT_NOT_HELD


def test_a_packed_request_is_held_light_unless_a_value_it_needs_is_packed() -> None:
    record = next(r for r in read_recording() if r.type == ModelCallRequested.TYPE)
    request = {**record.payload["request"], "input": None, "context": {"history": None}}
    packing = [
        [["request", "input"], "t", [], []],
        [["request", "context", "history"], "l", [], []],
    ]
    packed = record.model_copy(
        update={"payload": {**record.payload, "request": request, "$packed": packing}}
    )
    light = light_record(packed)
    assert light is not None and "$packed" not in light.payload
    assert light.payload["request"]["context"] == {"history": PROMPT_NOT_HELD}
    elsewhere = [[["request", "output_schema"], "l", [], []]]
    other = packed.model_copy(update={"payload": {**packed.payload, "$packed": elsewhere}})
    assert light_record(other) is None  # read whole instead


def test_an_answer_is_held_without_its_raw_response_and_other_events_as_they_are() -> None:
    records = read_recording()
    done = next(r for r in records if r.type == ModelCallCompleted.TYPE)
    light = light_record(done)
    assert light is not None and light.payload["answer"]["raw"] == RAW_NOT_HELD
    assert light.payload["answer"]["text"] == done.payload["answer"]["text"]
    other = next(r for r in records if r.type not in (ModelCallCompleted.TYPE, "model.requested"))
    assert light_record(other) is other


def test_a_history_read_from_the_store_streams_what_a_whole_history_holds(
    tmp_path: Path,
) -> None:
    whole = golden_history()
    with EventStore.open(stored_golden(tmp_path)) as store:
        history = StoredRun(store, RUN_ID, keep_prompts=True).load()
        assert [e.seq for e in history.entries] == [e.seq for e in whole.entries]
        held = [e.event for e in history.entries if isinstance(e.event, ModelCallRequested)]
        assert held and all(e.request.input == PROMPT_NOT_HELD for e in held)
        streamed = list(history.stream())
        assert [(e.seq, e.event) for e in streamed] == [(e.seq, e.event) for e in whole.entries]
        assert [e.hash for e in streamed] == [e.hash for e in history.entries]
        assert [e.event for e, _ in history.requests()] == [e.event for e, _ in whole.requests()]
        for (light, _), (entry, requested) in zip(
            history.of(ModelCallRequested), whole.of(ModelCallRequested), strict=True
        ):
            texts = history.prompt(light)
            assert all(isinstance(t, DeferredText) for t in texts)
            assert [t.text() for t in texts if isinstance(t, DeferredText)] == [
                requested.request.system,
                requested.request.input,
            ]
            assert whole.prompt(entry) == (requested.request.system, requested.request.input)


def test_a_history_streams_the_events_its_first_read_saw_however_the_run_grows(
    tmp_path: Path,
) -> None:
    with EventStore.open(stored_golden(tmp_path)) as store:
        history: History = StoredRun(store, RUN_ID).load()
        head = history.entries[-1].seq
        store.append(RUN_ID, head, [NewEvent("run.failed", {"reason": "later"})])
        assert [e.seq for e in history.stream()] == [e.seq for e in history.entries]


def stored_golden_packed(path: Path) -> str:
    """The golden run with the same long text added to every prompt, which the store packs
    (each request then names the one before as its base)."""
    shared = "".join(f"\nA line every prompt repeats, number {i}." for i in range(200))
    events = []
    for entry in golden_history().entries:
        event = entry.event
        if isinstance(event, ModelCallRequested):
            request = event.request.model_copy(update={"input": event.request.input + shared})
            event = event.model_copy(
                update={"request": request, "request_hash": request.request_hash()}
            )
        events.append(event)
    return stored(path, events)


def test_packed_requests_are_read_light_or_whole_and_streamed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EventStore.open(stored_golden_packed(tmp_path)) as store:
        as_stored = store.read(RUN_ID, keep_packed=(ModelCallRequested.TYPE,))
        assert any("$packed" in r.payload for r in as_stored)
        whole = history_from_stored(RUN_ID, store.read(RUN_ID))
        light = StoredRun(store, RUN_ID).load()
        assert [e.event for e, _ in light.requests()] == [e.event for e, _ in whole.requests()]
        assert {
            e.event.request.input for e in light.entries if isinstance(e.event, ModelCallRequested)
        } == {PROMPT_NOT_HELD}

        # A record packed where a light one cannot do without is read again, whole.
        def refuse_packed(record: StoredEvent) -> StoredEvent | None:
            return None if "$packed" in record.payload else light_record(record)

        monkeypatch.setattr(run_source, "light_record", refuse_packed)
        again = StoredRun(store, RUN_ID).load()
        assert [e.event for e in again.entries] == [e.event for e in light.entries]
