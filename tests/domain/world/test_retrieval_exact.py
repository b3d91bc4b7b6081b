"""The fast retrieval (``memory.retrieve``: memoized relevances, only the contenders rounded
and sorted) ranks exactly as the ranking recorded runs were made with, written out here as
it was first written: every memory scored and rounded, all of them sorted. Random memory
streams, with the local vector, recorded (float32) embeddings and hand-made vectors whose
scores tie or differ in the last bit only."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.embeddings import decode_vector, dot, encode_vector, local_vector
from maai.domain.world import memory
from maai.domain.world.config import RetrievalConfig
from maai.domain.world.events import MemoryItem
from maai.domain.world.state import MemoryStream

Vector = Sequence[float]


def reference(
    memories: Sequence[MemoryItem],
    query: str,
    now: int,
    weights: RetrievalConfig,
    vector_of: Callable[[str], Vector] | None = None,
) -> list[MemoryItem]:
    """The ranking as first written (at 50fb6af), kept verbatim as the specification."""
    if weights.k == 0 or not memories:
        return []

    def cosine(a: Vector, b: Vector) -> float:
        return sum(map(operator.mul, a, b))

    similarity = cosine if vector_of is None else dot
    vector = vector_of or local_vector
    wanted = vector(query)
    scored: list[tuple[float, int]] = []
    for i, item in enumerate(memories):
        recency = weights.decay ** max(0, now - item.created_tick)
        importance = 0.0 if item.importance is None else (item.importance - 1) / 9
        relevance = max(0.0, similarity(vector(item.description), wanted))
        score = (
            weights.recency * recency
            + weights.importance * importance
            + weights.relevance * relevance
        )
        scored.append((round(score, 12), i))
    best = sorted(scored, key=lambda s: (-s[0], -s[1]))[: weights.k]
    return [memories[i] for _, i in sorted(best, key=lambda s: s[1])]


def positions(chosen: list[MemoryItem], memories: Sequence[MemoryItem]) -> list[int]:
    """Which memories were chosen, by position (equal memories are told apart)."""
    where = {id(m): i for i, m in enumerate(memories)}
    return [where[id(m)] for m in chosen]


# Few words, so that texts repeat and share words: equal and near-equal relevances.
WORDS = ["ada", "ben", "says", "hello", "moves", "to", "the", "cafe", "park", "waits", "all"]
texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=5).map(" ".join)
# Weights that make exact ties (0, equal weights) and sums that differ in the last bits.
weight = st.sampled_from([0.0, 1.0, 0.5, 0.1, 0.2, 0.3, 1 / 3, 2.0, 7.25]) | st.floats(0, 10)
decay = st.sampled_from([1.0, 0.9, 0.5, 0.99]) | st.floats(0.01, 1.0)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[MemoryItem], int]:
    now = draw(st.integers(0, 40))
    items = draw(
        st.lists(
            st.builds(
                MemoryItem,
                description=texts,
                # A few made after ``now``: recency stays 1 (``max(0, ...)``).
                created_tick=st.integers(0, now + 2),
                importance=st.none() | st.integers(1, 10) | st.sampled_from([0, 11, -3]),
            ),
            max_size=60,
        )
    )
    if items and draw(st.booleans()):  # duplicates: ties on every term
        items = items + [items[i] for i in draw(st.lists(st.integers(0, len(items) - 1)))]
    return items, now


retrievals = st.builds(
    RetrievalConfig,
    k=st.integers(0, 8),
    recency=weight,
    importance=weight,
    relevance=weight,
    decay=decay,
)


@settings(max_examples=400, deadline=None)
@given(streams(), texts, retrievals, st.integers(0, 3))
def test_the_fast_ranking_is_the_reference_with_the_local_vector(
    stream: tuple[list[MemoryItem], int], query: str, weights: RetrievalConfig, later: int
) -> None:
    memories, now = stream
    expected = reference(memories, query, now, weights)
    assert positions(memory.retrieve(memories, query, now, weights), memories) == positions(
        expected, memories
    )
    # Again, the relevances remembered, at a later tick (every recency decayed once more).
    again = memory.retrieve(memories, query, now + later, weights)
    assert positions(again, memories) == positions(
        reference(memories, query, now + later, weights), memories
    )


@settings(max_examples=200, deadline=None)
@given(streams(), texts, retrievals, st.sampled_from([3, 8, 64]), st.booleans())
def test_the_fast_ranking_is_the_reference_with_recorded_embeddings(
    stream: tuple[list[MemoryItem], int],
    query: str,
    weights: RetrievalConfig,
    dimensions: int,
    keyed: bool,
) -> None:
    # As a run reads them: the recorded answer (float32, base64) decoded to unit length; few
    # dimensions make texts collide on one vector.
    def answer(text: str) -> str:
        return encode_vector(local_vector(text, dimensions) if text else [1.0] * dimensions)

    def vector_of(text: str) -> tuple[float, ...]:
        return decode_vector(answer(text))

    memories, now = stream
    expected = reference(memories, query, now, weights, vector_of)
    for _ in range(2):  # the second time from the remembered relevances, when keyed
        got = memory.retrieve(memories, query, now, weights, vector_of, answer if keyed else None)
        assert positions(got, memories) == positions(expected, memories)


@st.composite
def batched_streams(draw: st.DrawFn) -> tuple[MemoryStream, int]:
    """A memory stream grown batch by batch, as ``MemoriesScored`` grow it: mostly one tick
    per batch, sometimes several, duplicates included; scores 1-10 or none, or now and then
    out of range (every memory then scored in full)."""
    now = draw(st.integers(0, 30))
    scores = st.none() | st.integers(1, 10)
    if draw(st.integers(0, 9)) == 0:
        scores = scores | st.sampled_from([0, 11, -3])
    stream = MemoryStream()
    for made in range(draw(st.integers(0, 12))):
        ticks = st.just(made) if draw(st.booleans()) else st.integers(0, now + 2)
        batch = draw(
            st.lists(
                st.builds(MemoryItem, description=texts, created_tick=ticks, importance=scores),
                max_size=12,
            )
        )
        if batch and draw(st.booleans()):
            batch += [batch[i] for i in draw(st.lists(st.integers(0, len(batch) - 1)))]
        stream = stream.append(batch)
    return stream, now


@settings(max_examples=200, deadline=None)
@given(batched_streams(), st.lists(texts, min_size=1, max_size=6), retrievals)
def test_ranking_batch_by_batch_is_the_reference(
    stream: tuple[MemoryStream, int], queries: list[str], weights: RetrievalConfig
) -> None:
    batches, now = stream
    memories = list(batches)
    # Each batch keeps what it derived per query and weights (for the last few queries):
    # later ticks and other queries read it back, more queries than it keeps push the oldest
    # out (and a loose part of a batch derives its own).
    for later in range(3):
        for query in queries:
            got = memory.retrieve_batches(batches.batches(), query, now + later, weights)
            expected = reference(memories, query, now + later, weights)
            assert positions(got, memories) == positions(expected, memories)
    loose = [memory.LooseBatch(b.items) for b in batches.batches()]
    got = memory.retrieve_batches(loose, queries[0], now, weights)
    assert positions(got, memories) == positions(
        reference(memories, queries[0], now, weights), memories
    )


# Relevances that tie once rounded to 12 places but differ unrounded, either way round.
NEAR = [0.3, 0.1 + 0.2, 0.7, 0.7 + 1e-16, 0.7 - 1e-16, 0.5, 0.5 + 4e-13, 0.5 - 4e-13, 0.0]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(range(len(NEAR))), min_size=1, max_size=30),
    st.integers(1, 6),
    st.sampled_from([0.0, 1.0]),
)
def test_scores_equal_once_rounded_tie_to_the_newer_memory(
    picks: list[int], k: int, recency: float
) -> None:
    memories = [
        MemoryItem(description=f"m{p}", created_tick=i % 3, importance=None)
        for i, p in enumerate(picks)
    ]
    vectors = {f"m{p}": (NEAR[p],) for p in range(len(NEAR))} | {"q": (1.0,)}
    weights = RetrievalConfig(k=k, recency=recency, importance=0.0, relevance=1.0, decay=0.5)
    got = memory.retrieve(memories, "q", 2, weights, vectors.__getitem__)
    expected = reference(memories, "q", 2, weights, vectors.__getitem__)
    assert positions(got, memories) == positions(expected, memories)


def test_a_newer_memory_a_last_bit_lower_wins_the_tie() -> None:
    older = MemoryItem(description="older", created_tick=0, importance=None)
    newer = MemoryItem(description="newer", created_tick=0, importance=None)
    vectors = {"older": (0.1 + 0.2,), "newer": (0.3,), "q": (1.0,)}
    weights = RetrievalConfig(k=1, recency=0.0, importance=0.0, relevance=1.0)
    assert vectors["older"][0] > vectors["newer"][0]  # unrounded, the older one is ahead
    assert memory.retrieve([older, newer], "q", 1, weights, vectors.__getitem__) == [newer]


def test_infinite_weights_rank_as_the_reference() -> None:
    memories = [
        MemoryItem(description=d, created_tick=t, importance=s)
        for d, t, s in [("ada says hello", 0, 3), ("ben waits", 1, None), ("the cafe", 2, 9)]
    ]
    for weights in (
        RetrievalConfig(k=2, recency=float("inf")),
        RetrievalConfig(k=2, importance=float("inf"), relevance=0.0),
    ):
        expected = reference(memories, "ada", 3, weights)
        got = memory.retrieve(memories, "ada", 3, weights)
        assert positions(got, memories) == positions(expected, memories)


def test_a_score_is_summed_in_the_recorded_order() -> None:
    # (recency + importance) + relevance and recency + (importance + relevance) differ in the
    # last bit here, and the 12th place rounds them apart: 0.750000000001 against a tie at
    # 0.75 (which the newer memory, "y", would win). Found by search.
    x = MemoryItem(description="x", created_tick=1, importance=4)
    y = MemoryItem(description="y", created_tick=0, importance=10)
    vectors = {"x": (0.4166666666671667, 0.0), "y": (0.0, 1.0), "q": (1.0, 0.0)}
    weights = RetrievalConfig(k=1, recency=0.1, importance=0.7, relevance=1.0, decay=0.5)
    assert reference([x, y], "q", 1, weights, vectors.__getitem__) == [x]
    assert memory.retrieve([x, y], "q", 1, weights, vectors.__getitem__) == [x]
