"""Relevance from recorded embeddings (docs/world.md §4): each text the retrieval ranks is
embedded once per run, before the prompt that ranks it, and the ranking reads the recorded
vectors, not the local ones."""

from __future__ import annotations

from collections import Counter

from maai.domain.calls import ModelRequest
from maai.domain.embeddings import EMBED, EMBEDDER, encode_vector
from maai.domain.world.config import RetrievalConfig
from maai.domain.world.events import MemoriesScored, MemoryItem
from maai.domain.world.memory import retrieve
from tests.support.world_driver import drive, load, simulated

EMBEDDINGS = {"model": "simulated"}


def test_each_text_ranked_is_embedded_once_however_many_agents_rank_it() -> None:
    run = drive(load("world_pgg.yaml", embeddings=EMBEDDINGS))
    embedded = [r for r in run.requests if r.agent == EMBEDDER]
    assert embedded and all(r.purpose == EMBED for r in embedded)
    repeats = [a for a, n in Counter(r.address for r in embedded).items() if n > 1]
    assert repeats == []
    assert len({r.input for r in embedded}) == len(embedded)
    # Agents witness the same events: the same memory text is ranked by several agents.
    holders: Counter[str] = Counter()
    for scored in run.of(MemoriesScored):
        holders.update({m.description for m in scored.memories})
    shared = {text for text, n in holders.items() if n > 1}
    assert shared & {r.input for r in embedded}


def test_without_embeddings_no_embedding_call_is_made() -> None:
    run = drive(load("world_pgg.yaml"))
    assert not [r for r in run.requests if r.agent == EMBEDDER]


def act_prompts(requests: list[ModelRequest]) -> list[str]:
    return [r.input for r in requests if r.purpose == "act"]


def test_the_ranking_reads_the_recorded_vectors() -> None:
    # Every text embedded as the same vector: relevance is 1 for every memory, so the
    # ranking is by recency and importance alone, as with a relevance weight of 0.
    config = load("world_pgg.yaml", embeddings=EMBEDDINGS)
    others = simulated(config)
    same = encode_vector([1.0])

    def constant(request: ModelRequest) -> str:
        return same if request.agent == EMBEDDER else others(request)

    by_recorded = act_prompts(drive(config, constant).requests)
    no_relevance = load("world_pgg.yaml", retrieval={"relevance": 0.0})
    by_recency_and_importance = act_prompts(drive(no_relevance).requests)
    by_local_vector = act_prompts(drive(load("world_pgg.yaml")).requests)
    assert by_recorded == by_recency_and_importance
    assert by_local_vector != by_recency_and_importance  # relevance does move memories


def test_retrieval_ranks_by_the_vectors_it_is_given() -> None:
    weights = RetrievalConfig(k=1, recency=0.0, importance=0.0, relevance=1.0)
    memories = [
        MemoryItem(description="the cellar", created_tick=0, importance=5),
        MemoryItem(description="the attic", created_tick=0, importance=5),
    ]
    vectors = {"the cellar": (1.0, 0.0), "the attic": (0.0, 1.0), "where to go": (0.1, 0.99)}
    [best] = retrieve(memories, "where to go", 3, weights, vectors.__getitem__)
    assert best.description == "the attic"
    vectors["where to go"] = (0.99, 0.1)
    [best] = retrieve(memories, "where to go", 3, weights, vectors.__getitem__)
    assert best.description == "the cellar"


def test_no_embedding_is_asked_for_while_a_ticks_actions_are_applied() -> None:
    # The free world's seed makes plans change by the agents' own actions: the new plan is
    # ranked against next tick, whose start asks for its embedding; the tick never waits.
    from maai.domain.events import ModelCallRequested
    from maai.domain.world.events import OrderDrawn, TickClosed

    run = drive(load("world_free.yaml", embeddings=EMBEDDINGS))
    applying = False
    asked = 0
    for event in run.events:
        if isinstance(event, OrderDrawn):
            applying = True
        elif isinstance(event, TickClosed):
            applying = False
        elif isinstance(event, ModelCallRequested) and event.request.agent == EMBEDDER:
            asked += 1
            assert not applying, f"{event.request.address} asked while actions were applied"
    assert asked
