"""Model calls as projections see them: a call's requests, answer, failed transport attempts
and the events that read its answer, grouped by the call's protocol address.

Addresses follow docs/architecture.md (``p1/<agent>/r<k>/choice/<n>``,
``p2/r<r>/t<t>/ballot/<agent>/<n>``, ``<participant address>/extract/<u>``); where a call
sits in the protocol is read from its address, which the protocol fixes, rather than from the
free-form ``context``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maai.domain.address import CallAddress
from maai.domain.calls import ModelRequest
from maai.domain.events import Event, ModelAttemptFailed, ModelCallCompleted, ModelCallRequested
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerRejected,
    AnswerUndecided,
    MemoryUpdated,
    ReasoningRecorded,
    StatementMade,
)
from maai.projections.history import Entry, History


@dataclass(frozen=True, slots=True)
class Site:
    """Where an address sits in the protocol."""

    phase: int | None
    step: str | None
    round: int | None
    turn: int | None


def _number(part: str, prefix: str) -> int | None:
    if part.startswith(prefix) and part[len(prefix) :].isdigit():
        return int(part[len(prefix) :])
    return None


def site_of(address: str) -> Site:
    # A utility extraction sits where the answer it reads sits.
    parts = CallAddress.parse(address).parts
    if len(parts) >= 3 and parts[0] == "p1":
        marker = parts[2]
        if marker.startswith("s"):
            return Site(1, marker[1:], None, None)
        rnd = _number(marker, "r")
        return Site(1, "1.3" if rnd is not None else None, rnd, None)
    if len(parts) >= 3 and parts[0] == "p2":
        if parts[1] == "s2.2":
            return Site(2, "2.2", None, None)
        if parts[2] == "s2.3":
            return Site(2, "2.3", None, None)
        rnd = _number(parts[1], "r")
        if rnd is None:
            return Site(2, None, None, None)
        turn = (
            _number(parts[2], "t") if len(parts) >= 5 and parts[3] in ("poll", "ballot") else None
        )
        return Site(2, "2.1", rnd, turn)
    return Site(None, None, None, None)


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
    def for_agent(self) -> str:
        """The participant the call is about: the caller, or for an extraction the agent
        whose answer the utility agent reads."""
        request = self.request
        if request.agent == "utility":
            owner = request.context.get("for_agent")
            if isinstance(owner, str):
                return owner
        return request.agent


def _result_addresses(event: Event) -> list[str]:
    """The calls whose answer ``event`` reads."""
    if isinstance(event, AnswerAccepted | AnswerRejected | AnswerUndecided):
        # A utility-read answer belongs to both the participant's call and the extraction.
        return [event.address, event.via] if event.via else [event.address]
    if isinstance(event, StatementMade | ReasoningRecorded):
        return [event.address]
    if isinstance(event, MemoryUpdated):
        # The kept text comes from the shortening call whenever the first was too long.
        return [event.slot if event.source == "update" else f"{event.slot}/shorten"]
    return []


def collect_calls(history: History) -> list[Call]:
    """Every call that was requested, in the order of its first request."""
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
            for address in _result_addresses(event):
                if address in calls:
                    calls[address].results.append(entry)
    return sorted(calls.values(), key=lambda c: c.seq)
