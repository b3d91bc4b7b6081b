"""Fake SDK models and a session of requests, shared by the runtime tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agents import Model, ModelResponse, ModelSettings, ModelTracing
from agents.agent_output import AgentOutputSchemaBase
from agents.usage import Usage as SdkUsage
from openai.types.responses import (
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.extraction import RANKING_SCHEMA
from maai.domain.frohlich.purposes import Purpose
from maai.runtime.call_context import current_request


def message(text: str, *, refusal: str | None = None) -> ResponseOutputMessage:
    content: list[Any] = [ResponseOutputText(text=text, annotations=[], type="output_text")]
    if refusal is not None:
        content.append(ResponseOutputRefusal(refusal=refusal, type="refusal"))
    return ResponseOutputMessage(
        id="msg_1", content=content, role="assistant", status="completed", type="message"
    )


class EchoModel(Model):
    """Answers from the call context (as the simulated participant will), not the prompt."""

    def __init__(self) -> None:
        self.calls: list[ModelRequest] = []
        self.schemas: list[AgentOutputSchemaBase | None] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        request = current_request.get()
        assert request is not None
        await asyncio.sleep(0)  # let concurrent calls interleave
        assert current_request.get() is request
        assert model_settings.temperature == request.temperature
        assert (system_instructions, input) == (request.system, request.input)
        self.calls.append(request)
        self.schemas.append(output_schema)
        output: list[Any] = []
        if request.purpose == Purpose.REASONING:
            output.append(
                ResponseReasoningItem(
                    id="rs_1",
                    summary=[Summary(text="thinking", type="summary_text")],
                    type="reasoning",
                )
            )
        output.append(message(f"[{request.purpose}] ", refusal=None))
        output.append(message(f"{request.agent} answers {request.address}"))
        usage = SdkUsage(requests=1, input_tokens=len(request.input), output_tokens=5)
        return ModelResponse(output=output, usage=usage, response_id=f"resp-{len(self.calls)}")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


class ExplodingModel(EchoModel):
    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise AssertionError("replay must not call a model")


def session() -> list[ModelRequest]:
    requests = []
    for i, purpose in enumerate(Purpose):
        agent = "utility" if purpose == Purpose.EXTRACT else ("alice", "bob")[i % 2]
        extra: dict[str, Any] = {}
        if purpose == Purpose.EXTRACT:
            extra = {"output_schema": RANKING_SCHEMA, "schema_name": "ranking_extraction"}
        requests.append(
            ModelRequest(
                address=f"p1/{agent}/step{i}/{purpose.value}/1",
                agent=agent,
                purpose=purpose,
                model="simulated",
                system=f"You are {agent}.",
                input=f"Please do the {purpose.value} step. Ünïcode ✓",
                temperature=None if i % 3 == 0 else 0.7,
                context={"round": i},
                **extra,
            )
        )
    return requests
