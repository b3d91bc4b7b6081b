"""The envelope: canonical JSON, hashing, normalization, the event models (no database)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from maai.canonical import canonical_json
from maai.ledger import GENESIS_HASH, InvalidEventError, NewEvent, StoredEvent, format_recorded_at
from maai.ledger.envelope import envelope_hash, envelope_json, stored_event
from maai.ledger.stored_json import normalize_json


def reference(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


# Text that can be stored: any Unicode scalar value except NUL.
texts = st.text(st.characters(codec="utf-8", exclude_characters="\x00"))
finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)
payloads = st.dictionaries(texts, json_values, max_size=6)


@given(payloads)
def test_canonical_json_is_json_dumps_with_the_canonical_settings(payload: dict[str, Any]) -> None:
    assert canonical_json(payload) == reference(payload)


@given(
    run_id=texts,
    seq=st.integers(min_value=1, max_value=2**62),
    type_=texts,
    schema_version=st.integers(min_value=1, max_value=10**6),
    payload=payloads,
    agent=st.none() | texts,
    recorded_at=texts,
    prev_hash=texts,
)
def test_spliced_envelope_equals_the_canonical_dict(
    run_id: str,
    seq: int,
    type_: str,
    schema_version: int,
    payload: dict[str, Any],
    agent: str | None,
    recorded_at: str,
    prev_hash: str,
) -> None:
    fields = {
        "run_id": run_id,
        "seq": seq,
        "type": type_,
        "schema_version": schema_version,
        "agent": agent,
        "recorded_at": recorded_at,
        "prev_hash": prev_hash,
    }
    spliced = envelope_json(
        run_id=run_id,
        seq=seq,
        type=type_,
        schema_version=schema_version,
        payload_json=canonical_json(payload),
        agent=agent,
        recorded_at=recorded_at,
        prev_hash=prev_hash,
    )
    assert spliced == reference({**fields, "payload": payload})


@given(payloads)
def test_normalization_is_idempotent_and_stable_through_text(payload: dict[str, Any]) -> None:
    normalized, text = normalize_json(payload, "payload")
    assert text == canonical_json(normalized)
    assert json.loads(text) == normalized
    assert normalize_json(normalized, "payload") == (normalized, text)
    # What normalization leaves as floats prints without a "+" exponent and is not -0.0:
    # exactly the floats that stay floats, unchanged, through PostgreSQL's numeric.
    for number in floats_in(normalized):
        assert "e+" not in repr(number)
        assert number != 0 or math.copysign(1, number) == 1


def floats_in(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in floats_in(v)]
    if isinstance(value, list):
        return [f for v in value for f in floats_in(v)]
    return []


def test_normalization_of_numbers_and_containers() -> None:
    value, text = normalize_json(
        {"t": (1, (2, 3)), "e": 1e16, "z": -0.0, "s": 2.5e-8, "k": {7: "x"}, "f": 2.0}, "p"
    )
    assert value == {
        "e": 10**16,
        "f": 2.0,
        "k": {"7": "x"},
        "s": 2.5e-8,
        "t": [1, [2, 3]],
        "z": 0.0,
    }
    assert type(value["e"]) is int and type(value["f"]) is float
    assert math.copysign(1, value["z"]) == 1
    assert text == '{"e":10000000000000000,"f":2.0,"k":{"7":"x"},"s":2.5e-08,"t":[1,[2,3]],"z":0.0}'


def test_normalized_payload_is_a_fresh_copy() -> None:
    inner = [1, 2]
    original = {"a": inner}
    value, _ = normalize_json(original, "p")
    inner.append(3)
    assert value == {"a": [1, 2]}


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"x": float("nan")}, "not storable as JSON"),
        ({"x": float("inf")}, "not storable as JSON"),
        ({"x": datetime(2025, 1, 1)}, "datetime is not JSON"),
        ({"x": {1, 2}}, "set is not JSON"),
        ({1: "a", "b": 2}, "not storable as JSON"),
        ({"x": "a\x00"}, "NUL"),
        ({"\x00": 1}, "NUL"),
    ],
)
def test_unstorable_payloads(payload: dict[Any, Any], fragment: str) -> None:
    with pytest.raises(InvalidEventError, match=fragment):
        normalize_json(payload, "payload")


def test_circular_payload() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(InvalidEventError, match="circular"):
        normalize_json(loop, "payload")


def test_text_that_merely_looks_like_a_nul_escape_is_fine() -> None:
    for text in ("\\u0000", "\\\\u0000", "x\\u0000y"):
        assert normalize_json({"x": text}, "p")[0] == {"x": text}


def test_lone_surrogates_cannot_be_hashed() -> None:
    _, text = normalize_json({"x": "\ud83d"}, "p")
    with pytest.raises(InvalidEventError, match="surrogate"):
        envelope_hash(
            run_id="r",
            seq=1,
            type="t",
            schema_version=1,
            payload_json=text,
            agent=None,
            recorded_at="x",
            prev_hash=GENESIS_HASH,
        )


def test_recorded_at_text() -> None:
    assert format_recorded_at(datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)) == (
        "2025-01-02T03:04:05.000000+00:00"
    )
    cet = timezone(timedelta(hours=1))
    assert format_recorded_at(datetime(2025, 1, 2, 4, 4, 5, 7, tzinfo=cet)) == (
        "2025-01-02T03:04:05.000007+00:00"
    )
    with pytest.raises(ValueError, match="timezone-aware"):
        format_recorded_at(datetime(2025, 1, 2))


def test_new_event_validation() -> None:
    event = NewEvent(type="model.request", payload={"a": 1}, agent="alice")
    assert event.schema_version == 1
    for bad, named in (
        ({"type": "", "payload": {}}, "event type"),
        ({"type": "t", "payload": {}, "schema_version": 0}, "schema_version"),
        ({"type": "t", "payload": {}, "schema_version": True}, "schema_version"),
        ({"type": "t", "payload": {}, "agent": ""}, "agent"),
        ({"type": "t", "payload": [1]}, "payload"),
        ({"type": "x" * 201, "payload": {}}, "event type"),
        ({"type": 7, "payload": {}}, "event type"),
        ({"type": "t", "payload": {}, "agent": "a\x00"}, "NUL"),
    ):
        with pytest.raises(InvalidEventError, match=named):
            NewEvent(**bad)
    with pytest.raises(TypeError):
        NewEvent(type="t", payload={}, seq=3)  # type: ignore[call-arg]


def test_stored_event_fast_construction_equals_validation() -> None:
    fields: dict[str, Any] = {
        "position": 7,
        "run_id": "r",
        "seq": 3,
        "type": "t",
        "schema_version": 2,
        "payload": {"a": [1]},
        "agent": None,
        "recorded_at": datetime(2025, 1, 1, tzinfo=UTC),
        "prev_hash": GENESIS_HASH,
        "hash": "ab" * 32,
    }
    fast = stored_event(**fields)
    slow = StoredEvent(**fields)
    assert fast == slow
    assert fast.model_dump() == slow.model_dump() == fields
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_copy(update={"seq": 4}).seq == 4
    with pytest.raises(ValidationError):
        fast.seq = 5
