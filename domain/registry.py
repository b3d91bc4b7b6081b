"""Event types by their stored name, and the upcasting of old payloads.

The ledger stores (type, schema_version, payload); a registry turns those back into typed
events. Each experiment builds its own from the events every run has (``COMMON_EVENTS``) and
the types it declares itself. When an event's shape changes, bump its VERSION and give the
registry an upcaster that lifts the old payload, so ledgers written by older code stay
readable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from maai.canonical import WithShared
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunClaimed,
    RunCompleted,
    RunFailed,
    RunForked,
    RunSigned,
    RunStarted,
)

COMMON_EVENTS: tuple[type[Event], ...] = (
    RunStarted,
    RunForked,
    RunCompleted,
    RunFailed,
    RunClaimed,
    ModelCallRequested,
    ModelAttemptFailed,
    ModelCallCompleted,
    RunSigned,
)

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Lifts a payload from one schema version to the next."""

Validate = Callable[[Any], Any]


class UnknownEventError(ValueError):
    pass


class EventRegistry:
    """The event types one experiment's runs may hold, by stored type name."""

    def __init__(
        self,
        types: Iterable[type[Event]],
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
    ) -> None:
        self.types: dict[str, type[Event]] = {}
        for cls in (*COMMON_EVENTS, *types):
            if not cls.TYPE:
                raise ValueError(f"event class {cls.__name__} has no TYPE")
            known = self.types.get(cls.TYPE)
            if known is not None and known is not cls:
                raise ValueError(
                    f"event type {cls.TYPE!r} is declared twice: by {known.__qualname__} and "
                    f"{cls.__qualname__}"
                )
            self.types[cls.TYPE] = cls
        # (type, from_version) -> function lifting a payload to from_version + 1
        self.upcasters: dict[tuple[str, int], Upcaster] = dict(upcasters or {})
        # type -> (its class, pydantic-core's validators of its payload from a dict and from
        # JSON text): one lookup per event, and no model_validate wrapper. The version is read
        # from the class at each decode, as before.
        self._current: dict[str, tuple[type[Event], Validate, Validate]] = {
            name: (
                cls,
                cls.__pydantic_validator__.validate_python,
                cls.__pydantic_validator__.validate_json,
            )
            for name, cls in self.types.items()
        }

    def encode(self, event: Event) -> tuple[str, int, dict[str, Any], str | None]:
        """(type, schema_version, payload, agent) for the store."""
        return encode(event)

    def decode(self, type_: str, schema_version: int, payload: dict[str, Any]) -> Event:
        current = self._current.get(type_)
        if current is not None and schema_version == current[0].VERSION:
            return current[1](payload)  # type: ignore[no-any-return]
        return self._decode_old(type_, schema_version, payload)

    def decode_json(self, type_: str, schema_version: int, text: str) -> Event:
        """:meth:`decode` of a payload given as its JSON text. pydantic-core validates the
        text itself, about as fast as parsing it alone, and gives the same event as
        validating the parsed payload; an old schema version (its upcasters lift dicts) or a
        payload that does not validate takes the way through ``decode``, errors included."""
        current = self._current.get(type_)
        if current is not None and schema_version == current[0].VERSION:
            try:
                return current[2](text)  # type: ignore[no-any-return]
            except ValidationError:
                pass  # the error as decode words it, or what validating the parsed dict gives
        return self.decode(type_, schema_version, json.loads(text))

    def _decode_old(self, type_: str, schema_version: int, payload: dict[str, Any]) -> Event:
        cls = self.types.get(type_)
        if cls is None:
            raise UnknownEventError(f"unknown event type {type_!r}")
        if schema_version > cls.VERSION:
            raise UnknownEventError(
                f"event {type_!r} has schema version {schema_version}, newer than this code's "
                f"{cls.VERSION}: upgrade maai to read this ledger"
            )
        while schema_version < cls.VERSION:
            upcast = self.upcasters.get((type_, schema_version))
            if upcast is None:
                raise UnknownEventError(f"no upcaster for {type_!r} version {schema_version}")
            payload = upcast(payload)
            schema_version += 1
        return cls.model_validate(payload)


COMMON_REGISTRY = EventRegistry(())
"""The events every run has (its start, calls and end): enough to read which experiment a
stored run belongs to before its own registry is known."""


def encode(event: Event) -> tuple[str, int, dict[str, Any], str | None]:
    """(type, schema_version, payload, agent) for the store; the same for every experiment."""
    if type(event) is ModelCallRequested:
        # The request as it is (its history items shared with the requests before it, not
        # copied): the same JSON as model_dump gives, at a fraction of the cost.
        fields = event.request.json_fields()
        if fields is not None:
            payload = WithShared(attempt=event.attempt, request=fields)
            payload["request_hash"] = event.request_hash
            return event.TYPE, event.VERSION, payload, event.agent_name
    return event.TYPE, event.VERSION, event.model_dump(mode="json"), event.agent_name
