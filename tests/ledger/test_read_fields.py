"""``EventStore.read_fields``: a few fields of some event types, the rest of the events as
appended, on both backends; exact where the store packed a field that was asked for."""

from __future__ import annotations

import json
from typing import Any

import pytest

from maai.ledger import EventStore, NewEvent, RunNotFoundError
from maai.ledger.fields import pick
from maai.ledger.packed_values import MIN_EVENT_CHARS, PACKED_KEY
from tests.ledger.test_packing import growing_run

FIELDS = {"model.requested": ("request.agent", "request.context", "request.missing", "nope.x")}


def logical(value: dict[str, Any] | str) -> Any:
    return json.loads(value) if isinstance(value, str) else value


@pytest.mark.parametrize("as_text", [False, True])
def test_read_fields_gives_what_read_gives(store: EventStore, as_text: bool) -> None:
    events = growing_run(agents=3, rounds=4)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    whole = list(store.read("r1"))
    picked = list(store.read_fields("r1", FIELDS, as_text=as_text))
    assert [(s, t, v) for s, t, v, _ in picked] == [
        (e.seq, e.type, e.schema_version) for e in whole
    ]
    for event, (_, type_, _, payload) in zip(whole, picked, strict=True):
        if type_ == "model.requested":
            # request.context holds a list the store packed: read whole, then picked
            assert payload == pick(event.payload, FIELDS[type_])
            assert payload["request.context"] == event.payload["request"]["context"]
            assert payload["request.missing"] is None and payload["nope.x"] is None
        else:
            assert logical(payload) == event.payload
            assert isinstance(payload, str) == (as_text and store.backend == "sqlite")
    assert any(PACKED_KEY in e.payload for e in store.read("r1", keep_packed=FIELDS))


def test_a_payload_the_store_may_need_as_a_base_comes_parsed(store: EventStore) -> None:
    long_text = "\n".join(f"line {i} of a long text that repeats" for i in range(200))
    events = [
        NewEvent(type="note", payload={"text": long_text, "n": 1}),
        NewEvent(type="note", payload={"text": long_text + "\nmore", "n": 2}),
        NewEvent(type="note", payload={"text": "short", "n": 3}),
    ]
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    read = list(store.read_fields("r1", {}, as_text=True))
    assert [logical(p) for *_, p in read] == [e.payload for e in events]
    assert len(json.dumps(events[0].payload)) >= MIN_EVENT_CHARS
    assert [type(p) for *_, p in read][:2] == [dict, dict]


def test_from_the_middle_and_errors(store: EventStore) -> None:
    events = growing_run(agents=2, rounds=3)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    assert [s for s, *_ in store.read_fields("r1", FIELDS, from_seq=4)] == list(
        range(5, len(events) + 1)
    )
    with pytest.raises(RunNotFoundError):
        store.read_fields("nope", FIELDS)
    for bad in ({"x": ("a'b",)}, {"x": ("",)}, {"x": ()}, {"x": "a"}):
        with pytest.raises(ValueError):
            store.read_fields("r1", bad)  # type: ignore[arg-type]


def answers_with_raw(count: int) -> list[NewEvent]:
    """Answers whose text and raw response (which repeats it) grow by a line each: both are
    stored packed against the answer before; some are stored whole only because of the raw
    response (long enough for later answers to be packed against), some are short."""
    events = []
    lines: list[str] = []
    for i in range(count):
        lines.append(f"[round {i}] what happened, told at some length to make it long enough.")
        text = "\n".join(lines)
        raw = {"output": [{"content": [{"text": text, "type": "output_text"}]}], "id": f"r{i}"}
        payload = {"answer": {"text": text, "raw": raw, "attempts": 1}, "address": f"a/{i}"}
        events.append(NewEvent(type="model.completed", payload=payload, agent="memo"))
        events.append(NewEvent(type="note", payload={"n": i, "raw": "kept: not this type"}))
    return events


def without_raw(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "answer": {k: v for k, v in payload["answer"].items() if k != "raw"}}


@pytest.mark.parametrize("as_text", [False, True])
def test_read_fields_leaves_out_what_omit_names_and_gives_the_rest_exactly(
    store: EventStore, as_text: bool
) -> None:
    events = answers_with_raw(60)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    omit = {"model.completed": ("answer.raw", "answer.nope", "nope.x")}
    read = list(store.read_fields("r1", FIELDS, as_text=as_text, omit=omit))
    assert [s for s, *_ in read] == list(range(1, len(events) + 1))
    for event, (_, type_, _, payload) in zip(events, read, strict=True):
        want = without_raw(event.payload) if type_ == "model.completed" else event.payload
        assert logical(payload) == want
    # Packed against earlier answers (text and raw), and read from any point on.
    stored = [e.payload for e in store.read("r1", keep_packed={"model.completed"})]
    assert sum(PACKED_KEY in p for p in stored) > 20
    middle = list(store.read_fields("r1", {}, from_seq=70, as_text=as_text, omit=omit))
    assert [logical(p) for *_, p in middle][::2] == [without_raw(e.payload) for e in events[70::2]]
    with pytest.raises(ValueError):
        store.read_fields("r1", FIELDS, omit={"model.requested": ("request",)})
