"""An OpenAI-compatible embeddings endpoint behind the SDK's ``Model`` interface, so an
embedding is one more model call to the engine (``maai.domain.embeddings``): recorded,
retried visibly, limited and priced like any other.

The answer's text is the vector as base64 float32 (``encode_vector``), what the ledger stores
and what replay serves. Vectors are asked for as JSON numbers (``encoding_format="float"``):
every compatible server gives those, not all give base64.
"""

from __future__ import annotations

import hashlib
from typing import Any

from agents import ModelSettings, ModelTracing
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse, TResponseInputItem
from agents.tool import Tool
from openai import AsyncOpenAI

from maai.domain.embeddings import EmbeddingError, encode_vector
from maai.runtime.call_context import current_request
from maai.runtime.sdk_responses import NonStreamingModel, text_response


class EmbeddingsModel(NonStreamingModel):
    def __init__(self, model: str, client: AsyncOpenAI) -> None:
        self.model = model
        self.client = client

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
        if not isinstance(input, str):
            raise TypeError("an embedding call embeds one text")
        request = current_request.get()
        dimensions = request.context.get("dimensions") if request is not None else None
        extra: dict[str, Any] = {} if dimensions is None else {"dimensions": int(dimensions)}
        result = await self.client.embeddings.create(
            model=self.model, input=[input], encoding_format="float", **extra
        )
        if len(result.data) != 1:
            raise EmbeddingError(f"the server sent {len(result.data)} embeddings for one text")
        text = encode_vector([float(v) for v in result.data[0].embedding])
        tokens = result.usage.prompt_tokens if result.usage is not None else 0
        digest = hashlib.sha256(text.encode()).hexdigest()
        return text_response(
            text,
            message_id=f"emb_{digest[:24]}",
            response_id=None,
            input_tokens=tokens,
            output_tokens=0,
        )
