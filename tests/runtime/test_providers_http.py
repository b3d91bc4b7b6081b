"""The OpenAI-compatible path over real HTTP, against a loopback server of the tests' own.

What matters is what the engine gets to record: the attempt failures handed to the callback,
and the final answer (or the final error).
"""

from __future__ import annotations

import json

import pytest

from maai.domain.calls import ModelAnswer, canonical_json
from maai.domain.config import ProviderConfig, RetryConfig
from maai.domain.frohlich.extraction import (
    CHOICE_SCHEMA,
    ChoiceExtraction,
    ExtractionFailure,
    parse_extraction,
    request_schema_fields,
)
from maai.domain.frohlich.purposes import Purpose
from maai.runtime.call_errors import ErrorKind, ModelCallError
from maai.runtime.providers import NO_KEY_PLACEHOLDER
from maai.runtime.sdk_responses import answer_to_sdk_response, response_to_raw
from tests.runtime.loopback_http import LoopbackServer, Received, Reply, chat_completion, error_body
from tests.support.provider_calls import (
    KEY,
    KEY_ENV,
    MODEL,
    Recorder,
    make_request,
    responses_body,
    run_call,
)


def test_normal_answer_is_recorded_and_round_trips(server: LoopbackServer) -> None:
    server.script(Reply(body=chat_completion("I choose (a)."), headers={"x-request-id": "req-42"}))
    recorder = Recorder()

    answer = run_call(server, make_request(), recorder)

    assert answer.text == "I choose (a)."
    assert (answer.usage.requests, answer.usage.input_tokens, answer.usage.output_tokens) == (
        1,
        11,
        7,
    )
    assert answer.attempts == 1 and answer.latency_ms > 0
    assert recorder.failures == [] and recorder.sleeps == []
    (got,) = server.received
    assert got.path == "/v1/chat/completions"
    assert got.headers["authorization"] == f"Bearer {KEY}"
    assert got.body["model"] == MODEL  # sent verbatim, colon and all
    assert got.body["temperature"] == 0.3
    assert got.body["messages"] == [
        {"role": "system", "content": "You are alice."},
        {"role": "user", "content": "Which principle do you choose?"},
    ]
    assert "response_format" not in got.body
    assert got.headers["x-stainless-retry-count"] == "0"
    # The raw response survives the ledger (JSON) and rebuilds the SDK response exactly.
    stored = json.loads(canonical_json(answer.model_dump(mode="json")))
    restored = ModelAnswer.model_validate(stored)
    assert restored == answer
    rebuilt = answer_to_sdk_response(restored)
    assert rebuilt.request_id == "req-42"
    assert response_to_raw(rebuilt) == answer.raw


def test_temperature_is_not_sent_when_none(server: LoopbackServer) -> None:
    server.script(Reply(body=chat_completion("ok")))
    run_call(server, make_request(temperature=None), Recorder())
    assert "temperature" not in server.received[0].body


def test_keyless_server_gets_a_placeholder_never_the_openai_key(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leave-0000")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-must-not-leave")
    server.script(Reply(body=chat_completion("ok")))
    run_call(server, make_request(), Recorder(), provider=ProviderConfig(base_url=server.base_url))
    headers = server.received[0].headers
    assert headers["authorization"] == f"Bearer {NO_KEY_PLACEHOLDER}"
    assert "openai-organization" not in headers


def test_rate_limit_with_retry_after_then_success(server: LoopbackServer) -> None:
    server.script(
        Reply(429, error_body("Rate limit reached", "rate_limit"), {"retry-after": "2"}),
        Reply(body=chat_completion("(b)")),
    )
    recorder = Recorder()

    answer = run_call(server, make_request(), recorder)

    assert answer.text == "(b)" and answer.attempts == 2
    (failure,) = recorder.failures
    assert failure.error_kind is ErrorKind.RATE_LIMIT
    assert failure.http_status == 429 and failure.retryable
    assert failure.retry_delay_s == 2.0  # the server's wait, not our backoff
    assert failure.attempt == 1 and failure.address == "p1/alice/r3/choice/1"
    assert failure.message == "Rate limit reached"
    assert recorder.sleeps == [2.0]
    assert len(server.received) == 2


def test_retry_after_over_the_total_wait_gives_up_at_once_saying_why(
    server: LoopbackServer,
) -> None:
    server.script(
        Reply(429, error_body("slow down"), {"retry-after": "3600"}),
        Reply(body=chat_completion("ok")),
    )
    recorder = Recorder()
    retry = RetryConfig(max_attempts=2, base_delay_s=0.001, max_delay_s=5, timeout_s=5)
    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder, retry=retry)
    assert recorder.sleeps == [] and len(server.received) == 1
    assert "a wait of 3,600 s, over the 600 s left of retry.max_wait_s" in str(caught.value)


def test_a_sustained_429_is_waited_out_past_max_attempts(server: LoopbackServer) -> None:
    """Busy servers (429, 503) are asked again for as long as retry.max_wait_s allows, each
    Retry-After honoured whole (not capped at max_delay_s); other errors keep max_attempts."""
    server.script(
        *(Reply(429, error_body("slow down"), {"retry-after": "40"}) for _ in range(4)),
        Reply(503, error_body("overloaded"), {"retry-after": "40"}),
        Reply(body=chat_completion("ok")),
    )
    recorder = Recorder()
    retry = RetryConfig(max_attempts=2, base_delay_s=0.001, max_delay_s=5, max_wait_s=200)
    answer = run_call(server, make_request(), recorder, retry=retry)
    assert answer.text == "ok" and answer.attempts == 6
    assert recorder.sleeps == [40.0] * 5
    server.script(*(Reply(429, error_body("slow down"), {"retry-after": "40"}) for _ in range(9)))
    recorder = Recorder()
    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder, retry=retry)
    assert recorder.sleeps == [40.0] * 5  # 200 s in all, then no more
    assert "over the 0.0 s left of retry.max_wait_s" in str(caught.value)


def test_server_error_three_times_gives_up(server: LoopbackServer) -> None:
    server.script(*(Reply(500, error_body("upstream exploded")) for _ in range(3)))
    recorder = Recorder()
    retry = RetryConfig(max_attempts=3, base_delay_s=0.01, max_delay_s=1, timeout_s=5)

    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder, retry=retry)

    assert [f.attempt for f in recorder.failures] == [1, 2, 3]
    assert all(
        f.error_kind is ErrorKind.SERVER_ERROR and f.http_status == 500 for f in recorder.failures
    )
    assert all(f.retryable for f in recorder.failures)
    assert recorder.failures[-1].retry_delay_s is None  # gave up
    # Exponential backoff with jitter: within [ceiling/2, ceiling] of 0.01 * 2**(n-1).
    assert 0.005 <= recorder.sleeps[0] <= 0.01 and 0.01 <= recorder.sleeps[1] <= 0.02
    assert [f.retry_delay_s for f in recorder.failures[:2]] == recorder.sleeps
    error = caught.value
    assert str(error) == (
        f"agent alice, purpose choice, model {MODEL}: HTTP 500 upstream exploded (after 3 attempts)"
    )
    assert error.failures == recorder.failures and error.__context__ is None
    assert len(server.received) == 3


def test_read_timeout_then_success(server: LoopbackServer) -> None:
    server.script(
        Reply(body=chat_completion("late"), delay_s=2.0), Reply(body=chat_completion("on time"))
    )
    recorder = Recorder()
    retry = RetryConfig(max_attempts=2, base_delay_s=0.001, max_delay_s=1, timeout_s=0.2)

    answer = run_call(server, make_request(), recorder, retry=retry)

    assert answer.text == "on time" and answer.attempts == 2
    (failure,) = recorder.failures
    assert failure.error_kind is ErrorKind.TIMEOUT and failure.retryable
    assert failure.http_status is None
    # It gave up near 0.2 s, long before the server would have answered.
    assert 150 <= failure.latency_ms < 1900


def test_dropped_connection_then_success(server: LoopbackServer) -> None:
    server.script(Reply(drop=True), Reply(body=chat_completion("back")))
    recorder = Recorder()

    answer = run_call(server, make_request(), recorder)

    assert answer.text == "back" and answer.attempts == 2
    (failure,) = recorder.failures
    assert failure.error_kind is ErrorKind.CONNECTION and failure.retryable


def test_unauthorized_fails_at_once_and_never_shows_the_key(server: LoopbackServer) -> None:
    server.script(
        Reply(401, error_body(f"Incorrect API key provided: {KEY}", "invalid_request_error")),
        Reply(body=chat_completion("must not be asked")),
    )
    recorder = Recorder()

    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder)

    assert len(server.received) == 1
    (failure,) = recorder.failures
    assert failure.error_kind is ErrorKind.HTTP_ERROR and not failure.retryable
    assert failure.http_status == 401 and failure.retry_delay_s is None
    message = str(caught.value)
    assert message.startswith(f"agent alice, purpose choice, model {MODEL}: HTTP 401 ")
    assert "Incorrect API key provided" in message
    for text in (message, failure.model_dump_json(), repr(caught.value.failures)):
        assert KEY not in text
        assert KEY[8:] not in text
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_answer_breaking_the_json_schema_is_recorded_and_reported(server: LoopbackServer) -> None:
    broken = '{"principle": "e", "amount": "lots of money"}'

    def reply(got: Received) -> Reply:
        fmt = got.body.get("response_format")
        if not fmt or fmt["type"] != "json_schema" or fmt["json_schema"]["schema"] != CHOICE_SCHEMA:
            return Reply(400, error_body(f"expected the choice schema, got {fmt!r}"))
        return Reply(body=chat_completion(broken))

    server.script(reply)
    fields, extra_prompt = request_schema_fields(ChoiceExtraction, json_schema=True)
    request = make_request(
        address="p1/alice/r3/choice/1/extract/1",
        agent="utility",
        purpose=Purpose.EXTRACT,
        input="Extract the choice from: I pick the fifth one.",
        temperature=0.0,
        **fields,
    )
    assert extra_prompt == ""
    recorder = Recorder()

    answer = run_call(server, request, recorder)

    assert recorder.failures == []
    assert server.received[0].body["response_format"]["json_schema"]["strict"] is True
    assert answer.text == broken  # recorded as it came, judged by the parser
    result = parse_extraction(answer.text, ChoiceExtraction)
    assert isinstance(result, ExtractionFailure)
    assert (
        "principle" in result.reason and "amount" in result.reason and "readable" in result.reason
    )


def test_server_without_json_schema_support_gets_the_schema_in_the_prompt(
    server: LoopbackServer,
) -> None:
    def reply(got: Received) -> Reply:
        if "response_format" in got.body:
            return Reply(400, error_body("response_format is not supported"))
        prompt = got.body["messages"][-1]["content"]
        if '"additionalProperties": false' not in prompt:
            return Reply(400, error_body("the schema is missing from the prompt"))
        fenced = '```json\n{"principle": "c", "amount": 13000, "readable": true}\n```'
        return Reply(body=chat_completion(fenced))

    server.script(reply)
    provider = ProviderConfig(base_url=server.base_url, api_key_env=KEY_ENV, json_schema=False)
    fields, extra_prompt = request_schema_fields(ChoiceExtraction, json_schema=provider.json_schema)
    assert fields == {}
    request = make_request(
        agent="utility",
        purpose=Purpose.EXTRACT,
        input=f"Extract the choice from: floor constraint of $13,000.\n\n{extra_prompt}",
        temperature=0.0,
        **fields,
    )
    recorder = Recorder()

    answer = run_call(server, request, recorder, provider=provider)

    assert recorder.failures == [] and "response_format" not in server.received[0].body
    result = parse_extraction(answer.text, ChoiceExtraction)
    assert isinstance(result, ChoiceExtraction)
    assert (result.principle, result.amount, result.readable) == ("c", 13000, True)


def test_openai_route_uses_the_responses_api_and_the_openai_key(server: LoopbackServer) -> None:
    body = responses_body("(d) $2,000")
    server.script(Reply(body=body))
    env = {"OPENAI_API_KEY": "sk-openai-test-0000000000", "OPENAI_BASE_URL": server.base_url}
    request = make_request(model="openai:gpt-4o")

    answer = run_call(server, request, Recorder(), provider=None, env=env)

    assert answer.text == "(d) $2,000"
    (got,) = server.received
    assert got.path == "/v1/responses"
    assert got.headers["authorization"] == "Bearer sk-openai-test-0000000000"
    assert got.body["model"] == "gpt-4o" and got.body["instructions"] == "You are alice."
    assert got.body["temperature"] == 0.3
    assert response_to_raw(answer_to_sdk_response(answer)) == answer.raw
