"""Model calls of a collaboration run, grouped by address: requests, answer, failed transport
attempts and the answer events that read it; and where an address sits in the game.

Addresses are fixed by the protocol: ``c/<agent>/initial/<n>`` (step 1),
``c/t<k>/<agent>/<n>`` (turn ``k``, 2 … 2n+1), ``c/<agent>/decision/<n>``, and a utility
extraction ``<participant address>/extract/<u>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from maai.domain.address import CallAddress
from maai.domain.answers import AnswerRead
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.events import ModelAttemptFailed, ModelCallCompleted, ModelCallRequested
from maai.projections.history import Entry, History

_INITIAL = re.compile(r"^c/(?P<agent>[^/]+)/initial/(?P<n>\d+)$")
_TURN = re.compile(r"^c/t(?P<step>\d+)/(?P<agent>[^/]+)/(?P<n>\d+)$")
_DECISION = re.compile(r"^c/(?P<agent>[^/]+)/decision/(?P<n>\d+)$")


@dataclass(frozen=True, slots=True)
class Site:
    """Where a participant's call sits: ``kind`` initial, turn or decision; ``step`` 0 for
    the initial belief, ``k`` for turn k, None for the decision; ``attempt`` its number."""

    kind: str | None
    agent: str | None
    step: int | None
    attempt: int | None


def site_of(address: str) -> Site:
    """The site of a participant's call (an extraction sits where the answer it reads
    sits)."""
    base = CallAddress.parse(address).participant
    for pattern, kind in ((_INITIAL, "initial"), (_TURN, "turn"), (_DECISION, "decision")):
        match = pattern.match(base)
        if match:
            step = 0 if kind == "initial" else None
            if kind == "turn":
                step = int(match.group("step"))
            return Site(kind, match.group("agent"), step, int(match.group("n")))
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


def collect_calls(history: History) -> list[Call]:
    """Every requested call, in the order of its first request."""
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
        elif isinstance(event, AnswerRead):
            for address in (event.address, event.via):
                if address is not None and address in calls:
                    calls[address].results.append(entry)
    return sorted(calls.values(), key=lambda c: c.seq)
