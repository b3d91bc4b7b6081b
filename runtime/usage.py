"""A call's usage as its provider reported it (docs/providers.md, "Usage and cost").

The SDK's OpenAI models turn the provider's usage into the SDK's ``Usage`` and fail the
whole call when one field has the wrong type (a server sending ``"prompt_tokens": "n/a"``).
The models here keep the provider's usage as it came (``ModelResponse.raw_usage``, recorded
with the answer) and hand the SDK a copy in which such a field is left out, so the call is
kept; ``read_usage`` then reads the counts from the provider's own fields and names the
ones it could not read.

Field names read, by API (the first found wins):

- input: ``prompt_tokens`` (Chat Completions), ``input_tokens`` (Responses);
- cached input: ``prompt_tokens_details.cached_tokens``, ``input_tokens_details.cached_tokens``,
  ``prompt_cache_hit_tokens`` (DeepSeek's compatible API);
- output: ``completion_tokens``, ``output_tokens``;
- reasoning: ``completion_tokens_details.reasoning_tokens``,
  ``output_tokens_details.reasoning_tokens``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any

from agents import ModelResponse, ModelSettings
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from agents.models.openai_responses import OpenAIResponsesModel

from maai.domain.calls import Usage

_INPUT = ("prompt_tokens", "input_tokens")
_CACHED = (
    "prompt_tokens_details.cached_tokens",
    "input_tokens_details.cached_tokens",
    "prompt_cache_hit_tokens",
)
_OUTPUT = ("completion_tokens", "output_tokens")
_REASONING = (
    "completion_tokens_details.reasoning_tokens",
    "output_tokens_details.reasoning_tokens",
)
_COUNTS = (*_INPUT, "total_tokens", *_CACHED, *_OUTPUT, *_REASONING)

# The provider's usage of the response being fetched, per task: one model object serves
# every agent that names it, concurrently.
_fetched_usage: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "maai_fetched_usage", default=None
)


def _usage_dict(usage: Any) -> dict[str, Any] | None:
    if usage is None:
        return None
    if isinstance(usage, Mapping):
        return dict(usage)
    dump = getattr(usage, "model_dump", None)
    if dump is None:
        return None
    try:
        data = dump(mode="json", warnings=False)
    except Exception:  # a value no JSON mode can write: keep what Python gives
        data = dump(warnings=False)
    return data if isinstance(data, dict) else None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _lookup(usage: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    holder: Any = usage
    for key in path.split("."):
        if not isinstance(holder, Mapping) or key not in holder:
            return False, None
        holder = holder[key]
    return True, holder


def _readable_copy(usage: Any) -> Any:
    """The usage object with every count of the wrong type set to 0, for the SDK to read;
    the object itself is left as it came."""
    data = _usage_dict(usage)
    if data is None or not unreadable_fields(data):
        return usage
    fixed: dict[str, Any] = _deep_copy(data)
    for path in unreadable_fields(data):
        *parents, key = path.split(".")
        holder = fixed
        for name in parents:
            holder = holder[name]
        holder[key] = 0 if path in _COUNTS else None
    return type(usage).model_construct(**fixed) if hasattr(usage, "model_construct") else fixed


def _deep_copy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, dict) else v for k, v in data.items()}


def unreadable_fields(usage: Mapping[str, Any]) -> list[str]:
    """The count fields (or their details objects) present with a value of the wrong type;
    ``null`` counts as absent."""
    bad: list[str] = []
    for path in _COUNTS:
        holder: Any = usage
        keys = path.split(".")
        for depth, key in enumerate(keys):
            if not isinstance(holder, Mapping):
                parent = ".".join(keys[:depth])
                if parent not in bad:
                    bad.append(parent)
                break
            holder = holder.get(key)
            if holder is None:
                break
        else:
            if not _is_count(holder):
                bad.append(path)
    return bad


def _first(usage: Mapping[str, Any], paths: tuple[str, ...]) -> int | None:
    for path in paths:
        found, value = _lookup(usage, path)
        if found and _is_count(value):
            return int(value)
    return None


def read_usage(response: ModelResponse) -> Usage:
    """The usage to record for a response: the provider's own fields where it kept them
    (``raw_usage``), else what the SDK read (models of ours, the simulated one)."""
    raw = response.raw_usage
    sdk = response.usage
    if not isinstance(raw, Mapping):
        details_in = getattr(sdk, "input_tokens_details", None)
        details_out = getattr(sdk, "output_tokens_details", None)
        return Usage(
            requests=sdk.requests or 1,
            input_tokens=sdk.input_tokens,
            output_tokens=sdk.output_tokens,
            cached_input_tokens=getattr(details_in, "cached_tokens", 0) or 0,
            reasoning_tokens=getattr(details_out, "reasoning_tokens", 0) or 0,
        )
    input_tokens = _first(raw, _INPUT) or 0
    output_tokens = _first(raw, _OUTPUT) or 0
    return Usage(
        requests=sdk.requests or 1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        # Never more than the whole: a count past it is a provider's error, not a discount.
        cached_input_tokens=min(_first(raw, _CACHED) or 0, input_tokens),
        reasoning_tokens=min(_first(raw, _REASONING) or 0, output_tokens),
        unreadable=tuple(unreadable_fields(raw)),
    )


class _KeepsUsage:
    """Mixed into the SDK's OpenAI models: keep the provider's usage as it came, and send
    the agent's own settings."""

    async def _fetch_response(self, *args: Any, **kwargs: Any) -> Any:
        response = await super()._fetch_response(*args, **kwargs)  # type: ignore[misc]
        captured = _fetched_usage.get()
        usage = getattr(response, "usage", None)
        if captured is not None and usage is not None and not kwargs.get("stream"):
            captured.append(_usage_dict(usage))
            response.usage = _readable_copy(usage)
        return response

    # Settings of this agent's provider block (max_output_tokens, reasoning_effort), laid
    # over what each call asks; the SDK puts them in each API's own field.
    extra_settings: ModelSettings | None = None

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        if self.extra_settings is not None and "model_settings" in kwargs:
            kwargs["model_settings"] = kwargs["model_settings"].resolve(self.extra_settings)
        captured: list[Any] = []
        token = _fetched_usage.set(captured)
        try:
            response: ModelResponse = await super().get_response(*args, **kwargs)  # type: ignore[misc]
        finally:
            _fetched_usage.reset(token)
        if captured and captured[-1] is not None:
            response.raw_usage = captured[-1]
        return response


class UsageKeepingChatModel(_KeepsUsage, OpenAIChatCompletionsModel):
    """Chat Completions (OpenAI-compatible servers), keeping the provider's usage."""


class UsageKeepingResponsesModel(_KeepsUsage, OpenAIResponsesModel):
    """OpenAI's Responses API, keeping the provider's usage."""
