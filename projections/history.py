"""A run's history as every projection reads it: decoded events in seq order, each with the
envelope fields that make it citable (seq, hash, recorded_at).

Projections never read the store themselves: the CLI reads the stored events and hands them
here. Tests and the golden files build histories from in-memory events with :func:`chain`,
which hashes them exactly as the store would, with a fixed time.

A history held whole keeps every prompt, and a prompt shows the whole discussion so far, so
the text of a run's prompts grows with the square of its length (5.8 GB for 32 agents × 40
rounds, from a 70 MB ledger). The CLI's exports and audits therefore read a history whose
``model.requested`` events are held without their ``system`` and ``input`` texts
(:data:`PROMPT_NOT_HELD` stands in for them) beside a :class:`RunSource`, which reads the
run again: :meth:`History.stream` and :meth:`History.requests` give the events whole, one
at a time, and :meth:`History.prompt` the texts of one request as the source kept them
(the JSON export spools them to a temporary file). Projections read prompt texts only
through these three, so they work on both kinds of history alike (docs/projections.md,
"Memory").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol, TypeVar, overload

from pydantic import ValidationError

from maai.domain import experiments
from maai.domain.config import ExperimentConfig
from maai.domain.events import (
    Event,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
    RunForked,
    RunStarted,
)
from maai.domain.experiment import Experiment
from maai.domain.registry import COMMON_REGISTRY, EventRegistry, UnknownEventError, encode
from maai.ledger import GENESIS_HASH, StoredEvent, canonical_json, envelope_hash, format_recorded_at
from maai.ledger.packed_values import MIN_LIST_ITEMS, MIN_TEXT_CHARS, PACKED_KEY
from maai.projections.entry import Entry as Entry
from maai.projections.held import HeldEntries
from maai.projections.jsonout import DeferredText

E = TypeVar("E", bound=Event)
F = TypeVar("F", bound=Event)
G = TypeVar("G", bound=Event)

FIXED_TIME = "2025-01-01T00:00:00.000000+00:00"
"""The recorded_at of events chained in memory (tests, golden files)."""


PROMPT_NOT_HELD = "\u2063[prompt not held: read it with History.prompt() or History.requests()]"
"""What a history read from a :class:`RunSource` holds in place of a request's ``system``
and ``input``: a projection that shows it has read a prompt the wrong way."""

PromptText = str | DeferredText
"""A prompt's text, or a handle that reads it when it is written out (``jsonout``)."""


class RunSource(Protocol):
    """Where a history held without its prompts reads them (the CLI: the store)."""

    def read(self) -> Iterable[StoredEvent]:
        """The run's events again, whole, in seq order, streamed."""
        ...

    def texts(self, seq: int) -> tuple[PromptText, PromptText]:
        """``system`` and ``input`` of the request recorded at ``seq``, as kept on the first
        read (``KeyError`` where they were not kept)."""
        ...


class UnknownAgentError(KeyError):
    """A projection asked for an agent the run does not have."""

    def __init__(self, name: str, names: list[str]) -> None:
        super().__init__(name)
        self.name = name
        self.names = names

    def __str__(self) -> str:
        known = ", ".join(self.names) or "none"
        return f"no agent named {self.name!r} (agents: {known})"


class UnreadableEventError(ValueError):
    """A stored event that this code cannot decode (unknown type, newer schema)."""


@dataclass(frozen=True)
class History:
    run_id: str
    # A tuple, or for a history read from a source a ``HeldEntries`` (compressed; held.py).
    entries: Sequence[Entry]
    stored_status: str | None = None  # the store's status of the run, where known
    experiment: Experiment | None = None  # the experiment its first event names
    # Where the prompts are when ``entries`` do not hold them (see the module's docstring).
    source: RunSource | None = None

    def __post_init__(self) -> None:
        if self.experiment is None and self.entries:
            first = self.entries[0].event
            if isinstance(first, RunStarted):
                object.__setattr__(self, "experiment", experiments.get(first.experiment))

    @overload
    def of(self, kind: type[E], /) -> list[tuple[Entry, E]]: ...

    @overload
    def of(self, kind: type[E], other: type[F], /) -> list[tuple[Entry, E | F]]: ...

    @overload
    def of(
        self, kind: type[E], other: type[F], third: type[G], /
    ) -> list[tuple[Entry, E | F | G]]: ...

    def of(self, *types: type[Event]) -> list[tuple[Entry, Any]]:
        """Entries whose event is one of ``types``, in seq order, with the typed event."""
        if isinstance(self.entries, HeldEntries):  # decodes those alone
            return [(e, e.event) for e in self.entries.of(*types)]
        return [(e, e.event) for e in self.entries if isinstance(e.event, types)]

    @overload
    def each(self, kind: type[E], /) -> Iterator[tuple[Entry, E]]: ...

    @overload
    def each(self, kind: type[E], other: type[F], /) -> Iterator[tuple[Entry, E | F]]: ...

    @overload
    def each(
        self, kind: type[E], other: type[F], third: type[G], /
    ) -> Iterator[tuple[Entry, E | F | G]]: ...

    @overload  # more kinds, or a tuple of them unpacked: the caller narrows
    def each(self, *types: type[Event]) -> Iterator[tuple[Entry, Any]]: ...

    def each(self, *types: type[Event]) -> Iterator[tuple[Entry, Any]]:
        """:meth:`of` one at a time, for a loop that reads them once: a history read from a
        store then holds the entry at hand, not all of them."""
        if isinstance(self.entries, HeldEntries):
            return ((e, e.event) for e in self.entries.of(*types))
        return ((e, e.event) for e in self.entries if isinstance(e.event, types))

    def of_agent(self, agent: str, *types: type[Event]) -> list[tuple[Entry, Any]]:
        """:meth:`of`, for the events whose ``agent`` field is ``agent``."""
        if isinstance(self.entries, HeldEntries):  # decodes those alone
            return [(e, e.event) for e in self.entries.of(*types, agent=agent)]
        return [(e, ev) for e, ev in self.of(*types) if getattr(ev, "agent", None) == agent]

    def seqs(self) -> Sequence[int]:
        """The seq of every entry, in order (a history read from a store: decoding none)."""
        if isinstance(self.entries, HeldEntries):
            return self.entries.seqs()
        return [e.seq for e in self.entries]

    def positions(self, *types: type[Event]) -> list[int]:
        """The positions in ``entries`` of the events of ``types`` (decoding none of a
        history read from a store)."""
        if isinstance(self.entries, HeldEntries):
            return self.entries.positions(*types)
        return [i for i, e in enumerate(self.entries) if isinstance(e.event, types)]

    def stream(self) -> Iterator[Entry]:
        """Every entry with its event whole (prompts included), in seq order, one at a time:
        for a history without its prompts, read again from its source."""
        if self.source is None:
            yield from self.entries
            return
        yield from entries_from_stored(self.source.read(), self.experiment)

    def requests(self) -> Iterator[tuple[Entry, ModelCallRequested]]:
        """Every ``model.requested`` with its whole request, in seq order, one at a time."""
        for entry in self.stream():
            if isinstance(entry.event, ModelCallRequested):
                yield entry, entry.event

    def prompt(self, entry: Entry) -> tuple[PromptText, PromptText]:
        """``system`` and ``input`` of the request recorded at ``entry``: the event's own
        texts where the history holds them, else as its source kept them."""
        event = entry.event
        assert isinstance(event, ModelCallRequested)
        if self.source is None or event.request.input != PROMPT_NOT_HELD:
            return event.request.system, event.request.input
        return self.source.texts(entry.seq)

    @cached_property
    def started(self) -> RunStarted | None:
        found = self.of(RunStarted)
        return found[0][1] if found else None

    @cached_property
    def config(self) -> Any:
        """The run's config as recorded (its experiment's config model); ``None`` when
        missing or unreadable (audits report that instead of crashing). A fork's is the
        config its ``run.forked`` gives, in force from its fork point on (docs/forks.md)."""
        return self._configs[-1][1] if self._configs else None

    def config_at(self, seq: int) -> Any:
        """The config in force at event ``seq``: a fork's prefix ran under its parent's."""
        found = [config for at, config in self._configs if at <= seq]
        return found[-1] if found else self.config

    @cached_property
    def _configs(self) -> list[tuple[int, Any]]:
        """(seq, config) at ``run.started`` and at every ``run.forked``, in seq order."""
        if self.started is None or self.experiment is None:
            return []
        out: list[tuple[int, Any]] = []
        for entry, event in self.of(RunStarted, RunForked):
            started = self.started
            if isinstance(event, RunForked):
                started = started.model_copy(update={"config": event.config, "seed": event.seed})
            try:
                config: ExperimentConfig = self.experiment.config_of(started)
            except ValueError:
                return []
            out.append((entry.seq, config))
        return out

    @property
    def agent_names(self) -> list[str]:
        return self.config.agent_names() if self.config else []

    @property
    def completed(self) -> bool:
        return bool(self.of(RunCompleted))

    @property
    def status(self) -> str:
        """The store's status where known; otherwise what the events say."""
        if self.stored_status:
            return self.stored_status
        if self.completed:
            return "completed"
        # A resumed run records new events after its failure: only a last failure counts.
        if self.entries and isinstance(self.entries[-1].event, RunFailed):
            return "failed"
        return "running" if self.entries else "new"


def history_from_stored(
    run_id: str,
    stored: Iterable[StoredEvent],
    status: str | None = None,
    experiment: Experiment | None = None,
    source: RunSource | None = None,
) -> History:
    """Decode a stored run with its experiment's event types (named by the caller, or by the
    run's first event, ``run.started``). With a ``source``, ``stored`` may hold requests
    without their texts (:func:`light_record`), which the history then reads from it."""
    if source is not None:
        held = HeldEntries()
        for record, registry, event in _decoded(stored, experiment):
            held.add(record, registry, event)
            if experiment is None and isinstance(event, RunStarted):
                experiment = experiments.get(event.experiment)
        return History(run_id, held.done(), status, experiment, source)
    entries = tuple(entries_from_stored(stored, experiment))
    if experiment is None:
        started = next((e.event for e in entries if isinstance(e.event, RunStarted)), None)
        experiment = experiments.get(started.experiment) if started is not None else None
    return History(run_id, entries, status, experiment, source)


def entries_from_stored(
    stored: Iterable[StoredEvent], experiment: Experiment | None = None
) -> Iterator[Entry]:
    """The stored events decoded one at a time, as they are read."""
    for record, _, event in _decoded(stored, experiment):
        yield Entry(record.seq, record.hash, format_recorded_at(record.recorded_at), event)


def _decoded(
    stored: Iterable[StoredEvent], experiment: Experiment | None
) -> Iterator[tuple[StoredEvent, EventRegistry, Event]]:
    # Each record with the registry that decoded it: the common one until ``run.started``
    # names the experiment (unless the caller did), the experiment's from then on.
    registry = experiment.registry if experiment is not None else COMMON_REGISTRY
    for record in stored:
        decoded_by = registry
        try:
            event = registry.decode(record.type, record.schema_version, record.payload)
            if experiment is None and isinstance(event, RunStarted):
                experiment = experiments.get(event.experiment)
                registry = experiment.registry
        except (UnknownEventError, ValueError) as exc:
            raise UnreadableEventError(f"seq {record.seq} ({record.type}): {_why(exc)}") from None
        yield record, decoded_by, event


def _why(exc: Exception) -> str:
    """Why an event cannot be read, in one line: a validation error names its field."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the payload"
        return f"{field}: {first['msg']}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


RAW_NOT_HELD: dict[str, Any] = {"not_held": PROMPT_NOT_HELD}
"""What a history read from a :class:`RunSource` holds in place of an answer's raw provider
response, which no projection shows."""


def light_record(record: StoredEvent) -> StoredEvent | None:
    """A record as a history read from a source holds it: a ``model.requested`` with
    :data:`PROMPT_NOT_HELD` for the request's ``system`` and ``input`` and for every long
    value of its ``context`` (the public history and memory the prompt shows, for the
    simulated participant: a string of ``MIN_TEXT_CHARS`` characters or a list of
    ``MIN_LIST_ITEMS`` items, what the store may pack), a ``model.completed`` with
    :data:`RAW_NOT_HELD` for its raw response; any other record as it is. What is held of a
    run then stays small beside its prompts.

    ``record`` may come packed (``EventStore.read(keep_packed=...)``: rebuilding the prompts
    is most of the cost of a read); ``None`` when a value outside those is packed, and the
    record must be read whole instead."""
    if record.type == ModelCallCompleted.TYPE:
        return _without_raw(record)
    request = record.payload.get("request") if record.type == ModelCallRequested.TYPE else None
    if not isinstance(request, dict):
        return record
    payload = {k: v for k, v in record.payload.items() if k != PACKED_KEY}
    context = request.get("context")
    light_context = dict(context) if isinstance(context, dict) else context
    for entry in record.payload.get(PACKED_KEY, ()):
        path = entry[0]
        if path[:1] != ["request"]:
            return None
        if path[1:2] == ["context"] and len(path) > 2 and isinstance(light_context, dict):
            light_context[path[2]] = PROMPT_NOT_HELD
        elif path[1:] not in (["system"], ["input"]):
            return None
    if isinstance(light_context, dict):
        for key, value in light_context.items():
            if _long(value):
                light_context[key] = PROMPT_NOT_HELD
    light = {**request, "system": PROMPT_NOT_HELD, "input": PROMPT_NOT_HELD}
    if context is not None:
        light["context"] = light_context
    return record.model_copy(update={"payload": {**payload, "request": light}})


def _without_raw(record: StoredEvent) -> StoredEvent:
    answer = record.payload.get("answer")
    if not isinstance(answer, dict) or "raw" not in answer:
        return record
    light = {**record.payload, "answer": {**answer, "raw": RAW_NOT_HELD}}
    return record.model_copy(update={"payload": light})


def _long(value: Any) -> bool:
    return (isinstance(value, str) and len(value) >= MIN_TEXT_CHARS) or (
        isinstance(value, list) and len(value) >= MIN_LIST_ITEMS
    )


def chain(
    events: Sequence[Event], run_id: str = "memory", recorded_at: str = FIXED_TIME
) -> list[StoredEvent]:
    """``events`` as the store would hold them: seq from 1, hash-chained, at a fixed time."""
    out: list[StoredEvent] = []
    prev = GENESIS_HASH
    moment = datetime.fromisoformat(recorded_at)
    for seq, event in enumerate(events, 1):
        type_, version, payload, agent = encode(event)
        payload = _normalized(payload)
        digest = envelope_hash(
            run_id=run_id,
            seq=seq,
            type=type_,
            schema_version=version,
            payload_json=canonical_json(payload),
            agent=agent,
            recorded_at=format_recorded_at(moment),
            prev_hash=prev,
        )
        out.append(
            StoredEvent(
                position=seq,
                run_id=run_id,
                seq=seq,
                type=type_,
                schema_version=version,
                payload=payload,
                agent=agent,
                recorded_at=moment,
                prev_hash=prev,
                hash=digest,
            )
        )
        prev = digest
    return out


def _normalized(payload: dict[str, Any]) -> dict[str, Any]:
    # What a store read gives back: plain JSON values (tuples as lists, and so on).
    result: dict[str, Any] = json.loads(canonical_json(payload))
    return result


def cite(entry: Entry) -> dict[str, Any]:
    """What makes a fact citable: its event's seq and hash in the run's chain."""
    return {"seq": entry.seq, "hash": entry.hash}


def event_json(entry: Entry, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """An event as JSON with its citation and type (``drop``: fields to leave out)."""
    data = entry.event.model_dump(mode="json")
    for key in drop:
        data.pop(key, None)
    return {**data, **cite(entry), "type": entry.event.TYPE}


def history_from_events(
    events: Sequence[Event],
    run_id: str = "memory",
    status: str | None = None,
    experiment: Experiment | None = None,
) -> History:
    return history_from_stored(run_id, chain(events, run_id), status, experiment)
