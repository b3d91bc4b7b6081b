"""A long payload that the store packs is checked (NUL characters, floats to normalize) as
the text it stores rather than as its whole text (``EventStore._payload_texts``): the stored
rows, and the errors of what is refused, are those of checking every payload whole first."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from maai.canonical import FrozenJson, FrozenJsonList, WithShared, canonical_json_of
from maai.ledger import EventStore, InvalidEventError, NewEvent, store_appending, store_base
from maai.ledger.packed_values import Version
from maai.ledger.stored_json import encoded_json_parts, encoded_json_text
from tests.ledger.test_packing import growing_run

Outcome = tuple[list[tuple[Any, ...]], str | None]


def reference_texts(
    _: EventStore, events: Any
) -> tuple[list[str], dict[int, list[str]], list[int]]:
    """Every payload checked whole before packing (what the store did before)."""
    texts = store_appending._reference_payload_texts(events)
    return texts, {}, [len(text) for text in texts]


def fixed_clock() -> Callable[[], datetime]:
    moment = [datetime(2026, 1, 1, tzinfo=UTC)]

    def now() -> datetime:
        moment[0] += timedelta(seconds=1)
        return moment[0]

    return now


def appended(
    path: Path, batches: list[list[Any]], monkeypatch: pytest.MonkeyPatch, reference: bool
) -> Outcome:
    """The rows stored, and the message of the first append refused (the rest not tried)."""
    with monkeypatch.context() as patched:
        patched.setattr(store_base, "utcnow", fixed_clock())
        if reference:
            patched.setattr(EventStore, "_payload_texts", reference_texts)
        refused = None
        with EventStore.open(str(path)) as store:
            store.create_run("r1", "test", {})
            head = 0
            for batch in batches:
                try:
                    store.append("r1", head, batch)
                except InvalidEventError as exc:
                    refused = str(exc)
                    break
                head += len(batch)
    with sqlite3.connect(path) as raw:
        rows = raw.execute(
            "SELECT seq, type, agent, payload, recorded_at, prev_hash, hash FROM events"
            " ORDER BY seq"
        ).fetchall()
    return rows, refused


def in_batches(events: list[Any], size: int = 5) -> list[list[Any]]:
    return [events[i : i + size] for i in range(0, len(events), size)]


def with_payload(event: NewEvent, change: Callable[[dict[str, Any]], None]) -> NewEvent:
    payload = {"request": dict(event.payload["request"])}
    payload["request"]["context"] = dict(payload["request"]["context"])
    change(payload)
    return NewEvent(type=event.type, payload=payload, agent=event.agent)


def last_request(events: list[NewEvent]) -> int:
    return max(i for i, e in enumerate(events) if e.type == "model.requested")


def nul_in_new_line(payload: dict[str, Any]) -> None:
    request = payload["request"]
    request["input"] = request["input"].replace("Speak.", "Speak\x00.")


def floats_to_normalize(payload: dict[str, Any]) -> None:
    payload["request"]["settings"] = {"temperature": -0.0, "seed": 1e16, "top_p": 0.5}
    payload["request"]["context"]["scores"] = [-0.0, 1e22, 2.5, -0.0001]


def scenarios() -> Iterator[tuple[str, list[list[Any]]]]:
    events = growing_run(agents=3, rounds=6)
    yield "a clean run", in_batches(events)
    yield "one event per append", in_batches(events, 1)
    late = last_request(events)
    changed = list(events)
    changed[late] = with_payload(events[late], floats_to_normalize)
    changed[late - 2] = with_payload(events[late - 2], floats_to_normalize)
    yield "floats to normalize in packed requests", in_batches(changed)
    refused = list(events)
    refused[late] = with_payload(events[late], nul_in_new_line)
    yield "a NUL character in what a packed request adds", in_batches(refused)
    whole = in_batches(events)
    note = {"text": "a line of its own\n" * 400 + "\x00"}  # nothing earlier to pack against
    whole[1] = [*whole[1], NewEvent(type="note", payload=note, agent="a")]
    yield "a NUL character in a long payload stored whole", whole
    twice = list(events)
    twice[late - 2] = with_payload(events[late - 2], nul_in_new_line)
    twice[late] = NewEvent(type="t", payload={"x": float("nan")})
    yield "two events refused in one append: the first is named", [twice[: late - 3], twice]
    odd = list(events)
    odd[late] = "not an event"
    odd[late - 2] = with_payload(events[late - 2], nul_in_new_line)
    yield "a NUL character before something that is not an event", [odd[: late - 3], odd]
    shared = [
        NewEvent(
            type=e.type,
            payload=WithShared(
                attempt=1, request=FrozenJson(e.payload["request"]), request_hash="0" * 64
            ),
            agent=e.agent,
        )
        if e.type == "model.requested"
        else e
        for e in events
    ]
    yield "requests whose text the engine keeps", in_batches(shared)
    shared_refused = list(shared)
    shared_refused[late] = NewEvent(
        type="model.requested",
        payload=WithShared(
            attempt=1,
            request=FrozenJson(with_payload(events[late], nul_in_new_line).payload["request"]),
        ),
        agent=events[late].agent,
    )
    yield "a NUL character in a kept request", in_batches(shared_refused)
    # Near the length from which texts are checked as stored: "-0.0" rewritten as "0.0"
    # brings this one under MIN_EVENT_CHARS (4,096), where nothing is packed.
    zeros = {"zeros": [-0.0] * 820, "text": "line\n" * 20}
    near = [NewEvent(type="t", payload=zeros, agent="a") for _ in range(3)]
    yield "a payload that normalization shortens below the packing threshold", [near]


@pytest.mark.parametrize("name", [name for name, _ in scenarios()])
def test_checking_as_stored_stores_and_refuses_what_checking_whole_does(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches = dict(scenarios())[name]
    fast = appended(tmp_path / "fast.db", batches, monkeypatch, reference=False)
    reference = appended(tmp_path / "reference.db", batches, monkeypatch, reference=True)
    assert fast == reference
    rows, refused = fast
    assert rows  # something was stored: the comparison compares something
    if "NUL" in name or "refused" in name or "not an event" in name:
        assert refused is not None and refused.startswith("events[")
    else:
        assert refused is None


def test_a_nul_character_added_to_a_packed_request_is_refused(tmp_path: Path) -> None:
    events = growing_run(agents=3, rounds=6)
    late = last_request(events)
    events[late] = with_payload(events[late], nul_in_new_line)
    with EventStore.open(str(tmp_path / "l.db")) as store:
        store.create_run("r1", "test", {})
        store.append("r1", 0, events[:late])
        with pytest.raises(InvalidEventError, match=r"events\[0\] \(model.requested\).*NUL"):
            store.append("r1", late, events[late:])
        assert store.head("r1") == late


@pytest.mark.parametrize("seed", range(5))
def test_a_base_finds_each_line_at_its_first_place(seed: int) -> None:
    """Where a copy starts is stored (``[start, count]``): a line found at a later place
    would store other bytes, though they would rebuild the same text."""
    rng = random.Random(seed)
    lines = [f"line {rng.randrange(40)}" for _ in range(300)]
    first: dict[str, int] = {}
    for position, line in enumerate(lines):
        first.setdefault(line, position)
    assert Version(1, ("input",), "\n".join(lines)).index() == first


def test_a_kept_request_in_pieces_is_its_text() -> None:
    history = FrozenJsonList.extended(None, [FrozenJson(text="hi", n=1), FrozenJson(n=-0.5)])
    request = FrozenJson(input="Speak.\n" * 3, context={"history": history}, t=(1, 2))
    values: list[Any] = [
        WithShared(attempt=2, request=request, request_hash="ab", z=None, a=[history, 1.5]),
        WithShared(),
        WithShared({1: "keys that are not strings", 2: request}),
        {"plain": [1, 2.5, "x"]},
    ]
    for value in values:
        assert "".join(encoded_json_parts(value, "payload")) == canonical_json_of(value)
    with pytest.raises(InvalidEventError, match="not storable"):
        encoded_json_parts(WithShared(bad={1, 2}), "payload")


def test_a_request_in_pieces_is_refused_as_its_text_is() -> None:
    loop: list[Any] = []
    loop.append(loop)
    for bad, says in (({1, 2}, "not storable as JSON: "), (loop, "circular or nested too deeply")):
        refusals = []
        for encode in (encoded_json_parts, encoded_json_text):
            with pytest.raises(InvalidEventError, match=says) as refused:
                encode(WithShared(bad=bad), "request")
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1] and refusals[0].startswith("request ")
