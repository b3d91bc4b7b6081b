"""Helpers to break a recorded history on purpose: each audit test plants one breach in a copy
of a clean run's events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from maai.domain.events import Event, RunStarted

E = TypeVar("E", bound=Event)


def index_of(events: list[Event], cls: type[E], where: Callable[[E], bool] = lambda e: True) -> int:
    for i, event in enumerate(events):
        if isinstance(event, cls) and where(event):
            return i
    raise LookupError(f"no {cls.__name__} matches")


def find(events: list[Event], cls: type[E], where: Callable[[E], bool] = lambda e: True) -> E:
    event = events[index_of(events, cls, where)]
    assert isinstance(event, cls)
    return event


def replaced(
    events: list[Event], cls: type[E], where: Callable[[E], bool] = lambda e: True, **update: Any
) -> list[Event]:
    """A copy of ``events`` with the first matching event's fields updated."""
    out = list(events)
    i = index_of(out, cls, where)
    out[i] = out[i].model_copy(update=update)
    return out


def removed(
    events: list[Event], cls: type[E], where: Callable[[E], bool] = lambda e: True
) -> list[Event]:
    out = list(events)
    del out[index_of(out, cls, where)]
    return out


def with_config(events: list[Event], **changes: Any) -> list[Event]:
    """A copy whose recorded config has ``changes`` (top-level keys) applied."""
    started = find(events, RunStarted)
    config = {**started.config, **changes}
    return replaced(events, RunStarted, config=config)
