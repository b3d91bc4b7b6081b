"""Model calls as projections see them, for every experiment: a call's requests, answer,
failed transport attempts and the events that read its answer, grouped by the call's
protocol address (an experiment says which of its own events read an answer)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

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
