"""Folding a stored run the fast way (``load_state``: requests read as their headers by the
database, short payloads validated straight from their JSON text, a dispatch table per event
type) gives exactly what decoding every event whole with pydantic's validation gives: for
every event type of recorded runs of the three experiments, and of the compatibility
fixtures, whose old schema versions go through their upcasters."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from maai.domain import experiments
from maai.domain.config import ExperimentConfig
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.domain.experiment import Experiment
from maai.domain.experiments import parse_config
from maai.domain.registry import EventRegistry
from maai.ledger import EventStore, StoredEvent, canonical_json
from maai.ledger.fields import pick
from maai.runtime import fold
from maai.runtime.config_files import read_config
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.fold import FOLD_FIELDS, FOLD_OMITS, fold_fields_decoder, load_state
from maai.runtime.runs import start_run
from maai.testing.runs import example_config
from tests.e2e.test_linear_storage import discussion

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def _record(path: Path, config: ExperimentConfig) -> None:
    with EventStore.open(str(path)) as store:
        run_id = start_run(store, config, run_id="r")
        asyncio.run(Engine(store, run_id, LiveExecutor(config), signer=None).run())


def _packaged(name: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = read_config(REPO / "configs" / name)  # the world file read in
    data.update(changes, tracing=False)
    return data


# Every installed experiment runs its example config, save where another says as much.
RECORDED: dict[str, Callable[[], dict[str, Any]]] = {
    "frohlich": lambda: discussion(agents=5, rounds=6),  # long enough for packed prompts
    "collaboration": lambda: _packaged("collaboration.yaml"),
    "world": lambda: _packaged("world_pgg.yaml", embeddings={"model": "simulated"}),
}
COMPAT = sorted(p.name for p in FIXTURES.glob("compat*"))


def _config(name: str) -> ExperimentConfig:
    return parse_config(RECORDED[name]())[1] if name in RECORDED else example_config(name)


@pytest.fixture(scope="module", params=[*experiments.names(), *COMPAT])
def ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    name: str = request.param
    path = tmp_path_factory.mktemp(name) / "ledger.db"
    if name in COMPAT:
        with gzip.open(FIXTURES / name / "ledger.db.gz") as source, path.open("wb") as target:
            shutil.copyfileobj(source, target)
    else:
        _record(path, _config(name))
    return str(path)


@pytest.fixture
def store(ledger: str) -> Iterator[EventStore]:
    with EventStore.open(ledger) as opened:
        yield opened


def _run(store: EventStore) -> tuple[str, Experiment]:
    (run,) = store.list_runs()
    return run.run_id, experiments.get(run.kind)


def validated(registry: EventRegistry, stored: StoredEvent) -> Event:
    """The reference: upcast to the current version, then pydantic's full validation."""
    cls = registry.types[stored.type]
    payload, version = stored.payload, stored.schema_version
    while version < cls.VERSION:
        payload = registry.upcasters[(stored.type, version)](payload)
        version += 1
    return cls.model_validate(payload)


def same(a: Event, b: Event) -> bool:
    # == alone takes 1 for 1.0 and True: the JSON forms tell them apart
    return (
        type(a) is type(b)
        and a == b
        and canonical_json(a.model_dump(mode="json")) == canonical_json(b.model_dump(mode="json"))
    )


def test_every_stored_event_decodes_as_validation_decodes_it(store: EventStore) -> None:
    run_id, experiment = _run(store)
    registry = experiment.registry
    types = set()
    for stored in store.read(run_id):
        want = validated(registry, stored)
        text = canonical_json(stored.payload)
        assert same(registry.decode(stored.type, stored.schema_version, stored.payload), want)
        assert same(registry.decode_json(stored.type, stored.schema_version, text), want)
        types.add(stored.type)
    assert {"run.started", "model.requested", "model.completed"} <= types
    assert len(types) >= 8, types


def test_the_fold_decoder_reads_what_it_needs_exactly(store: EventStore) -> None:
    run_id, experiment = _run(store)
    decode = fold_fields_decoder(experiment)
    fast = store.read_fields(run_id, FOLD_FIELDS, as_text=True, omit=FOLD_OMITS)
    answers = 0
    for stored, (seq, type_, version, payload) in zip(store.read(run_id), fast, strict=True):
        assert (seq, type_, version) == (stored.seq, stored.type, stored.schema_version)
        want = validated(experiment.registry, stored)
        if isinstance(want, ModelCallCompleted):  # read without the raw response
            answers += bool(want.answer.raw)
            want = want.model_copy(update={"answer": want.answer.without_raw()})
            whole = {k: v for k, v in stored.payload["answer"].items() if k != "raw"}
            stored = stored.model_copy(update={"payload": {**stored.payload, "answer": whole}})
        event = decode(type_, version, payload)
        if isinstance(want, ModelCallRequested):
            assert payload == pick(stored.payload, FOLD_FIELDS[type_])
            assert isinstance(event, ModelCallRequested)
            header = (event.request_hash, event.attempt, event.key, event.agent_name)
            assert header == (want.request_hash, want.attempt, want.key, want.agent_name)
            request = event.request
            for name in ("address", "agent", "purpose", "model"):
                assert getattr(request, name) == getattr(want.request, name)
        else:
            if isinstance(payload, str):
                assert json.loads(payload) == stored.payload
            assert same(event, want), (seq, type_)
    assert answers > 0


def test_load_state_equals_the_fold_of_fully_validated_events(store: EventStore) -> None:
    run_id, experiment = _run(store)
    state = experiment.initial_state()
    for stored in store.read(run_id):
        state = experiment.evolve(state, validated(experiment.registry, stored))
    folded, head = load_state(store, run_id)
    assert head == store.head(run_id)
    assert folded == state


def test_the_experiments_fold_is_evolve_over_the_events_and_leaves_its_input(
    store: EventStore,
) -> None:
    """``Experiment.fold`` sets each event's changes on a copy of the state it starts from:
    from the middle of a run it reaches what ``evolve`` reaches, and the state it started
    from is the same as before."""
    run_id, experiment = _run(store)
    events = [validated(experiment.registry, stored) for stored in store.read(run_id)]
    half = len(events) // 2
    middle = middle_again = experiment.initial_state()
    for event in events[:half]:
        middle = experiment.evolve(middle, event)
        middle_again = experiment.evolve(middle_again, event)
    reached = middle
    for event in events[half:]:
        reached = experiment.evolve(reached, event)
    assert experiment.fold(events[half:], middle) == reached
    assert middle == middle_again
    assert experiment.fold(iter(events)) == reached


def test_a_request_is_built_as_pydantic_would_construct_it(store: EventStore) -> None:
    run_id, experiment = _run(store)
    decode = fold_fields_decoder(experiment)
    built = [
        decode(type_, version, payload)
        for _, type_, version, payload in store.read_fields(run_id, FOLD_FIELDS, as_text=True)
        if type_ == ModelCallRequested.TYPE
    ]
    assert built and fold._requested is fold._built_requested  # this pydantic's layout
    for event in built:
        assert isinstance(event, ModelCallRequested)
        constructed = ModelCallRequested.model_construct(
            request=event.request, request_hash=event.request_hash, attempt=event.attempt
        )
        assert vars(event) == vars(constructed)
        assert event.model_fields_set == constructed.model_fields_set
        assert event == constructed
