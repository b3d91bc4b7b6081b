"""Memory retrieval (docs/world.md §4): the top-k memories by recency + importance +
relevance, each scaled to 0–1 and weighted by the config.

Relevance is the cosine of two text vectors. The offline default is a deterministic local
vector: words hashed into a fixed number of buckets (no model weights), so a run replays
exactly on any machine. Embeddings from a provider, recorded as events, are left to do
(docs/world.md §4)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from maai.domain.world.config import RetrievalConfig
from maai.domain.world.events import MemoryItem

DIMENSIONS = 256
_WORD = re.compile(r"[a-z0-9]+")


def local_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """A unit vector of hashed word counts (blake2b, so it is the same in every process,
    unlike ``hash``)."""
    counts = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        counts[int.from_bytes(digest, "big") % dimensions] += 1.0
    norm = math.sqrt(sum(c * c for c in counts))
    return [c / norm for c in counts] if norm else counts


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def retrieve(
    memories: Sequence[MemoryItem], query: str, now: int, weights: RetrievalConfig
) -> list[MemoryItem]:
    """The ``weights.k`` memories scoring highest; ties go to the newer memory. A memory
    without a readable importance scores 0 on importance."""
    if weights.k == 0 or not memories:
        return []
    wanted = local_vector(query)
    scored: list[tuple[float, int]] = []
    for i, memory in enumerate(memories):
        recency = weights.decay ** max(0, now - memory.created_tick)
        importance = 0.0 if memory.importance is None else (memory.importance - 1) / 9
        relevance = max(0.0, cosine(local_vector(memory.description), wanted))
        score = (
            weights.recency * recency
            + weights.importance * importance
            + weights.relevance * relevance
        )
        scored.append((round(score, 12), i))
    best = sorted(scored, key=lambda s: (-s[0], -s[1]))[: weights.k]
    return [memories[i] for _, i in sorted(best, key=lambda s: s[1])]
