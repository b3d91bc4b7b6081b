"""Memory retrieval (docs/world.md §4): the top-k memories by recency + importance +
relevance, each scaled to 0–1 and weighted by the config.

Relevance is the cosine of two text vectors: by default the deterministic local vector
(words hashed into buckets, no model weights, ``maai.domain.embeddings.local_vector``), so a
run replays exactly on any machine; with ``embeddings:`` in the config, the provider's
embeddings, recorded as calls (``maai.domain.embeddings``) and read back from the ledger."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from maai.domain.embeddings import dot, local_vector
from maai.domain.world.config import RetrievalConfig
from maai.domain.world.events import MemoryItem

Vector = Sequence[float]


def cosine(a: Vector, b: Vector) -> float:
    """The dot product of two local vectors (unit length already), summed left to right as
    recorded runs were ranked, so their rankings never move by a rounding."""
    return sum(map(operator.mul, a, b))


def retrieve(
    memories: Sequence[MemoryItem],
    query: str,
    now: int,
    weights: RetrievalConfig,
    vector_of: Callable[[str], Vector] | None = None,
) -> list[MemoryItem]:
    """The ``weights.k`` memories scoring highest; ties go to the newer memory. A memory
    without a readable importance scores 0 on importance. ``vector_of``: the recorded
    embedding of a text; without it, the local vector."""
    if weights.k == 0 or not memories:
        return []
    similarity = cosine if vector_of is None else dot
    vector = vector_of or local_vector
    wanted = vector(query)
    scored: list[tuple[float, int]] = []
    for i, memory in enumerate(memories):
        recency = weights.decay ** max(0, now - memory.created_tick)
        importance = 0.0 if memory.importance is None else (memory.importance - 1) / 9
        relevance = max(0.0, similarity(vector(memory.description), wanted))
        score = (
            weights.recency * recency
            + weights.importance * importance
            + weights.relevance * relevance
        )
        scored.append((round(score, 12), i))
    best = sorted(scored, key=lambda s: (-s[0], -s[1]))[: weights.k]
    return [memories[i] for _, i in sorted(best, key=lambda s: s[1])]


def ranked_texts(memories: Sequence[MemoryItem], query: str) -> list[str]:
    """Every text whose vector ranking ``memories`` against ``query`` reads: the query,
    then each description once, in order."""
    texts = dict.fromkeys([query, *(m.description for m in memories)])
    return list(texts)
