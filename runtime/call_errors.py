"""A failed model call attempt, classified: what went wrong (``ErrorKind``), whether another
attempt may help, and the one-line description that is recorded (``AttemptFailure``); and the
error a call raises when it fails for good (``ModelCallError``).

Nothing here chains the provider's exception, whose request still carries the Authorization
header.
"""

from __future__ import annotations

import email.utils
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

import openai
from agents.exceptions import ModelBehaviorError
from pydantic import BaseModel, ConfigDict

from maai.domain.calls import ModelRequest
from maai.runtime.call_context import describe_who


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
