"""What the engine holds while it runs: it never runs far ahead of its store (with models
that answer at once and a slow store, it waits for the writer instead of queueing ever more
appends), and it gives the garbage collector back when the run ends. Frohlich's runs serve:
the engine and its writer know no experiment's events."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from maai.domain import experiments
from maai.ledger import EventStore
from maai.runtime import signing
from maai.runtime import writer as writer_module
from maai.runtime.call_context import current_request
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.simulated import SimulatedModel
from maai.runtime.writer import MAX_QUEUED_APPENDS
from tests.support.driver import make_config


def test_a_slow_store_holds_the_engine_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(phase2_rounds=1)
    lock = threading.Lock()
    counts = {"submitted": 0, "finished": 0, "most_waiting": 0}
    real_submit = writer_module.LedgerWriter.submit

    def finished(_: Any) -> None:
        with lock:
            counts["finished"] += 1

    def submit(self: Any, events: Any) -> Any:
        with lock:
            counts["submitted"] += 1
            waiting = counts["submitted"] - counts["finished"]
            counts["most_waiting"] = max(counts["most_waiting"], waiting)
        future = real_submit(self, events)
        # Stored (batches queued meanwhile are stored together: one append for them all).
        future.add_done_callback(finished)
        return future

    monkeypatch.setattr(writer_module.LedgerWriter, "submit", submit)
    with EventStore.open(str(tmp_path / "ledger.db")) as store:
        real_append = store.append

        def slow_append(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.02)  # a slow disk; the simulated models answer at once
            return real_append(*args, **kwargs)

        monkeypatch.setattr(store, "append", slow_append)
        run_id = start_run(store, config)
        state = asyncio.run(Engine(store, run_id, LiveExecutor(config)).run())
        assert state.status == "completed"
        assert store.head(run_id) == len(list(store.read(run_id)))
    assert counts["submitted"] > 20
    # The one being written, the queued ones, and the one just handed over before the check.
    assert counts["most_waiting"] <= MAX_QUEUED_APPENDS + 2


def test_a_finished_run_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """The engine freezes what is alive while it runs (no full collections of the loaded
    history); once the run is over, nothing stays frozen."""
    import gc

    config = make_config(phase2_rounds=1)
    with EventStore.open(str(tmp_path / "ledger.db")) as store:
        run_id = start_run(store, config)
        asyncio.run(Engine(store, run_id, LiveExecutor(config)).run())
    assert gc.get_freeze_count() == 0


def test_batches_queued_behind_a_slow_append_are_stored_together_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signing_key: str
) -> None:
    """A group commit: what the engine submits while an append is being written goes to the
    store as one append (one transaction) after it, in the order submitted; the chain is
    whole and the head is still signed once every ``checkpoint_every`` events."""
    config = make_config(phase2_rounds=1)
    counts = {"submitted": 0, "appends": 0, "largest": 0}
    real_submit = writer_module.LedgerWriter.submit

    def submit(self: Any, events: Any) -> Any:
        counts["submitted"] += 1
        return real_submit(self, events)

    monkeypatch.setattr(writer_module.LedgerWriter, "submit", submit)
    with EventStore.open(str(tmp_path / "ledger.db")) as store:
        real_append = store.append

        def slow_append(run_id: str, expected: int, events: Any) -> Any:
            time.sleep(0.02)
            counts["appends"] += 1
            counts["largest"] = max(counts["largest"], len(events))
            return real_append(run_id, expected, events)

        monkeypatch.setattr(store, "append", slow_append)
        run_id = start_run(store, config)
        signer = signing.load_signer(Path(signing_key))
        engine = Engine(store, run_id, LiveExecutor(config), signer=signer, checkpoint_every=10)
        state = asyncio.run(engine.run())
        assert state.status == "completed" and engine.warnings == []
        store.verify_chain(run_id)
        stored = list(store.read(run_id))
        head = store.head(run_id)
        signed = [cp.seq for cp in store.checkpoints(run_id)]
    assert [e.seq for e in stored] == list(range(1, head + 1))
    assert counts["appends"] < counts["submitted"]  # batches were stored together
    assert counts["largest"] > 10  # one append crossed a checkpoint stretch or more
    *periodic, last = signed
    assert last == head
    # A checkpoint in every stretch of 10 events, none skipped (the last one may be the
    # head's own, signed when the run stopped).
    assert sorted({seq // 10 for seq in signed}) == list(range(1, head // 10 + 1))
    assert all(b // 10 > a // 10 for a, b in zip(periodic, periodic[1:], strict=False))


class _FailsFirstAtOnce(SimulatedModel):
    """The simulated participant behind a connection that drops every call's first attempt
    before anything is sent: the failure comes back at once, while the engine is still
    sending the other calls of the same decision."""

    def __init__(self, policy: Any) -> None:
        super().__init__(policy)
        self.failed: set[str] = set()

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        request = current_request.get()
        assert request is not None
        if request.address not in self.failed:
            self.failed.add(request.address)
            raise TimeoutError("dropped before it was sent")
        return await super().get_response(*args, **kwargs)


def test_an_attempt_that_fails_at_once_is_recorded_after_its_request(tmp_path: Path) -> None:
    config = make_config(
        phase2_rounds=1, retry={"max_attempts": 2, "base_delay_s": 0.0, "max_delay_s": 0.0}
    )
    experiment = experiments.get("frohlich")
    models: dict[str, Any] = {}
    for agent in config.agents:
        models[agent.name] = _FailsFirstAtOnce(experiment.simulated_participant(config, agent.name))
    with EventStore.open(str(tmp_path / "ledger.db")) as store:
        run_id = start_run(store, config)
        executor = LiveExecutor(config, models=models)
        state = asyncio.run(Engine(store, run_id, executor).run())
        assert state.status == "completed"
        stored = list(store.read(run_id))
    requested: dict[str, int] = {}
    failures = 0
    for event in stored:
        if event.type == "model.requested":
            requested.setdefault(event.payload["request"]["address"], event.seq)
        elif event.type == "model.attempt_failed":
            failures += 1
            address = event.payload["address"]
            assert address in requested, f"seq {event.seq}: a failure of {address} first"
    # Every participant call failed once, several of them while others were being sent.
    assert failures == sum(
        1 for e in stored if e.type == "model.completed" and e.agent != "utility"
    )
