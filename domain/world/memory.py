"""Memory retrieval (docs/world.md §4): the top-k memories by recency + importance +
relevance, each scaled to 0–1 and weighted by the config.

Relevance is the cosine of two text vectors: by default the deterministic local vector
(words hashed into buckets, no model weights, ``maai.domain.embeddings.local_vector``), so a
run replays exactly on any machine; with ``embeddings:`` in the config, the provider's
embeddings, recorded as calls (``maai.domain.embeddings``) and read back from the ledger.

Speed (docs/performance.md, "World benchmark"): an action prompt ranks every older memory of
its agent, so scoring each of them makes a run's ranking work grow with the square of its
ticks. The ranking is the one recorded runs were made with, to the last bit (ties, rounding
and order included), with less work:

- a relevance is a pure function of the two texts (or of the two recorded vectors), kept in
  a memo table per query (``_relevance_row``): an agent's plan, the query, stays the same for
  ticks, and the agents witnessing one event rank the same text;
- with the local vector, each batch of an agent's memory stream (one tick's memories) keeps
  them in order of importance + relevance per query (``retrieve_batches``): the recency term
  is common to a tick's memories, so the best of all come out of a merge of those lists,
  and a ranking costs O(ticks + k log ticks) once its batches were ordered;
- a score is summed in the order it always was (``_score``), and only the memories that
  can still be among the k best are rounded and sorted (``_top``): rounding to 12 places is
  monotone, so a memory scoring clearly below the k-th best cannot reach the top.
"""

from __future__ import annotations

import heapq
import math
import operator
from array import array
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

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
    total: float = sum(map(operator.mul, a, b))
    return total


@lru_cache(maxsize=256)
def _relevance_row(kind: str, query_key: Hashable) -> dict[Hashable, float]:
    """The memo table of the relevances against one query: text key -> relevance. Each entry
    is a pure function of the two keys (``kind`` says which function), so the table holds no
    state of any run; ``lru_cache`` bounds how many queries are remembered."""
    return {}


def _local_relevance(text: str, query: str) -> float:
    """``max(0.0, cosine(local_vector(text), local_vector(query)))``, to the last bit, from
    the vectors' nonzero entries only (``_nonzero``): the products that are not zero, summed
    in the same order. A local vector is a few words' counts in 256 buckets, never negative,
    so every product left out is +0.0, and adding +0.0 to a sum that is not -0.0 leaves it
    as it is."""
    wanted = _nonzero(query)[1]
    products = [value * wanted[i] for i, value in _nonzero(text)[0] if i in wanted]
    return max(0.0, sum(products, 0.0))


@lru_cache(maxsize=65_536)
def _nonzero(text: str) -> tuple[tuple[tuple[int, float], ...], dict[int, float]]:
    """The nonzero entries of a text's local vector, in order of position, as a list and
    as a table."""
    entries = tuple((i, value) for i, value in enumerate(local_vector(text)) if value)
    return entries, dict(entries)


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
    unrounded: list[tuple[float, int]] = []
    for position, memory in enumerate(memories):
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
        relevance = w_relevance * relevance_of(memory.description)
        unrounded.append((_score(recency, importance, relevance), position))
    return [memories[i] for i in _top(unrounded, k)]


def _score(recency: float, importance: float, relevance: float) -> float:
    """A memory's score from its weighted terms, summed as recorded runs summed it:
    (recency + importance) + relevance. Another order can differ in the last bit, and the
    rounding to 12 places can carry that into a ranking."""
    return recency + importance + relevance


class MemoryBatch(Protocol):
    """Memories kept together (one ``MemoriesScored``: ``state.MemoryStream``), with a place
    for what is derived from them alone."""

    @property
    def items(self) -> tuple[MemoryItem, ...]: ...

    @property
    def derived(self) -> dict[Hashable, Any]: ...


@dataclass(frozen=True)
class LooseBatch:
    """Memories that are no stream's batch (part of one): nothing derived is kept long."""

    items: tuple[MemoryItem, ...]
    derived: dict[Hashable, Any] = field(default_factory=dict)


def retrieve_batches(
    batches: Sequence[MemoryBatch], query: str, now: int, weights: RetrievalConfig
) -> list[MemoryItem]:
    """``retrieve`` of the batches' memories in order (with the local vector), at a cost that
    grows with the batches, not with the memories in them.

    Each batch keeps, per query and weights, its memories by tick in order of importance +
    relevance (``_rank_batch``). A tick's recency term is common to its memories, so the
    memories come out of a merge of those lists best first, approximately (the sum in
    another order): the merge stops past the k-th best by more than the approximation's error
    (``margin``), and those taken are scored exactly and ranked by ``_top``. With weights
    that are not finite, or importance scores outside 1–10 (which the protocol never
    records), every memory is scored (``retrieve``)."""
    k = weights.k
    if k == 0 or not any(batch.items for batch in batches):
        return []
    w_recency, w_importance, w_relevance = weights.recency, weights.importance, weights.relevance
    if not all(map(math.isfinite, (w_recency, w_importance, w_relevance))) or not all(
        map(_scores_in_range, batches)
    ):
        return retrieve([m for batch in batches for m in batch.items], query, now, weights)
    # Each term is in [0, its weight] (a local cosine at most 1 and a few ulps), so a score
    # summed in another order is off by a few ulps of the weights' sum: far below the margin,
    # which is far below a unit of the 12th place that could tie two scores once rounded.
    margin = 1e-9 * max(1.0, w_recency + w_importance + w_relevance)
    # One list per tick of every batch: (recency term, its positions best first, the batch's
    # first position, the batch's terms). Merged best first: (-approximate score, list, place).
    lists: list[tuple[float, list[int], int, _Terms]] = []
    merge: list[tuple[float, int, int]] = []
    first = 0
    for batch in batches:
        terms = _batch_terms(batch, query, w_importance, w_relevance)
        for made, order in terms.ticks:
            recency = w_recency * weights.decay ** max(0, now - made)
            merge.append((-(recency + terms.static[order[0]]), len(lists), 0))
            lists.append((recency, order, first, terms))
        first += len(batch.items)
    heapq.heapify(merge)
    scored: list[tuple[float, int]] = []
    chosen: dict[int, MemoryItem] = {}
    floor = -math.inf
    while merge and -merge[0][0] >= floor:
        approximate, which, place = merge[0]
        recency, order, first, terms = lists[which]
        at = order[place]
        score = _score(recency, terms.importance[at], terms.relevance[at])
        scored.append((score, first + at))
        chosen[first + at] = terms.items[at]
        if len(scored) == k:
            floor = -approximate - margin
        if place + 1 < len(order):
            ahead = -(recency + terms.static[order[place + 1]])
            heapq.heapreplace(merge, (ahead, which, place + 1))
        else:
            heapq.heappop(merge)
    return [chosen[position] for position in _top(scored, k)]


@dataclass(frozen=True, slots=True)
class _Terms:
    """A batch's memories scored against one query, but for recency: the weighted importance
    and relevance terms and their sum (``static``), by position in the batch; and for each
    tick the memories were made in, their positions in descending order of ``static``."""

    items: tuple[MemoryItem, ...]
    # Arrays of doubles (the same values, 8 bytes each instead of a float object each): a
    # long run keeps these for every batch of every agent.
    importance: array[float]
    relevance: array[float]
    static: array[float]
    ticks: list[tuple[int, list[int]]]


def _batch_terms(batch: MemoryBatch, query: str, w_importance: float, w_relevance: float) -> _Terms:
    """``batch``'s ``_Terms`` against ``query`` (with the local vector), kept with the batch
    for the last ``TERMS_KEPT`` queries (an agent's plan changes, and rarely comes back)."""
    kept: dict[tuple[str, float, float], _Terms] = batch.derived.setdefault("terms", {})
    key = (query, w_importance, w_relevance)
    terms = kept.get(key)
    if terms is not None:
        return terms
    items = batch.items
    # What does not depend on the query, kept once per importance weight.
    by_score = batch.derived.get(("importance", w_importance))
    if by_score is None:
        by_tick: dict[int, list[int]] = {}
        for position, memory in enumerate(items):
            by_tick.setdefault(memory.created_tick, []).append(position)
        scores = [m.importance for m in items]
        importance = array(
            "d", [w_importance * (0.0 if s is None else (s - 1) / 9) for s in scores]
        )
        by_score = batch.derived[("importance", w_importance)] = (importance, by_tick)
    importance, by_tick = by_score
    relevance_of = _relevances(query, None, None)
    relevance = array("d", [w_relevance * relevance_of(m.description) for m in items])
    static = array("d", [i + r for i, r in zip(importance, relevance, strict=True)])
    ticks = [
        (made, sorted(positions, key=static.__getitem__, reverse=True))
        for made, positions in by_tick.items()
    ]
    if len(kept) >= TERMS_KEPT:
        del kept[next(iter(kept))]  # the oldest
    terms = kept[key] = _Terms(items, importance, relevance, static, ticks)
    return terms


TERMS_KEPT = 4
"""Queries whose ``_Terms`` a batch keeps."""


def _scores_in_range(batch: MemoryBatch) -> bool:
    """Whether every importance score of ``batch`` is 1–10 or none (kept with the batch)."""
    in_range = batch.derived.get("scores in range")
    if in_range is None:
        in_range = batch.derived["scores in range"] = all(
            m.importance is None or 1 <= m.importance <= 10 for m in batch.items
        )
    return bool(in_range)


def _relevances(
    query: str,
    vector_of: Callable[[str], Vector] | None,
    vector_key: Callable[[str], Hashable] | None,
) -> Callable[[str], float]:
    """The relevance of a text to ``query``, as the ranking has always computed it: the local
    cosine, or the dot product of the recorded (unit) vectors, never below 0."""
    if vector_of is None:
        local_row = _relevance_row("local", query)

        def local(text: str) -> float:
            relevance = local_row.get(text)
            if relevance is None:
                relevance = local_row[text] = _local_relevance(text, query)
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


def _top(scored: Sequence[tuple[float, int]], k: int) -> list[int]:
    """The positions of the ``k`` best of the (unrounded score, position) pairs, in order of
    position, each score rounded to ``SCORE_PLACES`` places and a tie going to the later
    position (the newer memory).

    Rounding is monotone, so only the scores near the k-th best unrounded one can be tied
    with or overtake each other once rounded: every score more than ``margin`` below it
    rounds strictly below it, behind k better ones. Only the others are rounded and sorted."""
    if len(scored) > k:
        kth = heapq.nlargest(k, [score for score, _ in scored])[-1]
        # Scores rounding to the same value differ by at most one unit of the 12th place
        # (or are equal, where a float's spacing is coarser): far less than the margin.
        floor = kth - 1e-9 * max(1.0, abs(kth))
        scored = [pair for pair in scored if pair[0] >= floor]
    rounded = [(round(score, SCORE_PLACES), position) for score, position in scored]
    best = sorted(rounded, key=lambda s: (-s[0], -s[1]))[:k]
    return sorted(position for _, position in best)


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
