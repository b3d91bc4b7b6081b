"""Memory retrieval (docs/world.md §4): the top-k memories by recency + importance +
relevance, each scaled to 0–1 and weighted by the config.

Relevance is the cosine of two text vectors: by default the deterministic local vector
(words hashed into buckets, no model weights, ``maai.domain.embeddings.local_vector``), so a
run replays exactly on any machine; with ``embeddings:`` in the config, the provider's
embeddings, recorded as calls (``maai.domain.embeddings``) and read back from the ledger.

Speed (docs/operations.md, "World benchmark"): an action prompt ranks every older memory of
its agent, so a run ranks ~n²/2 memories for n per agent. The ranking is the one recorded
runs were made with, to the last bit (ties, rounding and order included), computed with less
work per memory:

- a relevance is a pure function of the two texts (or of the two recorded vectors), kept in
  a memo table per query (``_relevance_row``): an agent's plan, the query, stays the same for
  ticks, and the agents witnessing one event rank the same text;
- the recency and importance terms are the same for every memory of one tick and of one
  score, so each is computed once per call;
- a score is summed in the order it always was, and only the memories that can still be
  among the k best are rounded and sorted (``_top``): rounding to 12 places is monotone, so
  a memory scoring clearly below the k-th best unrounded score cannot reach the top.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache

from maai.domain.embeddings import dot, local_vector
from maai.domain.world.config import RetrievalConfig
from maai.domain.world.events import MemoryItem

Vector = Sequence[float]

SCORE_PLACES = 12
"""Scores are rounded to this many decimal places before they are compared (recorded runs
were ranked so)."""


def cosine(a: Vector, b: Vector) -> float:
    """The dot product of two local vectors (unit length already), summed left to right as
    recorded runs were ranked, so their rankings never move by a rounding."""
    return sum(map(operator.mul, a, b))


@lru_cache(maxsize=1024)
def _relevance_row(kind: str, query_key: Hashable) -> dict[Hashable, float]:
    """The memo table of the relevances against one query: text key -> relevance. Each entry
    is a pure function of the two keys (``kind`` says which function), so the table holds no
    state of any run; ``lru_cache`` bounds how many queries are remembered."""
    return {}


def _local_relevance(text: str, query: str) -> float:
    return max(0.0, cosine(local_vector(text), local_vector(query)))


def retrieve(
    memories: Sequence[MemoryItem],
    query: str,
    now: int,
    weights: RetrievalConfig,
    vector_of: Callable[[str], Vector] | None = None,
    vector_key: Callable[[str], Hashable] | None = None,
) -> list[MemoryItem]:
    """The ``weights.k`` memories scoring highest; ties go to the newer memory. A memory
    without a readable importance scores 0 on importance. ``vector_of``: the recorded
    embedding of a text; without it, the local vector. ``vector_key``: with ``vector_of``, a
    key of each text's vector (equal keys, equal vectors: e.g. the recorded answer), so that
    relevances are remembered across calls; without it they are computed anew each call
    (``vector_of`` may change between calls)."""
    k = weights.k
    if k == 0 or not memories:
        return []
    if not all(map(math.isfinite, (weights.recency, weights.importance, weights.relevance))):
        return _retrieve_plainly(memories, query, now, weights, vector_of)
    relevance_of = _relevances(query, vector_of, vector_key)
    w_recency, w_importance, w_relevance = weights.recency, weights.importance, weights.relevance
    decay = weights.decay
    recency_terms: dict[int, float] = {}  # by the tick a memory was made in
    importance_terms: dict[int | None, float] = {}  # by its score
    unrounded: list[float] = []
    for memory in memories:
        made = memory.created_tick
        recency = recency_terms.get(made)
        if recency is None:
            recency = recency_terms[made] = w_recency * decay ** max(0, now - made)
        score = memory.importance
        importance = importance_terms.get(score)
        if importance is None:
            importance = importance_terms[score] = w_importance * (
                0.0 if score is None else (score - 1) / 9
            )
        # Summed as it always was: (recency + importance) + relevance, each term weighted.
        unrounded.append(recency + importance + w_relevance * relevance_of(memory.description))
    return [memories[i] for i in _top(unrounded, k)]


def _relevances(
    query: str,
    vector_of: Callable[[str], Vector] | None,
    vector_key: Callable[[str], Hashable] | None,
) -> Callable[[str], float]:
    """The relevance of a text to ``query``, as the ranking has always computed it: the local
    cosine, or the dot product of the recorded (unit) vectors, never below 0."""
    if vector_of is None:
        row = _relevance_row("local", query)

        def local(text: str) -> float:
            relevance = row.get(text)
            if relevance is None:
                relevance = row[text] = _local_relevance(text, query)
            return relevance

        return local
    vector = vector_of  # bound here: the closure below must not see it as optional
    wanted = vector(query)
    # Without a key, a text's vector may be another next call: remembered for this call only.
    row: dict[Hashable, float] = (
        {} if vector_key is None else _relevance_row("recorded", vector_key(query))
    )
    key_of: Callable[[str], Hashable] = vector_key or str

    def recorded(text: str) -> float:
        key = key_of(text)
        relevance = row.get(key)
        if relevance is None:
            relevance = row[key] = max(0.0, dot(vector(text), wanted))
        return relevance

    return recorded


def _top(unrounded: Sequence[float], k: int) -> list[int]:
    """The positions of the ``k`` best scores, in order, each score rounded to
    ``SCORE_PLACES`` places and a tie going to the later position (the newer memory).

    Rounding is monotone, so only the scores near the k-th best unrounded one can be tied
    with or overtake each other once rounded: every score more than ``margin`` below it
    rounds strictly below it, behind k better ones. Only the others are rounded and sorted."""
    if len(unrounded) > k:
        kth = heapq.nlargest(k, unrounded)[-1]
        # Scores rounding to the same value differ by at most one unit of the 12th place
        # (or are equal, where a float's spacing is coarser): far less than the margin.
        margin = 1e-9 * max(1.0, abs(kth))
        floor = kth - margin
        contenders = [i for i, score in enumerate(unrounded) if score >= floor]
    else:
        contenders = list(range(len(unrounded)))
    rounded = [(round(unrounded[i], SCORE_PLACES), i) for i in contenders]
    best = sorted(rounded, key=lambda s: (-s[0], -s[1]))[:k]
    return sorted(i for _, i in best)


def _retrieve_plainly(
    memories: Sequence[MemoryItem],
    query: str,
    now: int,
    weights: RetrievalConfig,
    vector_of: Callable[[str], Vector] | None = None,
) -> list[MemoryItem]:
    """The ranking as written first, every memory scored in full: kept for weights that are
    not finite (an infinite weight scores NaN, which sorts by position, not by value)."""
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
        scored.append((round(score, SCORE_PLACES), i))
    best = sorted(scored, key=lambda s: (-s[0], -s[1]))[: weights.k]
    return [memories[i] for _, i in sorted(best, key=lambda s: s[1])]


def ranked_texts(memories: Sequence[MemoryItem], query: str) -> list[str]:
    """Every text whose vector ranking ``memories`` against ``query`` reads: the query,
    then each description once, in order."""
    texts = dict.fromkeys([query, *(m.description for m in memories)])
    return list(texts)
