"""The simulated participant and utility agent as OpenAI Agents SDK ``Model``s.

They learn what they are asked from ``runtime.call_context.current_request`` (set by the
engine around every call), never from the prompt text, which they do not read: a real model
sees the same prompts. Everything they return is labelled a simulation: the model name
``simulated`` and response ids ``sim-...``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator
from typing import Any

from agents import Model, ModelSettings, ModelTracing
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.tool import Tool
from agents.usage import Usage
from maai.domain.calls import ModelRequest, Purpose
from maai.domain.frohlich.config import AgentConfig
from maai.runtime.call_context import current_request
from maai.runtime.simulated.extract import extract
from maai.runtime.simulated.latency import sleep_until
from maai.runtime.simulated.persona import Persona, persona_for
from maai.runtime.simulated.phrases import Phrases, phrases_for
from maai.runtime.simulated.policy import SimulationError, answer
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

MODEL_NAME = "simulated"


class _Simulated(Model):
    model = MODEL_NAME

    def __init__(self, *, seed: int, latency_ms: float = 0.0) -> None:
        self.seed = seed
        self.latency_ms = latency_ms

    def respond(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        raise NotImplementedError

    async def get_response(
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
    ) -> ModelResponse:
        request = current_request.get()
        if request is None:
            raise SimulationError(
                "the simulated model needs the call's ModelRequest: set it with "
                "maai.runtime.call_context.calling(request) around get_response"
            )
        # The latency counts from the call, as a provider's does: the time spent writing the
        # answer stands for the provider's work, part of the latency and not added to it.
        # Yielding once first starts the clocks of all the calls made together (a poll, a
        # ballot) before any of them writes its answer, as their requests would all be sent.
        answer_at = time.monotonic() + self.latency_ms / 1000
        if self.latency_ms > 0:
            await asyncio.sleep(0)
        schema = request.output_schema
        if schema is None and output_schema is not None and not output_schema.is_plain_text():
            schema = output_schema.json_schema()
        text = self.respond(request, schema)
        prompt_text = (system_instructions or "") + (
            input if isinstance(input, str) else request.input
        )
        response = _response(request, text, prompt_chars=len(prompt_text))
        if self.latency_ms > 0:
            await sleep_until(answer_at)
        return response

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
        raise NotImplementedError("the simulated model does not stream; use get_response")
        yield  # unreachable; makes this an async generator as the interface expects


class SimulatedParticipant(_Simulated):
    """A seeded, persona-driven participant that writes natural-language answers."""

    def __init__(self, persona: Persona, *, seed: int, language: str = "en") -> None:
        super().__init__(seed=seed, latency_ms=persona.latency_ms)
        self.persona = persona
        self.phrases: Phrases = phrases_for(language)

    def respond(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.agent != self.persona.name:
            raise SimulationError(
                f"{request.address}: request for agent {request.agent!r} reached the simulated "
                f"participant of {self.persona.name!r}"
            )
        return answer(self.phrases, self.persona, self.seed, request)


class SimulatedUtility(_Simulated):
    """The utility agent's simulation: lenient extraction into the requested JSON."""

    def respond(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.purpose is not Purpose.EXTRACT:
            raise SimulationError(
                f"{request.address}: the simulated utility agent only answers extraction "
                f"requests, not {request.purpose.value!r}"
            )
        return extract(request.context, schema)


def build_simulated(agent: AgentConfig | None, *, seed: int, language: str = "en") -> Model:
    """The simulated model for ``agent`` in a run with ``seed``; ``None`` gives the utility
    agent."""
    if agent is None:
        return SimulatedUtility(seed=seed)
    return SimulatedParticipant(persona_for(agent, seed), seed=seed, language=language)


def _response(request: ModelRequest, text: str, *, prompt_chars: int) -> ModelResponse:
    digest = hashlib.sha256(f"{request.address}\n{text}".encode()).hexdigest()
    message = ResponseOutputMessage(
        id=f"msg_sim_{digest[:24]}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
    input_tokens, output_tokens = prompt_chars // 4, len(text) // 4
    usage = Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    return ModelResponse(output=[message], usage=usage, response_id=f"sim-{digest[:16]}")
