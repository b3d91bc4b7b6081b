"""The recording model caller: one logical model call, with our own visible retries.

``ModelCaller.call`` sends a ``ModelRequest`` to any SDK ``Model`` and returns a
``ModelAnswer`` holding the text, the SDK response serialized so that it round-trips
exactly (``answer_to_sdk_response``), usage, latency and the number of attempts. Every
failed attempt is handed to a callback as an ``AttemptFailure`` before any wait, so the
engine can append it to the ledger; the OpenAI client's own retries are off
(``max_retries=0`` in ``runtime.providers``).

Nothing recorded or raised here may contain an API key: error text goes through
``runtime.scrubbing.scrub``, and ``ModelCallError`` does not chain the provider's
exception (whose request still carries the Authorization header).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from agents import Model, ModelSettings, ModelTracing

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.config import RetryConfig
from maai.runtime import live_status
from maai.runtime.call_context import calling
from maai.runtime.call_errors import AttemptFailure, ErrorKind, ModelCallError, classify
from maai.runtime.scrubbing import scrub
from maai.runtime.sdk_responses import (
    JsonSchemaOutput,
    response_reasoning,
    response_text,
    response_to_raw,
)
from maai.runtime.usage import read_usage

_MAX_MESSAGE_CHARS = 500


OnAttemptFailed = Callable[[AttemptFailure], Awaitable[None]]


class Caller(Protocol):
    """What the engine calls; ``ModelCaller`` and ``runtime.replay.ReplayCaller`` both are."""

    async def call(
        self,
        request: ModelRequest,
        model: Model | None,
        *,
        on_attempt_failed: OnAttemptFailed | None = None,
    ) -> ModelAnswer: ...


def backoff_delay(attempt: int, retry: RetryConfig, rng: random.Random) -> float:
    """Exponential backoff with jitter for the wait after failed attempt ``attempt``.

    Half the delay is fixed and half random, so the wait never collapses to zero while
    parallel agents hitting the same rate limit still spread out."""
    ceiling = min(retry.max_delay_s, retry.base_delay_s * 2.0 ** (attempt - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def _is_busy(kind: ErrorKind, status: int | None) -> bool:
    """A 429 or 503: the server is there, and says (or means) come back later."""
    return kind is ErrorKind.RATE_LIMIT or status == 503


def _waits(failure: AttemptFailure) -> bool:
    return _is_busy(failure.error_kind, failure.http_status)


def _seconds(value: float) -> str:
    """Seconds as a person reads them: whole from 10 s on, else to a tenth."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _waiting_note(failure: AttemptFailure, waited_s: float, retry: RetryConfig) -> str:
    """The live line's note while a call waits on a busy server."""
    why = f"HTTP {failure.http_status}" if failure.http_status is not None else "rate limited"
    return (
        f"{failure.address}: {why}, waiting for the server (attempt {failure.attempt};"
        f" {_seconds(waited_s)} of {_seconds(retry.max_wait_s)} s allowed)"
    )


# --- the caller -----------------------------------------------------------------------------


class ModelCaller:
    """Calls a model for a ``ModelRequest``, retrying transient failures visibly."""

    def __init__(
        self,
        retry: RetryConfig | None = None,
        *,
        tracing: ModelTracing = ModelTracing.ENABLED,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.perf_counter,
        secrets: Iterable[str] = (),
    ) -> None:
        self.retry = retry or RetryConfig()
        self.tracing = tracing
        # Jitter only spaces out waits; it never shapes what is recorded as the answer.
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._clock = clock
        self._secrets = tuple(secrets)

    async def call(
        self,
        request: ModelRequest,
        model: Model | None,
        *,
        on_attempt_failed: OnAttemptFailed | None = None,
    ) -> ModelAnswer:
        if model is None:
            raise ValueError(f"{request.address}: a live call needs a model")
        output_schema = (
            JsonSchemaOutput(request.schema_name or "output", request.output_schema)
            if request.output_schema is not None
            else None
        )
        failures: list[AttemptFailure] = []
        waited_s = 0.0  # on a rate-limited or overloaded server (429, 503)
        attempt = 0
        while True:
            attempt += 1
            started = self._clock()
            try:
                # asyncio.timeout rather than wait_for: no extra task and loop turns per call.
                with calling(request):
                    async with asyncio.timeout(self.retry.timeout_s):
                        response = await model.get_response(
                            system_instructions=request.system,
                            input=request.input,
                            model_settings=ModelSettings(temperature=request.temperature),
                            tools=[],
                            output_schema=output_schema,
                            handoffs=[],
                            tracing=self.tracing,
                            previous_response_id=None,
                            conversation_id=None,
                            prompt=None,
                        )
            except Exception as exc:  # CancelledError is a BaseException and passes through.
                latency_ms = (self._clock() - started) * 1000.0
                failure = self._failure(request, attempt, exc, latency_ms, waited_s)
            else:
                latency_ms = (self._clock() - started) * 1000.0
                return ModelAnswer(
                    text=response_text(response),
                    raw=response_to_raw(response),
                    # A response that came back was at least one request, even when a
                    # custom model reports no usage.
                    usage=read_usage(response),
                    latency_ms=latency_ms,
                    attempts=attempt,
                    reasoning=response_reasoning(response),
                )
            # Outside the except block on purpose: the provider's exception (its request still
            # holds the Authorization header) must not ride along as __context__.
            failures.append(failure)
            if on_attempt_failed is not None:
                await on_attempt_failed(failure)
            if failure.retry_delay_s is None:
                raise ModelCallError(request, failures)
            if not _waits(failure):
                await self._sleep(failure.retry_delay_s)
                continue
            # A busy server: the wait is shown on the live line (with none shown, the
            # progress printed the failure once), not printed again at each attempt.
            waited_s += failure.retry_delay_s
            status = live_status.current()
            if status is not None:
                status.set_note(
                    request.address,
                    _waiting_note(failure, waited_s, self.retry),
                    for_s=failure.retry_delay_s,
                )
            try:
                await self._sleep(failure.retry_delay_s)
            finally:
                if status is not None:
                    status.set_note(request.address, None)

    def _failure(
        self,
        request: ModelRequest,
        attempt: int,
        exc: BaseException,
        latency_ms: float,
        waited_s: float = 0.0,
    ) -> AttemptFailure:
        info = classify(exc, timeout_s=self.retry.timeout_s)
        delay: float | None = None
        detail = info.detail
        if info.retryable and _is_busy(info.kind, info.status):
            # A rate-limited or overloaded server: asked again for as long as the total wait
            # allows, whatever the attempts, honouring the server's Retry-After whole.
            left = self.retry.max_wait_s - waited_s
            wanted = (
                info.retry_after_s
                if info.retry_after_s is not None
                else backoff_delay(attempt, self.retry, self._rng)
            )
            if wanted <= left:
                delay = wanted
            else:
                detail += (
                    f" (the server asks for a wait of {_seconds(wanted)} s, over the"
                    f" {_seconds(left)} s left of retry.max_wait_s)"
                    if info.retry_after_s is not None
                    else f" (gave up after waiting {_seconds(waited_s)} s: retry.max_wait_s)"
                )
        elif info.retryable and attempt < self.retry.max_attempts:
            if info.retry_after_s is not None:
                delay = min(info.retry_after_s, self.retry.max_delay_s)
            else:
                delay = backoff_delay(attempt, self.retry, self._rng)
        message = scrub(detail, self._secrets)
        if len(message) > _MAX_MESSAGE_CHARS:
            message = message[: _MAX_MESSAGE_CHARS - 1] + "…"
        return AttemptFailure(
            address=request.address,
            agent=request.agent,
            purpose=request.purpose,
            model=request.model,
            attempt=attempt,
            max_attempts=self.retry.max_attempts,
            error_kind=info.kind,
            http_status=info.status,
            message=message,
            retryable=info.retryable,
            retry_delay_s=delay,
            latency_ms=latency_ms,
        )
