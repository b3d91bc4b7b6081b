"""A provider that keeps failing stops the run (status ``failed``, a resumable history, a
message naming agent, step and model); once it recovers, ``maai resume`` completes the run,
and the result is the run the model would have given without the outage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maai.domain.events import ModelAttemptFailed, ModelCallCompleted, ModelCallRequested, RunFailed
from maai.ledger import EventStore
from maai.runtime.verify import verify_events
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.history import decode, differences, domain_history, only_run
from tests.e2e.launcher import Launcher
from tests.e2e.runs import References, write_config
from tests.runtime.loopback_http import LoopbackServer, loopback_server

AGENT = "Bob"
# Bob's calls in Phase 1: 1.1 ranking, 1.1 memory, 1.2 ranking, 1.2 memory, ...
GOOD_BEFORE_OUTAGE = 3
FAILING_CALL = f"p1/{AGENT}/s1.2/memory"


@pytest.fixture
def fake_server() -> Iterator[tuple[LoopbackServer, FakeModel]]:
    model = FakeModel()
    with loopback_server() as server:
        server.script(*[model.reply] * 10_000)
        yield server, model


def test_failing_provider_stops_run_and_resume_completes_it(
    cli: Launcher,
    references: References,
    fake_server: tuple[LoopbackServer, FakeModel],
    tmp_path: Path,
) -> None:
    server, model = fake_server

    def edit(data: dict[str, Any]) -> None:
        serve_agent(data, AGENT, server.base_url)
        data["retry"] = {"max_attempts": 2, "base_delay_s": 0.01}

    config = write_config(tmp_path / "failing.yaml", agents=3, rounds=3, edit=edit)
    ref = references.of(config)  # the same run with the model up all along
    assert model.unknown == [], model.unknown
    assert model.answered > 10

    model.fail_after(GOOD_BEFORE_OUTAGE)
    db = str(tmp_path / "failing.db")
    EventStore.open(db).close()
    failed_run = cli.run("run", config, "--db", db, "-q", real=True)
    assert failed_run.poll() == 1, failed_run.output()
    message = failed_run.flat_output()
    for part in (f"agent {AGENT}", "step memory", FAILING_CALL, "model some-model", "HTTP 500"):
        assert part in message, f"{part!r} not in the message:\n{failed_run.output()}"
    assert model.failed == 2  # max_attempts

    with EventStore.open(db) as store:
        info = only_run(store)
        assert info is not None
        assert info.status == "failed"
        assert f"maai resume {info.run_id}" in message
        events = [decode(e) for e in store.read(info.run_id)]
        attempts = [e for e in events if isinstance(e, ModelAttemptFailed)]
        assert [(a.address, a.attempt, a.status, a.error_kind) for a in attempts] == [
            (FAILING_CALL, 1, 500, "server_error"),
            (FAILING_CALL, 2, 500, "server_error"),
        ]
        assert attempts[0].retry_in_s is not None and attempts[1].retry_in_s is None
        assert all(a.agent == AGENT and "fake model is down" in a.message for a in attempts)
        (failure,) = [e for e in events if isinstance(e, RunFailed)]
        assert (failure.agent, failure.address) == (AGENT, FAILING_CALL)
        assert events.index(failure) > events.index(attempts[-1])
        answered = [e for e in events if isinstance(e, ModelCallCompleted)]
        assert FAILING_CALL not in {e.address for e in answered}

        model.recover()
        resumed = cli.run("resume", info.run_id, "--db", db, "-q")
        assert resumed.poll() == 0, resumed.output()
        assert store.get_run(info.run_id).status == "completed"
        stored = list(store.read(info.run_id))
        events = [decode(e) for e in stored]
        asked = [
            e.attempt
            for e in events
            if isinstance(e, ModelCallRequested) and e.request.address == FAILING_CALL
        ]
        assert asked == [1, 2]  # asked again by the resumed run
        answered = [e for e in events if isinstance(e, ModelCallCompleted)]
        assert FAILING_CALL in {e.address for e in answered}
        assert events[-1].TYPE == "run.completed"
        assert store.verify_chain(info.run_id).ok
        report = verify_events(stored)
        assert report.ok, [d.describe() for d in report.divergences]
        history = domain_history(stored, ref.agents)
    assert history.failures == 1
    assert not differences(history, ref.history), differences(history, ref.history)
