"""Record a session of calls of every purpose, then replay it without models or network.
Frohlich's purposes and schemas serve: recording and replay key calls by their request hash,
whatever the experiment."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from typing import Any

import pytest
from agents import ModelResponse
from agents.usage import Usage as SdkUsage
from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.calls import ModelAnswer, ModelRequest, canonical_json
from maai.domain.config import RetryConfig
from maai.domain.frohlich.extraction import RANKING_SCHEMA
from maai.domain.frohlich.purposes import Purpose
from maai.runtime.call_context import current_request
from maai.runtime.call_errors import AttemptFailure, ErrorKind, ModelCallError
from maai.runtime.recording import ModelCaller, backoff_delay
from maai.runtime.replay import ReplayCaller, ReplayMismatchError, ReplayMissError
from maai.runtime.sdk_responses import answer_to_sdk_response, response_text, response_to_raw
from tests.runtime.fake_models import EchoModel, ExplodingModel, message, session


def record(requests: list[ModelRequest]) -> tuple[list[str], EchoModel]:
    """Run the calls concurrently (as parallel agents do) and store them as a ledger would."""
    model = EchoModel()
    caller = ModelCaller(RetryConfig(), rng=random.Random(1))

    async def run() -> list[ModelAnswer]:
        return list(await asyncio.gather(*(caller.call(r, model) for r in requests)))

    answers = asyncio.run(run())
    ledger = [
        canonical_json({"request": r.model_dump(mode="json"), "answer": a.model_dump(mode="json")})
        for r, a in zip(requests, answers, strict=True)
    ]
    return ledger, model


def replay_caller(ledger: list[str], **kwargs: Any) -> ReplayCaller:
    pairs = []
    for line in ledger:
        event = json.loads(line)
        pairs.append(
            (
                ModelRequest.model_validate(event["request"]),
                ModelAnswer.model_validate(event["answer"]),
            )
        )
    return ReplayCaller.from_calls(pairs, **kwargs)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def test_record_then_replay_every_purpose_byte_identical(no_network: None) -> None:
    requests = session()
    ledger, model = record(requests)
    assert {r.purpose for r in model.calls} == set(Purpose)
    recorded = {
        json.loads(line)["request"]["address"]: json.loads(line)["answer"] for line in ledger
    }

    replay = replay_caller(ledger)
    exploding = ExplodingModel()

    async def run() -> list[ModelAnswer]:
        return [await replay.call(r, exploding) for r in requests]

    for request, answer in zip(requests, asyncio.run(run()), strict=True):
        assert canonical_json(answer.model_dump(mode="json")) == canonical_json(
            recorded[request.address]
        )
        assert answer.text == f"[{request.purpose}] {request.agent} answers {request.address}"
        # The SDK response rebuilt from the ledger serializes back to the same bytes.
        assert canonical_json(response_to_raw(answer_to_sdk_response(answer))) == canonical_json(
            answer.raw
        )
    assert replay.unserved() == []


def test_structured_output_reaches_the_model_as_a_strict_schema() -> None:
    requests = [r for r in session() if r.purpose == Purpose.EXTRACT]
    _, model = record(requests)
    (schema,) = model.schemas
    assert schema is not None and not schema.is_plain_text()
    assert schema.name() == "ranking_extraction" and schema.is_strict_json_schema()
    assert schema.json_schema() == RANKING_SCHEMA
    assert schema.validate_json('{"order": null}') == {"order": None}
    assert requests[0].output_schema == RANKING_SCHEMA  # untouched, so its hash holds


def test_changed_prompt_is_a_mismatch_naming_address_and_both_hashes() -> None:
    requests = session()
    ledger, _ = record(requests)
    replay = replay_caller(ledger)
    changed = requests[2].model_copy(update={"input": requests[2].input + " (reworded)"})

    with pytest.raises(ReplayMismatchError) as caught:
        asyncio.run(replay.call(changed, ExplodingModel()))

    error = caught.value
    assert error.address == changed.address
    assert error.recorded_hash == requests[2].request_hash()
    assert error.current_hash == changed.request_hash() != error.recorded_hash
    for part in (changed.address, error.recorded_hash, error.current_hash):
        assert part in str(error)


def test_unrecorded_address_is_a_miss() -> None:
    ledger, _ = record(session()[:3])
    replay = replay_caller(ledger)
    missing = session()[5]
    with pytest.raises(ReplayMissError) as caught:
        asyncio.run(replay.call(missing, ExplodingModel()))
    assert caught.value.address == missing.address
    assert missing.address in str(caught.value)


def test_live_fallback_serves_only_what_was_never_recorded() -> None:
    requests = session()
    ledger, _ = record(requests[:3])
    live = EchoModel()
    replay = replay_caller(ledger, live_fallback=live)

    async def run() -> list[ModelAnswer]:
        return [await replay.call(r) for r in requests[:5]]

    answers = asyncio.run(run())
    assert [r.address for r in live.calls] == [r.address for r in requests[3:5]]
    assert answers[4].text.endswith(requests[4].address)
    changed = requests[0].model_copy(update={"system": "You are someone else."})
    with pytest.raises(ReplayMismatchError):
        asyncio.run(replay.call(changed))
    assert len(live.calls) == 2


def test_a_call_recorded_as_failed_fails_again_on_replay() -> None:
    request = session()[1]
    failure = AttemptFailure(
        address=request.address,
        agent=request.agent,
        purpose=request.purpose,
        model=request.model,
        attempt=1,
        max_attempts=1,
        error_kind=ErrorKind.HTTP_ERROR,
        http_status=400,
        message="bad request",
        retryable=False,
    )
    replay = ReplayCaller({}, failed={request.address: (request.request_hash(), [failure])})
    with pytest.raises(ModelCallError) as caught:
        asyncio.run(replay.call(request, ExplodingModel()))
    assert caught.value.failures == [failure]
    assert replay.unserved() == []


def test_call_context_is_set_only_during_the_call() -> None:
    request = session()[0]
    assert current_request.get() is None
    asyncio.run(ModelCaller().call(request, EchoModel()))
    assert current_request.get() is None


class SlowModel(EchoModel):
    def __init__(self, delays: list[float]) -> None:
        super().__init__()
        self.delays = delays

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        await asyncio.sleep(self.delays.pop(0))
        return await super().get_response(*args, **kwargs)


def test_per_attempt_timeout_is_retried() -> None:
    failures: list[AttemptFailure] = []

    async def on_failed(failure: AttemptFailure) -> None:
        failures.append(failure)

    async def no_sleep(_: float) -> None:
        return None

    caller = ModelCaller(
        RetryConfig(max_attempts=3, base_delay_s=0.001, timeout_s=0.05),
        rng=random.Random(0),
        sleep=no_sleep,
    )
    answer = asyncio.run(
        caller.call(session()[0], SlowModel([1.0, 0.0]), on_attempt_failed=on_failed)
    )
    assert answer.attempts == 2
    assert [f.error_kind for f in failures] == [ErrorKind.TIMEOUT]
    assert failures[0].message == "no answer within 0.05 s"


class BrokenModel(EchoModel):
    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise ValueError("a bug in a custom model")


def test_unexpected_errors_are_not_retried() -> None:
    failures: list[AttemptFailure] = []

    async def on_failed(failure: AttemptFailure) -> None:
        failures.append(failure)

    with pytest.raises(ModelCallError, match="agent bob, purpose choice, model simulated: other"):
        asyncio.run(ModelCaller().call(session()[1], BrokenModel(), on_attempt_failed=on_failed))
    assert [(f.error_kind, f.retryable) for f in failures] == [(ErrorKind.OTHER, False)]


def test_refusals_are_kept_in_the_text() -> None:
    response = ModelResponse(
        output=[message("", refusal="I can't help with that.")], usage=SdkUsage(), response_id=None
    )
    assert response_text(response) == "I can't help with that."


@settings(max_examples=200, deadline=None)
@given(
    attempt=st.integers(1, 60),
    base=st.floats(0, 10, allow_nan=False),
    cap=st.floats(0, 100, allow_nan=False),
    seed=st.integers(0, 2**32),
)
def test_backoff_stays_within_half_and_whole_of_the_capped_exponential(
    attempt: int, base: float, cap: float, seed: int
) -> None:
    retry = RetryConfig(base_delay_s=base, max_delay_s=cap)
    ceiling = min(cap, base * 2 ** (attempt - 1))
    delay = backoff_delay(attempt, retry, random.Random(seed))
    assert ceiling / 2 <= delay <= ceiling
