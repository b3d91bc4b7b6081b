"""The offline simulated model: an experiment's simulated policy behind the OpenAI Agents
SDK ``Model`` interface.

A policy learns what it is asked from ``maai.runtime.call_context.current_request`` (set by
the engine around every call), never from the prompt text, which it does not read: a real
model sees the same prompts. Everything it returns is labelled a simulation: the model name
``simulated`` and response ids ``sim-...``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

from agents import ModelSettings, ModelTracing
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem
from agents.tool import Tool

from maai.domain.calls import ModelRequest
from maai.domain.experiment import SimulatedPolicy
from maai.runtime.call_context import current_request
from maai.runtime.sdk_responses import NonStreamingModel, text_response
from maai.runtime.simulated.latency import sleep_until

MODEL_NAME = "simulated"


class SimulationWiringError(RuntimeError):
    """The simulated model was called without the engine's request context."""


class SimulatedModel(NonStreamingModel):
    """An experiment's simulated policy as an SDK model, answering after its latency."""

    model = MODEL_NAME

    def __init__(self, policy: SimulatedPolicy) -> None:
        self.policy = policy
        self.latency_ms = policy.latency_ms

    def respond(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        return self.policy.answer(request, schema)

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
            raise SimulationWiringError(
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


def _response(request: ModelRequest, text: str, *, prompt_chars: int) -> ModelResponse:
    digest = hashlib.sha256(f"{request.address}\n{text}".encode()).hexdigest()
    return text_response(
        text,
        message_id=f"msg_sim_{digest[:24]}",
        response_id=f"sim-{digest[:16]}",
        input_tokens=prompt_chars // 4,
        output_tokens=len(text) // 4,
    )
