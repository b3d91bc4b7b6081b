"""Whatever order a backend keeps a JSON object's keys in (PostgreSQL's JSONB: shorter keys
first), a reader gets them in canonical order (sorted, as canonical JSON writes them): what
is rendered from a payload or a run's config is then the same on every backend."""

from __future__ import annotations

from maai.ledger import EventStore, NewEvent

# Insertion order, sorted order and JSONB's order (by length, then bytes) all differ.
PAYOFFS = {"Mona": 12.5, "Al": 10.0, "Beatrice": 7.25, "Zed": 3.0}
CANONICAL = ["Al", "Beatrice", "Mona", "Zed"]


def test_payloads_and_configs_come_back_in_canonical_key_order(store: EventStore) -> None:
    config = {"rooms": {"plaza": 1, "booth": 2, "at": 3}, "name": "x"}
    store.create_run("r1", "test", config)
    payload = {"payoffs": PAYOFFS, "round": 1, "a": [{"zz": 1, "b": 2}]}
    store.append("r1", 0, [NewEvent(type="t", payload=payload)])
    (stored,) = store.read("r1")
    assert list(stored.payload) == ["a", "payoffs", "round"]
    assert list(stored.payload["payoffs"]) == CANONICAL
    assert list(stored.payload["a"][0]) == ["b", "zz"]
    ((_, _, _, fields),) = store.read_fields("r1", {})
    assert isinstance(fields, dict) and list(fields["payoffs"]) == CANONICAL
    info = store.get_run("r1")
    assert list(info.config) == ["name", "rooms"]
    assert list(info.config["rooms"]) == ["at", "booth", "plaza"]
    assert list(store.list_runs()[0].config["rooms"]) == ["at", "booth", "plaza"]
