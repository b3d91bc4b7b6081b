"""Model calls as projections see them: a call's requests, answer, failed transport attempts
and the events that read its answer, grouped by the call's protocol address.

Addresses follow docs/architecture.md (``p1/<agent>/r<k>/choice/<n>``,
``p2/r<r>/t<t>/ballot/<agent>/<n>``, ``<participant address>/extract/<u>``); where a call
sits in the protocol is read from its address, which the protocol fixes, rather than from the
free-form ``context``.
"""

from __future__ import annotations

from dataclasses import dataclass

from maai.domain.address import CallAddress
from maai.domain.events import Event
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerRejected,
    AnswerUndecided,
    MemoryUpdated,
    ReasoningRecorded,
    StatementMade,
)
from maai.projections.calls import Call as Call
from maai.projections.calls import CallList, answer_addresses
from maai.projections.calls import collect_calls as collect_generic
from maai.projections.history import History


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


def _result_addresses(event: Event) -> list[str]:
    """The calls whose answer ``event`` reads."""
    if isinstance(event, AnswerAccepted | AnswerRejected | AnswerUndecided):
        # A utility-read answer belongs to both the participant's call and the extraction.
        return answer_addresses(event)
    if isinstance(event, StatementMade | ReasoningRecorded):
        return [event.address]
    if isinstance(event, MemoryUpdated):
        # The kept text comes from the shortening call whenever the first was too long.
        return [event.slot if event.source == "update" else f"{event.slot}/shorten"]
    return []


def collect_calls(history: History) -> CallList:
    """Every call that was requested, in the order of its first request."""
    return collect_generic(history, _result_addresses)
