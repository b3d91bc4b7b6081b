"""Model calls as projections see them, for every experiment: a call's requests, answer,
failed transport attempts and the events that read its answer, grouped by the call's
protocol address (an experiment says which of its own events read an answer)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from maai.domain.address import CallAddress
from maai.domain.answers import AnswerRead
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.events import Event, ModelAttemptFailed, ModelCallCompleted, ModelCallRequested
from maai.projections.history import Entry, History

E = TypeVar("E", bound=Event)


@dataclass(slots=True)
class CallRef:
    """What a list of calls holds of each: its address, caller and participant (of its last
    request), and the positions of its events in ``history.entries``."""

    address: str
    caller: str = ""
    for_agent: str = ""
    requests_at: list[int] = field(default_factory=list)
    completed_at: int | None = None
    failures_at: list[int] = field(default_factory=list)
    results_at: list[int] = field(default_factory=list)


class Call:
    """A call with its events, each read from the history when first asked for and kept as
    long as this object: :class:`CallList` gives a new one for every call it is asked for,
    so that a run's calls are held as a few numbers each (a history read from a store holds
    its entries compressed: projections/held.py), not as their decoded events."""

    __slots__ = ("_ref", "_entries", "_requests", "_completed", "_failures", "_results")

    def __init__(self, ref: CallRef, entries: Sequence[Entry]) -> None:
        self._ref = ref
        self._entries = entries
        self._requests: list[tuple[Entry, ModelCallRequested]] | None = None
        self._completed: tuple[Entry, ModelCallCompleted] | None = None
        self._failures: list[tuple[Entry, ModelAttemptFailed]] | None = None
        self._results: list[Entry] | None = None

    @property
    def address(self) -> str:
        return self._ref.address

    @property
    def caller(self) -> str:
        """``request.agent``, known without reading the request."""
        return self._ref.caller

    @property
    def for_agent(self) -> str:
        """The participant the call is about: the caller, or for an extraction the agent
        whose answer the utility agent reads."""
        return self._ref.for_agent

    @property
    def seq(self) -> int:
        return self.requests[0][0].seq

    @property
    def requests(self) -> list[tuple[Entry, ModelCallRequested]]:
        if self._requests is None:
            self._requests = [self._typed(at, ModelCallRequested) for at in self._ref.requests_at]
        return self._requests

    @property
    def completed(self) -> tuple[Entry, ModelCallCompleted] | None:
        if self._completed is None and self._ref.completed_at is not None:
            self._completed = self._typed(self._ref.completed_at, ModelCallCompleted)
        return self._completed

    @property
    def failures(self) -> list[tuple[Entry, ModelAttemptFailed]]:
        if self._failures is None:
            self._failures = [self._typed(at, ModelAttemptFailed) for at in self._ref.failures_at]
        return self._failures

    @property
    def results(self) -> list[Entry]:
        if self._results is None:
            self._results = [self._entries[at] for at in self._ref.results_at]
        return self._results

    def _typed(self, at: int, kind: type[E]) -> tuple[Entry, E]:
        entry = self._entries[at]
        assert isinstance(entry.event, kind)
        return entry, entry.event

    @property
    def request(self) -> ModelRequest:
        return self.requests[-1][1].request

    @property
    def is_extraction(self) -> bool:
        return CallAddress.parse(self.address).is_extraction


class CallList(Sequence[Call]):
    """A run's calls in the order of their first request: each read afresh when asked for
    (:class:`Call`), so that holding the list holds none of their events."""

    def __init__(self, refs: list[CallRef], entries: Sequence[Entry]) -> None:
        self._refs = refs
        self._entries = entries

    def __len__(self) -> int:
        return len(self._refs)

    @overload
    def __getitem__(self, index: int) -> Call: ...

    @overload
    def __getitem__(self, index: slice) -> list[Call]: ...

    def __getitem__(self, index: int | slice) -> Call | list[Call]:
        if isinstance(index, slice):
            return [Call(ref, self._entries) for ref in self._refs[index]]
        return Call(self._refs[index], self._entries)

    def __iter__(self) -> Iterator[Call]:
        for ref in self._refs:
            yield Call(ref, self._entries)


def answer_addresses(event: Event) -> list[str]:
    """The calls an answer event reads: the participant's call, and for a utility reading
    the extraction call too."""
    if isinstance(event, AnswerRead):
        return [event.address, event.via] if event.via else [event.address]
    return []


def collect_calls(
    history: History, result_addresses: Callable[[Event], list[str]] = answer_addresses
) -> CallList:
    """Every call that was requested, in the order of its first request. ``result_addresses``
    names the calls an event reads (an experiment adds its own events to the answers')."""
    calls: dict[str, CallRef] = {}
    entries = history.entries
    for at, entry in enumerate(entries):
        event = entry.event
        if isinstance(event, ModelCallRequested):
            request = event.request
            ref = calls.setdefault(request.address, CallRef(request.address))
            ref.requests_at.append(at)
            ref.caller = ref.for_agent = request.agent
            if request.agent == UTILITY:
                owner = request.context.get("for_agent")
                if isinstance(owner, str):
                    ref.for_agent = owner
        elif isinstance(event, ModelCallCompleted):
            if event.address in calls:
                calls[event.address].completed_at = at
        elif isinstance(event, ModelAttemptFailed):
            if event.address in calls:
                calls[event.address].failures_at.append(at)
        else:
            for address in result_addresses(event):
                if address in calls:
                    calls[address].results_at.append(at)
    # In the order of each call's first request (positions are in seq order).
    return CallList(sorted(calls.values(), key=lambda c: c.requests_at[0]), entries)


Row = dict[str, Any]

CALL_COLUMNS_HEAD: tuple[tuple[str, str], ...] = (
    ("seq", "Seq of the call's (first) model.requested event."),
    ("address", "The call's protocol address."),
    ("agent", "Caller: a participant or `utility`."),
    ("for_agent", "The participant whose answer or turn the call is about."),
)
"""The first columns of every experiment's ``model_calls`` table; its ``purpose`` column and
the columns locating the call in its protocol follow, then ``CALL_COLUMNS_TAIL``."""

CALL_COLUMNS_TAIL: tuple[tuple[str, str], ...] = (
    ("model", "Model name."),
    ("status", "`completed`, or `pending` when no answer was recorded."),
    ("input_tokens", "Input tokens reported by the provider."),
    ("output_tokens", "Output tokens reported by the provider."),
    ("latency_ms", "Wall time of the call in milliseconds."),
    ("attempts", "Transport attempts the answer took (1 = first try)."),
    ("failed_attempts", "Failed transport attempts recorded for the call."),
    ("times_requested", "How often the call was requested (>1 after a resume)."),
    ("request_hash", "Hash of the full request (prompt and settings)."),
)


def call_rows(calls: Iterable[Call], where: Callable[[str], Row]) -> Iterator[Row]:
    """One row per call; ``where(address)`` gives the experiment's columns locating it."""
    for call in calls:
        request = call.request
        row: Row = {
            "seq": call.seq,
            "address": call.address,
            "agent": request.agent,
            "for_agent": call.for_agent,
            "purpose": request.purpose,
            **where(call.address),
            "model": request.model,
            "status": "pending" if call.completed is None else "completed",
            "failed_attempts": len(call.failures),
            "times_requested": len(call.requests),
            "request_hash": call.requests[-1][1].request_hash,
        }
        if call.completed is not None:
            answer = call.completed[1].answer
            row.update(
                input_tokens=answer.usage.input_tokens,
                output_tokens=answer.usage.output_tokens,
                latency_ms=answer.latency_ms,
                attempts=answer.attempts,
            )
        yield row
