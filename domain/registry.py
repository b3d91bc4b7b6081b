"""Event types by their stored name, and the upcasting of old payloads.

The ledger stores (type, schema_version, payload); this module turns those back into typed
events. When an event's shape changes, bump its VERSION and register an upcaster that lifts
the old payload, so ledgers written by older code stay readable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunCompleted,
    RunFailed,
    RunStarted,
)
from maai.domain.frohlich.events import FROHLICH_EVENTS

COMMON_EVENTS: tuple[type[Event], ...] = (
    RunStarted,
    RunCompleted,
    RunFailed,
    ModelCallRequested,
    ModelAttemptFailed,
    ModelCallCompleted,
)

EVENT_TYPES: dict[str, type[Event]] = {cls.TYPE: cls for cls in COMMON_EVENTS + FROHLICH_EVENTS}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
# (type, from_version) -> function lifting a payload to from_version + 1
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


class UnknownEventError(ValueError):
    pass


def encode(event: Event) -> tuple[str, int, dict[str, Any], str | None]:
    """(type, schema_version, payload, agent) for the store."""
    return event.TYPE, event.VERSION, event.model_dump(mode="json"), event.agent_name


def decode(type_: str, schema_version: int, payload: dict[str, Any]) -> Event:
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        raise UnknownEventError(f"unknown event type {type_!r}")
    if schema_version > cls.VERSION:
        raise UnknownEventError(
            f"event {type_!r} has schema version {schema_version}, newer than this code's "
            f"{cls.VERSION}: upgrade maai to read this ledger"
        )
    while schema_version < cls.VERSION:
        upcast = UPCASTERS.get((type_, schema_version))
        if upcast is None:
            raise UnknownEventError(f"no upcaster for {type_!r} version {schema_version}")
        payload = upcast(payload)
        schema_version += 1
    return cls.model_validate(payload)
