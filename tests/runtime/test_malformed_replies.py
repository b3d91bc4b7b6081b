"""A 200 reply whose body is malformed JSON or an HTML page (an OpenAI-compatible server behind
a proxy that answers with its own error page) is a transient fault: retried with backoff,
each attempt recorded as ``model.attempt_failed`` (kind ``bad_response``), never a crash.
Everything goes to the tests' own loopback server. Frohlich's config serves: the call path
is the same for every experiment."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from maai.domain.config import RetryConfig
from maai.domain.events import ModelAttemptFailed, ModelCallCompleted
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.call_errors import ErrorKind, ModelCallError, classify
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from maai.runtime.verify import verify_events
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import LoopbackServer, Reply, chat_completion
from tests.support.provider_calls import (
    Recorder,
    make_request,
    responses_body,
    run_call,
)

HTML_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
    "<body><h1>Bad Gateway</h1><p>The proxy server received an invalid response.</p></body>"
    "</html>\n"
)
TRUNCATED_JSON = '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mes'

# The loopback server always sends content-type application/json; a reply may add another
# (the client then sees both, joined: not JSON). Both of the openai client's paths are met:
# a body declared JSON that does not parse, and a body it hands over as text.
BODIES = {
    "html page": Reply(body=HTML_PAGE, headers={"content-type": "text/html"}),
    "html declared as json": Reply(body=HTML_PAGE),
    "malformed json": Reply(body=TRUNCATED_JSON),
    "empty body": Reply(body=""),
    "a json string": Reply(body='"upstream error"'),
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_malformed_200_is_retried_and_recorded(server: LoopbackServer, name: str) -> None:
    server.script(BODIES[name], BODIES[name], Reply(body=chat_completion("I choose (a).")))
    recorder = Recorder()

    answer = run_call(server, make_request(), recorder)

    assert answer.text == "I choose (a)." and answer.attempts == 3
    assert [f.attempt for f in recorder.failures] == [1, 2]
    for failure in recorder.failures:
        assert failure.error_kind is ErrorKind.BAD_RESPONSE
        assert failure.retryable and failure.retry_delay_s is not None
        assert failure.message.startswith("the body is ")
    assert recorder.sleeps == [f.retry_delay_s for f in recorder.failures]
    assert len(server.received) == 3


def test_what_the_body_looked_like_is_recorded_briefly(server: LoopbackServer) -> None:
    server.script(BODIES["html page"], BODIES["malformed json"], Reply(body=chat_completion("ok")))
    recorder = Recorder()
    run_call(server, make_request(), recorder)
    html, broken = recorder.failures
    assert html.message.startswith("the body is text, not a model response: '<!DOCTYPE html>")
    assert len(html.message) < 200
    assert broken.message.startswith("the body is not valid JSON (")
    assert "chatcmpl-1" in broken.message


def test_a_malformed_200_every_time_fails_the_call_cleanly(server: LoopbackServer) -> None:
    server.script(*[BODIES["html page"]] * 3)
    recorder = Recorder()
    retry = RetryConfig(max_attempts=3, base_delay_s=0.001, max_delay_s=1, timeout_s=5)
    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder, retry=retry)
    assert len(recorder.failures) == 3 and recorder.failures[-1].retry_delay_s is None
    assert str(caught.value).startswith(
        "agent alice, purpose choice, model llama3.1:8b: bad response: the body is text"
    )
    assert str(caught.value).endswith("(after 3 attempts)")


def test_the_openai_route_treats_them_alike(server: LoopbackServer) -> None:
    server.script(BODIES["html page"], BODIES["malformed json"], Reply(body=RESPONSES_BODY))
    env = {"OPENAI_API_KEY": "sk-openai-test-0000000000", "OPENAI_BASE_URL": server.base_url}
    recorder = Recorder()
    answer = run_call(server, make_request(model="openai:gpt-4o"), recorder, provider=None, env=env)
    assert answer.text == "(d) $2,000"
    assert [f.error_kind for f in recorder.failures] == [ErrorKind.BAD_RESPONSE] * 2


RESPONSES_BODY = responses_body("(d) $2,000")


def test_in_a_run_each_attempt_is_in_the_ledger(server: LoopbackServer, tmp_path: Path) -> None:
    """Through the engine: Bob's first call meets an HTML page, then a truncated body; both
    attempts are recorded, the run completes and verifies."""
    model = FakeModel()
    server.script(BODIES["html page"], BODIES["malformed json"], *[model.reply] * 10_000)

    def edit(data: dict[str, Any]) -> None:
        serve_agent(data, "Bob", server.base_url)
        data["retry"] = {"max_attempts": 3, "base_delay_s": 0.01, "max_delay_s": 0.05}

    config_path = write_config(tmp_path / "proxy.yaml", agents=3, rounds=2, edit=edit)
    config = load_config(config_path)
    db = str(tmp_path / "ledger.db")
    with EventStore.open(db) as store:
        run_id = start_run(store, config)
        asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
        assert store.get_run(run_id).status == "completed"
        history = history_from_stored(run_id, store.read(run_id))
        assert verify_events(store.read(run_id)).ok
    failed = [e for _, e in history.of(ModelAttemptFailed)]
    assert [(e.agent, e.attempt, e.error_kind, e.retryable) for e in failed] == [
        ("Bob", 1, "bad_response", True),
        ("Bob", 2, "bad_response", True),
    ]
    assert failed[0].address == failed[1].address
    (done,) = [e for _, e in history.of(ModelCallCompleted) if e.address == failed[0].address]
    assert done.answer.attempts == 3
    assert model.unknown == []


def test_other_errors_are_not_taken_for_a_malformed_body() -> None:
    class Response:
        pass

    try:
        Response().choices  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        found = classify(exc, timeout_s=1)
    assert (found.kind, found.retryable) == (ErrorKind.OTHER, False)
    try:
        "text".missing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        found = classify(exc, timeout_s=1)
    assert (found.kind, found.retryable) == (ErrorKind.OTHER, False)
