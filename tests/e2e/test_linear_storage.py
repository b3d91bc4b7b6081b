"""Runs of every installed experiment on a ledger that packs repeated text: every prompt comes back
exactly as it was sent (its hash is the recorded request hash), the run verifies and
replays, and the ledger holds a fraction of what the prompts add up to."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from maai.canonical import canonical_json
from maai.domain import experiments
from maai.domain.calls import REQUEST_HASH_VERSION, ModelRequest
from maai.domain.events import ModelCallRequested
from maai.domain.experiments import parse_config
from maai.ledger import EventStore
from maai.projections.request_hashes import hash_v2
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.fold import load_state
from maai.runtime.runs import start_run
from maai.runtime.verify import verify_events
from tests.support.examples import example


def discussion(agents: int, rounds: int) -> dict[str, Any]:
    """A Frohlich run whose group never agrees: four camps that never give in."""
    people = [
        {
            "name": f"Agent{i + 1}",
            "model": "simulated",
            "persona": {
                "preferred_principle": "abcd"[i % 4],
                "stubbornness": 1.0,
                "conformity": 0.0,
            },
        }
        for i in range(agents)
    ]
    return {
        "experiment": "frohlich",
        "name": "long-discussion",
        "seed": 3,
        "phase2_rounds": rounds,
        "agents": people,
        "tracing": False,
    }


def config_of(experiment: str, agents: int, rounds: int) -> Any:
    """A long Frohlich discussion (the one whose prompts repeat the most), or the
    experiment's example."""
    if experiment == "frohlich":
        return parse_config(discussion(agents=agents, rounds=rounds))[1]
    return example(experiment)


def record(path: Path, config: Any, request_hash_version: int = REQUEST_HASH_VERSION) -> str:
    with EventStore.open(str(path)) as store:
        run_id = start_run(store, config, run_id="r", request_hash_version=request_hash_version)
        asyncio.run(Engine(store, run_id, LiveExecutor(config), signer=None).run())
    return run_id


@pytest.mark.parametrize("hash_version", [1, 2])
@pytest.mark.parametrize("experiment", experiments.names())
def test_every_prompt_is_recovered_exactly(
    tmp_path: Path, experiment: str, hash_version: int
) -> None:
    db = tmp_path / "ledger.db"
    run_id = record(db, config_of(experiment, agents=5, rounds=6), hash_version)
    with EventStore.open(str(db)) as store:
        stored = list(store.read(run_id))
        requests = [e for e in stored if e.type == "model.requested"]
        assert requests
        cut = [e for e in requests if "hash_cuts" in e.payload["request"]]
        # Version 1 hashes every request whole; version 2 cuts the shared history out, as in
        # every Phase-2 discussion request of Frohlich's.
        assert not cut if hash_version == 1 else (bool(cut) or experiment != "frohlich")
        for event in requests:
            request = ModelRequest.model_validate(event.payload["request"])
            assert request.request_hash() == event.payload["request_hash"], event.seq
        for event in cut:  # and by the audit's own code, from the stored JSON alone
            assert hash_v2(event.payload["request"]) == event.payload["request_hash"]
        assert verify_events(stored).ok
        _, head = load_state(store, run_id)
        assert head == len(stored) and stored[-1].type == "run.completed"
    whole = sum(len(canonical_json(e.payload).encode()) for e in stored)
    with sqlite3.connect(db) as raw:
        kept = raw.execute("SELECT sum(length(CAST(payload AS BLOB))) FROM events").fetchone()[0]
    if experiment == "frohlich":
        # Each prompt repeats the whole discussion so far; the ledger keeps it once.
        assert kept < whole / 2, (kept, whole)
    else:
        assert kept <= whole


def test_a_long_discussion_grows_the_ledger_linearly(tmp_path: Path) -> None:
    sizes = []
    for rounds in (3, 6):
        db = tmp_path / f"{rounds}.db"
        record(db, parse_config(discussion(agents=4, rounds=rounds))[1])
        with sqlite3.connect(db) as raw:
            events, kept = raw.execute(
                "SELECT count(*), sum(length(CAST(payload AS BLOB))) FROM events"
            ).fetchone()
        sizes.append((events, kept))
    (events_a, bytes_a), (events_b, bytes_b) = sizes
    # Bytes per event stay about the same as the run doubles (they doubled when stored whole).
    assert (bytes_b / events_b) / (bytes_a / events_a) < 1.3, sizes


@pytest.mark.parametrize("experiment", experiments.names())
def test_folding_without_the_request_texts_gives_the_full_state(
    tmp_path: Path, experiment: str
) -> None:
    db = tmp_path / "ledger.db"
    run_id = record(db, config_of(experiment, agents=4, rounds=4))
    with EventStore.open(str(db)) as store:
        folded, head = load_state(store, run_id)
        kind = experiments.get(store.get_run(run_id).kind)
        full = kind.initial_state()
        for stored in store.read(run_id):
            full = kind.evolve(
                full, kind.registry.decode(stored.type, stored.schema_version, stored.payload)
            )
    assert head > 0 and folded == full


def test_a_reducer_reading_a_request_text_while_folding_is_told_the_rule(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ledger.db"
    run_id = record(db, parse_config(discussion(agents=3, rounds=1))[1])
    kind = experiments.get("frohlich")

    def nosy(state: Any, event: Any) -> Any:
        if isinstance(event, ModelCallRequested):
            _ = event.request.input
        return kind.evolve(state, event)

    class Nosy(type(kind)):  # type: ignore[misc]
        pass

    nosy_kind = Nosy()
    nosy_kind.evolve = nosy  # type: ignore[method-assign]
    with EventStore.open(str(db)) as store, pytest.raises(AttributeError, match="evolve may"):
        load_state(store, run_id, nosy_kind)
