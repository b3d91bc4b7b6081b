"""The SDK's responses as the ledger keeps them, and the few pieces of SDK model plumbing
the recording caller and our own models share.

``response_to_raw`` snapshots an SDK ``ModelResponse`` so that ``raw_to_response`` rebuilds it
exactly (``answer_to_sdk_response`` does so for a recorded answer); ``response_text`` and
``response_reasoning`` read what a reply said; ``text_response`` and ``NonStreamingModel``
serve the models of ours that are no SDK model (the simulated one, the embeddings endpoint).
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

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
from pydantic import TypeAdapter

from maai.domain.calls import ModelAnswer

RAW_FORMAT = "agents.ModelResponse/1"

_OUTPUT_ITEM = TypeAdapter[Any](TResponseOutputItem)
_SDK_USAGE = TypeAdapter(SdkUsage)


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
