"""Text embeddings as recorded model calls (docs/experiments.md, "Embeddings").

An experiment that ranks texts by meaning asks for their embeddings as model calls of the
reserved model user ``embedder``: one call per distinct text, addressed by the text's hash,
so a text is embedded once per run however many agents meet it, and the vector comes back
as the call's answer (base64 of little-endian float32: about 1.3 bytes a dimension per
character, instead of ~20 as JSON numbers). The engine records the call like any other, so
replay and verify read the vector from the ledger and need no model.

Pure: the request, the address, the vector's encoding, and the deterministic local text
vector that stands in offline (the simulated embedder, and experiments' default relevance).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import Field

from maai.domain.calls import ModelRequest
from maai.domain.config import ProviderConfig, Strict

EMBEDDER = "embedder"
"""The model user that embeds texts; no participant may take the name."""
EMBED = "embed"
"""The purpose of an embedding call."""
ADDRESS_PREFIX = "embed/"

LOCAL_DIMENSIONS = 256
_WORD = re.compile(r"[a-z0-9]+")


class EmbeddingError(ValueError):
    """An embedding answer that is not a vector."""


class EmbeddingsConfig(Strict):
    """Which model embeds texts: a provider's OpenAI-compatible embeddings endpoint (an
    ``openai:NAME`` or bare model name, or any model with a provider ``base_url``), or
    ``simulated`` (the local text vector, as a recorded call)."""

    model: str = Field(min_length=1)
    provider: ProviderConfig | None = None
    dimensions: int | None = Field(default=None, ge=1, le=65_536)
    latency_ms: float = Field(default=0.0, ge=0)  # the simulated embedder's only


def embedding_address(text: str) -> str:
    """The call's address: the text's sha256, so equal texts share one call."""
    return ADDRESS_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:32]


def embedding_request(text: str, config: EmbeddingsConfig) -> ModelRequest:
    context: dict[str, Any] = {}
    if config.dimensions is not None:
        context["dimensions"] = config.dimensions
    return ModelRequest(
        address=embedding_address(text),
        agent=EMBEDDER,
        purpose=EMBED,
        model=config.model,
        system="",
        input=text,
        context=context,
    )


def encode_vector(values: Sequence[float]) -> str:
    if not values:
        raise EmbeddingError("an embedding has at least one dimension")
    if not all(math.isfinite(v) for v in values):
        raise EmbeddingError("an embedding holds a value that is not a finite number")
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode("ascii")


@lru_cache(maxsize=65_536)
def decode_vector(text: str) -> tuple[float, ...]:
    """The vector of an embedding answer, scaled to length 1 (so a dot product is the
    cosine, whatever the provider's normalization). Cached: a run reads each vector at every
    retrieval that ranks its text."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise EmbeddingError(f"not base64: {exc}") from None
    if not raw or len(raw) % 4:
        raise EmbeddingError(f"{len(raw)} bytes is not a whole number of float32 values")
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    if not all(math.isfinite(v) for v in values):
        raise EmbeddingError("an embedding holds a value that is not a finite number")
    norm = math.sqrt(math.fsum(v * v for v in values))
    return tuple(v / norm for v in values) if norm else values


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise EmbeddingError(f"vectors of {len(a)} and {len(b)} dimensions cannot be compared")
    return math.fsum(map(float.__mul__, a, b))


@lru_cache(maxsize=65_536)
def local_vector(text: str, dimensions: int = LOCAL_DIMENSIONS) -> tuple[float, ...]:
    """A unit vector of hashed word counts (blake2b, so it is the same in every process,
    unlike ``hash``); no model weights. Cached: retrieval ranks the same memories tick after
    tick."""
    counts = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        counts[int.from_bytes(digest, "big") % dimensions] += 1.0
    norm = math.sqrt(sum(c * c for c in counts))
    return tuple(c / norm for c in counts) if norm else tuple(counts)


class SimulatedEmbedder:
    """The offline embedder: the local text vector, answered as a provider's would be (a
    recorded call), so the embedding path runs end to end without a model."""

    def __init__(self, latency_ms: float = 0.0) -> None:
        self.latency_ms = latency_ms

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.purpose != EMBED:
            raise ValueError(f"{request.address}: the embedder only embeds")
        size = request.context.get("dimensions") or LOCAL_DIMENSIONS
        return encode_vector(local_vector(request.input, int(size)))
