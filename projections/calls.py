"""Model calls as projections see them, for every experiment: a call's requests, answer,
failed transport attempts and the events that read its answer, grouped by the call's
protocol address (an experiment says which of its own events read an answer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from maai.domain.address import CallAddress
from maai.domain.answers import AnswerRead
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.events import Event, ModelAttemptFailed, ModelCallCompleted, ModelCallRequested
from maai.projections.history import Entry, History


@dataclass
class Call:
    address: str
    requests: list[tuple[Entry, ModelCallRequested]] = field(default_factory=list)
    completed: tuple[Entry, ModelCallCompleted] | None = None
    failures: list[tuple[Entry, ModelAttemptFailed]] = field(default_factory=list)
    results: list[Entry] = field(default_factory=list)

    @property
    def request(self) -> ModelRequest:
        return self.requests[-1][1].request

    @property
    def seq(self) -> int:
        return self.requests[0][0].seq

    @property
    def is_extraction(self) -> bool:
        return CallAddress.parse(self.address).is_extraction

    @property
    def for_agent(self) -> str:
        """The participant the call is about: the caller, or for an extraction the agent
        whose answer the utility agent reads."""
        request = self.request
        if request.agent == UTILITY:
            owner = request.context.get("for_agent")
            if isinstance(owner, str):
                return owner
        return request.agent


def answer_addresses(event: Event) -> list[str]:
    """The calls an answer event reads: the participant's call, and for a utility reading
    the extraction call too."""
    if isinstance(event, AnswerRead):
        return [event.address, event.via] if event.via else [event.address]
    return []


def collect_calls(
    history: History, result_addresses: Callable[[Event], list[str]] = answer_addresses
) -> list[Call]:
    """Every call that was requested, in the order of its first request. ``result_addresses``
    names the calls an event reads (an experiment adds its own events to the answers')."""
    calls: dict[str, Call] = {}
    for entry in history.entries:
        event = entry.event
        if isinstance(event, ModelCallRequested):
            calls.setdefault(event.request.address, Call(event.request.address))
            calls[event.request.address].requests.append((entry, event))
        elif isinstance(event, ModelCallCompleted):
            if event.address in calls:
                calls[event.address].completed = (entry, event)
        elif isinstance(event, ModelAttemptFailed):
            if event.address in calls:
                calls[event.address].failures.append((entry, event))
        else:
            for address in result_addresses(event):
                if address in calls:
                    calls[address].results.append(entry)
    return sorted(calls.values(), key=lambda c: c.seq)
