"""The Frohlich state keeps its growing maps in persistent maps, so that folding costs the same
per event however long the history: folding stays pure and gives the state the engine
reached. (Behaviour only: the rates are measured by ``benchmarks/fold_bench.py``.)"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from maai.domain import experiments
from maai.domain.events import Event
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.events import StatementMade
from maai.domain.frohlich.state import Agents, AgentState, State, evolve, fold, initial_state
from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.fold import load_state
from maai.runtime.runs import start_run

NAMES = ["ann", "ben", "cat", "dan"]


def config() -> FrohlichConfig:
    # Stubborn participants who prefer different principles: every round is used.
    agents = [
        {
            "name": name,
            "model": "simulated",
            "persona": {
                "preferred_principle": principle,
                "stubbornness": 1.0,
                "error_rate": 0.2,
                "latency_ms": 0,
            },
        }
        for name, principle in zip(NAMES, "abcd", strict=True)
    ]
    return parse_config({"seed": 11, "phase2_rounds": 3, "agents": agents, "tracing": False})


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[State, State, list[Event]]:
    """A small simulated run: the state the engine returned, the state ``load_state`` folds
    from the ledger, and the stored events, decoded."""
    db = str(Path(tmp_path_factory.mktemp("fold")) / "ledger.db")
    with EventStore.open(db) as store:
        run_id = start_run(store, config())
        reached = asyncio.run(Engine(store, run_id, LiveExecutor(config(), env={})).run())
        loaded, head = load_state(store, run_id)
        registry = experiments.get(store.get_run(run_id).kind).registry
        events = [registry.decode(s.type, s.schema_version, s.payload) for s in store.read(run_id)]
    assert head == len(events)
    return reached, loaded, events


def snapshot(state: State) -> dict[str, Any]:
    """A deep copy of a state's value (its maps as plain dicts, in their order)."""
    out: dict[str, Any] = {}
    for f in fields(State):
        if not f.compare:
            continue
        value = getattr(state, f.name)
        if isinstance(value, Mapping):
            value = list(value.items())
        out[f.name] = copy.deepcopy(value)
    return out


def test_load_state_gives_the_state_the_engine_reached(recorded) -> None:
    reached, loaded, events = recorded
    assert reached.status == "completed"
    assert loaded == reached
    assert snapshot(loaded) == snapshot(reached)
    assert len(loaded.records) > 100 and len(loaded.answers) > 100
    assert set(loaded.requested) == set(loaded.answers)
    # Every Phase-2 round was used, so the history holds every statement.
    statements = [e for e in events if isinstance(e, StatementMade)]
    assert len(statements) == 3 * len(NAMES)
    assert [i.text for i in loaded.public if i.kind == "statement"] == [s.text for s in statements]


def test_folding_again_gives_the_same_state(recorded) -> None:
    _, loaded, events = recorded
    first = fold(events)
    second = fold(events)
    assert first == second == loaded
    assert snapshot(first) == snapshot(second)
    # The agents keep the config's order (prompts and summaries list them in it).
    assert list(first.agents) == NAMES
    assert [a.name for a in first.agents.values()] == NAMES


def test_evolve_leaves_its_input_unchanged(recorded) -> None:
    _, _, events = recorded
    state = initial_state()
    checked = 0
    for i, event in enumerate(events):
        before = snapshot(state) if i % 20 == 0 or i == len(events) - 1 else None
        after = evolve(state, event)
        assert after is not state
        if before is not None:
            assert snapshot(state) == before
            checked += 1
        state = after
    assert checked > 10


def test_two_branches_of_one_state_do_not_see_each_other(recorded) -> None:
    _, _, events = recorded
    at = next(i for i, e in enumerate(events) if isinstance(e, StatementMade))
    base = fold(events[:at])
    before = snapshot(base)
    said = events[at]
    assert isinstance(said, StatementMade)
    unsaid = said.model_copy(update={"text": "something else entirely"})
    one, other = evolve(base, said), evolve(base, unsaid)
    assert snapshot(base) == before
    assert said.key not in base.records and not base.public
    assert one.records[said.key] is said and other.records[said.key] is unsaid
    assert [i.text for i in one.public] == [said.text]
    assert [i.text for i in other.public] == ["something else entirely"]
    # Both branches go on to the end, and the recorded one ends where a straight fold ends.
    assert fold(events[at + 1 :], one) == fold(events)
    assert fold(events[at + 1 :], other) != fold(events)


def test_agents_update_one_by_one_and_keep_their_order() -> None:
    agents = Agents(AgentState(name=n) for n in NAMES)
    updated = agents.set("cat", AgentState(name="cat", bank_cents=5))
    assert list(updated) == NAMES and list(agents) == NAMES
    assert agents["cat"].bank_cents == 0 and updated["cat"].bank_cents == 5
    assert updated == {n: updated[n] for n in NAMES}
    assert updated != agents
    assert "ann" in updated and "eve" not in updated and updated.get("eve") is None
    with pytest.raises(KeyError):
        agents.set("eve", AgentState(name="eve"))


def test_fold_renews_the_scope_tokens_that_evolve_renews(recorded) -> None:
    """Memoized walks (``domain.walk``) are keyed by each agent's scope token: a fold must
    keep the tokens ``evolve`` keeps and renew those it renews, in Phase 1 (one agent's
    event renews that agent's token) and from Phase 2 on (every event renews every token,
    which the fold does once)."""
    _, _, events = recorded
    phase2 = next(i for i, e in enumerate(events) if getattr(e, "step", "").startswith("2."))
    checked = set()
    ranges = [(i, i + 1) for i in range(2, 14)] + [(3, 30), (phase2 - 12, phase2 + 6)]
    for start, stop in [*ranges, (phase2 + 5, phase2 + 40), (phase2 + 5, len(events))]:
        base = fold(events[:start])
        tokens = {name: base.scopes.get(name) for name in NAMES}
        chain = base
        for event in events[start:stop]:
            chain = evolve(chain, event)
        folded = fold(events[start:stop], base)
        kept = {name: folded.scopes.get(name) is tokens[name] for name in NAMES}
        assert kept == {name: chain.scopes.get(name) is tokens[name] for name in NAMES}
        checked.add(tuple(kept.values()))
    assert len(checked) > 1  # some ranges keep tokens, some renew them all
