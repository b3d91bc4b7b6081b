"""Deterministic JSON text and the scrubbing of anything secret-looking from exports."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

SECRET_MARKERS = ("key", "secret", "token", "password")


class DeferredText(ABC):
    """A text that is read only when it is written out: a long export (every prompt of a
    run) holds handles to its texts, not the texts, and each is read, encoded and dropped
    in turn. It is written exactly as the same text held as a ``str``."""

    __slots__ = ()

    @abstractmethod
    def text(self) -> str: ...


class DeferredJson:
    """A JSON value built only when it is written out, and dropped once written: a long
    export (one section per agent) holds one section at a time. It is written exactly as
    the value it builds."""

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build

    def value(self) -> Any:
        return self._build()


def section(build: Callable[[], Any], *, deferred: bool) -> Any:
    """A section of a log: built now, or (``deferred``, for a history read from a store)
    only as it is written, so that a long run's log holds one agent's section at a time."""
    return DeferredJson(build) if deferred else build()


def resolved(value: Any) -> Any:
    """``value``, or the value a :class:`DeferredJson` builds."""
    return value.value() if isinstance(value, DeferredJson) else value


def _deferred(value: Any) -> Any:
    # The encoder writes what this returns in place of ``value``, indented alike (with an
    # indent, ``json`` encodes in Python, which takes this hook at any depth).
    if isinstance(value, DeferredText):
        return value.text()
    if isinstance(value, DeferredJson):
        return value.value()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ENCODER = json.JSONEncoder(
    sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False, default=_deferred
)


def dumps(value: Any) -> str:
    """Sorted keys, two-space indent, UTF-8 kept, one trailing newline: the same value always
    gives the same bytes."""
    return _ENCODER.encode(value) + "\n"


def iter_dumps(value: Any) -> Iterator[str]:
    """:func:`dumps` in pieces, to be written as they come: the same bytes, without holding
    the whole text of a large export in memory beside the value."""
    yield from _ENCODER.iterencode(value)
    yield "\n"


def scrub(value: Any) -> Any:
    """A copy of ``value`` without any mapping key whose name looks secret.

    Configs name environment variables rather than holding keys, so nothing should match;
    this is a second line of defence for whatever a future config adds.
    """
    if isinstance(value, dict):
        return {
            k: scrub(v)
            for k, v in value.items()
            if not any(marker in str(k).lower() for marker in SECRET_MARKERS)
        }
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value
