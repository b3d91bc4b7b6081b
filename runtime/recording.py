"""The recording model caller: one logical model call, with our own visible retries.

``ModelCaller.call`` sends a ``ModelRequest`` to any SDK ``Model`` and returns a
``ModelAnswer`` holding the text, the SDK response serialized so that it round-trips
exactly (``answer_to_sdk_response``), usage, latency and the number of attempts. Every
failed attempt is handed to a callback as an ``AttemptFailure`` before any wait, so the
engine can append it to the ledger; the OpenAI client's own retries are off
(``max_retries=0`` in ``runtime.providers``).

Nothing recorded or raised here may contain an API key: error text goes through
``runtime.providers.scrub``, and ``ModelCallError`` does not chain the provider's
exception (whose request still carries the Authorization header).
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

import openai
from agents import Model, ModelResponse, ModelSettings, ModelTracing
from agents.agent_output import AgentOutputSchemaBase
from agents.exceptions import ModelBehaviorError
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.strict_schema import ensure_strict_json_schema
from agents.tool import Tool
from agents.usage import Usage as SdkUsage
from openai.types.responses import (
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
)
from pydantic import BaseModel, ConfigDict, TypeAdapter

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.config import RetryConfig
from maai.runtime import live_status
from maai.runtime.call_context import calling, describe_who
from maai.runtime.scrubbing import scrub
from maai.runtime.usage import read_usage

RAW_FORMAT = "agents.ModelResponse/1"
_MAX_MESSAGE_CHARS = 500

_OUTPUT_ITEM = TypeAdapter[Any](TResponseOutputItem)
_SDK_USAGE = TypeAdapter(SdkUsage)


def _transport_errors() -> tuple[type[BaseException], ...]:
    # The openai client wraps transport errors itself; these catch custom models that let a
    # raw one through. openai 3.x ships ``httpx2``; legacy ``httpx`` may also be installed.
    found: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found.append(module.TransportError)
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()


class ErrorKind(StrEnum):
    RATE_LIMIT = "rate_limit"  # HTTP 429
    SERVER_ERROR = "server_error"  # HTTP 5xx (and 408/409, which OpenAI also retries)
    TIMEOUT = "timeout"  # our per-attempt timeout or the client's read timeout
    CONNECTION = "connection"  # refused, reset, dropped
    HTTP_ERROR = "http_error"  # other HTTP statuses: 400, 401, 403, 404, 422 ...
    BAD_RESPONSE = "bad_response"  # the server answered, but not with a usable response
    # (a 2xx whose body is malformed JSON or an HTML page, e.g. a proxy's error page:
    # transient, retried; a well-formed reply the SDK cannot use: not retried)
    CONTEXT_WINDOW = "context_window"  # the request would not fit the model's window: not sent
    OTHER = "other"  # anything else (a bug, a misconfigured client)


class AttemptFailure(BaseModel):
    """One failed attempt of a model call, as recorded in the ledger."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    address: str
    agent: str
    purpose: str
    model: str
    attempt: int  # 1-based
    max_attempts: int
    error_kind: ErrorKind
    http_status: int | None = None
    message: str  # scrubbed of keys
    retryable: bool
    retry_delay_s: float | None = None  # the wait before the next attempt; None: gave up
    latency_ms: float = 0.0

    def describe(self) -> str:
        if self.http_status is not None:
            return f"HTTP {self.http_status} {self.message}".rstrip()
        return f"{self.error_kind.value.replace('_', ' ')}: {self.message}"


class ModelCallError(RuntimeError):
    """A model call that failed for good: a non-retryable error, or retries exhausted."""

    def __init__(self, request: ModelRequest, failures: list[AttemptFailure]) -> None:
        self.address = request.address
        self.agent = request.agent
        self.purpose = request.purpose
        self.model = request.model
        self.failures = list(failures)
        last = failures[-1]
        tail = f" (after {len(failures)} attempts)" if len(failures) > 1 else ""
        # What went wrong, without whose call it was: the engine's failure line names the
        # agent, step and model itself, once.
        self.detail = f"{last.describe()}{tail}"
        super().__init__(
            f"{describe_who(request.agent)}, purpose {request.purpose}, "
            f"model {request.model}: {self.detail}"
        )

    @property
    def last(self) -> AttemptFailure:
        return self.failures[-1]


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


class JsonSchemaOutput(AgentOutputSchemaBase):
    """A structured output given as a plain JSON-schema dict (strict mode)."""

    def __init__(self, name: str, schema: dict[str, Any]) -> None:
        self._name = name
        # ensure_strict_json_schema edits in place; the request's schema must stay as hashed.
        self._schema = ensure_strict_json_schema(copy.deepcopy(schema))

    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return self._name

    def json_schema(self) -> dict[str, Any]:
        return self._schema

    def is_strict_json_schema(self) -> bool:
        return True

    def validate_json(self, json_str: str) -> Any:
        # Only the SDK's Runner calls this. Schema conformance is judged later by the
        # extraction parser, so that a broken answer is still recorded as it came.
        try:
            return json.loads(json_str)
        except json.JSONDecodeError as exc:
            raise ModelBehaviorError(f"invalid JSON for {self._name}: {exc}") from None


# --- (de)serializing SDK responses -----------------------------------------------------------


def response_to_raw(response: ModelResponse) -> dict[str, Any]:
    """A JSON-able snapshot of an SDK ``ModelResponse``; ``raw_to_response`` inverts it."""
    return {
        "format": RAW_FORMAT,
        "output": [item.model_dump(mode="json") for item in response.output],
        "usage": _SDK_USAGE.dump_python(response.usage, mode="json"),
        "response_id": response.response_id,
        "request_id": response.request_id,
        "raw_usage": response.raw_usage,
    }


def raw_to_response(raw: dict[str, Any]) -> ModelResponse:
    if raw.get("format") != RAW_FORMAT:
        raise ValueError(f"unknown raw response format {raw.get('format')!r}")
    return ModelResponse(
        output=[_OUTPUT_ITEM.validate_python(item) for item in raw["output"]],
        usage=_SDK_USAGE.validate_python(raw["usage"]),
        response_id=raw["response_id"],
        request_id=raw["request_id"],
        raw_usage=raw["raw_usage"],
    )


def text_response(
    text: str,
    *,
    message_id: str,
    response_id: str | None,
    input_tokens: int,
    output_tokens: int,
) -> ModelResponse:
    """An SDK response holding one assistant message of ``text``: what a model of ours
    that is no SDK model (the simulated one, the embeddings endpoint) answers."""
    message = ResponseOutputMessage(
        id=message_id,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
    usage = SdkUsage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    return ModelResponse(output=[message], usage=usage, response_id=response_id)


class NonStreamingModel(Model):
    """A model of ours that answers whole (the simulated one, the embeddings endpoint):
    ``get_response`` only; the SDK interface also asks for ``stream_response``, which the
    engine never calls."""

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any | None = None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError(f"{type(self).__name__} does not stream; use get_response")
        yield  # unreachable; makes this an async generator as the interface expects


def answer_to_sdk_response(answer: ModelAnswer) -> ModelResponse:
    """Rebuild the SDK response a recorded answer came from."""
    return raw_to_response(answer.raw)


def response_text(response: ModelResponse) -> str:
    """The text of all message items, in order. For structured output this is the JSON.

    A refusal is kept as text: the parser then fails on it and the refusal is on record."""
    parts: list[str] = []
    for item in response.output:
        if not isinstance(item, ResponseOutputMessage):
            continue
        for content in item.content:
            if isinstance(content, ResponseOutputText):
                parts.append(content.text or "")
            elif isinstance(content, ResponseOutputRefusal):
                parts.append(content.refusal or "")
    return "".join(parts)


def response_reasoning(response: ModelResponse) -> str | None:
    """The reasoning a provider showed: the Responses API's reasoning summaries, or the
    reasoning text some compatible servers send (``reasoning_content``: vLLM, DeepSeek),
    which the SDK hands over as reasoning items; None when there is none."""
    parts: list[str] = []
    for item in response.output:
        if not isinstance(item, ResponseReasoningItem):
            continue
        parts.extend(s.text for s in item.summary if s.text)
        parts.extend(c.text for c in item.content or () if c.text)
    return "\n\n".join(parts) if parts else None


# --- classifying errors ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Classified:
    kind: ErrorKind
    retryable: bool
    status: int | None
    detail: str
    retry_after_s: float | None = None


def status_detail(exc: openai.APIStatusError) -> str:
    """The server's own error message: OpenAI's ``{error: {message}}``, vLLM's ``{message}``,
    Ollama's ``{error: "..."}``, Gemini's ``[{error: {message}}]``; else the client's."""
    body = exc.body
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str):
            return message
    return exc.message


def _retry_after_s(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


# What the SDK reads off a parsed reply first. When the body was not a JSON object (a proxy's
# HTML error page sent with status 200, plain text, a bare JSON string), the openai client
# hands the SDK the text or a list instead of a response model, and reading one of these
# attributes off it raises AttributeError.
_REPLY_FIELDS = frozenset({"choices", "usage", "output", "id", "model", "error"})
_BODY_SHOWN = 120


def _unreadable_body(exc: BaseException) -> str | None:
    """For an attempt that failed because the server's 2xx body was not a model response:
    what the body looked like (for the record); None for any other error."""
    if isinstance(exc, json.JSONDecodeError):
        # Only a reply is decoded on the way back: the request is ours, built from dicts.
        return f"the body is not valid JSON ({exc.msg} at char {exc.pos}): {_shown(exc.doc)}"
    if isinstance(exc, AttributeError) and getattr(exc, "name", None) in _REPLY_FIELDS:
        obj = getattr(exc, "obj", None)
        if isinstance(obj, tuple) and obj:  # Chat Completions: (a stand-in, the reply)
            obj = obj[-1]
        what = _JSON_KINDS.get(type(obj))
        if what is not None:
            return f"the body is {what}, not a model response: {_shown(obj)}"
    return None


_JSON_KINDS: dict[type, str] = {
    str: "text",
    list: "a JSON array",
    type(None): "JSON null",
    bool: "a JSON boolean",
    int: "a JSON number",
    float: "a JSON number",
}


def _shown(body: object) -> str:
    text = body if isinstance(body, str) else json.dumps(body)
    flat = " ".join(text.split())
    if not flat:
        return "(empty)"
    return repr(flat if len(flat) <= _BODY_SHOWN else flat[: _BODY_SHOWN - 1] + "…")


def classify(exc: BaseException, *, timeout_s: float) -> _Classified:
    """Whether an attempt's error is worth another attempt, and how to describe it."""
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = status_detail(exc)
        if status == 429:
            kind, retryable = ErrorKind.RATE_LIMIT, True
        elif status >= 500 or status in (408, 409):
            kind, retryable = ErrorKind.SERVER_ERROR, True
        else:
            kind, retryable = ErrorKind.HTTP_ERROR, False
        should_retry = exc.response.headers.get("x-should-retry")
        if should_retry in ("true", "false"):
            retryable = should_retry == "true"
        return _Classified(kind, retryable, status, detail, _retry_after_s(exc))
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return _Classified(ErrorKind.TIMEOUT, True, None, f"no answer within {timeout_s:g} s")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return _Classified(ErrorKind.CONNECTION, True, None, detail)
    if _TRANSPORT_ERRORS and isinstance(exc, _TRANSPORT_ERRORS):
        timeout = "Timeout" in type(exc).__name__
        kind = ErrorKind.TIMEOUT if timeout else ErrorKind.CONNECTION
        return _Classified(kind, True, None, f"{type(exc).__name__}: {exc}")
    unreadable = _unreadable_body(exc)
    if unreadable is not None:
        # A proxy or gateway in front of the server answered for it (an error page with
        # status 200, a truncated body): transient, like the 5xx it stands for.
        return _Classified(ErrorKind.BAD_RESPONSE, True, None, unreadable)
    if isinstance(exc, openai.APIResponseValidationError):
        # A client built with strict response validation: a 2xx body that is not the
        # promised JSON.
        return _Classified(ErrorKind.BAD_RESPONSE, True, exc.status_code, exc.message)
    if isinstance(exc, ModelBehaviorError):
        # Gateways such as OpenRouter sometimes send an upstream error as a 200 without
        # choices: transient. Anything else malformed will not improve by asking again.
        transient = "no choices" in str(exc)
        return _Classified(ErrorKind.BAD_RESPONSE, transient, None, str(exc))
    if isinstance(exc, openai.APIError):
        return _Classified(ErrorKind.BAD_RESPONSE, False, None, exc.message)
    return _Classified(ErrorKind.OTHER, False, None, f"{type(exc).__name__}: {exc}")


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
